"""AgglomerativeClustering: scikit-learn's tree (children, distances) and labels for every
linkage, with and without a connectivity graph, and the cut rules."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.cluster import hierarchy
from sklearn.cluster import AgglomerativeClustering as SklearnAgglomerative
from sklearn.datasets import make_blobs
from sklearn.neighbors import kneighbors_graph

from lowdim import AgglomerativeClustering
from lowdim.cluster import cut_tree


@pytest.fixture(scope="module")
def blobs():
    # continuous coordinates: no two pair distances tie, so the tree is unique
    X, _ = make_blobs(300, centers=4, n_features=3, cluster_std=1.5, random_state=0)
    return X


def _same_partition(a, b):
    """The same clusters, whatever their numbers."""
    return len(set(zip(a, b))) == len(set(a)) == len(set(b))


def _same_labels(ours, theirs):
    """scikit-learn's numbers follow the order of each merge's pair, which its single
    linkage takes from Prim's visiting order: there the clusters must be the same."""
    if ours.linkage == "single":
        return _same_partition(ours.labels_, theirs.labels_)
    return np.array_equal(ours.labels_, theirs.labels_)


def _same_tree(ours, theirs):
    """The same merges (each pair as a set) at the same heights, in the same order."""
    a, b = np.sort(ours.children_, axis=1), np.sort(theirs.children_, axis=1)
    return a.shape == b.shape and np.array_equal(a, b) and np.allclose(ours.distances_, theirs.distances_, rtol=1e-9)


# Ward's linkage is defined for Euclidean distances only (other metrics are refused: see below)
@pytest.mark.parametrize(
    "linkage, metric",
    [("ward", "euclidean")]
    + [(link, m) for link in ("complete", "average", "single") for m in ("euclidean", "manhattan", "cosine")],
)
def test_the_whole_tree_and_the_labels_are_scikit_learns(blobs, linkage, metric):
    params = {"n_clusters": 4, "linkage": linkage, "metric": metric, "compute_distances": True}
    ours, theirs = AgglomerativeClustering(**params).fit(blobs), SklearnAgglomerative(**params).fit(blobs)
    assert _same_tree(ours, theirs) and _same_labels(ours, theirs)


@pytest.mark.parametrize("linkage", ["ward", "single"])
def test_compiled_and_interpreted_tree_kernels_agree(blobs, linkage, monkeypatch):
    """Small trees are linked and cut by the kernels' Python source (``SMALL_TREE``),
    large ones by the compiled kernels: the same tree and labels."""
    params = {"n_clusters": 4, "linkage": linkage, "compute_distances": True}
    interpreted = AgglomerativeClustering(**params).fit(blobs)
    monkeypatch.setattr("lowdim.cluster._agglomerative.SMALL_TREE", 0)
    compiled = AgglomerativeClustering(**params).fit(blobs)
    assert np.array_equal(interpreted.children_, compiled.children_)
    assert np.array_equal(interpreted.distances_, compiled.distances_)
    assert np.array_equal(interpreted.labels_, compiled.labels_)


def test_single_linkage_on_wide_data_and_precomputed_distances(blobs):
    wide = np.hstack([blobs] * 7)  # 21 columns: Prim's tree instead of the k-d tree
    params = {"n_clusters": 3, "linkage": "single", "compute_distances": True}
    assert _same_tree(AgglomerativeClustering(**params).fit(wide), SklearnAgglomerative(**params).fit(wide))
    D = np.sqrt(((blobs[:, None] - blobs[None]) ** 2).sum(-1))
    for linkage in ("complete", "average", "single"):
        params = {"n_clusters": 3, "linkage": linkage, "metric": "precomputed", "compute_distances": True}
        assert _same_tree(AgglomerativeClustering(**params).fit(D), SklearnAgglomerative(**params).fit(D))


@pytest.mark.parametrize("shape", ["ties", "duplicates", "far", "tiny", "beyond float32", "two rows"])
def test_the_screened_spanning_tree_is_prims_to_the_bit(shape):
    # above 16 Euclidean columns the tree's rows are screened in float32 and measured in
    # float64 only where they may come nearer: the same edges, weights and order as
    # Prim's over every pair, ties (integer grids, copies) to the lowest row alike
    from lowdim._kernels.linkage import EUCLIDEAN, euclidean_prim_tree, prim_tree

    rng = np.random.default_rng(7)
    X = {
        "ties": rng.integers(0, 3, (600, 20)).astype(float),
        "duplicates": np.repeat(rng.normal(size=(150, 20)), 4, axis=0),
        "far": 1e7 + rng.normal(size=(600, 25)),
        "tiny": rng.normal(size=(600, 18)) * 1e-35,
        "beyond float32": rng.normal(size=(300, 20)) * 1e200,
        "two rows": rng.normal(size=(2, 30)),
    }[shape]
    for ours, every_pair in zip(euclidean_prim_tree(X), prim_tree(X, EUCLIDEAN)):
        np.testing.assert_array_equal(ours, every_pair)


def test_ward_heights_are_scipys_ward_linkage(blobs):
    model = AgglomerativeClustering(n_clusters=2, compute_distances=True).fit(blobs)
    np.testing.assert_allclose(model.distances_, hierarchy.ward(blobs)[:, 2], rtol=1e-9)


@pytest.mark.parametrize("linkage", ["ward", "complete", "average", "single"])
def test_with_a_connectivity_graph_only_neighbours_merge(blobs, linkage):
    C = kneighbors_graph(blobs, 8, include_self=False)
    params = {"n_clusters": 4, "linkage": linkage, "connectivity": C, "compute_distances": True}
    ours, theirs = AgglomerativeClustering(**params).fit(blobs), SklearnAgglomerative(**params).fit(blobs)
    assert _same_tree(ours, theirs) and _same_labels(ours, theirs)
    # the first merges are along the graph's edges
    leaves = ours.children_[(ours.children_ < len(blobs)).all(axis=1)]
    sym = C + C.T
    assert all(sym[a, b] for a, b in leaves)


def test_a_partial_tree_stops_at_n_clusters():
    X, _ = make_blobs(400, centers=6, n_features=2, random_state=1)
    C = kneighbors_graph(X, 10, include_self=False)
    for linkage in ("ward", "average", "single"):
        params = {"n_clusters": 150, "linkage": linkage, "connectivity": C, "compute_full_tree": False}
        ours, theirs = AgglomerativeClustering(**params).fit(X), SklearnAgglomerative(**params).fit(X)
        assert ours.children_.shape == theirs.children_.shape
        assert len(np.unique(ours.labels_)) == 150 and _same_labels(ours, theirs)


def test_a_disconnected_graph_is_completed_with_a_warning():
    X = np.vstack([np.zeros((5, 2)) + np.arange(5)[:, None], 100 + np.arange(5)[:, None] * np.ones((5, 2))])
    C = sp.csr_matrix(kneighbors_graph(X, 2, include_self=False))
    with pytest.warns(UserWarning, match="number of connected components of the connectivity matrix is 2 > 1"):
        model = AgglomerativeClustering(n_clusters=2, connectivity=C).fit(X)
    assert model.n_connected_components_ == 2 and model.children_.shape == (9, 2)
    assert len(set(model.labels_[:5])) == 1 and len(set(model.labels_[5:])) == 1
    # under another metric the completion searches with that metric (no n x n matrix)
    with pytest.warns(UserWarning, match="Completing it"):
        manhattan = AgglomerativeClustering(n_clusters=2, connectivity=C, metric="manhattan", linkage="average").fit(X)
    np.testing.assert_array_equal(manhattan.labels_, model.labels_)


def test_distance_threshold_cuts_where_merges_are_that_far_apart(blobs):
    model = AgglomerativeClustering(n_clusters=None, distance_threshold=10.0).fit(blobs)
    assert model.n_clusters_ == int((model.distances_ >= 10.0).sum()) + 1
    theirs = SklearnAgglomerative(n_clusters=None, distance_threshold=10.0).fit(blobs)
    assert model.n_clusters_ == theirs.n_clusters_
    np.testing.assert_array_equal(model.labels_, theirs.labels_)


def test_cut_tree_numbers_clusters_as_scikit_learn():
    from sklearn.cluster._agglomerative import _hc_cut

    children = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])  # node 5 = 0+1, 6 = 2+3, 7 = 4+5, 8 = 6+7
    assert cut_tree(children, 1).tolist() == [0] * 5
    assert cut_tree(children, 2).tolist() == [0, 0, 1, 1, 0]
    for k in range(1, 6):
        np.testing.assert_array_equal(cut_tree(children, k), _hc_cut(k, children, 5))


def test_bad_choices_are_named(blobs):
    with pytest.raises(ValueError, match="Exactly one of n_clusters and distance_threshold"):
        AgglomerativeClustering(n_clusters=2, distance_threshold=1.0).fit(blobs)
    with pytest.raises(ValueError, match="Ward can only work with euclidean distances"):
        AgglomerativeClustering(metric="manhattan").fit(blobs)
    with pytest.raises(ValueError, match="compute_full_tree must be True"):
        AgglomerativeClustering(n_clusters=None, distance_threshold=1.0, compute_full_tree=False).fit(blobs)
    with pytest.raises(ValueError, match=r"Cosine affinity cannot be used when X contains zero vectors \(row 3\)"):
        X = blobs.copy()
        X[3] = 0
        AgglomerativeClustering(linkage="average", metric="cosine").fit(X)
    with pytest.raises(ValueError, match="Wrong shape for connectivity matrix"):
        AgglomerativeClustering(connectivity=sp.identity(5)).fit(blobs)
