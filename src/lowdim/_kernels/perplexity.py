"""Per-point Gaussian bandwidths matched to a perplexity (t-SNE / SNE input affinities)."""

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _row_entropy(sq, beta, p):
    """Gaussian weights ``p`` (normalised, from squared distances shifted by their
    minimum) at precision ``beta``; returns their entropy in nats."""
    d0 = sq[0]
    for j in range(sq.shape[0]):
        d0 = min(d0, sq[j])
    total = 0.0
    for j in range(sq.shape[0]):
        p[j] = np.exp(-beta * (sq[j] - d0))
        total += p[j]
    h = 0.0
    for j in range(sq.shape[0]):
        p[j] /= total
        if p[j] > 0.0:
            h -= p[j] * np.log(p[j])
    return h


@njit(cache=True, parallel=True)
def calibrate_rows(sq_dist, target_entropy, tol, max_iter, out_p, out_beta):
    """Row ``i`` of ``out_p``: conditional probabilities p(j | i) over the row's
    neighbours, ``exp(-beta_i d_ij^2)`` normalised, with ``beta_i`` found by bisection
    (doubling/halving until bracketed) so that the entropy is ``target_entropy`` within
    ``tol``. Rows whose distances are all equal get uniform weights (any beta fits)."""
    n, k = sq_dist.shape
    for i in prange(n):
        sq = sq_dist[i]
        p = out_p[i]
        lo, hi, beta = 0.0, np.inf, 1.0
        low, high = sq[0], sq[0]
        for j in range(k):
            low, high = min(low, sq[j]), max(high, sq[j])
        spread = high - low
        if spread > 0.0:  # start where beta * spread is of order one
            beta = 1.0 / spread
        for _ in range(max_iter):
            h = _row_entropy(sq, beta, p)
            if abs(h - target_entropy) <= tol:
                break
            if h > target_entropy:  # too flat: sharpen
                lo = beta
                beta = beta * 2.0 if hi == np.inf else 0.5 * (beta + hi)
            else:
                hi = beta
                beta = 0.5 * (beta + lo)
        out_beta[i] = beta
