"""Connected components of a sparse graph (its edges taken as undirected): scipy's
``connected_components`` for graphs of up to ``SCIPY_EDGES`` stored edges (compiled C, so
a first call compiles nothing), union-find over the CSR arrays above, without the
float64 copy and transpose scipy makes (gigabytes for a neighbour graph of millions of
points)."""

import numpy as np
from numba import njit

SCIPY_EDGES = 1 << 20  # scipy's copies of such a graph stay under about 30 MB


@njit(cache=True)
def root(parent, x):
    """Union-find: the root of ``x``, halving the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _label(indptr, indices, n):
    parent = np.empty(n, dtype=np.int64)  # loops, not np.arange / np.full: less to compile
    for i in range(n):
        parent[i] = i
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            ri, rj = root(parent, i), root(parent, np.int64(indices[p]))  # one compiled root
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    labels, number = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
    for i in range(n):
        number[i] = -1
    count = 0
    for i in range(n):
        r = root(parent, i)
        if number[r] < 0:
            number[r] = count
            count += 1
        labels[i] = number[r]
    return count, labels


@njit(cache=True)
def union_marked_links(parent, ids, indptr, indices, marked):
    """Union-find: join each row ``ids[r]`` with its listed neighbours
    ``indices[indptr[r]:indptr[r + 1]]`` where both are ``marked``, each set's root its
    smallest member (so the roots number the sets in the order of their first row).
    Neighbourhoods list each other: a pair is joined from its larger row only."""
    for r in range(ids.size):
        i = ids[r]
        if not marked[i]:
            continue
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if j < i and marked[j]:
                ri, rj = root(parent, i), root(parent, j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)


@njit(cache=True)
def all_roots(parent):
    """Each element's root under ``union_marked_links``."""
    out = np.empty(parent.size, dtype=np.int64)
    for i in range(parent.size):
        out[i] = root(parent, i)
    return out


def connected_components(G):
    """``(n_components, labels)`` of the symmetric sparse graph ``G``, components numbered
    in the order of their smallest point (as scipy's).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> n, labels = connected_components(sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])))
    >>> n, labels.tolist()
    (2, [0, 0, 1])
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_components

    G = G if sp.issparse(G) and G.format == "csr" else sp.csr_matrix(G)
    if G.nnz <= SCIPY_EDGES:
        count, labels = scipy_components(G, directed=False)
        return int(count), labels.astype(np.int32, copy=False)
    count, labels = _label(G.indptr, G.indices, G.shape[0])
    return int(count), labels


@njit(cache=True, inline="always")
def _precedes(w, lo, hi, w2, lo2, hi2):
    """Edge order: by weight, then by lower end, then by higher end."""
    return w < w2 or (w == w2 and (lo < lo2 or (lo == lo2 and hi < hi2)))


@njit(cache=True)
def reachability_tree(D, core):
    """Minimum spanning tree of the mutual reachability ``max(core_i, core_j, D_ij)``
    of a dense distance matrix, read in its upper triangle (Prim's algorithm, O(n^2) time, O(n) memory besides D):
    edges ``(a, b, weight)`` with ``a < b``.

    Edges are ordered by (weight, lower end, higher end), a strict order, so the tree is
    the one minimum under it: among equal weights, the tree Kruskal's algorithm keeps
    over the pairs in row order (scipy's and the hdbscan package's), without sorting
    the n^2 / 2 pairs.

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    >>> a, b, w = reachability_tree(D, np.zeros(3))
    >>> a.tolist(), b.tolist(), w.tolist()
    ([0, 0], [1, 2], [1.0, 1.0])
    """
    n = D.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    best_w, best_lo, best_hi = np.full(n, np.inf), np.full(n, n, np.int64), np.full(n, n, np.int64)
    a, b, w = np.empty(n - 1, np.int64), np.empty(n - 1, np.int64), np.empty(n - 1)
    current = 0
    for step in range(n - 1):
        in_tree[current] = True
        nxt = -1
        for j in range(n):
            if in_tree[j]:
                continue
            lo, hi = min(current, j), max(current, j)
            r = max(max(core[lo], core[hi]), D[lo, hi])  # the upper triangle, as the pairs in row order
            if _precedes(r, lo, hi, best_w[j], best_lo[j], best_hi[j]):
                best_w[j], best_lo[j], best_hi[j] = r, lo, hi
            if nxt < 0 or _precedes(best_w[j], best_lo[j], best_hi[j], best_w[nxt], best_lo[nxt], best_hi[nxt]):
                nxt = j
        a[step], b[step], w[step] = best_lo[nxt], best_hi[nxt], best_w[nxt]
        current = nxt
    return a, b, w
