"""Shortest paths on a sparse graph: Dijkstra from many sources, parallel over sources."""

import numpy as np
from numba import njit, prange


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
def _dijkstra_one(indptr, indices, weights, source, dist, keys, nodes):
    """Distances from ``source`` into ``dist`` (prefilled with inf); binary heap with
    lazy deletion in the caller's ``keys`` / ``nodes`` buffers (length >= edges + 1)."""
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
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            nd = d + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                keys[size], nodes[size] = nd, v
                _sift_up(keys, nodes, size)
                size += 1


@njit(cache=True, parallel=True)
def dijkstra_many(indptr, indices, weights, sources, out):
    """Row ``r`` of ``out`` (len(sources), n) = shortest-path distances from
    ``sources[r]`` along the directed CSR graph (inf where unreachable). Each source is
    independent, so the result does not depend on the thread count."""
    n = indptr.shape[0] - 1
    n_sources = sources.shape[0]
    capacity = indices.shape[0] + 1
    n_chunks = min(n_sources, 64)
    for c in prange(n_chunks):
        keys = np.empty(capacity)
        nodes = np.empty(capacity, dtype=np.int64)
        for r in range(c * n_sources // n_chunks, (c + 1) * n_sources // n_chunks):
            row = out[r]
            for j in range(n):
                row[j] = np.inf
            _dijkstra_one(indptr, indices, weights, sources[r], row, keys, nodes)
