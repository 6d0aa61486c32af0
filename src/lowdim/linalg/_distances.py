"""Pairwise distances in row blocks: BLAS for Euclidean, scipy for the other metrics.

One helper for every method that needs distances (k-means, k-medoids, silhouette,
neighbour graphs), so that no caller ever builds more than a ``block x n`` matrix
unless it asks for the whole thing.
"""

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from ._blas import matmul

# a block of distances (rows x all rows): 8 MiB stays near the caches; 64 MiB of fresh
# memory a block (pages zeroed by the system on first touch) took twice the time
BLOCK_BYTES = 8 << 20
# metrics computed here; anything else scipy's cdist knows is passed to it
EUCLIDEAN_METRICS = ("euclidean", "sqeuclidean")
# scipy metrics whose ratio is 0/0 (NaN) between two rows of zeros, which are the same point
ZERO_OVER_ZERO = ("braycurtis", "dice")


def row_norms_sq(X):
    """Squared Euclidean norm of each row, accumulated in float64.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)

    Returns
    -------
    ndarray (n,), float64
        The squared Euclidean norm of every row.

    Examples
    --------
    >>> row_norms_sq(np.array([[3.0, 4.0]]))
    array([25.])
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return np.bincount(
            np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)),
            weights=np.square(X.data, dtype=np.float64),
            minlength=X.shape[0],
        )
    X = np.asarray(X)
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def sq_euclidean(X, Y, x_sq=None, y_sq=None):
    """Squared Euclidean distances ``||x||^2 - 2 x.y + ||y||^2`` through one GEMM,
    clipped at zero (rounding can make the expansion slightly negative).

    Parameters
    ----------
    X : ndarray (n, d) or scipy.sparse matrix
    Y : ndarray (m, d), same dtype, or scipy.sparse matrix
    x_sq, y_sq : ndarray, optional
        Precomputed squared row norms (float64).

    Returns
    -------
    ndarray (n, m) in the dtype of ``X`` (dense also for sparse input: the products
    are sparse, the distances are not).

    Examples
    --------
    >>> sq_euclidean(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]))
    array([[25.]])
    """
    x_sq = row_norms_sq(X) if x_sq is None else x_sq
    y_sq = row_norms_sq(Y) if y_sq is None else y_sq
    if sp.issparse(X) and sp.issparse(Y):  # the side of fewer rows dense: no sparse-by-sparse product
        small_x = X.shape[0] <= Y.shape[0]
        few = X if small_x else Y
        if few.shape[0] * few.shape[1] * 8 <= BLOCK_BYTES:
            X, Y = (X.toarray(), Y) if small_x else (X, Y.toarray())
    if sp.issparse(X) or sp.issparse(Y):
        product = X @ Y.T
        D = np.asarray(product.toarray() if sp.issparse(product) else product, dtype=np.result_type(X.dtype, Y.dtype))
    else:
        D = matmul(np.ascontiguousarray(X), np.ascontiguousarray(Y).T)
    D *= -2
    D += x_sq.astype(D.dtype)[:, None]
    D += y_sq.astype(D.dtype)[None, :]
    np.maximum(D, 0, out=D)
    return D


def cosine_rows(X):
    """Rows whose halved squared Euclidean distances are cosine distances: each row
    scaled to unit length, and one more column, 1 in the rows that are all zero. A zero
    row is then at cosine distance 1 from every other row (its cosine taken as 0) and 0
    from another zero row, as umap-learn and pynndescent define it.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)

    Returns
    -------
    ndarray or CSR matrix (n, d + 1), in X's float dtype (float64 for other dtypes)

    Examples
    --------
    >>> U = cosine_rows(np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 2.0]]))
    >>> (sq_euclidean(U, U) / 2).round(2).tolist()
    [[0.0, 1.0, 0.2], [1.0, 0.0, 1.0], [0.2, 1.0, 0.0]]
    """
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    norms = np.sqrt(row_norms_sq(X))
    zero = (norms == 0).astype(dtype)[:, None]
    scale = (1.0 / np.where(norms > 0, norms, 1.0)).astype(dtype)
    if sp.issparse(X):
        return sp.hstack([sp.diags(scale) @ sp.csr_matrix(X, dtype=dtype), sp.csr_matrix(zero)], format="csr")
    return np.hstack([np.asarray(X, dtype=dtype) * scale[:, None], zero])


def pairwise_distances(X, Y=None, metric="euclidean", metric_params=None):
    """Distances between the rows of ``X`` and ``Y`` (``X`` itself when None).

    Parameters
    ----------
    X : ndarray (n, d)
    Y : ndarray (m, d), optional
    metric : str or callable
        'euclidean' and 'sqeuclidean' by BLAS, 'cosine' and 'correlation' too
        (``cosine_rows``: a row of zeros, or a constant row for 'correlation', is at
        distance 1 from the others, 0 from another such row); 'hellinger'
        (``hellinger_distances``);
        'haversine' (rows of latitude, longitude in radians); a numba-compiled function
        of two rows (``@numba.njit``, as umap-learn takes), called in a compiled loop;
        any other name or callable scipy's ``cdist`` accepts ('cityblock', 'cosine',
        'correlation', ...).
    metric_params : dict, optional
        Keyword arguments of the metric (``{'p': 3}`` for 'minkowski'); a numba-compiled
        metric gets their values as positional arguments after the two rows, in order
        (umap-learn's convention).

    Returns
    -------
    ndarray (n, m)

    Examples
    --------
    >>> pairwise_distances(np.array([[0.0, 0.0], [3.0, 4.0]]))
    array([[0., 5.],
           [5., 0.]])
    """
    Y = X if Y is None else Y
    if metric in EUCLIDEAN_METRICS and not metric_params:
        D = sq_euclidean(X, Y)
        if Y is X:
            np.fill_diagonal(D, 0)
        return D if metric == "sqeuclidean" else np.sqrt(D, out=D)
    if (metric == "cosine" or metric == "correlation" and not sp.issparse(X)) and not metric_params:
        rows = [X] if Y is X else [X, Y]  # the rows of a matrix with itself are scaled once
        if metric == "correlation":  # the cosine of the rows about their means
            rows = [np.asarray(A, dtype=np.float64) for A in rows]
            rows = [A - A.mean(axis=1, keepdims=True) for A in rows]
        units = [cosine_rows(A) for A in rows]
        D = sq_euclidean(units[0], units[-1])
        D *= 0.5
        if Y is X:
            np.fill_diagonal(D, 0)
        return D
    if metric == "manhattan":
        metric = "cityblock"
    if metric == "hellinger":
        return hellinger_distances(X, Y)
    if metric == "haversine":
        return _haversine(np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64))
    if compiled_metric(metric):
        return _nonnegative(_compiled_distances(X, Y, metric, metric_params))
    D = cdist(X, Y, metric=metric, **(metric_params or {})).astype(np.result_type(X.dtype, np.float32), copy=False)
    if metric in ZERO_OVER_ZERO:  # 0/0 only between two rows of zeros: one point, at distance 0
        D[np.isnan(D)] = 0.0
    if Y is X:
        np.fill_diagonal(D, 0)
    return _nonnegative(D) if callable(metric) else D


def _nonnegative(D):
    """A metric function's distances, refused if one is negative (scikit-learn's sentence
    kept: code matches it)."""
    if (D < 0).any():
        i, j = np.argwhere(D < 0)[0]
        raise ValueError(
            f"All distances should be positive, the metric given is not correct: the metric function returned "
            f"{D[i, j]:g} between rows {i} and {j}; a distance is never negative."
        )
    return D


def compiled_metric(metric):
    """Whether ``metric`` is a numba-compiled function (``@numba.njit``).

    Parameters
    ----------
    metric : str or callable

    Returns
    -------
    bool

    Examples
    --------
    >>> compiled_metric("euclidean"), compiled_metric(len)
    (False, False)
    """
    if not callable(metric):
        return False
    from numba.extending import is_jitted

    return is_jitted(metric)


def _compiled_distances(X, Y, metric, metric_params):
    """A numba-compiled metric over all pairs of rows, in float64."""
    from .._kernels.callable_metric import all_pairs

    # copies: a function that writes into the rows it is given must not change the data
    X, Y = np.array(X, dtype=np.float64, order="C"), np.array(Y, dtype=np.float64, order="C")
    out = np.empty((X.shape[0], Y.shape[0]))
    all_pairs(X, Y, metric, tuple((metric_params or {}).values()), out)
    return out


def hellinger_distances(X, Y):
    """Hellinger distances between non-negative rows (histograms, counts), as umap-learn's:
    ``sqrt(1 - sum sqrt(x y) / sqrt(sum x sum y))``, 0 between two empty rows and 1
    between an empty row and another. One GEMM of the rows' square roots.

    Parameters
    ----------
    X : ndarray (n, d), non-negative
    Y : ndarray (m, d), non-negative

    Returns
    -------
    ndarray (n, m) of float64

    Examples
    --------
    >>> hellinger_distances(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[1.0, 0.0]])).ravel().tolist()
    [0.0, 1.0]
    """
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    if (X < 0).any() or (Y < 0).any():
        raise ValueError("metric='hellinger' compares non-negative rows (histograms, counts); X has negative entries.")
    x_sum, y_sum = X.sum(axis=1), Y.sum(axis=1)
    scale = np.sqrt(x_sum[:, None] * y_sum[None, :])
    overlap = np.sqrt(X) @ np.sqrt(Y).T
    with np.errstate(invalid="ignore", divide="ignore"):
        D = np.sqrt(np.clip(1.0 - overlap / scale, 0.0, 1.0))
    empty = scale == 0  # one empty row: 1; both: 0
    D[empty] = ((x_sum[:, None] == 0) != (y_sum[None, :] == 0))[empty]
    return D


def distance_blocks(X, Y=None, metric="euclidean", block_rows=None, rows=None, metric_params=None, pairwise=None):
    """Yield ``(start, stop, D)`` with ``D`` the distances from rows ``start:stop`` of
    ``X`` (or of ``X[rows]``) to every row of ``Y``, keeping memory to one block.

    Parameters
    ----------
    X, Y : ndarray
    metric : str or callable
    block_rows : int, optional
        Rows per block; by default about 64 MB of distances per block.
    rows : ndarray of int, optional
        Only these rows of ``X`` (for sampled computations).
    metric_params : dict, optional
        Keyword arguments of the metric.
    pairwise : callable, optional
        ``pairwise(Xb)`` gives a block's distances to ``Y`` in place of ``metric``: a
        built ``KNNIndex``'s ``pairwise`` (Gower's distance for mixed tables).

    Examples
    --------
    >>> X = np.zeros((5, 2))
    >>> [stop for _, stop, _ in distance_blocks(X, block_rows=2)]
    [2, 4, 5]
    """
    Y = X if Y is None else Y
    n = X.shape[0] if rows is None else len(rows)
    if block_rows is None:
        block_rows = max(1, min(n, BLOCK_BYTES // (8 * max(1, Y.shape[0]))))
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        Xb = X[start:stop] if rows is None else X[rows[start:stop]]
        yield start, stop, pairwise(Xb) if pairwise else pairwise_distances(Xb, Y, metric, metric_params)


def _haversine(X, Y):
    """Great-circle distances on the unit sphere between rows of (latitude, longitude)
    in radians, as scikit-learn's ``haversine_distances``."""
    if X.shape[1] != 2:
        raise ValueError(
            f"metric='haversine' takes rows of (latitude, longitude) in radians; X has {X.shape[1]} columns."
        )
    a = (
        np.sin((X[:, None, 0] - Y[None, :, 0]) / 2) ** 2
        + np.cos(X[:, None, 0]) * np.cos(Y[None, :, 0]) * np.sin((X[:, None, 1] - Y[None, :, 1]) / 2) ** 2
    )
    return 2 * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
