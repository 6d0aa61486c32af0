"""HDBSCAN's spanning tree of a small table without numba kernels, so that a first fit
compiles nothing (the k-d tree's and the tree's kernels cost a new process seconds of
compilation: BENCHMARKS.md, "Cold start"). Core distances come from scipy's k-d tree,
re-summed exactly; the tree is Prim's algorithm on mutual reachability as scikit-learn
runs it on the rows: from row 0, the frontier row of least reachability next (the
smallest index among equal ones), joined to the earliest tree row that offered it. Its
edges so come in Prim's order, with scikit-learn's ties for any alpha. Each step screens
every row by one matrix-vector product and sums exact distances only for the few rows
the new tree row could bring nearer."""

import numpy as np
from scipy.spatial import cKDTree

from .._threads import blas_threads
from ..linalg import row_norms_sq
from ..neighbors import ExactIndex, expansion_error_bound

# Tables of up to n^2 (d + 32) = 2^33 take this path: a fit of about a second and a half
# (10,000 rows of 50 features), where the kernels' first call compiles for six.
SMALL_PRIM = 1 << 33
CHUNK_CELLS = 1 << 20  # core distances re-summed 8 MiB of differences at a time
LARGEST = 1e100  # beyond this magnitude the screening's squared norms could overflow


def prim_fits(X):
    """Whether the finite rows ``X`` take ``prim_spanning_tree``: few enough for its
    n steps over all rows, and small enough for squared norms.

    Examples
    --------
    >>> prim_fits(np.zeros((100, 5))), prim_fits(np.zeros((100_000, 5)))
    (True, False)
    """
    n, d = X.shape
    return n * n * (d + 32) <= SMALL_PRIM and float(np.abs(X).max(initial=0.0)) < LARGEST


def pair_distances(X, rows, cols):
    """Euclidean distances between the rows ``rows[p]`` and ``cols[p]`` of ``X``,
    summed feature after feature as scikit-learn's metric sums them, so that a pair
    gives the same bits wherever it is computed (its core distance and its edge tie
    exactly). A sum over the leading axis of a (features x pairs) array adds whole rows
    in order, where numpy sums along contiguous memory pairwise: so the differences are
    laid out in C order (the rows gathered, then transposed into it; gathering columns
    of ``X.T`` is slow for wide rows) and a lone pair goes with a copy (a single column
    is contiguous either way). Pairs go ``CHUNK_CELLS`` differences at a time.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> pair_distances(X, np.array([1]), np.array([0])).tolist()
    [5.0]
    """
    size, d = rows.size, X.shape[1]
    out = np.empty(size)
    step = max(2, CHUNK_CELLS // max(d, 1))
    for a in range(0, size, step):
        r, c = rows[a : a + step], cols[a : a + step]
        if r.size == 1:
            r, c = np.repeat(r, 2), np.repeat(c, 2)
        diff = np.empty((d, r.size))
        diff[:] = X[r].T
        diff -= X[c].T
        np.square(diff, out=diff)
        out[a : a + step] = np.sqrt(diff.sum(axis=0))[: min(step, size - a)]
    return out


def core_neighbours(X, m):
    """Each row's ``m`` nearest rows (itself among them) by scipy's k-d tree, and their
    distances by ``pair_distances``: ``(indices, distances)``, (n, m) each; the core
    distance is a row's largest.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> core_neighbours(X, 2)[1].max(axis=1).tolist()
    [1.0, 1.0, 2.0]
    """
    n, d = X.shape
    if n <= d:  # wide rows: a k-d tree splits on few of their features and visits every row
        nbr = ExactIndex().build(X).query(X, m)[1]
    else:  # as many threads as BLAS may use (``--threads``, threadpoolctl limits)
        nbr = cKDTree(X).query(X, k=list(range(1, m + 1)), workers=blas_threads())[1].astype(np.int64)
    dist = np.empty((n, m))
    step = max(1, CHUNK_CELLS // (m * X.shape[1]))
    for a in range(0, n, step):
        b = min(n, a + step)
        own = np.repeat(np.arange(a, b), m)
        dist[a:b] = pair_distances(X, nbr[a:b].ravel(), own).reshape(b - a, m)
    return nbr, dist


def prim_spanning_tree(X, core, alpha):
    """Prim's minimum spanning tree of mutual reachability
    ``max(core[i], core[j], |x_i - x_j| / alpha)`` over all pairs of rows, as the module
    describes: ``(source, target, weight)``, the n - 1 edges in the order Prim adds them.

    A row j can come nearer through the new tree row c only where
    ``max(core[c], core[j]) < reach[j]`` and its distance is below ``alpha * reach[j]``;
    the distance is screened by the expansion ``|c|^2 + |j|^2 - 2 c.j`` of the centred
    rows, whose error ``expansion_error_bound`` bounds, and summed exactly where the
    screen lets a row through.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> s, t, w = prim_spanning_tree(X, np.zeros(4), 1.0)
    >>> s.tolist(), t.tolist(), w.tolist()
    ([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])
    """
    n, d = X.shape
    C = X - X.mean(axis=0)
    sq = row_norms_sq(C)
    # doubled: the screen's own sums round as often again as the expansion's
    slack = 2.0 * expansion_error_bound(sq, sq.max(initial=0.0), d, np.float64)
    grow = 1.0 + 4 * (d + 4) * np.finfo(np.float64).eps  # the exact sums' own rounding, and squaring
    # Per row outside the tree (``alive``, compacted as the tree grows): its reachability,
    # the tree row offering it, and the screen: a row passes where -2 c.j is below it,
    # the bound on its squared distance less |j|^2 (-inf where it can come no nearer).
    alive, minus_2c, rows_sq, rows_core = np.arange(n), -2.0 * C, sq, core
    # wide rows: the products of all pairs at once (a GEMM of n x n), not n products of all rows
    gram = minus_2c @ C.T if n <= d else None
    reach, via, screen = np.full(n, np.inf), np.zeros(n, dtype=np.int64), np.full(n, np.inf)
    source, target, weight = np.empty(n - 1, dtype=np.int64), np.empty(n - 1, dtype=np.int64), np.empty(n - 1)
    current, screen[0] = 0, -np.inf
    for step in range(n - 1):
        product = gram[current, alive] if gram is not None else minus_2c @ C[current]
        product += sq[current] - slack[current]
        rows = np.flatnonzero(product < screen)
        rows = rows[reach[rows] > core[current]]
        if rows.size:
            cols = np.full(rows.size, current)
            near = np.maximum(pair_distances(X, alive[rows], cols) / alpha, np.maximum(rows_core[rows], core[current]))
            better = near < reach[rows]  # a tie keeps the earlier tree row
            rows, near = rows[better], near[better]
            reach[rows], via[rows] = near, current
            screen[rows] = np.where(rows_core[rows] < near, np.square(alpha * near) * grow - rows_sq[rows], -np.inf)
        at = int(np.argmin(reach))  # the first of equal ones: alive keeps the rows in order
        current = int(alive[at])
        source[step], target[step], weight[step] = via[at], current, reach[at]
        reach[at], screen[at] = np.inf, -np.inf
        if 2 * (n - 1 - step) < alive.size:  # half of them are in the tree: drop those
            keep = np.isfinite(reach)
            alive, reach, via, screen = alive[keep], reach[keep], via[keep], screen[keep]
            rows_sq, rows_core = sq[alive], core[alive]
            minus_2c = -2.0 * C[alive] if gram is None else None
    return source, target, weight
