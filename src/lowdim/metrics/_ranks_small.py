"""The rank kernel of the rank-based scores (``_kernels.neighbors.rank_excess``) in
numpy, for small tables: a first ``trustworthiness`` of a few thousand points does not
wait for the kernel's compilation. The same ranks: every comparison the kernel decides
on exact distances (summed in float64 from the differences, feature by feature) is
decided on the same sums here.
"""

import numpy as np

SMALL_RANKS = 1 << 19  # query rows x points ranked by numpy (teaching tables: about 700 points) below the kernel


def rank_excess_small(D, bound, queries, data, targets, skip, k):
    """Per row of the block ``D``: the sum over its ``targets`` of ``max(0, rank - k)``,
    as ``rank_excess`` (its parameters).

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 4.0, 9.0]])
    >>> rank_excess_small(D, np.zeros(1), np.empty((0, 1)), D[:0], np.array([[3]]), np.array([0]), 1).tolist()
    [2.0]
    """
    V = np.array(D, dtype=np.float64)
    rows = np.arange(V.shape[0])
    V[rows, skip] = np.nan  # left out: no comparison holds
    if queries.shape[0]:
        t = _strict_sq(np.repeat(queries, targets.shape[1], axis=0), data[targets.ravel()]).reshape(targets.shape)
        _exact_where_blurred(V, t, bound, queries, data)
    else:
        t = V[rows[:, None], targets]
    columns = np.arange(V.shape[1])
    total = np.zeros(V.shape[0])
    for q in range(targets.shape[1]):
        at = t[:, q, None]
        rank = 1 + np.sum(V < at, axis=1) + np.sum((V == at) & (columns < targets[:, q, None]), axis=1)
        total += np.maximum(rank - k, 0)
    return total


def _exact_where_blurred(V, t, bound, queries, data):
    """Replace, in place, the expansion's values that lie within its error of a
    target's exact distance (``rank_excess``'s slack) by exact distances."""
    rel = (data.shape[1] + 4) * np.finfo(np.float64).eps  # the float64 sums' own rounding
    with np.errstate(invalid="ignore"):
        slack = bound[:, None] + V * rel
        blurred = np.zeros(V.shape, dtype=bool)
        for q in range(t.shape[1]):
            blurred |= (V - slack <= t[:, q, None]) & (t[:, q, None] <= V + slack)
    r, c = np.nonzero(blurred)
    V[r, c] = _strict_sq(queries[r], data[c])


def _strict_sq(a, b):
    """Row-wise ``|a - b|^2``, summed in float64 feature after feature (the kernels'
    ``strict_sq_distance``, to the bit)."""
    total = np.zeros(a.shape[0])
    for f in range(a.shape[1]):
        diff = a[:, f].astype(np.float64) - b[:, f].astype(np.float64)
        total += diff * diff
    return total
