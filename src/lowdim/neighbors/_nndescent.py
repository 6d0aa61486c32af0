"""Approximate k-nearest neighbours for the metrics without a BLAS form (Manhattan,
Chebyshev, Minkowski, correlation, Jaccard, ..., and a user's numba-compiled metric):
nearest-neighbour descent by pynndescent, the search umap-learn uses, behind the same
``build`` / ``query`` interface as the exact indexes.

Euclidean and cosine rows go to faiss' HNSW graph instead (``_approximate``): measured
there, pynndescent's numba compilation costs each new process more than it saves. For
these metrics the alternative is the exact index's n^2 distances, which it saves many
times over from a few ten thousand rows on."""

import importlib.util

import numpy as np

from .._validation import check_array
from ._base import KNNIndex, check_distance_range, check_float32_rows
from ._pairwise import PAIRWISE_METRICS, check_metric_params

# lowdim's parameter names -> pynndescent's
_PARAMETER_NAMES = {"VI": "vinv", "V": "sigma", "p": "p"}
SEED = 0  # the descent's random start: the same data give the same neighbours
_INSTALL = "approximate kNN for metric={!r} needs pynndescent: pip install 'lowdim[ann]' (or use algorithm='exact')"


def nndescent_available():
    """Whether pynndescent is installed, found without importing it: its import compiles
    its distance functions (nearly 20 s a process), which only a descent should pay.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(nndescent_available(), bool)
    True
    """
    return importlib.util.find_spec("pynndescent") is not None


def descent_metric(metric):
    """pynndescent's name of a metric of ``PAIRWISE_METRICS`` (a numba-compiled function
    is passed as it is).

    Examples
    --------
    >>> descent_metric("l1"), descent_metric("braycurtis")
    ('manhattan', 'braycurtis')
    """
    if callable(metric):
        return metric
    name = PAIRWISE_METRICS[metric]
    return {"cityblock": "manhattan"}.get(name, name)


def descent_kwds(metric_params):
    """pynndescent's ``metric_kwds`` for lowdim's ``metric_params`` (its names of the
    parameters: ``VI`` -> ``vinv``, ``V`` -> ``sigma``), or None.

    Examples
    --------
    >>> descent_kwds({"V": [1.0, 2.0]}), descent_kwds({})
    ({'sigma': [1.0, 2.0]}, None)
    """
    kwds = {_PARAMETER_NAMES.get(name, name): value for name, value in (metric_params or {}).items()}
    return kwds or None


class NNDescentIndex(KNNIndex):
    """Approximate kNN index by nearest-neighbour descent (pynndescent) for the metrics of
    ``PAIRWISE_METRICS`` and numba-compiled metric functions.

    The indexed rows' own neighbours come from the descent's graph (built for the
    largest ``k`` asked, at least ``graph_neighbors``); new rows are searched in it.

    Parameters
    ----------
    metric : str or callable
        A key of ``PAIRWISE_METRICS`` or a numba-compiled function of two rows.
    metric_params : dict, optional
        As for ``PairwiseIndex``.
    graph_neighbors : int, default=30
        Neighbours per row of the descent's graph (pynndescent's ``n_neighbors``).
    verbose : bool, default=False

    Examples
    --------
    The first descent with a metric compiles pynndescent's kernels for it (about 20 s);
    tests/test_nndescent_index.py runs this example's query:

    >>> X = np.random.default_rng(0).normal(size=(300, 5))
    >>> dist, idx = NNDescentIndex("manhattan").build(X).query(X, 3, exclude_self=True)  # doctest: +SKIP
    >>> idx.shape, bool((idx != np.arange(300)[:, None]).all())  # doctest: +SKIP
    ((300, 3), True)
    """

    metrics = tuple(PAIRWISE_METRICS)

    def __init__(self, metric, metric_params=None, graph_neighbors=30, verbose=False):
        if not (callable(metric) or metric in PAIRWISE_METRICS):
            raise ValueError(f"metric must be one of {', '.join(PAIRWISE_METRICS)} or a callable; got {metric!r}.")
        if not nndescent_available():
            raise ImportError(_INSTALL.format(metric))
        self.metric = metric
        self.metric_params = check_metric_params(metric, metric_params)
        self.graph_neighbors = graph_neighbors
        self.verbose = verbose

    def _build(self, X):
        """Keep the rows; the descent runs at the first query (its width is that ``k``)."""
        X = check_array(X, estimator_name="NNDescentIndex")
        check_float32_rows(X)  # before the cast, whatever the metric
        self._data = np.ascontiguousarray(X, dtype=np.float32)
        self._descent = None

    def _graph(self, width):
        """The descent over the indexed rows, with at least ``width`` neighbours a row."""
        from pynndescent import NNDescent

        if self._descent is None or self._descent.n_neighbors < width:
            self._descent = NNDescent(
                self._data,
                metric=descent_metric(self.metric),
                metric_kwds=descent_kwds(self.metric_params),
                n_neighbors=max(width, min(self.graph_neighbors, self._data.shape[0])),
                random_state=SEED,
                verbose=self.verbose,
            )
        return self._descent

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed rows of each row of ``Q`` (approximately).

        Parameters
        ----------
        Q : ndarray (m, d)
        k : int
        exclude_self : bool
            ``Q`` is the indexed data: a row is not its own neighbour.

        Returns
        -------
        distances : ndarray (m, k) of float64, increasing
        indices : ndarray of int64 (m, k)
        """
        available = self.n_samples_ - (1 if exclude_self else 0)
        if not 1 <= k <= available:
            raise ValueError(f"k={k} neighbours asked for, but the index holds {available} candidate points.")
        if exclude_self:
            indices, distances = self._graph(k + 1).neighbor_graph
            return _without_self(indices, distances, k)
        Q = check_array(Q, estimator_name="NNDescentIndex")
        check_distance_range(Q, self.metric, self.metric_params)
        check_float32_rows(Q)  # before the cast, whatever the metric
        Q = np.ascontiguousarray(Q, dtype=np.float32)
        indices, distances = self._graph(k).query(Q, k=k)
        return distances.astype(np.float64), indices.astype(np.int64)


def _without_self(indices, distances, k):
    """Each row's ``k`` first neighbours other than itself (the descent lists a row
    among its own neighbours, not always first when it has duplicates)."""
    n = indices.shape[0]
    own = indices == np.arange(n)[:, None]
    missing = ~own.any(axis=1)
    own[missing, -1] = True  # a row the descent did not list: drop its farthest instead
    keep = ~own
    idx = indices[keep].reshape(n, -1)[:, :k]
    dist = distances[keep].reshape(n, -1)[:, :k]
    return dist.astype(np.float64), idx.astype(np.int64)
