"""Passes over the row blocks of a dask array that keep per-block state on the workers."""

import numpy as np

from .._validation import check_sample_weight
from ._arrays import compute, row_blocks


class BlockPasses:
    """Run ``leaf(block, weights, state, *args) -> (state, small)`` on every row block:
    the new states are persisted where they were computed (worker memory under a
    distributed client), only the small results are gathered. Each call is one pass
    over the data.

    Parameters
    ----------
    X : dask.array.Array with one column chunk
    sample_weight : None, array-like or dask array of shape (n_samples,)

    Examples
    --------
    >>> import dask.array as da
    >>> runner = BlockPasses(da.ones((6, 2), chunks=(3, 2)), None)
    >>> leaf = lambda block, w, state, c: (None, float(block.sum()) * c)
    >>> runner.run(leaf, [None, None], 2.0)[1]
    [12.0, 12.0]
    """

    def __init__(self, X, sample_weight):
        self.blocks, self.starts = row_blocks(X)
        self.n_samples = X.shape[0]
        self.sizes = [int(c) for c in X.chunks[0]]
        self.weights = [None] * len(self.blocks)
        if sample_weight is not None:
            self.weights = _weight_blocks(sample_weight, X)

    def __len__(self):
        return len(self.blocks)

    def run(self, leaf, states, *args, per_block=None):
        """One pass; ``per_block[j]`` (a tuple) is appended to block j's arguments.
        Returns (persisted states, list of small results)."""
        import dask

        task = dask.delayed(leaf, pure=True, nout=2)
        extra = per_block or [()] * len(self.blocks)
        outs = [task(b, w, s, *args, *e) for b, w, s, e in zip(self.blocks, self.weights, states, extra)]
        outs = dask.persist(*outs)
        smalls = compute(*[o[1] for o in outs])
        return [o[0] for o in outs], list(smalls)

    def seeds(self, rng):
        """One seed per block for this pass, drawn from the estimator's random state, so
        that draws do not depend on the scheduler or the number of workers."""
        return [(int(s),) for s in rng.integers(0, 2**63 - 1, size=len(self.blocks))]


def _weight_blocks(sample_weight, X):
    """Sample weights cut into X's row blocks (as delayed objects), checked block by block."""
    import dask.array as da

    w = sample_weight if hasattr(sample_weight, "dask") else np.asarray(sample_weight, dtype=np.float64)
    if np.ndim(w) == 0:
        w = np.full(X.shape[0], float(w))
    w = da.asarray(w)
    if w.shape != (X.shape[0],):
        raise ValueError(f"sample_weight has shape {w.shape}; expected ({X.shape[0]},), one weight per sample.")
    w = w.rechunk((X.chunks[0],)).astype(np.float64)
    total, lowest = (float(v) for v in compute(w.sum(), w.min()))  # one pass over the weights
    if not np.isfinite(total) or total <= 0 or lowest < 0:
        check_sample_weight(np.asarray(compute(w)[0]), X.shape[0])  # the full message
    return list(w.to_delayed().ravel())
