"""Kernel matrices in BLAS-sized blocks: linear, rbf, poly, sigmoid, cosine; laplacian
and the chi-squared kernels feature by feature; a user's callable."""

import numpy as np
import scipy.sparse as sp

from ..linalg import iter_row_blocks, row_norms_sq, sq_euclidean, syrk_upper

KERNELS = ("linear", "rbf", "poly", "polynomial", "sigmoid", "cosine", "laplacian", "chi2", "additive_chi2")
FEATUREWISE = ("laplacian", "chi2", "additive_chi2")  # sums over features of a function of (x_c, y_c)


def median_squared_distance(X, rows=200):
    """The median squared distance between two of X's first ``rows`` rows: the spacing
    an rbf kernel's gamma should be about the inverse of.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
    rows : int, default=200
        How many of the first rows are compared.

    Returns
    -------
    float
        0 for fewer than two rows.

    Examples
    --------
    >>> median_squared_distance(np.array([[0.0], [1.0], [3.0]]))
    4.0
    """
    head = np.asarray(X[:rows].toarray() if sp.issparse(X) else X[:rows], dtype=np.float64)
    sq = sq_euclidean(head, head)
    return float(np.median(sq[~np.eye(len(head), dtype=bool)])) if len(head) > 1 else 0.0


def _sq_norms(X):
    return row_norms_sq(X)


def _featurewise(kind, A, B, gamma):
    """laplacian ``exp(-gamma |x - y|_1)``, chi2 ``exp(-gamma S)`` and additive_chi2
    ``-S``, with ``S = sum_c (x_c - y_c)^2 / (x_c + y_c)`` (0 where both are 0), as
    scikit-learn's; one feature at a time, so memory stays one block of the result."""
    A = A.toarray() if sp.issparse(A) else A
    B = B.toarray() if sp.issparse(B) else B
    if kind != "laplacian" and (np.any(A < 0) or np.any(B < 0)):
        raise ValueError(
            f"the {kind} kernel is defined for non-negative data only (histograms); X has negative values."
        )
    S = np.zeros((A.shape[0], B.shape[0]))
    for c in range(A.shape[1]):
        diff = A[:, c, None] - B[None, :, c]
        if kind == "laplacian":
            S += np.abs(diff)
            continue
        total = A[:, c, None] + B[None, :, c]
        S += np.divide(diff * diff, total, out=np.zeros_like(S), where=total > 0)
    return -S if kind == "additive_chi2" else np.exp(-gamma * S)


def _block(kind, A, B, b_sq, gamma, degree, coef0):
    if kind in FEATUREWISE:
        return _featurewise(kind, A, B, gamma)
    G = A @ B.T
    if sp.issparse(G):  # sparse rows: the products are sparse, the kernel is not
        G = G.toarray()
    if kind == "linear":
        return G
    if kind == "rbf":
        D = _sq_norms(A)[:, None] - 2 * G + b_sq[None, :]
        np.maximum(D, 0, out=D)
        return np.exp(-gamma * D, out=D)
    if kind in ("poly", "polynomial"):
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


def kernel_matrix(
    X, Y=None, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None, out_dtype=np.float64
):
    """Kernel matrix between the rows of ``X`` and ``Y`` (``X`` itself if None).

    Distances for 'rbf' are ``|x|^2 - 2 x.y + |y|^2`` computed by row blocks, so memory
    beyond the result stays bounded.

    Parameters
    ----------
    X : ndarray of shape (n, d) or scipy.sparse matrix (used without densifying)
    Y : ndarray or sparse matrix of shape (m, d), or None
    kernel : str in ``KERNELS`` or callable
        A callable is scikit-learn's kind, ``kernel(x, y, **kernel_params) -> float``
        for two rows, called for every pair; or one that takes two blocks of rows,
        ``kernel(X, Y, **kernel_params)``, and returns their (n, m) matrix (used when
        the call on two single rows does not give a number).
    gamma : float or None
        Default ``1 / n_features`` (rbf, poly, sigmoid, laplacian, chi2).
    degree, coef0 : poly / sigmoid parameters.
    kernel_params : dict, optional
        Keyword arguments of a callable kernel.
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
    same = Y is None
    Y = X if Y is None else Y
    if callable(kernel):
        return _callable_kernel(kernel, X, Y, same, dict(kernel_params or {}), out_dtype)
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    kernel = "poly" if kernel == "polynomial" else kernel
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


def _callable_kernel(kernel, X, Y, same, params, out_dtype):
    """A user's kernel, of two rows (scikit-learn's kind: a number per pair, mirrored
    when ``X`` is ``Y``) or of two blocks of rows (the whole matrix in one call)."""
    n, m = X.shape[0], Y.shape[0]
    if n and m and _of_two_rows(kernel, X, Y, params):
        K = np.empty((n, m), dtype=out_dtype)
        for i in range(n):
            for j in range(i if same else 0, m):
                K[i, j] = kernel(X[i], Y[j], **params)
                if same:
                    K[j, i] = K[i, j]
        return K
    K = np.asarray(kernel(X, Y, **params), dtype=out_dtype)
    if K.shape != (n, m):
        raise ValueError(
            f"the kernel callable returned shape {K.shape} for blocks of {n} and {m} rows; it must return "
            f"the ({n}, {m}) matrix, or a number when given two single rows."
        )
    return K


def _of_two_rows(kernel, X, Y, params):
    """Whether ``kernel`` gives a number for two single rows (scikit-learn's kind)."""
    try:
        value = kernel(X[0], Y[0], **params)
    except Exception:  # a kernel of blocks may fail on single rows in any way
        return False
    return np.ndim(value) == 0
