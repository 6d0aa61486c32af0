"""Neighbour layer and embedding-quality metrics (shared by the manifold methods and the neighbour embeddings)."""

import warnings

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components
from scipy.stats import spearmanr
from sklearn.manifold import trustworthiness as sk_trustworthiness
from sklearn.neighbors import NearestNeighbors

from lowdim.metrics import (
    continuity,
    knn_accuracy,
    knn_preservation,
    spearman_distance_correlation,
    stress,
    trustworthiness,
)
from lowdim.neighbors import (
    ExactIndex,
    ProductTiles,
    join_components,
    kneighbors_graph,
    radius_neighbors_graph,
    symmetrize,
)


@pytest.fixture(scope="module")
def cloud():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    Z = X[:, :2] + 0.3 * rng.normal(size=(400, 2))
    return X, Z


@pytest.fixture(params=["numpy", "numba"])
def exact_path(request, monkeypatch):
    """Small inputs are searched with numpy, large ones with the numba kernels: both."""
    if request.param == "numba":
        monkeypatch.setattr("lowdim.neighbors._exact.SMALL_PAIRS", 0)
    return request.param


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_index_matches_brute_force(cloud, metric, dtype, exact_path):
    X = cloud[0].astype(dtype)
    dist, idx = ExactIndex(metric, block_bytes=8 * 400 * 37).build(X).query(X, 7, exclude_self=True)
    ref_dist, ref_idx = NearestNeighbors(n_neighbors=8, metric=metric).fit(X).kneighbors(X)
    np.testing.assert_array_equal(idx, ref_idx[:, 1:])
    np.testing.assert_allclose(dist, ref_dist[:, 1:], rtol=1e-4 if dtype == np.float32 else 1e-9, atol=1e-6)
    assert np.all(np.diff(dist, axis=1) >= 0)


def test_exact_index_ties_go_to_the_lower_index_on_both_paths(exact_path):
    X = np.repeat(np.arange(6.0)[:, None], 3, axis=0)  # every point three times
    dist, idx = ExactIndex().build(X).query(X, 2, exclude_self=True)
    first = 3 * (np.arange(18) // 3)  # the copies of row r: first, first + 1, first + 2
    expected = np.where(
        np.arange(18)[:, None] == first[:, None],
        first[:, None] + [1, 2],
        np.where(np.arange(18)[:, None] == first[:, None] + 1, first[:, None] + [0, 2], first[:, None] + [0, 1]),
    )
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_array_equal(dist, 0.0)


def _brute_force(X, k):
    """kNN from float64 differences of every pair; ties to the lower index."""
    X = X.astype(np.float64)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(D, np.inf)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, idx, axis=1), idx


@pytest.mark.parametrize("shift", [0.0, 1e5])
def test_exact_index_float32_is_the_float64_answer(cloud, shift, exact_path):
    # float32 candidates, re-ranked from the rows in float64 and certified: the same
    # neighbours as float64 arithmetic even 1e5 from the origin, where the float32
    # expansion alone loses most digits
    X = (shift + cloud[0]).astype(np.float32)
    dist, idx = ExactIndex().build(X).query(X, 5, exclude_self=True)
    ref_sq, ref_idx = _brute_force(X, 5)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, np.sqrt(ref_sq), rtol=1e-12)


def test_exact_index_float32_ties_are_searched_again_in_float64(exact_path, monkeypatch):
    # an integer grid: many equal distances at the k-th place, which no float32 bound can
    # separate, so those rows take the exact path; ties still go to the lower index
    import lowdim.neighbors._exact as exact

    searched = []
    original = exact.ExactIndex._exact_rows
    monkeypatch.setattr(
        exact.ExactIndex, "_exact_rows", lambda self, Q, *a: searched.append(len(Q)) or original(self, Q, *a)
    )
    X = np.stack(np.meshgrid(np.arange(12.0), np.arange(11.0)), axis=-1).reshape(-1, 2).astype(np.float32)
    # 13th neighbour of an inner point: the distance-sqrt(5) ring of 8 (13th to 20th)
    dist, idx = ExactIndex().build(X).query(X, 13, exclude_self=True)
    ref_sq, ref_idx = _brute_force(X, 13)
    assert searched and 0 < searched[0] <= len(X)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_array_equal(dist, np.sqrt(ref_sq))


@pytest.mark.parametrize("metric, block_bytes", [("euclidean", 1 << 20), ("cosine", 1 << 22)])
def test_exact_index_wide_float32_rows_are_certified_in_float64_not_from_every_pair(
    exact_path, monkeypatch, metric, block_bytes
):
    # 60 rows of 20,000 features: float32's bound (it grows with d) is wider than the
    # gaps between neighbours in every row; the float64 expansion certifies them (in
    # blocks of points here), where every row summed differences to every point
    # (100 rows of 200,000 features: 6 s, against umap-learn's 0.45 s for the whole map);
    # blocks of 6 points (fewer than the candidates) and of 26 (each keeps its smallest)
    import lowdim.neighbors._exact as exact

    X = np.random.default_rng(0).normal(size=(60, 20_000)).astype(np.float32)
    monkeypatch.setattr(exact.ExactIndex, "_exact_rows", lambda *a: pytest.fail("searched from every pair"))
    dist, idx = ExactIndex(metric, block_bytes=block_bytes).build(X).query(X, 5, exclude_self=True)
    from lowdim.linalg import cosine_rows

    rows = (cosine_rows(X) if metric == "cosine" else X).astype(np.float64)  # the rows as indexed
    D = np.array([((rows - row) ** 2).sum(axis=1) for row in rows])
    np.fill_diagonal(D, np.inf)
    ref_idx = np.argsort(D, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(idx, ref_idx)
    ref = np.take_along_axis(D, ref_idx, axis=1)
    np.testing.assert_allclose(dist, np.sqrt(ref) if metric == "euclidean" else ref / 2, rtol=1e-12)
    # the float64 copy of the rows: the same neighbours
    np.testing.assert_array_equal(ExactIndex(metric).build(rows).query(rows, 5, exclude_self=True)[1], idx)


def test_exact_index_wide_self_query_reads_its_own_shifted_rows_right(exact_path, monkeypatch):
    # a self query of indexed rows 10..39 of 40 (50,000 features: float32 would certify
    # none, and is not tried) copies a few columns at a time to float64, never whole
    # rows, and reads the points' blocks that lie within the query from its copies: of
    # the blocks of 9 points, 0-8 and 9-17 reach outside and are copied on their own,
    # 18-26, 27-35 and 36-39 are read; the float32 expansion's shifted copy is never made
    import lowdim.neighbors._exact as exact

    X = np.random.default_rng(1).normal(size=(40, 50_000)).astype(np.float32)
    monkeypatch.setattr(exact.ExactIndex, "_exact_rows", lambda *a: pytest.fail("searched from every pair"))
    monkeypatch.setattr(exact.ExactIndex, "_candidates", lambda *a: pytest.fail("ranked in float32 first"))
    index = ExactIndex(block_bytes=1 << 15).build(X)
    copies, original = [], exact.shifted64
    monkeypatch.setattr(
        exact, "shifted64", lambda A, at, offset: copies.append((A is index._rows, at)) or original(A, at, offset)
    )
    dist, idx = index._query_indexed(10, 40, 5)
    assert all(at[1].stop - at[1].start <= exact.FEATURE_COLS for _, at in copies)
    assert {(at[0].start, at[0].stop) for points, at in copies if points} == {(0, 9), (9, 18)}
    assert index._shifted is None  # nor was a float32 shifted copy of every row made
    D = np.array([((X.astype(np.float64) - row) ** 2).sum(axis=1) for row in X[10:40].astype(np.float64)])
    D[np.arange(30), np.arange(10, 40)] = np.inf
    ref_idx = np.argsort(D, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, np.sqrt(np.take_along_axis(D, ref_idx, axis=1)), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pair_distances_in_runs_of_four_have_the_bits_of_one_pair_at_a_time(dtype):
    # pairs of one query row are summed four at a time; each sum must stay the same
    # sequential float64 sum as strict_sq_distance's (equal distances stay equal, ties
    # go to the lower index wherever a distance is computed): runs of 4, 5 and 1, and a
    # range that starts and ends inside runs
    from lowdim._kernels.neighbors import pair_sq_distances, strict_sq_distance

    rng = np.random.default_rng(0)
    Q, data = rng.normal(size=(3, 101)).astype(dtype), rng.normal(size=(9, 101)).astype(dtype)
    offset = rng.normal(size=101).astype(dtype)
    rows = np.repeat(np.arange(3), [4, 5, 1])
    cols = rng.integers(0, 9, rows.size)
    out = np.full(rows.size, np.nan)
    pair_sq_distances(Q, data, offset, rows, cols, out, 0, 3)
    pair_sq_distances(Q, data, offset, rows, cols, out, 3, rows.size)
    one_at_a_time = [strict_sq_distance(Q[r], offset, data[c]) for r, c in zip(rows, cols)]
    np.testing.assert_array_equal(out, one_at_a_time)


def test_exact_index_query_blocks_on_worker_threads(cloud, monkeypatch):
    # many query blocks and column tiles (run on the worker pool) give the one-tile answer
    monkeypatch.setattr("lowdim.neighbors._exact.SMALL_PAIRS", 0)
    for dtype in (np.float64, np.float32):
        X = cloud[0].astype(dtype)
        whole = ExactIndex().build(X).query(X, 7, exclude_self=True)
        monkeypatch.setattr("lowdim.neighbors._exact.QUERY_ROWS", 37)
        monkeypatch.setattr("lowdim.neighbors._exact.DATA_COLS", 50)
        tiled = ExactIndex().build(X).query(X, 7, exclude_self=True)
        monkeypatch.undo()
        monkeypatch.setattr("lowdim.neighbors._exact.SMALL_PAIRS", 0)
        np.testing.assert_array_equal(tiled[1], whole[1])
        np.testing.assert_array_equal(tiled[0], whole[0])


def test_precomputed_and_errors(cloud):
    X = cloud[0][:50]
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    a = ExactIndex("precomputed").build(D).query(D, 4, exclude_self=True)[1]
    b = ExactIndex().build(X).query(X, 4, exclude_self=True)[1]
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"n_neighbors=50 must be between 1 and 49"):
        ExactIndex().build(X).query(X, 50, exclude_self=True)


def test_graphs_symmetrise_and_join():
    X = np.r_[np.random.default_rng(1).normal(size=(30, 2)), 100 + np.random.default_rng(2).normal(size=(30, 2))]
    G = kneighbors_graph(X, 4)
    assert G.shape == (60, 60) and G.nnz == 240 and np.all(G.sum(axis=1) > 0)
    S = symmetrize(G)
    assert (S != S.T).nnz == 0
    assert connected_components(S)[0] == 2
    with pytest.warns(UserWarning, match="2 connected components"):
        J = join_components(S, X)
    assert connected_components(J)[0] == 1
    bridge = J - S
    assert bridge.nnz == 2 and bridge.data.min() > 90  # the shortest edge between the blobs
    R = radius_neighbors_graph(X, 1.0)
    ref = NearestNeighbors(radius=1.0).fit(X).radius_neighbors_graph(X, mode="distance")
    ref.setdiag(0)
    ref.eliminate_zeros()
    assert R.nnz == ref.nnz and abs(R - ref).max() < 1e-9


@pytest.mark.parametrize("d", [3, 20])
def test_radius_graphs_by_the_tree_and_by_blocks_are_scikit_learns(d):
    # up to 16 Euclidean columns a k-d tree lists the pairs (blocked distances took 27x
    # scikit-learn's time in 3-D); above, blocked distances; both keep the bound strict
    rng = np.random.default_rng(d)
    X, queries = rng.normal(size=(1500, d)), rng.normal(size=(40, d))
    radius = 0.4 if d == 3 else 4.0
    nn = NearestNeighbors(radius=radius).fit(X)
    ref = nn.radius_neighbors_graph(X, mode="distance")
    ref.setdiag(0)
    ref.eliminate_zeros()
    R = radius_neighbors_graph(X, radius)
    assert R.nnz == ref.nnz > 1500 and abs(R - ref).max() < 1e-9
    Q = radius_neighbors_graph(X, radius, Y=queries, mode="connectivity")
    assert (Q != nn.radius_neighbors_graph(queries, mode="connectivity")).nnz == 0
    grid = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])  # a pair at exactly the radius is not within it
    assert radius_neighbors_graph(grid, 1.0).nnz == 0 and radius_neighbors_graph(grid, 1.5).nnz == 2


def _far_pairs():
    """Two clouds of 20 columns 1e5 apart, and pairs of the far one with their distances
    summed as the graph sums them: the products' rounding (relative to the squared
    norms, 1e10 times the radius's) is far above a unit in the last place of the radius."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(300, 20)), 1e5 + rng.normal(size=(300, 20))])
    pairs = [rng.choice(np.arange(300, 600), 2, replace=False) for _ in range(30)]
    return X, [(i, j, np.sqrt(np.square(X[i] - X[j]).sum())) for i, j in pairs]


def test_product_tiles_as_a_superset_miss_no_pair_at_the_radius():
    X, pairs = _far_pairs()
    k = 21 * np.finfo(np.float64).eps / 2  # gamma_{d+1}, d = 20
    for i, j, r in pairs:
        A = ProductTiles(X, r, superset=True).pairs()
        assert A[i, j] and A[j, i]  # exactly at the radius: within
        # the others found are within the widened bound: 10 gamma (M^2 + r^2) on r^2
        rows, cols = A.nonzero()
        d2 = np.square(X[rows] - X[cols]).sum(axis=1)
        moved = X - X[np.argmin(np.square(X - X.mean(axis=0)).sum(axis=1))]
        assert d2.max() <= r * r + 11 * k * (np.square(moved).sum(axis=1).max() + r * r)


def test_the_radius_graph_above_16_columns_keeps_every_pair_within_the_radius():
    X, pairs = _far_pairs()
    for i, j, r in pairs:
        inside = radius_neighbors_graph(X, np.nextafter(r, np.inf))
        assert inside[i, j] == inside[j, i] == r
        assert radius_neighbors_graph(X, r)[i, j] == 0  # strictly within


@pytest.fixture(params=["numpy", "kernel"])
def rank_path(request, monkeypatch):
    """Small tables are ranked by numpy, larger ones by the kernel: both, on the same data."""
    if request.param == "kernel":
        monkeypatch.setattr("lowdim.metrics._embedding.SMALL_RANKS", 0)
    return request.param


@pytest.mark.parametrize("k", [3, 10])
def test_trustworthiness_and_continuity_match_sklearn(cloud, k, rank_path):
    X, Z = cloud
    assert trustworthiness(X, Z, n_neighbors=k) == pytest.approx(sk_trustworthiness(X, Z, n_neighbors=k), abs=1e-12)
    assert continuity(X, Z, n_neighbors=k) == pytest.approx(sk_trustworthiness(Z, X, n_neighbors=k), abs=1e-12)
    assert trustworthiness(X, X, n_neighbors=k) == 1.0


@pytest.mark.parametrize("rows_per_block", [None, 7])
def test_trustworthiness_ranks_ties_as_a_stable_sort(rows_per_block, monkeypatch, rank_path):
    # integer points with duplicates: many equal distances on both sides; ranks count
    # equal distances by index (a stable sort), in one block or in many
    if rows_per_block:
        monkeypatch.setattr("lowdim.metrics._embedding.BLOCK_BYTES", 8 * 120 * rows_per_block)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(120, 3)).astype(float)
    Z = X[:, :2] + rng.integers(0, 2, size=(120, 2))
    n, k = len(X), 6

    def stable_order(P):
        D = ((P[:, None] - P[None]) ** 2).sum(-1)
        np.fill_diagonal(D, np.inf)
        return np.argsort(D, axis=1, kind="stable")

    rank = np.empty((n, n), dtype=np.int64)
    np.put_along_axis(rank, stable_order(X), np.arange(1, n + 1)[None, :], axis=1)
    penalty = np.maximum(np.take_along_axis(rank, stable_order(Z)[:, :k], axis=1) - k, 0).sum()
    expected = 1.0 - penalty * 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0))
    assert penalty > 0
    assert trustworthiness(X, Z, n_neighbors=k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_tables_are_ranked_by_numpy_as_by_the_kernel(dtype):
    # the expansion's values within its error bound of a target are decided on exact
    # sums by both; near-copies and exact copies put many entries there
    from lowdim._kernels.neighbors import rank_excess
    from lowdim.metrics._ranks_small import rank_excess_small
    from lowdim.neighbors import ExactIndex

    rng = np.random.default_rng(5)
    A = rng.normal(size=(200, 9)).astype(dtype) * 1000
    A[100:150] = A[:50] + rng.normal(size=(50, 9)).astype(dtype) * 1e-4
    A[150:170] = A[:20]
    rows = np.arange(0, 200, 3)
    targets = rng.integers(0, 200, size=(rows.size, 6))
    D, bound, queries, data = ExactIndex().build(A)._expanded_block(rows)
    assert bound.max() > 0
    for q, d in ((queries, data), (np.empty((0, 1)), data[:0])):  # recomputed where blurred; D taken as exact
        expected = np.zeros(rows.size)
        scratch = (np.zeros(data.shape[1]), np.empty(6), np.empty(6, dtype=np.int64), np.empty(13, dtype=np.int64))
        rank_excess(D, bound, q, d, targets, rows, 4, *scratch, expected)
        np.testing.assert_array_equal(rank_excess_small(D, bound, q, d, targets, rows, 4), expected)


def test_sampled_trustworthiness_estimates_the_exact_value(cloud):
    X, Z = cloud
    exact = trustworthiness(X, Z)
    sampled = [trustworthiness(X, Z, max_queries=100, random_state=s) for s in range(8)]
    assert abs(np.mean(sampled) - exact) < 0.01


def test_knn_preservation_accuracy_stress_spearman(cloud):
    X, Z = cloud
    assert knn_preservation(X, X) == 1.0
    assert 0.0 < knn_preservation(X, Z) < 1.0
    _, idx = NearestNeighbors(n_neighbors=11).fit(X).kneighbors(X)
    _, jdx = NearestNeighbors(n_neighbors=11).fit(Z).kneighbors(Z)
    ref = np.mean([np.intersect1d(a[1:], b[1:]).size / 10 for a, b in zip(idx, jdx)])
    assert knn_preservation(X, Z) == pytest.approx(ref)
    y = (X[:, 0] > 0).astype(int)
    assert knn_accuracy(Z, y, random_state=0) > 0.8
    assert knn_accuracy(np.random.default_rng(5).normal(size=(400, 2)), y, random_state=0) < 0.7
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(400, 1)]
    e = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))[np.triu_indices(400, 1)]
    assert stress(X, Z, normalized=False) == pytest.approx(np.sum((d - e) ** 2))
    assert stress(X, Z) == pytest.approx(np.sqrt(np.sum((d - e) ** 2) / np.sum(d**2)))
    assert spearman_distance_correlation(X, Z) == pytest.approx(spearmanr(d, e)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sampled = spearman_distance_correlation(X, Z, n_pairs=20000, random_state=0)
    assert abs(sampled - spearmanr(d, e)[0]) < 0.02


def test_distance_scores_of_rows_at_one_point_name_the_problem():
    # scipy's ConstantInputWarning pointed into lowdim and the score came back NaN
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match="every pair of rows of X_embedded is at the same distance"):
        spearman_distance_correlation(X, np.zeros((50, 2)))
    with pytest.raises(ValueError, match="every row of X is at one point, so the normalised stress"):
        stress(np.ones((50, 3)), X[:, :2])
    assert stress(np.ones((50, 3)), X[:, :2], normalized=False) > 0


def test_shortest_paths_equal_scipy_dijkstra_with_unreachable_nodes():
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    from lowdim.neighbors import shortest_paths

    rng = np.random.default_rng(3)
    G = sp.random(300, 300, density=0.01, random_state=4, format="csr")  # directed, some nodes unreachable
    G.data = rng.uniform(0.1, 2.0, G.nnz)
    sources = rng.choice(300, 40, replace=False)
    np.testing.assert_allclose(shortest_paths(G, sources), dijkstra(G, directed=True, indices=sources))
    assert np.isinf(shortest_paths(G, sources)).any()
    with pytest.raises(ValueError, match="non-negative edge weights"):
        shortest_paths(sp.csr_matrix(np.array([[0, -1.0], [0, 0]])), [0])


@pytest.mark.parametrize("directed", [False, True])
def test_all_pairs_shortest_paths_equal_scipy(directed):
    # every node a source: half the rows are assembled from the others' (deferred nodes)
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    from lowdim.neighbors import kneighbors_graph, shortest_paths

    X = np.random.default_rng(5).normal(size=(400, 3))
    G = kneighbors_graph(X, 6, mode="distance")
    G = G if directed else G.maximum(G.T)
    G = sp.csr_matrix(G)
    order = np.random.default_rng(6).permutation(400)
    for sources in (np.arange(400), order):
        np.testing.assert_allclose(shortest_paths(G, sources), dijkstra(G, directed=True, indices=sources), rtol=1e-12)


@pytest.mark.parametrize(
    "metric, params, scipy_name",
    [
        ("manhattan", None, "cityblock"),
        ("chebyshev", None, "chebyshev"),
        ("minkowski", {"p": 3}, "minkowski"),
        ("correlation", None, "correlation"),
        ("hamming", None, "hamming"),
        ("jaccard", None, "jaccard"),
    ],
)
def test_pairwise_index_matches_brute_force(metric, params, scipy_name):
    from scipy.spatial.distance import cdist

    from lowdim.neighbors import make_index

    rng = np.random.default_rng(0)
    X = (
        rng.integers(0, 3, size=(300, 6)).astype(float)
        if metric in ("hamming", "jaccard")
        else rng.normal(size=(300, 6))
    )
    index = make_index("auto", metric, len(X), params).build(X)
    dist, idx = index.query(X, 7, exclude_self=True)
    D = cdist(X, X, scipy_name, **(params or {}))
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :7], rtol=1e-12)
    np.testing.assert_allclose(np.take_along_axis(D, idx, axis=1), dist, rtol=1e-12)


def test_metric_parameters_and_approximate_requests_are_checked():
    from lowdim.neighbors import make_index

    with pytest.raises(ValueError, match="needs p >= 1"):
        make_index("exact", "minkowski", 10, {"p": 0.5})
    with pytest.raises(ValueError, match="takes no parameters"):
        make_index("exact", "manhattan", 10, {"p": 3})
    with pytest.raises(ValueError, match="needs a numba-compiled metric function"):
        make_index("approximate", lambda a, b: 0.0, 10)  # nearest-neighbour descent needs a compiled metric


def test_weighted_metrics_need_their_weights_and_match_scipy():
    """'mahalanobis' (V or VI) and 'seuclidean' (V) are refused without their weights
    (estimated block by block they would change from block to block), and with them
    give SciPy's distances; the neighbour methods take them by name."""
    from scipy.spatial.distance import cdist

    from lowdim import TSNE
    from lowdim.neighbors import PairwiseIndex

    X = np.random.default_rng(0).normal(size=(60, 3)) * [1.0, 2.0, 3.0]
    V = np.cov(X.T)
    for metric, params in (("mahalanobis", {"V": V}), ("mahalanobis", {"VI": np.linalg.inv(V)})):
        D = PairwiseIndex(metric, params).build(X).pairwise(X)
        np.testing.assert_allclose(D, cdist(X, X, "mahalanobis", VI=np.linalg.inv(V)), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="Must provide either V or VI for Mahalanobis distance"):
        PairwiseIndex("mahalanobis")
    with pytest.raises(ValueError, match="metric='seuclidean' needs V"):
        PairwiseIndex("seuclidean")
    by_name = TSNE(metric="seuclidean", metric_params={"V": X.var(axis=0)}, init="random", random_state=0).fit(X)
    given = TSNE(metric="precomputed", init="random", random_state=0).fit(cdist(X, X, "seuclidean", V=X.var(axis=0)))
    np.testing.assert_allclose(by_name.affinities_.toarray(), given.affinities_.toarray(), rtol=1e-8, atol=1e-12)


def test_density_clusterings_take_the_weighted_metrics_in_scikit_learns_form():
    """DBSCAN with metric_params={'V': covariance} for 'mahalanobis' (scikit-learn's
    form) gives scikit-learn's labels for the same metric given as VI."""
    from sklearn.cluster import DBSCAN as SkDBSCAN

    from lowdim import DBSCAN

    X = np.random.default_rng(0).normal(size=(100, 3))
    V = np.cov(X.T)
    ours = DBSCAN(eps=1.0, metric="mahalanobis", metric_params={"V": V}).fit(X).labels_
    ref = SkDBSCAN(eps=1.0, metric="mahalanobis", metric_params={"VI": np.linalg.inv(V)}).fit(X).labels_
    np.testing.assert_array_equal(ours, ref)


def test_hellinger_is_umap_learns_for_histograms():
    """umap-learn's Hellinger distance (rows as histograms): the formula pair by pair,
    0 between empty rows, 1 between an empty row and another; negative rows refused;
    UMAP takes it by name."""
    from lowdim import UMAP
    from lowdim.linalg import hellinger_distances
    from lowdim.neighbors import PairwiseIndex

    X = np.abs(np.random.default_rng(0).normal(size=(80, 5)))
    X[0] = X[1] = 0.0
    expected = np.empty((80, 80))
    for i in range(80):
        for j in range(80):
            sx, sy = X[i].sum(), X[j].sum()
            if sx == 0 or sy == 0:
                expected[i, j] = float((sx == 0) != (sy == 0))
            else:
                expected[i, j] = np.sqrt(max(1 - np.sqrt(X[i] * X[j]).sum() / np.sqrt(sx * sy), 0.0))
    D = PairwiseIndex("hellinger").build(X).pairwise(X)
    np.testing.assert_allclose(D, expected, atol=1e-7)  # sqrt near 0 amplifies rounding of 1 - overlap
    with pytest.raises(ValueError, match="metric='hellinger' compares non-negative rows"):
        hellinger_distances(X - 1.0, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert UMAP(metric="hellinger", n_epochs=10, random_state=0).fit_transform(X).shape == (80, 2)


def test_a_row_of_zeros_is_at_cosine_distance_one_everywhere():
    """A zero row has no direction: at distance 1 from every other row, 0 from another
    zero row (umap-learn's definition), in the dense distances, in every index and in a
    method built on them; other pairs as scikit-learn computes them."""
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import cosine_distances

    import lowdim
    from lowdim.linalg import pairwise_distances
    from lowdim.neighbors import SparseIndex, nearest_neighbors

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    X[[0, 1, 2]] = 0.0
    D = pairwise_distances(X, metric="cosine")
    other = np.arange(3, 300)
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(D[np.ix_(other, other)], cosine_distances(X[other]), atol=64 * eps)
    np.testing.assert_allclose(D[:3, other], 1.0, atol=64 * eps)  # unit rows' norms carry rounding
    assert np.all(D[:3, :3] == 0.0)
    np.testing.assert_allclose(SparseIndex("cosine").build(sp.csr_matrix(X)).pairwise(X), D, atol=64 * eps)
    np.fill_diagonal(D, np.inf)
    expected = np.sort(D, axis=1)[:, :4]
    for algorithm in ("exact", "approximate"):
        for dtype in (np.float64, np.float32):
            found, _ = nearest_neighbors(X.astype(dtype), 4, metric="cosine", algorithm=algorithm)
            np.testing.assert_allclose(found, expected, atol=64 * np.finfo(dtype).eps)
    medoids = lowdim.KMedoids(3, metric="cosine", random_state=0).fit(X)  # inertia was inf, one cluster
    assert np.isfinite(medoids.inertia_) and len(set(medoids.labels_)) == 3
    assert len(set(medoids.labels_[:3])) == 1


def test_a_constant_row_is_at_correlation_distance_one_everywhere():
    from scipy.spatial.distance import cdist

    from lowdim.linalg import pairwise_distances
    from lowdim.neighbors import nearest_neighbors

    X = np.random.default_rng(1).normal(size=(120, 6))
    X[[0, 1, 2]] = 2.0  # no variation: no correlation with anything (it was NaN and infinity)
    D = pairwise_distances(X, metric="correlation")
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(D[3:, 3:], cdist(X[3:], X[3:], "correlation"), atol=64 * eps)
    np.testing.assert_allclose(D[:3, 3:], 1.0, atol=64 * eps)
    assert np.all(D[:3, :3] == 0.0)
    np.fill_diagonal(D, np.inf)
    found, _ = nearest_neighbors(X, 3, metric="correlation", algorithm="exact")
    np.testing.assert_allclose(found, np.sort(D, axis=1)[:, :3], atol=64 * eps)


@pytest.mark.parametrize("metric", ["braycurtis", "dice"])
def test_two_rows_of_zeros_are_one_point_for_the_ratio_metrics(metric):
    """scipy's ratio is 0/0 (NaN) between two rows of zeros: they are the same point, at
    distance 0, and each is the other's nearest (it was missed)."""
    from scipy.spatial.distance import cdist

    from lowdim.linalg import pairwise_distances
    from lowdim.neighbors import nearest_neighbors

    rng = np.random.default_rng(2)
    X = (rng.random((80, 6)) < 0.4).astype(float)  # dice reads booleans
    X[2:] = np.maximum(X[2:], np.eye(6)[np.arange(78) % 6])  # the other rows are not zero
    if metric == "braycurtis":
        X *= rng.random(X.shape)
    X[[0, 1]] = 0.0
    D = pairwise_distances(X, metric=metric)
    assert D[0, 1] == D[1, 0] == 0.0 and not np.isnan(D).any() and np.all(np.diag(D) == 0)
    np.testing.assert_array_equal(D[2:, 2:], cdist(X[2:], X[2:], metric))
    _, idx = nearest_neighbors(X, 1, metric=metric, algorithm="exact")
    assert idx[:2, 0].tolist() == [1, 0]


def test_knn_accuracy_names_more_voters_than_points_left():
    Z = np.random.default_rng(0).normal(size=(50, 2))
    y = np.arange(50) % 2
    with pytest.raises(ValueError, match=r"n_neighbors=60 must be between 1 and 40, the points left to vote"):
        knn_accuracy(Z, y, n_neighbors=60)  # was a vote of all 40, without a word
    with pytest.raises(ValueError, match="n_neighbors=0 must be between 1 and 40"):
        knn_accuracy(Z, y, n_neighbors=0)
    with pytest.raises(ValueError, match="test_size must lie strictly between 0 and 1"):
        knn_accuracy(Z, y, test_size=1.0)
    assert 0.0 <= knn_accuracy(Z, y, n_neighbors=40, random_state=0) <= 1.0
