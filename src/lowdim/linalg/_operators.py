"""Implicitly centered (and scaled) data operators: never materialise X - mean."""

import numpy as np
import scipy.sparse.linalg as spla


class CenteredData:
    """The matrix ``(X - 1 mean^T) / scale`` applied without forming it.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    mean : ndarray of shape (d,)
    scale : ndarray of shape (d,) or None
        Per-feature divisor (standardisation); None for no scaling.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> op = CenteredData(X, X.mean(0))
    >>> bool(np.allclose(op.matmat(np.eye(2)), X - X.mean(0)))
    True
    """

    def __init__(self, X, mean, scale=None):
        self.X = X
        self.dtype = X.dtype
        self.shape = X.shape
        self._mean = np.asarray(mean, dtype=X.dtype)
        self._inv_scale = None if scale is None else (1.0 / scale).astype(X.dtype)
        self.n_products = 0  # how many times X (or X^T) has been applied

    def matmat(self, B):
        """``Xc @ B`` for B of shape (d, m)."""
        B = np.asarray(B, dtype=self.dtype)
        if self._inv_scale is not None:
            B = B * self._inv_scale[:, None]
        self.n_products += 1
        out = np.asarray(self.X @ B)
        out -= (self._mean @ B)[None, :]
        return out

    def rmatmat(self, B):
        """``Xc.T @ B`` for B of shape (n, m)."""
        B = np.asarray(B, dtype=self.dtype)
        self.n_products += 1
        out = np.asarray(self.X.T @ B)
        out -= np.outer(self._mean, B.sum(axis=0)).astype(self.dtype, copy=False)
        if self._inv_scale is not None:
            out *= self._inv_scale[:, None]
        return out

    def covariance_operator(self):
        """``Xc.T @ Xc / (n - 1)`` as a scipy ``LinearOperator`` of shape (d, d)."""
        n, d = self.shape

        def apply(v):
            return self.rmatmat(self.matmat(v)) / (n - 1)

        def matvec(v):
            return apply(np.reshape(v, (d, 1))).ravel()

        return spla.LinearOperator((d, d), matvec=matvec, matmat=apply, dtype=self.dtype)
