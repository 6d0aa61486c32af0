"""Moments of row blocks computed where the blocks live, and their exact merge.

Each ``block_*`` function runs on one block (a worker's, under Dask) and returns small
float64 arrays; each ``merge_*`` combines a list of them with Chan, Golub and LeVeque's
pairwise update (``merge_step``), so any tree of merges gives the same result up to
rounding.
"""

import numpy as np

from .._validation import check_finite
from ._moments import _dense_block_scatter, column_moments, merge_scatter_into, merge_step


def check_block_finite(block, start, *values):
    """Raise (naming the global row) when the block's moments show non-finite input.

    Parameters
    ----------
    block : ndarray (rows, d)
    start : int
        Index of the block's first row in the whole array (named in the message).
    *values : ndarray
        Moments computed from every entry of the block.

    Examples
    --------
    >>> import numpy as np
    >>> check_block_finite(np.ones((2, 2)), 0, np.ones(2))  # finite: returns quietly
    """
    if all(np.isfinite(v).all() for v in values):
        return
    try:
        check_finite(block)
    except ValueError as exc:
        raise ValueError(
            f"in the row block of the dask array that starts at row {start} (row numbers below count from there): {exc}"
        ) from None


def block_scatter(block, start):
    """(n, mean, centred scatter) of one block, by one syrk in the block's dtype.

    Parameters
    ----------
    block : ndarray (rows, d)
    start : int
        Index of the block's first row in the whole array (for error messages).

    Returns
    -------
    tuple
        (n, mean, scatter) in float64.

    Examples
    --------
    >>> n, m, S = block_scatter(np.array([[0.0, 1.0], [2.0, 1.0]]), 0)
    >>> n, m.tolist(), S.tolist()
    (2, [1.0, 1.0], [[2.0, 0.0], [0.0, 0.0]])
    """
    mean, scatter = _dense_block_scatter(block, True)
    check_block_finite(block, start, mean, np.diag(scatter))
    return block.shape[0], mean, scatter


def merge_scatter(parts):
    """Merge ``block_scatter`` results.

    Parameters
    ----------
    parts : list of tuple
        Results of the matching ``block_*`` function.

    Returns
    -------
    tuple
        The moments of all the parts' rows, as one block's.

    Examples
    --------
    >>> X = np.arange(12.0).reshape(6, 2) ** 2
    >>> n, m, S = merge_scatter([block_scatter(X[:2], 0), block_scatter(X[2:], 2)])
    >>> bool(np.allclose(S / (n - 1), np.cov(X.T)))
    True
    """
    n, mean, scatter = parts[0][0], parts[0][1].copy(), parts[0][2].copy()
    for nb, mean_b, scatter_b in parts[1:]:
        n, mean = merge_scatter_into(n, mean, scatter, nb, mean_b, scatter_b)
    return n, mean, scatter


def block_variances(block, start):
    """(n, mean, per-feature sum of squared deviations) of one block, in float64.

    Parameters
    ----------
    block : ndarray (rows, d)
    start : int
        Index of the block's first row in the whole array (for error messages).

    Returns
    -------
    tuple
        (n, mean, per-feature sum of squared deviations) in float64.

    Examples
    --------
    >>> block_variances(np.array([[0.0], [2.0]]), 0)[2].tolist()
    [2.0]
    """
    mean, var = column_moments(block)
    check_block_finite(block, start, mean, var)
    return block.shape[0], mean, var * max(block.shape[0] - 1, 0)


def merge_variances(parts):
    """Merge ``block_variances`` results (the diagonal of ``merge_scatter``).

    Parameters
    ----------
    parts : list of tuple
        Results of the matching ``block_*`` function.

    Returns
    -------
    tuple
        The moments of all the parts' rows, as one block's.

    Examples
    --------
    >>> X = np.arange(10.0).reshape(5, 2) ** 2
    >>> n, m, ss = merge_variances([block_variances(X[:3], 0), block_variances(X[3:], 3)])
    >>> bool(np.allclose(ss / (n - 1), X.var(axis=0, ddof=1)))
    True
    """
    n, mean, ss = parts[0][0], parts[0][1].copy(), parts[0][2].copy()
    for nb, mean_b, ss_b in parts[1:]:
        n, mean, delta, weight = merge_step(n, mean, nb, mean_b)
        ss += ss_b + weight * delta**2
    return n, mean, ss
