"""Gaussian-mixture kernels: row-wise log-sum-exp normalisation, Mahalanobis terms
and weighted centring, fused so that no (n x d) or (n x k) temporaries are made.
Each runs a serial kernel without the GIL over ranges of rows that ``in_row_ranges``
spreads over threads (from ``LIGHT_ROWS`` rows on; a prange loop would cost the
compiler about a second more per kernel on a first call); each row's arithmetic is
independent of the thread count."""

import numpy as np
from numba import njit

from .._threads import LIGHT_ROWS, in_row_ranges


def _over_rows(n, kernel, *args):
    """``kernel(*args, lo, hi)`` over the rows, split over threads from LIGHT_ROWS rows."""
    in_row_ranges("mixture", 0, n, lambda a, b: kernel(*args, a, b), per_thread=1, min_size=LIGHT_ROWS)


def log_normalize(log_joint, resp):
    """Per row: ``lse = log(sum(exp(row)))`` (shifted by the row maximum) and
    ``resp = exp(row - lse)``. Returns the lse values (float64).

    Examples
    --------
    >>> resp = np.empty((1, 2))
    >>> lse = log_normalize(np.log(np.array([[1.0, 3.0]])), resp)
    >>> round(float(np.exp(lse[0])), 12), resp.tolist()
    (4.0, [[0.25, 0.75]])
    """
    lse = np.empty(log_joint.shape[0])
    _over_rows(log_joint.shape[0], _log_normalize_rows, log_joint, resp, lse)
    return lse


@njit(cache=True, nogil=True)
def _log_normalize_rows(log_joint, resp, lse, lo, hi):
    k = log_joint.shape[1]
    for i in range(lo, hi):
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


def squared_distance_column(Y, b, out, col):
    """``out[i, col] = sum_j (Y[i, j] - b[j])^2`` in float64 (whitened Mahalanobis)."""
    _over_rows(Y.shape[0], _squared_distance_rows, Y, b, out, col)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _squared_distance_rows(Y, b, out, col, lo, hi):
    d = Y.shape[1]
    for i in range(lo, hi):
        row = Y[i]
        s = 0.0
        for j in range(d):
            t = np.float64(row[j]) - b[j]
            s += t * t
        out[i, col] = s


def weighted_centered(X, mu, w, out):
    """``out[i] = sqrt(w[i]) * (X[i] - mu)`` in X's dtype (for one weighted SYRK)."""
    _over_rows(X.shape[0], _weighted_centered_rows, X, mu, w, out)


@njit(cache=True, nogil=True)
def _weighted_centered_rows(X, mu, w, out, lo, hi):
    d = X.shape[1]
    for i in range(lo, hi):
        s = np.sqrt(w[i])
        for j in range(d):
            out[i, j] = s * (np.float64(X[i, j]) - mu[j])


def diagonal_mahalanobis(X, means, precisions, out):
    """``out[i, k] = sum_j (X[i, j] - means[k, j])^2 * precisions[k, j]`` in float64
    (no cancellation, unlike the expanded form)."""
    _over_rows(X.shape[0], _diagonal_mahalanobis_rows, X, means, precisions, out)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _diagonal_mahalanobis_rows(X, means, precisions, out, lo, hi):
    d = X.shape[1]
    K = means.shape[0]
    for i in range(lo, hi):
        row = X[i]
        for k in range(K):
            mu = means[k]
            p = precisions[k]
            s = 0.0
            for j in range(d):
                t = np.float64(row[j]) - mu[j]
                s += t * t * p[j]
            out[i, k] = s


def weighted_moments(X, resp, n_chunks, with_squares):
    """``sum_i r_ik x_i`` and (``with_squares``) ``sum_i r_ik x_i^2`` per component, in
    float64 over fixed row chunks summed in order (thread-count independent)."""
    K, d = resp.shape[1], X.shape[1]
    p1, p2 = np.zeros((n_chunks, K, d)), np.zeros((n_chunks, K, d))
    rows = (X.shape[0] + n_chunks - 1) // n_chunks
    args = (X, resp, rows, with_squares, p1, p2)
    in_row_ranges("mixture", 0, n_chunks, lambda a, b: _chunk_moments(*args, a, b), per_thread=1)
    s1, s2 = np.zeros((K, d)), np.zeros((K, d))
    for ch in range(n_chunks):
        s1 += p1[ch]
        s2 += p2[ch]
    return s1, s2


@njit(cache=True, nogil=True)
def _chunk_moments(X, resp, rows, with_squares, p1, p2, first, end):
    n, d = X.shape
    K = resp.shape[1]
    for ch in range(first, end):
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
