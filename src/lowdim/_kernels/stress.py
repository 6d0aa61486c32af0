"""SMACOF's Guttman transform fused with the stress: one parallel pass over the pairs,
no n x n matrix built per iteration."""

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
