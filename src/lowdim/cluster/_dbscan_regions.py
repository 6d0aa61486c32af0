"""DBSCAN's eps-neighbourhoods, handed out a block of rows at a time: listed by a k-d
tree for the rows each pass asks for, read from stored CSR arrays (sparse precomputed
distances), or from blocked distances, kept between passes while they are few. An eps
that puts every row within reach of every other then costs time, not n^2 memory."""

import numpy as np
import scipy.sparse as sp

from .._memory import require_memory
from ..linalg import distance_blocks
from ..neighbors import ProductTiles

# Neighbour pairs handled at a time (about 25 MiB of per-pair arrays): numpy's bincount
# and scipy's components do in compiled code what a first fit would otherwise compile
BLOCK_PAIRS = 1 << 20
STORE_PAIRS = 1 << 25  # blocked distances keep their pairs up to this many (256 MiB of int64)
NUMPY_PAIRS = 1 << 22  # a block of distances with more pairs within eps is listed by a kernel


def row_chunks(ids, counts, block_pairs=None):
    """``ids`` cut into runs whose rows hold about ``block_pairs`` pairs (default
    ``BLOCK_PAIRS``; ``counts`` per row) and one row at least.

    Examples
    --------
    >>> [c.tolist() for c in row_chunks(np.arange(4), np.array([3, 1, 1, 5]), block_pairs=4)]
    [[0, 1], [2], [3]]
    """
    block_pairs = BLOCK_PAIRS if block_pairs is None else block_pairs
    ends = np.cumsum(counts[ids])
    first = 0
    while first < ids.size:
        before = ends[first - 1] if first else 0
        stop = int(np.searchsorted(ends, before + block_pairs, side="right"))
        stop = min(ids.size, max(stop, first + 1))
        yield ids[first:stop]
        first = stop


def tree_neighbourhoods(X, eps, leaf_size, max_pairs=None, bytes_per_pair=8):
    """``(indptr, indices)``: each row's rows within ``eps`` (itself included) as CSR
    arrays, by the k-d tree; None when they would hold more than ``max_pairs`` pairs.
    The pairs are counted first, and refused if ``bytes_per_pair`` each exceed the memory."""
    regions = TreeNeighbourhoods(X, eps, leaf_size)
    total = int(regions.counts.sum())
    if max_pairs is not None and total > max_pairs:
        return None
    require_memory(bytes_per_pair * total, f"the {total:,} pairs within a distance of {eps:g}", "lower it")
    return regions.lists(np.arange(regions.n))


def _wanted(n, rows):
    return np.arange(n) if rows is None else np.flatnonzero(rows)


class StoredNeighbourhoods:
    """Neighbourhoods held as CSR arrays (``indptr``, ``indices``), or as a boolean CSR
    ``matrix`` with sorted rows."""

    def __init__(self, indptr=None, indices=None, matrix=None):
        if matrix is None:
            n = indptr.size - 1
            matrix = sp.csr_matrix((np.ones(indices.size, dtype=bool), indices, indptr), shape=(n, n))
        self.n, self._A = matrix.shape[0], matrix
        self.counts = np.diff(matrix.indptr).astype(np.int64)

    def blocks(self, rows=None):
        """Yield ``(ids, indptr, indices)``: rows ``ids`` (those ``rows`` marks, or all)
        and their neighbours as CSR arrays relative to the block."""
        for ids in row_chunks(_wanted(self.n, rows), self.counts):
            part = self._A[ids]
            yield ids, part.indptr.astype(np.int64), part.indices.astype(np.int64)


class TreeNeighbourhoods:
    """The Euclidean neighbourhoods of the rows of ``X`` within ``eps`` (itself
    included), counted for every row once and listed per block when a pass asks."""

    def __init__(self, X, eps, leaf_size):
        from .._kernels.kdtree import build_tree
        from .._kernels.radius import radius_counts

        self._tree = build_tree(X, leaf_size=leaf_size)
        self._queries = np.ascontiguousarray(X, dtype=np.float64)  # in the rows' own order
        self._r2 = float(eps) ** 2
        points, _, start, stop, low, high = self._tree
        self.n = X.shape[0]
        self.counts = radius_counts(points, start, stop, low, high, self._queries, self._r2)

    def blocks(self, rows=None):
        """As ``StoredNeighbourhoods.blocks``, each block's lists found when reached."""
        order = self._tree[1]
        # the rows in the tree's order: a block's queries then visit the same nodes
        wanted = order if rows is None else order[rows[order]]
        for ids in row_chunks(wanted, self.counts):
            yield ids, *self.lists(ids)

    def lists(self, ids):
        """CSR ``(indptr, indices)`` of the neighbourhoods of rows ``ids``, in their order."""
        from .._kernels.radius import radius_lists

        points, order, start, stop, low, high = self._tree
        indptr = np.concatenate([[0], np.cumsum(self.counts[ids])])
        found = np.empty(indptr[-1], dtype=np.int64)
        radius_lists(points, start, stop, low, high, self._queries[ids], self._r2, indptr, found, order)
        return indptr, found


class BlockedNeighbourhoods:
    """Neighbourhoods listed a block of rows at a time by ``listed(ids)``, an iterable of
    ``(block, indptr, indices)`` over ``ids`` (``distance_lists``, ``ProductTiles.listed``).
    The first pass counts them and keeps them while they number at most
    ``STORE_PAIRS``; beyond, each later pass lists its rows again."""

    def __init__(self, n, listed):
        self.n, self._listed = n, listed
        self.counts = np.zeros(n, dtype=np.int64)
        kept, stored = [], 0
        for ids, indptr, indices in listed(np.arange(n)):
            self.counts[ids] = np.diff(indptr)
            stored += indices.size
            if kept is not None and stored <= STORE_PAIRS:
                kept.append(indices)
            else:
                kept = None
        self._stored = None
        if kept is not None:
            indptr = np.concatenate([[0], np.cumsum(self.counts)])
            self._stored = StoredNeighbourhoods(indptr, np.concatenate(kept) if kept else np.empty(0, np.int64))

    def blocks(self, rows=None):
        """As ``StoredNeighbourhoods.blocks``."""
        if self._stored is not None:
            yield from self._stored.blocks(rows)
        else:
            yield from self._listed(_wanted(self.n, rows))


def distance_lists(distances, eps):
    """``listed(ids)`` from a block's distances to every row, ``distances(ids)`` (an
    iterable of ``(start, stop, D)`` over ``ids``, as ``distance_blocks`` gives): a pair
    is within ``eps`` (a NaN distance never), and each row its own neighbour."""

    def listed(ids):
        from numba import get_num_threads

        from .._kernels.radius import threshold_lists, threshold_lists_by_columns

        for start, stop, D in distances(ids):
            block, D = ids[start:stop], np.asarray(D)
            within = D <= eps
            if np.count_nonzero(within) + block.size <= NUMPY_PAIRS:  # numpy's nonzero: nothing to compile
                yield block, *_nonzero_lists(within, block)
            elif D.flags.f_contiguous and not D.flags.c_contiguous:  # read as it lies in memory
                yield block, *threshold_lists_by_columns(D, float(eps), block, 4 * get_num_threads())
            else:
                yield block, *threshold_lists(np.ascontiguousarray(D), float(eps), block)

    return listed


def _nonzero_lists(within, block):
    """CSR ``(indptr, indices)`` of a block's boolean rows, each row's own column set
    (itself, whatever the rounding said)."""
    within[np.arange(block.size), block] = True
    flat = np.flatnonzero(within)
    local, cols = np.divmod(flat, within.shape[1])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(local, minlength=block.size))])
    return indptr, cols.astype(np.int64)


def metric_neighbourhoods(X, eps, metric, params, pairwise=None):
    """``BlockedNeighbourhoods`` of the rows of ``X`` in ``metric`` (``pairwise`` gives
    a block's distances for sparse rows and Gower's); dense Euclidean rows by products."""
    if metric == "euclidean" and pairwise is None and not sp.issparse(X):
        tiles = ProductTiles(X, eps)
        pairs = tiles.pairs(STORE_PAIRS)
        return (
            StoredNeighbourhoods(matrix=pairs) if pairs is not None else BlockedNeighbourhoods(X.shape[0], tiles.listed)
        )

    def distances(ids):
        return distance_blocks(X, X, metric, rows=ids, metric_params=params, pairwise=pairwise)

    return BlockedNeighbourhoods(X.shape[0], distance_lists(distances, eps))


def precomputed_neighbourhoods(D, eps):
    """From distances: sparse, each row's candidate neighbours stored (kept as CSR), or
    dense (read a block of rows at a time)."""
    n = D.shape[0]
    if not sp.issparse(D):
        D = np.asarray(D)
        block = max(1, (64 << 20) // (8 * max(n, 1)))

        def rows_of(ids):
            return ((s, min(s + block, ids.size), D[ids[s : s + block]]) for s in range(0, ids.size, block))

        return BlockedNeighbourhoods(n, distance_lists(rows_of, eps))
    D = sp.csr_matrix(D)
    A = sp.csr_matrix((D.data <= eps, D.indices, D.indptr), shape=D.shape)
    A = A + sp.identity(n, dtype=bool, format="csr")
    A.eliminate_zeros()
    return StoredNeighbourhoods(A.indptr.astype(np.int64), A.indices.astype(np.int64))
