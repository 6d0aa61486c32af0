"""Shortest paths on a sparse graph: Dijkstra from many sources, parallel over sources;
all pairs with the rows of a deferred node set assembled from the others' rows."""

import numpy as np
from numba import njit, prange

from .components import root


@njit(cache=True, inline="always")
def _sift_down(keys, nodes, size, pos):
    key, node = keys[pos], nodes[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[pos], nodes[pos] = keys[child], nodes[child]
        pos = child
    keys[pos], nodes[pos] = key, node


@njit(cache=True, inline="always")
def _sift_up(keys, nodes, pos):
    key, node = keys[pos], nodes[pos]
    while pos > 0:
        parent = (pos - 1) // 2
        if keys[parent] <= key:
            break
        keys[pos], nodes[pos] = keys[parent], nodes[parent]
        pos = parent
    keys[pos], nodes[pos] = key, node


@njit(cache=True)
def _dijkstra_one(indptr, indices, weights, source, dist, keys, nodes, out, known):
    """Distances from ``source`` into ``dist`` (prefilled with inf); binary heap with
    lazy deletion in the caller's ``keys`` / ``nodes`` buffers (length >= edges + 1).

    A node whose full row ``out[u]`` is already known (``known[u]``) is not expanded:
    every node x gets d(source, u) + out[u, x] at once. A path either avoids the known
    nodes (found by the usual expansion) or passes through a first one, which is
    settled with its exact distance, so the result is exact."""
    dist[source] = 0.0
    keys[0], nodes[0] = 0.0, source
    size = 1
    while size > 0:
        d, u = keys[0], nodes[0]
        size -= 1
        if size > 0:
            keys[0], nodes[0] = keys[size], nodes[size]
            _sift_down(keys, nodes, size, 0)
        if d > dist[u]:
            continue  # a stale entry: u was settled through a shorter path
        if known[u]:
            row = out[u]
            for x in range(dist.shape[0]):
                if d + row[x] < dist[x]:
                    dist[x] = d + row[x]
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            nd = d + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                keys[size], nodes[size] = nd, v
                _sift_up(keys, nodes, size)
                size += 1


@njit(cache=True)
def dijkstra_many(indptr, indices, weights, sources, out, rows):
    """Row ``rows[r]`` of ``out`` = shortest-path distances from ``sources[r]`` along the
    directed CSR graph (inf where unreachable). Each source is independent, so the result
    does not depend on the thread count."""
    known = np.zeros(indptr.shape[0] - 1, dtype=np.bool_)
    _rows_from_sources(indptr, indices, weights, sources, rows, out, known)


@njit(cache=True, parallel=True)
def _rows_from_sources(indptr, indices, weights, sources, rows, out, known):
    """``out[rows[r]]`` from ``sources[r]`` for every r, parallel over sources."""
    n_sources = sources.shape[0]
    capacity = indices.shape[0] + 1
    n_chunks = min(n_sources, 64)
    for c in prange(n_chunks):
        keys = np.empty(capacity)
        nodes = np.empty(capacity, dtype=np.int64)
        for r in range(c * n_sources // n_chunks, (c + 1) * n_sources // n_chunks):
            row = out[rows[r]]
            row[:] = np.inf
            _dijkstra_one(indptr, indices, weights, sources[r], row, keys, nodes, out, known)


@njit(cache=True)
def deferrable_nodes(indptr, indices, order, cap):
    """Greedy (in ``order``) set of nodes whose induced subgraph has components of at
    most ``cap`` nodes: their rows are cheap once every other row is known."""
    n = indptr.shape[0] - 1
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    chosen = np.zeros(n, dtype=np.bool_)
    roots = np.empty(indices.shape[0] + 1, dtype=np.int64)
    for v in order:
        n_roots, total = 0, 1
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if chosen[w]:
                r = root(parent, w)
                seen = False
                for i in range(n_roots):
                    seen = seen or roots[i] == r
                if not seen:
                    roots[n_roots] = r
                    n_roots += 1
                    total += size[r]
        if total <= cap:
            chosen[v] = True
            for i in range(n_roots):
                parent[roots[i]] = v
                size[v] += size[roots[i]]
    return chosen


@njit(cache=True)
def rows_through_known(indptr, indices, weights, targets, out, known):
    """Rows ``out[t]`` for each of ``targets`` from the rows of the ``known`` nodes
    (which are only read, so the result does not depend on the thread count)."""
    _rows_from_sources(indptr, indices, weights, targets, targets, out, known)
