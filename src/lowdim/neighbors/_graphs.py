"""Neighbour graphs: kNN and radius graphs (sparse) and symmetrisation (joining their
components is ``_join``)."""

import numpy as np
import scipy.sparse as sp

from ._choose import make_index
from ._tiles import KD_TREE_UP_TO, ProductTiles


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


PAIR_CHUNK = 1 << 16  # pairs whose distances are taken at once (their differences stay in the caches)


def radius_neighbors_graph(
    X, radius, *, Y=None, mode="distance", metric="euclidean", metric_params=None, block_bytes=8 << 20
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
    block_bytes : int, default=8 MiB
        Memory for one block of distances, for other metrics and for queries ``Y`` of
        more than 16 columns (up to 16 Euclidean columns a k-d tree lists the pairs;
        above, ``ProductTiles``). Small enough to stay in the caches: a larger block is
        fresh memory the system zeroes on first touch.

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
    if metric == "euclidean" and not sp.issparse(X) and np.shape(X)[1] <= KD_TREE_UP_TO:
        return _tree_radius_graph(np.asarray(X, dtype=np.float64), radius, Y, mode)
    if metric == "euclidean" and not sp.issparse(X) and Y is None:  # each pair once: the graph mirrors it
        X = np.asarray(X, dtype=np.float64)
        counts, cols = ProductTiles(X, radius, superset=True).upper()  # _pairs_graph measures them
        return _pairs_graph(X, X, np.repeat(np.arange(X.shape[0]), counts), cols, radius, True, mode)
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


def _tree_radius_graph(X, radius, Y, mode):
    """``radius_neighbors_graph`` of Euclidean rows by a k-d tree: the pairs within the
    radius listed (a box wholly inside taken without a distance), then ``_pairs_graph``."""
    from .._kernels.kdtree import build_tree
    from .._kernels.radius import radius_counts, radius_lists

    queries = X if Y is None else np.ascontiguousarray(np.asarray(Y, dtype=np.float64))
    points, order, start, stop, low, high = build_tree(X)
    r2 = float(radius) ** 2
    counts = radius_counts(points, start, stop, low, high, queries, r2)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    cols = np.empty(indptr[-1], dtype=np.int64)
    radius_lists(points, start, stop, low, high, queries, r2, indptr, cols, order)
    rows = np.repeat(np.arange(queries.shape[0]), counts)
    return _pairs_graph(queries, X, rows, cols, radius, Y is None, mode)


def _pairs_graph(queries, X, rows, cols, radius, self_graph, mode):
    """The radius graph of candidate pairs ``(rows, cols)`` (rows of ``queries``, of
    ``X``): their exact distances from the rows' differences, a chunk of pairs at a time,
    kept below the radius (strictly). A self graph measures each pair once (row before
    column) and mirrors it, without each row's own pair; a query equal to a row keeps its
    edge as the smallest weight."""
    if self_graph:
        once = rows < cols
        rows, cols = rows[once], cols[once]
    dist = np.concatenate(
        [
            np.sqrt(np.square(queries[rows[a : a + PAIR_CHUNK]] - X[cols[a : a + PAIR_CHUNK]]).sum(axis=1))
            for a in range(0, rows.size, PAIR_CHUNK)
        ]
        or [np.empty(0)]
    )
    keep = dist < radius
    rows, cols, dist = rows[keep], cols[keep], dist[keep]
    if not self_graph:
        dist = np.maximum(dist, np.finfo(np.float64).tiny)
    data = dist if mode == "distance" else np.ones(rows.size)
    G = sp.csr_matrix((data, (rows, cols)), shape=(queries.shape[0], X.shape[0]))
    return (G + G.T).tocsr() if self_graph else G


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
