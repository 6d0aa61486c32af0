"""The sample covariance of a wide table (more columns than rows), never built.

Factor analysis and probabilistic PCA read the covariance ``S`` (d x d) only through
products with thin matrices, its diagonal, its trace and its top eigenpairs. With n rows
and d > n columns, ``S = Xc^T Xc / n`` of the centred rows gives each of them from
``Xc`` (n x d): a product in O(n d k) instead of O(d^2 k), eigenpairs from the thin SVD
of ``Xc`` in O(n^2 d), and memory n x d instead of d x d (100 rows of 200,000 probes:
160 MB instead of 320 GB).
"""

import numpy as np

from ..linalg import top_eigh


class WideCovariance:
    """``Xc^T Xc / n`` of the centred rows ``Xc`` (n, d), as far as the latent models use
    it: ``S @ B``, ``A @ S``, ``diagonal()``, ``trace()``, ``top_eigh(k)``, ``shape``.
    ``divisor`` replaces ``n`` (streaming PCA: ``F^T F / (rows seen - 1)`` of its
    accumulator's factor ``F``, which has a few more rows than were seen).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4, 9))
    >>> S = WideCovariance(X - X.mean(axis=0))
    >>> dense = np.cov(X.T, ddof=0)
    >>> B = rng.normal(size=(9, 2))
    >>> bool(np.allclose(S @ B, dense @ B) and np.allclose(B.T @ S, B.T @ dense))
    True
    >>> bool(np.allclose(S.top_eigh(2)[0], np.linalg.eigvalsh(dense)[::-1][:2]))
    True
    """

    __array_ufunc__ = None  # ``ndarray @ S`` defers to ``S.__rmatmul__``

    def __init__(self, centred, divisor=None):
        self._rows = np.asarray(centred, dtype=np.float64)
        n, d = self._rows.shape
        self.shape, self.dtype, self._n = (d, d), np.dtype(np.float64), n if divisor is None else divisor
        self._diagonal = np.einsum("ij,ij->j", self._rows, self._rows) / self._n

    def __matmul__(self, B):
        return self._rows.T @ (self._rows @ B) / self._n

    def __rmatmul__(self, A):
        return (A @ self._rows.T) @ self._rows / self._n

    def diagonal(self):
        return self._diagonal

    def trace(self):
        return float(self._diagonal.sum())

    def top_eigh(self, k):
        """The ``k`` largest eigenpairs (descending; orthonormal vectors, d x k) from the
        n x n Gram matrix of the rows, which shares them (``Xc Xc^T / n``; its
        eigenvector u gives ``Xc^T u / sqrt(n w)``): one product of n^2 d (LAPACK's thin
        SVD of the wide rows took 3 s at 100 x 200,000). Beyond the rows' rank,
        eigenvalues 0 with zero vectors (their loadings are zero whatever the direction)."""
        w, U = top_eigh(self._rows @ self._rows.T / self._n, min(k, self._rows.shape[0]))
        w = np.maximum(w, 0.0)
        scale = np.sqrt(self._n * w)
        V = (self._rows.T @ U) / np.where(scale > 0, scale, 1.0)
        V[:, scale <= 1e-12 * max(scale.max(initial=0.0), 1e-300)] = 0.0
        if k > w.size:
            w, V = np.r_[w, np.zeros(k - w.size)], np.hstack([V, np.zeros((V.shape[0], k - w.size))])
        return w, V
