"""The approximate index for metrics without a BLAS form (nearest-neighbour descent)."""

import numpy as np
import pytest

from lowdim.embedding import UMAP
from lowdim.neighbors import NNDescentIndex, PairwiseIndex, make_index


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    return rng.normal(size=(1500, 8)) + 6 * rng.integers(0, 4, size=(1500, 1))


WEIGHTS = np.linspace(0.5, 4.0, 8)  # per-feature variances (seuclidean) / a diagonal inverse covariance


def test_descent_finds_nearly_the_exact_neighbours_for_a_name_or_a_compiled_function(blobs):
    # manhattan: a name pynndescent spells differently (scipy's 'cityblock'). Each metric's
    # descent (and each function's) compiles pynndescent again, for tens of seconds, so one
    # test holds the named metric and a compiled function sharing its compilation; the
    # metrics with a parameter are checked through pynndescent's distance functions below
    k = 10
    exact_dist, exact_idx = PairwiseIndex("manhattan").build(blobs).query(blobs, k, exclude_self=True)
    index = NNDescentIndex("manhattan").build(blobs)
    dist, idx = index.query(blobs, k, exclude_self=True)
    assert idx.shape == (1500, k) and dist.dtype == np.float64 and idx.dtype == np.int64
    assert not (idx == np.arange(1500)[:, None]).any()  # no row is its own neighbour
    assert np.all(np.diff(dist, axis=1) >= 0)
    recall = np.mean([len(np.intersect1d(a, b)) / k for a, b in zip(idx, exact_idx)])
    assert recall > 0.9
    # the distances it gives are the metric's own, for the neighbours it gives
    true = PairwiseIndex("manhattan").build(blobs).pairwise(blobs[:50])
    np.testing.assert_allclose(dist[:50], true[np.repeat(np.arange(50), k), idx[:50].ravel()].reshape(50, k), rtol=1e-5)
    # new rows are searched in the same graph
    moved = blobs[:50] + 0.01
    _, wanted = PairwiseIndex("manhattan").build(blobs).query(moved, k)
    _, found = index.query(moved, k)
    assert np.mean([len(np.intersect1d(a, b)) / k for a, b in zip(found, wanted)]) > 0.9
    # a numba-compiled function of two rows is handed to the descent as it is (this one is
    # pynndescent's own Manhattan, which the name above reached): the same graph, and
    # UMAP's approximate graph with it holds (nearly) the exact graph's edges
    from pynndescent.distances import manhattan

    np.testing.assert_array_equal(NNDescentIndex(manhattan).build(blobs).query(blobs, k, exclude_self=True)[1], idx)
    with pytest.warns(UserWarning, match="4 connected components"):  # the four blobs, each laid out apart
        exact = UMAP(metric=manhattan, random_state=0, n_epochs=10).fit(blobs)
        searched = UMAP(metric=manhattan, force_approximation_algorithm=True, random_state=0, n_epochs=10).fit(blobs)
    assert exact.graph_.multiply(searched.graph_ > 0).nnz / exact.graph_.nnz > 0.9


@pytest.mark.parametrize(
    ("metric", "params"),
    [
        ("manhattan", None),
        ("minkowski", {"p": 3}),  # each metric with a parameter: lowdim's name of it -> pynndescent's
        ("seuclidean", {"V": WEIGHTS}),
        ("mahalanobis", {"VI": np.diag(WEIGHTS)}),
    ],
)
def test_the_descent_is_given_the_metric_the_exact_index_computes(blobs, metric, params):
    # the name and parameters the descent receives make pynndescent's distance equal the
    # exact index's (a V read as standard deviations, or VI as a covariance, would not)
    from pynndescent.distances import named_distances

    from lowdim.neighbors._nndescent import descent_kwds, descent_metric

    rows = blobs[:20].astype(np.float32)  # the descent computes on float32 rows
    distance = named_distances[descent_metric(metric)]
    kwds = descent_kwds(params) or {}
    given = np.array([[distance(a, b, **kwds) for b in rows] for a in rows])
    true = PairwiseIndex(metric, params).build(rows.astype(np.float64)).pairwise(rows.astype(np.float64))
    np.testing.assert_allclose(given, true, rtol=1e-4, atol=1e-4)


def test_every_named_metric_is_one_the_descent_knows():
    """Each descent compiles for a few seconds, so the runs above take one metric of each
    kind; every other name must reach a distance pynndescent has."""
    from pynndescent.distances import named_distances

    from lowdim.neighbors._nndescent import descent_metric

    missing = [name for name in NNDescentIndex.metrics if descent_metric(name) not in named_distances]
    assert not missing, missing


def test_make_index_chooses_descent_for_other_metrics_when_asked_or_large():
    assert isinstance(make_index("approximate", "manhattan", 100), NNDescentIndex)
    assert isinstance(make_index("auto", "jaccard", 100_000), NNDescentIndex)
    assert isinstance(make_index("auto", "jaccard", 1_000), PairwiseIndex)
    assert isinstance(make_index("auto", lambda a, b: 0.0, 100_000), PairwiseIndex)  # plain Python: exact only


def test_choosing_an_index_does_not_import_pynndescent(monkeypatch):
    # pynndescent compiles its distance functions at import (nearly 20 s a process): the
    # check that it is installed, and every choice that does not descend, must not pay that
    import subprocess
    import sys

    code = (
        "import sys; from lowdim.neighbors import make_index, nndescent_available; "
        "assert nndescent_available(); make_index('auto', 'jaccard', 100_000); "
        "assert 'pynndescent' not in sys.modules, 'imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    monkeypatch.setitem(sys.modules, "pynndescent", None)  # as when it is not installed
    assert isinstance(make_index("auto", "jaccard", 100_000), PairwiseIndex)
    with pytest.raises(ImportError, match=r"pip install 'lowdim\[ann\]'"):
        NNDescentIndex("manhattan")
