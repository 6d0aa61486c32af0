"""Exact streaming first and second moments (mean and centered scatter matrix).

Each block of rows is centered on its own mean, its scatter computed with one BLAS
``syrk`` in the block's dtype, and blocks are merged exactly in float64 with the
pairwise update of Chan, Golub and LeVeque. Merging is associative, so any chunking of
the rows gives the same result up to rounding, and data far from the origin keeps its
precision (no ``E[x^2] - E[x]^2`` cancellation).
"""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas

BLOCK_BYTES = 1 << 25  # ~32 MB of rows per BLAS call


def block_rows(n_features, itemsize, block_bytes=BLOCK_BYTES):
    """Rows per block so that one block holds about ``block_bytes`` bytes.

    Examples
    --------
    >>> block_rows(1000, 8) >= 256
    True
    """
    return max(256, block_bytes // max(1, n_features * itemsize))


def iter_row_blocks(X, rows=None):
    """Yield ``X[start:stop]`` for consecutive row blocks (views for dense arrays).

    Examples
    --------
    >>> import numpy as np
    >>> [b.shape[0] for b in iter_row_blocks(np.ones((5, 2)), rows=2)]
    [2, 2, 1]
    """
    n = X.shape[0]
    if rows is None:
        itemsize = X.dtype.itemsize
        rows = block_rows(X.shape[1], itemsize)
    for start in range(0, n, rows):
        yield X[start:start + rows]


def _block_scatter(block):
    """Mean (float64) and upper-triangular centered scatter (float64) of one block."""
    if sp.issparse(block):
        mean = np.asarray(block.mean(axis=0, dtype=np.float64)).ravel()
        gram = (block.T @ block).toarray().astype(np.float64)
        scatter = gram - block.shape[0] * np.outer(mean, mean)
        return mean, np.triu(scatter)
    mean = block.mean(axis=0, dtype=np.float64)
    shift = mean.astype(block.dtype)  # rounded mean: x - shift is exact for float32 data
    syrk = blas.ssyrk if block.dtype == np.float32 else blas.dsyrk
    scatter = syrk(1.0, block - shift, trans=1, lower=0).astype(np.float64, copy=False)
    offset = mean - shift  # scatter about the exact mean = scatter about shift - n offset offset^T
    if offset.any():
        scatter -= np.triu(np.outer(offset, offset * block.shape[0]))
    return mean, scatter


class ScatterAccumulator:
    """Running count, mean and centered scatter ``sum (x - mean)(x - mean)^T``.

    Parameters
    ----------
    n_features : int
        Dimension of the rows.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> acc = ScatterAccumulator(3)
    >>> acc.update(X[:30]); acc.update(X[30:])
    >>> bool(np.allclose(acc.covariance(), np.cov(X.T)))
    True
    """

    def __init__(self, n_features):
        self.n = 0
        self.mean = np.zeros(n_features)
        self._upper = np.zeros((n_features, n_features))

    def update(self, X, rows=None):
        """Add the rows of ``X`` (dense or sparse), block by block."""
        for block in iter_row_blocks(X, rows):
            nb = block.shape[0]
            if nb == 0:
                continue
            mean_b, scatter_b = _block_scatter(block)
            self._merge(nb, mean_b, scatter_b)

    def _merge(self, nb, mean_b, scatter_b):
        na, n = self.n, self.n + nb
        delta = mean_b - self.mean
        self._upper += scatter_b
        if na:
            self._upper += np.triu(np.outer(delta, delta * (na * nb / n)))
        self.mean += delta * (nb / n)
        self.n = n

    def scatter(self):
        """The full symmetric scatter matrix (float64)."""
        upper = self._upper
        return upper + np.triu(upper, 1).T

    def variances(self, ddof=1):
        """Per-feature variances with ``ddof`` degrees of freedom removed."""
        return np.diag(self._upper) / max(self.n - ddof, 1)

    def covariance(self, ddof=1):
        """The covariance matrix (float64)."""
        return self.scatter() / max(self.n - ddof, 1)


def column_moments(X):
    """Per-column mean and variance (ddof=1) in float64, in one blocked pass.

    Works for dense arrays, memory maps and sparse matrices without densifying.

    Examples
    --------
    >>> import numpy as np
    >>> m, v = column_moments(np.array([[1.0, 2.0], [3.0, 2.0]]))
    >>> m, v
    (array([2., 2.]), array([2., 0.]))
    """
    n = X.shape[0]
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0, dtype=np.float64)).ravel()
        sq = np.asarray(X.multiply(X).sum(axis=0, dtype=np.float64)).ravel()
        var = (sq - n * mean**2) / max(n - 1, 1)
        return mean, np.maximum(var, 0.0)
    count, mean, m2 = 0, np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for block in iter_row_blocks(X):
        nb = block.shape[0]
        mb = block.mean(axis=0, dtype=np.float64)
        centered = block - mb.astype(block.dtype)
        m2b = np.einsum("ij,ij->j", centered, centered, dtype=np.float64)
        total = count + nb
        delta = mb - mean
        m2 += m2b + delta**2 * (count * nb / total)
        mean += delta * (nb / total)
        count = total
    return mean, m2 / max(n - 1, 1)
