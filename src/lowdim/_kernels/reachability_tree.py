"""The exact minimum spanning tree of the mutual-reachability graph
``max(core_a, core_b, |a - b| / alpha)`` (HDBSCAN), never forming the graph: Boruvka
rounds over a k-d tree (``kdtree``), each point searching for its nearest point of
another component. A subtree is skipped when all its points are in the searcher's
component, or when even its nearest box corner, its smallest core distance and the
searcher's own core distance cannot beat the best edge its component already has
(first from the kNN lists, which settle most points in the first round).

Ties between candidate edges go to the smaller (weight, a, b), and no search skips an
edge of its component's final weight, so the tree does not depend on the threads'
timing."""

import numpy as np
from numba import njit

from .._threads import QUERY_RANGE, in_row_ranges
from .components import root
from .kdtree import push_children, sq_distance

CANDIDATES = 16  # kNN columns read for each round's first bounds


@njit(cache=True)
def _node_components(comp, start, stop):
    """For each node the component all its rows share, or -1 (children before parents)."""
    n_nodes = start.size
    out = np.empty(n_nodes, dtype=np.int64)
    for node in range(n_nodes - 1, -1, -1):
        left = 2 * node + 1
        if left >= n_nodes:
            c = comp[start[node]] if stop[node] > start[node] else -2
            for t in range(start[node], stop[node]):
                if comp[t] != c:
                    c = -1
                    break
            out[node] = c
        else:
            a, b = out[left], out[left + 1]
            out[node] = a if (a == b or b == -2) else (b if a == -2 else -1)
    return out


@njit(cache=True)
def _node_min_core(core, start, stop):
    n_nodes = start.size
    out = np.empty(n_nodes)
    for node in range(n_nodes - 1, -1, -1):
        left = 2 * node + 1
        if left >= n_nodes:
            m = np.inf
            for t in range(start[node], stop[node]):
                m = min(m, core[t])
            out[node] = m
        else:
            out[node] = min(out[left], out[left + 1])
    return out


@njit(cache=True)
def _better(w, a, b, bw, ba, bb):
    return w < bw or (w == bw and (min(a, b) < min(ba, bb) or (min(a, b) == min(ba, bb) and max(a, b) < max(ba, bb))))


@njit(cache=True)
def _search(a, points, start, stop, low, high, comp, core, node_comp, node_core, alpha, shared):
    """The nearest point of another component in mutual reachability, if no heavier
    than the component's best edge so far (``shared``, lowered here as edges are
    found): ``(weight, position)`` or ``(inf, -1)``. Pruning is not strict, so every
    point with an edge of the component's final weight finds it, ties going to the
    smallest position: the result does not depend on the order the threads run."""
    ca, core_a = comp[a], core[a]
    q = points[a]
    best, best_t = np.inf, -1
    n_nodes = start.size
    stack = np.empty(64, dtype=np.int64)
    gaps = np.empty(64)
    stack[0], gaps[0], top = 0, 0.0, 1
    while top > 0:
        top -= 1
        node = stack[top]
        if node_comp[node] == ca:
            continue
        if max(core_a, node_core[node], np.sqrt(gaps[top]) / alpha) > min(best, shared[ca]):
            continue
        left = 2 * node + 1
        if left >= n_nodes:
            for t in range(start[node], stop[node]):
                if comp[t] == ca or core[t] > best:
                    continue
                w = max(core_a, core[t], np.sqrt(sq_distance(points, t, q)) / alpha)
                if w <= shared[ca] and (w < best or (w == best and t < best_t)):
                    best, best_t = w, t
                    if w < shared[ca]:
                        shared[ca] = w  # a racy write: a lost update only leaves the bound higher
            continue
        top = push_children(q, low, high, node, stack, gaps, top)
    return best, best_t


@njit(cache=True)
def _knn_candidates(comp, core, knn_dist, knn_pos, alpha, cw, ca_, cb_):
    """Each component's best edge among its points' nearest ``CANDIDATES`` neighbours
    (farther ones seldom give a better bound than the searches find)."""
    n, k = knn_pos.shape[0], min(knn_pos.shape[1], CANDIDATES)
    for a in range(n):
        c = comp[a]
        for t in range(k):
            b = knn_pos[a, t]
            if comp[b] == c:
                continue
            w = max(core[a], core[b], knn_dist[a, t] / alpha)
            if _better(w, a, b, cw[c], ca_[c], cb_[c]):
                cw[c], ca_[c], cb_[c] = w, a, b


@njit(cache=True, nogil=True)
def _round(points, start, stop, low, high, comp, core, node_comp, node_core, alpha, shared, found_w, found_t, lo, hi):
    """Each point's nearest point of another component (rows ``lo..hi``; serial and
    without the GIL: ``in_row_ranges`` splits the points over threads)."""
    for a in range(lo, hi):
        found_w[a], found_t[a] = np.inf, -1
        if core[a] > shared[comp[a]]:
            continue
        found_w[a], found_t[a] = _search(
            a, points, start, stop, low, high, comp, core, node_comp, node_core, alpha, shared
        )


@njit(cache=True)
def _merge_round(comp, found_w, found_t, cw, ca_, cb_, parent, edges_a, edges_b, edges_w, n_edges):
    """Add each component's best edge (skipping one that would close a cycle)."""
    n = comp.size
    for a in range(n):
        t = found_t[a]
        c = comp[a]
        if t >= 0 and _better(found_w[a], a, t, cw[c], ca_[c], cb_[c]):
            cw[c], ca_[c], cb_[c] = found_w[a], a, t
    for c in range(n):
        if ca_[c] < 0:  # not a component, or (one left) nothing to join
            continue
        ra, rb = root(parent, c), root(parent, comp[cb_[c]])
        if ra == rb:
            continue
        parent[max(ra, rb)] = min(ra, rb)
        edges_a[n_edges], edges_b[n_edges], edges_w[n_edges] = ca_[c], cb_[c], cw[c]
        n_edges += 1
    for a in range(n):
        comp[a] = root(parent, comp[a])
    return n_edges


def _nearest_outsiders(tree, comp, core, node_comp, node_core, alpha, shared, found_w, found_t):
    """``_round`` over all points, split over the thread pool."""
    args = (*tree, comp, core, node_comp, node_core, alpha, shared, found_w, found_t)
    in_row_ranges("reachability", 0, comp.size, lambda a, b: _round(*args, a, b), min_size=QUERY_RANGE)


def reachability_mst(points, start, stop, low, high, core, knn_dist, knn_pos, alpha=1.0):
    """Edges ``(a, b, weight)`` (tree positions) of the minimum spanning tree of the
    mutual-reachability graph of the tree's points.

    Parameters
    ----------
    points, start, stop, low, high : the k-d tree (``kdtree.build_tree``)
    core : float64 (n,), core distances in tree order
    knn_dist, knn_pos : (n, k), each point's nearest tree positions and distances
    alpha : float
        Pair distances are divided by it (not the core distances).

    Examples
    --------
    >>> from lowdim._kernels.kdtree import build_tree, knn_query
    >>> tree = build_tree(np.array([[0.0], [1.0], [5.0]]), leaf_size=1)
    >>> d, p = knn_query(*tree[:1], *tree[2:], tree[0], 2)
    >>> a, b, w = reachability_mst(tree[0], *tree[2:], d[:, -1].copy(), d, p)
    >>> sorted(w.tolist())
    [1.0, 4.0]
    """
    n = points.shape[0]
    comp = np.arange(n, dtype=np.int64)
    parent = np.arange(n, dtype=np.int64)
    node_core = _node_min_core(core, start, stop)
    edges_a, edges_b = np.empty(max(n - 1, 0), dtype=np.int64), np.empty(max(n - 1, 0), dtype=np.int64)
    edges_w = np.empty(max(n - 1, 0))
    found_w, found_t = np.empty(n), np.empty(n, dtype=np.int64)
    n_edges = 0
    while n_edges < n - 1:
        cw, ca_, cb_ = np.full(n, np.inf), np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
        _knn_candidates(comp, core, knn_dist, knn_pos, alpha, cw, ca_, cb_)
        node_comp = _node_components(comp, start, stop)
        _nearest_outsiders(
            (points, start, stop, low, high), comp, core, node_comp, node_core, alpha, cw.copy(), found_w, found_t
        )
        before, n_edges = (
            n_edges,
            _merge_round(comp, found_w, found_t, cw, ca_, cb_, parent, edges_a, edges_b, edges_w, n_edges),
        )
        if n_edges == before:  # cannot happen with finite distances: every component has a nearest outsider
            raise RuntimeError("mutual-reachability spanning tree: a Boruvka round joined no components")
    return edges_a, edges_b, edges_w


@njit(cache=True)
def dense_reachability_mst(D, core, alpha=1.0):
    """Prim's algorithm on the mutual reachability of a full distance matrix (n^2: for
    ``metric='precomputed'``): edges ``(a, b, weight)``.

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 4.0], [5.0, 4.0, 0.0]])
    >>> sorted(dense_reachability_mst(D, np.zeros(3))[2].tolist())
    [1.0, 4.0]
    """
    n = D.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    best, source = np.full(n, np.inf), np.zeros(n, dtype=np.int64)
    edges_a, edges_b, edges_w = np.empty(n - 1, dtype=np.int64), np.empty(n - 1, dtype=np.int64), np.empty(n - 1)
    current = 0
    for step in range(n - 1):
        in_tree[current] = True
        nxt, nxt_w = -1, np.inf
        for j in range(n):
            if in_tree[j]:
                continue
            w = max(core[current], core[j], D[current, j] / alpha)
            if w < best[j]:
                best[j], source[j] = w, current
            if best[j] < nxt_w or nxt < 0:  # the first outside point when none is at a finite distance
                nxt, nxt_w = j, best[j]
        edges_a[step], edges_b[step], edges_w[step] = source[nxt], nxt, nxt_w
        current = nxt
    return edges_a, edges_b, edges_w
