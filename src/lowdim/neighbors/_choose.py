"""Which kNN index to use: the user's own, or exact below a size and approximate above it."""

import copy

from ..linalg import compiled_metric
from ._approximate import HNSWIndex, approximate_available
from ._base import KNNIndex
from ._exact import METRICS as EXACT_METRICS
from ._exact import ExactIndex
from ._gower import GowerIndex
from ._nndescent import NNDescentIndex, nndescent_available
from ._pairwise import PAIRWISE_METRICS, PairwiseIndex, SparseIndex, check_metric_params

# every metric some index of make_index takes
INDEX_METRICS = (*EXACT_METRICS, *PAIRWISE_METRICS, "gower")

APPROXIMATE_FROM = 20_000  # 'auto' uses the approximate index from this many points on
ALGORITHMS = ("auto", "exact", "approximate")


def make_index(algorithm, metric, n_samples, metric_params=None, sparse=False, verbose=False):
    """The kNN index for ``algorithm``: a user's ``KNNIndex`` (a copy of it, whose
    metric must be ``metric``), or one of 'auto', 'exact', 'approximate': 'auto' is
    approximate from ``APPROXIMATE_FROM`` points on when faiss is installed and the
    metric allows it (Euclidean, cosine), exact otherwise. Metrics without a BLAS form
    (``PAIRWISE_METRICS``: Manhattan, Chebyshev, Minkowski with ``metric_params={'p':
    p}``, correlation, Hamming, Jaccard, ...) and a user's metric function use the exact
    ``PairwiseIndex``, or the approximate ``NNDescentIndex`` (pynndescent, as
    umap-learn) when asked for or, for 'auto', from ``APPROXIMATE_FROM`` points on when
    pynndescent is installed; Gower's
    distance for mixed tables ``GowerIndex`` (approximate as for Euclidean rows:
    candidates by HNSW, re-ranked exactly); ``sparse``
    data (scipy.sparse) the exact ``SparseIndex`` (Euclidean or cosine).

    Parameters
    ----------
    algorithm : {'auto', 'exact', 'approximate'} or KNNIndex
    metric : str or callable
    n_samples : int
        The number of points ('auto' decides by it).
    metric_params : dict, optional
    sparse : bool, default=False
        The data are a scipy.sparse matrix.
    verbose : bool, default=False
        The approximate index shows a progress bar while it is built.

    Returns
    -------
    KNNIndex
        Not yet built.

    Examples
    --------
    >>> type(make_index("auto", "euclidean", 1000)).__name__
    'ExactIndex'
    >>> type(make_index("auto", "manhattan", 1000)).__name__
    'PairwiseIndex'
    """
    if isinstance(algorithm, KNNIndex):
        if not algorithm._serves(metric):
            raise ValueError(
                f"the {type(algorithm).__name__} given as the neighbour index has metric {algorithm.metric!r}, "
                f"but metric={metric!r} was asked for; make the index with metric={metric!r}."
            )
        return copy.deepcopy(algorithm)  # each estimator builds its own
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be 'auto', 'exact', 'approximate' or a KNNIndex instance; got {algorithm!r}.")
    if sparse:
        if metric_params:
            raise ValueError(f"metric={metric!r} takes no parameters; got metric_params={metric_params!r}.")
        return SparseIndex(metric)
    if metric == "gower":
        approximate = algorithm == "approximate" or (
            algorithm == "auto" and n_samples >= APPROXIMATE_FROM and approximate_available()
        )
        return GowerIndex(metric, metric_params, approximate=approximate)
    if callable(metric) or metric in PAIRWISE_METRICS:
        return _pairwise_index(algorithm, metric, n_samples, metric_params, verbose)
    if metric_params:
        raise ValueError(f"metric={metric!r} takes no parameters; got metric_params={metric_params!r}.")
    if algorithm == "auto":
        algorithm = (
            "approximate"
            if n_samples >= APPROXIMATE_FROM
            and metric in ("euclidean", "sqeuclidean", "cosine")
            and approximate_available()
            else "exact"
        )
    return HNSWIndex(metric, verbose=verbose) if algorithm == "approximate" else ExactIndex(metric)


def _pairwise_index(algorithm, metric, n_samples, metric_params, verbose):
    """The index of a metric without a BLAS form: nearest-neighbour descent when asked
    for, or for 'auto' from ``APPROXIMATE_FROM`` points on when pynndescent is
    installed (a plain Python metric function only ever exactly: the descent needs a
    compiled one); the exact ``PairwiseIndex`` otherwise."""
    searchable = not callable(metric) or compiled_metric(metric)
    if algorithm == "approximate":
        if not searchable:
            raise ValueError(
                "the approximate index needs a numba-compiled metric function (@numba.njit); a plain Python "
                "one needs the exact index: use algorithm='exact' or 'auto'."
            )
        return NNDescentIndex(metric, metric_params, verbose=verbose)
    if algorithm == "auto" and searchable and n_samples >= APPROXIMATE_FROM and nndescent_available():
        return NNDescentIndex(metric, metric_params, verbose=verbose)
    return PairwiseIndex(metric, metric_params)


def nearest_neighbors(X, n_neighbors, *, metric="euclidean", algorithm="auto"):
    """The ``n_neighbors`` nearest other points of every row of ``X``.

    Parameters
    ----------
    X : array-like (n, d)
    n_neighbors : int
    metric : str
    algorithm : {'auto', 'exact', 'approximate'} or KNNIndex
        See ``make_index``.

    Returns
    -------
    distances : ndarray (n, n_neighbors), indices : ndarray of int64 (n, n_neighbors)

    Examples
    --------
    >>> import numpy as np
    >>> nearest_neighbors(np.array([[0.0], [1.0], [3.0]]), 1)[1].ravel().tolist()
    [1, 0, 1]
    """
    index = make_index(algorithm, metric, len(X)).build(X)
    return index.query(X, n_neighbors, exclude_self=True)


def resolve_metric(metric, p, metric_params):
    """(metric, parameters) for the neighbour index: scikit-learn's 'minkowski' with p = 2
    is 'euclidean' (BLAS distances), with p = 1 'manhattan'.

    Parameters
    ----------
    metric : str
    p : float
        The Minkowski power, unless ``metric_params`` holds one.
    metric_params : dict or None

    Returns
    -------
    metric : str
    params : dict or None

    Examples
    --------
    >>> resolve_metric("minkowski", 2, None)
    ('euclidean', None)
    """
    params = dict(metric_params or {})
    if metric == "minkowski":
        p = params.pop("p", p)
        if p == 2:
            return "euclidean", params or None
        if p == 1:
            return "manhattan", params or None
        return "minkowski", {**params, "p": p}
    if metric in PAIRWISE_METRICS:  # checked, and in SciPy's form (Mahalanobis' V as VI)
        params = check_metric_params(metric, params)
    return metric, params or None
