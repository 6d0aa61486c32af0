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


def fewer_distinct_rows(X, count):
    """The distinct row each row of ``X`` is (``unique_rows(X, in_order=True)[2]``) when
    ``X`` has fewer than ``count`` distinct rows, else None.

    Rows are first told apart by an exact integer hash of their bytes (one pass, no
    sort of the rows): rows with different hashes differ, so when at least ``count``
    hashes differ the rows are not compared at all.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix (n, d)
    count : int

    Returns
    -------
    ndarray of int (n,) or None

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [-0.0, 0.0], [0.0, 0.0]])
    >>> fewer_distinct_rows(X, 4).tolist()  # three distinct rows: -0.0 equals 0.0
    [0, 1, 0, 2, 2]
    >>> fewer_distinct_rows(X, 3) is None
    True
    """
    if np.unique(_row_hashes(X)).size >= count:
        return None
    _, _, inverse = unique_rows(X, in_order=True)
    return inverse if inverse.max(initial=-1) + 1 < count else None


def _row_hashes(X):
    """An integer per row, equal for rows equal as values: the row's float64 bit
    patterns (``-0.0`` made ``0.0``) weighed by fixed odd multipliers, summed modulo
    2**64 (exact in any order, so the same on every machine)."""
    multipliers = np.random.default_rng(0).integers(1, 2**63, size=X.shape[1], dtype=np.uint64) | np.uint64(1)
    if sp.issparse(X):  # a stored zero or an absent one weigh 0 alike
        C = sp.csr_matrix(X, dtype=np.float64, copy=True)
        C.sum_duplicates()
        C.data += 0.0
        words = C.data.view(np.uint64) * multipliers[C.indices]
        return np.add.reduceat(np.append(words, np.uint64(0)), C.indptr[:-1]) * (np.diff(C.indptr) > 0)
    hashes = np.zeros(X.shape[0], dtype=np.uint64)
    for start in range(0, X.shape[0], 4096):  # blocks bound the integer temporaries
        block = np.asarray(X[start : start + 4096], dtype=np.float64) + 0.0
        hashes[start : start + 4096] = (block.view(np.uint64) * multipliers).sum(axis=1, dtype=np.uint64)
    return hashes
