"""Edit (Levenshtein) distances of pairs of strings given as rows of code points,
capped: a pair stops being worked on once every alignment costs at least the cap."""

import numpy as np
from numba import njit, prange

PAIRS_PER_TASK = 4096  # pairs per parallel task (each allocates its two rows of the table once)


@njit(cache=True)
def _capped_edit(a, la, b, lb, cap, previous, current):
    """min(edit distance of ``a[:la]`` and ``b[:lb]``, cap), two rows of the dynamic
    programme in the scratch vectors (length >= lb + 1)."""
    if abs(la - lb) >= cap:
        return cap
    for j in range(lb + 1):
        previous[j] = j
    for i in range(la):
        current[0] = i + 1
        best = current[0]
        for j in range(lb):
            cost = previous[j] + (1.0 if a[i] != b[j] else 0.0)
            cost = min(cost, previous[j + 1] + 1.0, current[j] + 1.0)
            current[j + 1] = cost
            best = min(best, cost)
        if best >= cap:  # each row's minimum never falls further down the table
            return cap
        previous, current = current, previous
    return min(previous[lb], cap)


@njit(cache=True, parallel=True)
def capped_edit_distances(codes, lengths, rows, cols, cap, out):
    """``out[p]`` = min(edit distance of strings ``rows[p]`` and ``cols[p]``, cap);
    string ``i`` is ``codes[i, :lengths[i]]``.

    Examples
    --------
    >>> codes = np.array([[107, 105, 116, 116, 101, 110], [115, 105, 116, 116, 105, 110]], dtype=np.uint32)
    >>> out = np.empty(1)
    >>> capped_edit_distances(codes, np.array([6, 6]), np.array([0]), np.array([1]), 10.0, out)
    >>> out.tolist()  # kitten -> sittin: two substitutions
    [2.0]
    """
    width = codes.shape[1] + 1
    n_tasks = (rows.shape[0] + PAIRS_PER_TASK - 1) // PAIRS_PER_TASK
    for task in prange(n_tasks):
        previous, current = np.empty(width), np.empty(width)
        for p in range(task * PAIRS_PER_TASK, min(rows.shape[0], (task + 1) * PAIRS_PER_TASK)):
            i, j = rows[p], cols[p]
            out[p] = _capped_edit(codes[i], lengths[i], codes[j], lengths[j], cap, previous, current)
