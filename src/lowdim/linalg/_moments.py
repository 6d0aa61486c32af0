"""Exact streaming first and second moments (mean and centered scatter matrix).

Each block of rows is centered on its own mean, its scatter computed with one BLAS
``syrk`` in the block's dtype (numpy's matmul: ``linalg._blas.gram_of_columns``), and
blocks are merged exactly in float64 with the pairwise update of Chan, Golub and
LeVeque. Merging is associative, so any chunking of
the rows gives the same result up to rounding, and data far from the origin keeps its
precision (no ``E[x^2] - E[x]^2`` cancellation).
"""

import warnings

import numpy as np
import scipy.sparse as sp

from ._blas import add_gram_of_columns, gram_of_columns, symmetric_from_upper, syrk_upper

BLOCK_BYTES = 1 << 25  # ~32 MB of rows per BLAS call


def block_rows(n_features, itemsize, block_bytes=BLOCK_BYTES):
    """Rows per block so that one block holds about ``block_bytes`` bytes.

    Parameters
    ----------
    n_features : int
    itemsize : int
        Bytes per entry.
    block_bytes : int, default=32 MiB

    Returns
    -------
    int
        Rows per block (at least 256).

    Examples
    --------
    >>> block_rows(1000, 8) >= 256
    True
    """
    return max(256, block_bytes // max(1, n_features * itemsize))


def iter_row_blocks(X, rows=None):
    """Yield ``X[start:stop]`` for consecutive row blocks (views for dense arrays).

    Parameters
    ----------
    X : ndarray, memmap or sparse matrix (n, d)
    rows : int, optional
        Rows per block; default ``block_rows`` for about 32 MiB.

    Examples
    --------
    >>> import numpy as np
    >>> [b.shape[0] for b in iter_row_blocks(np.ones((5, 2)), rows=2)]
    [2, 2, 1]
    """
    n = X.shape[0]
    if rows is None:
        itemsize = X.dtype.itemsize
        rows = block_rows(X.shape[1], itemsize)
    for start in range(0, n, rows):
        yield X[start : start + rows]


# Centre each block explicitly when mean^2 / variance exceeds this for some feature:
# beyond it, the raw ``X^T X - n m m^T`` would lose more than ~2 digits in the block's dtype.
_CANCELLATION_RATIO = {np.dtype(np.float32): 1e2, np.dtype(np.float64): 1e6}


DENSE_FROM = 0.05  # share of filled cells above which a sparse block's scatter is computed dense


def _sparse_block_scatter(block):
    """Mean and centred scatter of a sparse block: by the sparse product while the block
    is sparse, else densified for one syrk (its rows are those of a ~32 MiB dense block),
    which is faster from ``DENSE_FROM`` of the cells filled on (log-normalised cells)."""
    if block.nnz > DENSE_FROM * block.shape[0] * block.shape[1]:
        return _dense_block_scatter(block.toarray(), True)
    mean = np.asarray(block.mean(axis=0, dtype=np.float64)).ravel()
    gram = (block.T @ block).toarray().astype(np.float64)
    return mean, gram - block.shape[0] * np.outer(mean, mean)


@np.errstate(invalid="ignore", over="ignore")  # non-finite input is reported by the caller
def _dense_block_scatter(block, center, mean=None):
    """Mean and centred scatter (float64) of one block, by one syrk in the block's dtype.

    ``center``: subtract the (rounded) block mean first, which is exact for data far
    from the origin; otherwise use ``X^T X - n m m^T``, which saves a copy of the block.
    ``mean``: the block's column mean in float64, when already known.
    """
    nb = block.shape[0]
    if mean is None:
        mean = block.mean(axis=0, dtype=np.float64)
    if not center:
        return mean, gram_of_columns(block) - nb * np.outer(mean, mean)
    shift = mean.astype(block.dtype)  # rounded mean: x - shift is exact for float32 data
    scatter = gram_of_columns(block - shift)
    offset = mean - shift  # scatter about the exact mean = scatter about shift - n offset offset^T
    if offset.any():
        scatter -= np.outer(offset, offset * nb)
    return mean, scatter


def needs_centering(mean, var, dtype):
    """Whether raw second moments (``X^T X - n m m^T``) would cancel badly for such data.

    Parameters
    ----------
    mean : ndarray (d,)
    var : ndarray (d,)
        Column means and variances.
    dtype : numpy dtype
        The data's.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> needs_centering(np.array([1e6]), np.array([1.0]), np.float32)
    True
    """
    m2 = mean**2
    constant_nonzero = np.any((var <= 0) & (m2 > 0))
    return bool(constant_nonzero or np.any(m2 > _CANCELLATION_RATIO[np.dtype(dtype)] * var))


DECIDING_ROWS = 64  # a block of this many rows tells whether the data lie far from the origin
UNDECIDED, RAW, CENTERED = "undecided", "raw", "centered"  # ScatterAccumulator's modes
# rows (as a fraction of the columns) up to which the accumulator keeps them as a factor of
# the scatter instead of the d x d matrix: below it the factor is the smaller of the two
THIN_ROWS_FRACTION = 0.5


@np.errstate(invalid="ignore", over="ignore")
def raw_moments_safe(n, sums, sq_diagonal, dtype, on_nonfinite=None):
    """Whether raw moments of ``n`` rows (column sums, diagonal of ``X^T X``) can be
    kept as they are: they do not cancel (``needs_centering``). ``on_nonfinite`` is
    called (and expected to raise) first when they are not finite.

    Examples
    --------
    >>> import numpy as np
    >>> raw_moments_safe(4, np.array([4e3]), np.array([4e6 + 3.0]), np.float32)
    False
    """
    if on_nonfinite is not None and not (np.isfinite(sums).all() and np.isfinite(sq_diagonal).all()):
        on_nonfinite()
    mean = sums / n
    return not needs_centering(mean, (sq_diagonal - n * mean**2) / max(n - 1, 1), dtype)


class ScatterAccumulator:
    """Running count, mean and centered scatter ``sum (x - mean)(x - mean)^T``.

    The exact path: every block is centered on its own mean and merged (Chan et al.).
    The thin path (``factor``): while fewer rows than ``THIN_ROWS_FRACTION`` of the
    columns have been added (dense blocks), they are kept as rows ``F`` with ``F^T F``
    the scatter, the exact merge written as rows (each block centred on its own mean,
    then one row ``sqrt(weight) delta`` per merge), so a stream of wide rows never
    builds the d x d matrix; past that, or at the first sparse block, the factor's
    scatter is formed once and the stream goes on as below.
    The fast path (``_add_raw_if_safe``): dense blocks near the origin add raw sums
    ``X^T X`` and ``sum x`` instead (one syrk per block, no per-block merging; centered
    once at the end in float64). Each block's own raw moments are checked first
    (``needs_centering``): a block far from the origin (the data start there, or drift
    there later) takes the exact path, and from a block of ``DECIDING_ROWS`` rows on, so
    does every later block; smaller blocks are too few to tell and decide only for
    themselves. ``_mode`` records the decision: UNDECIDED, RAW (raw blocks so far) or
    CENTERED (the exact path from here on).

    Parameters
    ----------
    n_features : int
        Dimension of the rows.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> acc = ScatterAccumulator(3)
    >>> acc.update(X[:30]); acc.update(X[30:])
    >>> bool(np.allclose(acc.covariance(), np.cov(X.T)))
    True
    """

    def __init__(self, n_features):
        self._n, self._mean = 0, np.zeros(n_features)
        self._raw_n, self._raw_sum = 0, np.zeros(n_features)
        self._scatter = self._raw_sq = None  # d x d, allocated when the factor ends (``_end_thin``)
        self._mode = UNDECIDED
        self._factor, self._thin = [], True  # see ``factor``

    @classmethod
    def from_moments(cls, n, mean, scatter):
        """An accumulator holding ``n`` rows with this mean and centred scatter (float64),
        e.g. the merged moments of row blocks computed elsewhere; ``update`` continues it.

        Examples
        --------
        >>> import numpy as np
        >>> acc = ScatterAccumulator.from_moments(3, np.zeros(2), np.eye(2))
        >>> acc.n, float(acc.covariance()[0, 0])
        (3, 0.5)
        """
        acc = cls(mean.size)
        acc._end_thin()
        acc._n, acc._mean, acc._scatter = int(n), np.array(mean, dtype=np.float64), np.array(scatter, dtype=np.float64)
        acc._mode = CENTERED  # rows added later are merged exactly, block by block
        return acc

    @classmethod
    def from_factor(cls, n, mean, rows):
        """An accumulator holding ``n`` rows with this mean and a factor ``rows`` of their
        centred scatter (``rows.T @ rows``, as ``factor`` gives it); ``update`` continues
        it, as rows while they stay fewer than ``THIN_ROWS_FRACTION`` of the columns.

        Examples
        --------
        >>> import numpy as np
        >>> acc = ScatterAccumulator.from_factor(3, np.zeros(4), np.eye(2, 4))
        >>> acc.n, float(acc.covariance()[0, 0]), acc.factor()[2].shape
        (3, 0.5, (2, 4))
        """
        acc = cls(mean.size)
        acc._n, acc._mean = int(n), np.array(mean, dtype=np.float64)
        acc._factor = [np.array(rows, dtype=np.float64)]
        if acc._factor[0].shape[0] > THIN_ROWS_FRACTION * acc.n_features:
            acc._end_thin()
        return acc

    @classmethod
    def of_array(cls, X, mean, variances):
        """The moments of an in-memory dense array whose column mean and variance are
        known (``column_moments``; the caller has checked them for NaN/infinity): near the origin one
        syrk over all rows, centred afterwards in float64; far from it, block by block
        as ``update`` does.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(size=(50, 3))
        >>> acc = ScatterAccumulator.of_array(X, *column_moments(X))
        >>> bool(np.allclose(acc.covariance(), np.cov(X.T)))
        True
        """
        if needs_centering(mean, variances, X.dtype):
            acc = cls(X.shape[1])
            acc._mode = CENTERED  # known already: no raw attempt on the first block
            acc.update(X)
            return acc
        return cls.from_moments(X.shape[0], *_dense_block_scatter(X, False, mean))

    def update(self, X, rows=None, on_nonfinite=None, progress=None):
        """Add the rows of ``X`` (dense or sparse), block by block.

        Once the first dense block shows that raw moments are safe, the rest of an
        in-memory array goes through one BLAS call (no copies to bound).

        Parameters
        ----------
        X : ndarray, memmap or sparse matrix
        rows : int, optional
            Rows per block.
        on_nonfinite : callable, optional
            Called (and expected to raise) before a block whose moments are not finite
            is added, so that the accumulator stays valid.
        progress : callable, optional
            Called with the number of rows of each block once it is added.
        """
        for block in self._blocks(X, rows):
            nb = block.shape[0]
            if nb == 0:
                continue
            if self._thin and not self._add_thin(block, on_nonfinite):
                self._end_thin()
            if not self._thin:
                self._add_block(block, rows, on_nonfinite)
            if progress is not None:
                progress(nb)

    def _add_block(self, block, rows, on_nonfinite):
        """Add one block to the scatter (or raw sums)."""
        nb = block.shape[0]
        if sp.issparse(block):
            self._add_centered(nb, *_sparse_block_scatter(block), on_nonfinite)
        elif self._mode == CENTERED:
            self._add_centered(nb, *_dense_block_scatter(block, True), on_nonfinite)
        elif not self._add_raw_if_safe(block, on_nonfinite):
            for sub in iter_row_blocks(block, rows):
                self._add_centered(sub.shape[0], *_dense_block_scatter(sub, True), on_nonfinite)
            if nb >= DECIDING_ROWS:
                self._mode = CENTERED

    def _add_thin(self, block, on_nonfinite):
        """Add a dense block to the factor if the factor stays thin; returns whether it did.

        The block centred on its own mean, then (from the second block on) the merge's
        ``sqrt(weight) delta``: ``F^T F`` gains exactly the merged scatter's terms."""
        held = sum(rows.shape[0] for rows in self._factor)
        if sp.issparse(block) or held + block.shape[0] + 1 > THIN_ROWS_FRACTION * self.n_features:
            return False
        mean_b = block.mean(axis=0, dtype=np.float64)
        centred = block - mean_b  # float64, a new array
        if on_nonfinite is not None and not np.isfinite(np.einsum("ij,ij->", centred, centred)):
            on_nonfinite()
        n, mean, delta, weight = merge_step(self._n, self._mean, block.shape[0], mean_b)
        if self._n:
            self._factor.append(np.sqrt(weight) * delta[None, :])
        self._factor.append(centred)
        self._n, self._mean = n, mean
        return True

    def _end_thin(self):
        """The factor's scatter, formed once; the stream goes on with the d x d matrices."""
        d = self.n_features
        self._scatter = self._combined()[2]
        self._raw_sq = np.zeros((d, d))
        self._factor, self._thin = [], False

    def factor(self):
        """``(n, mean, F)`` with ``F^T F`` the centred scatter, while the rows added are
        few (fewer than ``THIN_ROWS_FRACTION`` of the columns, dense): ``F`` has about
        one row per row added (float64, a new array), so the spectrum comes from its
        Gram matrix; ``None`` once the accumulator holds the d x d scatter.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(size=(4, 10))
        >>> acc = ScatterAccumulator(10)
        >>> acc.update(X[:2]); acc.update(X[2:])
        >>> n, mean, F = acc.factor()
        >>> n, F.shape, bool(np.allclose(F.T @ F, (n - 1) * np.cov(X.T)))
        (4, (5, 10), True)
        """
        if not self._thin:
            return None
        rows = np.vstack(self._factor) if self._factor else np.zeros((0, self.n_features))
        return self._n, self._mean.copy(), rows

    def _blocks(self, X, rows):
        blocks = iter_row_blocks(X, rows)
        first = next(blocks, None)
        if first is None:
            return
        yield first
        if self._mode == RAW and rows is None and type(X) is np.ndarray and first.shape[0] < X.shape[0]:
            yield X[first.shape[0] :]
            return
        yield from blocks

    def _add_raw_if_safe(self, block, on_nonfinite):
        """The fast path: add the block's raw moments when its own show they do not
        cancel (column sums grouped: near the origin they are as accurate as the float32
        products). Returns whether it did; if not, nothing was added."""
        nb = block.shape[0]

        def near_origin(sums, sq_diagonal):
            return raw_moments_safe(nb, sums, sq_diagonal, block.dtype, on_nonfinite)

        if not add_gram_of_columns(block, self._raw_sq, self._raw_sum, grouped=True, accept=near_origin):
            return False
        self._raw_n += nb
        self._mode = RAW
        return True

    def _add_centered(self, nb, mean_b, scatter_b, on_nonfinite):
        if on_nonfinite is not None and not (np.isfinite(mean_b).all() and np.isfinite(np.diag(scatter_b)).all()):
            on_nonfinite()
        self._n, self._mean = merge_scatter_into(self._n, self._mean, self._scatter, nb, mean_b, scatter_b)

    def _combined(self):
        """(n, mean, scatter) of everything added, without changing the state."""
        if self._thin:
            n, mean, rows = self.factor()
            if not rows.shape[0]:
                return n, mean, np.zeros((mean.size, mean.size))
            return n, mean, symmetric_from_upper(syrk_upper(rows))
        if self._raw_n:
            mean_r = self._raw_sum / self._raw_n
            scatter_r = self._raw_sq - self._raw_n * np.outer(mean_r, mean_r)
            if not self._n:  # raw sums only: nothing to merge
                return self._raw_n, mean_r, scatter_r
        n, mean, scatter = self._n, self._mean.copy(), self._scatter.copy()
        if self._raw_n:
            n, mean = merge_scatter_into(n, mean, scatter, self._raw_n, mean_r, scatter_r)
        return n, mean, scatter

    def moments(self):
        """``(n, mean, scatter)`` of everything added (float64, new arrays)."""
        return self._combined()

    @property
    def n(self):
        """Number of rows added."""
        return self._n + self._raw_n

    @property
    def n_features(self):
        """Dimension of the rows."""
        return self._mean.size

    @property
    def mean(self):
        """Column means (float64)."""
        return self._mean.copy() if self._thin else self._combined()[1]

    def covariance(self, ddof=1):
        """The covariance matrix (float64)."""
        n, _, scatter = self._combined()
        return scatter / max(n - ddof, 1)


def merge_step(na, mean_a, nb, mean_b):
    """One pairwise merge of two groups' means (Chan, Golub and LeVeque): returns
    ``(n, mean, delta, weight)``; the union's scatter is ``S_a + S_b + weight * delta
    delta^T`` (its diagonal, a sum of squared deviations, the same with ``delta**2``).

    Parameters
    ----------
    na : int
    mean_a : ndarray (d,)
    nb : int
    mean_b : ndarray (d,)
        The row counts and means of the two groups.

    Returns
    -------
    n : int
    mean : ndarray (d,)
        Of the union.
    delta : ndarray (d,)
        ``mean_b - mean_a``.
    weight : float
        ``na nb / n``.

    Examples
    --------
    >>> n, mean, delta, weight = merge_step(2, np.array([0.0]), 2, np.array([2.0]))
    >>> n, mean.tolist(), delta.tolist(), weight
    (4, [1.0], [2.0], 1.0)
    """
    n = na + nb
    delta = mean_b - mean_a
    return n, mean_a + delta * (nb / n), delta, na * nb / n


def merge_scatter_into(na, mean_a, scatter_a, nb, mean_b, scatter_b):
    """Merge (nb, mean_b, scatter_b) into ``scatter_a`` in place; return (n, mean).

    Examples
    --------
    >>> S = np.zeros((1, 1))
    >>> n, mean = merge_scatter_into(1, np.array([0.0]), S, 1, np.array([2.0]), np.zeros((1, 1)))
    >>> n, mean.tolist(), S.tolist()
    (2, [1.0], [[2.0]])
    """
    n, mean, delta, weight = merge_step(na, mean_a, nb, mean_b)
    scatter_a += scatter_b
    if na:
        scatter_a += np.outer(delta, delta * weight)
    return n, mean


# entries up to which column_moments sums in numpy: a few milliseconds more than the
# kernel there, against the kernel's compilation (most of a second) on a first call
SMALL_MOMENTS = 1 << 24
# From this many stored entries a CSR matrix's column sums (and StandardScaler's scaling)
# come from kernels, without float64 copies: as for SMALL_MOMENTS, where a first call's
# compilation is about what the copies cost.
SPARSE_KERNEL_ENTRIES = SMALL_MOMENTS
MOMENT_CHUNK = 1 << 15  # entries of float64 per numpy chunk (stays in cache)
SPARSE_CHUNK = 1 << 20  # a sparse matrix's stored entries per block: each block costs numpy calls of columns' length


def _shifted_sums(X, shift):
    """Column sums of ``x - shift`` and of its square in float64, a chunk of rows at a time."""
    rows = max(1, MOMENT_CHUNK // max(1, X.shape[1]))
    s1, s2 = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for start in range(0, X.shape[0], rows):
        D = np.asarray(X[start : start + rows], dtype=np.float64) - shift
        s1 += D.sum(axis=0)
        s2 += np.einsum("ij,ij->j", D, D)
    return s1, s2


def shifted_copy_with_norms(X, shift, out, norms):
    """``out = X - shift`` (in out's dtype) and the float64 squared norms of its rows:
    numpy's over row chunks up to ``SMALL_MOMENTS`` entries, above one pass of a kernel.

    Parameters
    ----------
    X : ndarray (n, d), float32 or float64
    shift : ndarray (d,)
    out : ndarray (n, d)
        Receives ``X - shift``.
    norms : ndarray (n,), float64
        Receives the squared norms of ``out``'s rows.

    Examples
    --------
    >>> X, out, norms = np.array([[1.0, 2.0], [3.0, 5.0]]), np.empty((2, 2)), np.empty(2)
    >>> shifted_copy_with_norms(X, np.array([1.0, 2.0]), out, norms)
    >>> out.tolist(), norms.tolist()
    ([[0.0, 0.0], [2.0, 3.0]], [0.0, 13.0])
    """
    if X.size > SMALL_MOMENTS:
        from .._kernels.moments import shifted_copy_with_norms as kernel

        kernel(X, shift, out, norms)
        return
    np.subtract(X, shift, out=out, casting="unsafe")
    rows = max(1, MOMENT_CHUNK // max(1, X.shape[1]))
    for start in range(0, X.shape[0], rows):
        D = np.asarray(out[start : start + rows], dtype=np.float64)
        np.einsum("ij,ij->i", D, D, out=norms[start : start + rows])


def column_moments(X, *, ddof=1, skip_nan=False):
    """Per-column mean and variance in float64, in one parallel pass.

    Dense data goes through a numba kernel that sums ``x - x0`` and ``(x - x0)^2`` in
    float64, with ``x0`` the first row (so data far from the origin keeps its
    precision); up to ``SMALL_MOMENTS`` entries numpy does the same sums over row
    chunks (no compilation on a first call with moderate data, no full copy). Sparse
    matrices are never densified: two passes over their stored entries, the means and
    then the squared deviations.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
    ddof : int, default=1
        The variance divides by ``n - ddof``.
    skip_nan : bool, default=False
        Leave NaN entries out, column by column (a column's ``n`` is its entries that
        are not NaN; a column of NaN only has mean and variance NaN). Without it a NaN
        makes its column's moments NaN.

    Returns
    -------
    mean : ndarray (d,), float64
    variance : ndarray (d,), float64

    Examples
    --------
    >>> import numpy as np
    >>> m, v = column_moments(np.array([[1.0, 2.0], [3.0, 2.0]]))
    >>> m, v
    (array([2., 2.]), array([2., 0.]))
    >>> column_moments(np.array([[1.0, np.nan], [3.0, 2.0]]), ddof=0, skip_nan=True)
    (array([2., 2.]), array([1., 0.]))
    """
    if sp.issparse(X):
        mean, squares, rows = _sparse_deviations(X, skip_nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(rows > 0, mean, np.nan), np.where(rows > 0, squares / np.maximum(rows - ddof, 1), np.nan)
    if skip_nan and np.isnan(X).any():
        with warnings.catch_warnings():  # a column of NaN only: NaN moments, said by the caller
            warnings.simplefilter("ignore", RuntimeWarning)
            X64 = np.asarray(X, dtype=np.float64)
            return np.nanmean(X64, axis=0), np.nanvar(X64, axis=0, ddof=ddof)
    n = X.shape[0]
    shift = np.asarray(X[0], dtype=np.float64)
    # data too large to square give non-finite moments, which the callers check (the
    # kernel's path is silent about them too): no numpy warning on the way
    with np.errstate(over="ignore", invalid="ignore"):
        if X.size <= SMALL_MOMENTS:
            s1, s2 = _shifted_sums(X, shift)
        else:
            from .._kernels.moments import shifted_column_sums

            s1, s2 = shifted_column_sums(X, shift, max(1, min(64, n // 1024)))
            s1, s2 = s1.sum(axis=0), s2.sum(axis=0)
        mean = shift + s1 / n
        var = np.maximum(s2 - s1 * s1 / n, 0.0) / max(n - ddof, 1)
    return mean, var


def _sparse_deviations(X, skip_nan):
    """``(mean, squared deviations summed, rows)`` per column of a sparse matrix, in two
    passes over its stored entries: the means, then the stored entries' squared
    deviations plus the unstored zeros' (``sum x^2 - n mean^2`` loses every digit of a
    column far from zero: a spread of 1e-2 about 1e6 came out 0, and TruncatedSVD
    refused it as underflow). ``rows``: n, less the column's NaN entries with
    ``skip_nan``. A block of entries at a time: no copy of the matrix."""
    n, d = X.shape
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    if not X.has_canonical_format:  # duplicates: their parts' squares are not their sum's
        X = X.copy()
        X.sum_duplicates()
    if not (skip_nan and np.isnan(X.data).any()):
        quick = _sparse_sums_of_squares(X)
        if quick is not None:
            return quick
    counts, sums, gaps = np.zeros(d), np.zeros(d), np.zeros(d)
    for columns, values in _stored_entries(X, skip_nan):
        counts += np.bincount(columns, minlength=d)
        sums += np.bincount(columns, weights=values, minlength=d)
    if skip_nan:  # the stored entries the blocks left out: the NaN ones
        stored = np.bincount(X.indices, minlength=d) if X.format == "csr" else np.diff(X.indptr)
        gaps = stored - counts
    rows = n - gaps
    mean = sums / np.maximum(rows, 1)
    squares = (rows - counts) * mean**2
    with np.errstate(over="ignore", invalid="ignore"):  # non-finite moments: the callers check
        for columns, values in _stored_entries(X, skip_nan):
            values -= mean[columns]
            squares += np.bincount(columns, weights=values * values, minlength=d)
    return mean, squares, rows


def _sparse_sums_of_squares(X):
    """``_sparse_deviations`` of a CSR or CSC matrix without NaN from scipy's sums of
    the entries and of their squares (about 4x quicker than the gather of every entry's
    column mean), or None where that loses digits: ``sum x^2 - n mean^2`` is exact to
    about ``n eps sum x^2``, so a column whose squared deviations are below a hundredth
    of its squares (a spread small beside its distance from zero) goes to the two
    passes."""
    n, d = X.shape
    if X.format == "csr" and X.nnz >= SPARSE_KERNEL_ENTRIES:
        from .._kernels.moments import stored_column_sums

        sums, sum_sq = stored_column_sums(X.data, X.indices, d)
    else:
        X = X.astype(np.float64, copy=X.dtype != np.float64)
        sums = np.asarray(X.sum(axis=0)).ravel()
        squared = type(X)((np.square(X.data), X.indices, X.indptr), shape=X.shape, copy=False)  # X's index arrays
        sum_sq = np.asarray(squared.sum(axis=0)).ravel()
    mean = sums / max(n, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        squares = sum_sq - n * mean * mean
        if not np.all(squares >= 1e-2 * sum_sq):  # NaN from overflow too: the two passes say it
            return None
    return mean, np.maximum(squares, 0.0), np.full(d, float(n))


def scaled_stored_entries(X, factors, divide=True):
    """A CSR copy of the sparse ``X`` whose stored entries are divided (or multiplied)
    by their columns' ``factors``, computed in float64 and stored in X's dtype: from
    ``SPARSE_KERNEL_ENTRIES`` entries on in one pass of a kernel (no float64 copy, no
    gathered factors), the same values as numpy's.

    Parameters
    ----------
    X : scipy.sparse matrix (n, d)
    factors : ndarray of float64 (d,)
    divide : bool, default=True
        Divide by the factors (False: multiply).

    Returns
    -------
    scipy.sparse.csr_matrix (n, d)

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> scaled_stored_entries(sp.csr_matrix(np.array([[2.0, 0.0], [4.0, 6.0]])), np.array([2.0, 3.0])).toarray()
    array([[1., 0.],
           [2., 2.]])
    """
    X = sp.csr_matrix(X)
    if X.nnz >= SPARSE_KERNEL_ENTRIES:
        from .._kernels.moments import scaled_entries

        data = scaled_entries(X.data, X.indices, factors, divide, np.empty_like(X.data))
    else:
        operation = np.divide if divide else np.multiply
        data = operation(X.data.astype(np.float64), factors[stored_columns(X)]).astype(X.dtype, copy=False)
    return sp.csr_matrix((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)


def stored_columns(X, start=0, stop=None):
    """The column of each stored entry ``start:stop`` of a CSR or CSC matrix.

    Parameters
    ----------
    X : scipy.sparse matrix in CSR or CSC format
    start, stop : int
        A range of positions in ``X.data``.

    Returns
    -------
    ndarray of int

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> stored_columns(sp.csc_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))).tolist()
    [0, 0, 1]
    """
    stop = X.nnz if stop is None else stop
    if X.format == "csr":
        return X.indices[start:stop]
    return np.searchsorted(X.indptr, np.arange(start, stop), side="right") - 1


def _stored_entries(X, skip_nan=False):
    """``(columns, values)`` of a CSR or CSC matrix's stored entries, a ``SPARSE_CHUNK``
    of them at a time, the values a float64 copy the caller may change (NaN left out
    with ``skip_nan``)."""
    for start in range(0, X.nnz, SPARSE_CHUNK):
        stop = min(start + SPARSE_CHUNK, X.nnz)
        columns, values = stored_columns(X, start, stop), X.data[start:stop].astype(np.float64)
        if skip_nan and np.isnan(values).any():
            kept = ~np.isnan(values)
            columns, values = columns[kept], values[kept]
        yield columns, values


def feature_scale(variances):
    """Standard deviations for standardisation; constant features keep scale 1.

    Parameters
    ----------
    variances : ndarray (d,)

    Returns
    -------
    ndarray (d,)

    Examples
    --------
    >>> feature_scale(np.array([4.0, 0.0])).tolist()
    [2.0, 1.0]
    """
    scale = np.sqrt(variances)
    scale[scale == 0] = 1.0
    return scale
