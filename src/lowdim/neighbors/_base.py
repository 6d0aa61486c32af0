"""The kNN index interface: what every neighbour search in lowdim implements, and what a
user implements to bring their own (a GPU library, a vector database, a custom metric).
"""

from abc import ABC, abstractmethod

import numpy as np

FLOAT32_MAX = float(np.finfo(np.float32).max)
SMALLEST_SCALE = 1e-30  # float32 holds nothing below about 1e-38 (normal) or 1e-45 at all
# metrics whose distances grow with the values, and the p of their norm (None: minkowski's
# own); the others (cosine, correlation, gower, the set and ratio metrics) do not
SCALED_METRICS = {
    "euclidean": 2.0,
    "l2": 2.0,
    "sqeuclidean": 2.0,
    "manhattan": 1.0,
    "cityblock": 1.0,
    "l1": 1.0,
    "taxicab": 1.0,
    "chebyshev": np.inf,
    "linfinity": np.inf,
    "infinity": np.inf,
    "minkowski": None,
    "precomputed": 1.0,
}


class KNNIndex(ABC):
    """A k-nearest-neighbour index: ``build(X)`` once, then ``query(Q, k)``.

    Every method that uses neighbours (TSNE, SNE, UMAP, Isomap, SpectralEmbedding,
    LocallyLinearEmbedding, ``kneighbors_graph``, ``nearest_neighbors``) takes an
    instance as its ``neighbors_algorithm`` (``algorithm`` for the functions) in place
    of 'auto', 'exact' or 'approximate'. The estimator builds its own copy, so one
    instance can configure several estimators.

    Subclasses set ``metrics`` (the metric names they support) and implement ``_build``
    (index the rows) and ``query``; the constructor takes the metric as its first
    argument. ``build`` calls ``_build`` and records ``n_samples_``.

    Parameters
    ----------
    metric : str
        One of the class's ``metrics``.

    Examples
    --------
    A brute-force index in a few lines:

    >>> import numpy as np
    >>> class BruteForce(KNNIndex):
    ...     metrics = ("euclidean",)
    ...     def _build(self, X):
    ...         self.X_ = np.asarray(X, dtype=float)
    ...     def query(self, Q, k, *, exclude_self=False):
    ...         D = np.sqrt(((np.asarray(Q)[:, None] - self.X_[None]) ** 2).sum(-1))
    ...         if exclude_self:
    ...             np.fill_diagonal(D, np.inf)
    ...         idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    ...         return np.take_along_axis(D, idx, axis=1), idx
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> BruteForce().build(X).query(X, 1, exclude_self=True)[1].ravel().tolist()
    [1, 0, 1]
    """

    metrics = ()

    def __init__(self, metric="euclidean"):
        if metric not in self.metrics:
            raise ValueError(
                f"{type(self).__name__} supports metric {', '.join(map(repr, self.metrics))}; got {metric!r}."
            )
        self.metric = metric

    def build(self, X):
        """Index the rows of ``X`` (n, d); returns ``self``.

        Parameters
        ----------
        X : array-like (n, d)

        Returns
        -------
        self
        """
        check_distance_range(X, self.metric, getattr(self, "metric_params", None))
        self._build(X)
        self.n_samples_ = X.shape[0] if hasattr(X, "shape") else len(X)
        return self

    @abstractmethod
    def _build(self, X):
        """Index the rows of ``X`` (what ``build`` does beyond recording their number)."""

    @abstractmethod
    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed rows of each row of ``Q``.

        Parameters
        ----------
        Q : ndarray (m, d)
        k : int
        exclude_self : bool
            ``Q`` is the indexed data itself: row i's own entry is not among its
            neighbours.

        Returns
        -------
        distances : ndarray (m, k), ascending along each row
        indices : ndarray of int64 (m, k)
        """

    def _serves(self, metric):
        """Whether an estimator with ``metric`` may use this index's neighbours."""
        return self.metric == metric

    def _query_indexed(self, start, stop, k):
        """``(distances, indices)`` of the indexed rows ``start:stop`` among the other
        indexed rows, for ``self_neighbors``'s blocks; None (the default) where the
        index answers self-queries only as a whole, through ``query``."""
        return None


def check_distance_range(X, metric="euclidean", metric_params=None):
    """Refuse rows whose distances float32 cannot hold, as the neighbour graphs keep
    them (and the approximate searches the rows): values so large that the distances
    overflow, or all so small that they read 0 (every row a copy of every other). Such
    data crashed t-SNE and UMAP deep in their kernels, and gave random maps without a
    word; rescaled, those maps are the same. Only metrics whose distances grow with the
    values are checked (``SCALED_METRICS``): cosine, correlation, Gower's and the other
    ratios are the same for rows 1e40 times larger. Arrays of other kinds (tables,
    strings) pass.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
        The rows a search is about to index (or query); for 'precomputed', distances.
    metric : str or callable, default='euclidean'
        The search's metric; a callable's distances are its own and pass.
    metric_params : dict, optional
        The metric's parameters (minkowski's ``p``).

    Raises
    ------
    ValueError
        Naming the largest value, float32's limit and the fix.

    Examples
    --------
    >>> check_distance_range(np.ones((2, 2)))
    >>> check_distance_range(np.full((2, 2), 1e40), "cosine")
    >>> try:
    ...     check_distance_range(np.full((2, 2), 1e40))
    ... except ValueError as error:
    ...     print(str(error)[:57])
    Input X has values as large as 1e+40 in magnitude: the ne
    """
    if not isinstance(metric, str) or metric not in SCALED_METRICS:
        return
    largest = _largest_magnitude(X)
    if largest is None:
        return
    limit = _largest_value(metric, metric_params, X.shape[1])
    smallest = np.sqrt(SMALLEST_SCALE) if metric == "sqeuclidean" else SMALLEST_SCALE  # its distances: squares
    if largest > limit:
        raise ValueError(
            f"Input X has values as large as {largest:.2g} in magnitude: the neighbour search keeps {metric} "
            f"distances in float32, whose largest is {FLOAT32_MAX:.2g} ({limit:.2g} for rows of {X.shape[1]} "
            "features); rescale the data, e.g. divide it by its largest absolute value."
        )
    if 0.0 < largest < smallest:
        raise ValueError(
            f"Input X has no value larger than {largest:.2g} in magnitude: the neighbour search keeps {metric} "
            "distances in float32, which holds nothing below about 1e-38, so they would read 0 (every row a copy "
            "of every other); rescale the data, e.g. divide it by its largest absolute value."
        )


def check_float32_rows(X):
    """Refuse rows that a search keeping them in float32 (pynndescent's) would change
    whatever its metric: values beyond float32's largest (they would become infinities)
    or none above 1e-30 (all at float32's precision floor).

    Parameters
    ----------
    X : ndarray (n, d)

    Raises
    ------
    ValueError
        Naming the largest value, float32's range and the fix.

    Examples
    --------
    >>> check_float32_rows(np.full((2, 2), 1e30))
    >>> try:
    ...     check_float32_rows(np.full((2, 2), 1e40))
    ... except ValueError as error:
    ...     print(str(error)[:50])
    Input X has values as large as 1e+40 in magnitude:
    """
    largest = _largest_magnitude(X)
    if largest is not None and not (largest == 0.0 or SMALLEST_SCALE <= largest <= FLOAT32_MAX):
        which = "values as large as" if largest > FLOAT32_MAX else "no value larger than"
        raise ValueError(
            f"Input X has {which} {largest:.2g} in magnitude: this neighbour search keeps the rows in "
            f"float32, which holds values from about 1e-38 to {FLOAT32_MAX:.2g}; rescale the data, e.g. divide it "
            "by its largest absolute value."
        )


def _largest_magnitude(X):
    """The largest finite magnitude among the values of a float array or sparse matrix
    (None for other arrays: tables, strings, empty)."""
    import scipy.sparse as sp

    values = X.data if sp.issparse(X) else X
    if not isinstance(values, np.ndarray) or values.dtype.kind != "f" or values.size == 0 or X.ndim != 2:
        return None
    lo, hi = float(values.min()), float(values.max())  # NaN propagates: two reductions, no copy
    if not (np.isfinite(lo) and np.isfinite(hi)):  # gaps (Gower's rows) or infinities: the finite values
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    return max(abs(lo), abs(hi))


def _largest_value(metric, metric_params, n_features):
    """The largest magnitude a value may have for every distance between two rows of
    ``n_features`` to stay below float32's largest: a p-norm of differences up to twice
    the value is at most ``2 * value * n_features ** (1 / p)``."""
    if metric == "precomputed":  # the values are the distances
        return FLOAT32_MAX
    if metric == "sqeuclidean":
        return np.sqrt(FLOAT32_MAX / (4.0 * n_features))
    p = SCALED_METRICS[metric] or float((metric_params or {}).get("p", 2.0))
    return FLOAT32_MAX / (2.0 * n_features ** (1.0 / p))
