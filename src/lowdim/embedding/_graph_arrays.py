"""What the neighbour embeddings share to hold millions of points: the symmetric graph
of a compact kNN graph, a CSR built from arrays without a copy, and per-row work in
float64 one block of rows at a time."""

from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

ROWS_PER_BLOCK = 65_536  # rows worked on in float64 at a time (~50 MB at 90 neighbours)


def sorted_csr(indptr, indices, data, n):
    """The n x n CSR of arrays whose rows are already sorted (no copy, no check)."""
    M = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    M.has_sorted_indices = True
    return M


def symmetric_graph(indices, values, n_samples, mode, mix=1.0, bar=None):
    """The symmetric CSR (n_samples x n_samples) of the directed edges ``i ->
    indices[i, t]`` weighted ``values[i, t]``, each pair's two weights combined by
    ``mode``: 'sum', 'fuzzy_union' (with ``mix``) or 'maximum'; compact (the values'
    dtype, int32 indices), sorted, no zeros stored. It advances ``bar`` (a
    ``row_progress`` bar, or None) by ``SYMMETRIC_PASSES`` x n_samples rows.

    Examples
    --------
    >>> symmetric_graph(np.array([[1], [0]]), np.array([[2.0], [3.0]]), 2, "maximum").toarray().tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    from .._kernels.symmetric_graph import symmetric_csr

    indptr, cols, data = symmetric_csr(
        np.ascontiguousarray(indices), np.ascontiguousarray(values), mode, mix, None if bar is None else bar.update
    )
    return sorted_csr(indptr, cols, data, n_samples)


def float64_row_blocks(distances, bar=None):
    """``(out, blocks)``: an empty array shaped like ``distances`` in their dtype (float32
    stays float32, anything else float64) and the ``(rows, float64 copy of the block)`` pairs
    to compute it from, ``ROWS_PER_BLOCK`` rows at a time; each block, once done, advances
    ``bar`` (a ``row_progress`` bar, or None) by its rows.

    Examples
    --------
    >>> out, blocks = float64_row_blocks(np.ones((3, 2), dtype=np.float32))
    >>> out.dtype, [(rows, block.dtype) for rows, block in blocks]
    (dtype('float32'), [(slice(0, 3, None), dtype('float64'))])
    """
    distances = np.asarray(distances)
    out = np.empty(distances.shape, dtype=np.float32 if distances.dtype == np.float32 else np.float64)
    return out, _blocks(distances, bar)


def _blocks(distances, bar):
    """The row blocks, each a float64 copy (callers may write), advancing ``bar`` by
    their rows once they are done."""
    n = distances.shape[0]
    for a in range(0, n, ROWS_PER_BLOCK):
        rows = slice(a, min(n, a + ROWS_PER_BLOCK))
        yield rows, np.array(distances[rows], dtype=np.float64)
        if bar is not None:
            bar.update(rows.stop - rows.start)


@contextmanager
def row_progress(description, total, enabled, passes=1):
    """A progress bar over rows (with an ETA), for the per-row work it is passed to
    (``float64_row_blocks``: UMAP's memberships, t-SNE's perplexity calibration;
    ``symmetric_graph``: each pass of the symmetrisation) to advance chunk by chunk;
    None when not ``enabled``.

    Parameters
    ----------
    description : str
    total : int
        Rows the work under it will process, every pass counted.
    enabled : bool
    passes : int, default=1
        Passes over the rows ``total`` counts; named in the description when more than
        one, so that a count of 5 x n rows is not read as 5 x n rows of data.

    Returns
    -------
    context manager yielding the bar (tqdm) or None

    Examples
    --------
    >>> with row_progress("rows", 3, enabled=False) as bar:
    ...     out, blocks = float64_row_blocks(np.ones((3, 2)), bar)
    ...     len(list(blocks))
    1
    """
    if not enabled:
        yield None
        return
    from .._progress import progress_bar

    if passes > 1:
        description = f"{description} ({passes} passes over the rows)"
    with progress_bar(total=total, desc=description, unit="row", mininterval=0.5) as bar:
        yield bar
