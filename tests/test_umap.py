"""UMAP: fuzzy graph, curve, layout, estimator."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from lowdim.embedding import UMAP
from lowdim.embedding._umap_graph import curve_parameters, fuzzy_union, local_memberships
from lowdim.metrics import knn_accuracy, trustworthiness
from lowdim.neighbors import nearest_neighbors


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:, X.std(axis=0) > 0], y


@pytest.fixture(scope="module")
def fitted(digits):
    X, _ = digits
    return UMAP(random_state=0).fit(X)


def test_local_memberships_sum_to_log2_k_and_connect_the_nearest(digits):
    X, _ = digits
    distances, _ = nearest_neighbors(X, 14)
    M, rho, sigma = local_memberships(distances, 15)
    np.testing.assert_allclose(M.sum(axis=1), np.log2(15), rtol=1e-4)
    assert np.all(M[:, 0] == 1.0) and np.all((M > 0) & (M <= 1)) and np.all(rho == distances[:, 0])


def test_fuzzy_graph_is_symmetric_with_weights_in_unit_interval(fitted):
    W = fitted.graph_
    assert sp.issparse(W) and abs(W - W.T).max() < 1e-15
    assert W.data.min() > 0 and W.data.max() <= 1.0 and W.diagonal().max() == 0


def test_fuzzy_union_and_intersection():
    idx = np.array([[1], [2], [0]])
    M = np.array([[0.5], [0.4], [1.0]])
    union = fuzzy_union(idx, M, 3).toarray()
    assert union[0, 2] == union[2, 0] == 1.0 and union[0, 1] == 0.5
    both = fuzzy_union(idx, M, 3, mix_ratio=0.0).toarray()
    assert both[0, 1] == 0.0 and both[0, 2] == 0.0  # no mutual edges


@pytest.mark.parametrize("spread, min_dist", [(1.0, 0.1), (1.0, 0.5), (2.0, 0.0)])
def test_curve_fits_its_target(spread, min_dist):
    a, b = curve_parameters(spread, min_dist)
    d = np.linspace(0, 3 * spread, 300)
    target = np.where(d < min_dist, 1.0, np.exp(-(d - min_dist) / spread))
    assert np.sqrt(np.mean((1 / (1 + a * d ** (2 * b)) - target) ** 2)) < 0.05


def test_digits_quality(digits, fitted):
    X, y = digits
    Y = fitted.embedding_
    assert trustworthiness(X, Y, n_neighbors=10) >= 0.97
    assert knn_accuracy(Y, y, n_neighbors=10, random_state=0) >= 0.95


def test_same_seed_same_embedding_across_thread_counts(digits):
    import numba

    X, _ = digits
    a = UMAP(random_state=5, n_epochs=100).fit_transform(X[:700])
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        b = UMAP(random_state=5, n_epochs=100).fit_transform(X[:700])
    finally:
        numba.set_num_threads(previous)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, UMAP(random_state=6, n_epochs=100).fit_transform(X[:700]))


def test_transform_lands_near_training_positions_and_is_pointwise(digits):
    X, y = digits
    model = UMAP(random_state=0).fit(X[:1400])
    Z = model.transform(X[:200])
    span = np.ptp(model.embedding_, axis=0).max()
    assert np.median(np.linalg.norm(Z - model.embedding_[:200], axis=1)) < 0.02 * span
    single = np.vstack([model.transform(X[i:i + 1]) for i in range(0, 200, 25)])
    np.testing.assert_allclose(single, Z[::25], rtol=1e-10)
    W = model.transform(X[1400:])
    nearest = np.argmin(((W[:, None] - model.embedding_[None]) ** 2).sum(-1), axis=1)
    assert np.mean(y[:1400][nearest] == y[1400:]) > 0.9


def test_supervised_mode_separates_classes(digits):
    X, y = digits
    X, y = X[:900], y[:900]
    plain = UMAP(random_state=0, n_epochs=200).fit_transform(X)
    supervised = UMAP(random_state=0, n_epochs=200).fit_transform(X, y)
    assert knn_accuracy(supervised, y, n_neighbors=10, random_state=0) >= knn_accuracy(plain, y, n_neighbors=10,
                                                                                       random_state=0)

    from lowdim.metrics import silhouette_score

    strongly = UMAP(random_state=0, n_epochs=200, target_weight=0.9).fit_transform(X, y)
    assert silhouette_score(strongly, y) > silhouette_score(plain, y) + 0.05
    partial = y.copy()
    partial[::2] = -1  # unknown labels are allowed
    assert np.isfinite(UMAP(random_state=0, n_epochs=50).fit_transform(X, partial)).all()


def test_inverse_transform_returns_to_the_data(digits, fitted):
    X, _ = digits
    back = fitted.inverse_transform(fitted.embedding_[:100])
    scale = np.linalg.norm(X - X.mean(0), axis=1).mean()
    assert np.median(np.linalg.norm(back - X[:100], axis=1)) < 0.6 * scale
    assert back.shape == (100, X.shape[1])


@pytest.mark.parametrize("n", [2, 3, 6])
def test_tiny_constant_duplicate_and_disconnected_data_give_finite_embeddings(n):
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isfinite(UMAP(random_state=0, n_epochs=50).fit_transform(rng.normal(size=(n, 3)))).all()
        assert np.isfinite(UMAP(random_state=0, n_epochs=50).fit_transform(np.ones((max(n, 4), 3)))).all()
    X = np.repeat(rng.normal(size=(20, 3)), 3, axis=0)
    with pytest.warns(UserWarning, match="60 samples have a duplicate"):
        assert np.isfinite(UMAP(random_state=0, n_epochs=50).fit_transform(X)).all()
    blobs = np.vstack([rng.normal(c, 0.1, (30, 2)) for c in (0.0, 50.0)])
    with pytest.warns(UserWarning, match="2 connected components"):
        Y = UMAP(n_neighbors=5, random_state=0, n_epochs=50).fit_transform(blobs)
    assert np.isfinite(Y).all()
