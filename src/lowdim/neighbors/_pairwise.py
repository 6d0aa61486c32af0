"""Exact k-nearest neighbours for metrics without a BLAS form (Manhattan, Chebyshev,
Minkowski, correlation, Hamming, Jaccard, ...): distances by ``scipy.spatial.distance.cdist``
in row blocks, behind the same ``build`` / ``query`` / ``pairwise`` interface as
``ExactIndex``."""

import numpy as np
import scipy.sparse as sp

from .._validation import check_array, convert_array
from ..linalg import cosine_rows, pairwise_distances, row_norms_sq
from ._base import KNNIndex, check_distance_range

# lowdim's (and scikit-learn's / umap-learn's) names -> scipy's
PAIRWISE_METRICS = {
    "manhattan": "cityblock",
    "cityblock": "cityblock",
    "l1": "cityblock",
    "taxicab": "cityblock",
    "chebyshev": "chebyshev",
    "linfinity": "chebyshev",
    "infinity": "chebyshev",
    "minkowski": "minkowski",
    "correlation": "correlation",
    "hamming": "hamming",
    "jaccard": "jaccard",
    "canberra": "canberra",
    "braycurtis": "braycurtis",
    # scikit-learn's other metrics of rows (its BallTree's), SciPy's names too
    "seuclidean": "seuclidean",
    "mahalanobis": "mahalanobis",
    "dice": "dice",
    "rogerstanimoto": "rogerstanimoto",
    "russellrao": "russellrao",
    "sokalmichener": "sokalmichener",
    "sokalsneath": "sokalsneath",
    "hellinger": "hellinger",  # umap-learn's, for histograms and counts (lowdim.linalg.pairwise_distances)
}
_PARAMS = {
    "minkowski": {"p"},
    "seuclidean": {"V"},
    "mahalanobis": {"V", "VI"},
    "gower": {"categorical", "ordinal", "weights", "ranges"},
}


def check_metric_params(metric, metric_params):
    """The keyword arguments ``metric`` takes (``{'p': 3}`` for 'minkowski'); anything
    else is an error naming what the metric accepts.

    Parameters
    ----------
    metric : str
    metric_params : dict or None

    Returns
    -------
    dict
        The parameters, checked (Minkowski's ``p`` as a float of at least 1).

    Examples
    --------
    >>> check_metric_params("minkowski", {"p": 3})
    {'p': 3.0}
    """
    params = dict(metric_params or {})
    if callable(metric):  # the user's function: its own arguments
        return params
    allowed = _PARAMS.get(PAIRWISE_METRICS.get(metric, metric), set())
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(
            f"metric={metric!r} takes {'no parameters' if not allowed else sorted(allowed)}; "
            f"got metric_params with {unknown}."
        )
    if "p" in params:
        p = float(params["p"])
        if not p >= 1:
            raise ValueError(f"metric='minkowski' needs p >= 1 (a metric); got p={params['p']!r}.")
        params["p"] = p
    return _weighting(PAIRWISE_METRICS.get(metric, metric), params)


def _weighting(metric, params):
    """The weights of 'seuclidean' (V) and 'mahalanobis' (VI, or V inverted), required:
    estimated from each block of rows, as SciPy would, they would change from block to
    block."""
    if metric == "mahalanobis":
        if "VI" not in params and "V" not in params:
            raise ValueError(
                "Must provide either V or VI for Mahalanobis distance: metric_params={'V': covariance} or "
                "{'VI': its inverse} (e.g. np.cov(X.T))."
            )
        if "V" in params:
            params["VI"] = np.linalg.inv(np.asarray(params.pop("V"), dtype=np.float64))
    if metric == "seuclidean" and "V" not in params:
        raise ValueError("metric='seuclidean' needs V, each feature's variance: metric_params={'V': X.var(axis=0)}.")
    return params


class PairwiseIndex(KNNIndex):
    """Exact kNN index for the metrics in ``PAIRWISE_METRICS`` and a user's metric
    function: ``build(X)`` then ``query(Q, k)``, distances computed in row blocks of at
    most ``block_bytes``.

    Parameters
    ----------
    metric : str or callable
        A key of ``PAIRWISE_METRICS``, or a function of two rows: numba-compiled
        (``@numba.njit``, as umap-learn takes) it runs in a compiled loop, otherwise
        through scipy's ``cdist`` (one Python call a pair).
    metric_params : dict or None
        ``{'p': p}`` for 'minkowski' (default p = 2); a function's arguments (keywords,
        or for a numba-compiled one their values in order, after the two rows).
    block_bytes : int, default=64 MiB

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0]])
    >>> dist, idx = PairwiseIndex("manhattan").build(X).query(X, 1, exclude_self=True)
    >>> idx.ravel().tolist(), dist.ravel().tolist()
    ([1, 0, 0], [2.0, 2.0, 3.0])
    """

    metrics = tuple(PAIRWISE_METRICS)

    def __init__(self, metric, metric_params=None, block_bytes=64 << 20):
        if not (callable(metric) or metric in PAIRWISE_METRICS):
            raise ValueError(f"metric must be one of {', '.join(PAIRWISE_METRICS)} or a callable; got {metric!r}.")
        self.metric = metric
        self.metric_params = check_metric_params(metric, metric_params)
        self.block_bytes = block_bytes

    def _build(self, X):
        """Index the rows of ``X`` (kept as float64)."""
        self._data = np.array(self._floats(X), dtype=np.float64)

    def _floats(self, X):
        """Rows as floats; NaN and infinity only for a metric function, which decides
        what they measure (umap-learn's ``ensure_all_finite=False``)."""
        if callable(self.metric):
            return convert_array(X, estimator_name="PairwiseIndex", allow_nan=True)
        return check_array(X, estimator_name="PairwiseIndex")

    def _block_distances(self, Qb):
        Qb = np.asarray(Qb, dtype=np.float64)
        metric = self.metric if callable(self.metric) else PAIRWISE_METRICS[self.metric]
        return pairwise_distances(Qb, self._data, metric, self.metric_params)

    def pairwise(self, Q):
        """All distances from the rows of ``Q`` to the indexed points, (m, n) float64."""
        return self._block_distances(self._checked(Q))

    def _checked(self, Q):
        Q = self._floats(Q)
        if Q.shape[1] != self._data.shape[1]:
            raise ValueError(f"query has {Q.shape[1]} features, but the index has {self._data.shape[1]}.")
        return Q

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed points of each row of ``Q``.

        Parameters
        ----------
        Q : array-like (m, d)
        k : int
        exclude_self : bool
            ``Q`` is the indexed data itself: leave each row's own index out.

        Returns
        -------
        distances : ndarray (m, k), increasing along each row
        indices : ndarray of int64 (m, k)
        """
        return blocked_query(self, self._checked(Q), k, exclude_self)


def blocked_query(index, Q, k, exclude_self):
    """The ``k`` nearest indexed points of each row of ``Q`` from ``index._block_distances``
    in row blocks of at most ``index.block_bytes`` (the query of the exact indexes
    whose distances have no BLAS form or come from sparse products)."""
    available = index.n_samples_ - (1 if exclude_self else 0)
    if not 1 <= k <= available:
        raise ValueError(f"k={k} neighbours asked for, but the index holds {available} candidate points.")
    if not exclude_self:  # new rows (the indexed ones were checked at build)
        check_distance_range(Q, index.metric, getattr(index, "metric_params", None))
    m = Q.shape[0]
    dist, idx = np.empty((m, k)), np.empty((m, k), dtype=np.int64)
    step = max(1, index.block_bytes // (8 * index.n_samples_))
    for start in range(0, m, step):
        stop = min(m, start + step)
        D = index._block_distances(Q[start:stop])
        if exclude_self:
            D[np.arange(stop - start), np.arange(start, stop)] = np.inf
        order = _smallest(D, k)
        idx[start:stop] = order
        dist[start:stop] = np.take_along_axis(D, order, axis=1)
    return dist, idx


def _smallest(D, k):
    """Column indices of the ``k`` smallest entries of each row, increasing, ties to the
    lower index (as the dense exact search: the same points give the same neighbours
    dense or sparse); a partial selection first when ``k`` is well below the row length.

    Examples
    --------
    >>> _smallest(np.array([[3.0, 1.0, 1.0, 2.0, 1.0, 5.0, 4.0, 6.0, 7.0]]), 2).tolist()
    [[1, 2]]
    """
    if 4 * k >= D.shape[1]:
        return np.argsort(D, axis=1, kind="stable")[:, :k]
    part = np.argpartition(D, k - 1, axis=1)[:, :k]
    values = np.take_along_axis(D, part, axis=1)
    # the partition takes any of the entries that tie with a row's k-th: those rows are sorted whole
    tied = np.flatnonzero(np.count_nonzero(D <= values.max(axis=1)[:, None], axis=1) > k)
    order = np.lexsort((part, values), axis=1)
    part = np.take_along_axis(part, order, axis=1)
    part[tied] = np.argsort(D[tied], axis=1, kind="stable")[:, :k]
    return part


SPARSE_METRICS = ("euclidean", "sqeuclidean", "cosine")


def sparse_rows_allowed(name, metric, X):
    """Whether a method searching neighbours by ``metric`` takes scipy.sparse rows (or,
    for 'precomputed', a sparse distance matrix); sparse ``X`` with another metric is
    refused naming the metrics that take it (the dense check would say the method takes
    no sparse input at all).

    Parameters
    ----------
    name : str
        The method, as the message names it.
    metric : str or callable
    X : array-like or sparse matrix

    Returns
    -------
    bool
        The ``accept_sparse`` of the input check.

    Raises
    ------
    TypeError
        ``X`` is sparse and ``metric`` cannot read sparse rows.

    Examples
    --------
    >>> sparse_rows_allowed("UMAP", "cosine", sp.eye(3, format="csr"))
    True
    >>> sparse_rows_allowed("UMAP", "manhattan", np.eye(3))
    False
    """
    takes = (isinstance(metric, str) and metric in SPARSE_METRICS) or metric == "precomputed"
    if sp.issparse(X) and not takes:
        raise TypeError(
            f"{name} takes sparse rows with metric {', '.join(map(repr, SPARSE_METRICS))} (or a sparse distance "
            f"matrix with 'precomputed'); got metric={metric!r}: pass X.toarray() if it fits in memory, or one of "
            "those metrics."
        )
    return takes


class SparseIndex(KNNIndex):
    """Exact kNN index for scipy.sparse rows (text, counts, single-cell data): Euclidean
    or cosine distances from sparse products ``Q X^T`` in row blocks, never densifying
    the data (each block of distances is dense: at most ``block_bytes``).

    Parameters
    ----------
    metric : {'euclidean', 'sqeuclidean', 'cosine'}
    block_bytes : int, default=64 MiB

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]]))
    >>> SparseIndex().build(X).query(X, 1, exclude_self=True)[1].ravel().tolist()
    [1, 0, 1]
    """

    metrics = SPARSE_METRICS

    def __init__(self, metric="euclidean", block_bytes=64 << 20):
        if metric not in SPARSE_METRICS:
            raise ValueError(
                f"sparse input supports the metrics {', '.join(SPARSE_METRICS)}; got metric={metric!r}. "
                "Pass a dense array for other metrics."
            )
        self.metric = metric
        self.block_bytes = block_bytes

    def _rows(self, X):
        """CSR rows in float64 (unit rows for 'cosine') and their squared norms."""
        X = sp.csr_matrix(X, dtype=np.float64)
        if self.metric == "cosine":
            X = cosine_rows(X)
        return X, row_norms_sq(X)

    def _build(self, X):
        """Index the sparse rows of ``X``."""
        self._data, self._sq = self._rows(X)
        self._data_t = self._data.T.tocsr()

    def _block_distances(self, Qb):
        q, q_sq = self._rows(Qb)
        sq = q_sq[:, None] + self._sq[None, :] - 2.0 * (q @ self._data_t).toarray()
        np.maximum(sq, 0.0, out=sq)
        if self.metric == "sqeuclidean":
            return sq
        return np.sqrt(sq) if self.metric == "euclidean" else 0.5 * sq  # cosine: 1 - cos = |a - b|^2 / 2

    def pairwise(self, Q):
        """All distances from the rows of ``Q`` to the indexed points, (m, n) float64."""
        return self._block_distances(Q)

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed points of each row of ``Q`` (see ``PairwiseIndex.query``).

        Parameters
        ----------
        Q : array-like (m, d)
        k : int
        exclude_self : bool, default=False
            ``Q`` is the indexed data: a row is not its own neighbour.

        Returns
        -------
        distances : ndarray (m, k)
        indices : ndarray of int64 (m, k)
        """
        return blocked_query(self, Q, k, exclude_self)
