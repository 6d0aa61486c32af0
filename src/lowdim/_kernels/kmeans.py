"""k-means kernels: one step each, parallel over points or fixed row chunks.

Every reduction goes through a fixed number of row chunks (chosen from ``n`` alone)
summed in chunk order, so results are identical whatever the thread count. Searches
use the GEMM expansion ``|x|^2 + |c|^2 - 2 x.c`` in X's dtype and widen the bounds by
its rounding error; Elkan's distances are direct sums of squares in float64.
"""

import numpy as np
from numba import njit, prange

from .._threads import cell_pass_rows, in_row_ranges


@njit(cache=True, nogil=True)
def _argmin_range(D, labels, best, lo, hi):
    for i in range(lo, hi):
        row = D[i]
        a = 0
        v = row[0]
        for c in range(1, D.shape[1]):
            if row[c] < v:
                v = row[c]
                a = c
        labels[i] = a
        best[i] = v


def argmin_rows(D, labels, best):
    """Per row of the (block x k) squared distances ``D``: the first index of the
    minimum into ``labels`` and the minimum into ``best`` (over thread-split rows)."""
    in_row_ranges(
        "kmeans",
        0,
        D.shape[0],
        lambda a, b: _argmin_range(D, labels, best, a, b),
        min_size=cell_pass_rows(D.shape[1]),
    )


@njit(cache=True)
def cluster_sums(X, labels, weights, k, n_chunks):
    """Weighted sums of the points of each cluster and the total weights (float64).

    Runs once per k-means start (iterations update the sums by the moved rows), so it
    is serial: a parallel loop would cost more first-call compilation than it saves in a fit.
    The chunked summation order is kept, so the sums do not change.

    Returns
    -------
    sums : float64 (k, d); wsum : float64 (k,)
    """
    n, d = X.shape
    part = np.zeros((n_chunks, k, d))
    pw = np.zeros((n_chunks, k))
    rows = (n + n_chunks - 1) // n_chunks
    for ch in range(n_chunks):
        acc = part[ch]
        for i in range(ch * rows, min(n, (ch + 1) * rows)):
            a = labels[i]
            w = weights[i]
            row = X[i]
            out = acc[a]
            for j in range(d):
                out[j] += w * row[j]
            pw[ch, a] += w
    sums = np.zeros((k, d))
    wsum = np.zeros(k)
    for ch in range(n_chunks):  # fixed order: thread-count independent
        sums += part[ch]
        wsum += pw[ch]
    return sums, wsum


@njit(cache=True, inline="always")
def _move_row(X, weights, i, a, b, sums, wsum):
    """Move row ``i`` from cluster ``a`` to cluster ``b`` in the weighted sums."""
    w = weights[i]
    row = X[i]
    sa = sums[a]
    sb = sums[b]
    for j in range(X.shape[1]):
        v = w * row[j]
        sa[j] -= v
        sb[j] += v
    wsum[a] -= w
    wsum[b] += w


@njit(cache=True)
def apply_moves(X, weights, moved, prev, labels, n_moved, chunk, sums, wsum):
    """Move the rows listed by ``hamerly_pass`` between the cluster sums, in chunk and
    row order (deterministic). Returns the number moved."""
    total = 0
    for ch in range(n_moved.shape[0]):
        for t in range(ch * chunk, ch * chunk + n_moved[ch]):
            _move_row(X, weights, moved[t], prev[t], labels[moved[t]], sums, wsum)
            total += 1
    return total


@njit(cache=True)
def move_points(X, weights, old, new, sums, wsum):
    """Move the points whose label changed from ``old`` to ``new`` between the cluster
    sums, in index order (deterministic). Returns the number moved."""
    moved = 0
    for i in range(X.shape[0]):
        if old[i] != new[i]:
            _move_row(X, weights, i, old[i], new[i], sums, wsum)
            moved += 1
    return moved


@njit(cache=True, inline="always", fastmath={"reassoc", "contract"})
def _distance(x, c):
    s = 0.0
    for j in range(x.shape[0]):
        t = np.float64(x[j]) - c[j]
        s += t * t
    return np.sqrt(s)


@njit(cache=True, inline="always", fastmath={"reassoc", "contract"})
def _distance_native(x, c):
    """Distance accumulated in the arrays' own dtype (float32 data: twice the SIMD width
    of ``_distance``; callers widen the result by the rounding error)."""
    s = x[0] - x[0]
    for j in range(x.shape[0]):
        t = x[j] - c[j]
        s += t * t
    return np.sqrt(np.float64(s))


@njit(cache=True, inline="always", fastmath={"reassoc", "contract"})
def _nearest_of_two(x, c0, c1, rel_err):
    """2-means: both distances in one pass over the row (the row is read once, as for one
    distance), accumulated in the arrays' dtype. Returns the nearer centre (0 on a tie),
    the upper bound of its distance and the lower bound of the other's, widened by the
    rounding as ``_distance_native``'s callers widen it."""
    s0 = x[0] - x[0]
    s1 = s0
    for j in range(x.shape[0]):
        t0 = x[j] - c0[j]
        t1 = x[j] - c1[j]
        s0 += t0 * t0
        s1 += t1 * t1
    d0 = np.sqrt(np.float64(s0))
    d1 = np.sqrt(np.float64(s1))
    if d0 <= d1:
        return 0, d0 * (1.0 + rel_err), d1 * (1.0 - rel_err)
    return 1, d1 * (1.0 + rel_err), d0 * (1.0 - rel_err)


@njit(cache=True)
def _largest_two(shift):
    big1 = 0
    for c in range(1, shift.shape[0]):
        if shift[c] > shift[big1]:
            big1 = c
    max2 = 0.0
    for c in range(shift.shape[0]):
        if c != big1 and shift[c] > max2:
            max2 = shift[c]
    return big1, shift[big1], max2


@njit(cache=True, fastmath={"reassoc", "contract"})
def _search_rows(X, x_sq, rows, m, centers_t, c_sq, labels, upper, lower, rel_err, moved, prev):
    """Nearest and second-nearest centre of ``rows[:m]`` through one small GEMM in X's
    dtype. The bounds are widened by the rounding error of the expansion
    ``|x|^2 + |c|^2 - 2 x.c`` (``rel_err`` times the norms) so they stay valid.
    Rows whose label changes are appended to ``moved`` (their old label in ``prev``);
    returns how many."""
    d = X.shape[1]
    k = centers_t.shape[1]
    G = np.empty((m, d), dtype=X.dtype)
    for r in range(m):  # element-wise: a row slice assignment compiles numba's shape-error text (~1.4 s)
        src = X[rows[r]]
        for j in range(d):
            G[r, j] = src[j]
    P = np.dot(G, centers_t)
    n_moved = 0
    for r in range(m):
        i = rows[r]
        b1 = np.inf
        b2 = np.inf
        best = 0
        for c in range(k):
            v = x_sq[i] + c_sq[c] - 2.0 * np.float64(P[r, c])
            if v < b1:
                b2 = b1
                b1 = v
                best = c
            elif v < b2:
                b2 = v
        err = rel_err * (x_sq[i] + c_sq[best])
        if best != labels[i]:
            moved[n_moved] = i
            prev[n_moved] = labels[i]
            n_moved += 1
        labels[i] = best
        upper[i] = np.sqrt(max(b1, 0.0) + err)
        lower[i] = np.sqrt(max(b2 - err, 0.0))
    return n_moved


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _hamerly_chunks(
    X,
    x_sq,
    centers,
    centers_t,
    c_sq,
    half_sep,
    shift,
    labels,
    upper,
    lower,
    use_bounds,
    chunk,
    rel_err,
    moved,
    prev,
    n_moved,
    first_chunk,
    end_chunk,
):
    """One assignment pass over the row chunks ``first_chunk..end_chunk``. With
    ``use_bounds`` (Hamerly): update the bounds by the centre ``shift``, measure the
    own centre again where they overlap,
    and search all centres only for the rows still in doubt; without (Lloyd): search
    every row. ``upper`` bounds the distance to the own centre from above, ``lower``
    to every other centre from below (``centers`` in X's dtype). The rows of chunk
    ``ch`` that change cluster are ``moved[ch * chunk:][:n_moved[ch]]``, their old
    labels at the same places of ``prev`` (for ``apply_moves``). Serial and without the
    GIL: ``hamerly_pass`` splits the chunks over threads."""
    n = X.shape[0]
    big1, max1, max2 = _largest_two(shift)
    two = centers.shape[0] == 2
    for ch in range(first_chunk, end_chunk):
        rows = np.empty(chunk, dtype=np.int64)
        m = np.int64(0)  # a literal 0 would compile _search_rows a second time for it
        settled = 0  # 2-means rows decided in place: their moves lead the chunk's list
        for i in range(ch * chunk, min(n, (ch + 1) * chunk)):
            if use_bounds:
                a = labels[i]
                u = upper[i] + shift[a]
                low = lower[i] - (max2 if a == big1 else max1)
                lower[i] = low
                bound = max(half_sep[a], low)
                if u <= bound:
                    upper[i] = u
                    continue
                if two:  # both distances for the price of the own one: no search needed
                    best, up, lo = _nearest_of_two(X[i], centers[0], centers[1], rel_err)
                    upper[i] = up
                    lower[i] = lo
                    if best != a:
                        moved[ch * chunk + settled] = i
                        prev[ch * chunk + settled] = a
                        labels[i] = best
                        settled += 1
                    continue
                u = _distance_native(X[i], centers[a]) * (1.0 + rel_err)
                upper[i] = u
                if u <= bound:
                    continue
            rows[m] = i
            m += 1
        n_moved[ch] = settled
        if m > 0:
            n_moved[ch] = settled + _search_rows(
                X,
                x_sq,
                rows,
                m,
                centers_t,
                c_sq,
                labels,
                upper,
                lower,
                rel_err,
                moved[ch * chunk + settled :],
                prev[ch * chunk + settled :],
            )


def hamerly_pass(X, x_sq, centers, centers_t, c_sq, half_sep, shift, labels, upper, lower, use_bounds, chunk,
                 rel_err, moved, prev, n_moved):  # fmt: skip
    """``_hamerly_chunks`` over every chunk, split over the thread pool (a prange loop
    would cost the compiler a second more on a first call; each chunk writes only its
    own rows and slots, so the split does not change the result). Call with BLAS
    limited to one thread."""
    args = (X, x_sq, centers, centers_t, c_sq, half_sep, shift, labels, upper, lower, use_bounds, chunk, rel_err)
    args += (moved, prev, n_moved)
    # a task of at least 8 chunks (4,096 rows at the default): fewer calls per iteration
    in_row_ranges("kmeans", 0, n_moved.shape[0], lambda a, b: _hamerly_chunks(*args, a, b), per_thread=2, min_size=8)


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def elkan_step(X, centers, center_dist, half_sep, shift, labels, upper, lower):
    """One Elkan assignment pass: a lower bound per (point, centre) pair, pruned by
    the triangle inequality with half the centre-centre distances. Returns the
    number of label changes."""
    n = X.shape[0]
    k = centers.shape[0]
    changed = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        a = labels[i]
        lo = lower[i]
        for c in range(k):
            lo[c] = max(lo[c] - shift[c], 0.0)
        u = upper[i] + shift[a]
        if u > half_sep[a]:
            tight = False
            for c in range(k):
                if c == a or u <= lo[c] or u <= 0.5 * center_dist[a, c]:
                    continue
                if not tight:
                    u = _distance(X[i], centers[a])
                    lo[a] = u
                    tight = True
                    if u <= lo[c] or u <= 0.5 * center_dist[a, c]:
                        continue
                dc = _distance(X[i], centers[c])
                lo[c] = dc
                if dc < u:
                    a = c
                    u = dc
            if a != labels[i]:
                changed[i] = 1
                labels[i] = a
        upper[i] = u
    return changed.sum()


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _own_distances(X, centers, labels, out, lo, hi):
    for i in range(lo, hi):
        out[i] = _distance(X[i], centers[labels[i]])


def point_distances(X, centers, labels, out):
    """Exact distance of each point to its own centre (over thread-split rows)."""
    in_row_ranges(
        "kmeans",
        0,
        X.shape[0],
        lambda a, b: _own_distances(X, centers, labels, out, a, b),
        min_size=cell_pass_rows(X.shape[1]),
    )


@njit(cache=True)
def _means_and_geometry(centers, sums, wsum, new, dtype_probe):
    """New centres (weighted means; a cluster left empty keeps its centre), each centre's
    shift, half the distance of each new centre to its nearest other, the transposed
    centres in X's dtype and their squared norms."""
    k, d = centers.shape
    shift = np.empty(k)
    for c in range(k):
        s = 0.0
        for j in range(d):
            v = sums[c, j] / wsum[c] if wsum[c] > 0 else centers[c, j]
            t = v - centers[c, j]
            s += t * t
            new[c, j] = v
        shift[c] = np.sqrt(s)
    half = np.full(k, np.inf)
    c_sq = np.empty(k)
    centers_t = np.empty((d, k), dtype=dtype_probe.dtype)
    centers_x = np.empty((k, d), dtype=dtype_probe.dtype)
    for c in range(k):
        s = 0.0
        for j in range(d):
            s += new[c, j] * new[c, j]
            centers_t[j, c] = new[c, j]
            centers_x[c, j] = new[c, j]
        c_sq[c] = s
        for e in range(c + 1, k):
            s = 0.0
            for j in range(d):
                t = new[c, j] - new[e, j]
                s += t * t
            s = 0.5 * np.sqrt(s)
            half[c] = min(half[c], s)
            half[e] = min(half[e], s)
    return shift, half, centers_t, centers_x, c_sq


def search_iteration(
    X, x_sq, weights, centers, sums, wsum, labels, upper, lower, use_bounds, chunk, rel_err, moved, prev, n_moved, new
):
    """One whole Lloyd (``use_bounds`` False) or Hamerly iteration: centres from the sums
    (into ``new``), the assignment pass, and the moves of the rows that changed cluster.
    Relocate empty clusters first; one that stays empty (fewer distinct points than
    clusters) keeps its centre.

    Returns (rows moved, summed squared centre shift, sum_k |S_k|^2 / W_k) -- the last
    gives the inertia of the new labels about their own means."""
    shift, half, centers_t, centers_x, c_sq = _means_and_geometry(centers, sums, wsum, new, X[:1, 0])
    shift_sq = float(np.sum(shift * shift))
    if not use_bounds:
        shift[:] = 0.0
        half[:] = 0.0
    hamerly_pass(X, x_sq, centers_x, centers_t, c_sq, half, shift, labels, upper, lower, use_bounds, chunk, rel_err,
                 moved, prev, n_moved)  # fmt: skip
    total = apply_moves(X, weights, moved, prev, labels, n_moved, chunk, sums, wsum)
    filled = wsum > 0
    explained = float(np.sum(np.einsum("ij,ij->i", sums[filled], sums[filled]) / wsum[filled]))
    return total, shift_sq, explained
