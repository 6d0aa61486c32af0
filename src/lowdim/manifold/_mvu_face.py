"""Facial reduction of the maximum variance unfolding program by universally rigid
clusters of the neighbour graph.

When the data live in few dimensions ``D``, the kNN graph holds groups of points whose
mutual distances fix their Gram matrix in *every* dimension: a clique of ``D + 1``
affinely independent points, grown by every point joined to ``D + 1`` affinely
independent members (its position is then determined: the differences of its squared
distances fix its projection on the members' affine hull, and what is left is zero),
and by merging two such groups that share ``D + 1`` affinely independent points (the
same argument as for sensor network localisation, Krislock & Wolkowicz 2010). Every
feasible Gram matrix ``K`` of such a cluster ``C`` is the data's own up to rotation, so
``K v = 0`` for every ``v`` on ``C`` orthogonal to ``[1, X_C]``. Those vectors expose a
face of the PSD cone that contains every feasible point; restricted to it, the program
keeps its optimum and loses most of the directions in which it had no interior point,
which interior-point methods need (not all: other rigid structures remain, e.g. on a
50-point strip in 3-D the stresses span 48 directions and the clusters cut 25)."""

import itertools

import numpy as np
import scipy.linalg

AFFINE_TOL = 1e-6  # relative singular value below which points count as affinely dependent


def affine_rank(P, tol=AFFINE_TOL):
    """Dimension of the affine hull of the rows of ``P``.

    Examples
    --------
    >>> affine_rank(np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]))
    1
    """
    if len(P) <= 1:
        return 0
    s = np.linalg.svd(P[1:] - P[0], compute_uv=False)
    return int(np.sum(s > tol * s[0])) if s[0] > 0 else 0


def _seed(v, adj, X, D):
    """A clique of ``D + 1`` affinely independent points containing ``v`` (greedily, by
    most common neighbours), or None."""
    clique, candidates = [v], set(adj[v])
    while len(clique) < D + 1 and candidates:
        u = max(sorted(candidates), key=lambda u: len(candidates & adj[u]))
        candidates.discard(u)
        if affine_rank(X[clique + [u]]) == len(clique):
            clique.append(u)
            candidates &= adj[u]
    return set(clique) if len(clique) == D + 1 else None


def _grow(cluster, adj, X, D):
    """Add, until none is left, every point joined to ``D + 1`` affinely independent
    members of ``cluster`` (in place)."""
    frontier = set().union(*(adj[c] for c in cluster)) - cluster
    while frontier:
        added = [
            u for u in sorted(frontier) if len(adj[u] & cluster) > D and affine_rank(X[sorted(adj[u] & cluster)]) == D
        ]
        cluster.update(added)
        frontier = set().union(*(adj[a] for a in added)) - cluster


def _merge(clusters, adj, X, D):
    """Merge clusters sharing ``D + 1`` affinely independent points (and grow the
    union) until no two do."""
    merged = True
    while merged:
        merged = False
        for i, j in itertools.combinations(range(len(clusters)), 2):
            common = clusters[i] & clusters[j]
            if len(common) > D and affine_rank(X[sorted(common)]) == D:
                clusters[i] |= clusters.pop(j)
                _grow(clusters[i], adj, X, D)
                merged = True
                break
    return clusters


def rigid_clusters(X, rows, cols):
    """Universally rigid clusters (sets of point indices, each larger than ``D + 1``) of
    the framework of the points ``X`` and the edges ``(rows, cols)``.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    >>> rows, cols = np.array([0, 0, 0, 1, 1, 2, 3]), np.array([1, 2, 3, 2, 3, 3, 4])
    >>> [sorted(c) for c in rigid_clusters(X, rows, cols)]
    [[0, 1, 2, 3]]
    """
    n, D = len(X), affine_rank(X)
    adj = [set() for _ in range(n)]
    for a, b in zip(rows.tolist(), cols.tolist()):
        adj[a].add(b)
        adj[b].add(a)
    clusters, covered = [], np.zeros(n, dtype=bool)
    for v in range(n if D > 0 else 0):
        cluster = None if covered[v] else _seed(v, adj, X, D)
        if cluster is not None:
            _grow(cluster, adj, X, D)
            if len(cluster) > D + 1:
                clusters.append(cluster)
                covered[sorted(cluster)] = True
    return _merge(clusters, adj, X, D)


def mvu_face(X, rows, cols):
    """Orthonormal ``V`` (n, r), orthogonal to the ones vector, whose range holds the range
    of every centred Gram matrix that keeps the edge lengths of ``X``.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> rows, cols = np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3])
    >>> V = mvu_face(X, rows, cols)  # all distances known: only the data's own plane
    >>> V.shape, bool(np.allclose(V @ V.T @ (X - X.mean(axis=0)), X - X.mean(axis=0)))
    ((4, 2), True)
    """
    n = len(X)
    exposing = [np.ones((n, 1))]
    for cluster in rigid_clusters(X, rows, cols):
        idx = np.array(sorted(cluster))
        null = scipy.linalg.null_space(np.c_[np.ones(len(idx)), X[idx]].T)
        block = np.zeros((n, null.shape[1]))
        block[idx] = null
        exposing.append(block)
    return scipy.linalg.null_space(np.hstack(exposing).T)


def laplacian_basis(rows, cols, n):
    """Orthonormal basis (n, n - 1) of the centred Gram matrices' whole cone: the
    non-constant eigenvectors of the (connected) kNN graph's Laplacian.

    Any orthonormal basis of the ones vector's complement poses the same program; this
    one follows the graph. A Householder basis (nearly coordinate vectors) makes
    Clarabel stop with a numerical error in its first iteration on some machines (40
    digits images: AVX-512 build), where this one is solved.

    Examples
    --------
    >>> B = laplacian_basis(np.array([0, 1, 2]), np.array([1, 2, 3]), 4)
    >>> bool(np.allclose(B.T @ B, np.eye(3)) and np.allclose(B.sum(axis=0), 0))
    True
    """
    L = np.zeros((n, n))
    np.add.at(L, (rows, cols), -1.0)
    L = L + L.T
    L -= np.diag(L.sum(axis=1))
    # the ones vector made the top eigenvector, so the others are orthogonal to it
    _, E = np.linalg.eigh(L + np.full((n, n), 2.0 * np.abs(L).sum(axis=1).max() / n + 1.0))
    return E[:, :-1]
