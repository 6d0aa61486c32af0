"""Symmetric rank-k products, without layout copies.

numpy and scipy wheels each bundle their own OpenBLAS. After a large numpy product,
numpy's BLAS threads keep spinning for a while and slow down a threaded LAPACK call
that follows in scipy's library (a 784 x 784 eigh several times over). Two ways out,
both used: do the big products with scipy's BLAS (``syrk_upper``, ``matmul``: one
thread pool for a whole solver; the transposed views below are
Fortran-contiguous, so nothing is copied), or, where numpy's newer BLAS is faster
(``gram_of_columns``, the covariance scatter), keep numpy's BLAS on one thread per
call and do the parallelism in our own workers, so no BLAS thread is left spinning.
"""

from functools import partial

import numpy as np
from scipy.linalg import blas

from .._threads import blas_limit, blas_threads, cores, worker_pool


def _syrk(dtype):
    return blas.ssyrk if dtype == np.float32 else blas.dsyrk


def syrk_upper(A, *, gram_of_rows=False):
    """Upper triangle of ``A^T A`` (or ``A A^T`` with ``gram_of_rows=True``).

    The strictly lower triangle of the result is not meaningful; see ``symmetric_from_upper``.

    Parameters
    ----------
    A : ndarray (float32 or float64), C- or F-contiguous
    gram_of_rows : bool

    Returns
    -------
    ndarray, Fortran order, dtype of ``A``

    Examples
    --------
    >>> import numpy as np
    >>> A = np.arange(6.0).reshape(3, 2)
    >>> symmetric_from_upper(syrk_upper(A))
    array([[20., 26.],
           [26., 35.]])
    """
    syrk = _syrk(A.dtype)
    if A.flags.c_contiguous:  # A.T is Fortran-contiguous: op(A.T) needs no copy
        return syrk(1.0, A.T, trans=1 if gram_of_rows else 0)
    return syrk(1.0, A, trans=0 if gram_of_rows else 1)


SPLIT_WORK = 5e7  # multiply-adds per core from which the product is split (below, threads cost more than they save)
# a product below both starts no BLAS thread (OpenBLAS's thresholds: 4 x 65,536 multiply-adds for
# gemm, 10,000 entries for syrk), so a tiny table's Gram skips the thread limit's cost
ONE_THREAD_WORK, ONE_THREAD_SIZE = 2**16, 4096
GROUP_ROWS = 32  # rows summed in the input's dtype before the float64 sum (``column_sums``)


def column_sums(A, grouped=False):
    """Column sums of ``A`` in float64.

    ``grouped=True`` first adds ``GROUP_ROWS`` consecutive rows in ``A``'s own dtype
    (no float64 conversion of every entry; BENCHMARKS.md, Design choices: sums), then
    those group sums
    in float64: each group sum is off by at most ``(GROUP_ROWS - 1) * eps`` of the dtype
    relative to its absolute sum, below the rounding of a float32 ``A^T A`` over the
    same rows. Meant for data near the origin, where the raw second moments are used
    anyway; for data far from it, whose means centre the scatter, use exact sums.
    Non-contiguous rows always get exact sums (no copy).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.arange(200, dtype=np.float32).reshape(100, 2)
    >>> column_sums(A, grouped=True)
    array([ 9900., 10000.])
    """
    n = A.shape[0]
    if not grouped or n < 2 * GROUP_ROWS or not A.flags.c_contiguous:
        return A.sum(axis=0, dtype=np.float64)
    full = n - n % GROUP_ROWS
    groups = A[:full].reshape(-1, GROUP_ROWS, A.shape[1]).sum(axis=1)
    return groups.sum(axis=0, dtype=np.float64) + A[full:].sum(axis=0, dtype=np.float64)


def gram_of_columns(A, sums=False):
    """Full ``A^T A`` in float64, by numpy's matmul (which recognises the pattern and
    calls syrk of numpy's own BLAS, newer and faster than scipy's).

    Every product runs on one BLAS thread. From ``SPLIT_WORK`` multiply-adds per core
    on, the rows are cut into one block per BLAS thread allowed (``blas_threads``: a
    caller's thread limit is kept), each block's product runs in its own worker,
    concurrently, and the pieces are added in float64. OpenBLAS's own threads scale
    worse on this product (BENCHMARKS.md, Design choices: gram).

    Parameters
    ----------
    A : ndarray (n, d)
    sums : bool
        Also return the exact column sums (float64), each worker summing its own rows
        right after their product.

    Returns
    -------
    gram : ndarray (d, d), float64
    column_sums : ndarray (d,), float64, if ``sums``

    Examples
    --------
    >>> import numpy as np
    >>> gram_of_columns(np.arange(6.0).reshape(3, 2), sums=True)
    (array([[20., 26.],
           [26., 35.]]), array([6., 9.]))
    """
    pieces = _product_pieces(A, column_sums if sums else None, to_float64=True)  # the main thread only adds
    gram = pieces[0][0]  # a new array: added to in place
    for g, _ in pieces[1:]:
        gram += g
    total = sum(t for _, t in pieces) if sums else None
    return (gram, total) if sums else gram


def add_gram_of_columns(A, gram, sums, *, grouped=False, accept=None):
    """Add ``A^T A`` and the column sums of ``A`` into float64 running totals, in place.

    The products run as in ``gram_of_columns``; the workers then add them into
    ``gram`` in bands of rows, concurrently, so the caller's thread never makes a
    float64 copy nor adds a whole d x d matrix alone.

    Parameters
    ----------
    A : ndarray (n, d)
    gram : ndarray (d, d), float64, C-contiguous
    sums : ndarray (d,), float64
    grouped : bool
        Column sums in ``column_sums``' grouped form.
    accept : callable, optional
        Called with the column sums of ``A`` and the diagonal of ``A^T A`` (float64)
        before anything is added; when it returns False, nothing is added.

    Returns
    -------
    bool
        Whether the totals were added to.

    Examples
    --------
    >>> import numpy as np
    >>> gram, sums = np.zeros((2, 2)), np.zeros(2)
    >>> add_gram_of_columns(np.arange(6.0).reshape(3, 2), gram, sums)
    True
    >>> gram, sums
    (array([[20., 26.],
           [26., 35.]]), array([6., 9.]))
    """
    pieces = _product_pieces(A, partial(column_sums, grouped=grouped), to_float64=False)
    total = sum(t for _, t in pieces)
    if accept is not None and not accept(total, sum(p.diagonal().astype(np.float64) for p, _ in pieces)):
        return False
    bands = np.linspace(0, gram.shape[0], len(pieces) + 1).astype(int)

    def add_band(j):
        rows = slice(bands[j], bands[j + 1])
        for product, _ in pieces:
            gram[rows] += product[rows]

    if len(pieces) == 1:
        add_band(0)
    else:
        list(worker_pool("gram").map(add_band, range(len(pieces))))
    sums += total
    return True


def _product_pieces(A, sum_columns, to_float64):
    """``[(block^T block, sum_columns(block) or None)]`` for one row block per BLAS
    thread allowed (one block below ``SPLIT_WORK`` per core), each product on one BLAS
    thread in its own worker; ``to_float64``: products converted there."""

    def piece(block):
        gram = block.T @ block
        if to_float64:
            gram = np.asarray(gram, dtype=np.float64)
        return gram, (sum_columns(block) if sum_columns is not None else None)

    n, d = A.shape
    if n * d < ONE_THREAD_SIZE and n * d * d < ONE_THREAD_WORK:  # BLAS runs it on the calling thread: no limit
        return [piece(A)]
    parts = max(1, min(blas_threads(), cores(), n, int(n * d * d // SPLIT_WORK)))
    edges = np.linspace(0, n, parts + 1).astype(int)
    with blas_limit(1):  # numpy's BLAS threads never start, so none is left spinning
        if parts == 1:
            return [piece(A)]
        return list(worker_pool("gram").map(lambda i: piece(A[edges[i] : edges[i + 1]]), range(parts)))


def symmetric_from_upper(upper):
    """Full symmetric matrix from its upper triangle (new float64 array).

    Parameters
    ----------
    upper : ndarray (d, d)
        Only its upper triangle is read.

    Returns
    -------
    ndarray (d, d), float64

    Examples
    --------
    >>> import numpy as np
    >>> symmetric_from_upper(np.array([[1.0, 2.0], [0.0, 3.0]]))
    array([[1., 2.],
           [2., 3.]])
    """
    if upper.shape[0] <= 1000:
        upper = np.asarray(upper, dtype=np.float64)
        return np.triu(upper) + np.triu(upper, 1).T
    from .._kernels.kernel_matrix import LINEAR, kernel_from_upper_gram

    full = np.array(upper, dtype=np.float64, order="K")  # one copy, then mirrored in place
    kernel_from_upper_gram(full, LINEAR, 0.0, 0.0, 0.0)
    return full


def matmul(A, B):
    """``A @ B`` for 2-D float32/float64 arrays through scipy's BLAS (one thread pool
    with the LAPACK calls around it). Row-major inputs are passed as their
    column-major transposes, so nothing is copied; other cases fall back to numpy.

    Parameters
    ----------
    A, B : ndarray (2-D, float32 or float64)

    Returns
    -------
    ndarray
        ``A @ B``.

    Examples
    --------
    >>> import numpy as np
    >>> A, B = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    >>> matmul(A, B)
    array([[ 3.,  3.],
           [12., 12.]])
    """
    if (
        A.ndim != 2
        or B.ndim != 2
        or A.dtype != B.dtype
        or A.dtype not in (np.float32, np.float64)
        or not (A.flags.c_contiguous or A.flags.f_contiguous)
        or not (B.flags.c_contiguous or B.flags.f_contiguous)
    ):
        return A @ B
    gemm = blas.sgemm if A.dtype == np.float32 else blas.dgemm
    # (A B)^T = B^T A^T: with C-ordered inputs the transposes are Fortran-ordered views
    a, ta = (A.T, 1) if A.flags.c_contiguous else (A, 0)
    b, tb = (B.T, 1) if B.flags.c_contiguous else (B, 0)
    if ta and tb:
        return gemm(1.0, b, a, trans_a=0, trans_b=0).T  # B^T A^T, F-ordered -> C view
    return gemm(1.0, A if not ta else A.T, B if not tb else B.T, trans_a=ta, trans_b=tb)
