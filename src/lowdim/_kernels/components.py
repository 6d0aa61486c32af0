"""Connected components of a sparse graph (its edges taken as undirected) by union-find
over its CSR arrays, without the float64 copy and transpose scipy's
``connected_components`` makes (gigabytes for a neighbour graph of millions of points)."""

import numpy as np
from numba import njit


@njit(cache=True)
def root(parent, x):
    """Union-find: the root of ``x``, halving the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _label(indptr, indices, n):
    parent = np.arange(n)
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            ri, rj = root(parent, i), root(parent, indices[p])
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    labels, number = np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int32)
    count = 0
    for i in range(n):
        r = root(parent, i)
        if number[r] < 0:
            number[r] = count
            count += 1
        labels[i] = number[r]
    return count, labels


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

    G = G if sp.issparse(G) and G.format == "csr" else sp.csr_matrix(G)
    count, labels = _label(G.indptr, G.indices, G.shape[0])
    return int(count), labels


@njit(cache=True)
def kruskal_tree(a, b, w, n):
    """Kruskal's minimum spanning forest of the edges ``(a, b, w)``, already sorted by
    weight (ties in the order given): the edges it keeps.

    Examples
    --------
    >>> a, b, w = kruskal_tree(np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 1.0, 1.0]), 3)
    >>> a.tolist(), b.tolist()
    ([0, 1], [1, 2])
    """
    parent = np.arange(n)
    keep = np.zeros(a.size, dtype=np.bool_)
    found = 0
    for e in range(a.size):
        ra, rb = root(parent, a[e]), root(parent, b[e])
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
            keep[e] = True
            found += 1
            if found == n - 1:
                break
    return a[keep], b[keep], w[keep]
