"""Sparse CSR products split over threads (scipy's kernels release the GIL).

The rows are cut into parts of equal non-zero counts, so skewed matrices (a few dense
rows, as in term-document data) still split evenly. Every output row is computed by
the same sequence of operations whatever the number of parts, so results do not
depend on the thread count.
"""

import numpy as np
import scipy.sparse as sp

from .._threads import cores, worker_pool

MIN_NNZ_TO_SPLIT = 200_000


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

    def dot(self, B):
        """``A @ B`` for a dense vector or matrix ``B``."""
        if len(self._blocks) == 1:
            return np.asarray(self._blocks[0] @ B)
        pieces = list(worker_pool("sparse").map(lambda blk: np.asarray(blk @ B), self._blocks))
        return np.concatenate(pieces, axis=0)
