"""Each indexed point's nearest other points, queried in row blocks into compact arrays
(float32 distances, int32 indices): the neighbour graph of millions of points without
float64 and int64 copies of it, with a progress bar and an ETA."""

import numpy as np

BLOCK_ROWS = 32_768  # rows per query block: ~100 MB of transient work at 90 neighbours


def self_neighbors(index, X, k, *, verbose=False, label="kNN graph"):
    """The ``k`` nearest other indexed points of every row of ``X`` (the data ``index``
    was built on), as compact arrays.

    Indexes that answer blocks of their own rows (lowdim's exact and HNSW indexes) are
    queried ``BLOCK_ROWS`` rows at a time; any other ``KNNIndex`` answers
    ``query(X, k, exclude_self=True)`` at once.

    Parameters
    ----------
    index : KNNIndex
        Built on ``X``.
    X : array-like (n, d)
    k : int
    verbose : bool, default=False
        A progress bar (tqdm, on standard error) over the rows, with an ETA.
    label : str, default='kNN graph'
        The bar's description.

    Returns
    -------
    distances : ndarray of float32 (n, k), increasing along each row
    indices : ndarray of int32 (n, k) (int64 from 2^31 rows)

    Examples
    --------
    >>> from lowdim.neighbors import ExactIndex
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> dist, idx = self_neighbors(ExactIndex().build(X), X, 1)
    >>> idx.ravel().tolist(), dist.dtype, idx.dtype
    ([1, 0, 1], dtype('float32'), dtype('int32'))
    """
    from .._progress import progress_bar

    n = X.shape[0]
    index_dtype = np.int32 if n < 2**31 else np.int64
    block = index._query_indexed(0, min(n, BLOCK_ROWS), k)
    if block is None:
        dist, idx = index.query(X, k, exclude_self=True)
        return np.asarray(dist, dtype=np.float32), np.asarray(idx, dtype=index_dtype)
    distances, indices = np.empty((n, k), dtype=np.float32), np.empty((n, k), dtype=index_dtype)
    with progress_bar(total=n, desc=label, unit="row", disable=not verbose, mininterval=0.5) as bar:
        for start in range(0, n, BLOCK_ROWS):
            stop = min(n, start + BLOCK_ROWS)
            if start:
                block = index._query_indexed(start, stop, k)
            distances[start:stop], indices[start:stop] = block
            bar.update(stop - start)
    repair = getattr(index, "repair_self_query", None)  # searches that went astray (HNSW), redone
    return repair(distances, indices) if repair is not None else (distances, indices)
