"""HDBSCAN's trees in linear passes: the single-linkage dendrogram of a spanning tree's
edges, and that dendrogram condensed by a minimum cluster size (Campello et al. 2013,
as in the hdbscan package: a split where both sides have ``min_cluster_size`` points
gives two new clusters, a smaller side's points fall out of the cluster at that
lambda = 1 / distance)."""

import heapq

import numpy as np
from numba import njit

from .components import root


@njit(cache=True)
def single_linkage(a, b, w):
    """scipy-style linkage ``(left, right, distance, size)`` of the spanning tree edges
    ``(a, b, w)``, sorted by weight (the caller's order of ties is kept).

    Examples
    --------
    >>> left, right, dist, size = single_linkage(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 3.0]))
    >>> left.tolist(), right.tolist(), size.tolist()
    ([0, 3], [1, 2], [2, 3])
    """
    m = a.size
    n = m + 1
    parent = np.arange(2 * n - 1)
    size = np.ones(2 * n - 1, dtype=np.int64)
    left, right = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    dist, sizes = np.empty(m), np.empty(m, dtype=np.int64)
    ends = np.empty(2, dtype=np.int64)
    for step in range(m):
        e = step
        for side in range(2):  # components.root inline: the Python source runs without compiling it
            x = a[e] if side == 0 else b[e]
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            ends[side] = x
        ra, rb = ends[0], ends[1]
        node = n + step
        parent[ra], parent[rb] = node, node
        size[node] = size[ra] + size[rb]
        left[step], right[step], dist[step], sizes[step] = ra, rb, w[e], size[node]
    return left, right, dist, sizes


@njit(cache=True)
def _tie_mask(a, b, w, order, nbr, nbr_dist, core, alpha, by_weight, by_core):
    """Which core-neighbour edges can tie with the tree in Prim's algorithm: those of
    weight ``W`` equal to the heaviest tree edge on the path between their ends (so
    that Prim may reach a point through either). Such an edge weighs a core distance
    (pairwise distances being distinct), that of its end ``x`` with the larger core
    distance, so it joins ``x`` to one of its core neighbours; it counts when the
    tree's edges lighter than ``W`` leave the two ends apart. Points in increasing core
    distance (``by_core``), tree edges in increasing weight (``by_weight``) joined as they
    pass: a union-find sweep. The order of ties does not change the result."""
    n, k = nbr.shape
    parent = np.arange(n)
    keep = np.zeros((n, k), dtype=np.bool_)
    e = 0
    for idx in range(n):
        r = by_core[idx]
        level = core[r]
        while e < w.size and w[by_weight[e]] < level:
            ra, rb = root(parent, a[by_weight[e]]), root(parent, b[by_weight[e]])
            parent[max(ra, rb)] = min(ra, rb)
            e += 1
        for t in range(k):
            q = nbr[r, t]
            if q != r and core[q] <= level and nbr_dist[r, t] / alpha <= level:
                keep[r, t] = root(parent, order[r]) != root(parent, order[q])
    return keep


@njit(cache=True)
def _adjacency(a, b, w, order, nbr, core, keep):
    """CSR over original indices of the tree edges ``(a, b, w)`` and the kept
    core-neighbour edges (weighing their row's core distance), both directions:
    ``(starts, ends, weights)``."""
    n, k = nbr.shape
    degree = np.zeros(n + 1, dtype=np.int64)
    for e in range(a.size):
        degree[a[e] + 1] += 1
        degree[b[e] + 1] += 1
    for r in range(n):
        for t in range(k):
            if keep[r, t]:
                degree[order[r] + 1] += 1
                degree[order[nbr[r, t]] + 1] += 1
    starts = np.cumsum(degree)
    fill = starts[:-1].copy()
    ends, weights = np.empty(starts[-1], dtype=np.int64), np.empty(starts[-1])
    for e in range(a.size):
        for u, v in ((a[e], b[e]), (b[e], a[e])):
            ends[fill[u]], weights[fill[u]] = v, w[e]
            fill[u] += 1
    for r in range(n):
        for t in range(k):
            if keep[r, t]:
                for u, v in ((order[r], order[nbr[r, t]]), (order[nbr[r, t]], order[r])):
                    ends[fill[u]], weights[fill[u]] = v, core[r]
                    fill[u] += 1
    return starts, ends, weights


def prim_tree(a, b, w, order, nbr, nbr_dist, core, alpha=1.0):
    """The spanning tree as Prim's algorithm from point 0 builds it on the complete
    graph, scikit-learn's way: the lightest frontier point next, the smallest index
    among equal weights, joined to the earliest tree point offering that weight.
    Where weights tie, this decides which edges the tree has and how merges at equal
    heights stack, and so the condensed tree.

    On a mutual-reachability graph it suffices to search the minimum spanning tree
    ``(a, b, w)`` (original indices) and the few edges that tie with it
    (``_tie_mask``): any other edge is heavier than a path Prim's algorithm reaches
    first. Row ``r`` of ``nbr`` (core neighbour rows), ``nbr_dist`` and ``core`` is
    point ``order[r]``.

    Returns
    -------
    source, target, weight : the n - 1 edges in the order Prim adds them

    Examples
    --------
    >>> nbr, dist, core = np.zeros((4, 0), dtype=np.int64), np.zeros((4, 0)), np.zeros(4)
    >>> s, t, _ = prim_tree(np.array([2, 0, 1]), np.array([3, 1, 2]), np.ones(3), np.arange(4), nbr, dist, core)
    >>> s.tolist(), t.tolist()
    ([0, 1, 2], [1, 2, 3])
    """
    # numpy's sorts: numba's own would be compiled into the kernel on a first call
    by_weight, by_core = np.argsort(w, kind="stable"), np.argsort(core, kind="stable")
    keep = _tie_mask(a, b, w, order, nbr, nbr_dist, core, float(alpha), by_weight, by_core)
    return _prim_order(*_adjacency(a, b, w, order, nbr, core, keep), order.size)


@njit(cache=True)
def _prim_order(starts, ends, weights, n):
    """Prim's pass from point 0 over the CSR graph ``(starts, ends, weights)``, as
    ``prim_tree`` describes."""
    done = np.zeros(n, dtype=np.bool_)
    best, via = np.full(n, np.inf), np.full(n, -1, dtype=np.int64)
    source, target, weight = np.empty(n - 1, dtype=np.int64), np.empty(n - 1, dtype=np.int64), np.empty(n - 1)
    heap = [(0.0, 0)]
    count = 0
    while len(heap) > 0:
        wt, v = heapq.heappop(heap)
        if done[v] or wt > best[v] and v != 0:
            continue  # already in the tree, or a stale entry
        done[v] = True
        if v != 0:
            source[count], target[count], weight[count] = via[v], v, wt
            count += 1
        for t in range(starts[v], starts[v + 1]):
            u = ends[t]
            if not done[u] and weights[t] < best[u]:  # a tie keeps the earlier tree point
                best[u], via[u] = weights[t], v
                heapq.heappush(heap, (weights[t], u))
    return source, target, weight


@njit(cache=True)
def condense(left, right, dist, sizes, min_cluster_size):
    """The condensed tree as rows ``(parent, child, lambda, child_size)``: clusters are
    numbered from ``n`` (the root) in breadth-first order, points are ``0 .. n - 1``."""
    m = left.size
    n = m + 1
    out_parent, out_child = np.empty(2 * n, dtype=np.int64), np.empty(2 * n, dtype=np.int64)
    out_lambda, out_size = np.empty(2 * n), np.empty(2 * n, dtype=np.int64)
    relabel = np.empty(2 * n - 1, dtype=np.int64)
    queue = np.empty(2 * n - 1, dtype=np.int64)
    root = 2 * n - 2
    relabel[root] = n
    queue[0], head, tail, next_label = root, 0, 1, n + 1
    pos = 0
    while head < tail:
        node = queue[head]
        head += 1
        if node < n:
            continue
        r = node - n
        lam = 1.0 / dist[r] if dist[r] > 0.0 else np.inf
        label = relabel[node]
        lc = sizes[left[r] - n] if left[r] >= n else 1
        rc = sizes[right[r] - n] if right[r] >= n else 1
        for child, count, other in ((left[r], lc, rc), (right[r], rc, lc)):
            if count >= min_cluster_size and other >= min_cluster_size:
                relabel[child] = next_label
                next_label += 1
                out_parent[pos], out_child[pos], out_lambda[pos], out_size[pos] = label, relabel[child], lam, count
                pos += 1
                queue[tail] = child
                tail += 1
            elif count >= min_cluster_size:  # the cluster goes on as this child
                relabel[child] = label
                queue[tail] = child
                tail += 1
            else:  # every point under the child falls out of the cluster here
                stack = [child]
                while len(stack) > 0:
                    x = stack.pop()
                    if x < n:
                        out_parent[pos], out_child[pos], out_lambda[pos], out_size[pos] = label, x, lam, 1
                        pos += 1
                    else:
                        stack.append(left[x - n])
                        stack.append(right[x - n])
    return out_parent[:pos], out_child[:pos], out_lambda[:pos], out_size[:pos]
