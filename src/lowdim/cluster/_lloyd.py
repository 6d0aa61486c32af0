"""k-means iterations: Lloyd (a small GEMM per row chunk), Hamerly and Elkan bounds.

All three produce the same sequence of centres from the same start (up to rounding
at exact ties): they differ only in which point-centre distances they measure.
Convergence follows scikit-learn's rule, so results can be compared with it: stop
when no label changes, or when the summed squared centre shift is at most ``tol``.
"""

from dataclasses import dataclass

import numpy as np

from .._iterative import run_loop
from .._threads import blas_limit
from ..linalg import sq_euclidean


def _chunks(n):
    """Fixed reduction chunks for ``n`` rows (independent of the thread count)."""
    return max(1, min(32, n // 2048))


def _block_rows(n, k):
    return max(256, min(n, (8 << 20) // max(1, k)))


def assign(X, centers, x_sq):
    """Nearest centre of every row, by BLAS distances in row blocks.

    Returns labels (int64) and squared distances to the nearest centre (float64).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [9.0]])
    >>> assign(X, np.array([[0.0], [10.0]]), (X**2).ravel())[0]
    array([0, 0, 1])
    """
    n, k = X.shape[0], centers.shape[0]
    C = np.ascontiguousarray(centers, dtype=X.dtype)
    c_sq = np.einsum("ij,ij->i", centers, centers)
    labels = np.empty(n, dtype=np.int64)
    best = np.empty(n)
    step = _block_rows(n, k)
    for start in range(0, n, step):
        stop = min(n, start + step)
        rows = X if step >= n else X[start:stop]  # slicing sparse rows copies them
        _argmin_rows(sq_euclidean(rows, C, x_sq[start:stop], c_sq), labels[start:stop], best[start:stop])
    return labels, best


SMALL_ARGMIN = 1 << 18  # distances up to which numpy's argmin serves (no kernel to compile)


def _argmin_rows(D, labels, best):
    """The first nearest centre of each row of ``D`` and its distance, into ``labels``
    and ``best``: numpy's for small blocks, else the kernel over thread-split rows."""
    if D.size > SMALL_ARGMIN:
        from .._kernels.kmeans import argmin_rows

        argmin_rows(D, labels, best)
        return
    labels[:] = np.argmin(D, axis=1)
    best[:] = D[np.arange(D.shape[0]), labels]


def relocations(dist, labels, wsum, weights):
    """``(cluster, point)`` moves that give each empty cluster the point farthest from its
    own centre, taking a point only from a cluster that keeps some weight (so with fewer
    distinct points than clusters some stay empty). ``wsum`` is updated as points move.

    Examples
    --------
    >>> relocations(np.array([0.0, 3.0, 1.0]), np.array([0, 0, 0]), np.array([3.0, 0.0]), np.ones(3))
    [(1, 1)]
    """
    moves = []
    candidates = iter(np.argsort(-dist, kind="stable"))
    for c in np.flatnonzero(wsum <= 0):
        for i in candidates:
            old = labels[i]
            if wsum[old] - weights[i] > 0 and weights[i] > 0:
                wsum[old] -= weights[i]
                wsum[c] += weights[i]
                moves.append((int(c), int(i)))
                break
        else:
            break
    return moves


def relocate_empty(X, weights, state):
    """Apply ``relocations`` to a k-means state: each moved point leaves its old
    cluster's sums for its new (empty) cluster, and its bounds are reset. Returns the
    number of relocated clusters."""
    from .._kernels.kmeans import point_distances

    if np.all(state.wsum > 0):
        return 0
    dist = np.empty(X.shape[0])
    point_distances(X, state.centers, state.labels, dist)
    moves = relocations(dist, state.labels, state.wsum, weights)
    for c, i in moves:
        v = weights[i] * X[i].astype(np.float64)
        state.sums[state.labels[i]] -= v
        state.sums[c], state.labels[i] = v, c
        if state.upper is not None:  # its bounds no longer hold: measure it next time
            state.upper[i], state.lower[i] = np.inf, 0.0
    return len(moves)


@dataclass
class KMeansState:
    """What one k-means iteration hands to the next (and to callbacks): centres, the
    labels, and the weighted sums and weights of the labelled clusters (kept up to date
    by moving only the points that change cluster)."""

    centers: np.ndarray
    labels: np.ndarray
    sums: np.ndarray
    wsum: np.ndarray
    strict: bool = False
    upper: np.ndarray = None
    lower: np.ndarray = None
    shift: float = float("inf")  # the last update's summed squared centre shift


def _start_state(X, weights, centers, labels, upper=None, lower=None):
    from .._kernels.kmeans import cluster_sums

    sums, wsum = cluster_sums(X, labels, weights, centers.shape[0], _chunks(X.shape[0]))
    return KMeansState(centers, labels, sums, wsum, False, upper, lower)


def _means(state, X, weights):
    """Centres as the weighted means of the labelled clusters (empty ones relocated)."""
    relocate_empty(X, weights, state)
    new = state.centers.copy()
    full = state.wsum > 0
    new[full] = state.sums[full] / state.wsum[full, None]
    return new


def inertia_from_sums(state, weighted_sq):
    """Inertia of the labels with respect to their own means, from the sums alone."""
    norms = np.einsum("ij,ij->i", state.sums, state.sums)
    return weighted_sq - float(np.sum(np.divide(norms, state.wsum, out=np.zeros_like(norms), where=state.wsum > 0)))


def center_geometry(centers):
    """Centre-centre distances and half the distance of each centre to its nearest."""
    if centers.shape[0] <= 32:  # small: direct differences beat a BLAS call
        diff = centers[:, None, :] - centers[None, :, :]
        cd = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    else:
        cd = np.sqrt(sq_euclidean(centers, centers))
    np.fill_diagonal(cd, np.inf)
    half = 0.5 * cd.min(axis=1) if len(centers) > 1 else np.full(1, np.inf)
    np.fill_diagonal(cd, 0.0)
    return cd, half


CHUNK = 512  # rows per kernel work unit: one small GEMM each for the rows in doubt


def _search_pass(X, x_sq, centers, labels, upper, lower):
    """Assign every row to its nearest centre and set Hamerly's bounds (the start)."""
    from .._kernels.kmeans import hamerly_pass

    n, k = X.shape[0], centers.shape[0]
    moved, prev = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    n_moved = np.empty((n + CHUNK - 1) // CHUNK, dtype=np.int64)
    C = np.ascontiguousarray(centers, dtype=X.dtype)  # X's dtype, as the iterations pass them: one compiled variant
    hamerly_pass(
        X,
        x_sq,
        C,
        np.ascontiguousarray(C.T),
        np.einsum("ij,ij->i", centers, centers),
        np.zeros(k),
        np.zeros(k),
        labels,
        upper,
        lower,
        False,
        CHUNK,
        8 * np.finfo(X.dtype).eps,
        moved,
        prev,
        n_moved,
    )


def _search_step(X, weights, x_sq, weighted_sq, use_bounds):
    """Lloyd or Hamerly iterations: ``search_iteration`` computes the centres, assigns
    (over thread-split chunks), and moves the rows that changed cluster."""
    from .._kernels.kmeans import search_iteration

    n = X.shape[0]
    moved, prev = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    n_moved = np.empty((n + CHUNK - 1) // CHUNK, dtype=np.int64)
    rel_err = 8 * np.finfo(X.dtype).eps  # rounding of the GEMM distance expansion

    def step(state):
        assigned = None
        if not np.all(state.wsum > 0):
            assigned = state.labels.copy()
            relocate_empty(X, weights, state)
        new = np.empty_like(state.centers)
        count, shift_sq, explained = search_iteration(
            X,
            x_sq,
            weights,
            state.centers,
            state.sums,
            state.wsum,
            state.labels,
            state.upper,
            state.lower,
            use_bounds,
            CHUNK,
            rel_err,
            moved,
            prev,
            n_moved,
            new,
        )
        if assigned is not None:
            # moves counted against the last assignment, as scikit-learn: a point lent to an
            # empty cluster and taken back by its twin centre is no change
            count = int(np.count_nonzero(state.labels != assigned))
        state.centers, state.strict, state.shift = new, count == 0, float(shift_sq)
        return state, weighted_sq - explained, 0.0 if count == 0 else shift_sq

    return step


def _elkan_step(X, weights, weighted_sq):
    from .._kernels.kmeans import elkan_step, move_points

    def step(state):
        new = _means(state, X, weights)
        shift = np.sqrt(np.sum((new - state.centers) ** 2, axis=1))
        cd, half = center_geometry(new)
        labels = state.labels.copy()
        elkan_step(X, new, cd, half, shift, labels, state.upper, state.lower)
        moved = move_points(X, weights, state.labels, labels, state.sums, state.wsum)
        shift_sq = float(np.sum(shift**2))
        state = KMeansState(new, labels, state.sums, state.wsum, moved == 0, state.upper, state.lower, shift_sq)
        return state, inertia_from_sums(state, weighted_sq), 0.0 if moved == 0 else shift_sq

    return step


def bounded_start(X, weights, centers, x_sq, algorithm):
    n = X.shape[0]
    labels, upper = np.zeros(n, dtype=np.int64), np.empty(n)
    if algorithm != "elkan":
        lower = np.empty(n)
        _search_pass(X, x_sq, centers, labels, upper, lower)
        return _start_state(X, weights, centers, labels, upper, lower)
    lower = np.sqrt(sq_euclidean(X, centers.astype(X.dtype), x_sq)).astype(np.float64)
    _argmin_rows(lower, labels, upper)
    return _start_state(X, weights, centers, labels, upper, lower)


def kmeans_single(X, weights, centers, x_sq, *, algorithm, max_iter, tol, callbacks=(), verbose=0):
    """Run k-means from ``centers`` with 'lloyd', 'elkan' or 'hamerly' iterations.

    Parameters
    ----------
    X : ndarray (n, d), float32 or float64
    weights : float64 (n,)
    centres : float64 (k, d), the start
    x_sq : float64 (n,), squared row norms of ``X``
    algorithm : {'lloyd', 'elkan', 'hamerly'}
    max_iter : int
    tol : float
        Absolute tolerance on the summed squared centre shift.

    Returns
    -------
    LoopResult whose ``state`` is a KMeansState with labels assigned to its centres,
    whose ``objective`` is their inertia, and whose ``history`` holds the inertia of
    each iteration's labels about their own means (never increasing).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [9.0], [10.0]])
    >>> r = kmeans_single(X, np.ones(4), np.array([[0.0], [1.0]]), (X**2).ravel(),
    ...                   algorithm="lloyd", max_iter=10, tol=0.0)
    >>> r.state.centers.ravel().tolist(), r.objective
    ([0.5, 9.5], 1.0)
    """
    from .._kernels.kmeans import point_distances

    centers = np.asarray(centers, dtype=np.float64)
    with blas_limit(1):  # the kernels' small GEMMs run in parallel
        # inside the limit: a threaded BLAS call here (even this dot product) leaves
        # OpenBLAS threads spinning through the first iterations' parallel kernels
        weighted_sq = float(weights @ x_sq)
        if algorithm == "elkan":
            step = _elkan_step(X, weights, weighted_sq)
        else:
            step = _search_step(X, weights, x_sq, weighted_sq, use_bounds=algorithm == "hamerly")
        start = bounded_start(X, weights, centers, x_sq, algorithm)
        result = run_loop(
            step, start, max_iter=max_iter, tol=tol, callbacks=callbacks, verbose=verbose, label=f"KMeans ({algorithm})"
        )
    dist = np.empty(X.shape[0])
    point_distances(X, result.state.centers, result.state.labels, dist)
    result.objective = float(weights @ dist**2)  # exact inertia of the final labels
    return count_confirming_pass(result, max_iter, tol)


def count_confirming_pass(result, max_iter, tol):
    """Count, as scikit-learn's ``n_iter_``, the assignment pass that found no label
    changing when the centres had still moved by more than ``tol`` (scikit-learn stops
    on the shift first, and else one pass later, when the labels repeat)."""
    if result.converged and result.state.strict and result.state.shift > tol:
        result.n_iter = min(result.n_iter + 1, max_iter)
    return result
