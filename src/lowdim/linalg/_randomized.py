"""Randomized truncated SVD (Halko, Martinsson & Tropp, 2011), iterating on the small side.

With ``m = min(n, d)``, the subspace iteration runs on the m x m operator
``M = Xc Xc^T`` (n <= d) or ``Xc^T Xc`` (d < n), each application one fused pass over
the data (row or column blocks that stay in cache), re-orthonormalised (QR of an
m x l block) after every application, which keeps float32 stable. A last application
gives the Rayleigh-Ritz problem whose l x l eigendecomposition (in float64) yields the
singular values and vectors.

Passes over the data: ``n_iter + 2`` for tall data, ``n_iter + 3`` for wide data.
"""

import numpy as np
import scipy.linalg


def _orthonormalize(Y):
    Q, _ = scipy.linalg.qr(Y, mode="economic", overwrite_a=True, check_finite=False)
    return Q


def randomized_range(op, size, n_iter, rng):
    """Orthonormal basis (m x size) of the dominant invariant subspace of the small-side
    operator ``Xc Xc^T`` (n <= d) or ``Xc^T Xc`` (d < n).

    Parameters
    ----------
    op : CenteredData-like
        Provides ``shape``, ``dtype``, ``gram_matmat`` and ``cogram_matmat``.
    size : int
        Number of basis vectors (rank + oversampling).
    n_iter : int
        Power iterations beyond the first application (one fused pass each).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (min(n, d), size)

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.linalg import CenteredData
    >>> X = np.random.default_rng(0).normal(size=(50, 8))
    >>> P = randomized_range(CenteredData(X, X.mean(0)), 4, 2, np.random.default_rng(0))
    >>> bool(np.allclose(P.T @ P, np.eye(4)))
    True
    """
    n, d = op.shape
    apply = op.cogram_matmat if n <= d else op.gram_matmat
    P = rng.standard_normal(size=(min(n, d), size)).astype(op.dtype, copy=False)
    for _ in range(n_iter + 1):
        P = _orthonormalize(apply(P))
    return P


def randomized_svd(op, k, *, n_oversamples=10, n_iter=4, rng):
    """Top-``k`` singular values and right singular vectors of ``op``.

    After the subspace iteration, one more application ``Z = M P`` gives the
    Rayleigh-Ritz matrix ``P^T Z`` (l x l, solved in float64): its eigenvalues are the
    squared singular values. Wide data need one more pass for the right vectors.

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
    s : ndarray of shape (k,)
        Singular values, descending (float64).
    Vt : ndarray of shape (k, d)
        Right singular vectors as rows (dtype of ``op``).

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.linalg import CenteredData
    >>> X = np.random.default_rng(0).normal(size=(40, 6))
    >>> s = randomized_svd(CenteredData(X, X.mean(0)), 2, rng=np.random.default_rng(0))[0]
    >>> bool(np.allclose(s, np.linalg.svd(X - X.mean(0), compute_uv=False)[:2]))
    True
    """
    n, d = op.shape
    size = min(k + n_oversamples, n, d)
    P = randomized_range(op, size, n_iter, rng)
    wide = n <= d
    Z = (op.cogram_matmat if wide else op.gram_matmat)(P)
    P64 = P.astype(np.float64)
    H = P64.T @ Z.astype(np.float64)
    w, W = scipy.linalg.eigh((H + H.T) / 2, check_finite=False)
    w, W = np.maximum(w[::-1][:k], 0.0), W[:, ::-1][:, :k]
    s = np.sqrt(w)
    basis = P64 @ W
    if wide:  # basis holds left singular vectors: V = Xc^T U / s
        V = op.rmatmat(basis.astype(op.dtype)).astype(np.float64) / np.where(s > 0, s, 1.0)
    else:
        V = basis
    return s, V.T.astype(op.dtype)
