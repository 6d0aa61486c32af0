"""2-means of sparse rows with Hamerly's bounds, for the splits of bisecting k-means:
Lloyd's iterations (the same labels, up to rounding ties), in which the rows whose side
the bounds settle are not read and the halves' sums move by the rows that changed side.
After the first few iterations of a split most rows are settled, where Lloyd's step
reads every stored entry twice (labels, then sums)."""

import numpy as np
import scipy.sparse as sp

from .._iterative import run_loop
from .._threads import in_row_ranges
from ..linalg import group_row_sums
from ._lloyd import KMeansState, center_geometry, count_confirming_pass, inertia_from_sums
from ._products_lloyd import own_squared_distances

# stored entries from which a sparse split is iterated with bounds (a compile on a first
# call) rather than by Lloyd's library products, whose every step reads all entries twice
SPARSE_BOUNDS = 1 << 16
ROWS = 1024  # rows a thread takes at least
# a distance from the expansion |x|^2 - 2 x.c + |c|^2 in float64 is off by at most about
# this times (|x| + |c|): sqrt of the squared distance's rounding, which dominates near 0
SLACK = 4.0 * np.sqrt(np.finfo(np.float64).eps)


class EmptyHalf(Exception):
    """A half lost all its rows: Lloyd's relocation, which needs every row's distance,
    takes over (``products_kmeans`` from the same start)."""


def _measure(X, x_sq, x_norm, centers, shift, half, state):
    """One pass of the bounds over all rows; the rows that changed side, in row order."""
    from .._kernels.sparse_hamerly import two_means_rows

    c_sq = np.einsum("ij,ij->i", centers, centers)
    args = (X.indptr, X.indices, X.data, x_sq, x_norm, np.ascontiguousarray(centers.T), c_sq)
    args += (float(np.sqrt(c_sq.max())), shift, float(half), SLACK, state)
    parts = in_row_ranges("kmeans", 0, X.shape[0], lambda a, b: two_means_rows(*args, a, b), min_size=ROWS)
    moved = state[3]
    return np.concatenate([moved[lo : lo + count] for lo, count in parts])


def sparse_two_means(X, weights, centers, x_sq, *, max_iter, tol, verbose=0):
    """2-means of CSR rows from ``centers`` (float64, (2, d)) by Lloyd's iterations with
    Hamerly's bounds.

    Stops as ``products_kmeans``: no label changes, or the summed squared centre shift at
    most ``tol``. Raises ``EmptyHalf`` if a half empties (the caller runs Lloyd's).

    Returns
    -------
    LoopResult whose ``state`` is a ``KMeansState`` (centres, the labels they were
    assigned, the halves' sums and weights) and whose ``objective`` is the inertia of the
    final labels.

    Examples
    --------
    >>> X = sp.csr_matrix(np.array([[0.0], [1.0], [9.0], [10.0]]))
    >>> r = sparse_two_means(X, np.ones(4), np.array([[0.0], [1.0]]), np.array([0.0, 1.0, 81.0, 100.0]),
    ...                      max_iter=10, tol=0.0)
    >>> r.state.centers.ravel().tolist(), r.objective
    ([0.5, 9.5], 1.0)
    """
    from .._kernels.sparse_hamerly import move_rows

    X = sp.csr_matrix(X)
    n = X.shape[0]
    x_sq = np.asarray(x_sq, dtype=np.float64)
    x_norm = np.sqrt(x_sq)
    bounds = (np.zeros(n, dtype=np.int64), np.full(n, np.inf), np.zeros(n), np.empty(n, dtype=np.int64))
    centers = np.asarray(centers, dtype=np.float64)
    _measure(X, x_sq, x_norm, centers, np.zeros(2), 0.0, bounds)  # no bound holds: every row measured
    start = KMeansState(centers, bounds[0], *group_row_sums(X, bounds[0], 2, weights))
    weighted_sq = float(weights @ x_sq)

    def step(state):
        if not np.all(state.wsum > 0):
            raise EmptyHalf
        new = state.sums / state.wsum[:, None]
        shift = np.linalg.norm(new - state.centers, axis=1)
        moved = _measure(X, x_sq, x_norm, new, shift, center_geometry(new)[1][0], bounds)
        move_rows(X.indptr, X.indices, X.data, weights, bounds[0], moved, state.sums)
        wsum = np.bincount(bounds[0], weights=weights, minlength=2)  # exact: an emptied half is 0
        state = KMeansState(new, bounds[0], state.sums, wsum, moved.size == 0, shift=float(np.sum(shift**2)))
        return state, inertia_from_sums(state, weighted_sq), 0.0 if moved.size == 0 else state.shift

    result = run_loop(
        step, start, max_iter=max_iter, tol=tol, verbose=verbose, label="KMeans (2-means, Hamerly, sparse)"
    )
    result.objective = float(weights @ own_squared_distances(X, result.state.centers, result.state.labels, x_sq))
    return count_confirming_pass(result, max_iter, tol)
