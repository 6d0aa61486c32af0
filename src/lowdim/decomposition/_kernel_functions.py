"""Kernel matrices in BLAS-sized blocks: linear, rbf, poly, sigmoid, cosine, callable."""

import numpy as np
import scipy.sparse as sp

from ..linalg import iter_row_blocks, row_norms_sq, syrk_upper

KERNELS = ("linear", "rbf", "poly", "sigmoid", "cosine")


def _sq_norms(X):
    return row_norms_sq(X)


def _block(kind, A, B, b_sq, gamma, degree, coef0):
    G = A @ B.T
    if sp.issparse(G):  # sparse rows: the products are sparse, the kernel is not
        G = G.toarray()
    if kind == "linear":
        return G
    if kind == "rbf":
        D = _sq_norms(A)[:, None] - 2 * G + b_sq[None, :]
        np.maximum(D, 0, out=D)
        return np.exp(-gamma * D, out=D)
    if kind == "poly":
        return (gamma * G + coef0) ** degree
    if kind == "sigmoid":
        return np.tanh(gamma * G + coef0, out=G)
    if kind == "cosine":
        na = np.sqrt(_sq_norms(A))
        nb = np.sqrt(b_sq)
        na[na == 0] = 1
        nb[nb == 0] = 1
        return G / na[:, None] / nb[None, :]
    raise ValueError(f"unknown kernel {kind!r}; choose from {', '.join(KERNELS)}, 'precomputed' or a callable.")


def _symmetric_kernel(X, kind, gamma, degree, coef0, out_dtype):
    """K(X, X): one syrk for the upper triangle of X X^T, then one parallel pass that
    applies the kernel and mirrors it (half the flops of a general product)."""
    from .._kernels.kernel_matrix import LINEAR, POLY, RBF, SIGMOID, kernel_from_upper_gram

    G = syrk_upper(np.ascontiguousarray(X, dtype=out_dtype), gram_of_rows=True)
    code = {"linear": LINEAR, "rbf": RBF, "poly": POLY, "sigmoid": SIGMOID}[kind]
    kernel_from_upper_gram(G, code, float(gamma), float(degree), float(coef0))
    return G


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, out_dtype=np.float64):
    """Kernel matrix between the rows of ``X`` and ``Y`` (``X`` itself if None).

    Distances for 'rbf' are ``|x|^2 - 2 x.y + |y|^2`` computed by row blocks, so memory
    beyond the result stays bounded.

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix (used without densifying)
    Y : ndarray or sparse matrix of shape (m, d), or None
    kernel : {'linear', 'rbf', 'poly', 'sigmoid', 'cosine'} or callable
        A callable is called as ``kernel(X, Y)`` and must return the (n, m) matrix.
    gamma : float or None
        Default ``1 / n_features`` (rbf, poly, sigmoid).
    degree, coef0 : poly / sigmoid parameters.
    out_dtype : numpy dtype, default=float64
        The result's dtype.

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> kernel_matrix(np.zeros((2, 3)), kernel="rbf")
    array([[1., 1.],
           [1., 1.]])
    """
    Y = X if Y is None else Y
    if callable(kernel):
        K = np.asarray(kernel(X, Y), dtype=out_dtype)
        if K.shape != (X.shape[0], Y.shape[0]):
            raise ValueError(f"the kernel callable returned shape {K.shape}; expected ({X.shape[0]}, {Y.shape[0]}).")
        return K
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    sparse = sp.issparse(X) or sp.issparse(Y)
    if (
        Y is X
        and not sparse
        and kernel in ("linear", "rbf", "poly", "sigmoid")
        and out_dtype in (np.float32, np.float64)
    ):
        return _symmetric_kernel(X, kernel, gamma, degree, coef0, out_dtype)
    b_sq = _sq_norms(Y) if kernel in ("rbf", "cosine") else None
    out = np.empty((X.shape[0], Y.shape[0]), dtype=out_dtype)
    start = 0
    for A in iter_row_blocks(X, rows=max(256, (1 << 24) // max(1, 8 * Y.shape[0]))):
        out[start : start + A.shape[0]] = _block(kernel, A, Y, b_sq, gamma, degree, coef0)
        start += A.shape[0]
    return out
