"""Radius queries on the k-d tree of ``kdtree.build_tree``: every tree row within a
distance of each query (DBSCAN's eps-neighbourhoods), counted in one pass and listed in
a second, so the output is sized exactly and the queries run in parallel."""

import numpy as np
from numba import njit, prange

from .kdtree import box_sq_distance, sq_distance


@njit(cache=True, inline="always")
def _box_far_sq(q, low, high, node):
    """Squared distance from ``q`` to the farthest corner of ``node``'s box."""
    total = 0.0
    for c in range(q.size):
        gap = max(abs(q[c] - low[node, c]), abs(high[node, c] - q[c]))
        total += gap * gap
    return total


@njit(cache=True)
def _within(points, start, stop, low, high, q, r2, out, fill, order):
    """Count (and with ``fill``, write into ``out`` as ``order[position]``: the rows as
    given) the tree positions within squared distance ``r2`` of ``q``, the boundary
    included."""
    n_nodes = start.size
    stack = np.empty(64, dtype=np.int64)
    stack[0], top, found = 0, 1, 0
    while top > 0:
        top -= 1
        node = stack[top]
        if box_sq_distance(q, low, high, node) > r2:
            continue
        if _box_far_sq(q, low, high, node) <= r2:  # the whole box is inside: no distances to compute
            if fill:
                for t in range(start[node], stop[node]):
                    out[found + t - start[node]] = order[t]
            found += stop[node] - start[node]
            continue
        left = 2 * node + 1
        if left >= n_nodes:
            for t in range(start[node], stop[node]):
                if sq_distance(points, t, q) <= r2:
                    if fill:
                        out[found] = order[t]
                    found += 1
            continue
        stack[top], stack[top + 1] = left, left + 1
        top += 2
    return found


@njit(cache=True, parallel=True)
def radius_counts(points, start, stop, low, high, Q, r2):
    """How many tree rows lie within squared distance ``r2`` of each row of ``Q``."""
    counts = np.empty(Q.shape[0], dtype=np.int64)
    dummy = np.empty(0, dtype=np.int64)
    for i in prange(Q.shape[0]):
        counts[i] = _within(points, start, stop, low, high, Q[i], r2, dummy, False, dummy)
    return counts


@njit(cache=True, parallel=True)
def radius_lists(points, start, stop, low, high, Q, r2, indptr, out, order):
    """The rows (``order`` of the tree positions) within squared distance ``r2`` of each
    row of ``Q`` into ``out[indptr[i]:indptr[i + 1]]`` (sized by ``radius_counts``)."""
    for i in prange(Q.shape[0]):
        _within(points, start, stop, low, high, Q[i], r2, out[indptr[i] : indptr[i + 1]], True, order)


@njit(cache=True, parallel=True)
def threshold_lists(D, eps, own):
    """CSR ``(indptr, indices)`` of the columns of each row of ``D`` at most ``eps`` (a
    NaN never), and column ``own[r]`` of row ``r`` whatever its value (the point itself):
    the eps-neighbourhoods of a block of rows from their distances, without the boolean
    matrix and the index pairs numpy's nonzero would build."""
    m, n = D.shape
    counts = np.zeros(m, dtype=np.int64)
    for r in prange(m):
        c = 0
        for j in range(n):
            if D[r, j] <= eps or j == own[r]:
                c += 1
        counts[r] = c
    indptr = np.zeros(m + 1, dtype=np.int64)
    for r in range(m):
        indptr[r + 1] = indptr[r] + counts[r]
    indices = np.empty(indptr[m], dtype=np.int64)
    for r in prange(m):
        p = indptr[r]
        for j in range(n):
            if D[r, j] <= eps or j == own[r]:
                indices[p] = j
                p += 1
    return indptr, indices


@njit(cache=True, parallel=True)
def threshold_lists_by_columns(D, eps, own, pieces):
    """``threshold_lists`` for a column-major ``D`` (a GEMM's output), read down its
    columns: ``pieces`` ranges of columns in parallel, each with its own counts, so that
    every row's neighbours still come in column order."""
    m, n = D.shape
    bounds = np.linspace(0, n, pieces + 1).astype(np.int64)
    counts = np.zeros((pieces, m), dtype=np.int64)
    for t in prange(pieces):
        for j in range(bounds[t], bounds[t + 1]):
            for r in range(m):
                if D[r, j] <= eps or j == own[r]:
                    counts[t, r] += 1
    indptr = np.zeros(m + 1, dtype=np.int64)
    for r in range(m):
        indptr[r + 1] = indptr[r] + counts[:, r].sum()
    start = np.empty((pieces, m), dtype=np.int64)  # where each piece writes each row's neighbours
    for r in range(m):
        p = indptr[r]
        for t in range(pieces):
            start[t, r] = p
            p += counts[t, r]
    indices = np.empty(indptr[m], dtype=np.int64)
    for t in prange(pieces):
        for j in range(bounds[t], bounds[t + 1]):
            for r in range(m):
                if D[r, j] <= eps or j == own[r]:
                    indices[start[t, r]] = j
                    start[t, r] += 1
    return indptr, indices
