"""The values of ``D^-1/2 A D^-1/2`` for a CSR affinity ``A``, self-loops dropped (a
Laplacian eigenmap) or kept (a diffusion map's lazy walk), in one float64 array beside
``A``'s own (no row-index array, no scaled copies): what the eigenmap of a graph of
millions of points can afford."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def _degrees(indptr, indices, data, keep_diagonal):
    n = indptr.size - 1
    degree = np.zeros(n)
    for i in prange(n):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            if keep_diagonal or indices[p] != i:
                total += data[p]
        degree[i] = total
    return degree


@njit(cache=True, parallel=True)
def _scaled(indptr, indices, data, scale, keep_diagonal, out):
    for i in prange(indptr.size - 1):
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
    degree = _degrees(indptr, indices, data, keep_diagonal)
    scale = 1.0 / np.sqrt(np.maximum(degree, np.finfo(np.float64).tiny))
    out = np.empty(data.size)
    _scaled(indptr, indices, data, scale, keep_diagonal, out)
    return out, scale
