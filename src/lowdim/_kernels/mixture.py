"""Gaussian-mixture kernels: row-wise log-sum-exp normalisation, Mahalanobis terms
and weighted centring, fused so that no (n x d) or (n x k) temporaries are made.
Parallel over rows; each row's arithmetic is independent of the thread count."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def log_normalize(log_joint, resp):
    """Per row: ``lse = log(sum(exp(row)))`` (shifted by the row maximum) and
    ``resp = exp(row - lse)``. Returns the lse values (float64)."""
    n, k = log_joint.shape
    lse = np.empty(n)
    for i in prange(n):
        row = log_joint[i]
        m = row[0]
        for c in range(1, k):
            m = max(m, row[c])
        if not np.isfinite(m):  # every component impossible: uniform responsibilities
            lse[i] = m
            for c in range(k):
                resp[i, c] = 1.0 / k
            continue
        s = 0.0
        for c in range(k):
            s += np.exp(row[c] - m)
        lse[i] = m + np.log(s)
        for c in range(k):
            resp[i, c] = np.exp(row[c] - lse[i])
    return lse


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def squared_distance_column(Y, b, out, col):
    """``out[i, col] = sum_j (Y[i, j] - b[j])^2`` in float64 (whitened Mahalanobis)."""
    n, d = Y.shape
    for i in prange(n):
        row = Y[i]
        s = 0.0
        for j in range(d):
            t = np.float64(row[j]) - b[j]
            s += t * t
        out[i, col] = s


@njit(cache=True, parallel=True)
def weighted_centred(X, mu, w, out):
    """``out[i] = sqrt(w[i]) * (X[i] - mu)`` in X's dtype (for one weighted SYRK)."""
    n, d = X.shape
    for i in prange(n):
        s = np.sqrt(w[i])
        for j in range(d):
            out[i, j] = s * (np.float64(X[i, j]) - mu[j])

