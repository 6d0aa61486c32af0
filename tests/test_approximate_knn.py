"""Approximate kNN backend: recall on real data, the shared interface, 'auto'."""

import numpy as np
import pytest

from lowdim.datasets import load_fashion_mnist
from lowdim.manifold import Isomap
from lowdim.neighbors import (
    APPROXIMATE_FROM,
    ExactIndex,
    HNSWIndex,
    approximate_available,
    kneighbors_graph,
    make_index,
    nearest_neighbors,
    self_neighbors,
)


def _recall(found, truth):
    return np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth)])


@pytest.fixture(scope="module")
def fashion_sample():
    X, _ = load_fashion_mnist()
    rows = np.random.default_rng(0).choice(len(X), 8000, replace=False)
    return X[rows].astype(np.float32)


def test_backend_is_installed_in_ci():
    assert approximate_available()


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_recall_on_fashion_mnist_sample(fashion_sample, metric):
    X = fashion_sample
    _, exact = ExactIndex(metric).build(X).query(X, 15, exclude_self=True)
    dist, approx = HNSWIndex(metric).build(X).query(X, 15, exclude_self=True)
    assert _recall(approx, exact) >= 0.95
    # no row lists itself, and distances increase along each row
    assert not (approx == np.arange(len(X))[:, None]).any()
    assert np.all(np.diff(dist, axis=1) >= 0)


def test_exact_distances_for_the_neighbors_found(fashion_sample):
    X = fashion_sample[:2000].astype(np.float64)
    dist, idx = HNSWIndex().build(X).query(X[:100], 5)
    np.testing.assert_allclose(dist, np.linalg.norm(X[:100, None, :] - X[idx], axis=2), rtol=1e-12)
    assert np.all(idx[:, 0] == np.arange(100))  # each point finds itself first at distance 0
    assert np.all(dist[:, 0] == 0)


def test_same_result_on_a_second_build(fashion_sample):
    X = fashion_sample[:3000]
    a = HNSWIndex().build(X).query(X, 10, exclude_self=True)[1]
    b = HNSWIndex().build(X).query(X, 10, exclude_self=True)[1]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("exclude_self", [True, False])
def test_equal_distances_chosen_as_the_exact_index_chooses(exclude_self):
    # a 12 x 12 integer grid: most distances tie exactly (the shift by the mean, 5.5, is
    # exact too), so which of the tied points make the list is decided by the tie rule
    # alone; it must not depend on the order in which the graph visited them
    g = np.arange(12.0)
    X = np.array([(a, b) for a in g for b in g])
    Q = X if exclude_self else X + 0.25
    for k in (4, 6, 9):
        want = ExactIndex().build(X).query(Q, k, exclude_self=exclude_self)
        got = HNSWIndex().build(X).query(Q, k, exclude_self=exclude_self)
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[0], want[0])


def test_auto_picks_by_size():
    assert isinstance(make_index("auto", "euclidean", APPROXIMATE_FROM - 1), ExactIndex)
    assert isinstance(make_index("auto", "euclidean", APPROXIMATE_FROM), HNSWIndex)
    assert isinstance(make_index("auto", "precomputed", 10**6), ExactIndex)
    with pytest.raises(
        ValueError, match="algorithm must be 'auto', 'exact', 'approximate' or a KNNIndex instance; got 'kd_tree'"
    ):
        make_index("kd_tree", "euclidean", 10)
    with pytest.raises(ValueError, match="supports metric 'euclidean', 'sqeuclidean' or 'cosine'; got 'precomputed'"):
        HNSWIndex("precomputed")


@pytest.mark.filterwarnings("ignore:Isomap. 2 feature")
def test_graph_and_estimator_accept_the_approximate_backend(fashion_sample):
    X = fashion_sample[:1500]
    G_exact = kneighbors_graph(X, 10, algorithm="exact")
    G_approx = kneighbors_graph(X, 10, algorithm="approximate")
    assert G_approx.shape == G_exact.shape and G_approx.nnz == G_exact.nnz
    overlap = G_exact.multiply(G_approx > 0).nnz / G_exact.nnz
    assert overlap >= 0.95
    _, idx = nearest_neighbors(X, 10, algorithm="approximate")
    assert idx.shape == (1500, 10)
    a = Isomap(n_neighbors=10, neighbors_algorithm="approximate").fit_transform(X)
    b = Isomap(n_neighbors=10, neighbors_algorithm="exact").fit_transform(X)
    corr = [abs(np.corrcoef(a[:, j], b[:, j])[0, 1]) for j in range(2)]
    assert min(corr) > 0.95


@pytest.mark.parametrize("n_projected", [100, None])
def test_new_points_found_with_and_without_the_projection(fashion_sample, n_projected):
    X, Q = fashion_sample[:7000], fashion_sample[7000:]
    _, exact = ExactIndex().build(X).query(Q, 15)
    dist, approx = HNSWIndex(n_projected=n_projected).build(X).query(Q, 15)
    assert _recall(approx, exact) >= 0.95
    np.testing.assert_allclose(dist, np.linalg.norm(Q[:, None, :].astype(np.float64) - X[approx], axis=2), rtol=1e-6)


def test_flat_spectrum_is_searched_in_all_features():
    # 300 isotropic features: 100 principal axes keep a third of the variance, so a
    # projection would propose poor candidates; the index must search all features
    X = np.random.default_rng(0).normal(size=(3000, 300)).astype(np.float32)
    a = HNSWIndex().build(X).query(X, 10, exclude_self=True)
    b = HNSWIndex(n_projected=None).build(X).query(X, 10, exclude_self=True)
    np.testing.assert_array_equal(a[1], b[1])
    low_rank = X[:, :20] @ np.random.default_rng(1).normal(size=(20, 300)).astype(np.float32)
    _, exact = ExactIndex().build(low_rank).query(low_rank, 10, exclude_self=True)
    _, approx = HNSWIndex().build(low_rank).query(low_rank, 10, exclude_self=True)
    assert _recall(approx, exact) >= 0.95


def test_candidates_ranked_by_their_true_distance():
    from lowdim._kernels.neighbors import nearest_candidates

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 40)).astype(np.float32)
    candidates = np.stack([rng.choice(300, 12, replace=False) for _ in range(300)])
    candidates[:, -1] = -1  # an empty slot is skipped
    idx, dist = np.empty((300, 5), np.int64), np.empty((300, 5), np.float32)
    nearest_candidates(X, X, candidates, True, idx, dist)
    for r in range(300):
        pool = [j for j in candidates[r] if j >= 0 and j != r]
        d = ((X[pool] - X[r]) ** 2).sum(axis=1)
        np.testing.assert_array_equal(idx[r], np.array(pool)[np.argsort(d, kind="stable")[:5]])
        np.testing.assert_allclose(dist[r], np.sort(d)[:5], rtol=1e-5)


def _sorted_lists(X, idx):
    dist = ((X[idx] - X[:, None, :]) ** 2).sum(axis=2)
    order = np.argsort(dist, axis=1)
    return np.take_along_axis(idx, order, 1), np.take_along_axis(dist, order, 1).astype(np.float32)


def _round(X, idx, dist):
    from lowdim._kernels.neighbors import through_neighbors

    new_idx, new_dist = np.empty_like(idx), np.empty_like(dist)
    through_neighbors(X, idx, dist, 16, new_idx, new_dist)
    assert np.all(new_dist <= dist * (1 + 1e-6))  # the r-th nearest found only gets nearer
    assert np.all(np.diff(new_dist, axis=1) >= 0) and not (new_idx == np.arange(len(X))[:, None]).any()
    assert all(len(set(row)) == idx.shape[1] for row in new_idx)
    return new_idx, new_dist


def test_neighbors_round_recovers_missed_neighbors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 5)).astype(np.float32)
    _, wider = ExactIndex().build(X).query(X, 50, exclude_self=True)
    exact = wider[:, :8]
    # what a projection leaves: most true neighbours, a few farther points
    idx = np.hstack([exact[:, :5], wider[:, 40:43]])
    idx, dist = _sorted_lists(X, idx)
    before = _recall(idx, exact)
    idx, dist = _round(X, idx, dist)
    assert before < 0.65 and _recall(idx, exact) >= 0.85  # most of the missed 3 in 8 recovered in one round
    # from random lists, every round finds more (only with reverse neighbours would it reach all)
    idx, dist = _sorted_lists(
        X, np.stack([rng.choice(np.delete(np.arange(2000), r), 8, replace=False) for r in range(2000)])
    )
    recalls = [_recall(idx, exact)]
    for _ in range(4):
        idx, dist = _round(X, idx, dist)
        recalls.append(_recall(idx, exact))
    assert np.all(np.diff(recalls) > 0) and recalls[0] < 0.01 and recalls[-1] > 0.5


def test_searches_cut_off_from_far_clusters_are_redone_exactly():
    """A cluster far from all others can be unreachable from the HNSW graph's entry
    point: its rows' searches return rows of other clusters (1,000 clusters of 20 in
    20-D: 83 rows did). Such rows get their exact neighbours."""
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(1000), 20)
    X = (rng.uniform(-100, 100, (1000, 20))[labels] + rng.normal(size=(labels.size, 20))).astype(np.float32)
    _, idx = self_neighbors(HNSWIndex().build(X), X, 15)
    assert not (labels[idx] != labels[:, None]).any()  # every neighbour in the row's own cluster


def test_searches_that_strayed_in_part_are_redone_exactly():
    """A row whose list ends in a few points that are not its nearest, far beyond its
    nearest neighbour but not so far as to make it a suspect (not beyond 1.5 times its
    neighbours' own reach), gets its exact neighbours; sound lists stay as they are."""
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(20), 300)
    X = (rng.uniform(-30, 30, (20, 10))[labels] + rng.normal(size=(labels.size, 10))).astype(np.float32)
    index = HNSWIndex().build(X)
    k = 12
    exact_dist, exact_idx = ExactIndex().build(X).query(X, k, exclude_self=True)
    dist, idx = exact_dist.copy(), exact_idx.copy()
    reach = np.median(exact_dist[exact_idx, -1], axis=1)  # the neighbours' own k-th distances
    changed = []
    for r in rng.choice(labels.size, 200, replace=False):
        d = np.linalg.norm(X - X[r], axis=1)
        fits = np.flatnonzero((d > 1.45 * exact_dist[r, 0]) & (d < 1.45 * reach[r]) & (d > exact_dist[r, -1]))
        if fits.size >= 2:
            wrong = fits[np.argsort(d[fits])[:2]]  # two points beyond the true list
            idx[r, -2:], dist[r, -2:] = wrong, d[wrong]
            changed.append(r)
    assert len(changed) >= 20
    dist, idx = index.repair_self_query(dist, idx)
    np.testing.assert_array_equal(idx, exact_idx)
    np.testing.assert_allclose(dist, exact_dist, rtol=1e-5)
