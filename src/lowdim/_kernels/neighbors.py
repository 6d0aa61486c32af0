"""k-nearest-neighbour selection kernels (parallel over query rows)."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def smallest_k(D, k, skip, out_idx, out_dist):
    """Per row of the distance block ``D``: the ``k`` smallest entries in increasing
    order (ties by column index), leaving out column ``skip[r]`` (-1: none).

    An insertion list of length k per row: O(n) when most entries exceed the current
    k-th smallest, which is the common case.
    """
    n_rows, n = D.shape
    for r in prange(n_rows):
        row = D[r]
        idx = out_idx[r]
        dist = out_dist[r]
        filled = 0
        for j in range(n):
            if j == skip[r]:
                continue
            v = row[j]
            if filled == k and v >= dist[k - 1]:
                continue
            pos = filled if filled < k else k - 1
            while pos > 0 and dist[pos - 1] > v:
                if pos < k:
                    dist[pos] = dist[pos - 1]
                    idx[pos] = idx[pos - 1]
                pos -= 1
            dist[pos] = v
            idx[pos] = j
            if filled < k:
                filled += 1


@njit(cache=True, parallel=True)
def merge_smallest_sq(G, q_sq, y_sq, col0, skip, out_idx, out_dist):
    """Merge a block of candidates into running k-smallest lists (``out_dist`` starts
    at +inf): candidate ``(r, c)`` has squared distance ``q_sq[r] + y_sq[c] - 2 G[r, c]``
    (clipped at 0) and index ``col0 + c``; column ``skip[r]`` is left out. Blocks must
    arrive in increasing column order for ties to go to the lower index."""
    n_rows, n_cols = G.shape
    k = out_idx.shape[1]
    for r in prange(n_rows):
        idx = out_idx[r]
        dist = out_dist[r]
        base = q_sq[r]
        for c in range(n_cols):
            j = col0 + c
            if j == skip[r]:
                continue
            v = base + y_sq[c] - 2.0 * G[r, c]
            if v < 0.0:
                v = 0.0
            if v >= dist[k - 1]:
                continue
            pos = k - 1
            while pos > 0 and dist[pos - 1] > v:
                dist[pos] = dist[pos - 1]
                idx[pos] = idx[pos - 1]
                pos -= 1
            dist[pos] = v
            idx[pos] = j


@njit(cache=True, parallel=True)
def pair_sq_distances(Q, data, offset, rows, cols, out):
    """``out[p] = |Q[rows[p]] - offset - data[cols[p]]|^2`` summed in float64 from the
    differences (exact where a GEMM expansion cancels)."""
    d = Q.shape[1]
    for p in prange(rows.shape[0]):
        q, j = rows[p], cols[p]
        acc = 0.0
        for a in range(d):
            diff = (np.float64(Q[q, a]) - np.float64(offset[a])) - np.float64(data[j, a])
            acc += diff * diff
        out[p] = acc
