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
            e = np.exp(row[c] - m)
            resp[i, c] = e
            s += e
        lse[i] = m + np.log(s)
        inv = 1.0 / s
        for c in range(k):
            resp[i, c] *= inv
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
def weighted_centered(X, mu, w, out):
    """``out[i] = sqrt(w[i]) * (X[i] - mu)`` in X's dtype (for one weighted SYRK)."""
    n, d = X.shape
    for i in prange(n):
        s = np.sqrt(w[i])
        for j in range(d):
            out[i, j] = s * (np.float64(X[i, j]) - mu[j])


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def diagonal_mahalanobis(X, means, precisions, out):
    """``out[i, k] = sum_j (X[i, j] - means[k, j])^2 * precisions[k, j]`` in float64
    (no cancellation, unlike the expanded form)."""
    n, d = X.shape
    K = means.shape[0]
    for i in prange(n):
        row = X[i]
        for k in range(K):
            mu = means[k]
            p = precisions[k]
            s = 0.0
            for j in range(d):
                t = np.float64(row[j]) - mu[j]
                s += t * t * p[j]
            out[i, k] = s


@njit(cache=True, parallel=True)
def weighted_moments(X, resp, n_chunks, with_squares):
    """``sum_i r_ik x_i`` and (``with_squares``) ``sum_i r_ik x_i^2`` per component, in
    float64 over fixed row chunks summed in order (thread-count independent)."""
    n, d = X.shape
    K = resp.shape[1]
    p1 = np.zeros((n_chunks, K, d))
    p2 = np.zeros((n_chunks, K, d))
    rows = (n + n_chunks - 1) // n_chunks
    for ch in prange(n_chunks):
        a1 = p1[ch]
        a2 = p2[ch]
        x = np.empty(d)
        for i in range(ch * rows, min(n, (ch + 1) * rows)):
            for j in range(d):
                x[j] = X[i, j]
            for k in range(K):
                r = resp[i, k]
                if r == 0.0:
                    continue
                s1 = a1[k]
                if with_squares:
                    s2 = a2[k]
                    for j in range(d):
                        v = r * x[j]
                        s1[j] += v
                        s2[j] += v * x[j]
                else:
                    for j in range(d):
                        s1[j] += r * x[j]
    s1 = np.zeros((K, d))
    s2 = np.zeros((K, d))
    for ch in range(n_chunks):
        s1 += p1[ch]
        s2 += p2[ch]
    return s1, s2
