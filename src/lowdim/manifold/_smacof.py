"""SMACOF stress majorisation (de Leeuw), metric and non-metric, with weights."""

import numpy as np

from .._iterative import run_loop
from ..linalg import sq_euclidean


def _distances(X):
    D = np.sqrt(sq_euclidean(X, X))
    np.fill_diagonal(D, 0.0)
    return D


def disparities(delta, d, weights, upper):
    """Kruskal's disparities for non-metric MDS: the isotonic regression of the
    embedding distances ``d`` on the order of the dissimilarities ``delta`` (over the
    pairs ``upper``), scaled so their weighted squares sum to the number of pairs."""
    from .._kernels.isotonic import pava

    # dissimilarities equal to rounding are ties (ordered by the embedding's distances)
    # whatever the data's scale: compared at 12 significant digits of the largest
    rank = np.round(delta[upper] / max(float(delta[upper].max(initial=0.0)), np.finfo(float).tiny), 12)
    order = np.lexsort((d[upper], rank))
    fitted = np.empty(order.size)
    fitted[order] = pava(d[upper][order], weights[upper][order])
    scale = np.sqrt(order.size / max(np.sum(weights[upper] * fitted**2), np.finfo(float).tiny))
    out = np.zeros_like(delta)
    out[upper] = fitted * scale
    return out + out.T


def smacof(delta, n_components, init, *, weights=None, metric=True, max_iter=300, eps=1e-6, callbacks=(), verbose=0):
    """Minimise stress by Guttman transforms from ``init``.

    Each step replaces X by ``V^+ B(X) X`` (``n^-1 B(X) X`` without weights), which
    never increases the stress; ``B(X) X`` and the stress come from one parallel pass
    over the pairs (no n x n matrix per iteration); non-metric MDS first refits the
    disparities by isotonic regression. Stops, as scikit-learn does, when the stress
    decrease falls below ``eps`` times the sum of squared embedding distances, or when
    the stress is below 1e-14 of the total (an exact fit).

    Parameters
    ----------
    delta : ndarray (n, n)
        Symmetric dissimilarities.
    n_components : int
    init : ndarray (n, n_components)
    weights : ndarray (n, n), optional
        Symmetric non-negative pair weights (zero: pair ignored).
    metric : bool
    max_iter : int
    eps : float
    callbacks : sequence of callables
        ``callback(iteration, stress, state) -> stop?``.
    verbose : int, default=0

    Returns
    -------
    LoopResult with ``state`` the embedding and ``objective`` the raw stress.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    >>> r = smacof(D, 2, X + 0.1 * np.arange(8.0).reshape(4, 2), max_iter=500, eps=1e-12)
    >>> r.objective < 1e-10
    True
    """
    from .._kernels.stress import guttman_pass

    n = delta.shape[0]
    W = np.ones((n, n)) if weights is None else np.asarray(weights, dtype=np.float64)
    np.fill_diagonal(W, 0.0)
    upper = np.triu_indices(n, 1)
    floor = 1e-14 * 0.5 * float(np.sum(W * delta**2))  # stress this small is an exact fit
    if weights is None:
        V_pinv = None
    else:
        V = -W.copy()
        np.fill_diagonal(V, W.sum(axis=1))
        V_pinv = np.linalg.pinv(V)

    W_kernel = np.zeros((0, 0)) if weights is None else W

    def step(state):
        X, previous = state
        D_hat = delta if metric else disparities(delta, _distances(X), W, upper)
        BX = np.empty_like(X)
        stress, squares = guttman_pass(X, D_hat, W_kernel, BX)  # of X, before the move
        X_new = BX / n if V_pinv is None else V_pinv @ BX
        # scikit-learn's rule: the stress decrease relative to the sum of squared distances
        change = (previous - stress) / max(squares, np.finfo(float).tiny) if np.isfinite(previous) else np.inf
        return (X_new, stress), stress, 0.0 if stress <= floor else abs(change)

    result = run_loop(
        step,
        (np.ascontiguousarray(init, dtype=np.float64), np.inf),
        max_iter=max_iter,
        tol=eps,
        callbacks=callbacks,
        verbose=verbose,
        label="SMACOF",
    )
    result.state = result.state[0]
    D_hat = delta if metric else disparities(delta, _distances(result.state), W, upper)
    result.objective = guttman_pass(result.state, D_hat, W_kernel, np.empty_like(result.state))[0]
    return result
