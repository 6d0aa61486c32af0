"""A balanced k-d tree over the rows of a low-dimensional array (Euclidean), for exact
neighbour searches where blocked BLAS distances would cost n^2: HDBSCAN's core
distances and its mutual-reachability spanning tree on 2-D maps of millions of points.

The tree is implicit: node ``i`` has children ``2i + 1`` and ``2i + 2``, every level
halves its node's rows at the median of the widest coordinate, and the leaves (all at
one depth) hold at most ``leaf_size`` rows. The rows are stored in tree order
(``points``), so a leaf is a contiguous slice; ``order[t]`` is the original row of
tree position ``t``."""

import numpy as np
from numba import njit

from .._threads import QUERY_RANGE, in_row_ranges
from .sorting import sort_pairs

# The kernels that loop over independent rows or nodes are serial and release the GIL:
# a thread pool splits their ranges (in_row_ranges), since a prange loop costs the
# compiler about a second more on a first call.


@njit(cache=True)
def _median_split(points, order, lo, hi, dim):
    """Reorder ``points[lo:hi]`` (and ``order``) so the row at ``mid`` has the median
    ``dim`` coordinate, smaller ones before it and larger after (quickselect)."""
    mid = (lo + hi) // 2
    left, right = lo, hi - 1
    while right > left:
        pivot = points[(left + right) // 2, dim]
        i, j = left, right
        while i <= j:
            while points[i, dim] < pivot:
                i += 1
            while points[j, dim] > pivot:
                j -= 1
            if i <= j:
                for c in range(points.shape[1]):
                    points[i, c], points[j, c] = points[j, c], points[i, c]
                order[i], order[j] = order[j], order[i]
                i += 1
                j -= 1
        if mid <= j:
            right = j
        elif mid >= i:
            left = i
        else:
            break
    return mid


@njit(cache=True)
def _bounds(points, lo, hi, low, high, node):
    for c in range(points.shape[1]):
        low[node, c] = np.inf
        high[node, c] = -np.inf
    for t in range(lo, hi):
        for c in range(points.shape[1]):
            v = points[t, c]
            if v < low[node, c]:
                low[node, c] = v
            if v > high[node, c]:
                high[node, c] = v


@njit(cache=True, nogil=True)
def _build_nodes(points, order, last, start, stop, low, high, first_node, end_node):
    """Bound the nodes ``first_node..end_node`` of one level and, unless it is the
    ``last``, split each at its median into its two children."""
    for node in range(first_node, end_node):
        lo, hi = start[node], stop[node]
        _bounds(points, lo, hi, low, high, node)
        if last:
            continue
        dim = np.argmax(high[node] - low[node])
        mid = _median_split(points, order, lo, hi, dim) if hi - lo > 1 else lo
        start[2 * node + 1], stop[2 * node + 1] = lo, mid
        start[2 * node + 2], stop[2 * node + 2] = mid, hi


def _build(points, order, depth, start, stop, low, high):
    for level in range(depth + 1):
        first = (1 << level) - 1
        build = lambda a, b, last=level == depth: _build_nodes(points, order, last, start, stop, low, high, a, b)  # noqa: E731
        in_row_ranges("kdtree", first, 2 * first + 1, build)


def build_tree(X, leaf_size=32):
    """``(points, order, start, stop, low, high)``: the rows in tree order (float64),
    their original indices, each node's row range and bounding box.

    Examples
    --------
    >>> points, order, start, stop, low, high = build_tree(np.arange(10.0)[:, None], leaf_size=3)
    >>> start.size, sorted(order.tolist()) == list(range(10))
    (7, True)
    """
    n = X.shape[0]
    depth = max(0, int(np.ceil(np.log2(max(n, 1) / leaf_size))))
    n_nodes = (1 << (depth + 1)) - 1
    points = np.array(X, dtype=np.float64, order="C")
    order = np.arange(n, dtype=np.int64)
    start, stop = np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64)
    stop[0] = n
    low, high = np.empty((n_nodes, X.shape[1])), np.empty((n_nodes, X.shape[1]))
    _build(points, order, depth, start, stop, low, high)
    return points, order, start, stop, low, high


@njit(cache=True, inline="always")
def box_sq_distance(q, low, high, node):
    total = 0.0
    for c in range(q.size):
        gap = low[node, c] - q[c]
        if gap < 0.0:
            gap = q[c] - high[node, c]
        if gap > 0.0:
            total += gap * gap
    return total


@njit(cache=True, inline="always")
def sq_distance(points, i, q):
    total = 0.0
    for c in range(q.size):
        diff = points[i, c] - q[c]
        total += diff * diff
    return total


@njit(cache=True, inline="always")
def push_children(q, low, high, node, stack, gaps, top):
    """Push ``node``'s children with their box distances to ``q``, the nearer last (so
    it is searched first); returns the new stack top."""
    left = 2 * node + 1
    dl, dr = box_sq_distance(q, low, high, left), box_sq_distance(q, low, high, left + 1)
    near, far, dn, df = (left, left + 1, dl, dr) if dl <= dr else (left + 1, left, dr, dl)
    stack[top], gaps[top] = far, df
    stack[top + 1], gaps[top + 1] = near, dn
    return top + 2


@njit(cache=True)
def _push_heap(dist, idx, d, j):
    """Replace the largest of the k kept (a max-heap on ``dist``) by ``(d, j)``."""
    k = dist.size
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= k:
            break
        if child + 1 < k and dist[child + 1] > dist[child]:
            child += 1
        if dist[child] <= d:
            break
        dist[pos], idx[pos] = dist[child], idx[child]
        pos = child
    dist[pos], idx[pos] = d, j


@njit(cache=True)
def _knn_one(points, start, stop, low, high, q, dist, idx):
    """The ``dist.size`` nearest tree positions to ``q`` (squared distances, a heap)."""
    dist[:] = np.inf
    idx[:] = -1
    n_nodes = start.size
    stack = np.empty(64, dtype=np.int64)
    bound = np.empty(64)
    stack[0], bound[0], top = 0, 0.0, 1
    while top > 0:
        top -= 1
        node = stack[top]
        if bound[top] >= dist[0]:
            continue
        left = 2 * node + 1
        if left >= n_nodes:
            for t in range(start[node], stop[node]):
                d = sq_distance(points, t, q)
                if d < dist[0]:
                    _push_heap(dist, idx, d, t)
            continue
        top = push_children(q, low, high, node, stack, bound, top)


@njit(cache=True, nogil=True)
def _knn_rows(points, start, stop, low, high, Q, out_d, out_i, lo, hi):
    k = out_d.shape[1]
    for r in range(lo, hi):
        dist, idx = np.empty(k), np.empty(k, dtype=np.int64)
        _knn_one(points, start, stop, low, high, Q[r], dist, idx)
        sort_pairs(dist, idx)
        for t in range(k):
            out_d[r, t] = np.sqrt(dist[t])
            out_i[r, t] = idx[t]


def knn_query(points, start, stop, low, high, Q, k):
    """``(distances, positions)`` of the ``k`` nearest tree rows of each row of ``Q``,
    nearest first, ties by position (Euclidean distances, positions in tree order).

    Examples
    --------
    >>> tree = build_tree(np.array([[0.0], [1.0], [5.0]]), leaf_size=1)
    >>> d, p = knn_query(*tree[:1], *tree[2:], np.array([[4.0]]), 2)
    >>> d.tolist(), tree[1][p].tolist()
    ([[1.0, 3.0]], [[2, 1]])
    """
    m = Q.shape[0]
    out_d, out_i = np.empty((m, k)), np.empty((m, k), dtype=np.int64)
    run = lambda a, b: _knn_rows(points, start, stop, low, high, Q, out_d, out_i, a, b)  # noqa: E731
    in_row_ranges("kdtree", 0, m, run, min_size=QUERY_RANGE)
    return out_d, out_i
