"""Exact k-nearest neighbours by blocked BLAS distances."""

import threading

import numpy as np

from .._threads import blas_limit, worker_pool
from .._validation import check_array
from ..linalg import cosine_rows, matmul, row_norms_sq, sq_euclidean
from ._base import KNNIndex, check_distance_range

METRICS = ("euclidean", "sqeuclidean", "cosine", "precomputed")
QUERY_ROWS, DATA_COLS = 512, 2048  # one product tile: 8 MiB in float64
# Up to this many query x point pairs numpy does the selection, and up to a sixteenth
# as many chosen pairs the exact recomputation: small data then need no numba
# compilation (seconds for these kernels on a first call), and lose nothing in speed.
SMALL_PAIRS = 1 << 22
# ... and up to this many terms (pairs x features: a wide table's few pairs are no small
# sum; numpy's differences take 8 times the kernel's time, 0.1 s for 76 M terms)
SMALL_TERMS = SMALL_PAIRS << 2
# terms numpy differences at a time: 2 MiB of float64 the allocator reuses (32 MiB
# pieces came as fresh pages each time and doubled the time)
DIFFERENCE_TERMS = SMALL_PAIRS >> 4
EXTRA_CANDIDATES = 4  # candidates kept beyond k for the exact re-ranking (``_certified``)
# past this many features float32's error bound (it grows with d) is wider than the gaps
# between a row's neighbours (it certified 1 % of the rows of 20,000 genes, none of
# 200,000 probes, all of 784 pixels): float32 rows go to the float64 expansion at once
FLOAT32_RANKED_FEATURES = 10_000
# columns the float64 expansion copies at a time: buffers the allocator reuses, where a
# float64 copy of whole wide rows (160 MB at 100 x 200,000) costs more in fresh pages
# than the product it feeds
FEATURE_COLS = 512


def check_n_neighbors(n_neighbors, n_samples, *, counts_self=False):
    """Raise unless there are more samples than neighbours asked for.

    Parameters
    ----------
    n_neighbors : int
    n_samples : int
    counts_self : bool, default=False
        Each point is among its own ``n_neighbors`` (UMAP's convention, and the fuzzy
        and connectivity graphs of the clusterings): up to ``n_samples`` are allowed.

    Examples
    --------
    >>> check_n_neighbors(5, 10)
    >>> check_n_neighbors(10, 10, counts_self=True)
    """
    if counts_self and n_neighbors > n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} is more than the number of samples ({n_samples}); each point counts "
            f"among its own neighbours, so n_neighbors can be at most {n_samples}; lower n_neighbors."
        )
    if not counts_self and n_neighbors >= n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} must be less than the number of samples "
            f"({n_samples} sample{'s' if n_samples != 1 else ''}); lower n_neighbors."
        )


class ExactIndex(KNNIndex):
    """Exact kNN index: ``build(X)`` then ``query(Q, k)``; distances are computed in
    row blocks of at most ``block_bytes`` (BLAS for Euclidean and cosine), so memory
    stays bounded whatever the number of points.

    Parameters
    ----------
    metric : {'euclidean', 'sqeuclidean', 'cosine', 'precomputed'}
        With 'precomputed', ``build`` takes nothing useful and ``query`` takes the rows
        of a square distance matrix.
    block_bytes : int, default=64 MiB

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> dist, idx = ExactIndex().build(X).query(X, 1, exclude_self=True)
    >>> idx.ravel().tolist(), dist.ravel().tolist()
    ([1, 0, 1], [1.0, 1.0, 2.0])
    """

    metrics = METRICS

    def __init__(self, metric="euclidean", block_bytes=64 << 20):
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}.")
        self.metric = metric
        self.block_bytes = block_bytes

    def _build(self, X):
        """Index the rows of ``X`` (for 'precomputed': the number of points)."""
        X = check_array(X, estimator_name="ExactIndex")
        if self.metric != "precomputed":
            rows = cosine_rows(X) if self.metric == "cosine" else X
            self._hold(rows.mean(axis=0, dtype=np.float64).astype(rows.dtype), None, rows)

    def _hold(self, offset, shifted, rows):
        """Index ``rows`` (as given: the exact re-ranking reads them), shifted by
        ``offset`` for the expansion: ``shifted`` when the caller has them, else shifted
        at first use (``_data``)."""
        self._offset, self._rows, self._shifted, self._norms = offset, rows, shifted, None

    @property
    def _data(self):
        """The indexed rows less ``offset``, in their dtype, made at first use: a float32
        table of more than ``FLOAT32_RANKED_FEATURES`` features never reads them (an 80 MB
        copy at 100 x 200,000, whose fresh pages cost more than its whole search)."""
        if self._shifted is None:
            self._shifted = self._rows - self._offset
        return self._shifted

    @property
    def _sq(self):
        """Squared norms of ``_data``'s rows (float64), made at first use."""
        if self._norms is None:
            self._norms = row_norms_sq(self._data)
        return self._norms

    @classmethod
    def sharing(cls, shifted):
        """A Euclidean index over rows another index already holds shifted (its own
        copy), sharing them instead of shifting a copy of them again.

        Examples
        --------
        >>> rows = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 3.0]])
        >>> ExactIndex.sharing(rows).query(rows, 1, exclude_self=True)[1].ravel().tolist()
        [1, 0, 0]
        """
        index = cls()
        index._hold(np.zeros(shifted.shape[1], dtype=shifted.dtype), shifted, shifted)
        index.n_samples_ = shifted.shape[0]
        return index

    def pairwise(self, Q):
        """All distances from the rows of ``Q`` to the indexed points, (m, n) in
        float64: for small data, where every point is a neighbour (exact t-SNE).

        Examples
        --------
        >>> ExactIndex().build(np.array([[0.0], [2.0]])).pairwise(np.array([[1.0]])).tolist()
        [[1.0, 1.0]]
        """
        Q = query_rows(self, Q, 1, False)
        if self.metric == "precomputed":
            return np.array(Q, dtype=np.float64)
        q = np.asarray(Q - self._offset, dtype=np.float64)
        sq = sq_euclidean(q, self._data, None, self._sq).astype(np.float64)
        # where the expansion cancels (near-duplicates), recompute from differences
        rows, cols = np.nonzero(sq <= 1e-6 * (row_norms_sq(q)[:, None] + self._sq[None, :]))
        sq[rows, cols] = pair_sq_distances(Q, self._data, self._offset, rows, cols)
        return from_squared(sq, self.metric)

    def _block_distances(self, Qb):
        """Distances from the rows ``Qb`` (as the user's: unit rows made here for
        'cosine') to every indexed point."""
        if self.metric == "precomputed":
            return np.asarray(Qb)
        if self.metric == "cosine":
            Qb = cosine_rows(Qb)
        return from_squared(sq_euclidean(Qb - self._offset, self._data, None, self._sq), self.metric)

    def _expanded_block(self, rows):
        """For ranking the indexed points as seen from the indexed ``rows`` (not for
        'precomputed'): their squared distances to every point by the BLAS expansion,
        the bound on each row's error (``expansion_error_bound``), and the query and
        indexed rows that give the exact values (as indexed: unit rows for 'cosine')."""
        q = np.ascontiguousarray(self._data[rows])
        q_sq = self._sq[rows]
        sq = sq_euclidean(q, self._data, q_sq, self._sq)
        bound = expansion_error_bound(q_sq, self._sq.max(), self._data.shape[1], self._data.dtype)
        return sq, bound, self._rows[rows], self._rows

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed points of each row of ``Q``.

        Parameters
        ----------
        Q : array-like (m, d), or (m, n) distances with 'precomputed'
        k : int
        exclude_self : bool
            ``Q`` is the indexed data itself: leave each row's own index out.

        Returns
        -------
        distances : ndarray (m, k), increasing along each row
        indices : ndarray of int64 (m, k)
        """
        Q = query_rows(self, Q, k, exclude_self)
        if self.metric == "precomputed":
            return self._query_precomputed(Q, k, exclude_self)
        skip = np.arange(Q.shape[0]) if exclude_self else np.full(Q.shape[0], -1)
        sq, idx = self._certified(Q, k, skip, self.n_samples_ - (1 if exclude_self else 0))
        return from_squared(sq, self.metric), idx

    def _query_indexed(self, start, stop, k):
        """Neighbours of the indexed rows ``start:stop`` among the others (None for
        'precomputed', which keeps no rows)."""
        if self.metric == "precomputed":
            return None
        sq, idx = self._certified(self._rows[start:stop], k, np.arange(start, stop), self.n_samples_ - 1, own=True)
        return from_squared(sq, self.metric), idx

    def _query_precomputed(self, Q, k, exclude_self):
        from .._kernels.neighbors import smallest_k

        m = Q.shape[0]
        dist = np.empty((m, k), dtype=np.float64)
        idx = np.empty((m, k), dtype=np.int64)
        step = max(1, self.block_bytes // (8 * self.n_samples_))
        for start in range(0, m, step):
            stop = min(m, start + step)
            skip = np.arange(start, stop) if exclude_self else np.full(stop - start, -1)
            smallest_k(np.asarray(Q[start:stop]), k, skip, idx[start:stop], dist[start:stop])
        return dist, idx

    def _compiled(self, Q):
        """Whether a query of ``Q`` goes through the numba kernels (``_candidates``)."""
        return Q.shape[0] * self.n_samples_ > SMALL_PAIRS

    def _candidates(self, Q, k, skip):
        """The ``k`` smallest squared distances of each row of ``Q`` by the expansion
        ``|q|^2 + |y|^2 - 2 q.y`` in the data's dtype (increasing, ties to the lower
        index), their indices, and the ``|q|^2`` of the shifted rows; column ``skip[r]``
        left out of row r (-1: none)."""
        if not self._compiled(Q):
            return self._candidates_small(Q, k, skip)
        from .._kernels.neighbors import merge_smallest_sq

        m, n = Q.shape[0], self.n_samples_
        sq = np.full((m, k), np.inf)
        idx = np.full((m, k), -1, dtype=np.int64)
        q_norms = np.empty(m)
        buffers = threading.local()  # one product buffer per worker thread: no fresh pages
        data, y_sq = self._data, self._sq  # made here, not by each thread at first use

        def query_block(start):
            if not hasattr(buffers, "buf"):
                buffers.buf = np.empty(QUERY_ROWS * DATA_COLS, dtype=data.dtype)
            stop = min(m, start + QUERY_ROWS)
            q = np.ascontiguousarray(Q[start:stop] - self._offset, dtype=data.dtype)
            q_sq = q_norms[start:stop] = row_norms_sq(q)
            for c0 in range(0, n, DATA_COLS):
                c1 = min(n, c0 + DATA_COLS)
                G = buffers.buf[: (stop - start) * (c1 - c0)].reshape(stop - start, c1 - c0)
                np.matmul(q, data[c0:c1].T, out=G)
                merge_smallest_sq(G, q_sq, y_sq[c0:c1], c0, skip[start:stop], idx[start:stop], sq[start:stop])

        # One query block at a time per worker thread, each with a single-threaded product
        # and a serial merge: BLAS and the merge never wait for each other's spinning
        # threads, as a parallel product and a parallel merge taking turns would.
        with blas_limit(1):
            list(worker_pool("knn").map(query_block, range(0, m, QUERY_ROWS)))
        return sq, idx, q_norms

    def _candidates_small(self, Q, k, skip):
        """``_candidates`` for few pairs, in numpy: the same float64 expansion and the same
        order (a stable sort: ties to the lower index)."""
        q = np.ascontiguousarray(Q - self._offset, dtype=self._data.dtype)
        q_norms = row_norms_sq(q)
        sq = q_norms[:, None] + self._sq[None, :]
        sq -= 2.0 * matmul(q, self._data.T)
        np.maximum(sq, 0.0, out=sq)
        own = np.flatnonzero(skip >= 0)
        sq[own, skip[own]] = np.inf
        idx = np.argsort(sq, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(sq, idx, axis=1), idx.astype(np.int64), q_norms

    def _certified(self, Q, k, skip, available, own=False):
        """k + EXTRA_CANDIDATES candidates by the expansion in the data's dtype, re-ranked
        by distances summed in float64 from the differences of the rows themselves (ties
        to the lower index); a row is certified when its k-th exact distance is below the
        smallest value any point left out can have (the last candidate's expansion value
        minus ``expansion_error_bound``). float32 rows whose candidates spread less than
        the bound (wide rows, where it grows with the features) are ranked again by the
        float64 expansion (``_float64_rows``), and rows of more than
        ``FLOAT32_RANKED_FEATURES`` features by it alone; rows still not certified (ties at the
        boundary, duplicates) are searched again from differences. So float32 data get the float64
        answer at the float32 price, and float32 and float64 copies of the same points the
        same neighbours (5,000 Fashion-MNIST images: 4 extra candidates leave no row
        unsure in 50 PCA dimensions or in all 784 pixels). ``own``: row r of ``Q`` is the
        indexed row ``skip[r]`` (a self query: ``_float64_rows`` shifts each row once)."""
        wide = min(k + EXTRA_CANDIDATES, available)
        compiled, m = self._compiled(Q), Q.shape[0]
        exact, chosen = np.empty((m, k)), np.empty((m, k), dtype=np.int64)
        if wide < available and self._rows.dtype == np.float32 and Q.shape[1] > FLOAT32_RANKED_FEATURES:
            hopeless, unsure = np.arange(m), np.arange(0)
        else:
            sq, idx, q_sq = self._candidates(Q, wide, skip)
            if wide == available:  # every point is a candidate: nothing was left out
                return self._ranked(Q, np.arange(m), idx, k, compiled)
            hopeless, unsure = self._rank_candidates(Q, k, sq, idx, q_sq, compiled, exact, chosen)
        if hopeless.size:
            exact[hopeless], chosen[hopeless], left = self._float64_rows(Q, hopeless, k, wide, skip, own)
            unsure = np.union1d(unsure, left)
        if unsure.size:
            exact[unsure], chosen[unsure] = self._exact_rows(Q[unsure], k, skip[unsure], compiled)
        return exact, chosen

    def _rank_candidates(self, Q, k, sq, idx, q_sq, compiled, exact, chosen):
        """``_certified``'s ranking of the candidates ``idx`` (expansion values ``sq``)
        into ``exact`` and ``chosen``, for the rows whose candidates spread wider than
        the expansion's bound; returns the rows left to the float64 expansion (narrower
        spread: no ranking of them can be certified) and the rows left unsure (ties at
        the boundary, copies: float64 cannot part them)."""
        wide = idx.shape[1]
        bound = expansion_error_bound(q_sq, self._sq.max(), self._data.shape[1], self._data.dtype)
        hopeless = (sq[:, wide - 1] - sq[:, k - 1] < 2.0 * bound) & (self._data.dtype != np.float64)
        ranked = np.flatnonzero(~hopeless)
        exact[ranked], chosen[ranked] = self._ranked(Q, ranked, idx[ranked], k, compiled)
        unsure = ranked[_uncertain(exact[ranked, k - 1], sq[ranked, wide - 1], bound[ranked], Q.shape[1])]
        return np.flatnonzero(hopeless), unsure

    def _ranked(self, Q, part, idx, k, compiled=False):
        """The ``k`` nearest of each query row ``Q[part[r]]``'s candidates ``idx[r]``, by
        squared distances summed in float64 from the differences of the rows themselves
        (ties to the lower index): ``(distances, indices)``."""
        zero = np.zeros(Q.shape[1], dtype=self._rows.dtype)
        found = pair_sq_distances(Q, self._rows, zero, np.repeat(part, idx.shape[1]), idx.ravel(), compiled)
        found = found.reshape(idx.shape)
        order = np.lexsort((idx, found), axis=1)[:, :k]
        return np.take_along_axis(found, order, axis=1), np.take_along_axis(idx, order, axis=1)

    def _float64_rows(self, Q, rows, k, wide, skip, own=False):
        """``_certified`` again for the query ``rows`` it could not certify in float32,
        with the expansion in float64 (blocks of the indexed rows copied to float64): in
        many dimensions float32's bound is wider than the gaps between neighbours (100
        rows of 200,000 features: every row), float64's 2^29 times narrower. Returns their
        distances, indices, and the rows still unsure (ties at float64's precision).
        ``own``: as ``_certified``'s; consecutive own rows are indexed rows the
        candidates' blocks then read from the shifted query instead of shifting again."""
        offset = self._offset.astype(np.float64)
        exact, chosen = np.empty((rows.size, k)), np.empty((rows.size, k), dtype=np.int64)
        left = []
        for a in range(0, rows.size, QUERY_ROWS):
            part = rows[a : a + QUERY_ROWS]
            consecutive = part[-1] - part[0] == part.size - 1
            at = slice(part[0], part[-1] + 1) if consecutive else part
            q_at = int(skip[part[0]]) if own and consecutive else -1
            sq, idx, q_sq, y_sq_max = _float64_candidates(
                Q, at, self._rows, offset, wide, skip[part], self.block_bytes, q_at
            )
            exact[a : a + part.size], chosen[a : a + part.size] = self._ranked(Q, part, idx, k)
            bound = expansion_error_bound(q_sq, y_sq_max, Q.shape[1], np.float64)
            left.append(
                a + np.flatnonzero(_uncertain(exact[a : a + part.size, k - 1], sq[:, wide - 1], bound, Q.shape[1]))
            )
        return exact, chosen, rows[np.concatenate(left)]

    def _exact_rows(self, Q, k, skip, compiled):
        """The ``k`` nearest points of each row of ``Q`` by squared distances summed in
        float64 from the differences of the rows themselves (no expansion): for the few
        rows ``_certified`` leaves unsure. Memory: chunks of SMALL_PAIRS / 4 pairs."""
        n, m = self.n_samples_, Q.shape[0]
        zero = np.zeros(Q.shape[1], dtype=self._rows.dtype)
        sq, idx = np.empty((m, k)), np.empty((m, k), dtype=np.int64)
        step = max(1, SMALL_PAIRS // 4 // n)
        for a in range(0, m, step):
            b = min(m, a + step)
            D = pair_sq_distances(
                Q, self._rows, zero, np.repeat(np.arange(a, b), n), np.tile(np.arange(n), b - a), compiled
            ).reshape(b - a, n)
            if compiled:  # one pass per row: a sort of n per unsure row costs 0.1 s at 10^6 points
                from .._kernels.neighbors import smallest_k

                smallest_k(D, k, skip[a:b], idx[a:b], sq[a:b])
                continue
            own = np.flatnonzero(skip[a:b] >= 0)
            D[own, skip[a:b][own]] = np.inf
            idx[a:b] = np.argsort(D, axis=1, kind="stable")[:, :k]
            sq[a:b] = np.take_along_axis(D, idx[a:b], axis=1)
        return sq, idx


def _uncertain(kth, last, bound, n_features):
    """Whether a row's ranking is not certified: its k-th distance summed from
    differences (exact to ``n_features`` float64 roundings) is not below the smallest
    value any point left out can have (``last``, the last candidate's expansion value,
    less ``bound``)."""
    return ~(kth * (1.0 + n_features * np.finfo(np.float64).eps) < last - bound)


def shifted64(A, at, offset):
    """``A[at] - offset`` in float64, in one pass into one new array (not a float64 copy
    and then a second one for the difference: on wide rows each pass costs as much as
    the product that follows).

    Examples
    --------
    >>> shifted64(np.array([[1, 2], [3, 4]], dtype=np.float32), slice(1, 2), np.array([1.0, 1.0]))
    array([[2., 3.]])
    """
    rows = A[at]
    return np.subtract(rows, offset, out=np.empty(rows.shape), dtype=np.float64)


def _float64_candidates(Q, at, rows, offset, wide, skip, block_bytes, q_at=-1):
    """The ``wide`` smallest squared distances from the rows ``Q[at]`` to ``rows`` by the
    float64 expansion of both shifted by ``offset`` (increasing), their indices, the
    query rows' squared norms and the largest squared norm of the indexed rows; column
    ``skip[r]`` left out of row r. The points are taken in blocks, of which each row
    keeps its ``wide`` smallest (which of equal values at the edge does not matter: a
    row whose k-th distance is not certified below the last is searched again); a
    block's products are summed over ``FEATURE_COLS`` columns at a time
    (``_block_products``). ``q_at`` >= 0: ``Q[at]`` is ``rows[q_at : q_at + m]``, and
    blocks within it are read from its shifted columns."""
    m, n = skip.size, rows.shape[0]
    best_sq, best_idx = np.full((m, 0), np.inf), np.zeros((m, 0), dtype=np.int64)
    y_sq_max = 0.0
    # products of at most block_bytes, column copies of at most an eighth of it
    step = max(wide, min(block_bytes // (8 * max(m, 1)), block_bytes // (64 * FEATURE_COLS)))
    for c0 in range(0, n, step):
        c1 = min(n, c0 + step)
        G, q_sq, y_sq = _block_products(Q, at, rows, offset, c0, c1, q_at)
        y_sq_max = max(y_sq_max, float(y_sq.max()))
        sq = q_sq[:, None] + y_sq[None, :]
        sq -= 2.0 * G
        inside = np.flatnonzero((skip >= c0) & (skip < c1))
        sq[inside, skip[inside] - c0] = np.inf
        if sq.shape[1] > wide:
            keep = np.argpartition(sq, wide - 1, axis=1)[:, :wide]
            sq, idx = np.take_along_axis(sq, keep, axis=1), keep + c0
        else:
            idx = np.broadcast_to(np.arange(c0, c1), sq.shape)
        sq, idx = np.hstack([best_sq, sq]), np.hstack([best_idx, idx])
        order = np.lexsort((idx, sq), axis=1)[:, :wide]
        best_sq, best_idx = np.take_along_axis(sq, order, axis=1), np.take_along_axis(idx, order, axis=1)
    return best_sq, best_idx, q_sq, y_sq_max


def _block_products(Q, at, rows, offset, c0, c1, q_at):
    """``(G, q_sq, y_sq)``: the float64 products of the shifted rows ``Q[at]`` with the
    shifted points ``rows[c0:c1]`` and both sides' squared norms, summed over
    ``FEATURE_COLS`` columns at a time, each copied to float64 on its own (a block
    within the query, ``q_at`` as ``_float64_candidates``'s, is read from the query's
    copy)."""
    m = Q[at, :0].shape[0]
    inside_q = 0 <= q_at <= c0 and c1 <= q_at + m
    G, q_sq, y_sq = np.zeros((m, c1 - c0)), np.zeros(m), np.zeros(c1 - c0)
    for f0 in range(0, Q.shape[1], FEATURE_COLS):
        columns = slice(f0, f0 + FEATURE_COLS)
        q = shifted64(Q, (at, columns), offset[columns])
        y = q[c0 - q_at : c1 - q_at] if inside_q else shifted64(rows, (slice(c0, c1), columns), offset[columns])
        G += matmul(q, y.T)
        q_sq += row_norms_sq(q)
        if not inside_q:
            y_sq += row_norms_sq(y)
    return G, q_sq, q_sq[c0 - q_at : c1 - q_at] if inside_q else y_sq


def expansion_error_bound(q_sq, y_sq_max, n_features, dtype):
    """Largest error of squared distances ``|q|^2 + |y|^2 - 2 q.y`` from rows shifted
    and multiplied in ``dtype``, against the exact distance of the unshifted rows, for
    every indexed ``y``: ``(d / 2 + 6) u (|q| + max |y|)^2`` with ``u`` the unit
    roundoff (2^-24 for float32): the product's rounding, in any summation order, is at
    most ``d u / (1 - d u) |q| |y|``, doubled in the expansion; rounding the shift
    moves a squared distance by at most about ``2 u (|q| + |y|)^2``, and the float64
    sums of the expansion by at most ``3 u (|q| + |y|)^2``.

    Parameters
    ----------
    q_sq : ndarray (m,)
        Squared norms of the shifted query rows.
    y_sq_max : float
        The largest squared norm of the shifted indexed rows.
    n_features : int
    dtype : numpy dtype
        The dtype the rows were shifted and multiplied in.

    Returns
    -------
    ndarray (m,)
        The bound for each query row.

    Examples
    --------
    >>> # unit norms, 2 features: (2 / 2 + 6) u (1 + 1)^2 = 28 u
    >>> round(float(expansion_error_bound(np.array([1.0]), 1.0, 2, np.float32)[0]) / 2.0**-24, 6)
    28.0
    """
    u = np.finfo(dtype).eps / 2
    scale = 0.5 * n_features / (1.0 - n_features * u) + 6.0
    return u * scale * (np.sqrt(q_sq) + np.sqrt(y_sq_max)) ** 2


def shifted_rows(X, metric):
    """``(offset, X - offset)`` with the column means as offset (unit rows first for
    'cosine'): distances are shift-invariant, and centred float32 keeps its precision."""
    if metric == "cosine":
        X = cosine_rows(X)
    offset = X.mean(axis=0, dtype=np.float64).astype(X.dtype)
    return offset, X - offset


def query_rows(index, Q, k, exclude_self):
    """Validate a query against a built ``index``: ``Q`` as an array (unit rows for
    'cosine') and ``k`` within the number of indexed points."""
    Q = check_array(Q, name="Q", estimator_name=type(index).__name__)
    if not exclude_self:  # new rows: distances to them are kept in float32 (the indexed ones were checked at build)
        check_distance_range(Q, index.metric, getattr(index, "metric_params", None))
    available = index.n_samples_ - (1 if exclude_self else 0)
    if not 1 <= k <= available:
        raise ValueError(
            f"n_neighbors={k} must be between 1 and {available} (the number of "
            f"{'other ' if exclude_self else ''}indexed points); lower n_neighbors."
        )
    return cosine_rows(Q) if index.metric == "cosine" else Q


def from_squared(sq, metric):
    """Squared Euclidean distances (in place) to ``metric``'s distances; for 'cosine' the
    rows were unit vectors, so ``|a - b|^2 / 2 = 1 - cos(a, b)``."""
    if metric == "euclidean":
        np.sqrt(sq, out=sq)
    elif metric == "cosine":
        sq *= 0.5
    return sq


def refine_sq_distances(Q, data, offset, idx, out):
    """Squared distances from each row of ``Q`` to its chosen neighbours ``data[idx]``,
    recomputed in float64 from differences (into ``out``): GEMM expansions lose the
    small ones (a point's distance to itself comes out as sqrt(rounding), about 1e-8
    of its norm, instead of 0). ``data`` is stored shifted by ``offset``."""
    m, k = idx.shape
    out[:] = pair_sq_distances(Q, data, offset, np.repeat(np.arange(m), k), idx.ravel()).reshape(m, k)
    return out


def pair_sq_distances(Q, data, offset, rows, cols, compiled=False):
    """``|Q[rows[p]] - offset - data[cols[p]]|^2`` for every p, summed in float64 from
    the differences (a numba kernel; numpy for few terms unless ``compiled``, i.e. the
    caller has loaded numba kernels anyway)."""
    Q = np.asarray(Q)
    out = np.empty(rows.size)
    if compiled or rows.size > SMALL_PAIRS // 16 or rows.size * Q.shape[1] > SMALL_TERMS:
        from .._kernels.neighbors import pair_sq_distances as kernel
        from .._threads import in_row_ranges

        in_row_ranges("pairs", 0, rows.size, lambda a, b: kernel(Q, data, offset, rows, cols, out, a, b))
        return out
    step = max(1, DIFFERENCE_TERMS // max(Q.shape[1], 1))
    shift = offset.astype(np.float64) if np.any(offset) else None
    for a in range(0, rows.size, step):
        r, c = rows[a : a + step], cols[a : a + step]
        # (q - offset) - y in float64, cast on the way: no float64 copies of the rows
        diff = np.subtract(Q[r], shift, dtype=np.float64) if shift is not None else Q[r].astype(np.float64)
        np.subtract(diff, data[c], out=diff, dtype=np.float64)
        np.einsum("ij,ij->i", diff, diff, out=out[a : a + step])
    return out
