"""Dask arrays as lowdim input: recognition, validation, row blocks and reductions.

Every distributed computation in lowdim has the same shape: a function runs on each
row block where the block lives, returns something small (moments, a few rows, sums
per cluster), and the small results are merged in a tree of fan-in ``ARITY``. Nothing
larger than one row block is ever built in one place.
"""

import numpy as np

from ._progress import compute_with_bar

ARITY = 8  # fan-in of the tree reductions
MAX_BLOCK_BYTES = 512 << 20  # a row block larger than this is split when rechunking


def is_dask_array(X):
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask when it is not).

    Parameters
    ----------
    X : object

    Returns
    -------
    bool
        Whether ``X`` is a ``dask.array.Array`` (False when dask is not installed).

    Examples
    --------
    >>> import numpy as np
    >>> is_dask_array(np.ones(3))
    False
    """
    return type(X).__module__.startswith("dask.array") and hasattr(X, "dask") and hasattr(X, "chunks")


def check_dask_array(X, estimator_name, *, min_samples=2):
    """Validate a dask array for fitting: 2-D, real numbers, known row chunks, rows whole.

    Integer and boolean arrays become float64 (as in-memory input does); float32 and
    float64 are kept. A block with several column chunks is merged into whole rows
    (every block function needs complete rows); unknown chunk sizes are computed.

    Parameters
    ----------
    X : dask.array.Array
    estimator_name : str
        Named in error messages.
    min_samples : int

    Returns
    -------
    dask.array.Array with one column chunk.

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.ones((10, 4), chunks=(5, 2), dtype=int)
    >>> Y = check_dask_array(X, "PCA")
    >>> Y.dtype.name, Y.numblocks
    ('float64', (2, 1))
    """
    if X.ndim != 2:
        raise ValueError(
            f"{estimator_name} expects a 2-D dask array (samples x features); got "
            f"{X.ndim} dimension(s) with shape {X.shape}. Reshape it, e.g. "
            "X.reshape(-1, 1) for a single feature."
        )
    kind = X.dtype.kind
    if kind not in "fiub":
        raise TypeError(
            f"{estimator_name} needs a numeric dask array; got dtype {X.dtype}. Convert it with X.astype('float64')."
        )
    if kind != "f" or X.dtype.itemsize not in (4, 8):
        X = X.astype(np.float64)
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    n, d = X.shape
    if n < min_samples:
        raise ValueError(f"{estimator_name} needs at least {min_samples} samples; the dask array has {n}.")
    if d < 1:
        raise ValueError(f"{estimator_name} needs at least one feature; the dask array has shape {X.shape}.")
    if X.numblocks[1] > 1:
        rows = max(1, min(max(X.chunks[0]), MAX_BLOCK_BYTES // max(1, d * X.dtype.itemsize)))
        X = X.rechunk({0: rows, 1: -1})
    return X


def row_blocks(X):
    """The row blocks of a one-column-chunk dask array as delayed objects, with the
    index of each block's first row.

    Parameters
    ----------
    X : dask.array.Array (n, d)

    Returns
    -------
    blocks : list of dask.delayed.Delayed
    starts : list of int

    Examples
    --------
    >>> import dask.array as da
    >>> blocks, starts = row_blocks(da.ones((10, 2), chunks=(4, 2)))
    >>> len(blocks), starts
    (3, [0, 4, 8])
    """
    blocks = list(X.to_delayed().ravel())
    starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int).tolist()
    return blocks, starts


def tree_reduce(parts, merge):
    """Merge delayed ``parts`` pairwise-associatively in a tree of fan-in ``ARITY``:
    ``merge(list_of_results) -> result`` runs on the workers, log depth, small results.

    Parameters
    ----------
    parts : list of dask.delayed.Delayed
    merge : callable
        ``merge(list_of_results) -> result``, associative.

    Returns
    -------
    dask.delayed.Delayed
        The merged result.

    Examples
    --------
    >>> import dask
    >>> parts = [dask.delayed(i) for i in range(20)]
    >>> tree_reduce(parts, sum).compute()
    190
    """
    import dask

    level = list(parts)
    if not level:
        raise ValueError("nothing to reduce: the dask array has no row blocks")
    merge_task = dask.delayed(merge, pure=True)
    while len(level) > 1:
        level = [
            merge_task(level[i : i + ARITY]) if len(level[i : i + ARITY]) > 1 else level[i]
            for i in range(0, len(level), ARITY)
        ]
    return level[0]


def compute(*objects):
    """``dask.compute`` with worker loss reported as what it is: a worker that died
    (out of memory, killed) on the same task more often than Dask's allowed-failures
    limit becomes a ``RuntimeError`` that says so and what to try. Inside
    ``pass_progress`` a distributed computation shows a bar of its tasks.

    Parameters
    ----------
    *objects : dask collections or delayed objects

    Returns
    -------
    tuple
        Their computed values, as ``dask.compute`` returns them.

    Examples
    --------
    >>> import dask
    >>> compute(dask.delayed(1) + 1)
    (2,)
    """
    import dask

    try:
        shown = compute_with_bar(objects)  # inside pass_progress, on a distributed client
        return shown if shown is not None else dask.compute(*objects)
    except Exception as exc:  # KilledWorker lives in distributed, which may be absent
        if type(exc).__name__ != "KilledWorker":
            raise
        raise RuntimeError(
            f"a Dask worker died while computing a lowdim fit ({exc}); the task was retried "
            "on other workers until Dask's allowed-failures limit. Usually a worker ran out "
            "of memory: give workers more memory, use smaller row chunks, or check the "
            "worker logs. Nothing was stored in the estimator."
        ) from exc


def map_rows(func, X, n_out, dtype, *, n_features, estimator_name):
    """Apply a fitted model's row-wise method to every row block, lazily.

    ``func`` maps an in-memory block (rows x ``n_features``) to rows x ``n_out``; the
    result is a dask array with X's row chunks (``n_out=None``: a 1-D array, e.g.
    labels). Nothing is computed here.

    Parameters
    ----------
    func : callable
        ``func(block) -> ndarray``.
    X : dask.array.Array (n, n_features)
    n_out : int or None
        Output columns; None for a 1-D output.
    dtype : numpy dtype
        Of the output.
    n_features : int
        The fitted model's; ``X`` must have as many columns.
    estimator_name : str
        For error messages.

    Returns
    -------
    dask.array.Array
        Lazy, with ``X``'s row chunks.

    Examples
    --------
    >>> import dask.array as da
    >>> Z = map_rows(lambda b: b[:, :1] * 2, da.ones((6, 3), chunks=(3, 3)), 1, float,
    ...              n_features=3, estimator_name="demo")
    >>> Z.shape, float(Z.sum().compute())
    ((6, 1), 12.0)
    """
    X = check_dask_array(X, estimator_name, min_samples=0)
    if X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but {estimator_name} was fitted with "
            f"{n_features}; pass data with the columns used in fit."
        )
    if n_out is None:
        return X.map_blocks(func, dtype=dtype, chunks=(X.chunks[0],), drop_axis=1)
    return X.map_blocks(func, dtype=dtype, chunks=(X.chunks[0], (n_out,)))
