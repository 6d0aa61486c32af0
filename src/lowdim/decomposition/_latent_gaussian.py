"""EM for the linear Gaussian latent model ``x = W z + mean + e``, ``z ~ N(0, I)``,
``e ~ N(0, diag(psi))`` — factor analysis, and probabilistic PCA when ``psi`` is
isotropic.

Two engines share the model and its likelihood:

- complete data: EM on the sample covariance ``S`` (one pass over the data to build
  it; every iteration then costs O(d^2 k), independent of the number of rows);
- missing values (NaN): EM over the observed entries only, vectorised over rows
  (each row's posterior uses its own observed coordinates, so missing entries are
  marginalised, never imputed).

``W`` is stored as ``components`` of shape (k, d), as in scikit-learn.
"""

import numpy as np
import scipy.linalg

from .._iterative import run_loop

LOG_2PI = np.log(2 * np.pi)


# ---------------------------------------------------------------- complete data
def loglik_from_moments(S, W, psi):
    """Average log-likelihood per sample of data with covariance ``S`` (ddof = 0).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.eye(3); W = np.zeros((1, 3)); psi = np.ones(3)
    >>> bool(np.isclose(loglik_from_moments(S, W, psi), -1.5 * (np.log(2 * np.pi) + 1)))
    True
    """
    d = S.shape[0]
    Wp = W / psi  # (k, d): W Psi^-1
    M = np.eye(W.shape[0]) + Wp @ W.T
    chol = scipy.linalg.cho_factor(M)
    logdet = 2 * np.log(np.diag(chol[0])).sum() + np.log(psi).sum()
    B = Wp @ S  # (k, d)
    trace = np.sum(S.diagonal() / psi) - np.sum(scipy.linalg.cho_solve(chol, B) * Wp)
    return -0.5 * (d * LOG_2PI + logdet + trace)


def _em_map(S, isotropic):
    """The EM update (W, psi) -> (W', psi') on covariance S (Rubin & Thayer)."""
    floor = 1e-12 * max(S.diagonal().max(), 1e-300)

    def em(W, psi):
        k = W.shape[0]
        Wp = W / psi
        Minv = np.linalg.inv(np.eye(k) + Wp @ W.T)
        beta = Minv @ Wp  # (k, d): E[z | x] = beta (x - mean)
        SB = S @ beta.T  # (d, k)
        Ezz = Minv + beta @ SB  # (k, k): average E[z z^T]
        W_new = np.linalg.solve(Ezz, SB.T)  # (k, d)
        psi_new = S.diagonal() - np.sum(W_new * SB.T, axis=0)
        if isotropic:
            psi_new = np.full_like(psi_new, psi_new.mean())
        return W_new, np.maximum(psi_new, floor)

    return em, floor


def _squarem_step(S, isotropic):
    """One SQUAREM cycle (Varadhan & Roland, 2008) around the EM map: two EM steps,
    a squared extrapolation, one stabilising EM step; if the likelihood would drop,
    the plain second EM step is kept, so the likelihood never decreases."""
    em, floor = _em_map(S, isotropic)

    def step(state):
        W0, psi0, ll0 = state
        W1, psi1 = em(W0, psi0)
        W2, psi2 = em(W1, psi1)
        r = np.concatenate([(W1 - W0).ravel(), psi1 - psi0])
        v = np.concatenate([(W2 - W1).ravel(), psi2 - psi1]) - r
        best = (W2, psi2, loglik_from_moments(S, W2, psi2))
        vnorm = np.linalg.norm(v)
        if vnorm > 0:
            alpha = min(-np.linalg.norm(r) / vnorm, -1.0)
            theta = np.concatenate([W0.ravel(), psi0]) - 2 * alpha * r + alpha**2 * v
            W_x, psi_x = theta[: W0.size].reshape(W0.shape), theta[W0.size :]
            if np.all(psi_x > floor):
                W_x, psi_x = em(W_x, psi_x)
                ll_x = loglik_from_moments(S, W_x, psi_x)
                if np.isfinite(ll_x) and ll_x >= best[2]:
                    best = (W_x, psi_x, ll_x)
        change = abs(best[2] - ll0) if np.isfinite(ll0) else np.inf
        return best, -best[2], change

    return step


def em_from_moments(S, W, psi, *, isotropic, max_iter, tol, callbacks=(), verbose=0, label="EM"):
    """Run accelerated EM from initial ``W`` (k, d) and ``psi`` (d,) on covariance ``S``
    (ddof = 0). Each iteration is one SQUAREM cycle (three EM updates, O(d^2 k) each).

    Stops when the average log-likelihood per sample improves by less than ``tol``.

    Returns
    -------
    W, psi, loglik_history, n_iter, converged
    """
    state = (W, psi, loglik_from_moments(S, W, psi))
    result = run_loop(
        _squarem_step(S, isotropic),
        state,
        max_iter=max_iter,
        tol=tol,
        callbacks=callbacks,
        verbose=verbose,
        label=label,
    )
    W, psi, _ = result.state
    return W, psi, [-v for v in result.history], result.n_iter, result.converged


# ---------------------------------------------------------------- missing values
def _posteriors(X0, mask, mean, W, psi):
    """Per-row posterior precision M_i, mean E[z_i] and covariance M_i^-1 (observed entries)."""
    k = W.shape[0]
    Wp = W / psi  # (k, d)
    outer = (Wp[:, None, :] * W[None, :, :]).reshape(k * k, W.shape[1])  # (k^2, d): w_j w_j^T / psi_j
    M = np.eye(k)[None] + (mask @ outer.T).reshape(mask.shape[0], k, k)  # shapes given: k may be 0
    resid = (X0 - mean) * mask
    rhs = resid @ Wp.T  # (n, k)
    chol = np.linalg.cholesky(M)
    Ez = _chol_solve(chol, rhs)
    cov = _chol_solve_matrix(chol, k)
    return M, chol, Ez, cov, resid


def _chol_solve(L, b):
    y = np.linalg.solve(L, b[..., None])
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]


def _chol_solve_matrix(L, k):
    Linv = np.linalg.solve(L, np.broadcast_to(np.eye(k), L.shape))
    return np.swapaxes(Linv, -1, -2) @ Linv


def loglik_rows(X0, mask, mean, W, psi):
    """Log-likelihood of each row's observed entries (marginal over the missing ones).

    Parameters
    ----------
    X0 : ndarray (n, d)
        Data with missing entries replaced by anything finite.
    mask : ndarray (n, d)
        1.0 where observed, 0.0 where missing.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((1, 2)); m = np.ones((1, 2))
    >>> bool(float(loglik_rows(X, m, np.zeros(2), np.zeros((1, 2)), np.ones(2))[0]) == -np.log(2 * np.pi))
    True
    """
    _, chol, Ez, _, resid = _posteriors(X0, mask, mean, W, psi)
    n_obs = mask.sum(axis=1)
    logdet = 2 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1) + mask @ np.log(psi)
    with np.errstate(over="ignore"):  # a row off a noise variance of 0: log-likelihood -inf
        rhs = resid @ (W / psi).T
        quad = (resid**2 / psi).sum(axis=1) - np.einsum("ik,ik->i", rhs, Ez)
    return -0.5 * (n_obs * LOG_2PI + logdet + quad)


def _em_step_missing(X0, mask, isotropic):
    count = np.maximum(mask.sum(axis=0), 1.0)  # observed entries per feature
    sq = (X0**2 * mask).sum(axis=0)

    def step(state):
        W, mean, psi, previous = state
        k, d = W.shape
        _, _, Ez, cov, _ = _posteriors(X0, mask, mean, W, psi)
        # regress each feature's observed entries on [E z, 1] (W and mean together)
        Ez1 = np.hstack([Ez, np.ones((Ez.shape[0], 1))])
        second = Ez1[:, :, None] * Ez1[:, None, :]
        second[:, :k, :k] += cov
        A = (mask.T @ second.reshape(len(X0), -1)).reshape(d, k + 1, k + 1)
        b = (X0 * mask).T @ Ez1  # (d, k + 1)
        coef = np.linalg.solve(A + 1e-12 * np.eye(k + 1), b[..., None])[..., 0]
        psi_new = (sq - np.sum(coef * b, axis=1)) / count
        if isotropic:
            psi_new = np.full(d, (psi_new * count).sum() / count.sum())
        psi_new = np.maximum(psi_new, 1e-12 * max(sq.max() / count.max(), 1e-300))
        W_new, mean_new = coef[:, :k].T.copy(), coef[:, k].copy()
        ll = float(loglik_rows(X0, mask, mean_new, W_new, psi_new).mean())
        change = abs(ll - previous) if np.isfinite(previous) else np.inf
        return (W_new, mean_new, psi_new, ll), -ll, change

    return step


def em_missing(X0, mask, W, mean, psi, *, isotropic, max_iter, tol, callbacks=(), verbose=0, label="EM"):
    """EM on the observed entries of ``X0`` (``mask`` 1 = observed).

    Returns
    -------
    W, mean, psi, loglik_history, n_iter, converged
    """
    result = run_loop(
        _em_step_missing(X0, mask, isotropic),
        (W, mean, psi, -np.inf),
        max_iter=max_iter,
        tol=tol,
        callbacks=callbacks,
        verbose=verbose,
        label=label,
    )
    W, mean, psi, _ = result.state
    return W, mean, psi, [-v for v in result.history], result.n_iter, result.converged


def posterior_mean(X0, mask, mean, W, psi):
    """E[z | observed x] for each row.

    Examples
    --------
    >>> import numpy as np
    >>> posterior_mean(np.ones((1, 2)), np.ones((1, 2)), np.zeros(2), np.ones((1, 2)), np.ones(2))
    array([[0.66666667]])
    """
    return _posteriors(X0, mask, mean, W, psi)[2]
