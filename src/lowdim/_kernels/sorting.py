"""Small in-place sorts for use inside kernels.

numba compiles its own ``np.sort`` / ``np.argsort`` (quicksort or mergesort) anew in
every kernel that calls them, a large share of such a kernel's first-call compile
(BENCHMARKS.md, Cold start), for rows that hold tens of entries. These are a few
dozen lines each: insertion sort for short runs, heapsort beyond (no extra memory,
O(m log m) for long rows such as a graph's hubs). Ties in the key are ordered by the
carried value, so the result does not depend on the input's order.
"""

import numpy as np
from numba import njit

SHORT = 16  # runs up to this length: insertion sort (fewer moves than a heap)


@njit(cache=True)
def _before(keys, values, i, j):
    """Whether entry ``i`` sorts before entry ``j``: key first, then the carried value."""
    if keys[i] != keys[j]:
        return keys[i] < keys[j]
    if values is None:
        return False
    return values[i] < values[j]


@njit(cache=True)
def _swap(keys, values, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    if values is not None:
        values[i], values[j] = values[j], values[i]


@njit(cache=True)
def _sift_down(keys, values, start, size):
    """Restore the max-heap below ``start`` in the first ``size`` entries."""
    root = start
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and _before(keys, values, child, child + 1):
            child += 1
        if not _before(keys, values, root, child):
            return
        _swap(keys, values, root, child)
        root = child


@njit(cache=True, inline="always")
def insertion_sort_pairs(keys, values):
    """Sort ``keys`` ascending in place by insertion, moving ``values`` alike; ties in
    the key by value (``sort_pairs``'s order, whose short runs take the same steps
    through its compiled helpers, which also serve the heap and keys alone). Inlined
    into its caller with nothing else to compile: for a few entries in a kernel a first
    call waits on (the rank kernel of the scores).

    Examples
    --------
    >>> keys, values = np.array([3.0, 1.0, 3.0]), np.array([2, 0, 1])
    >>> insertion_sort_pairs(keys, values)
    >>> keys.tolist(), values.tolist()
    ([1.0, 3.0, 3.0], [0, 1, 2])
    """
    for q in range(1, keys.shape[0]):
        key, value, p = keys[q], values[q], q
        while p > 0 and (keys[p - 1] > key or (keys[p - 1] == key and values[p - 1] > value)):
            keys[p], values[p] = keys[p - 1], values[p - 1]
            p -= 1
        keys[p], values[p] = key, value


@njit(cache=True)
def sort_pairs(keys, values=None):
    """Sort ``keys`` ascending in place, moving ``values`` (same length) alike; ties
    in the key by value. ``values=None``: the keys alone.

    Examples
    --------
    >>> import numpy as np
    >>> keys, values = np.array([3, 1, 3, 2]), np.array([0.5, 0.1, 0.2, 0.9])
    >>> sort_pairs(keys, values)
    >>> keys.tolist(), values.tolist()
    ([1, 2, 3, 3], [0.1, 0.9, 0.2, 0.5])
    """
    m = keys.shape[0]
    if m <= SHORT:
        for i in range(1, m):
            j = i
            while j > 0 and _before(keys, values, j, j - 1):
                _swap(keys, values, j, j - 1)
                j -= 1
        return
    for start in range(m // 2 - 1, -1, -1):
        _sift_down(keys, values, start, m)
    top = np.int64(0)  # a literal 0 would compile both helpers a second time for it
    for end in range(m - 1, 0, -1):
        _swap(keys, values, top, end)
        _sift_down(keys, values, top, end)
