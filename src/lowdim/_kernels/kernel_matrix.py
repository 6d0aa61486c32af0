"""Symmetric kernel matrices from the upper triangle of a Gram matrix, in one pass."""

import numpy as np
from numba import njit

from .._threads import in_row_ranges

LINEAR, RBF, POLY, SIGMOID = 0, 1, 2, 3
TILE = 64


def kernel_from_upper_gram(G, kind, gamma, degree, coef0):
    """Overwrite ``G`` (only its upper triangle, i <= j, is read: the Gram matrix
    X X^T) with the full symmetric kernel matrix.

    Parameters
    ----------
    G : 2-D float64 or float32 array (n, n), any memory order
    kind : int
        0 linear, 1 rbf ``exp(-gamma |x - y|^2)``, 2 poly ``(gamma g + coef0)^degree``,
        3 sigmoid ``tanh(gamma g + coef0)``.
    gamma, degree, coef0 : float
    """
    sq = np.diagonal(G).astype(np.float64)
    tiles = (G.shape[0] + TILE - 1) // TILE
    rows = lambda lo, hi: _tile_rows(G, sq, kind, gamma, degree, coef0, lo, hi)  # noqa: E731
    in_row_ranges("kernel-matrix", 0, tiles, rows)


@njit(cache=True, nogil=True)
def _tile_rows(G, sq, kind, gamma, degree, coef0, lo, hi):
    """Dealt rows ``lo..hi`` of tiles (the ``t // 2``-th from the top for even ``t``,
    from the bottom for odd, so that consecutive ranges hold as much of the triangle):
    square tiles, each with its mirror image, both in cache whatever G's memory order
    (row by row, the mirrored writes or the reads stride by n)."""
    n = G.shape[0]
    tiles = (n + TILE - 1) // TILE
    for t in range(lo, hi):
        ti = t // 2 if t % 2 == 0 else tiles - 1 - t // 2
        for tj in range(ti, tiles):
            for i in range(ti * TILE, min(n, (ti + 1) * TILE)):
                for j in range(max(i, tj * TILE), min(n, (tj + 1) * TILE)):
                    v = _kernel_value(G[i, j], sq[i], sq[j], kind, gamma, degree, coef0)
                    G[i, j] = v
                    G[j, i] = v


@njit(cache=True, inline="always")
def _kernel_value(g, sq_i, sq_j, kind, gamma, degree, coef0):
    if kind == 1:
        d = sq_i + sq_j - 2.0 * g
        return np.exp(-gamma * (d if d > 0.0 else 0.0))
    if kind == 2:
        return (gamma * g + coef0) ** degree
    if kind == 3:
        return np.tanh(gamma * g + coef0)
    return g
