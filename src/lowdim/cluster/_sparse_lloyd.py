"""k-means on scipy.sparse rows: Lloyd iterations from sparse products, never
densifying the data (distances to the k centres in row blocks, centres as weighted
sums of the sparse rows)."""

import numpy as np
import scipy.sparse as sp

from .._iterative import run_loop
from ._lloyd import KMeansState, assign, count_confirming_pass, relocations


def cluster_row_sums(X, weights, labels, k):
    """Weighted sums (k, d) and weights (k,) of the sparse rows of each cluster.

    Examples
    --------
    >>> sums, w = cluster_row_sums(sp.csr_matrix(np.eye(3)), np.ones(3), np.array([0, 0, 1]), 2)
    >>> sums.tolist(), w.tolist()
    ([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [2.0, 1.0])
    """
    n = X.shape[0]
    member = sp.csr_matrix((weights, (labels, np.arange(n))), shape=(k, n))
    return np.asarray((member @ X).toarray(), dtype=np.float64), np.bincount(labels, weights=weights, minlength=k)


def _relocate_empty(weights, labels, dist, wsum):
    """Labels after ``relocations`` (the same object when no cluster is empty)."""
    moves = relocations(dist, labels, wsum, weights) if np.any(wsum <= 0) else []
    if not moves:
        return labels
    labels = labels.copy()
    for c, i in moves:
        labels[i] = c
    return labels


def sparse_kmeans(X, weights, centers, x_sq, *, max_iter, tol, callbacks=(), verbose=0):
    """Lloyd's k-means on sparse ``X`` from ``centers`` (float64, (k, d)).

    Stops when no label changes or the summed squared centre shift is at most ``tol``
    (scikit-learn's rule). Returns a ``LoopResult`` whose ``state`` is a
    ``KMeansState`` (centres, labels of those centres, sums, weights) and whose
    ``objective`` is the inertia of the final labels.

    Examples
    --------
    >>> X = sp.csr_matrix(np.array([[0.0], [1.0], [9.0], [10.0]]))
    >>> r = sparse_kmeans(X, np.ones(4), np.array([[0.0], [1.0]]), np.array([0.0, 1.0, 81.0, 100.0]),
    ...                   max_iter=10, tol=0.0)
    >>> r.state.centers.ravel().tolist(), r.objective
    ([0.5, 9.5], 1.0)
    """
    X = sp.csr_matrix(X)
    k = centers.shape[0]
    labels, dist = assign(X, centers, x_sq)
    start = KMeansState(np.asarray(centers, dtype=np.float64), labels, *cluster_row_sums(X, weights, labels, k))
    dist_of = [dist]  # distances of the current labels (the step updates them)

    def step(state):
        labels = _relocate_empty(weights, state.labels, dist_of[0], state.wsum.copy())
        # the state's sums are those of its labels: recomputed only when a relocation moved points
        sums, wsum = (state.sums, state.wsum) if labels is state.labels else cluster_row_sums(X, weights, labels, k)
        full = wsum > 0
        new = state.centers.copy()
        new[full] = sums[full] / wsum[full, None]
        shift = float(np.sum((new - state.centers) ** 2))
        new_labels, dist_of[0] = assign(X, new, x_sq)
        moved = int(np.count_nonzero(new_labels != labels))
        state = KMeansState(new, new_labels, *cluster_row_sums(X, weights, new_labels, k), moved == 0, shift=shift)
        return state, float(weights @ dist_of[0]), 0.0 if moved == 0 else shift

    result = run_loop(
        step, start, max_iter=max_iter, tol=tol, callbacks=callbacks, verbose=verbose, label="KMeans (sparse Lloyd)"
    )
    result.objective = float(weights @ dist_of[0])
    return count_confirming_pass(result, max_iter, tol)
