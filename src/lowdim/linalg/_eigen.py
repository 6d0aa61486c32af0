"""Symmetric eigensolvers returning the top of the spectrum, largest first."""

import scipy.linalg


def top_eigh(C, k=None):
    """Largest ``k`` eigenpairs of the symmetric matrix ``C`` (all of them if ``k`` is None).

    For ``k`` well below the size, LAPACK's bisection driver (evx) computes only the requested
    eigenvectors; otherwise the divide-and-conquer driver computes all.

    Parameters
    ----------
    C : ndarray of shape (d, d)
        Symmetric matrix (only the upper triangle is read).
    k : int or None
        Number of eigenpairs.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Descending.
    eigenvectors : ndarray of shape (d, k)
        Orthonormal columns.

    Examples
    --------
    >>> import numpy as np
    >>> w, V = top_eigh(np.diag([1.0, 3.0, 2.0]), 2)
    >>> w
    array([3., 2.])
    """
    d = C.shape[0]
    if k is None or k >= d or k > d // 2:
        w, V = scipy.linalg.eigh(C, lower=False, driver="evd", check_finite=False)
        if k is not None:
            w, V = w[d - k:], V[:, d - k:]
    else:
        w, V = scipy.linalg.eigh(
            C, lower=False, subset_by_index=[d - k, d - 1], driver="evx", check_finite=False
        )
    return w[::-1].copy(), V[:, ::-1].copy()
