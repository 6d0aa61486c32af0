"""Distinct rows of a dense or sparse matrix, and which distinct row each row is."""

import numpy as np
import scipy.sparse as sp


def unique_rows(X, *, in_order=False):
    """``(distinct rows, the first row of each, the distinct row each row is)`` of a
    dense array (sorted, as ``np.unique``; with ``in_order`` in order of first
    appearance) or a sparse matrix (CSR, in order of first appearance; rows equal as
    values, whatever their stored zeros and index order).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix (n, d)
    in_order : bool, default=False
        For a dense array: the distinct rows in order of first appearance rather than
        sorted (a sparse matrix's always are).

    Returns
    -------
    rows : ndarray or csr_matrix (m, d)
    first : ndarray of int (m,)
        The first row of ``X`` equal to each distinct row.
    inverse : ndarray of int (n,)
        The distinct row each row of ``X`` is: ``rows[inverse]`` is ``X``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> U, first, inverse = unique_rows(sp.csr_matrix([[0, 1.0], [2.0, 0], [0, 1.0]]))
    >>> U.shape, first.tolist(), inverse.tolist()
    ((2, 2), [0, 1], [0, 1, 0])
    >>> unique_rows(np.array([[5.0], [1.0], [5.0]]), in_order=True)[2].tolist()
    [0, 1, 0]
    """
    if not sp.issparse(X):
        U, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
        if not in_order:
            return U, first, inverse.ravel()
        keys = inverse.ravel()
    else:
        keys = _sparse_row_keys(X)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # distinct rows in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    rows = sp.csr_matrix(X)[first[order]] if sp.issparse(X) else X[first[order]]
    return rows, first[order], rank[inverse.ravel()]


def _sparse_row_keys(X):
    """A key per row of a sparse matrix, equal for rows equal as values."""
    C = sp.csr_matrix(X, copy=True)
    C.sum_duplicates()
    C.eliminate_zeros()
    # a row's key: its column indices' bytes then its values' (equal lengths mean equal nnz)
    keys = np.empty(C.shape[0], dtype=object)
    for r, (a, b) in enumerate(zip(C.indptr[:-1], C.indptr[1:])):
        keys[r] = C.indices[a:b].tobytes() + C.data[a:b].tobytes()
    return keys
