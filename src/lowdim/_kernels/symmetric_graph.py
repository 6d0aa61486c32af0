"""A directed kNN graph (n, k) made symmetric as a compact CSR (int32 column indices,
the values' own dtype) without the float64 and int64 intermediates of scipy's
``A + A.T``: every edge is written into both of its rows (in the row of its end with the
weight negated, to mark the direction: stored weights are never zero), each row is
sorted, its two directions combined and moved to the front, and the arrays shrunk in
place. Peak: 8 bytes per directed edge and end, plus the input. Graphs of up to
``SCIPY_EDGES`` directed edges are combined by scipy's sparse sums instead (compiled C,
so a first call compiles nothing), with the same arithmetic."""

import numpy as np
from numba import njit, prange

from .._threads import in_row_ranges
from .sorting import sort_pairs

SUM, FUZZY_UNION, MAXIMUM = 0, 1, 2
# scipy's float64 copies of a graph this size stay under about 25 MB (about 85 at 2^20 edges)
SCIPY_EDGES = 1 << 18
MODES = {"sum": SUM, "fuzzy_union": FUZZY_UNION, "maximum": MAXIMUM}


SYMMETRIC_PASSES = 4  # passes over the rows (counts, fill, merge, compact) a progress bar counts
ROWS_PER_TICK = 1 << 18  # rows each pass works on between progress updates


@njit(cache=True)
def _slot_counts(indices, values, lo, hi, counts):
    """Add to ``counts[r + 1]`` the entries row r will hold before merging, for the
    edges of rows lo..hi: their own nonzero edges and those that point at row r."""
    for i in range(lo, hi):
        for t in range(indices.shape[1]):
            j = indices[i, t]
            if j >= 0 and j != i and values[i, t] != 0:
                counts[i + 1] += 1
                counts[j + 1] += 1


@njit(cache=True)
def _fill(indices, values, lo, hi, pos, cols, vals):
    """Write the edges of rows lo..hi into both of their rows at ``pos`` (advanced)."""
    for i in range(lo, hi):
        for t in range(indices.shape[1]):
            j = indices[i, t]
            v = values[i, t]
            if j >= 0 and j != i and v != 0:
                cols[pos[i]], vals[pos[i]] = j, v
                pos[i] += 1
                cols[pos[j]], vals[pos[j]] = i, -v
                pos[j] += 1


@njit(cache=True, inline="always")
def _combine(forward, back, mode, mix):
    if mode == SUM:
        return forward + back
    if mode == FUZZY_UNION:
        both = forward * back
        return mix * (forward + back - both) + (1.0 - mix) * both
    return max(forward, back)


@njit(cache=True, nogil=True)
def _merge_rows(starts, cols, vals, mode, mix, kept, lo, hi):
    """Sort each row lo..hi by column and merge its duplicates in place (to the row's
    start); ``kept[i]``: entries left in row i (zeros dropped). Serial and without the
    GIL (the caller splits the rows: ``in_row_ranges``)."""
    for i in range(lo, hi):
        a, b = starts[i], starts[i + 1]
        row_cols, row_vals = cols[a:b], vals[a:b]
        sort_pairs(row_cols, row_vals)  # in place: the merged entries are written behind the read position
        out, t = a, 0
        while t < b - a:
            c, forward, back = row_cols[t], 0.0, 0.0
            while t < b - a and row_cols[t] == c:
                v = row_vals[t]
                if v < 0:  # the edge j -> i, stored in row i
                    back = max(back, -v) if mode == MAXIMUM else back - v
                else:
                    forward = max(forward, v) if mode == MAXIMUM else forward + v
                t += 1
            v = _combine(forward, back, mode, mix)
            if v != 0:
                cols[out], vals[out] = c, v
                out += 1
        kept[i] = out - a


@njit(cache=True)
def _compact(starts, kept, cols, vals, out_indptr, lo, hi):
    """Move the kept entries of rows lo..hi to follow the previous row's (in place: a
    row never moves forward; rows before lo are done)."""
    for i in range(lo, hi):
        a, m, o = starts[i], kept[i], out_indptr[i]
        for t in range(m):
            cols[o + t], vals[o + t] = cols[a + t], vals[a + t]
        out_indptr[i + 1] = o + m


def _in_chunks(n, work, tick):
    """``work(lo, hi)`` over the rows in chunks, ``tick(rows)`` after each."""
    for lo in range(0, n, ROWS_PER_TICK):
        hi = min(n, lo + ROWS_PER_TICK)
        work(lo, hi)
        if tick is not None:
            tick(hi - lo)


def symmetric_csr(indices, values, mode, mix=1.0, tick=None):
    """``(indptr, indices, data)`` of the symmetric graph of the directed edges
    ``i -> indices[i, t]`` with weights ``values[i, t]`` (negative indices, self-loops and
    zero weights skipped), each undirected pair's weights combined by ``mode``: 'sum'
    (``w_ij + w_ji``), 'fuzzy_union' (``mix (a + b - ab) + (1 - mix) ab``) or 'maximum'.
    Rows sorted, zeros dropped; data in ``values``' dtype, indices int32 (int64 from
    2^31 rows). ``tick(rows)``, if given, is called as each of the ``SYMMETRIC_PASSES``
    passes finishes a chunk of rows (n x SYMMETRIC_PASSES in all)."""
    n = indices.shape[0]
    if indices.size <= SCIPY_EDGES:
        out = _symmetric_by_scipy(indices, values, mode, mix)
        for _ in range(SYMMETRIC_PASSES):
            _in_chunks(n, lambda lo, hi: None, tick)
        return out
    starts = np.zeros(n + 1, dtype=np.int64)
    _in_chunks(n, lambda lo, hi: _slot_counts(indices, values, lo, hi, starts), tick)
    np.cumsum(starts, out=starts)
    index_dtype = np.int32 if n < 2**31 else np.int64
    cols = np.empty(starts[-1], dtype=index_dtype)
    vals = np.empty(starts[-1], dtype=values.dtype)
    pos = starts[:-1].copy()  # each row's next free slot
    _in_chunks(n, lambda lo, hi: _fill(indices, values, lo, hi, pos, cols, vals), tick)
    pos.resize(0, refcheck=False)  # freed before the merge (the closure keeps the name)
    kept = np.empty(n, dtype=np.int64)
    merge = lambda a, b: _merge_rows(starts, cols, vals, MODES[mode], mix, kept, a, b)  # noqa: E731
    _in_chunks(n, lambda lo, hi: in_row_ranges("symmetric-graph", lo, hi, merge), tick)
    indptr = np.zeros(n + 1, dtype=np.int64)
    _in_chunks(n, lambda lo, hi: _compact(starts, kept, cols, vals, indptr, lo, hi), tick)
    cols.resize(indptr[-1], refcheck=False)  # shrinks the allocation in place
    vals.resize(indptr[-1], refcheck=False)
    return indptr, cols, vals


def _symmetric_by_scipy(indices, values, mode, mix):
    """``symmetric_csr``'s result by scipy's sparse sums, in float64 as the kernels
    combine (each pair's weights, then cast to the values' dtype): the edges kept are
    the same (no negative index, self-loop or zero weight), repeated edges of a row are
    summed (their maximum for 'maximum'), pairs combined by ``mode``."""
    import scipy.sparse as sp

    n = indices.shape[0]
    rows = np.repeat(np.arange(n), indices.shape[1])
    cols, vals = indices.ravel(), values.ravel().astype(np.float64)
    keep = (cols >= 0) & (cols != rows) & (vals != 0)
    rows, cols, vals = rows[keep], cols[keep].astype(np.int64), vals[keep]
    if mode == "maximum" and vals.size:  # repeated edges by their largest weight, not their sum
        order = np.lexsort((cols, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        first = np.flatnonzero(np.r_[True, (np.diff(rows) != 0) | (np.diff(cols) != 0)])
        rows, cols, vals = rows[first], cols[first], np.maximum.reduceat(vals, first)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))  # sums repeated edges
    if mode == "sum":
        W = A + A.T
    elif mode == "maximum":
        W = A.maximum(A.T)
    else:
        both = A.multiply(A.T)
        W = mix * (A + A.T - both) + (1.0 - mix) * both
    W = sp.csr_matrix(W, dtype=values.dtype)
    W.eliminate_zeros()
    W.sort_indices()
    index_dtype = np.int32 if n < 2**31 else np.int64
    return W.indptr.astype(np.int64), W.indices.astype(index_dtype), W.data


@njit(cache=True, parallel=True)
def _permuted_rows(indptr, indices, data, order, inverse, out_indptr, out_indices, out_data):
    for r in prange(order.shape[0]):
        a, b, o = indptr[order[r]], indptr[order[r] + 1], out_indptr[r]
        row_cols, row_data = out_indices[o : o + b - a], out_data[o : o + b - a]
        for t in range(b - a):
            row_cols[t], row_data[t] = inverse[indices[a + t]], data[a + t]
        sort_pairs(row_cols, row_data)


def permuted_csr(indptr, indices, data, order):
    """The CSR of ``P[order][:, order]`` (rows sorted) in the input's dtypes, with one
    copy of the arrays (scipy's fancy indexing makes two, the second in int64)."""
    order = np.ascontiguousarray(order)  # scipy's orderings can be reversed views: one compiled layout
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.shape[0], dtype=order.dtype)
    lengths = np.diff(indptr)[order]
    out_indptr = np.zeros(order.shape[0] + 1, dtype=indptr.dtype)
    np.cumsum(lengths, out=out_indptr[1:])
    out_indices, out_data = np.empty_like(indices), np.empty_like(data)
    _permuted_rows(indptr, indices, data, order, inverse.astype(indices.dtype), out_indptr, out_indices, out_data)
    return out_indptr, out_indices, out_data
