"""The values of ``D^-1/2 A D^-1/2`` for a CSR affinity ``A``, self-loops dropped, in one
float64 array beside ``A``'s own (no row-index array, no scaled copies): what the
Laplacian eigenmap of a graph of millions of points can afford."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def _degrees(indptr, indices, data):
    n = indptr.size - 1
    degree = np.zeros(n)
    for i in prange(n):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] != i:
                total += data[p]
        degree[i] = total
    return degree


@njit(cache=True, parallel=True)
def _scaled(indptr, indices, data, scale, out):
    for i in prange(indptr.size - 1):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            out[p] = 0.0 if j == i else scale[i] * data[p] * scale[j]


def normalized_values(indptr, indices, data):
    """``(values, scale)``: the entries of ``D^-1/2 A D^-1/2`` in ``A``'s CSR order (its
    diagonal zero, its degrees not counting it) and ``D^-1/2``.

    Examples
    --------
    >>> values, scale = normalized_values(np.array([0, 2, 3]), np.array([0, 1, 0]), np.array([5.0, 4.0, 4.0]))
    >>> values.tolist(), scale.tolist()
    ([0.0, 1.0, 1.0], [0.5, 0.5])
    """
    degree = _degrees(indptr, indices, data)
    scale = 1.0 / np.sqrt(np.maximum(degree, np.finfo(np.float64).tiny))
    out = np.empty(data.size)
    _scaled(indptr, indices, data, scale, out)
    return out, scale
