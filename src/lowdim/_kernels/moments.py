"""Column moments in one parallel pass (float64 accumulation of shifted values)."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True, fastmath=False)
def shifted_column_sums(X, shift, n_chunks):
    """Per-chunk sums of ``x - shift`` and ``(x - shift)^2`` over rows, in float64.

    Parameters
    ----------
    X : 2-D float32/float64 array (n, d)
    shift : float64 array (d,)
        A value near each column's mean (e.g. the first row) to avoid cancellation.
    n_chunks : int
        Row chunks processed in parallel.

    Returns
    -------
    s1, s2 : float64 arrays of shape (n_chunks, d)
    """
    n, d = X.shape
    s1 = np.zeros((n_chunks, d))
    s2 = np.zeros((n_chunks, d))
    rows = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        stop = min(n, (c + 1) * rows)
        a1 = s1[c]
        a2 = s2[c]
        for i in range(c * rows, stop):
            row = X[i]
            for j in range(d):
                v = row[j] - shift[j]
                a1[j] += v
                a2[j] += v * v
    return s1, s2


@njit(cache=True, nogil=True)
def _shifted_rows(X, shift, out, norms, lo, hi):
    """``shifted_copy_with_norms`` for rows ``lo..hi`` (serial, without the GIL)."""
    d = X.shape[1]
    for i in range(lo, hi):
        s = 0.0
        for j in range(d):
            v = X[i, j] - shift[j]
            out[i, j] = v
            t = np.float64(out[i, j])
            s += t * t
        norms[i] = s


def shifted_copy_with_norms(X, shift, out, norms):
    """``lowdim.linalg.shifted_copy_with_norms`` above ``SMALL_MOMENTS`` entries: one
    pass of a serial kernel over thread-split rows (``in_row_ranges``)."""
    from .._threads import cell_pass_rows, in_row_ranges

    in_row_ranges(
        "moments",
        0,
        X.shape[0],
        lambda a, b: _shifted_rows(X, shift, out, norms, a, b),
        min_size=cell_pass_rows(X.shape[1]),
    )


SUM_CHUNK = 1 << 22  # stored entries a chunk of stored_column_sums holds at least (but for the last)


@njit(cache=True, nogil=True)
def _stored_sums(data, columns, d, lo, hi):
    """Sums of the entries ``lo..hi`` and of their squares per column, in float64."""
    s1, s2 = np.zeros(d), np.zeros(d)
    for k in range(lo, hi):
        v = np.float64(data[k])
        s1[columns[k]] += v
        s2[columns[k]] += v * v
    return s1, s2


def stored_column_sums(data, columns, d):
    """Per-column sums of a sparse matrix's stored entries and of their squares
    (``columns``: each entry's column, a CSR matrix's ``indices``), in float64 without
    a float64 copy of the entries: at most 16 chunks of entries, fixed by their number
    alone, summed on the thread pool and added in chunk order, so the result is the
    same for any number of threads."""
    from .._threads import in_row_ranges

    n_chunks = int(min(16, max(1, -(-data.size // SUM_CHUNK))))
    cuts = [data.size * i // n_chunks for i in range(n_chunks + 1)]

    def chunks(a, b):
        return [_stored_sums(data, columns, d, cuts[c], cuts[c + 1]) for c in range(a, b)]

    parts = [part for done in in_row_ranges("moments", 0, n_chunks, chunks) for part in done]
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


@njit(cache=True, nogil=True)
def _scaled_entries(data, columns, factors, divide, out, lo, hi):
    for k in range(lo, hi):
        v = np.float64(data[k])
        out[k] = v / factors[columns[k]] if divide else v * factors[columns[k]]


def scaled_entries(data, columns, factors, divide, out):
    """``out = data / factors[columns]`` (or times, ``divide`` False) in float64,
    stored in ``out``'s dtype: one pass, no gathered copy of the factors."""
    from .._threads import in_row_ranges

    in_row_ranges(
        "moments",
        0,
        data.size,
        lambda a, b: _scaled_entries(data, columns, factors, divide, out, a, b),
        min_size=1 << 20,
    )
    return out
