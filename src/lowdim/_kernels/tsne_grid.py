"""Grid transfer for FFT-accelerated t-SNE (Linderman et al., FIt-SNE): charges of
points spread onto, and potentials read back from, a regular 2-D grid by Lagrange
interpolation on ``p`` equispaced nodes per box (node m of a box at (m + 0.5) / p of
its width). A 1-D embedding is a 2-D one with a single box across."""

import numpy as np
from numba import njit, prange


@njit(cache=True)
def bounding_box(Y):
    """Column minima and maxima of ``Y`` in one pass."""
    d = Y.shape[1]
    lo, hi = Y[0].copy(), Y[0].copy()
    for i in range(Y.shape[0]):
        for a in range(d):
            lo[a] = min(lo[a], Y[i, a])
            hi[a] = max(hi[a], Y[i, a])
    return lo, hi


@njit(cache=True)
def _lagrange(u, p, out):
    """Weights of the ``p`` nodes of a unit box at local coordinate ``u`` in [0, 1]."""
    for m in range(p):
        tm = (m + 0.5) / p
        w = 1.0
        for l in range(p):
            if l != m:
                tl = (l + 0.5) / p
                w *= (u - tl) / (tm - tl)
        out[m] = w


@njit(cache=True)
def _locate(y, lo, h, n_boxes):
    """Box index and local coordinate of ``y`` along one axis."""
    t = (y - lo) / h
    b = min(max(int(np.floor(t)), 0), n_boxes - 1)
    return b, t - b


@njit(cache=True)
def _by_column(Y, lo, h, n_boxes):
    """Point indices grouped by box column (stable), and each column's start."""
    n = Y.shape[0]
    start = np.zeros(n_boxes + 1, dtype=np.int64)
    column = np.empty(n, dtype=np.int64)
    for i in range(n):
        column[i] = _locate(Y[i, 0], lo, h, n_boxes)[0]
        start[column[i] + 1] += 1
    for b in range(n_boxes):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[column[i]]] = i
        fill[column[i]] += 1
    return order, start


@njit(cache=True, parallel=True)
def spread(Y, charges, lo, h, n_boxes, p, grid):
    """``grid[c, gx, gy] += Lx Ly charges[i, c]`` over the p x p nodes of each point's
    box. ``grid`` starts at zero. Threads take whole box columns (whose nodes no other
    column touches) and add their points in index order, so every node's sum has the
    order of a sequential pass whatever the thread count."""
    n_charges = charges.shape[1]
    order, start = _by_column(Y, lo[0], h[0], n_boxes[0])
    n_chunks = min(64, n_boxes[0])
    for chunk in prange(n_chunks):
        wx = np.empty(p)
        wy = np.empty(p)
        b0, b1 = chunk * n_boxes[0] // n_chunks, (chunk + 1) * n_boxes[0] // n_chunks
        for k in range(start[b0], start[b1]):
            i = order[k]
            bx, ux = _locate(Y[i, 0], lo[0], h[0], n_boxes[0])
            by, uy = _locate(Y[i, 1], lo[1], h[1], n_boxes[1])
            _lagrange(ux, p, wx)
            _lagrange(uy, p, wy)
            for mx in range(p):
                for my in range(p):
                    wgt = wx[mx] * wy[my]
                    gx, gy = bx * p + mx, by * p + my
                    for c in range(n_charges):
                        grid[c, gx, gy] += wgt * charges[i, c]


@njit(cache=True, parallel=True)
def interpolate(Y, lo, h, n_boxes, p, potential, out):
    """``out[i, c]`` = the grid potential ``potential[c]`` interpolated at ``Y[i]``."""
    n = Y.shape[0]
    n_charges = potential.shape[0]
    for i in prange(n):
        wx = np.empty(p)
        wy = np.empty(p)
        bx, ux = _locate(Y[i, 0], lo[0], h[0], n_boxes[0])
        by, uy = _locate(Y[i, 1], lo[1], h[1], n_boxes[1])
        _lagrange(ux, p, wx)
        _lagrange(uy, p, wy)
        for c in range(n_charges):
            out[i, c] = 0.0
        for mx in range(p):
            for my in range(p):
                wgt = wx[mx] * wy[my]
                gx, gy = bx * p + mx, by * p + my
                for c in range(n_charges):
                    out[i, c] += wgt * potential[c, gx, gy]
