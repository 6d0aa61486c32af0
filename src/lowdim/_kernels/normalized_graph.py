"""The values of ``D^-1/2 A D^-1/2`` for a CSR affinity ``A``, self-loops dropped (a
Laplacian eigenmap) or kept (a diffusion map's lazy walk), in one float64 array beside
``A``'s own (no row-index array, no scaled copies): what the eigenmap of a graph of
millions of points can afford."""

import numpy as np
from numba import njit

from .._threads import LIGHT_ROWS, in_row_ranges

# entries up to which numpy computes the values (a row-index array, a few copies): the
# same sums and products, without two kernels to compile on a first call
SMALL_GRAPH = 1 << 22


# serial kernels without the GIL over rows lo..hi, split by in_row_ranges (a prange
# loop would compile for most of a second longer on a first call)
@njit(cache=True, nogil=True)
def _degrees(indptr, indices, data, keep_diagonal, degree, lo, hi):
    for i in range(lo, hi):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            if keep_diagonal or indices[p] != i:
                total += data[p]
        degree[i] = total


@njit(cache=True, nogil=True)
def _scaled(indptr, indices, data, scale, keep_diagonal, out, lo, hi):
    for i in range(lo, hi):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            out[p] = 0.0 if j == i and not keep_diagonal else scale[i] * data[p] * scale[j]


def normalized_values(indptr, indices, data, keep_diagonal=False):
    """``(values, scale)``: the entries of ``D^-1/2 A D^-1/2`` in ``A``'s CSR order and
    ``D^-1/2``; unless ``keep_diagonal``, the diagonal is zero and the degrees do not
    count it.

    Examples
    --------
    >>> values, scale = normalized_values(np.array([0, 2, 3]), np.array([0, 1, 0]), np.array([5.0, 4.0, 4.0]))
    >>> values.tolist(), scale.tolist()
    ([0.0, 1.0, 1.0], [0.5, 0.5])
    """
    n = indptr.size - 1
    if data.size <= SMALL_GRAPH:
        return _small_normalized_values(indptr, indices, data, keep_diagonal)
    degree = np.empty(n)
    in_row_ranges(
        "graph", 0, n, lambda a, b: _degrees(indptr, indices, data, keep_diagonal, degree, a, b), min_size=LIGHT_ROWS
    )
    scale = 1.0 / np.sqrt(np.maximum(degree, np.finfo(np.float64).tiny))
    out = np.empty(data.size)
    in_row_ranges(
        "graph", 0, n, lambda a, b: _scaled(indptr, indices, data, scale, keep_diagonal, out, a, b), min_size=LIGHT_ROWS
    )
    return out, scale


def _small_normalized_values(indptr, indices, data, keep_diagonal):
    """``normalized_values`` by numpy: each row's degree summed in its entries' order (a
    dropped diagonal adds zero), as the kernels sum it, so the values are the same."""
    n = indptr.size - 1
    rows = np.repeat(np.arange(n), np.diff(indptr))
    loops = np.zeros(data.size, dtype=bool) if keep_diagonal else indices == rows
    degree = np.bincount(rows, weights=np.where(loops, 0.0, data), minlength=n)
    scale = 1.0 / np.sqrt(np.maximum(degree, np.finfo(np.float64).tiny))
    return np.where(loops, 0.0, scale[rows] * data * scale[indices]), scale
