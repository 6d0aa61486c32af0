"""Neighbour graphs: kNN and radius graphs (sparse), symmetrisation, and joining
disconnected components by their shortest edges (docs/reliability.md)."""

import warnings

import numpy as np
import scipy.sparse as sp

from .._kernels.components import connected_components
from ..linalg import row_norms_sq, sq_euclidean
from ._choose import make_index


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
    index = (index or make_index(algorithm, metric, X.shape[0], sparse=sp.issparse(X))).build(X)
    dist, idx = index.query(X, n_neighbors, exclude_self=True)
    n = idx.shape[0]
    data = dist.ravel() if mode == "distance" else np.ones(idx.size)
    indptr = np.arange(0, n * n_neighbors + 1, n_neighbors)
    return sp.csr_matrix((data, idx.ravel(), indptr), shape=(n, index.n_samples_))


def radius_neighbors_graph(
    X, radius, *, Y=None, mode="distance", metric="euclidean", metric_params=None, block_bytes=64 << 20
):
    """Sparse graph with an edge between every two distinct points closer than ``radius``.

    With ``Y``, the edges go from each row of ``Y`` to the rows of ``X`` closer than
    ``radius`` (shape ``(len(Y), len(X))``; a row of Y equal to a row of X keeps that
    edge, with weight ``tiny`` in place of 0 so that the sparse matrix stores it).

    Parameters
    ----------
    X : array-like (n, d)
    radius : float
    Y : array-like (m, d), optional
        Query points (default: ``X`` itself, without self-loops).
    mode : {'distance', 'connectivity'}, default='distance'
    metric : str, default='euclidean'
    metric_params : dict, optional
    block_bytes : int, default=64 MiB
        Memory for one block of distances.

    Returns
    -------
    scipy.sparse.csr_matrix (m, n)

    Examples
    --------
    >>> radius_neighbors_graph(np.array([[0.0], [1.0], [3.0]]), 1.5).nnz
    2
    >>> radius_neighbors_graph(np.array([[0.0], [1.0]]), 1.5, Y=np.array([[0.5], [9.0]])).toarray()
    array([[0.5, 0.5],
           [0. , 0. ]])
    """
    index = make_index("exact", metric, len(X), metric_params).build(X)
    n = index.n_samples_
    queries = np.asarray(X if Y is None else Y)
    rows, cols, vals = [], [], []
    step = max(1, block_bytes // (8 * n))
    for start in range(0, queries.shape[0], step):
        D = index._block_distances(queries[start : start + step])
        r, c = np.nonzero(D < radius)
        keep = r + start != c if Y is None else np.ones(r.size, dtype=bool)
        rows.append(r[keep] + start)
        cols.append(c[keep])
        found = np.maximum(D[r[keep], c[keep]], np.finfo(np.float64).tiny) if Y is not None else D[r[keep], c[keep]]
        vals.append(found if mode == "distance" else np.ones(keep.sum()))
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(queries.shape[0], n)
    )


def symmetrize(G, how="max"):
    """Undirected version of a directed neighbour graph.

    Parameters
    ----------
    G : sparse (n, n)
    how : {'max', 'min', 'mean'}
        'max' keeps an edge present in either direction (the usual kNN graph union),
        'min' only mutual edges, 'mean' averages (a missing direction counts as 0).

    Returns
    -------
    scipy.sparse.csr_matrix (n, n)

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


JOIN_BY_SEARCH_FROM = 50_000  # points: above, components are joined through the kNN index


def _nearest_foreign(distances, n, labels):
    """For every row, the nearest row with another label: (distance, index).
    ``distances(start, stop)`` gives rows ``start:stop`` against all, about 64 MB at a time."""
    dist, index = np.empty(n), np.empty(n, dtype=np.int64)
    step = max(1, (8 << 20) // n)
    for start in range(0, n, step):
        stop = min(n, start + step)
        D = np.array(distances(start, stop), dtype=np.float64)
        D[labels[start:stop, None] == labels[None, :]] = np.inf
        index[start:stop] = np.argmin(D, axis=1)
        dist[start:stop] = D[np.arange(stop - start), index[start:stop]]
    return dist, index


def _euclidean_rows(X):
    """``distances(start, stop)`` for ``_nearest_foreign``: Euclidean, by the expansion
    on centred rows (squared: the order is the same)."""
    X = X - X.mean(axis=0)  # the expansion keeps its digits near the origin
    x_sq = row_norms_sq(X)
    return lambda start, stop: sq_euclidean(X[start:stop], X, x_sq[start:stop], x_sq)


def _boruvka(labels, shortest):
    """Edges ``(i, j, length)`` joining the components ``labels`` (Boruvka: every round
    adds each component's shortest edge to another, ``shortest(comp) -> {component:
    (length, i, j)}``, at least halving their number, so log2(components) rounds)."""
    parent = np.arange(labels.max() + 1)

    def root(c):
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    comp, edges = labels.copy(), []
    while not np.all(comp == comp[0]):
        for length, i, j in shortest(comp).values():
            a, b = root(comp[i]), root(comp[j])
            if a != b:
                parent[max(a, b)] = min(a, b)
                edges.append((i, j, length))
        comp = np.array([root(c) for c in range(parent.size)])[comp]  # a root per label, not per point
    return edges


def _shortest_by_distances(distances, n):
    """``shortest`` for ``_boruvka`` from blocked distances to all points (n^2 work)."""

    def shortest(comp):
        dist, nearest = _nearest_foreign(distances, n, comp)
        firsts = np.lexsort((dist, comp))[np.r_[True, np.diff(np.sort(comp)) != 0]]
        return {comp[i]: (float(dist[i]), int(i), int(nearest[i])) for i in firsts}

    return shortest


def join_components(G, X, *, name="graph", index=None, edge_weight=None):
    """Connect a disconnected symmetric graph: warn with the number of components, then
    add, between components, the edges of a minimum spanning tree of their closest
    pairs of points. Returns the graph unchanged when connected.

    Distances are Euclidean between the rows of ``X``, or those of ``index`` (a built
    exact index of ``X``: its metric, or a precomputed distance matrix ``X``).

    Parameters
    ----------
    G : sparse matrix (n, n)
        Symmetric graph.
    X : ndarray (n, d)
    name : str, default='graph'
        What to call the graph in the warning.
    index : KNNIndex, optional
        A built exact index of ``X``.
    edge_weight : float, optional
        Weight of the joining edges (an affinity graph's); default their lengths.

    Returns
    -------
    scipy.sparse.csr_matrix (n, n)

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
    n_comp, labels = connected_components(G)
    if n_comp == 1:
        return G
    warnings.warn(
        f"the {name} has {n_comp} connected components; joining them by their shortest "
        "edges (raise n_neighbors to connect it yourself).",
        UserWarning,
        stacklevel=2,
    )
    if index is not None and n_comp > 1 and G.shape[0] > JOIN_BY_SEARCH_FROM:
        return _with_edges(G, _boruvka(labels, lambda comp: _shortest_foreign(index, X, comp)), edge_weight)
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
    if index is not None and hasattr(index, "_block_distances"):
        distances = lambda start, stop: index._block_distances(X[start:stop])  # noqa: E731
        length = lambda i, j: float(index._block_distances(X[i : i + 1])[0, j])  # noqa: E731
    else:
        distances, length = _euclidean_rows(X), lambda i, j: float(np.linalg.norm(X[i] - X[j]))  # noqa: E731
    edges = _boruvka(labels, _shortest_by_distances(distances, G.shape[0]))
    return _with_edges(G, [(i, j, length(i, j) if edge_weight is None else 0.0) for i, j, _ in edges], edge_weight)


def _with_edges(G, edges, weight=None):
    """``G`` (CSR, its dtype kept) with the symmetric edges ``(i, j, length)`` added,
    weighted by their lengths or by ``weight``; one sum, the only copy of ``G``."""
    i, j, w = (np.array(v) for v in zip(*edges))
    w = np.full(w.shape, weight) if weight is not None else np.maximum(w, np.finfo(np.float32).tiny)
    w = w.astype(G.dtype)
    bridge = sp.csr_matrix((np.r_[w, w], (np.r_[i, j], np.r_[j, i])), shape=G.shape)
    return (sp.csr_matrix(G) + bridge).tocsr()


def _shortest_foreign(index, X, comp):
    """``shortest`` for ``_boruvka`` through the kNN ``index``, for millions of points:
    for every component but the largest, the shortest edge to another component among
    its members' k nearest (k doubling until one lies outside it)."""
    giant = np.argmax(np.bincount(comp))
    pending = np.flatnonzero(comp != giant)
    found, k = {}, 16
    while pending.size:
        k = min(k, index.n_samples_)
        dist, idx = index.query(np.asarray(X[pending]), k)
        foreign = comp[idx] != comp[pending][:, None]
        first = np.argmax(foreign, axis=1)
        for r in np.flatnonzero(foreign.any(axis=1)):
            c, length = comp[pending[r]], float(dist[r, first[r]])
            if c not in found or length < found[c][0]:
                found[c] = (length, int(pending[r]), int(idx[r, first[r]]))
        searched = np.array([c not in found for c in comp[pending]], dtype=bool)
        if k == index.n_samples_:
            break
        pending, k = pending[searched], 2 * k
    return found
