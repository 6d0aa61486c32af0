"""Approximate kNN backend (issue 5): recall on real data, the shared interface, 'auto'."""

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


def test_exact_distances_for_the_neighbours_found(fashion_sample):
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


def test_auto_picks_by_size():
    assert isinstance(make_index("auto", "euclidean", APPROXIMATE_FROM - 1), ExactIndex)
    assert isinstance(make_index("auto", "euclidean", APPROXIMATE_FROM), HNSWIndex)
    assert isinstance(make_index("auto", "precomputed", 10**6), ExactIndex)
    with pytest.raises(ValueError, match="algorithm must be 'auto', 'exact' or 'approximate'; got 'kd_tree'"):
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
