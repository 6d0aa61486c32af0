"""One Lloyd step of k-means over CSR rows, from their stored entries: each row's
products with the k centres, its nearest centre, and the weighted sums of each cluster's
rows. The same arithmetic, in the same order, as the library path it replaces
(``sq_euclidean`` of a sparse block and the centres, the first smallest distance, and
``group_row_sums``), so labels, distances and sums are the same to the bit; one pass over
the entries for the assignment instead of a product, a k-column temporary and an argmin,
and one for the sums instead of a membership matrix and its product."""

import numpy as np
from numba import njit

from .._threads import in_row_ranges

ROWS = 1024  # rows a thread takes at least: a row costs its stored entries times k


@njit(cache=True, nogil=True)
def _nearest_rows(indptr, indices, data, x_sq, centers_t, c_sq, minus_two, labels, best, lo, hi):
    """Rows lo..hi: ``x.c`` in the data's type (entries in stored order, as scipy's
    product sums them), then ``x.c * -2 + |x|^2 + |c|^2`` clipped at 0 (``sq_euclidean``'s
    order, all in the data's type: ``minus_two`` is -2 of it), the first smallest."""
    k = c_sq.shape[0]
    dots = np.zeros(k, dtype=data.dtype)
    for i in range(lo, hi):
        dots[:] = 0
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            row = centers_t[indices[p]]
            for c in range(k):
                dots[c] += v * row[c]
        lab, low = 0, np.inf
        for c in range(k):
            d = dots[c] * minus_two + x_sq[i]
            d = d + c_sq[c]
            if d < 0:
                d = d - d  # a zero of the data's type
            if d < low:
                lab, low = c, d
        labels[i] = lab
        best[i] = low


@njit(cache=True, nogil=True)
def _nearest_of_two(indptr, indices, data, x_sq, centers_t, c_sq, minus_two, labels, best, lo, hi):
    """``_nearest_rows`` for two centres (bisecting k-means' every step): the products
    in two scalars, two independent chains of additions, not through memory."""
    zero = minus_two - minus_two  # of the data's type: sums in it, as scipy's
    for i in range(lo, hi):
        dot0, dot1 = zero, zero
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            j = indices[p]
            dot0 += v * centers_t[j, 0]
            dot1 += v * centers_t[j, 1]
        d0 = dot0 * minus_two + x_sq[i]
        d0 = d0 + c_sq[0]
        d1 = dot1 * minus_two + x_sq[i]
        d1 = d1 + c_sq[1]
        d0 = d0 - d0 if d0 < 0 else d0
        d1 = d1 - d1 if d1 < 0 else d1
        labels[i] = 1 if d1 < d0 else 0
        best[i] = d1 if d1 < d0 else d0


@njit(cache=True, nogil=True)
def _cluster_sums(indptr, indices, data, labels, weights, sums, first, end):
    """Clusters ``first..end``: each of their rows' entries times its weight added to
    its cluster's sums, rows in order (as scipy's product of the rows' transpose with the
    membership adds them); clusters split over threads keep that order."""
    for i in range(labels.shape[0]):
        a = labels[i]
        if a < first or a >= end:
            continue
        out = sums[a]
        w = weights[i]
        for p in range(indptr[i], indptr[i + 1]):
            out[indices[p]] += np.float64(data[p]) * w


def lloyd_step(X, centers, x_sq, weights):
    """Nearest centre of every CSR row of ``X`` and the clusters' weighted sums.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix (n, d), float32 or float64, sorted or not
    centers : float64 array (k, d)
    x_sq : float64 array (n,), the rows' squared norms
    weights : float64 array (n,)

    Returns
    -------
    labels : int64 (n,); dist : float64 (n,), squared distance to the nearest centre;
    sums : float64 (k, d); wsum : float64 (k,)
    """
    k = centers.shape[0]
    centers_t = np.ascontiguousarray(centers.T, dtype=X.dtype)  # a stored entry reads its k centre values at once
    c_sq = np.einsum("ij,ij->i", centers, centers).astype(X.dtype)
    x_cast = x_sq.astype(X.dtype)
    n = X.shape[0]
    labels, best = np.empty(n, dtype=np.int64), np.empty(n, dtype=X.dtype)
    args = (X.indptr, X.indices, X.data, x_cast, centers_t, c_sq, X.dtype.type(-2), labels, best)
    nearest = _nearest_of_two if k == 2 else _nearest_rows
    in_row_ranges("kmeans", 0, n, lambda a, b: nearest(*args, a, b), min_size=ROWS)
    sums = np.zeros((k, X.shape[1]))
    parts = (X.indptr, X.indices, X.data, labels, weights, sums)
    in_row_ranges("kmeans", 0, k, lambda a, b: _cluster_sums(*parts, a, b), per_thread=1)
    return labels, best.astype(np.float64), sums, np.bincount(labels, weights=weights, minlength=k)
