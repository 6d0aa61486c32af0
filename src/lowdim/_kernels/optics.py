"""OPTICS kernels: core distances and the cluster ordering (Ankerst et al. 1999).

The ordering is Prim's growth over the reachability distances ``max(core(p), d(p, o))``:
the next point is the unprocessed one of smallest reachability, the lowest row on a tie
(scikit-learn's rule), and reachabilities are rounded to 15 decimals as scikit-learn
rounds them, so that equal distances stay equal ties. Distances are summed in scipy's
order (no fastmath), which makes the ordering the same on every CPU.
"""

import heapq

import numpy as np
from numba import njit, prange

from .._threads import in_row_ranges

DECIMALS = 1e15  # numpy's around(x, 15): rint(x * 1e15) / 1e15


@njit(cache=True, inline="always")
def _round(x):
    return np.rint(x * DECIMALS) / DECIMALS


@njit(cache=True, inline="always")
def minkowski(X, i, j, p):
    """Minkowski distance between rows ``i`` and ``j`` (p = inf: Chebyshev), summed in
    column order."""
    s = 0.0
    if p == 2.0:
        for c in range(X.shape[1]):
            t = X[i, c] - X[j, c]
            s += t * t
        return np.sqrt(s)
    if p == 1.0:
        for c in range(X.shape[1]):
            s += abs(X[i, c] - X[j, c])
        return s
    if p == np.inf:
        for c in range(X.shape[1]):
            s = max(s, abs(X[i, c] - X[j, c]))
        return s
    for c in range(X.shape[1]):
        s += abs(X[i, c] - X[j, c]) ** p
    return s ** (1.0 / p)


def core_distances(X, k, p):
    """Distance of each row to its ``k``-th nearest row, itself the first (Minkowski)."""
    out = np.empty(X.shape[0])
    in_row_ranges("optics", 0, X.shape[0], lambda lo, hi: _core_rows(X, k, p, out, lo, hi))
    return out


@njit(cache=True, nogil=True)
def _core_rows(X, k, p, out, lo, hi):
    """``core_distances`` of the rows ``lo..hi``."""
    n = X.shape[0]
    kept = np.empty(k)  # the k smallest so far, increasing
    for i in range(lo, hi):
        kept[:] = np.inf
        for j in range(n):
            d = minkowski(X, i, j, p)
            if d < kept[k - 1]:
                t = k - 1
                while t > 0 and kept[t - 1] > d:
                    kept[t] = kept[t - 1]
                    t -= 1
                kept[t] = d
        out[i] = kept[k - 1]


def pair_distances(X, indptr, indices, p):
    """The Minkowski distance of every stored pair of a CSR pattern over the rows of ``X``
    (summed as ``dense_order`` sums them, so both orderings see the same numbers)."""
    dist = np.empty(indices.size)
    in_row_ranges("optics", 0, indptr.size - 1, lambda lo, hi: _pair_rows(X, indptr, indices, p, dist, lo, hi))
    return dist


@njit(cache=True, nogil=True)
def _pair_rows(X, indptr, indices, p, dist, lo, hi):
    """``pair_distances`` of the rows ``lo..hi``."""
    for i in range(lo, hi):
        for t in range(indptr[i], indptr[i + 1]):
            dist[t] = minkowski(X, i, indices[t], p)


def graph_core(indptr, dist, k):
    """Each row's ``k``-th smallest stored distance (its own 0 among them); inf where a
    row stores fewer than ``k``."""
    out = np.full(indptr.size - 1, np.inf)
    in_row_ranges("optics", 0, indptr.size - 1, lambda lo, hi: _graph_core_rows(indptr, dist, k, out, lo, hi))
    return out


@njit(cache=True, nogil=True)
def _graph_core_rows(indptr, dist, k, out, lo, hi):
    """``graph_core`` of the rows ``lo..hi``."""
    for i in range(lo, hi):
        if indptr[i + 1] - indptr[i] >= k:
            out[i] = np.sort(dist[indptr[i] : indptr[i + 1]])[k - 1]


@njit(cache=True, inline="always")
def _better(r, i, best_r, best_i):
    return r < best_r or (r == best_r and i < best_i)


@njit(cache=True, parallel=True)
def _relax_all(X, D, from_matrix, p, point, cp, max_eps, remaining, m, reach, pred, best_r, best_i):
    """Lower the reachability of the ``m`` remaining rows through ``point`` (core
    distance ``cp``; inf: not a core point) and leave each chunk's next candidate in
    ``best_r`` / ``best_i``."""
    chunks = best_r.size
    width = (m + chunks - 1) // chunks
    for c in prange(chunks):
        br, bi = np.inf, reach.size
        for t in range(c * width, min(m, (c + 1) * width)):
            o = remaining[t]
            if cp < np.inf:
                d = D[point, o] if from_matrix else minkowski(X, point, o, p)
                if d <= max_eps:
                    rd = _round(max(d, cp))
                    if rd < reach[o]:
                        reach[o] = rd
                        pred[o] = point
            if _better(reach[o], o, br, bi):
                br, bi = reach[o], o
        best_r[c], best_i[c] = br, bi


@njit(cache=True)
def dense_order(X, D, from_matrix, core, p, max_eps, chunks):
    """``(ordering, reachability, predecessor)`` with every pair's distance at hand:
    from the rows of ``X`` (Minkowski ``p``) or, with ``from_matrix``, from ``D``; each
    pass over the remaining rows in ``chunks`` parallel pieces."""
    n = core.size
    reach = np.full(n, np.inf)
    pred = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    remaining = np.arange(n)
    where = np.arange(n)  # where[o]: o's slot in remaining
    best_r, best_i = np.empty(chunks), np.empty(chunks, dtype=np.int64)
    point, m = np.int64(0), n  # typed: a literal 0 would compile _relax_all once more for it
    for step in range(n):
        order[step] = point
        last = remaining[m - 1]  # the point leaves the remaining rows
        remaining[where[point]] = last
        where[last] = where[point]
        m -= 1
        if m == 0:
            break
        _relax_all(X, D, from_matrix, p, point, core[point], max_eps, remaining, m, reach, pred, best_r, best_i)
        br, point = np.inf, n
        for c in range(chunks):
            if _better(best_r[c], best_i[c], br, point):
                br, point = best_r[c], best_i[c]
    return order, reach, pred


@njit(cache=True)
def graph_order(indptr, indices, dist, core, max_eps):
    """The same ordering when only the stored pairs of a sparse graph are neighbours
    (CSR arrays; a binary heap of ``(reachability, row)``, stale entries skipped)."""
    n = core.size
    reach = np.full(n, np.inf)
    pred = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    heap = [(0.0, 0)] * 0
    lowest = 0  # every row below it is done
    for step in range(n):
        point = -1
        while len(heap) > 0:
            r, o = heapq.heappop(heap)
            if not done[o] and r == reach[o]:
                point = o
                break
        if point < 0:  # nothing reachable: the lowest unprocessed row
            while done[lowest]:
                lowest += 1
            point = lowest
        done[point] = True
        order[step] = point
        cp = core[point]
        if cp == np.inf:
            continue
        for t in range(indptr[point], indptr[point + 1]):
            o = indices[t]
            if done[o] or dist[t] > max_eps:
                continue
            rd = _round(max(dist[t], cp))
            if rd < reach[o]:
                reach[o] = rd
                pred[o] = point
                heapq.heappush(heap, (rd, o))
    return order, reach, pred
