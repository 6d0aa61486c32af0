"""``lowdim.neighbors.KNeighborsTransformer``: scikit-learn's graph, from lowdim's indexes."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.neighbors import KNeighborsTransformer as SklearnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import estimator_checks_generator

import lowdim
from lowdim.neighbors import KNeighborsTransformer


def _checks():
    """scikit-learn's checks, but the array-API one (it needs SCIPY_ARRAY_API set)."""
    for estimator, check in estimator_checks_generator(KNeighborsTransformer(), legacy=True):
        if "array_api" not in getattr(check, "func", check).__name__:
            yield estimator, check


@pytest.mark.parametrize("estimator, check", list(_checks()))
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=300, d=6, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.mark.parametrize("mode", ["distance", "connectivity"])
def test_the_graph_of_new_rows_is_scikit_learns(mode):
    X, Q = _data(), _data(40, seed=1)
    ours = KNeighborsTransformer(n_neighbors=8, mode=mode).fit(X).transform(Q)
    theirs = SklearnTransformer(n_neighbors=8, mode=mode).fit(X).transform(Q)
    assert ours.shape == theirs.shape == (40, 300) and ours.nnz == theirs.nnz
    assert abs((ours != 0) - (theirs != 0)).nnz == 0
    # both in float64 from the same rows: the BLAS expansion's rounding, relative to |x|^2
    np.testing.assert_allclose(ours.toarray(), theirs.toarray(), rtol=0, atol=1e-12 * np.abs(X).max() ** 2 * 6)


def test_the_training_graph_puts_each_row_first_then_its_neighbours_in_order():
    X = _data()
    X[1] = X[0]  # a duplicate must not take its twin's place
    G = KNeighborsTransformer(n_neighbors=10).fit_transform(X)
    indices, data = G.indices.reshape(300, 11), G.data.reshape(300, 11)
    assert np.array_equal(indices[:, 0], np.arange(300)) and np.all(data[:, 0] == 0.0)
    assert np.all(np.diff(data, axis=1) >= 0)  # increasing along each row, as scanpy reads them
    assert indices[0, 1] == 1 and indices[1, 1] == 0 and data[0, 1] == 0.0
    theirs = SklearnTransformer(n_neighbors=10).fit(X).kneighbors(X, 11)[0]
    np.testing.assert_allclose(data[:, 1:], np.sort(theirs, axis=1)[:, 1:], rtol=1e-6)  # float32 self-query


def test_metrics_and_indexes_are_lowdims():
    X = _data()
    cos = KNeighborsTransformer(n_neighbors=5, metric="cosine").fit_transform(X)
    theirs = SklearnTransformer(n_neighbors=5, metric="cosine", algorithm="brute").fit_transform(X)
    assert abs((cos != 0) - (theirs != 0)).nnz <= 2  # ties of equal distance aside
    table, _ = lowdim.load_penguins()
    gower = KNeighborsTransformer(n_neighbors=10, metric="gower", metric_params=table.metric_params)
    G = gower.fit_transform(table.X)
    D = lowdim.metrics.gower_distances(table.X, **table.metric_params)
    kth = np.sort(np.where(np.isnan(D), np.inf, D), axis=1)[:, 10]
    np.testing.assert_allclose(G.data.reshape(-1, 11)[:, -1], kth, rtol=1e-6)


def test_it_feeds_a_precomputed_pipeline():
    X = lowdim.datasets.make_swiss_roll(600, random_state=0)[0]
    piped = make_pipeline(KNeighborsTransformer(n_neighbors=11), lowdim.Isomap(n_neighbors=10, metric="precomputed"))
    direct = lowdim.Isomap(n_neighbors=10).fit_transform(X)
    np.testing.assert_allclose(np.abs(piped.fit_transform(X)), np.abs(direct), atol=1e-6 * np.abs(direct).max())


def test_too_many_neighbours_are_named():
    with pytest.raises(ValueError, match="n_neighbors = 6, n_samples_fit = 5"):
        KNeighborsTransformer(n_neighbors=5).fit(np.eye(5)).transform(np.eye(5))
    assert sp.issparse(KNeighborsTransformer(n_neighbors=4, mode="connectivity").fit_transform(np.eye(5)))
