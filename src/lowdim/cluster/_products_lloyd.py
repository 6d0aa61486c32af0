"""k-means from matrix products: Lloyd iterations whose distances to the k centres are
one product per row block and whose centres are weighted sums of rows (a sparse
membership matrix times the rows). Sparse rows never densified; dense rows of a small
fit (``SMALL_LLOYD``), where these library calls, compiled already, finish a fit
sooner than the bound kernels of ``_lloyd`` take to compile on a first call."""

import numpy as np
import scipy.sparse as sp

from .._iterative import run_loop
from ..linalg import group_row_sums, row_norms_sq
from ._lloyd import KMeansState, assign, count_confirming_pass, relocations

# work per iteration (rows x clusters x features) up to which dense k-means iterates by
# products: a fit there costs up to about 0.15 s more than with the warm bound kernels
# (which skip most distances), against seconds of their compilation on a first call and
# a few tenths of a second loading them in every new process (BENCHMARKS.md, Cold start)
SMALL_LLOYD = 1 << 23
# centres up to which sparse rows' products with their own centre come from a product with
# every centre (k multiply-adds per stored entry) rather than gathering each entry's own
OWN_BY_PRODUCT = 32
# stored entries x centres from which a step over sparse rows is the fused kernel's (one
# pass for the labels, one for the sums; a compile on a first call) instead of four
# library passes: the same labels, distances and sums
SPARSE_STEP = 1 << 22


def by_products(X, n_clusters, algorithm):
    """Whether a k-means of ``X`` iterates by products: sparse rows, or dense rows with
    ``n x k x d`` up to ``SMALL_LLOYD`` under Lloyd's iterations ('lloyd', or 'auto').

    Examples
    --------
    >>> by_products(np.zeros((100, 5)), 10, "auto"), by_products(np.zeros((100, 5)), 10, "elkan")
    (True, False)
    """
    return sp.issparse(X) or (X.size * n_clusters <= SMALL_LLOYD and algorithm in ("auto", "lloyd"))


def _relocate_empty(weights, labels, dist, wsum):
    """Labels after ``relocations`` (the same object when no cluster is empty)."""
    moves = relocations(dist, labels, wsum, weights) if np.any(wsum <= 0) else []
    if not moves:
        return labels
    labels = labels.copy()
    for c, i in moves:
        labels[i] = c
    return labels


def products_kmeans(X, weights, centers, x_sq, *, max_iter, tol, callbacks=(), verbose=0):
    """Lloyd's k-means on ``X`` (sparse, or dense: ``by_products``) from ``centers``
    (float64, (k, d)), in ``X``'s coordinates.

    Stops when no label changes or the summed squared centre shift is at most ``tol``
    (scikit-learn's rule). Returns a ``LoopResult`` whose ``state`` is a
    ``KMeansState`` (centres, labels of those centres, sums, weights) and whose
    ``objective`` is the inertia of the final labels.

    Examples
    --------
    >>> X = sp.csr_matrix(np.array([[0.0], [1.0], [9.0], [10.0]]))
    >>> r = products_kmeans(X, np.ones(4), np.array([[0.0], [1.0]]), np.array([0.0, 1.0, 81.0, 100.0]),
    ...                   max_iter=10, tol=0.0)
    >>> r.state.centers.ravel().tolist(), r.objective
    ([0.5, 9.5], 1.0)
    """
    X = sp.csr_matrix(X) if sp.issparse(X) else X
    k = centers.shape[0]
    labels, dist, *sums = _nearest_and_sums(X, np.asarray(centers, dtype=np.float64), x_sq, weights)
    start = KMeansState(np.asarray(centers, dtype=np.float64), labels, *sums)
    dist_of = [dist]  # distances of the current labels (the step updates them)

    def step(state):
        labels = _relocate_empty(weights, state.labels, dist_of[0], state.wsum.copy())
        # the state's sums are those of its labels: recomputed only when a relocation moved points
        sums, wsum = (state.sums, state.wsum) if labels is state.labels else group_row_sums(X, labels, k, weights)
        full = wsum > 0
        new = state.centers.copy()
        new[full] = sums[full] / wsum[full, None]
        shift = float(np.sum((new - state.centers) ** 2))
        new_labels, dist_of[0], *new_sums = _nearest_and_sums(X, new, x_sq, weights)
        # against the last assignment, as scikit-learn: a point lent to an empty cluster and
        # taken back (fewer distinct points than clusters) is no change
        moved = int(np.count_nonzero(new_labels != state.labels))
        state = KMeansState(new, new_labels, *new_sums, moved == 0, shift=shift)
        return state, float(weights @ dist_of[0]), 0.0 if moved == 0 else shift

    result = run_loop(
        step, start, max_iter=max_iter, tol=tol, callbacks=callbacks, verbose=verbose, label="KMeans (Lloyd, products)"
    )
    result.objective = float(weights @ own_squared_distances(X, result.state.centers, result.state.labels, x_sq))
    return count_confirming_pass(result, max_iter, tol)


def _nearest_and_sums(X, centers, x_sq, weights):
    """``(labels, squared distances, sums, weights)`` of the rows' nearest centres: the
    fused kernel for sparse rows of ``SPARSE_STEP`` entries x centres or more, else
    ``assign`` and ``group_row_sums`` (the same numbers)."""
    if sp.issparse(X) and X.nnz * centers.shape[0] >= SPARSE_STEP:
        from .._kernels.sparse_lloyd import lloyd_step

        return lloyd_step(X, centers, x_sq, weights)
    labels, dist = assign(X, centers, x_sq)
    return (labels, dist, *group_row_sums(X, labels, centers.shape[0], weights))


def own_squared_distances(X, centers, labels, x_sq=None):
    """Each row's squared distance to its own centre in float64: from its differences
    for dense rows (as the bound kernels measure it: float32 data lose no digits to the
    product expansion), from the expansion for sparse rows (which stay sparse; ``x_sq``,
    their squared norms if known).

    Examples
    --------
    >>> own_squared_distances(np.array([[0.0, 1.0], [3.0, 4.0]]), np.zeros((1, 2)), np.array([0, 0])).tolist()
    [1.0, 25.0]
    """
    if sp.issparse(X):  # no dense n x d copy of the centres: a product with each, or each entry's own
        X = sp.csr_matrix(X)
        n = X.shape[0]
        if centers.shape[0] <= OWN_BY_PRODUCT:
            cross = np.asarray(X @ centers.T, dtype=np.float64)[np.arange(n), labels]
        else:
            rows = np.repeat(np.arange(n), np.diff(X.indptr))
            own_entries = centers[labels[rows], X.indices]
            cross = np.bincount(rows, weights=X.data.astype(np.float64) * own_entries, minlength=n)
        c_sq = np.einsum("ij,ij->i", centers, centers)
        x_sq = row_norms_sq(X) if x_sq is None else x_sq
        return np.maximum(x_sq - 2 * cross + c_sq[labels], 0.0)
    diff = np.asarray(X, dtype=np.float64) - centers[labels]
    return np.einsum("ij,ij->i", diff, diff)
