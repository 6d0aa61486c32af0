"""Neighbour graphs: kNN and radius graphs (sparse), symmetrisation, and joining
disconnected components by their shortest edges (docs/reliability.md)."""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from ._choose import make_index
from ._exact import ExactIndex


def kneighbors_graph(X, n_neighbors, *, mode="distance", metric="euclidean", algorithm="auto", index=None):
    """Sparse (n, n) graph with an edge from each point to its ``n_neighbors`` nearest
    other points.

    Parameters
    ----------
    X : array-like (n, d), or (n, n) distances with metric='precomputed'
    n_neighbors : int
    mode : {'distance', 'connectivity'}
        Edge weights: the distances, or ones.
    metric : str
    algorithm : {'auto', 'exact', 'approximate'}, default='auto'
        The index ``make_index`` picks (approximate from 20,000 points on, with faiss).
    index : kNN index, optional
        Anything with ``build(X)`` / ``query(X, k, exclude_self=True)``; overrides ``algorithm``.

    Returns
    -------
    scipy.sparse.csr_matrix

    Examples
    --------
    >>> G = kneighbors_graph(np.array([[0.0], [1.0], [3.0]]), 1)
    >>> G.toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """
    if mode not in ("distance", "connectivity"):
        raise ValueError(f"mode must be 'distance' or 'connectivity'; got {mode!r}.")
    index = (index or make_index(algorithm, metric, len(X))).build(X)
    dist, idx = index.query(X, n_neighbors, exclude_self=True)
    n = idx.shape[0]
    data = dist.ravel() if mode == "distance" else np.ones(idx.size)
    indptr = np.arange(0, n * n_neighbors + 1, n_neighbors)
    return sp.csr_matrix((data, idx.ravel(), indptr), shape=(n, index.n_samples_))


def radius_neighbors_graph(X, radius, *, mode="distance", metric="euclidean", block_bytes=64 << 20):
    """Sparse graph with an edge between every two distinct points closer than ``radius``.

    Examples
    --------
    >>> radius_neighbors_graph(np.array([[0.0], [1.0], [3.0]]), 1.5).nnz
    2
    """
    index = ExactIndex(metric, block_bytes).build(X)
    n = index.n_samples_
    rows, cols, vals = [], [], []
    step = max(1, block_bytes // (8 * n))
    X = np.asarray(X)
    for start in range(0, n, step):
        D = index._block_distances(X[start:start + step])
        r, c = np.nonzero(D < radius)
        keep = r + start != c
        rows.append(r[keep] + start)
        cols.append(c[keep])
        vals.append(D[r[keep], c[keep]] if mode == "distance" else np.ones(keep.sum()))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def symmetrize(G, how="max"):
    """Undirected version of a directed neighbour graph.

    Parameters
    ----------
    G : sparse (n, n)
    how : {'max', 'min', 'mean'}
        'max' keeps an edge present in either direction (the usual kNN graph union),
        'min' only mutual edges, 'mean' averages (a missing direction counts as 0).

    Examples
    --------
    >>> G = sp.csr_matrix(np.array([[0.0, 2.0], [0.0, 0.0]]))
    >>> symmetrize(G).toarray().tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    G = sp.csr_matrix(G)
    T = G.T.tocsr()
    if how == "max":
        return G.maximum(T).tocsr()
    if how == "min":
        both = G.multiply(T > 0) if G.nnz else G
        return sp.csr_matrix(both).minimum(T).tocsr()
    if how == "mean":
        return ((G + T) * 0.5).tocsr()
    raise ValueError(f"how must be 'max', 'min' or 'mean'; got {how!r}.")


def _closest_pair(X, a, b):
    """Closest pair of points between index sets ``a`` and ``b`` (blocked)."""
    index = ExactIndex().build(X[b])
    dist, idx = index.query(X[a], 1)
    i = int(np.argmin(dist[:, 0]))
    return a[i], b[idx[i, 0]], float(dist[i, 0])


def join_components(G, X, *, name="graph"):
    """Connect a disconnected symmetric graph: warn with the number of components, then
    add, between components, the edges of a minimum spanning tree of their closest
    pairs of points (Euclidean). Returns the graph unchanged when connected.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> G = symmetrize(kneighbors_graph(X, 1))
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     J = join_components(G, X)
    >>> connected_components(J)[0]
    1
    """
    n_comp, labels = connected_components(G, directed=False)
    if n_comp == 1:
        return G
    warnings.warn(f"the {name} has {n_comp} connected components; joining them by their shortest "
                  "edges (raise n_neighbors to connect it yourself).", UserWarning, stacklevel=2)
    X = np.asarray(X, dtype=np.float64)
    members = [np.flatnonzero(labels == c) for c in range(n_comp)]
    C = np.zeros((n_comp, n_comp))
    pairs = {}
    for p in range(n_comp):
        for q in range(p + 1, n_comp):
            i, j, d = _closest_pair(X, members[p], members[q])
            C[p, q], pairs[p, q] = max(d, np.finfo(float).tiny), (i, j, d)
    tree = minimum_spanning_tree(sp.csr_matrix(C)).tocoo()
    G = sp.lil_matrix(G)
    for p, q in zip(tree.row, tree.col):
        i, j, d = pairs[min(p, q), max(p, q)]
        G[i, j] = G[j, i] = max(d, np.finfo(float).tiny)
    return G.tocsr()
