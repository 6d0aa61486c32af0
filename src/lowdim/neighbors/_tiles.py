"""Pairs of dense rows within a Euclidean radius from cache-sized tiles of products:
DBSCAN's eps-neighbourhoods and the radius graph above the k-d tree's 16 columns."""

import numpy as np
import scipy.sparse as sp

from ..linalg import row_norms_sq

# columns up to which a k-d tree prunes Euclidean searches (radius pairs, DBSCAN, single
# linkage, exemplars); above, the tiles of products or passes over all pairs
KD_TREE_UP_TO = 16
TILE_ROWS, TILE_COLUMNS = 256, 2048  # a tile of Euclidean products (4 MiB): in the caches


class ProductTiles:
    """The pairs of dense rows within a Euclidean radius, from products of tiles.

    A GEMM of a tile of rows with ``[-2 y, |y|^2]`` of a tile of columns gives
    ``|y|^2 - 2 x.y``: the pair is within the radius where it is at most
    ``radius^2 - |x|^2``. No distance, square root or boolean matrix is formed beyond a
    tile of ``TILE_ROWS`` x ``TILE_COLUMNS`` (in the caches; a block of rows against every
    row would be tens of MB of fresh memory, whose pages the system zeroes on first
    touch). The rows are first moved to the row nearest their mean as the origin: the
    distances are the same, the expansion's rounding (relative to the squared norms)
    smaller, and rows on a grid stay on it (a distance of exactly the radius is within,
    as scikit-learn finds it). DBSCAN's neighbourhoods above 16 columns, and the radius
    graph's.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    radius : float
    superset : bool, default=False
        Widen the bound by the products' rounding error (Higham's ``gamma_{d+1}`` of the
        squared norms and radius), so that no pair within the radius is missed, whatever
        the rows' scale: candidates, a few a hair beyond, for a caller that measures each
        pair's distance (the radius graph, OPTICS). Without, a pair within a few units
        in the last place of the radius goes either way.

    Examples
    --------
    >>> import numpy as np
    >>> tiles = ProductTiles(np.array([[0.0, 0.0], [3.0, 4.0], [9.0, 9.0]]), 5.0)
    >>> [a.tolist() for a in next(tiles.listed(np.arange(3)))[1:]]
    [[0, 2, 4, 5], [0, 1, 0, 1, 2]]
    """

    def __init__(self, X, radius, superset=False):
        X = np.asarray(X, dtype=np.float64)
        X = X - X[np.argmin(row_norms_sq(X - X.mean(axis=0)))]
        self.n, self._sq, self._r2 = X.shape[0], row_norms_sq(X), float(radius) ** 2
        if superset:
            # the norms', products' and bound's rounding, and the move of the origin, are
            # each at most gamma_{d+1} (M^2 + r^2), M^2 the largest squared norm
            k = (X.shape[1] + 1) * np.finfo(np.float64).eps / 2
            self._r2 += 10.0 * k / (1.0 - k) * (self._sq.max(initial=0.0) + self._r2)
        self._rows = np.hstack([X, np.ones((self.n, 1))])
        self._products = np.ascontiguousarray(np.hstack([-2.0 * X, self._sq[:, None]]).T)

    def within(self, block, first, last):
        """``(local rows, columns)`` of the pairs within the radius of rows ``block`` and the
        columns ``first:last``, a tile at a time, row by row in column order (itself
        included where its column is there, whatever the rounding said)."""
        local, cols, bound = [], [], (self._r2 - self._sq[block])[:, None]
        for c in range(first, last, TILE_COLUMNS):
            tile = self._products[:, c : min(c + TILE_COLUMNS, last)]
            # numpy's GEMM: scipy's (linalg.matmul) runs these short, wide products slower
            near = self._rows[block] @ tile <= bound
            own = block - c
            mine = np.flatnonzero((own >= 0) & (own < tile.shape[1]))
            near[mine, own[mine]] = True
            r, j = np.divmod(np.flatnonzero(near), tile.shape[1])
            local.append(r.astype(np.uint16))
            cols.append(j + c)
        local, cols = np.concatenate(local), np.concatenate(cols)
        order = np.argsort(local, kind="stable")  # a radix sort of 16-bit rows: each row's columns in order
        return local[order], cols[order]

    def listed(self, ids):
        """Yield ``(block, indptr, indices)``: rows ``block`` of ``ids`` and their rows
        within the radius as CSR arrays, a tile of rows at a time, spread over the threads
        (a chunk of rows at once: their pairs in memory)."""
        from .._threads import blas_limit, cores, in_row_ranges

        def part(some):
            out = []
            with blas_limit(1):  # a tile per thread, each product on one
                for s in range(0, some.size, TILE_ROWS):
                    block = some[s : s + TILE_ROWS]
                    local, cols = self.within(block, 0, self.n)
                    out.append(
                        (block, np.concatenate([[0], np.cumsum(np.bincount(local, minlength=block.size))]), cols)
                    )
            return out

        chunk = 4 * TILE_ROWS * cores()
        for first in range(0, ids.size, chunk):
            some = ids[first : first + chunk]
            for done in in_row_ranges(
                "product_tiles", 0, some.size, lambda a, b, some=some: part(some[a:b]), min_size=TILE_ROWS
            ):
                yield from done

    def pairs(self, max_pairs=None):
        """The boolean CSR matrix of every row's rows within the radius (itself
        included): ``upper`` mirrored; None when the part on and above the diagonal holds
        more than ``max_pairs`` pairs.

        Examples
        --------
        >>> tiles = ProductTiles(np.array([[0.0], [1.0], [3.0]]), 1.0)
        >>> tiles.pairs().toarray().astype(int).tolist()
        [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
        """
        upper = self.upper(max_pairs)
        return None if upper is None else mirrored(*upper)

    def upper(self, max_pairs=None):
        """``(counts, cols)``: each row's rows within the radius from itself on (itself
        included), in row order, each row's ascending, from the products on and above the
        diagonal only (half the GEMM: the distances are symmetric); None when they hold
        more than ``max_pairs`` pairs.

        Examples
        --------
        >>> [a.tolist() for a in ProductTiles(np.array([[0.0], [1.0], [3.0]]), 1.0).upper()]
        [[2, 1, 1], [0, 1, 1, 2]]
        """
        from .._threads import blas_limit, in_row_ranges

        max_pairs = np.inf if max_pairs is None else max_pairs
        starts = np.arange(0, self.n, TILE_ROWS)
        found = [0]  # pairs so far, over the threads (an update lost to a race only delays the stop)

        def part(a, b):
            out = []
            with blas_limit(1):
                for start in starts[a:b]:
                    block = np.arange(start, min(start + TILE_ROWS, self.n))
                    local, cols = self.within(block, int(start), self.n)
                    upper = cols >= block[local]  # itself too: the diagonal is mirrored onto itself
                    out.append((np.bincount(local[upper], minlength=block.size), cols[upper]))
                    found[0] += int(upper.sum())
                    if found[0] > max_pairs:
                        return None
            return out

        pieces = in_row_ranges("product_tiles", 0, starts.size, part, per_thread=8)
        if any(p is None for p in pieces):
            return None
        counts = np.concatenate([c for p in pieces for c, _ in p])
        cols = np.concatenate([c for p in pieces for _, c in p] or [np.empty(0, np.int64)])
        return counts, cols


def mirrored(counts, cols):
    """The boolean CSR matrix of symmetric neighbourhoods whose part on and above the
    diagonal is given (``counts`` per row, ``cols`` in row order, each row's ascending):
    that part plus its transpose, by scipy's sparse sum (in compiled code; a pair on the
    diagonal, True twice, is True), each row's columns ascending.

    Examples
    --------
    >>> A = mirrored(np.array([3, 1, 1]), np.array([0, 1, 2, 1, 2]))
    >>> A.indptr.tolist(), A.indices.tolist()
    ([0, 3, 5, 7], [0, 1, 2, 0, 1, 0, 2])
    """
    n = counts.size
    small = max(n, cols.size) < np.iinfo(np.int32).max  # 32-bit indices: half the memory to sort through
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32 if small else np.int64)
    upper = sp.csr_matrix((np.ones(cols.size, dtype=bool), cols.astype(indptr.dtype), indptr), shape=(n, n))
    full = (upper + upper.T).tocsr()
    full.sort_indices()
    return full
