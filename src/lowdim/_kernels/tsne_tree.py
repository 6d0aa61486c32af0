"""Barnes-Hut repulsion for t-SNE: a 2^d-tree (binary, quad, oct for d = 1, 2, 3) over
the embedding, each cell holding its point count and centre of mass; a cell seen from
a point under an angle below ``theta`` acts as one point.

Coincident points share a leaf (``count`` > 1); so do points closer than
``MIN_HALF`` times the root cell, which bounds the depth.
"""

import numpy as np
from numba import njit, prange

from .tsne_forces import kernel_terms

MIN_HALF = 1e-12  # relative to the root's half-width: no cell is split below this


@njit(cache=True)
def _new_cell(parent, q, center, half, d, n_cells):
    """Centre and half-width of child ``q`` of ``parent`` into slot ``n_cells``."""
    h = 0.5 * half[parent]
    half[n_cells] = h
    for a in range(d):
        bit = (q >> a) & 1
        center[n_cells, a] = center[parent, a] + (h if bit else -h)


@njit(cache=True, inline="always")
def _quadrant(Y, i, center, cell, d):
    q = np.int64(0)  # typed: a literal 0 would compile _new_cell once more for it
    for a in range(d):
        if Y[i, a] > center[cell, a]:
            q |= 1 << a
    return q


@njit(cache=True)
def _root_cell(Y, center, half):
    n, d = Y.shape
    width = 0.0
    for a in range(d):
        lo, hi = Y[0, a], Y[0, a]
        for i in range(n):
            lo, hi = min(lo, Y[i, a]), max(hi, Y[i, a])
        center[0, a] = 0.5 * (lo + hi)
        width = max(width, hi - lo)
    half[0] = max(0.5 * width * (1.0 + 1e-9), 1e-300)


@njit(cache=True)
def build_tree(Y, child, center, half, com, count, point):
    """Insert every row of ``Y``; arrays have one slot per cell (``child`` is
    (cells, 2^d), initialised to -1; ``count`` and ``com`` to 0; ``point`` to -1).
    Returns the number of cells used, or -1 when the arrays are too small."""
    n, d = Y.shape
    capacity = child.shape[0]
    _root_cell(Y, center, half)
    floor = MIN_HALF * half[0]
    n_cells = np.int64(1)  # typed counters: a literal start would compile _new_cell once more for it
    for i in range(n):
        cell = np.int64(0)
        while True:
            c = count[cell]
            if c == 0.0:  # empty leaf
                point[cell] = i
                for a in range(d):
                    com[cell, a] = Y[i, a]
                count[cell] = 1.0
                break
            if point[cell] >= 0:  # occupied leaf: join it, or push its content down
                j = point[cell]
                same = True
                for a in range(d):
                    same = same and Y[i, a] == Y[j, a]
                if same or half[cell] <= floor:
                    for a in range(d):
                        com[cell, a] = (com[cell, a] * c + Y[i, a]) / (c + 1.0)
                    count[cell] = c + 1.0
                    break
                if n_cells >= capacity:
                    return -1
                q = _quadrant(Y, j, center, cell, d)
                _new_cell(cell, q, center, half, d, n_cells)
                child[cell, q] = n_cells
                point[n_cells], count[n_cells] = j, c
                for a in range(d):
                    com[n_cells, a] = com[cell, a]
                n_cells += 1
                point[cell] = -1
            for a in range(d):
                com[cell, a] = (com[cell, a] * c + Y[i, a]) / (c + 1.0)
            count[cell] = c + 1.0
            q = _quadrant(Y, i, center, cell, d)
            if child[cell, q] < 0:
                if n_cells >= capacity:
                    return -1
                _new_cell(cell, q, center, half, d, n_cells)
                child[cell, q] = n_cells
                n_cells += 1
            cell = child[cell, q]
    return n_cells


@njit(cache=True, parallel=True)
def tree_repulsion(Q, child, half, com, count, point, theta, dof, exclude_self, out, z_rows):
    """For each query point ``Q[i]``: ``out[i] = sum_j K1 w (q_i - y_j)`` and
    ``z_rows[i] = sum_j K1`` over the tree's points, cells with
    ``width / distance < theta`` taken whole. ``exclude_self``: the queries are the
    tree's own points, and each leaves itself out."""
    n, d = Q.shape
    n_child = child.shape[1]
    theta2 = theta * theta
    for i in prange(n):
        stack = np.empty(64 * n_child, dtype=np.int64)
        top = 1
        stack[0] = 0
        z = 0.0
        for a in range(d):
            out[i, a] = 0.0
        while top > 0:
            top -= 1
            cell = stack[top]
            c = count[cell]
            if c == 0.0:
                continue
            d2 = 0.0
            for a in range(d):
                diff = Q[i, a] - com[cell, a]
                d2 += diff * diff
            width = 2.0 * half[cell]
            if point[cell] >= 0 or width * width < theta2 * d2:
                if point[cell] >= 0 and d2 == 0.0:
                    z += c - 1.0 if exclude_self else c  # coincident points: K1 = 1, no force
                    continue
                k1, w = kernel_terms(d2, dof)
                z += c * k1
                for a in range(d):
                    out[i, a] += c * k1 * w * (Q[i, a] - com[cell, a])
                continue
            for q in range(n_child):
                if child[cell, q] >= 0:
                    stack[top] = child[cell, q]
                    top += 1
        z_rows[i] = z
