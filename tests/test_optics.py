"""OPTICS: scikit-learn's ordering, reachability and labels on every distance path, and
the xi extraction's properties on plots built by hand."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn import cluster as reference
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import kneighbors_graph

from lowdim import OPTICS
from lowdim.cluster import cluster_optics_dbscan, cluster_optics_xi


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(500, centers=5, n_features=3, cluster_std=[0.4, 0.8, 1.2, 1.6, 2.0], random_state=0)
    noise = np.random.default_rng(0).uniform(-12, 12, (40, 3))
    return np.vstack([X, noise])


def _same(ours, theirs):
    """What differs between two fitted OPTICS: the ordering and predecessors exactly,
    reachability and core distances to the last bit but for the rounding at 15
    decimals, labels exactly."""
    same = {
        "ordering": np.array_equal(ours.ordering_, theirs.ordering_),
        "predecessor": np.array_equal(ours.predecessor_, theirs.predecessor_),
        "reachability": np.allclose(ours.reachability_, theirs.reachability_, rtol=1e-14, atol=0),
        "core": np.allclose(ours.core_distances_, theirs.core_distances_, rtol=1e-14, atol=0),
        "labels": np.array_equal(ours.labels_, theirs.labels_),
    }
    return [name for name, equal in same.items() if not equal]


@pytest.mark.parametrize(
    "params",
    [
        {"min_samples": 5},
        {"min_samples": 12, "xi": 0.1, "min_cluster_size": 0.05},
        {"min_samples": 0.02, "predecessor_correction": False},
        {"min_samples": 5, "max_eps": 1.5},  # unreachable points: reachability inf
        {"min_samples": 8, "cluster_method": "dbscan", "eps": 0.9, "max_eps": 3.0},
        {"min_samples": 5, "metric": "manhattan"},
        {"min_samples": 5, "metric": "chebyshev"},
    ],
)
def test_ordering_and_labels_equal_scikit_learns(blobs, params):
    ours = OPTICS(**params).fit(blobs)
    assert _same(ours, reference.OPTICS(**params).fit(blobs)) == []
    if params.get("cluster_method", "xi") == "xi":
        assert np.unique(ours.labels_[ours.labels_ >= 0]).size >= 3  # the blobs are found, not all noise
        assert ours.cluster_hierarchy_.tolist() == reference.OPTICS(**params).fit(blobs).cluster_hierarchy_.tolist()


def test_other_powers_agree_to_rounding(blobs):
    # |d|^p summed: numba's pow and the C library's may differ in the last bit, which can
    # break a tie of the plot differently; the clusters stay
    ours, theirs = OPTICS(min_samples=5, p=3).fit(blobs), reference.OPTICS(min_samples=5, p=3).fit(blobs)
    assert np.allclose(ours.reachability_, theirs.reachability_, rtol=1e-12, atol=0)
    assert np.array_equal(ours.labels_, theirs.labels_)


def test_ties_go_to_the_lowest_row_as_scikit_learns():
    # integer grids: many equal distances, so the tie rule decides the ordering
    grid = np.random.default_rng(1).integers(0, 8, (300, 2)).astype(float)
    for params in ({"min_samples": 4}, {"min_samples": 6, "max_eps": 2.0}):
        assert _same(OPTICS(**params).fit(grid), reference.OPTICS(**params).fit(grid)) == []


def test_a_finite_max_eps_orders_from_the_pairs_within_it_exactly_as_from_all_pairs(monkeypatch):
    from lowdim.cluster import _optics

    # an integer grid: many distances equal max_eps exactly and many ties in the ordering
    grid = np.random.default_rng(2).integers(0, 40, (3000, 2)).astype(float)
    for max_eps, m in ((1.0, 3), (2.0, 5), (np.sqrt(2.0), 4)):
        indptr, indices = _optics._within_max_eps(grid, max_eps)
        assert indices.size < grid.shape[0] ** 2 / 50  # no pass over all pairs
        listed = _optics.optics_graph(grid, m, max_eps)
        with monkeypatch.context() as patched:
            patched.setattr(_optics, "_within_max_eps", lambda rows, max_eps: None)
            every_pair = _optics.optics_graph(grid, m, max_eps)
        for ours, all_pairs in zip(listed, every_pair):
            np.testing.assert_array_equal(ours, all_pairs)


def test_above_16_columns_a_finite_max_eps_orders_from_the_pairs_within_it_as_from_all_pairs(monkeypatch):
    from lowdim.cluster import _optics

    # two clouds 1e5 apart: the products that find the pairs round at 1e10 times the
    # radius's last place, and max_eps is the exact distance of pairs of the far one
    rng = np.random.default_rng(4)
    rows = np.vstack([rng.normal(size=(400, 20)), 1e5 + rng.normal(size=(400, 20))])
    far = cdist(rows[400:], rows[400:])
    for q in (0.02, 0.1):
        max_eps = float(np.quantile(far[far > 0], q, method="lower"))
        indptr, indices = _optics._within_max_eps(rows, max_eps)
        assert indices.size < rows.shape[0] ** 2 / 4  # no pass over all pairs
        listed = _optics.optics_graph(rows, 5, max_eps)
        with monkeypatch.context() as patched:
            patched.setattr(_optics, "_within_max_eps", lambda rows, max_eps: None)
            every_pair = _optics.optics_graph(rows, 5, max_eps)
        for ours, all_pairs in zip(listed, every_pair):
            np.testing.assert_array_equal(ours, all_pairs)


def test_pairs_that_would_not_fit_in_memory_take_the_pass_over_all_pairs(monkeypatch):
    from lowdim.cluster import _optics

    rng = np.random.default_rng(5)
    for rows in (rng.normal(size=(500, 3)), rng.normal(size=(500, 20))):  # the k-d tree's and the tiles'
        listed = _optics.optics_graph(rows, 5, 1.5)
        monkeypatch.setattr(_optics, "available_bytes", lambda: 64 * _optics.PAIR_BYTES)  # room for a few pairs
        assert _optics._within_max_eps(rows, 1.5) is None  # no refusal: the dense pass, which needs no memory
        for ours, all_pairs in zip(listed, _optics.optics_graph(rows, 5, 1.5)):
            np.testing.assert_array_equal(ours, all_pairs)
        monkeypatch.undo()


def test_precomputed_distances_dense_and_sparse_graphs(blobs):
    D = cdist(blobs, blobs)
    assert _same(OPTICS(min_samples=5, metric="precomputed").fit(D), OPTICS(min_samples=5).fit(blobs)) == []
    # a sparse graph: only its stored pairs are neighbours
    G = kneighbors_graph(blobs, 30, mode="distance")
    ours = OPTICS(min_samples=5, metric="precomputed").fit(G)
    assert _same(ours, reference.OPTICS(min_samples=5, metric="precomputed").fit(G)) == []


def test_other_metrics_and_sparse_rows_give_scikit_learns_labels(blobs):
    # both sides compute these distances through BLAS products, whose rounding depends on
    # the CPU: a near-tie may order differently, so the partition is compared, not the bits
    ours = OPTICS(min_samples=6, metric="cosine").fit(blobs)
    assert adjusted_rand_score(ours.labels_, reference.OPTICS(min_samples=6, metric="cosine").fit(blobs).labels_) > 0.98
    rows = sp.csr_matrix(np.where(np.abs(blobs) > 1, blobs, 0.0))
    ours, dense = OPTICS(min_samples=6).fit(rows), OPTICS(min_samples=6).fit(rows.toarray())
    assert np.allclose(ours.reachability_, dense.reachability_, rtol=1e-6)
    assert adjusted_rand_score(ours.labels_, dense.labels_) > 0.98


def test_reachability_is_prims_growth(blobs):
    """Each point's reachability is the smallest ``max(core(p), d(p, o))`` over the
    points before it, and the next point is always the cheapest one left."""
    model = OPTICS(min_samples=5).fit(blobs)
    D, core, order = cdist(blobs, blobs), model.core_distances_, model.ordering_
    reach = np.maximum(D, core[:, None])  # reach[p, o]
    for step in range(1, 60):
        before, o = order[:step], order[step]
        assert model.reachability_[o] == pytest.approx(reach[before, o].min(), rel=1e-12)
        left = order[step:]
        assert model.reachability_[o] <= reach[np.ix_(before, left)].min(axis=0).min() * (1 + 1e-12)
        assert model.predecessor_[o] in before


def test_xi_finds_valleys_and_nests_them():
    # a plot with two valleys inside a wider one: the leaves are the two valleys
    plot = np.array([np.inf, 5, 5, 5, 1, 1, 1, 1, 4, 1, 1, 1, 1, 5, 5, 5, 9, 9])
    order = np.arange(plot.size)
    pred = np.r_[-1, order[:-1]]
    labels, clusters = cluster_optics_xi(reachability=plot, predecessor=pred, ordering=order, min_samples=3)
    assert labels[4:8].tolist() == [0] * 4 and labels[8:13].tolist() == [1] * 5
    inner = [tuple(c) for c in clusters[:2]]
    assert all(any(a <= s and e <= b for a, b in clusters[2:]) for s, e in inner)  # the outer one contains them


def test_dbscan_cut_matches_dbscan_on_core_points(blobs):
    model = OPTICS(min_samples=8).fit(blobs)
    labels = cluster_optics_dbscan(
        reachability=model.reachability_, core_distances=model.core_distances_, ordering=model.ordering_, eps=0.9
    )
    exact = reference.DBSCAN(eps=0.9, min_samples=8).fit(blobs)
    core = exact.core_sample_indices_
    # the same partition of the core points, up to numbering
    pairs = set(zip(labels[core].tolist(), exact.labels_[core].tolist()))
    assert len(pairs) == np.unique(labels[core]).size == np.unique(exact.labels_[core]).size
    assert (labels[exact.labels_ == -1] == -1).all()


def test_bad_parameters_say_what_to_do(blobs):
    with pytest.raises(ValueError, match="min_samples must be no greater than the number of samples"):
        OPTICS(min_samples=1000).fit(blobs)
    with pytest.raises(ValueError, match="epsilon smaller than"):
        OPTICS(cluster_method="dbscan", max_eps=1.0, eps=2.0).fit(blobs)
    with pytest.warns(UserWarning, match="All reachability values are inf"):
        OPTICS(min_samples=5, max_eps=1e-6).fit(blobs)
    few = sp.csr_matrix(kneighbors_graph(blobs, 2, mode="distance"))
    with pytest.raises(ValueError, match="stores 2 neighbours"):
        OPTICS(min_samples=5, metric="precomputed").fit(few)
