"""BisectingKMeans: a tree of 2-means splits with scikit-learn's choices (which cluster
to split, how labels are numbered, how predict descends), and its quality."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import BisectingKMeans as SklearnBisecting
from sklearn.datasets import make_blobs

from lowdim import BisectingKMeans
from lowdim.metrics import adjusted_rand_score


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(3000, centers=8, n_features=5, cluster_std=0.6, center_box=(-30, 30), random_state=2)
    return X, y


@pytest.mark.parametrize("strategy", ["biggest_inertia", "largest_cluster"])
def test_separated_groups_are_found_as_scikit_learn_finds_them(blobs, strategy):
    X, y = blobs
    ours = BisectingKMeans(8, bisecting_strategy=strategy, random_state=0).fit(X)
    theirs = SklearnBisecting(8, bisecting_strategy=strategy, random_state=0).fit(X)
    assert adjusted_rand_score(y, ours.labels_) == 1.0 == adjusted_rand_score(y, theirs.labels_)
    np.testing.assert_allclose(ours.inertia_, theirs.inertia_, rtol=1e-9)


def test_the_tree_numbers_leaves_left_first_and_predict_follows_it(blobs):
    X, _ = blobs
    model = BisectingKMeans(5, random_state=0).fit(X)
    children, labels = model.split_children_, model.split_labels_
    leaves = np.flatnonzero(children[:, 0] < 0)
    assert leaves.size == 5 and sorted(labels[leaves].tolist()) == list(range(5))
    assert (labels[children[:, 0] >= 0] == -1).all()
    # a depth-first walk, left first, meets the leaves in label order
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        if children[node, 0] < 0:
            order.append(labels[node])
        else:
            stack += [children[node, 1], children[node, 0]]
    assert order == list(range(5))
    np.testing.assert_array_equal(model.predict(X), model.labels_)  # converged splits: the same side
    # inertia is the squared error of the labels about the centres
    expected = sum(((X[model.labels_ == c] - model.cluster_centers_[c]) ** 2).sum() for c in range(5))
    np.testing.assert_allclose(model.inertia_, expected, rtol=1e-9)


def _members(model):
    """The rows under each node of the tree of splits."""
    children, out = model.split_children_, {}
    for node in range(children.shape[0] - 1, -1, -1):  # halves are numbered after their parent
        if children[node, 0] < 0:
            out[node] = np.flatnonzero(model.labels_ == model.split_labels_[node])
        else:
            out[node] = np.concatenate([out[children[node, 0]], out[children[node, 1]]])
    return out


@pytest.mark.parametrize("strategy", ["biggest_inertia", "largest_cluster"])
def test_each_split_takes_the_leaf_with_the_largest_score(blobs, strategy):
    X, _ = blobs
    model = BisectingKMeans(7, bisecting_strategy=strategy, random_state=1).fit(X)
    members, children = _members(model), model.split_children_
    centers = model.split_centers_ + model.offset_

    def score(node):
        rows = members[node]
        return rows.size if strategy == "largest_cluster" else ((X[rows] - centers[node]) ** 2).sum()

    # the halves of the split made at step s are nodes 2 s + 1 and 2 s + 2
    split_at = {parent: (children[parent, 0] - 1) // 2 for parent in np.flatnonzero(children[:, 0] >= 0)}
    for step in range(6):
        leaves = [n for n in range(2 * step + 1) if split_at.get(n, 99) >= step]
        chosen = next(n for n, s in split_at.items() if s == step)
        assert score(chosen) == max(score(n) for n in leaves)


def test_sparse_rows_give_the_dense_result(blobs):
    X, _ = blobs
    X = np.abs(X)
    dense = BisectingKMeans(6, random_state=0).fit(X)
    sparse = BisectingKMeans(6, random_state=0).fit(sp.csr_matrix(X))
    assert adjusted_rand_score(dense.labels_, sparse.labels_) == 1.0
    np.testing.assert_allclose(sparse.inertia_, dense.inertia_, rtol=1e-6)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), sparse.labels_)


@pytest.mark.parametrize("name", ["BisectingKMeans", "KMeans"])
def test_wide_sparse_rows_are_clustered_without_a_dense_copy(name):
    # each row's distance to its own centre was taken from a dense n x d array of the
    # centres repeated per row (320 MB here; 800 MB at 5,000 x 20,000 terms): now from
    # products with the centres or each stored entry's own, exact; the k x d centres
    # are copied a few times (32 MB for KMeans' 40)
    import tracemalloc

    import lowdim

    rng = np.random.default_rng(0)
    n, d, k = 2000, 20000, 40 if name == "KMeans" else 6  # above and below OWN_BY_PRODUCT centres
    blocks = [sp.random(n // 2, d // 2, density=0.004, random_state=s, data_rvs=rng.random) for s in (1, 2)]
    X = sp.csr_matrix(sp.block_diag(blocks))
    model = getattr(lowdim, name)(k, random_state=0, **({"n_init": 1} if name == "KMeans" else {}))
    model.fit(X)  # compiled kernels and imports before the count
    tracemalloc.start()
    try:
        sparse = model.fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * d * 8 / 4
    own = sparse.cluster_centers_[sparse.labels_]
    exact = sum(((X[i : i + 250].toarray() - own[i : i + 250]) ** 2).sum() for i in range(0, n, 250))
    np.testing.assert_allclose(sparse.inertia_, exact, rtol=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_more_clusters_than_distinct_rows_leaves_empty_clusters_with_the_warning(sparse):
    """A leaf of one row cannot be split (it crashed drawing two starting rows from one):
    as scikit-learn, the asked-for number of centres, the extra ones empty; and the warning."""
    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(30, 2)), np.repeat([[5.0, 5.0]], 20, axis=0)])  # 31 distinct rows
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(31\) found smaller than n_clusters"):
        model = BisectingKMeans(40, random_state=0).fit(sp.csr_matrix(X) if sparse else X)
    reference = SklearnBisecting(40, random_state=0).fit(X)  # (moved by 100, it crashes as lowdim did)
    assert model.cluster_centers_.shape == reference.cluster_centers_.shape == (40, 2)
    assert np.unique(model.labels_).size == np.unique(reference.labels_).size == 31
    assert model.inertia_ == pytest.approx(0.0, abs=1e-20)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    with pytest.warns(ConvergenceWarning, match=r"distinct clusters \(31\)"):
        moved = BisectingKMeans(40, random_state=0).fit(X + 100.0)
    assert adjusted_rand_score(moved.labels_, model.labels_) == 1.0  # each distinct row alone, either way


def test_small_and_large_splits_give_the_same_tree(blobs, monkeypatch):
    """Splits of small clusters iterate by library products (``SMALL_LLOYD``), large
    ones by the bound kernels: the same tree, labels, centres and inertia."""
    X, _ = blobs
    small = BisectingKMeans(8, n_init=2, random_state=0).fit(X)
    monkeypatch.setattr("lowdim.cluster._products_lloyd.SMALL_LLOYD", -1)
    large = BisectingKMeans(8, n_init=2, random_state=0).fit(X)
    np.testing.assert_array_equal(small.labels_, large.labels_)
    np.testing.assert_allclose(small.cluster_centers_, large.cluster_centers_, rtol=1e-10, atol=1e-10)
    assert small.inertia_ == pytest.approx(large.inertia_, rel=1e-10)


def test_a_split_moves_only_the_misplaced_rows_and_keeps_rows_with_their_data():
    from lowdim.cluster._bisecting import _LeafRows

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    leaf = _LeafRows(X.copy(), np.einsum("ij,ij->i", X, X), rng.random(50))
    weights = leaf.w.copy()
    labels = rng.integers(2, size=40)
    (a, cut), (cut2, b), sorted_labels = leaf.split((5, 45), labels)
    assert (a, b, cut) == (5, 45, cut2) and cut - 5 == np.count_nonzero(labels == 0)
    assert np.all(sorted_labels[: cut - 5] == 0) and np.all(sorted_labels[cut - 5 :] == 1)
    np.testing.assert_array_equal(leaf.X, X[leaf.perm])  # every row moved with its norm, weight and index
    np.testing.assert_array_equal(leaf.x_sq, np.einsum("ij,ij->i", X, X)[leaf.perm])
    np.testing.assert_array_equal(leaf.w, weights[leaf.perm])
    in_place = np.r_[labels[: cut - 5] == 0, labels[cut - 5 :] == 1]
    assert np.all(leaf.perm[5:45][in_place] == np.arange(5, 45)[in_place])  # rows already in place stay


def test_a_restart_that_reaches_the_same_clusters_never_replaces_the_first():
    # two starts that end in the same clusters have inertias an ulp apart, by summation
    # order: the lower one was kept, so AVX2 and AVX-512 BLAS built different trees
    from types import SimpleNamespace

    from lowdim._iterative import LoopResult, best_of_restarts
    from lowdim.cluster._base import same_clusters

    def result(labels, objective):
        return LoopResult(SimpleNamespace(labels=np.array(labels)), objective, 3)

    first = result([0, 0, 1, 1], 2.0)
    renamed = result([1, 1, 0, 0], np.nextafter(2.0, 0.0))
    other = result([0, 1, 1, 1], 1.0)
    runs = iter([first, renamed])
    assert best_of_restarts(lambda rng: next(runs), 2, None, same=same_clusters) is first
    runs = iter([first, renamed, other])  # other clusters, lower: they win
    assert best_of_restarts(lambda rng: next(runs), 3, None, same=same_clusters) is other
    assert not same_clusters(first, result([0, 0, 0, 1], 2.0)) and not same_clusters(first, result([0, 1, 2, 2], 2.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["BisectingKMeans", "KMeans"])
def test_the_fused_sparse_step_fits_the_library_paths_clusters_to_the_bit(monkeypatch, name, dtype):
    # large sparse fits take one kernel pass for the labels and one for the sums instead
    # of a product, a distance block, an argmin and a membership product: the same
    # arithmetic in the same order, so the same fit (float32 rows: sums in float64 from
    # float32 products, as scipy's); weighted rows, and more than 8 clusters for KMeans
    import lowdim
    from lowdim._kernels import sparse_lloyd
    from lowdim.cluster import _products_lloyd
    from lowdim.cluster._lloyd import assign
    from lowdim.linalg import group_row_sums, row_norms_sq

    rng = np.random.default_rng(0)
    blocks = [sp.random(300, 400, density=0.02, random_state=s, data_rvs=rng.random) for s in (1, 2, 3)]
    X = sp.csr_matrix(sp.block_diag(blocks), dtype=dtype)
    w = rng.uniform(0.5, 2.0, X.shape[0])
    calls = []
    real = sparse_lloyd.lloyd_step
    monkeypatch.setattr(sparse_lloyd, "lloyd_step", lambda *a: calls.append(1) or real(*a))

    def fit(step):
        monkeypatch.setattr(_products_lloyd, "SPARSE_STEP", step)
        model = getattr(lowdim, name)(12, random_state=0, **({"n_init": 1} if name == "KMeans" else {}))
        return model.fit(X, sample_weight=w)

    x_sq = row_norms_sq(X)
    for k in (2, 12):  # one step from the same centres: labels, distances, sums and weights
        centers = X[:k].toarray().astype(np.float64) + 0.01
        labels, dist = assign(X, centers, x_sq)
        for got, library_value in zip(real(X, centers, x_sq, w), (labels, dist, *group_row_sums(X, labels, k, w))):
            np.testing.assert_array_equal(got, library_value)
    library = fit(np.inf)
    assert calls == []
    fused = fit(0)
    assert len(calls) >= 2  # the start and at least one step
    np.testing.assert_array_equal(fused.labels_, library.labels_)
    np.testing.assert_array_equal(fused.cluster_centers_, library.cluster_centers_)
    assert fused.inertia_ == library.inertia_


def _term_rows(n=3000, d=2000, seed=0, dtype=np.float64):
    """Sparse rows of unit length in three overlapping topics (their columns shared in
    part): many rows lie near the boundary between two halves, where bounds are tested."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, 3, n)
    cols = (topic[:, None] * 500 + rng.integers(0, 1000, (n, 40))).ravel()
    rows = np.repeat(np.arange(n), 40)
    X = sp.csr_matrix((rng.lognormal(0.0, 0.5, n * 40), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1 / norms) @ X, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_two_means_with_bounds_is_lloyds(dtype):
    # Hamerly's bounds skip rows, never change an outcome: the same labels, centres and
    # number of steps as Lloyd's by products, from the same start, weighted rows
    from lowdim.cluster._products_lloyd import products_kmeans
    from lowdim.cluster._sparse_two_means import sparse_two_means
    from lowdim.linalg import row_norms_sq

    X = _term_rows(dtype=dtype)
    w = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0])
    x_sq = row_norms_sq(X)
    for pair in ([0, 1], [5, 2000], [10, 20]):
        start = X[pair].toarray().astype(np.float64)
        lloyd = products_kmeans(X, w, start, x_sq, max_iter=300, tol=1e-12)
        bounded = sparse_two_means(X, w, start, x_sq, max_iter=300, tol=1e-12)
        np.testing.assert_array_equal(bounded.state.labels, lloyd.state.labels)
        # float32 rows: Lloyd's distances are rounded to float32 (the bounds' are float64),
        # so a row at a near-tie may change side once more before the labels repeat
        assert abs(bounded.n_iter - lloyd.n_iter) <= (0 if dtype == np.float64 else 1) and lloyd.n_iter > 3
        # the halves' sums were moved row by row: the centres agree to float64 rounding of them
        np.testing.assert_allclose(bounded.state.centers, lloyd.state.centers, rtol=1e-9, atol=1e-12)
        assert abs(bounded.objective - lloyd.objective) <= 1e-9 * lloyd.objective


def test_the_bounds_hold_the_distances_and_settle_rows_without_reading_them():
    from lowdim.cluster._sparse_two_means import SLACK, _measure
    from lowdim.linalg import row_norms_sq, sq_euclidean

    X = _term_rows()
    n = X.shape[0]
    x_sq = row_norms_sq(X)
    state = (np.zeros(n, dtype=np.int64), np.full(n, np.inf), np.zeros(n), np.empty(n, dtype=np.int64))
    centers = X[[0, 2000]].toarray()
    _measure(X, x_sq, np.sqrt(x_sq), centers, np.zeros(2), 0.0, state)  # every row measured
    moved_centers = centers + 1e-4 * np.random.default_rng(0).normal(size=centers.shape)  # shifts of 0.0045
    shift = np.linalg.norm(moved_centers - centers, axis=1)
    half = 0.5 * np.linalg.norm(moved_centers[0] - moved_centers[1])
    before, u, low = state[0].copy(), state[1] + shift[state[0]], state[2] - shift[1 - state[0]]
    c_norm = np.sqrt((moved_centers**2).sum(axis=1).max())
    skip = u + 2 * SLACK * (np.sqrt(x_sq) + c_norm) <= np.maximum(half, low)  # Hamerly's test
    moved = _measure(X, x_sq, np.sqrt(x_sq), moved_centers, shift, half, state)
    labels, upper, lower = state[:3]
    exact = np.sqrt(np.maximum(sq_euclidean(X, moved_centers), 0))
    np.testing.assert_array_equal(labels, exact.argmin(axis=1))  # every row on its nearest side
    np.testing.assert_array_equal(moved, np.flatnonzero(labels != before))
    rows = np.arange(n)
    assert np.all(upper >= exact[rows, labels] - 1e-12) and np.all(lower <= exact[rows, 1 - labels] + 1e-12)
    # the rows the test settles keep their moved bounds (not read); here 41 % of them
    np.testing.assert_array_equal(upper[skip], u[skip])
    np.testing.assert_array_equal(lower[skip], low[skip])
    assert skip.mean() > 0.3 and not np.array_equal(upper, u)  # and the others were measured


def test_a_half_left_empty_hands_the_split_to_lloyds_relocation():
    from lowdim.cluster._sparse_two_means import EmptyHalf, sparse_two_means
    from lowdim.linalg import row_norms_sq

    X = _term_rows()
    far = np.vstack([X[:1].toarray(), np.full(X.shape[1], 10.0)])  # the second centre takes no row
    with pytest.raises(EmptyHalf):
        sparse_two_means(X, np.ones(X.shape[0]), far, row_norms_sq(X), max_iter=10, tol=0.0)


def test_large_sparse_splits_with_bounds_fit_what_lloyds_splits_fit(monkeypatch):
    from lowdim.cluster import _bisecting

    X = _term_rows(n=4000)
    assert X.nnz >= _bisecting.SPARSE_BOUNDS  # every split of the root's size is bounded
    bounded = BisectingKMeans(6, random_state=0).fit(X)
    monkeypatch.setattr(_bisecting, "SPARSE_BOUNDS", np.inf)
    lloyd = BisectingKMeans(6, random_state=0).fit(X)
    np.testing.assert_array_equal(bounded.labels_, lloyd.labels_)
    np.testing.assert_allclose(bounded.cluster_centers_, lloyd.cluster_centers_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(bounded.inertia_, lloyd.inertia_, rtol=1e-12)
