"""Shortest paths along a sparse neighbour graph (Isomap's geodesics)."""

import numpy as np
import scipy.sparse as sp

# components of the deferred node set (see _all_pairs) are kept to at most this fraction
# of the nodes: about half of the rows are then deferred, each costing a fraction of a
# full search (BENCHMARKS.md, Design choices: paths)
DEFERRED_COMPONENT = 0.5


def shortest_paths(G, sources):
    """Shortest-path distances from each of ``sources`` to every node of the graph.

    Dijkstra with a binary heap per source, the sources shared out over numba threads
    (each is independent, so the thread count does not change the result). When the
    sources are every node (all pairs), about half of the rows are not searched in full
    but assembled from the others' (see ``_all_pairs``).

    Parameters
    ----------
    G : sparse (n, n)
        Non-negative edge weights; read as directed (symmetrise it for an undirected graph).
    sources : array-like of int (m,)

    Returns
    -------
    ndarray (m, n); inf where a node is unreachable.

    Examples
    --------
    >>> G = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, 2.0], [0, 2.0, 0]]))
    >>> shortest_paths(G, [0]).tolist()
    [[0.0, 1.0, 3.0]]
    >>> shortest_paths(G, [0, 1, 2])[2].tolist()
    [3.0, 2.0, 0.0]
    """
    from .._kernels.paths import dijkstra_many

    G = sp.csr_matrix(G)
    if G.nnz and G.data.min() < 0:
        raise ValueError(f"shortest paths need non-negative edge weights; the graph has {G.data.min():g}.")
    sources = np.asarray(sources, dtype=np.int64)
    graph = (G.indptr.astype(np.int64), G.indices.astype(np.int64), G.data.astype(np.float64))
    n = G.shape[0]
    if sources.size == n and np.array_equal(np.sort(sources), np.arange(n)):
        out = _all_pairs(graph, n)
        return out if np.array_equal(sources, np.arange(n)) else out[sources]
    out = np.empty((sources.size, n))
    dijkstra_many(*graph, sources, out, np.arange(sources.size))
    return out


def _all_pairs(graph, n):
    """The (n, n) distance matrix. A deferred set of nodes, whose induced subgraph falls
    into components of at most DEFERRED_COMPONENT x n nodes (chosen greedily, low degree
    first), is left out of the Dijkstra pass; each deferred row is then a Dijkstra that
    stops at the first searched node on every path and takes that node's row from there,
    which visits little more than the near part of the node's own component."""
    from .._kernels.paths import deferrable_nodes, dijkstra_many, rows_through_known

    indptr, indices, _ = graph
    order = np.argsort(np.diff(indptr), kind="stable")
    deferred = deferrable_nodes(indptr, indices, order, max(1, int(DEFERRED_COMPONENT * n)))
    out = np.empty((n, n))
    searched = np.flatnonzero(~deferred)
    dijkstra_many(*graph, searched, out, searched)
    rows_through_known(*graph, np.flatnonzero(deferred), out, ~deferred)
    return out
