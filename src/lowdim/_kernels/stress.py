"""Metric MDS kernels: SMACOF's Guttman transform fused with the stress (one parallel
pass over the pairs, no n x n matrix built per iteration), and stochastic gradient
descent over the pairs."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def guttman_pass(X, delta, W, out):
    """For the embedding ``X`` (n, p): ``out = B(X) X`` (B the Guttman matrix of the
    dissimilarities ``delta`` with pair weights ``W``; ``W`` of shape (0, 0) means all
    ones) and, returned, the raw stress ``sum_{i<j} w_ij (d_ij - delta_ij)^2`` and the
    weighted sum of squared distances ``sum_{i<j} w_ij d_ij^2`` of ``X``."""
    n, p = X.shape
    weighted = W.shape[0] > 0
    stress_rows = np.zeros(n)
    square_rows = np.zeros(n)
    for i in prange(n):
        acc = np.zeros(p)
        s_i = 0.0
        q_i = 0.0
        for j in range(n):
            if j == i:
                continue
            sq = 0.0
            for c in range(p):
                diff = X[i, c] - X[j, c]
                sq += diff * diff
            d = np.sqrt(sq)
            w = W[i, j] if weighted else 1.0
            s_i += w * (d - delta[i, j]) ** 2
            q_i += w * sq
            if d > 0.0:
                ratio = w * delta[i, j] / d
                for c in range(p):
                    acc[c] += ratio * (X[i, c] - X[j, c])
        for c in range(p):
            out[i, c] = acc[c]
        stress_rows[i] = s_i
        square_rows[i] = q_i
    return 0.5 * stress_rows.sum(), 0.5 * square_rows.sum()


@njit(cache=True)
def sgd_stress_epoch(X, pairs_i, pairs_j, targets, starts, block, rate):
    """One epoch of metric MDS by stochastic gradient descent over the pairs (as in
    Zheng, Pawar & Goodman 2018, on the unweighted stress): visit the blocks of pairs
    beginning at ``starts``, in that order (the pairs shuffled by the caller, so that
    each block is read in sequence), and move both points of a pair along their
    difference by ``rate`` times half the distance error. ``X`` is updated in place."""
    d = X.shape[1]
    for s in starts:
        for t in range(s, min(s + block, pairs_i.size)):
            _sgd_move(X, pairs_i[t], pairs_j[t], targets[t], rate, d)


@njit(cache=True, inline="always")
def _sgd_move(X, i, j, target, rate, d):
    dist = 0.0
    for c in range(d):
        dist += (X[i, c] - X[j, c]) ** 2
    dist = np.sqrt(dist)
    if dist == 0.0:
        return
    r = rate * (dist - target) / (2.0 * dist)
    for c in range(d):
        move = r * (X[i, c] - X[j, c])
        X[i, c] -= move
        X[j, c] += move
