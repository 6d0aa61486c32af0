"""Hamerly's bounds for a 2-means over CSR rows (every split of bisecting k-means): a
row whose bound on its own centre's distance stays below the bound on the other's (or
below half the distance between the centres) keeps its side without a read of its
entries; a row in doubt gets both distances in one read. The rows that change side are
listed, so that the halves' sums move by those rows alone."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def two_means_rows(indptr, indices, data, x_sq, x_norm, centers_t, c_sq, c_norm, shift, half, slack, state, lo, hi):
    """Rows lo..hi of ``state = (labels, upper, lower, moved)``: each row's bounds moved
    by the centres' ``shift``, then, for a row in doubt, both squared distances (in
    float64, by the expansion ``|x|^2 - 2 x.c + |c|^2``; the first smallest wins, as
    Lloyd's step) and exact bounds. ``slack * (|x| + |c|)`` covers the expansion's
    rounding in a distance. The rows that change side go to ``moved[lo:lo + count]``.

    Returns
    -------
    (lo, count)
    """
    labels, upper, lower, moved = state
    count = 0
    for i in range(lo, hi):
        a = labels[i]
        u = upper[i] + shift[a]
        low = lower[i] - shift[1 - a]
        margin = 2.0 * slack * (x_norm[i] + c_norm)
        if u + margin <= max(half, low):
            upper[i], lower[i] = u, low
            continue
        dot0, dot1 = 0.0, 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            j = indices[p]
            dot0 += v * centers_t[j, 0]
            dot1 += v * centers_t[j, 1]
        d0 = max(x_sq[i] - 2.0 * dot0 + c_sq[0], 0.0)
        d1 = max(x_sq[i] - 2.0 * dot1 + c_sq[1], 0.0)
        b = 1 if d1 < d0 else 0
        upper[i] = np.sqrt(d1 if b else d0)
        lower[i] = np.sqrt(d0 if b else d1)
        if b != a:
            labels[i] = b
            moved[lo + count] = i
            count += 1
    return lo, count


@njit(cache=True, nogil=True)
def move_rows(indptr, indices, data, weights, labels, rows, sums):
    """Each listed row's weighted entries taken from the half it left and added to the
    half it joined (its label now), rows in the listed order."""
    for i in rows:
        b = labels[i]
        w = weights[i]
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p]) * w
            sums[1 - b, indices[p]] -= v
            sums[b, indices[p]] += v
