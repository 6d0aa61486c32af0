"""Gower's distance for tables of mixed columns (numbers, ordered and unordered
categories, gaps): the column description it needs, and an exact kNN index over it."""

import numpy as np

from .._validation import check_array
from ._pairwise import PairwiseIndex, blocked_query, check_metric_params


def _column_list(name, value, n_features):
    """Sorted 0-based column numbers of ``value`` (ints), each in range."""
    columns = sorted({int(c) for c in (value or ())})
    bad = [c for c in columns if not 0 <= c < n_features]
    if bad:
        raise ValueError(
            f"metric_params[{name!r}] names column {bad[0]}, but the data have {n_features} columns "
            f"(0 to {n_features - 1})."
        )
    return columns


def gower_columns(metric_params, n_features):
    """What Gower's distance needs to know of each column, from ``metric_params``.

    Parameters
    ----------
    metric_params : dict or None
        'categorical': column numbers holding category codes (compared equal or not);
        'ordinal': column numbers holding ordered codes or ranks (compared as numbers on
        their range, as Gower's and Kaufman and Rousseeuw's ranks); 'weights': one
        non-negative weight per column (default 1). Other columns are numbers.
    n_features : int

    Returns
    -------
    categorical : ndarray of bool (n_features,)
    weights : ndarray of float64 (n_features,)

    Examples
    --------
    >>> cat, w = gower_columns({"categorical": [1]}, 3)
    >>> cat.tolist(), w.tolist()
    ([False, True, False], [1.0, 1.0, 1.0])
    """
    params = check_metric_params("gower", metric_params)
    categorical = np.zeros(n_features, dtype=bool)
    categorical[_column_list("categorical", params.get("categorical"), n_features)] = True
    ordinal = _column_list("ordinal", params.get("ordinal"), n_features)
    both = [c for c in ordinal if categorical[c]]
    if both:
        raise ValueError(f"column {both[0]} is listed both as categorical and as ordinal in metric_params; keep one.")
    weights = params.get("weights")
    weights = np.ones(n_features) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_features,) or not np.all(np.isfinite(weights)) or weights.min() < 0 or weights.sum() <= 0:
        raise ValueError(
            f"metric_params['weights'] must hold {n_features} finite non-negative weights, not all zero; "
            f"got {params.get('weights')!r}."
        )
    return categorical, weights


def column_ranges(X, categorical):
    """One over each non-categorical column's range of observed values (0 where the
    column is constant or empty: it then adds nothing), the scale Gower's distance uses."""
    with np.errstate(all="ignore"):
        present = ~np.all(np.isnan(X), axis=0)
        span = np.where(present, np.nanmax(np.where(present, X, 0.0), axis=0), 0.0) - np.where(
            present, np.nanmin(np.where(present, X, 0.0), axis=0), 0.0
        )
    scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 0.0)
    scale[categorical] = 0.0
    return scale


class GowerIndex(PairwiseIndex):
    """Exact kNN index for Gower's distance on mixed rows, in row blocks.

    The data are numbers: category codes in the ``categorical`` columns, ordered codes or
    ranks in the ``ordinal`` ones, NaN for a missing cell (``lowdim.preprocessing.mixed_codes``
    makes such a table from a DataFrame or text columns). A pair's distance is the
    weighted mean over the columns both rows have of: 0/1 for categories that agree or
    not, the absolute difference over the column's range (of the indexed rows) for numbers
    and ranks, as in Gower (1971). A pair with no column in common has no distance: it is
    never a neighbour.

    Parameters
    ----------
    metric : 'gower'
    metric_params : dict or None
        'categorical', 'ordinal', 'weights' (see ``gower_columns``).
    block_bytes : int, default=64 MiB

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [1.5, 1.0], [np.nan, 1.0]])
    >>> index = GowerIndex("gower", {"categorical": [1]}).build(X)
    >>> index.pairwise(X[:1]).round(3).tolist()
    [[0.0, 0.5, 0.75, 1.0]]
    """

    metrics = ("gower",)

    def __init__(self, metric="gower", metric_params=None, block_bytes=64 << 20):
        if metric != "gower":
            raise ValueError(f"GowerIndex computes metric 'gower'; got {metric!r}.")
        self.metric = metric
        self.metric_params = check_metric_params("gower", metric_params)
        self.block_bytes = block_bytes

    def _build(self, X):
        """Index the rows of ``X`` (NaN marks a missing cell); the numeric ranges come from them."""
        X = check_array(X, estimator_name="GowerIndex", allow_nan=True)
        self._data = np.array(X, dtype=np.float64)
        self._categorical, self._weights = gower_columns(self.metric_params, X.shape[1])
        self._scale = column_ranges(self._data, self._categorical)
        self._check_comparable(self._data)

    def _check_comparable(self, X):
        """A row with every cell missing has no distance to anything: say which."""
        empty = np.flatnonzero(np.all(np.isnan(X) | (self._weights == 0), axis=1))
        if empty.size:
            raise ValueError(
                f"row {int(empty[0])} has no value in any weighted column ({empty.size} such row(s)); "
                "Gower's distance compares the cells two rows both have: drop these rows."
            )

    def _checked(self, Q):
        Q = check_array(Q, estimator_name="GowerIndex", allow_nan=True)
        if Q.shape[1] != self._data.shape[1]:
            raise ValueError(f"query has {Q.shape[1]} features, but the index has {self._data.shape[1]}.")
        return np.ascontiguousarray(Q, dtype=np.float64)

    def pairwise(self, Q):
        """All Gower distances from the rows of ``Q`` to the indexed rows, (m, n) float64;
        NaN where a pair has no column in common."""
        from .._kernels.gower import gower_block

        Q = self._checked(Q)
        out = np.empty((Q.shape[0], self._data.shape[0]))
        gower_block(Q, self._data, self._categorical, self._scale, self._weights, out)
        return out

    def _block_distances(self, Qb):
        out = self.pairwise(Qb)
        out[np.isnan(out)] = np.inf  # no column in common: never a neighbour
        return out

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed rows of each row of ``Q`` by Gower's distance.

        Parameters
        ----------
        Q : array-like (m, d)
            Coded like the indexed rows; NaN for missing cells.
        k : int
        exclude_self : bool, default=False
            ``Q`` is the indexed data: a row is not its own neighbour.

        Returns
        -------
        distances : ndarray (m, k)
        indices : ndarray of int64 (m, k)
        """
        Q = self._checked(Q)
        self._check_comparable(Q)
        return blocked_query(self, Q, k, exclude_self)
