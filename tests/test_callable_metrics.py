"""UMAP and t-SNE with a metric given as a function of two rows (umap-learn takes numba-compiled
ones): the same graph as the named metric, its arguments, and transform."""

import numpy as np
import pytest
from numba import njit
from sklearn.datasets import load_digits

from lowdim.embedding import UMAP
from lowdim.linalg import pairwise_distances


@njit
def manhattan(a, b):
    return np.abs(a - b).sum()


@njit
def minkowski(a, b, p):
    return (np.abs(a - b) ** p).sum() ** (1.0 / p)


@pytest.fixture(scope="module")
def digits():
    X, _ = load_digits(return_X_y=True)
    return X[:300] + 1e-3 * np.random.default_rng(0).normal(size=(300, 64))


@pytest.mark.parametrize("function", [manhattan, manhattan.py_func], ids=["numba", "python"])
def test_a_metric_function_gives_the_named_metrics_graph(digits, function):
    named = UMAP(metric="manhattan", random_state=0, n_epochs=20).fit(digits)
    given = UMAP(metric=function, random_state=0, n_epochs=20).fit(digits)
    # the same neighbours; their distances summed in another order
    np.testing.assert_allclose(given.graph_.toarray(), named.graph_.toarray(), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(given.embedding_, named.embedding_)
    np.testing.assert_allclose(given.transform(digits[:20]), named.transform(digits[:20]), atol=1e-5)


def test_a_compiled_metric_takes_metric_kwds_in_order(digits):
    D = pairwise_distances(digits[:40], digits, minkowski, {"p": 3.0})
    np.testing.assert_allclose(D, pairwise_distances(digits[:40], digits, "minkowski", {"p": 3.0}), rtol=1e-12)
    named = UMAP(metric="minkowski", metric_kwds={"p": 3}, random_state=0, n_epochs=10).fit(digits)
    given = UMAP(metric=minkowski, metric_kwds={"p": 3.0}, random_state=0, n_epochs=10).fit(digits)
    np.testing.assert_allclose(given.graph_.toarray(), named.graph_.toarray(), rtol=1e-9, atol=1e-12)


def test_the_approximate_index_refuses_a_python_metric(digits):
    # that it takes a compiled one is checked in tests/test_nndescent_index.py, beside the
    # named metric whose compiled descent it shares
    with pytest.raises(ValueError, match="needs a numba-compiled metric function"):
        UMAP(metric=manhattan.py_func, force_approximation_algorithm=True).fit(digits)


def test_tsne_takes_a_metric_function_as_scikit_learn_does(digits):
    from lowdim.embedding import TSNE

    named = TSNE(metric="manhattan", method="exact", random_state=0, max_iter=250).fit(digits[:120])
    given = TSNE(metric=manhattan, method="exact", random_state=0, max_iter=250).fit(digits[:120])
    np.testing.assert_allclose(given.affinities_.toarray(), named.affinities_.toarray(), rtol=1e-9, atol=1e-15)


@njit
def _nan_aware_with_gradient(a, b):
    """Manhattan over the coordinates both rows have, and a gradient (umap-learn's pair)."""
    total = 0.0
    for t in range(a.shape[0]):
        if np.isfinite(a[t]) and np.isfinite(b[t]):
            total += abs(a[t] - b[t])
    return total, a - b


@njit
def _scribbler(a, b):
    a[0] = np.nan  # a function that writes into the rows it is given
    return np.abs(a[1:] - b[1:]).sum()


def test_rows_with_gaps_need_ensure_all_finite_and_a_metric_function(digits):
    X = digits[:200].copy()
    X[::7, 3] = np.nan
    X[::11, 5] = np.inf
    with pytest.raises(ValueError, match="NaN"):
        UMAP(metric=_nan_aware_with_gradient).fit(X)  # umap-learn's default refuses them too
    with pytest.raises(ValueError, match="pass a metric function"):
        UMAP().fit(X, ensure_all_finite=False)
    model = UMAP(metric=_nan_aware_with_gradient, n_epochs=30, random_state=0).fit(X, ensure_all_finite=False)
    assert np.isfinite(model.embedding_).all()
    # the pair's first item is the distance: the gaps skipped, as the function says
    D = pairwise_distances(X[:5], X[:5], _nan_aware_with_gradient)
    both = np.isfinite(X[:5, None, :]) & np.isfinite(X[None, :5, :])
    expected = np.where(both, np.abs(np.nan_to_num(X[:5, None, :]) - np.nan_to_num(X[None, :5, :])), 0).sum(axis=2)
    np.testing.assert_allclose(D, expected)
    with pytest.raises(ValueError, match="infinity|inf"):
        model.transform(X[:22], ensure_all_finite="allow-nan")
    assert np.isfinite(model.transform(X[:22], ensure_all_finite=False)).all()


def test_a_metric_function_cannot_change_the_data(digits):
    X = digits[:60].copy()
    before = X.copy()
    model = UMAP(metric=_scribbler, n_epochs=10, random_state=0).fit(X)
    model.transform(X[:5])
    np.testing.assert_array_equal(X, before)


def test_a_metric_function_giving_a_negative_distance_is_named(digits):
    with pytest.raises(ValueError, match=r"All distances should be positive, the metric given is not correct.*-1"):
        pairwise_distances(digits[:3], digits[:3], lambda a, b: -1.0)
    with pytest.raises(ValueError, match="All distances should be positive"):
        pairwise_distances(digits[:3], digits[:3], njit(lambda a, b: -1.0))
