"""lowdim on Dask: estimators accept ``dask.array`` input and compute where the data live.

``PCA`` and ``KMeans`` fit a dask array by map-reduce over its row blocks (small
results only on the client), ``MiniBatchKMeans`` streams the blocks through
``partial_fit``, and ``transform`` / ``predict`` of a dask array return lazy dask arrays.
Whatever scheduler is active runs the work: a ``dask.distributed.Client`` when one is
connected, else Dask's local threads. Needs the ``dask`` extra
(``pip install lowdim[dask]``). ``verbose`` estimators and ``pass_progress`` show a
progress bar per pass when a distributed client runs the work.

Examples
--------
>>> import dask.array as da
>>> from lowdim import PCA
>>> X = da.random.default_rng(0).normal(size=(10_000, 20), chunks=(2_500, 20))
>>> Z = PCA(n_components=3).fit(X).transform(X)
>>> type(Z).__name__, Z.shape
('Array', (10000, 3))
"""

from ._arrays import check_dask_array, compute, is_dask_array, map_rows, row_blocks, tree_reduce
from ._progress import pass_progress, progress_wanted
from ._runner import BlockPasses
from ._stream import iter_blocks, label_blocks, stream_partial_fit

__all__ = [
    "BlockPasses",
    "check_dask_array",
    "compute",
    "is_dask_array",
    "iter_blocks",
    "label_blocks",
    "map_rows",
    "pass_progress",
    "progress_wanted",
    "row_blocks",
    "stream_partial_fit",
    "tree_reduce",
]
