"""Shortest paths along a sparse neighbour graph (Isomap's geodesics)."""

import numpy as np
import scipy.sparse as sp


def shortest_paths(G, sources):
    """Shortest-path distances from each of ``sources`` to every node of the graph.

    Dijkstra with a binary heap per source, the sources shared out over numba threads
    (each is independent, so the thread count does not change the result).

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
    """
    from .._kernels.paths import dijkstra_many

    G = sp.csr_matrix(G)
    if G.nnz and G.data.min() < 0:
        raise ValueError(f"shortest paths need non-negative edge weights; the graph has {G.data.min():g}.")
    sources = np.asarray(sources, dtype=np.int64)
    out = np.empty((sources.size, G.shape[0]))
    dijkstra_many(G.indptr.astype(np.int64), G.indices.astype(np.int64), G.data.astype(np.float64), sources, out)
    return out
