"""k-nearest-neighbour selection kernels (parallel over query rows, or serial for
callers that run one block per worker thread)."""

import numpy as np
from numba import njit, prange

from .sorting import insertion_sort_pairs


@njit(cache=True, parallel=True)
def smallest_k(D, k, skip, out_idx, out_dist):
    """Per row of the distance block ``D``: the ``k`` smallest entries in increasing
    order (ties by column index), leaving out column ``skip[r]`` (-1: none).

    An insertion list of length k per row: O(n) when most entries exceed the current
    k-th smallest, which is the common case.
    """
    n_rows, n = D.shape
    for r in prange(n_rows):
        row = D[r]
        idx = out_idx[r]
        dist = out_dist[r]
        filled = 0
        for j in range(n):
            if j == skip[r]:
                continue
            v = row[j]
            if filled == k and v >= dist[k - 1]:
                continue
            pos = filled if filled < k else k - 1
            while pos > 0 and dist[pos - 1] > v:
                if pos < k:
                    dist[pos] = dist[pos - 1]
                    idx[pos] = idx[pos - 1]
                pos -= 1
            dist[pos] = v
            idx[pos] = j
            if filled < k:
                filled += 1


@njit(cache=True)
def strict_sq_distance(a, offset, b):
    """``|a - offset - b|^2`` summed in float64 from the differences in column order,
    without reassociation: the same bits for the same pair wherever it is called (equal
    distances stay equal, and a zero ``offset`` changes nothing)."""
    acc = 0.0
    for c in range(a.shape[0]):
        diff = (np.float64(a[c]) - np.float64(offset[c])) - np.float64(b[c])
        acc += diff * diff
    return acc


@njit(cache=True, nogil=True)
def rank_excess(D, bound, queries, data, targets, skip, k, zero, t, js, counts, out):
    """Per row r of the distance block ``D``, into ``out[r]``: the sum over the columns ``j`` in
    ``targets[r]`` of ``max(0, rank(j) - k)``, where ``rank(j)`` is j's place among the
    row's columns (column ``skip[r]`` left out; 1 = nearest; equal distances by column
    index, as a stable sort orders them): how far beyond the k nearest each target lies.

    ``D`` may be off the exact distances by up to ``bound[r]`` (a BLAS expansion); then
    the targets' distances, and every entry within reach of one, are recomputed exactly
    from ``queries[r]`` and the ``data`` rows (``strict_sq_distance``: squared distances,
    as ``D``). With empty ``queries`` ``D`` is taken as exact.

    One pass over the row: each entry is placed among the sorted target distances by a
    branch-free count, so the cost is n k / (vector width) whatever the targets' ranks.
    Serial and without the GIL: callers split the rows over a thread pool (a prange
    loop would cost a second more to compile on a first call). The caller gives the
    scratch: ``zero`` (float64 zeros, one a feature), ``t`` (float64) and ``js``
    (int64) of k entries, ``counts`` (int64) of 2 k + 1: numba compiles an allocation
    of each kind on a first call (BENCHMARKS.md, Cold start).
    """
    n_rows, n = D.shape
    m = targets.shape[1]
    exact = queries.shape[0] > 0
    rel = (data.shape[1] + 4) * 2.220446049250313e-16  # the float64 sums' own rounding
    below, ties = counts[: m + 1], counts[m + 1 :]  # below[p]: entries under t[p:] only
    for r in range(n_rows):
        row = D[r]
        for q in range(m):
            t[q] = strict_sq_distance(queries[r], zero, data[targets[r, q]]) if exact else row[targets[r, q]]
            js[q] = targets[r, q]
        insertion_sort_pairs(t, js)  # by distance, then index (m is k; the row's pass costs n k)
        for q in range(2 * m + 1):
            counts[q] = 0
        for c in range(n):
            v = np.float64(row[c])
            slack = bound[r] + v * rel if exact else 0.0
            if v - slack > t[m - 1] or c == skip[r]:
                continue
            lo = 0
            hi = 0
            for q in range(m):
                lo += t[q] < v - slack
                hi += t[q] <= v + slack
            if lo < hi:  # a target's distance within reach (or equal): decide exactly
                x = strict_sq_distance(queries[r], zero, data[c]) if exact else v
                lo = 0
                for q in range(m):
                    lo += t[q] <= x
                q = lo - 1
                while q >= 0 and t[q] == x:
                    if c < js[q]:
                        ties[q] += 1
                    q -= 1
            below[lo] += 1
        running = 0
        total = 0.0
        for q in range(m):
            running += below[q]
            rank = running + ties[q] + 1
            if rank > k:
                total += rank - k
        out[r] = total


@njit(cache=True, inline="always")
def _insert(idx, dist, j, v):
    """Put index ``j`` at distance ``v`` into the full increasing list ``(idx, dist)``,
    dropping its last entry (the caller has checked ``v < dist[-1]``); ties stay ahead."""
    pos = idx.shape[0] - 1
    while pos > 0 and dist[pos - 1] > v:
        dist[pos] = dist[pos - 1]
        idx[pos] = idx[pos - 1]
        pos -= 1
    dist[pos] = v
    idx[pos] = j


@njit(cache=True, nogil=True)
def merge_smallest_sq(G, q_sq, y_sq, col0, skip, out_idx, out_dist):
    """Merge a block of candidates into running k-smallest lists (``out_dist`` starts
    at +inf): candidate ``(r, c)`` has squared distance ``q_sq[r] + y_sq[c] - 2 G[r, c]``
    (clipped at 0) and index ``col0 + c``; column ``skip[r]`` is left out. Blocks must
    arrive in increasing column order for ties to go to the lower index.

    Serial and without the GIL: callers run one query block per worker thread, each
    with its own single-threaded product (no BLAS and numba thread pools taking turns
    on the same cores)."""
    n_rows, n_cols = G.shape
    k = out_idx.shape[1]
    for r in range(n_rows):
        idx = out_idx[r]
        dist = out_dist[r]
        base = q_sq[r]
        for c in range(n_cols):
            j = col0 + c
            if j == skip[r]:
                continue
            v = base + y_sq[c] - 2.0 * G[r, c]
            if v < 0.0:
                v = 0.0
            if v < dist[k - 1]:
                _insert(idx, dist, j, v)


@njit(cache=True, nogil=True)
def pair_sq_distances(Q, data, offset, rows, cols, out, lo, hi):
    """``out[p] = |Q[rows[p]] - offset - data[cols[p]]|^2`` for p in ``lo..hi``, summed in
    float64 from the differences (exact where a GEMM expansion cancels). Serial and
    without the GIL: callers split the pairs over threads (``in_row_ranges``). Runs of
    four pairs of one query row (a row's candidates) are summed together, each in its
    own chain in column order with ``a - offset`` read once a column: the same bits as
    ``strict_sq_distance``, in about half the time. Both sums are written out here
    rather than called: a separately compiled or inlined helper lengthens a first call's
    compile (BENCHMARKS.md, Cold start)."""
    p = lo
    while p < hi:
        r = rows[p]
        a = Q[r]
        if p + 4 <= hi and rows[p + 1] == r and rows[p + 2] == r and rows[p + 3] == r:
            b0, b1, b2, b3 = data[cols[p]], data[cols[p + 1]], data[cols[p + 2]], data[cols[p + 3]]
            s0 = s1 = s2 = s3 = 0.0
            for c in range(a.shape[0]):
                x = np.float64(a[c]) - np.float64(offset[c])
                e0, e1 = x - np.float64(b0[c]), x - np.float64(b1[c])
                e2, e3 = x - np.float64(b2[c]), x - np.float64(b3[c])
                s0 += e0 * e0
                s1 += e1 * e1
                s2 += e2 * e2
                s3 += e3 * e3
            out[p], out[p + 1], out[p + 2], out[p + 3] = s0, s1, s2, s3
            p += 4
        else:
            b = data[cols[p]]
            acc = 0.0
            for c in range(a.shape[0]):
                diff = (np.float64(a[c]) - np.float64(offset[c])) - np.float64(b[c])
                acc += diff * diff
            out[p] = acc
            p += 1


# reassociation lets the distance loops vectorise; no 'nnan' / 'ninf', the lists start at +inf
REORDER = {"reassoc", "nsz", "contract"}


@njit(cache=True, inline="always", fastmath=REORDER)
def row_sq_distance(a, b):
    """``|a - b|^2`` in the rows' precision (vectorised; for ranking candidates and for
    UMAP's steps)."""
    acc = a[0] - a[0]
    for c in range(a.shape[0]):
        diff = a[c] - b[c]
        acc += diff * diff
    return acc


@njit(cache=True, parallel=True, fastmath=REORDER)
def nearest_candidates(Q, data, candidates, skip_self, out_idx, out_dist):
    """Per row ``r`` of ``Q``: the ``k = out_idx.shape[1]`` rows of ``data`` listed in
    ``candidates[r]`` nearest to ``Q[r]``, increasing (squared distances); negative
    entries, and ``r`` itself with ``skip_self``, are left out. Rows with fewer than k
    usable candidates keep index -1 at distance +inf in their tail."""
    k = out_idx.shape[1]
    for r in prange(Q.shape[0]):
        idx = out_idx[r]
        dist = out_dist[r]
        idx[:] = -1
        dist[:] = np.inf
        for t in range(candidates.shape[1]):
            j = candidates[r, t]
            if j < 0 or (skip_self and j == r):
                continue
            v = row_sq_distance(Q[r], data[j])
            if v < dist[k - 1]:
                _insert(idx, dist, j, v)


@njit(cache=True, parallel=True, fastmath=REORDER)
def through_neighbors(data, idx, dist, width, out_idx, out_dist):
    """One round of "a neighbour's neighbour is probably a neighbour" on the kNN lists
    ``(idx, dist)`` of the rows of ``data`` themselves (increasing squared distances):
    each row's list merged with the distinct points among the first ``width`` entries
    of its first ``width`` neighbours' lists (at most width^2 distances per row). Every
    row reads the input lists and writes only its own output (parallel, deterministic)."""
    n, k = idx.shape
    width = min(width, k)
    for r in prange(n):
        own = out_idx[r]
        near = out_dist[r]
        own[:] = idx[r]
        near[:] = dist[r]
        seen = np.sort(idx[idx[r, :width], :width].ravel())
        for t in range(seen.shape[0]):
            j = seen[t]
            if j < 0 or j == r or (t > 0 and j == seen[t - 1]):
                continue
            listed = False
            for s in range(k):
                if idx[r, s] == j:
                    listed = True
                    break
            if listed:
                continue
            v = row_sq_distance(data[r], data[j])
            if v < near[k - 1]:
                _insert(own, near, j, v)
