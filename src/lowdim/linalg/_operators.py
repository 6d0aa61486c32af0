"""Implicitly centered (and scaled) data operators: never materialise X - mean."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._blas import matmul
from ._lanczos import lanczos_eigh
from ._sparse_products import ParallelCSR


class _Dense:
    """Dense counterpart of ``ParallelCSR`` (BLAS threads itself)."""

    def __init__(self, A):
        self.A = A

    def dot(self, B):
        return matmul(self.A, B) if np.ndim(B) == 2 else np.asarray(self.A @ B)


class _Transposed:
    """``A^T`` of a ``ParallelCSR`` A, without a transposed copy."""

    def __init__(self, A):
        self.A = A

    def dot(self, B):
        return self.A.rdot(B)


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
        self._sparse = sp.issparse(X)
        if self._sparse:  # both orientations from one copy, split over threads
            self._X = ParallelCSR(X)
            self._Xt = _Transposed(self._X)
        else:
            self._X, self._Xt = _Dense(X), _Dense(X.T)

    def matmat(self, B):
        """``Xc @ B`` for B of shape (d, m)."""
        B = np.asarray(B, dtype=self.dtype)
        if self._inv_scale is not None:
            B = B * self._inv_scale[:, None]
        self.n_products += 1
        out = self._X.dot(B)
        out -= (self._mean @ B)[None, :]
        return out

    def rmatmat(self, B):
        """``Xc.T @ B`` for B of shape (n, m)."""
        B = np.asarray(B, dtype=self.dtype)
        self.n_products += 1
        out = self._Xt.dot(B)
        out -= np.outer(self._mean, B.sum(axis=0)).astype(self.dtype, copy=False)
        if self._inv_scale is not None:
            out *= self._inv_scale[:, None]
        return out

    def gram_matmat(self, P, block_bytes=1 << 23):
        """``Xc^T Xc P`` for P of shape (d, m), fused over row blocks (one pass).

        Uses ``Xc^T Xc = X^T X - n m m^T`` (callers centre explicitly when the data
        are far from the origin, see ``needs_centering``).
        """
        X, n = self.X, self.shape[0]
        P = np.asarray(P, dtype=self.dtype)
        Ps = P if self._inv_scale is None else P * self._inv_scale[:, None]
        if self._sparse:
            Z = self._Xt.dot(self._X.dot(Ps))
        else:
            Z = np.zeros((self.shape[1], P.shape[1]), dtype=self.dtype)
            rows = max(64, block_bytes // max(1, self.shape[1] * X.dtype.itemsize))
            for start in range(0, n, rows):
                Xb = X[start : start + rows]
                Z += matmul(Xb.T, matmul(Xb, Ps))
        self.n_products += 2
        Z -= np.outer(self._mean, n * (self._mean @ Ps)).astype(self.dtype, copy=False)
        if self._inv_scale is not None:
            Z *= self._inv_scale[:, None]
        return Z

    def cogram_matmat(self, P, block_bytes=1 << 23):
        """``Xc Xc^T P`` for P of shape (n, m), fused over column blocks (one pass)."""
        X = self.X
        P = np.asarray(P, dtype=self.dtype)
        mean = self._mean if self._inv_scale is None else self._mean * self._inv_scale
        if sp.issparse(X) or self._inv_scale is not None:
            return self.matmat(self.rmatmat(P))
        Z = np.zeros_like(P)
        r = np.zeros(self.shape[0], dtype=self.dtype)
        cols = max(64, block_bytes // max(1, self.shape[0] * X.dtype.itemsize))
        for start in range(0, self.shape[1], cols):
            Xj = X[:, start : start + cols]
            Z += Xj @ (Xj.T @ P)
            r += Xj @ mean[start : start + cols]
        self.n_products += 2
        ones_p = P.sum(axis=0)
        Z -= np.outer(r, ones_p) + np.outer(np.ones(len(r), dtype=self.dtype), r @ P)
        Z += (mean @ mean) * ones_p[None, :]
        return Z

    def covariance_operator(self):
        """``Xc.T @ Xc / (n - 1)`` as a scipy ``LinearOperator`` of shape (d, d)."""
        n, d = self.shape

        def apply(v):
            return self.rmatmat(self.matmat(v)) / (n - 1)

        def matvec(v):  # 1-D products skip the 2-D overheads (ARPACK calls this)
            v = np.asarray(v, dtype=self.dtype).ravel()
            if self._inv_scale is not None:
                v = v * self._inv_scale
            y = self._X.dot(v) - self._mean @ v
            z = self._Xt.dot(y) - self._mean * y.sum()
            if self._inv_scale is not None:
                z *= self._inv_scale
            self.n_products += 2
            return z / (n - 1)

        return spla.LinearOperator((d, d), matvec=matvec, matmat=apply, dtype=self.dtype)

    def cogram_operator(self):
        """``Xc @ Xc.T / (n - 1)`` as a scipy ``LinearOperator`` of shape (n, n): the
        covariance's nonzero spectrum on the side of the rows (for fewer rows than
        columns, Lanczos vectors of n entries instead of d).

        Examples
        --------
        >>> import numpy as np
        >>> X = np.arange(12.0).reshape(3, 4) ** 2
        >>> op = CenteredData(X, X.mean(0)).cogram_operator()
        >>> Xc = X - X.mean(0)
        >>> bool(np.allclose(op.matmat(np.eye(3)), Xc @ Xc.T / 2))
        True
        """
        n = self.shape[0]

        def apply(U):
            U = np.asarray(U, dtype=self.dtype)
            return self.matmat(self.rmatmat(U.reshape(n, -1))) / (n - 1)

        def matvec(u):  # 1-D products skip the 2-D overheads (ARPACK calls this)
            u = np.asarray(u, dtype=self.dtype).ravel()
            z = self._Xt.dot(u) - self._mean * u.sum()
            if self._inv_scale is not None:
                z *= self._inv_scale**2
            self.n_products += 2
            return (self._X.dot(z) - self._mean @ z) / (n - 1)

        return spla.LinearOperator((n, n), matvec=matvec, matmat=apply, dtype=self.dtype)

    def top_components(self, k, *, rng, tol=0.0, max_iter=None):
        """The ``k`` largest eigenpairs of ``Xc.T @ Xc / (n - 1)`` by Lanczos
        (``lanczos_eigh``), on the smaller side: with fewer rows than columns (and
        ``k`` below the rows) on ``cogram_operator``, whose eigenvector ``u`` gives the
        component ``Xc.T u / sqrt((n - 1) w)`` (zero for a vanishing eigenvalue).

        Parameters
        ----------
        k : int
        rng : numpy.random.Generator
        tol : float
        max_iter : int, optional

        Returns
        -------
        eigenvalues : ndarray (k,), descending, non-negative
        components : ndarray (d, k)

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(size=(5, 30))
        >>> w, V = CenteredData(X, X.mean(0)).top_components(2, rng=np.random.default_rng(0))
        >>> bool(np.allclose(w, np.linalg.eigvalsh(np.cov(X.T))[::-1][:2]))
        True
        """
        n, d = self.shape
        rows_side = n < d and k < n
        sym = self.cogram_operator() if rows_side else self.covariance_operator()
        w, V = lanczos_eigh(sym, k, rng=rng, tol=tol, max_iter=max_iter)
        w = np.maximum(w, 0.0)
        if rows_side:
            norms = np.sqrt(w * (n - 1))
            keep = norms > norms[0] * np.finfo(self.dtype).eps * n
            V = self.rmatmat(V) / np.where(keep, norms, 1.0)
            V[:, ~keep] = 0.0
        return w, V
