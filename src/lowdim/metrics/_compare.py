"""Comparing two maps of the same rows: Procrustes alignment and disparity, and the
co-ranking matrix of neighbour ranks with its Q_NX and LCMC curves (Lee & Verleysen
2009), from the rows' nearest neighbours only (never an n x n matrix)."""

import numpy as np

from .._validation import check_array
from ..linalg import procrustes_fit
from ._embedding import _check_k, _graph_pair, _nearest, _pair
from ._sampling import query_rows


def procrustes(reference, moving):
    """``moving`` rotated (or reflected), scaled and shifted onto ``reference``, and how
    far apart the two remain.

    Parameters
    ----------
    reference, moving : array-like (n, d)
        Two maps of the same rows, in the same order.

    Returns
    -------
    aligned : ndarray (n, d)
        ``moving`` after the best similarity transform (in ``reference``'s units).
    disparity : float
        The sum of squared differences once both maps are centred and scaled to unit
        norm, as ``scipy.spatial.procrustes`` reports it: 0 for maps equal up to a
        similarity, at most 1.

    Examples
    --------
    >>> import numpy as np
    >>> ref = np.random.default_rng(0).normal(size=(20, 2))
    >>> turned = ref @ np.array([[0.0, -1.0], [1.0, 0.0]]) * 3 + 7
    >>> aligned, disparity = procrustes(ref, turned)
    >>> bool(np.allclose(aligned, ref)), round(disparity, 12)
    (True, 0.0)
    """
    P = check_array(reference, name="reference", estimator_name="procrustes")
    Q = check_array(moving, name="moving", estimator_name="procrustes")
    if P.shape != Q.shape:
        raise ValueError(f"the maps must have the same shape (the same rows); got {P.shape} and {Q.shape}.")
    rotation, scale, q0, p0 = procrustes_fit(P, Q)
    aligned = (Q - q0) @ rotation * scale + p0
    norm_p, norm_q = np.linalg.norm(P - p0), np.linalg.norm(Q - q0)
    if norm_p == 0 or norm_q == 0:
        raise ValueError("a map with every row at one point has no shape to compare; pass maps that vary.")
    # the trace of the singular values is scale * |Q|^2; scipy's disparity is 1 - (trace / (|P| |Q|))^2
    # float(): max kept the Python 0.0 or returned numpy's value by the sign of a rounding error
    return aligned, float(max(0.0, 1.0 - (scale * norm_q / norm_p) ** 2))


def coranking_matrix(
    X, X_embedded, *, max_rank=None, metric="euclidean", metric_params=None, max_queries=None, random_state=None
):
    """The co-ranking matrix up to rank ``max_rank``: ``Q[k - 1, l - 1]`` counts the pairs
    (i, j) with j the k-th nearest of i in the data and the l-th in the embedding
    (Lee & Verleysen 2009). Computed from each row's ``max_rank`` nearest neighbours in
    both: a pair counts where it is among both lists (ties broken by row order).

    Parameters
    ----------
    X : array-like (n, d) or NeighborGraph
        The data (or their neighbour graph with at least ``max_rank`` neighbours).
    X_embedded : array-like (n, c)
    max_rank : int, optional
        Less than n / 2; default 50, or the largest rank below n / 2 on fewer rows.
    metric : str, default='euclidean'
        For ``X`` (as ``trustworthiness``'s).
    metric_params : dict, optional
        The metric's parameters (Gower's ``ranges`` and ``categorical``, for instance).
    max_queries : int, optional
        Count the pairs of this many random rows only (default: every row).
    random_state : None, int or Generator

    Returns
    -------
    ndarray of int64 (max_rank, max_rank)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> Q = coranking_matrix(X, X, max_rank=5)
    >>> int(np.trace(Q)), int(Q.sum())
    (150, 150)
    """
    max_rank = _max_rank(max_rank, X_embedded)
    near_x, near_z = _both_neighbours(X, X_embedded, max_rank, metric, metric_params, max_queries, random_state)
    Q = np.zeros((max_rank, max_rank), dtype=np.int64)
    for a, b in zip(near_x, near_z):
        _, in_x, in_z = np.intersect1d(a, b, assume_unique=True, return_indices=True)
        np.add.at(Q, (in_x, in_z), 1)
    return Q


def qnx_curve(
    X, X_embedded, *, max_rank=None, metric="euclidean", metric_params=None, max_queries=None, random_state=None
):
    """Q_NX(K), the average share of each row's K nearest neighbours kept among its K
    nearest in the embedding, and LCMC(K) = Q_NX(K) - K / (n - 1), its excess over a
    random map, for K = 1 ... ``max_rank`` (Lee & Verleysen 2009).

    Parameters
    ----------
    X, X_embedded, max_rank, metric, metric_params, max_queries, random_state
        As for ``coranking_matrix``.

    Returns
    -------
    K : ndarray of int (max_rank,)
    qnx : ndarray (max_rank,)
        Between 0 and 1; 1 where every neighbourhood is kept.
    lcmc : ndarray (max_rank,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> K, qnx, lcmc = qnx_curve(X, 2 * X, max_rank=5)
    >>> qnx.tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    max_rank = _max_rank(max_rank, X_embedded)
    near_x, near_z = _both_neighbours(X, X_embedded, max_rank, metric, metric_params, max_queries, random_state)
    first_both = np.zeros(max_rank + 1, dtype=np.int64)  # pairs in both K-lists from K on
    for a, b in zip(near_x, near_z):
        _, in_x, in_z = np.intersect1d(a, b, assume_unique=True, return_indices=True)
        np.add.at(first_both, np.maximum(in_x, in_z), 1)
    K = np.arange(1, max_rank + 1)
    qnx = np.cumsum(first_both[:max_rank]) / (K * len(near_x))
    n = np.shape(X_embedded)[0]
    return K, qnx, qnx - K / (n - 1)


DEFAULT_MAX_RANK = 50


def _max_rank(max_rank, X_embedded):
    """``max_rank``, or by default 50 capped below half the rows (at least 1)."""
    if max_rank is not None:
        return max_rank
    return max(1, min(DEFAULT_MAX_RANK, (np.shape(X_embedded)[0] - 1) // 2))


def _both_neighbours(X, X_embedded, k, metric, metric_params, max_queries, random_state):
    """Each sampled row's ``k`` nearest others in the data and in the embedding."""
    from ..neighbors import NeighborGraph

    if isinstance(X, NeighborGraph):
        Z = _graph_pair(X, X_embedded, k)
    else:
        X, Z = _pair(X, X_embedded, metric)
    n = Z.shape[0]
    _check_k(k, n, "max_rank")
    rows = query_rows(n, max_queries, random_state)
    return _nearest(X, rows, k, metric, metric_params), _nearest(Z, rows, k)
