"""Sparse CSR products split over threads (scipy's kernels release the GIL).

The rows are cut into parts of equal non-zero counts, so skewed matrices (a few dense
rows, as in term-document data) still split evenly. Every output row of ``A @ B`` is
computed by the same sequence of operations whatever the number of parts. ``A^T @ B``
sums one product per row part (each streams its rows of B, scipy's CSC kernel: several
times faster than a CSR copy of the transpose, which gathers B's rows at random); the
number of those parts depends on the shapes only, so neither result depends on the
thread count.
"""

import numpy as np
import scipy.sparse as sp

from .._threads import cores, worker_pool

MIN_NNZ_TO_SPLIT = 200_000
SUM_PARTS = 4  # most row parts of a transposed product (more only add partial sums to add up)
SUM_BYTES = 1 << 29  # what the parts' partial results may hold together


def _cuts(indptr, parts):
    targets = np.linspace(0, indptr[-1], parts + 1)
    cuts = np.searchsorted(indptr, targets[1:-1])
    return [0, *sorted(set(int(c) for c in cuts)), indptr.size - 1]


class ParallelCSR:
    """A CSR matrix whose products ``A @ B`` run in row parts on a thread pool.

    Parameters
    ----------
    A : scipy.sparse matrix
    parts : int, optional
        Number of row parts (default: the number of cores; 1 for small matrices).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.random(300, 40, density=0.1, format="csr", random_state=0)
    >>> v = np.ones(40)
    >>> bool(np.allclose(ParallelCSR(A, parts=3).dot(v), A @ v))
    True
    """

    def __init__(self, A, parts=None):
        A = sp.csr_matrix(A)
        self.shape, self.dtype = A.shape, A.dtype
        if parts is None:
            parts = cores() if A.nnz >= MIN_NNZ_TO_SPLIT else 1
        cuts = _cuts(A.indptr, max(1, parts))
        self._blocks = [A[a:b] for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [A]
        self._A = A
        self._sum_parts = {}  # parts -> their row spans and rows (a slice of CSR rows copies them)

    def dot(self, B):
        """``A @ B`` for a dense vector or matrix ``B``."""
        if len(self._blocks) == 1:
            return np.asarray(self._blocks[0] @ B)
        pieces = list(worker_pool("sparse").map(lambda blk: np.asarray(blk @ B), self._blocks))
        return np.concatenate(pieces, axis=0)

    def rdot(self, B):
        """``A.T @ B`` for a dense vector or matrix ``B`` with ``A.shape[0]`` rows: one
        product per row part, summed in part order."""
        B = np.asarray(B)
        width = B.shape[1] if B.ndim == 2 else 1
        parts = min(SUM_PARTS, self._A.nnz // MIN_NNZ_TO_SPLIT, SUM_BYTES // (self.shape[1] * width * B.itemsize))
        if parts <= 1:
            return np.asarray(self._A.T @ B)
        if parts not in self._sum_parts:
            cuts = _cuts(self._A.indptr, parts)
            self._sum_parts[parts] = [(a, b, self._A[a:b].T) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
        pieces = list(
            worker_pool("sparse").map(lambda part: np.asarray(part[2] @ B[part[0] : part[1]]), self._sum_parts[parts])
        )
        out = pieces[0]
        for piece in pieces[1:]:
            out += piece
        return out


def dense_times_sparse_t(X, C, rows=256):
    """``X @ C.T`` for dense X (n, d) and a CSR matrix C (k, d), by row blocks of X on
    lowdim's threads: each block is one CSR product with the block's transposed copy,
    small enough to stay in cache (a product with all of ``X.T`` would first copy X).

    Parameters
    ----------
    X : ndarray (n, d)
    C : sparse matrix (k, d)
    rows : int
        Rows of X per block.

    Returns
    -------
    ndarray (n, k)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> C = sp.random(5, 40, density=0.2, format="csr", random_state=0)
    >>> X = np.random.default_rng(0).normal(size=(600, 40))
    >>> bool(np.allclose(dense_times_sparse_t(X, C), X @ C.T.toarray()))
    True
    """
    C = sp.csr_matrix(C)
    out = np.empty((X.shape[0], C.shape[0]), dtype=np.result_type(X.dtype, C.dtype))

    def block(start):
        out[start : start + rows] = (C @ np.ascontiguousarray(X[start : start + rows].T)).T

    list(worker_pool("sparse").map(block, range(0, X.shape[0], rows)))
    return out


COPY_BYTES = 8 << 20  # float64 columns copied at a time for ``group_row_sums``
# groups up to which sparse rows are summed as X^T times the dense n x k membership (one
# pass over the stored entries) rather than the sparse membership times X (a sparse
# product with its symbolic pass and sparse result)
FEW_GROUPS = 8


def group_row_sums(X, labels, k, weights=None):
    """Weighted sums (k, d) and weights (k,) of the rows (dense or sparse) of each
    group, in float64: a membership matrix times the rows, each group's rows summed in
    row order (the same whatever the thread count). scipy would first copy float32
    rows whole to float64 (160 MB of fresh pages for 100 x 200,000, more than the sums
    cost); they are taken ``COPY_BYTES`` of columns at a time instead, the same sums.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
    labels : ndarray of int (n,), in 0..k-1
    k : int
    weights : ndarray (n,), optional (default: ones)

    Returns
    -------
    sums : ndarray (k, d), float64
    totals : ndarray (k,), float64

    Examples
    --------
    >>> sums, w = group_row_sums(sp.csr_matrix(np.eye(3)), np.array([0, 0, 1]), 2)
    >>> sums.tolist(), w.tolist()
    ([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [2.0, 1.0])
    """
    weights = np.ones(labels.size) if weights is None else np.asarray(weights, dtype=np.float64)
    totals = np.bincount(labels, weights=weights, minlength=k)
    if sp.issparse(X) and k <= FEW_GROUPS:
        dense_member = np.zeros((X.shape[0], k))
        dense_member[np.arange(X.shape[0]), labels] = weights
        return np.ascontiguousarray(np.asarray(X.T @ dense_member, dtype=np.float64).T), totals
    order = np.argsort(labels, kind="stable")
    indptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(labels, minlength=k), out=indptr[1:])
    member = sp.csr_matrix((weights[order], order, indptr), shape=(k, X.shape[0]))
    if sp.issparse(X) or X.dtype == np.float64:
        sums = member @ X
        return np.asarray(sums.toarray() if sp.issparse(sums) else sums, dtype=np.float64), totals
    sums = np.empty((k, X.shape[1]))
    step = max(1, COPY_BYTES // (8 * max(X.shape[0], 1)))
    for c0 in range(0, X.shape[1], step):
        sums[:, c0 : c0 + step] = member @ np.asarray(X[:, c0 : c0 + step], dtype=np.float64)
    return sums, totals
