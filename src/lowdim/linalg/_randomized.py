"""Randomized range finder and truncated SVD (Halko, Martinsson & Tropp, 2011)."""

import numpy as np
import scipy.linalg


def _orthonormalize(Y):
    Q, _ = scipy.linalg.qr(Y, mode="economic", overwrite_a=True, check_finite=False)
    return Q


def randomized_range(op, size, n_iter, rng):
    """Orthonormal basis ``Q`` (n x size) approximating the range of ``op``.

    Subspace iteration with re-orthonormalisation after every product, so the basis
    stays accurate in float32 too. Passes over the data: ``1 + 2 * n_iter``.

    Parameters
    ----------
    op : CenteredData-like
        Provides ``shape``, ``dtype``, ``matmat`` and ``rmatmat``.
    size : int
        Number of basis vectors (rank + oversampling).
    n_iter : int
        Number of power (subspace) iterations.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, size)

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.linalg import CenteredData
    >>> X = np.random.default_rng(0).normal(size=(50, 8))
    >>> Q = randomized_range(CenteredData(X, X.mean(0)), 4, 2, np.random.default_rng(0))
    >>> bool(np.allclose(Q.T @ Q, np.eye(4)))
    True
    """
    d = op.shape[1]
    omega = rng.standard_normal(size=(d, size)).astype(op.dtype, copy=False)
    Q = _orthonormalize(op.matmat(omega))
    for _ in range(n_iter):
        Q = _orthonormalize(op.rmatmat(Q))
        Q = _orthonormalize(op.matmat(Q))
    return Q


def randomized_svd(op, k, *, n_oversamples=10, n_iter=4, rng):
    """Top-``k`` singular triplets of ``op`` by the randomized range finder.

    Passes over the data: ``2 + 2 * n_iter`` (range finder plus one projection).

    Parameters
    ----------
    op : CenteredData-like
    k : int
        Number of singular triplets.
    n_oversamples : int
        Extra basis vectors beyond ``k`` (improves accuracy).
    n_iter : int
        Power iterations (more for slowly decaying spectra).
    rng : numpy.random.Generator

    Returns
    -------
    U : ndarray of shape (n, k)
    s : ndarray of shape (k,)
    Vt : ndarray of shape (k, d)

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.linalg import CenteredData
    >>> X = np.random.default_rng(0).normal(size=(40, 6))
    >>> s = randomized_svd(CenteredData(X, X.mean(0)), 2, rng=np.random.default_rng(0))[1]
    >>> bool(np.allclose(s, np.linalg.svd(X - X.mean(0), compute_uv=False)[:2]))
    True
    """
    n, d = op.shape
    size = min(k + n_oversamples, n, d)
    Q = randomized_range(op, size, n_iter, rng)
    B = op.rmatmat(Q).T  # (size, d) = Q^T Xc
    Ub, s, Vt = scipy.linalg.svd(B, full_matrices=False, check_finite=False)
    U = Q @ Ub
    return U[:, :k], s[:k], Vt[:k]
