"""Symmetric kernel matrices from the upper triangle of a Gram matrix, in one pass."""

import numpy as np
from numba import njit, prange

LINEAR, RBF, POLY, SIGMOID = 0, 1, 2, 3


@njit(cache=True, parallel=True)
def kernel_from_upper_gram(G, kind, gamma, degree, coef0):
    """Overwrite ``G`` (only its upper triangle, i <= j, is read: the Gram matrix
    X X^T) with the full symmetric kernel matrix.

    Parameters
    ----------
    G : 2-D float64 array (n, n), any memory order
    kind : int
        0 linear, 1 rbf ``exp(-gamma |x - y|^2)``, 2 poly ``(gamma g + coef0)^degree``,
        3 sigmoid ``tanh(gamma g + coef0)``.
    """
    n = G.shape[0]
    sq = np.empty(n)
    for i in range(n):
        sq[i] = G[i, i]
    for i in prange(n):
        for j in range(i, n):
            g = G[i, j]
            if kind == 1:
                d = sq[i] + sq[j] - 2.0 * g
                v = np.exp(-gamma * (d if d > 0.0 else 0.0))
            elif kind == 2:
                v = (gamma * g + coef0) ** degree
            elif kind == 3:
                v = np.tanh(gamma * g + coef0)
            else:
                v = g
            G[i, j] = v
            G[j, i] = v
