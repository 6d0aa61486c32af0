"""SNE's Gaussian output kernel over all pairs (O(n^2)), in shifted form so that far
apart points neither underflow nor divide by zero; parallel over points, each point's
terms summed in a fixed order."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True, fastmath=True)
def gaussian_row_sums(Y, out_z, out_shift):
    """``out_shift[i] = min_{j != i} |y_i - y_j|^2`` and ``out_z[i] = sum_{j != i}
    exp(-(|y_i - y_j|^2 - out_shift[i]))`` (>= 1): row i's normaliser is
    ``out_z[i] exp(-out_shift[i])``."""
    n, d = Y.shape
    for i in prange(n):
        low = np.inf
        for j in range(n):
            if j != i:
                d2 = 0.0
                for a in range(d):
                    diff = Y[i, a] - Y[j, a]
                    d2 += diff * diff
                low = min(low, d2)
        z = 0.0
        for j in range(n):
            if j != i:
                d2 = 0.0
                for a in range(d):
                    diff = Y[i, a] - Y[j, a]
                    d2 += diff * diff
                z += np.exp(low - d2)
        out_z[i], out_shift[i] = z, low


@njit(cache=True, parallel=True, fastmath=True)
def gaussian_repulsion(Y, z, shift, log_norm, symmetric, out):
    """``out[i] = sum_j c_ij (y_i - y_j)`` with ``c_ij = q_ij = exp(-d_ij^2 - log_norm)``
    (symmetric SNE, ``log_norm`` = log of the joint normaliser) or ``q(j|i) + q(i|j)``
    (asymmetric SNE, from the shifted row sums)."""
    n, d = Y.shape
    for i in prange(n):
        for a in range(d):
            out[i, a] = 0.0
        for j in range(n):
            if j == i:
                continue
            d2 = 0.0
            for a in range(d):
                diff = Y[i, a] - Y[j, a]
                d2 += diff * diff
            if symmetric:
                c = np.exp(-d2 - log_norm)
            else:
                c = np.exp(shift[i] - d2) / z[i] + np.exp(shift[j] - d2) / z[j]
            for a in range(d):
                out[i, a] += c * (Y[i, a] - Y[j, a])
