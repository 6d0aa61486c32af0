"""PaCMAP's kernels (Wang, Huang, Rudin & Shaposhnik, JMLR 2021): the pair losses'
gradient, Adam steps, and the distance work of choosing mid-near and further pairs.

Every pair (i, j) pulls or pushes both ends with a force that depends on
``d = 1 + |y_i - y_j|^2``: near pairs ``w d / (10 + d)``, mid-near pairs
``w d / (10000 + d)``, further pairs ``w / (1 + d)``. The gradient is summed in a fixed
number of row chunks, each into its own buffer, and the buffers are added in order: the
result does not depend on the number of threads.
"""

import numpy as np
from numba import njit, prange

CHUNKS = 8  # gradient buffers; any thread count gives the same sums


@njit(cache=True, inline="always")
def _force(kind, weight, d):
    """d(loss)/d(y_i) divided by (y_i - y_j), for d = 1 + |y_i - y_j|^2."""
    if kind == 0:  # near: w d / (10 + d)
        return weight * 20.0 / ((10.0 + d) * (10.0 + d))
    if kind == 1:  # mid-near: w d / (10000 + d)
        return weight * 20000.0 / ((10000.0 + d) * (10000.0 + d))
    return -weight * 2.0 / ((1.0 + d) * (1.0 + d))  # further: w / (1 + d)


@njit(cache=True, inline="always")
def _pull(Y, G, i, j, kind, weight):
    dim = Y.shape[1]
    d = 1.0
    for c in range(dim):
        diff = Y[i, c] - Y[j, c]
        d += diff * diff
    s = _force(kind, weight, d)
    for c in range(dim):
        g = s * (Y[i, c] - Y[j, c])
        G[i, c] += g
        G[j, c] -= g


@njit(cache=True, parallel=True)
def pair_gradient(Y, near, mid, far, w_near, w_mid, w_far, buffers, out):
    """The gradient of the three pair losses at ``Y`` into ``out`` (n, dim).

    ``near``, ``mid``, ``far``: (n, k) int32 partners of each row (-1: none);
    ``buffers``: (CHUNKS, n, dim) scratch of ``Y``'s dtype.
    """
    n = Y.shape[0]
    chunks = buffers.shape[0]
    for t in prange(chunks):
        G = buffers[t]
        G[:] = 0.0
        for i in range(t * n // chunks, (t + 1) * n // chunks):
            for a in range(near.shape[1]):
                if near[i, a] >= 0:
                    _pull(Y, G, i, near[i, a], 0, w_near)
            if w_mid > 0.0:
                for a in range(mid.shape[1]):
                    if mid[i, a] >= 0:
                        _pull(Y, G, i, mid[i, a], 1, w_mid)
            for a in range(far.shape[1]):
                if far[i, a] >= 0:
                    _pull(Y, G, i, far[i, a], 2, w_far)
    for i in prange(n):
        for c in range(Y.shape[1]):
            s = 0.0
            for t in range(chunks):
                s += buffers[t, i, c]
            out[i, c] = s


@njit(cache=True, parallel=True)
def anchored_gradient(Y, reference, near, mid, far, w_near, w_mid, w_far, out):
    """The gradient for new points ``Y`` whose partners are fixed rows of
    ``reference`` (``transform``): only the new points move, so each row owns its sum."""
    dim = Y.shape[1]
    for i in prange(Y.shape[0]):
        for c in range(dim):
            out[i, c] = 0.0
        for kind in range(3):
            pairs = near if kind == 0 else (mid if kind == 1 else far)
            weight = w_near if kind == 0 else (w_mid if kind == 1 else w_far)
            if weight == 0.0:
                continue
            for a in range(pairs.shape[1]):
                j = pairs[i, a]
                if j < 0:
                    continue
                d = 1.0
                for c in range(dim):
                    diff = Y[i, c] - reference[j, c]
                    d += diff * diff
                s = _force(kind, weight, d)
                for c in range(dim):
                    out[i, c] += s * (Y[i, c] - reference[j, c])


@njit(cache=True, parallel=True)
def adam_step(Y, grad, m, v, lr, beta1, beta2, eps, step):
    """One Adam update of ``Y`` in place (``step`` counts from 1, for bias correction)."""
    rate = lr * np.sqrt(1.0 - beta2**step) / (1.0 - beta1**step)
    for i in prange(Y.shape[0]):
        for c in range(Y.shape[1]):
            g = grad[i, c]
            m[i, c] = beta1 * m[i, c] + (1.0 - beta1) * g
            v[i, c] = beta2 * v[i, c] + (1.0 - beta2) * g * g
            Y[i, c] -= rate * m[i, c] / (np.sqrt(v[i, c]) + eps)


@njit(cache=True, inline="always")
def _sq_distance(X, i, Z, j):
    s = 0.0
    for c in range(X.shape[1]):
        diff = X[i, c] - Z[j, c]
        s += diff * diff
    return s


@njit(cache=True, parallel=True)
def second_closest(X, Z, candidates):
    """For each row i of ``X`` and each group of candidate rows of ``Z``
    (``candidates``: (n, groups, size)), the candidate second closest to row i: the
    mid-near partner of PaCMAP (the second closest of six random points)."""
    n, groups, size = candidates.shape
    out = np.empty((n, groups), dtype=np.int32)
    for i in prange(n):
        for g in range(groups):
            best, second = np.inf, np.inf
            best_j, second_j = -1, -1
            for a in range(size):
                j = candidates[i, g, a]
                d = _sq_distance(X, i, Z, j)
                if d < best:
                    second, second_j = best, best_j
                    best, best_j = d, j
                elif d < second:
                    second, second_j = d, j
            out[i, g] = second_j if second_j >= 0 else best_j
    return out


@njit(cache=True, parallel=True)
def first_not_near(candidates, near, count, self_excluded):
    """For each row, the first ``count`` candidates that are not among its near
    partners (nor the row itself when ``self_excluded``), -1 where too few remain."""
    n = candidates.shape[0]
    out = np.full((n, count), -1, dtype=np.int32)
    for i in prange(n):
        taken = 0
        for a in range(candidates.shape[1]):
            if taken == count:
                break
            j = candidates[i, a]
            if self_excluded and j == i:
                continue
            clash = False
            for b in range(near.shape[1]):
                if near[i, b] == j:
                    clash = True
                    break
            for b in range(taken):
                if out[i, b] == j:
                    clash = True
                    break
            if not clash:
                out[i, taken] = j
                taken += 1
    return out
