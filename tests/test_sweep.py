"""lowdim.sweep: one neighbour graph for a sweep of settings, optionally warm-started maps."""

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

from lowdim import HDBSCAN, PCA, TSNE, UMAP, Isomap, NeighborGraph, SpectralEmbedding, sweep
from lowdim.embedding import graph_width
from lowdim.metrics import trustworthiness


def _trust(X, model):
    return trustworthiness(X, model.embedding_, n_neighbors=10)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] + 0.01 * np.random.default_rng(0).random((600, 64)), y[:600]  # no constant columns


def test_one_graph_as_wide_as_the_widest_setting(digits, monkeypatch):
    X, _ = digits
    built = []
    original = NeighborGraph.build.__func__

    def counting(cls, X, k, **kwargs):
        built.append(k)
        return original(cls, X, k, **kwargs)

    monkeypatch.setattr(NeighborGraph, "build", classmethod(counting))
    maps = sweep(UMAP(random_state=0, n_epochs=50), "n_neighbors", [5, 15, 30], X)
    assert built == [29]  # once, for n_neighbors=30 (the point itself not counted)
    assert [m.n_neighbors for m in maps] == [5, 15, 30]


def test_independent_maps_equal_fits_from_graphs_of_their_own_width(digits):
    X, _ = digits
    maps = sweep(UMAP(random_state=0, n_epochs=50), "n_neighbors", [5, 15], X)
    for model in maps:
        own = NeighborGraph.build(X, model.n_neighbors - 1)
        alone = UMAP(random_state=0, n_epochs=50, n_neighbors=model.n_neighbors, precomputed_knn=own).fit(X)
        np.testing.assert_allclose(model.embedding_, alone.embedding_)
    isomaps = sweep(Isomap(), "n_neighbors", [5, 8], X)  # metric 'minkowski' with p=2 reads as Euclidean
    alone = Isomap(n_neighbors=8).fit(X).embedding_  # the same, to the eigensolver's tolerance
    np.testing.assert_allclose(isomaps[1].embedding_, alone, atol=1e-6 * np.abs(alone).max())


def test_warm_umap_maps_follow_the_previous_map_at_the_quality_of_independent_fits(digits):
    X, _ = digits
    values = [15, 30, 50]
    warm = sweep(UMAP(random_state=0), "n_neighbors", values, X, warm_start=True)
    alone = [UMAP(random_state=0, n_neighbors=v).fit(X) for v in values]
    assert warm[0].n_epochs_ == 500 and warm[1].n_epochs_ == 50  # a tenth of the epochs ...
    assert warm[1].learning_rate == 0.25  # ... at a quarter of the learning rate
    for w, a in zip(warm, alone):
        assert _trust(X, w) >= _trust(X, a) - 0.005
    # a warm map keeps its predecessor's arrangement; an independent fit need not
    follows = procrustes(warm[0].embedding_, warm[1].embedding_)[2]
    assert follows < 0.5 * procrustes(alone[0].embedding_, alone[1].embedding_)[2]


def test_warm_tsne_maps_skip_exaggeration_and_run_a_short_main_phase(digits):
    X, _ = digits
    values = [10.0, 20.0, 30.0]
    warm = sweep(TSNE(random_state=0, max_iter=500), "perplexity", values, X, warm_start=True)
    assert warm[1].early_exaggeration_iter == 0 and warm[1].max_iter == 25  # 250 / 15, at least 25
    alone = [TSNE(random_state=0, max_iter=500, perplexity=v).fit(X) for v in values]
    for w, a in zip(warm, alone):
        assert _trust(X, w) >= _trust(X, a) - 0.005


def test_graph_width_follows_each_method():
    assert graph_width(UMAP(n_neighbors=15), 5000) == 14
    assert graph_width(TSNE(perplexity=30), 5000) == 91
    assert graph_width(TSNE(perplexity=30), 300) == 299  # exact t-SNE reads every other point
    assert graph_width(TSNE(perplexity=30), 800) == 91  # Barnes-Hut from 401 points
    assert graph_width(TSNE(perplexity=30, n_components=4), 5000) == 4999  # exact beyond 3-D
    assert graph_width(TSNE(perplexity=10, affinity="multiscale"), 5000) == 301
    assert graph_width(TSNE(perplexity=10, affinity="uniform"), 5000) == 10
    assert graph_width(Isomap(n_neighbors=7), 5000) == 7


def test_sweep_refuses_what_it_cannot_do(digits):
    X, _ = digits
    with pytest.raises(ValueError, match="has no parameter 'perplexity'"):
        sweep(UMAP(), "perplexity", [5], X)
    with pytest.raises(ValueError, match="cannot be fitted from a neighbour graph"):
        sweep(PCA(), "n_components", [2], X)
    with pytest.raises(ValueError, match="warm_start=True continues an iterative layout, which Isomap has not"):
        sweep(Isomap(), "n_neighbors", [5, 8], X, warm_start=True)
    with pytest.raises(ValueError, match="neighbours SpectralEmbedding with n_neighbors=None reads; build the graph"):
        sweep(SpectralEmbedding(), "n_components", [2], X)
    with pytest.raises(ValueError, match="how many neighbours HDBSCAN reads; build the graph yourself"):
        sweep(HDBSCAN(), "min_cluster_size", [5, 10], X)
    with pytest.raises(ValueError, match="not from a distance matrix"):
        sweep(UMAP(metric="precomputed"), "n_neighbors", [5], X)
    with pytest.raises(ValueError, match="at least one value"):
        sweep(UMAP(), "n_neighbors", [], X)
    graph = NeighborGraph.build(X, 20)
    labels = [m.labels_ for m in sweep(HDBSCAN(), "min_cluster_size", [5, 10], X, graph=graph)]
    assert labels[0].shape == (600,) and labels[1].shape == (600,)
