"""Streaming a dask array's row blocks through an estimator's ``partial_fit``.

Blocks arrive in row order, the next one computed (on the cluster, or Dask's local
threads) while the current one is being used, so the client holds at most two blocks.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..linalg import check_block_finite
from ._arrays import check_dask_array, compute
from ._progress import block_bar


def iter_blocks(X, aligned=None):
    """Yield ``(rows, aligned_rows)`` of each row block of ``X`` as numpy arrays, in
    order, computing the next block in the background. ``aligned`` is a 1-D dask array
    with X's row chunks (weights, labels) or None.

    Parameters
    ----------
    X : dask.array.Array (n, d)
    aligned : dask.array.Array (n,), optional

    Examples
    --------
    >>> import dask.array as da
    >>> [b.shape for b, _ in iter_blocks(da.ones((5, 2), chunks=(2, 2)))]
    [(2, 2), (2, 2), (1, 2)]
    """
    blocks = list(X.to_delayed().ravel())
    wblocks = [None] * len(blocks) if aligned is None else list(aligned.to_delayed().ravel())
    # the prefetching thread does not inherit pass_progress's context: blocks are
    # counted by the caller's block bar, not drawn as one task bar each
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(compute, blocks[0], wblocks[0])
        for j in range(len(blocks)):
            current = pending.result()
            if j + 1 < len(blocks):
                pending = pool.submit(compute, blocks[j + 1], wblocks[j + 1])
            yield current


def _batches(n, first, size):
    """(start, stop) of the batches of a block of ``n`` rows; ``first`` rows go first."""
    start = 0
    while start < n:
        stop = min(n, start + (first if first else size))
        yield start, stop
        start, first = stop, 0


def stream_partial_fit(est, X, sample_weight=None):
    """Feed the row blocks of the dask array ``X`` to ``est.partial_fit`` in batches of
    ``est.batch_size`` rows. A fresh estimator's first batch is larger
    (``max(3 * batch_size, init_size, n_clusters)`` rows, gathered over as many blocks as
    it takes) so that its centres start from a sample rather than from one small batch.
    A gap or infinity is named by its row in the whole array.

    Returns the validated dask array (whole rows per block), which the caller may use
    for a labelling pass.

    Parameters
    ----------
    est : estimator with ``partial_fit``, ``batch_size`` and ``n_clusters``
    X : dask.array.Array (n, d)
    sample_weight : dask or numpy array (n,), optional

    Returns
    -------
    dask.array.Array
        ``X`` as validated.

    Examples
    --------
    >>> import dask.array as da
    >>> from lowdim import MiniBatchKMeans
    >>> X = da.random.default_rng(0).normal(size=(4000, 3), chunks=(1000, 3))
    >>> km = MiniBatchKMeans(n_clusters=3, random_state=0)
    >>> _ = stream_partial_fit(km, X)
    >>> km.cluster_centers_.shape, km.n_steps_  # 3,072 rows of four blocks, then the other 928
    ((3, 3), 2)
    """
    import dask.array as da

    X = check_dask_array(X, type(est).__name__, min_samples=1)
    w = None
    if sample_weight is not None:
        w = da.asarray(sample_weight).astype(np.float64).rechunk((X.chunks[0],))
    first = 0 if hasattr(est, "cluster_centers_") else max(3 * est.batch_size, est.init_size or 0, est.n_clusters)
    held, at = [], 0  # blocks gathered for a first batch that one block does not fill
    with block_bar(X.numblocks[0], f"streaming {type(est).__name__}") as bar:
        for block, wb in iter_blocks(X, w):
            # a gap is named by its row in the whole array, not in the batch partial_fit reads
            check_block_finite(block, at, block.sum(axis=0))
            at += block.shape[0]
            held.append((block, wb))
            if not first or sum(b.shape[0] for b, _ in held) >= first:
                _feed(est, held, first)
                held, first = [], 0
            bar.update()
        if held:  # fewer rows in all than a first batch: one batch of them all
            _feed(est, held, first)
    return X


def _feed(est, held, first):
    """``partial_fit`` over the rows of the ``(block, weights)`` pairs ``held``, the
    first ``first`` rows as one batch, the rest in batches of ``est.batch_size``."""
    block = np.concatenate([b for b, _ in held]) if len(held) > 1 else held[0][0]
    wb = None if held[0][1] is None else np.concatenate([w for _, w in held])
    for start, stop in _batches(block.shape[0], first, est.batch_size):
        est.partial_fit(block[start:stop], sample_weight=None if wb is None else wb[start:stop])


def label_blocks(nearest, X, sample_weight=None):
    """Labels (int64, numpy) and the (weighted) inertia of ``X``, block by block:
    ``nearest(block) -> (labels, squared distances)`` runs on each row block.

    Parameters
    ----------
    nearest : callable
    X : dask.array.Array (n, d)
    sample_weight : dask or numpy array (n,), optional

    Returns
    -------
    labels : ndarray of int64 (n,)
    inertia : float

    Examples
    --------
    >>> import dask.array as da
    >>> nearest = lambda block: ((block[:, 0] > 1).astype(np.int64), np.zeros(block.shape[0]))
    >>> label_blocks(nearest, da.arange(4.0, chunks=2).reshape(4, 1))[0].tolist()
    [0, 0, 1, 1]
    """
    import dask
    import dask.array as da

    def one(block, w):
        labels, dist = nearest(block)
        return labels, float(dist.sum() if w is None else np.asarray(w, dtype=np.float64) @ dist)

    blocks = list(X.to_delayed().ravel())
    weights = [None] * len(blocks)
    if sample_weight is not None:
        weights = list(da.asarray(sample_weight).rechunk((X.chunks[0],)).to_delayed().ravel())
    parts = compute(*[dask.delayed(one)(b, w) for b, w in zip(blocks, weights)])
    return np.concatenate([p[0] for p in parts]), float(sum(p[1] for p in parts))
