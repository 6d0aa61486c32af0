"""Supervised UMAP with a discrete target (umap-learn's 'ordinal', 'count' and 'string'
target metrics): every edge of the data's graph is weakened by ``exp(-scale d)``, ``d``
the targets' distance of its two ends, scaled as umap-learn scales it so that the
farthest targets are about 2 apart (1 for strings), and ``scale = 2.5 / (1 -
target_weight)`` as for class labels; then each point's connectivity is reset. No
neighbour search runs on the target: the data's edges are the ones reweighted."""

import numpy as np
from scipy.special import gammaln

DISCRETE_TARGETS = ("ordinal", "count", "string")


def discrete_edge_distances(metric, y, rows, cols):
    """The scaled target distance of each edge ``(rows[e], cols[e])``.

    Parameters
    ----------
    metric : {'ordinal', 'count', 'string'}
        'ordinal': ordered levels, ``|y_i - y_j|`` over half the levels' range.
        'count': non-negative integers, the sum of the Poisson log-probabilities (rate:
        the counts' mean) of the counts from the lower up to the higher, over half that
        sum for the smallest and largest counts (umap-learn's measure; its factorials
        below 10 are off by one, these are not). 'string': the edit (Levenshtein)
        distance, capped at a third of the longest string and divided by that cap.
    y : ndarray (n,)
    rows, cols : ndarray of int
        The edges' ends.

    Returns
    -------
    ndarray (n_edges,) of float64, at least 0

    Examples
    --------
    >>> discrete_edge_distances("ordinal", np.array([0, 1, 4]), np.array([0, 0]), np.array([1, 2])).tolist()
    [0.5, 2.0]
    >>> d = discrete_edge_distances("string", np.array(["cat", "cart", "dog"]), np.array([0, 0]), np.array([1, 2]))
    >>> d.tolist()  # cap: 4 / 3 edits
    [0.75, 1.0]
    """
    if metric == "ordinal":
        y = _numeric(y, metric)
        half_range = (y.max() - y.min()) / 2.0
        return np.abs(y[rows] - y[cols]) / (half_range if half_range > 0 else 1.0)
    if metric == "count":
        return _count_distances(_numeric(y, metric), rows, cols)
    return _string_distances(np.asarray(y).astype(str), rows, cols)


def _numeric(y, metric):
    """``y`` as float64, refused with the reason when it is not numbers."""
    try:
        values = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        dtype = np.asarray(y).dtype
        raise ValueError(f"target_metric={metric!r} needs numeric targets; got y of dtype {dtype}.") from None
    if not np.isfinite(values).all():
        raise ValueError(f"target_metric={metric!r} needs finite targets; y holds NaN or infinity.")
    return values


def _count_distances(y, rows, cols):
    """Poisson distances of counts through a running sum of log-probabilities over the
    counts' range (one table entry a count, so a pair costs O(1))."""
    counts = y.astype(np.int64)
    bad = np.flatnonzero((counts != y) | (counts < 0))
    if bad.size:
        raise ValueError(
            f"target_metric='count' needs non-negative whole counts; y[{bad[0]}] = {float(y[bad[0]])!r}. "
            "Round the counts, or use target_metric='ordinal' or a metric name."
        )
    low, rate = int(counts.min()), float(counts.mean())
    k = np.arange(low, int(counts.max()) + 1, dtype=np.float64)
    log_pmf = k * np.log(rate) - rate - gammaln(k + 1.0) if rate > 0 else np.where(k == 0, 0.0, -np.inf)
    below = np.concatenate([[0.0], np.cumsum(log_pmf)])  # below[i]: sum of log_pmf over counts low .. low+i-1
    lo, hi = np.minimum(counts[rows], counts[cols]) - low, np.maximum(counts[rows], counts[cols]) - low
    half_span = (below[-2] - below[0]) / 2.0  # the smallest and largest counts'
    return (below[hi] - below[lo]) / half_span if half_span < 0 else np.zeros(rows.size)


def _string_distances(strings, rows, cols):
    """Capped edit distances of the edges' strings, from their code points."""
    from .._kernels.edit_distance import capped_edit_distances

    lengths = np.char.str_len(strings).astype(np.int64)
    width = max(int(lengths.max(initial=0)), 1)
    codes = np.ascontiguousarray(strings.astype(f"<U{width}")).view(np.uint32).reshape(strings.size, width)
    cap = width / 3.0
    out = np.empty(rows.size)
    capped_edit_distances(codes, lengths, np.asarray(rows, np.int64), np.asarray(cols, np.int64), cap, out)
    return out / cap
