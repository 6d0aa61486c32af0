"""Spectral clustering's labels by discretisation (Yu & Shi 2003, "Multiclass spectral
clustering"): the rotation of the spectral coordinates nearest to a partition."""

import numpy as np
import scipy.linalg


def discretize(maps, rng, max_iter=30, max_restarts=30, tol=1e-12):
    """Labels from spectral coordinates ``maps`` (n, k): rows scaled to unit length,
    then alternately the partition nearest to the rotated rows (each row to its largest
    column) and the rotation nearest to that partition (an orthogonal Procrustes
    problem, by SVD), until the objective ``2 (n - trace)`` stops falling.

    Parameters
    ----------
    maps : ndarray (n, k)
    rng : numpy Generator
        Chooses the first row of the starting rotation (and of any restart).
    max_iter, max_restarts : int
    tol : float
        Relative change of the objective below which the iterations stop.

    Returns
    -------
    ndarray of int64 (n,)

    Examples
    --------
    >>> import numpy as np
    >>> maps = np.repeat(np.eye(3), 4, axis=0) + 0.01
    >>> discretize(maps, np.random.default_rng(0)).reshape(3, 4)[:, 0].size
    3
    """
    n, k = maps.shape
    V = maps / np.maximum(np.linalg.norm(maps, axis=1, keepdims=True), np.finfo(float).tiny)
    best = None
    for _ in range(max_restarts):
        R = _start(V, rng)
        last = np.inf
        for _ in range(max_iter):
            labels = np.argmax(V @ R, axis=1)
            B = np.zeros((n, k))
            B[np.arange(n), labels] = 1.0
            try:
                U, S, Wt = scipy.linalg.svd(B.T @ V, lapack_driver="gesvd")
            except np.linalg.LinAlgError:
                break  # a degenerate partition: restart from another row
            objective = 2.0 * (n - S.sum())
            if abs(last - objective) <= tol * max(abs(objective), 1.0):
                break
            last = objective
            R = Wt.T @ U.T
        if best is None or last < best[0]:
            best = (last, labels)
        if np.unique(labels).size == k:  # every cluster used: done
            return labels.astype(np.int64)
    return best[1].astype(np.int64)


def _start(V, rng):
    """A rotation from k rows of V that are as far from orthogonal as possible to
    each other: a random first row, then each next the row least aligned with those
    already chosen."""
    n, k = V.shape
    R = np.zeros((k, k))
    R[:, 0] = V[rng.integers(n)]
    aligned = np.zeros(n)
    for j in range(1, k):
        aligned += np.abs(V @ R[:, j - 1])
        R[:, j] = V[int(np.argmin(aligned))]
    return R
