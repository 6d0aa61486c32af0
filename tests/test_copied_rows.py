"""Rows repeated more often than a method's neighbour count (a cell type sequenced twice,
an empty document, a sensor stuck on one reading): every neighbour embedding warns with
their number and keeps them together in a finite map of the usual scale (SNE shares
t-SNE's affinities; its exact gradient would make this the suite's slowest test)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from lowdim import PHATE, TSNE, UMAP, DiffusionMap, Isomap, LocallyLinearEmbedding, PaCMAP, TriMap
from lowdim.metrics import knn_accuracy

N_COPIED, COPIES = 8, 40  # 40 copies: more than any of these methods' neighbours

METHODS = {
    "TSNE": lambda: TSNE(random_state=0),
    "UMAP": lambda: UMAP(random_state=0),
    "PaCMAP": lambda: PaCMAP(random_state=0),
    "TriMap": lambda: TriMap(random_state=0),
    "DiffusionMap": lambda: DiffusionMap(random_state=0),
    "PHATE": lambda: PHATE(random_state=0),
    "Isomap": lambda: Isomap(),
    # a neighbourhood of copies has no tangent space: LTSA and Hessian eigenmaps spread such copies over the map
    "LTSA": lambda: LocallyLinearEmbedding(n_neighbors=10, method="ltsa", random_state=0),
    "HessianLLE": lambda: LocallyLinearEmbedding(n_neighbors=10, method="hessian", random_state=0),
}


@pytest.fixture(scope="module")
def blobs():
    return make_blobs(400, centers=4, n_features=8, random_state=0)


@pytest.mark.parametrize("name", METHODS)
def test_copied_rows_are_counted_kept_together_and_do_not_blow_up_the_map(blobs, name):
    X, y = blobs
    copied = np.vstack([X, np.repeat(X[:N_COPIED], COPIES, axis=0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the plain fit's own warnings (components) are not the point
        plain = METHODS[name]().fit_transform(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Y = METHODS[name]().fit_transform(copied)
    messages = [str(w.message) for w in caught]
    # scales of 0 overflowed (DiffusionMap, PHATE) or made TriMap's weights ~1e20
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], messages
    assert any(f"{N_COPIED * (COPIES + 1)} samples have a duplicate" in m for m in messages), messages
    assert np.isfinite(Y).all()
    extent = np.ptp(Y, axis=0).max()
    assert extent < 5 * np.ptp(plain, axis=0).max()
    assert knn_accuracy(Y[: len(X)], y, random_state=0) > 0.95
    copies = Y[len(X) :].reshape(N_COPIED, COPIES, -1)
    assert np.abs(copies - copies.mean(axis=1, keepdims=True)).max() < 0.02 * extent


@pytest.mark.parametrize("method", ["standard", "ltsa", "hessian"])
def test_lle_refuses_distinct_rows_too_few_for_its_neighbourhoods(method):
    # two points, 30 copies each: every neighbourhood is made of copies; standard LLE
    # spread one point's copies over the whole map under a warning that they were placed
    # together, and Hessian eigenmaps failed in the SVD
    X = np.repeat([[0.0, 1, 2, 3, 4], [1.0, 0, 1, 0, 1]], 30, axis=0)
    with pytest.raises(ValueError, match="X has 2 distinct rows .the other 58 are copies of them., too few"):
        LocallyLinearEmbedding(n_neighbors=10, method=method, random_state=0).fit(X)


@pytest.mark.parametrize("linkage", ["ward", "complete", "average", "single"])
@pytest.mark.parametrize("partial", [False, True])
def test_agglomerative_clustering_keeps_the_copies_of_a_row_together(linkage, partial):
    # three points, ten copies each, five clusters asked for: the cut split one point's
    # copies between three clusters at random (as scikit-learn's does), without a word
    from sklearn.neighbors import kneighbors_graph

    from lowdim import AgglomerativeClustering

    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]], 10, axis=0)
    graph = {"connectivity": kneighbors_graph(X, 12), "compute_full_tree": False} if partial else {}
    with pytest.warns(UserWarning, match=r"Number of distinct clusters \(3\) found smaller than n_clusters \(5\)"):
        model = AgglomerativeClustering(5, linkage=linkage, **graph).fit(X)
    assert model.n_clusters_ == 3
    assert [len(set(model.labels_[i : i + 10])) for i in (0, 10, 20)] == [1, 1, 1]
    assert len(set(model.labels_)) == 3
