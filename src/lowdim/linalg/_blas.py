"""Symmetric rank-k products through scipy's BLAS, without layout copies.

numpy and scipy wheels each bundle their own OpenBLAS. After a large numpy product,
numpy's BLAS threads keep spinning for a while and slow down the LAPACK call that
follows in scipy's library (seen here: eigh of 784 x 784 took 0.15 s instead of
0.05 s). Doing the big products with scipy's BLAS keeps a whole solver in one thread
pool. The transposed views below are Fortran-contiguous, so nothing is copied.
"""

import numpy as np
from scipy.linalg import blas


def _syrk(dtype):
    return blas.ssyrk if dtype == np.float32 else blas.dsyrk


def syrk_upper(A, *, gram_of_rows=False):
    """Upper triangle of ``A^T A`` (or ``A A^T`` with ``gram_of_rows=True``).

    The strictly lower triangle of the result is not meaningful; see ``symmetrize``.

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
    >>> symmetrize(syrk_upper(A))
    array([[20., 26.],
           [26., 35.]])
    """
    syrk = _syrk(A.dtype)
    if A.flags.c_contiguous:  # A.T is Fortran-contiguous: op(A.T) needs no copy
        return syrk(1.0, A.T, trans=1 if gram_of_rows else 0)
    return syrk(1.0, A, trans=0 if gram_of_rows else 1)


def symmetrize(upper):
    """Full symmetric matrix from its upper triangle (new float64 array).

    Examples
    --------
    >>> import numpy as np
    >>> symmetrize(np.array([[1.0, 2.0], [0.0, 3.0]]))
    array([[1., 2.],
           [2., 3.]])
    """
    upper = np.asarray(upper, dtype=np.float64)
    return np.triu(upper) + np.triu(upper, 1).T
