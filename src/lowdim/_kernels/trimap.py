"""TriMap kernels (Amid & Warmuth 2019): triplet sampling, the distances of sampled
pairs, and the loss gradient over the triplets.

The gradient is accumulated in a fixed number of chunks of the triplets, each into its
own buffer, and the buffers are summed in order: the same sums for any number of
threads.
"""

import numpy as np
from numba import njit

from .._threads import in_row_ranges

EUCLIDEAN, MANHATTAN, ANGULAR, HAMMING = 0, 1, 2, 3
GRADIENT_CHUNKS = 8  # fixed, so that the summation order does not depend on the threads
PARALLEL_FROM = 200_000  # triplets from which the chunks run in parallel
RANGE = 4096  # rows or pairs per range of the sampling passes: fewer stay in the calling thread


@njit(cache=True, inline="always")
def _distance(X, a, b, code):
    s = 0.0
    if code == ANGULAR:
        na, nb = 0.0, 0.0
        for c in range(X.shape[1]):
            s += X[a, c] * X[b, c]
            na += X[a, c] * X[a, c]
            nb += X[b, c] * X[b, c]
        return np.sqrt(max(2.0 - 2.0 * s / max(np.sqrt(na * nb), 1e-30), 0.0))
    for c in range(X.shape[1]):
        t = X[a, c] - X[b, c]
        if code == EUCLIDEAN:
            s += t * t
        elif code == MANHATTAN:
            s += abs(t)
        else:
            s += 1.0 if t != 0.0 else 0.0
    if code == HAMMING:  # the fraction of coordinates that differ, as the neighbour index's
        return s / X.shape[1]
    return np.sqrt(s) if code == EUCLIDEAN else s


def pair_distances(X, a, b, code):
    """Distances between rows ``a[t]`` and ``b[t]`` (0 euclidean, 1 manhattan, 2
    angular: annoy's ``sqrt(2 - 2 cos)``, 3 hamming: the fraction of coordinates that
    differ)."""
    out = np.empty(a.size)
    in_row_ranges("trimap", 0, a.size, lambda lo, hi: _pair_range(X, a, b, code, out, lo, hi), min_size=RANGE)
    return out


@njit(cache=True, nogil=True)
def _pair_range(X, a, b, code, out, lo, hi):
    for t in range(lo, hi):
        out[t] = _distance(X, a[t], b[t], code)


def knn_triplets(neighbours, n_inliers, n_outliers, seed):
    """``(i, j, k)`` for each row ``i``, each of its ``n_inliers`` most similar others
    ``j`` (``neighbours[i, 1:]``, most similar first; column 0 is ``i``) and
    ``n_outliers`` random rows ``k`` outside ``i``'s ``j + 2`` most similar. Each row
    draws from its own seed, so the triplets do not depend on the threads."""
    n = neighbours.shape[0]
    out = np.empty((n * n_inliers * n_outliers, 3), dtype=np.int64)
    rows = lambda lo, hi: _triplet_rows(neighbours, n_inliers, n_outliers, seed, out, lo, hi)  # noqa: E731
    in_row_ranges("trimap", 0, n, rows, min_size=RANGE)
    return out


@njit(cache=True, nogil=True)
def _triplet_rows(neighbours, n_inliers, n_outliers, seed, out, lo, hi):
    """``knn_triplets`` of the rows ``lo..hi`` (numba's random state is per thread)."""
    n = neighbours.shape[0]
    for i in range(lo, hi):
        np.random.seed(seed + i)
        for j in range(n_inliers):
            base = (i * n_inliers + j) * n_outliers
            for k in range(n_outliers):
                while True:
                    candidate = np.random.randint(0, n)
                    taken = False
                    for r in range(j + 2):
                        if neighbours[i, r] == candidate:
                            taken = True
                            break
                    if not taken:
                        break
                out[base + k, 0] = i
                out[base + k, 1] = neighbours[i, j + 1]
                out[base + k, 2] = candidate


@njit(cache=True, inline="always")
def _chunk_gradient(Y, triplets, weights, n_knn, n_shared, g, start, stop):
    """Half the gradient of triplets ``start:stop`` into ``g``; their loss and violations."""
    dim = Y.shape[1]
    g[:] = 0.0
    loss, violated, d_ij = 0.0, 0.0, 1.0
    for t in range(start, stop):
        i, j, k = triplets[t, 0], triplets[t, 1], triplets[t, 2]
        if t == start or t >= n_knn or t % n_shared == 0:
            d_ij = 1.0
            for a in range(dim):
                d_ij += (Y[i, a] - Y[j, a]) ** 2
        d_ik = 1.0
        for a in range(dim):
            d_ik += (Y[i, a] - Y[k, a]) ** 2
        if d_ij > d_ik:
            violated += 1.0
        loss += weights[t] / (1.0 + d_ik / d_ij)
        w = weights[t] / (d_ij + d_ik) ** 2
        for a in range(dim):
            near = (Y[i, a] - Y[j, a]) * d_ik * w
            far = (Y[i, a] - Y[k, a]) * d_ij * w
            g[i, a] += near - far
            g[j, a] -= near
            g[k, a] += far
    return loss, violated


@njit(cache=True, nogil=True)
def _gradient_chunks(Y, triplets, weights, n_knn, n_shared, buffers, losses, violations, lo, hi):
    """Chunks ``lo..hi`` of the triplets, each into its own buffer."""
    chunks, m = buffers.shape[0], triplets.shape[0]
    width = (m + chunks - 1) // chunks
    for c in range(lo, hi):
        stop = min(m, (c + 1) * width)
        losses[c], violations[c] = _chunk_gradient(Y, triplets, weights, n_knn, n_shared, buffers[c], c * width, stop)


def triplet_gradient(Y, triplets, weights, n_knn, n_shared, buffers):
    """The TriMap loss ``sum_t w_t / (1 + d_ik / d_ij)`` (``d = 1 + squared distance``)
    and half its gradient with respect to ``Y`` (the trimap package's scale, for which
    its learning rate is set), summed into ``buffers[0]``; returns ``(loss,
    violated)``, violated counting triplets whose far point is nearer. The first
    ``n_knn`` triplets come in runs of ``n_shared`` with the same near pair (a point,
    one of its neighbours, that many far points), whose distance is computed once per
    run. Below PARALLEL_FROM triplets the chunks run in one thread (the same sums: a
    parallel region costs more than such a pass)."""
    chunks = buffers.shape[0]
    losses, violations = np.zeros(chunks), np.zeros(chunks)
    args = (Y, triplets, weights, n_knn, n_shared, buffers, losses, violations)
    if triplets.shape[0] >= PARALLEL_FROM:
        in_row_ranges("trimap", 0, chunks, lambda lo, hi: _gradient_chunks(*args, lo, hi))
    else:
        _gradient_chunks(*args, 0, chunks)
    for c in range(1, chunks):
        buffers[0] += buffers[c]
    return losses.sum(), violations.sum()
