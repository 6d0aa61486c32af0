"""The kNN graph of a dask array, built on the cluster: every row block is indexed where
it lives, every block is queried against every block's index (its own with itself left
out), and each block's partial lists are merged to its ``k`` nearest in a tree on the
workers. Only the compact result, ``n x k`` float32 distances and int32 indices, comes
to the client; the neighbour-embedding layout then runs there from the graph."""

import numpy as np

from ._choose import make_index


def _build(block, algorithm, metric, metric_params):
    return make_index(algorithm, metric, block.shape[0], metric_params).build(block)


def _query(index, block, k, first, own):
    """The ``k`` nearest (fewer if the indexed block is small) of ``block``'s rows in the
    indexed block whose first row is ``first``, as global indices."""
    available = index.n_samples_ - (1 if own else 0)
    kk = min(k, available)
    if kk < 1:
        return np.full((block.shape[0], 0), np.inf, np.float32), np.zeros((block.shape[0], 0), np.int64)
    dist, idx = index.query(block, kk, exclude_self=own)
    return np.asarray(dist, dtype=np.float32), np.asarray(idx, dtype=np.int64) + first


def _merge(parts, k):
    """The ``k`` nearest of several partial lists of the same rows (ties to the lower
    index)."""
    dist = np.concatenate([p[0] for p in parts], axis=1)
    idx = np.concatenate([p[1] for p in parts], axis=1)
    order = np.lexsort((idx, dist), axis=1)[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def dask_self_neighbors(X, k, *, metric="euclidean", algorithm="auto", metric_params=None):
    """The ``k`` nearest other rows of every row of a dask array, computed on the workers.

    Parameters
    ----------
    X : dask.array.Array (n, d)
        Rows in blocks (rechunked to one column chunk if needed).
    k : int
    metric : {'euclidean', 'sqeuclidean', 'cosine'} or another index metric
    algorithm : {'auto', 'exact', 'approximate'}
        Per block, as ``make_index`` chooses for the block's size.
    metric_params : dict, optional

    Returns
    -------
    distances : ndarray of float32 (n, k), increasing along each row
    indices : ndarray of int32 (n, k) (int64 from 2^31 rows)

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.from_array(np.arange(10.0)[:, None] ** 2, chunks=(4, 1))
    >>> dist, idx = dask_self_neighbors(X, 2)
    >>> idx[:3].tolist(), dist[0].tolist()
    ([[1, 2], [0, 2], [1, 0]], [1.0, 4.0])
    """
    import dask

    from ..distributed import check_dask_array, compute, row_blocks, tree_reduce
    from ._exact import check_n_neighbors

    X = check_dask_array(X, "kNN graph")
    n = X.shape[0]
    check_n_neighbors(k, n)
    blocks, starts = row_blocks(X)
    build = dask.delayed(_build, pure=True)
    query = dask.delayed(_query, pure=True)
    indexes = [build(b, algorithm, metric, metric_params) for b in blocks]
    merged = [
        tree_reduce(
            [query(indexes[j], block, k, starts[j], i == j) for j in range(len(blocks))],
            lambda parts: _merge(parts, k),
        )
        for i, block in enumerate(blocks)
    ]
    results = compute(*merged)
    distances = np.concatenate([r[0] for r in results])
    indices = np.concatenate([r[1] for r in results]).astype(np.int32 if n < 2**31 else np.int64)
    return distances, indices
