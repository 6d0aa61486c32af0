"""EM for Gaussian mixtures, as pure functions on a parameter record.

Covariance types share one M-step from the sufficient statistics (weights, weighted
sums, weighted second moments), so the missing-value E-step (which produces expected
statistics) feeds the same M-step as the complete-data one. Densities are computed
in log space and normalised with log-sum-exp.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.special import logsumexp

from ..linalg import matmul, symmetric_from_upper, syrk_upper

LOG_2PI = np.log(2 * np.pi)


class CollapsedComponentError(ValueError):
    """A component's covariance is not positive definite."""


@dataclass
class GaussianParams:
    """Mixture parameters: ``covariances`` has shape (k, d, d) 'full', (d, d) 'tied',
    (k, d) 'diag', (k,) 'spherical'."""

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    covariance_type: str

    def full(self, k):
        """Component ``k``'s covariance as a d x d matrix."""
        c, t = self.covariances, self.covariance_type
        if t == "full":
            return c[k]
        if t == "tied":
            return c
        if t == "diag":
            return np.diag(c[k])
        return np.eye(self.means.shape[1]) * c[k]


def _collapse(k, reg_covar):
    return CollapsedComponentError(
        "Fitting the mixture model failed because some components have ill-defined empirical covariance "
        "(for instance caused by singleton or collapsed samples). Try to decrease the number of components, "
        f"increase reg_covar, or scale the input data. Component {k} collapsed: its covariance is not positive "
        f"definite (too few or identical points in it); reg_covar is {reg_covar:g}."
    )


def _cholesky(S, k, reg_covar):
    try:
        return scipy.linalg.cholesky(S, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise _collapse(k, reg_covar) from None


def log_gaussians(X, params, reg_covar=0.0):
    """log N(x_i | mu_k, Sigma_k) for complete data, shape (n, k), float64. The large
    products run in X's dtype (float32 stays float32), the sums in float64.

    Examples
    --------
    >>> p = GaussianParams(np.ones(1), np.zeros((1, 1)), np.ones(1), "spherical")
    >>> round(float(log_gaussians(np.zeros((1, 1)), p)[0, 0]), 4)
    -0.9189
    """
    from .._kernels.mixture import diagonal_mahalanobis, squared_distance_column

    n, d = X.shape
    means, cov, t = params.means, params.covariances, params.covariance_type
    K = means.shape[0]
    if t in ("diag", "spherical"):
        var = cov if t == "diag" else np.repeat(cov[:, None], d, axis=1)
        if np.any(var <= 0):
            raise _collapse(int(np.argmin(var.min(axis=1))), reg_covar)
        maha = np.empty((n, K))
        diagonal_mahalanobis(X, means, 1.0 / var, maha)
        return -0.5 * (d * LOG_2PI + np.sum(np.log(var), axis=1) + maha)
    out = np.empty((n, K))
    logdets = np.empty(K)
    for k in range(K):
        L = _cholesky(params.full(k), k, reg_covar)
        W = scipy.linalg.solve_triangular(L, np.eye(d), lower=True, check_finite=False)
        Y = matmul(np.ascontiguousarray(X), np.ascontiguousarray(W.T, dtype=X.dtype))
        squared_distance_column(Y, W @ means[k], out, k)
        logdets[k] = 2 * np.sum(np.log(np.diag(L)))
    out += d * LOG_2PI + logdets
    out *= -0.5
    return out


def e_step(X, params, reg_covar):
    """Responsibilities and per-sample log-likelihoods (complete data)."""
    from .._kernels.mixture import log_normalize

    log_joint = log_gaussians(X, params, reg_covar) + np.log(params.weights)
    resp = np.empty_like(log_joint)
    return resp, log_normalize(log_joint, resp)


def statistics(X, resp, covariance_type):
    """Sufficient statistics: (N_k, sum r x, second moments) with second moments (k, d, d)
    for 'full'/'tied' and (k, d) diagonals for 'diag'/'spherical'.

    Second moments of 'full'/'tied' come from one SYRK per component on the weighted
    rows centred at that component's mean (in X's dtype: centring first keeps float32
    precise, where raw float32 moments lose the covariance to cancellation), returned
    as raw moments ``sum r x x^T`` in float64.
    """
    from .._kernels.mixture import weighted_centered, weighted_moments

    nk = resp.sum(axis=0) + 10 * np.finfo(np.float64).eps
    diagonal = covariance_type in ("diag", "spherical")
    s1, sq = weighted_moments(X, resp, max(1, min(32, X.shape[0] // 2048)), diagonal)
    if diagonal:
        return nk, s1, sq
    K, d = resp.shape[1], X.shape[1]
    s2 = np.empty((K, d, d))
    buffer = np.empty(X.shape, dtype=X.dtype)
    for k in range(K):
        mu = s1[k] / nk[k]
        weighted_centered(X, mu, np.ascontiguousarray(resp[:, k]), buffer)
        s2[k] = symmetric_from_upper(syrk_upper(buffer)) + nk[k] * np.outer(mu, mu)
    if covariance_type == "tied":
        return nk, s1, s2.sum(axis=0)[None]
    return nk, s1, s2


def m_step(nk, s1, s2, covariance_type, reg_covar):
    """Maximum-likelihood parameters from the sufficient statistics, ``reg_covar``
    added to every variance.

    Examples
    --------
    >>> X = np.array([[0.0], [2.0]])
    >>> p = m_step(*statistics(X, np.ones((2, 1)), "diag"), "diag", 0.0)
    >>> p.means.round(9).tolist(), p.covariances.round(9).tolist()
    ([[1.0]], [[1.0]])
    """
    n = nk.sum()
    means = s1 / nk[:, None]
    d = means.shape[1]
    if covariance_type in ("diag", "spherical"):
        second = s2 / nk[:, None]
        var = second - means**2
        # the difference of two sums over the component's points carries rounding of a few
        # hundred eps of the second moment (identical points give 10 eps): below 1e3 eps it is zero
        var = np.where(var > 1e3 * np.finfo(np.float64).eps * second, var, 0.0) + reg_covar
        cov = var if covariance_type == "diag" else var.mean(axis=1)
    elif covariance_type == "full":
        cov = s2 / nk[:, None, None] - np.einsum("ki,kj->kij", means, means)
        cov += reg_covar * np.eye(d)
    else:
        cov = (s2.sum(axis=0) - np.einsum("k,ki,kj->ij", nk, means, means)) / n + reg_covar * np.eye(d)
    return GaussianParams(nk / n, means, cov, covariance_type)


def _pattern_terms(Xg, obs, params, reg_covar):
    """For rows sharing one pattern of observed features ``obs``: log densities of the
    observed part (n_g, k), conditional means of every feature (k, n_g, d) and the
    conditional covariance of the missing block per component (k, d, d)."""
    n_g, d = Xg.shape
    K = params.means.shape[0]
    mis = ~obs
    logp = np.empty((n_g, K))
    filled = np.empty((K, n_g, d))
    cond = np.zeros((K, d, d))
    for k in range(K):
        S, mu = params.full(k), params.means[k]
        if not obs.any():  # nothing observed: likelihood 1, expectations = the component
            logp[:, k], filled[k], cond[k] = 0.0, mu, S
            continue
        L = _cholesky(S[np.ix_(obs, obs)], k, reg_covar)
        diff = Xg[:, obs] - mu[obs]
        Z = scipy.linalg.solve_triangular(L, diff.T, lower=True, check_finite=False)
        logp[:, k] = -0.5 * (obs.sum() * LOG_2PI + 2 * np.sum(np.log(np.diag(L))) + np.sum(Z * Z, axis=0))
        filled[k][:, obs] = Xg[:, obs]
        if mis.any():
            A = scipy.linalg.cho_solve((L, True), S[np.ix_(obs, mis)], check_finite=False).T
            filled[k][:, mis] = mu[mis] + diff @ A.T
            cond[k][np.ix_(mis, mis)] = S[np.ix_(mis, mis)] - A @ S[np.ix_(obs, mis)]
    return logp, filled, cond


def e_step_missing(X, missing, params, reg_covar):
    """EM with NaN entries marginalised: responsibilities from the densities of the
    observed features, and expected sufficient statistics (conditional means and
    covariances of the missing features) for the M-step.

    Returns (log-likelihood per row, responsibilities, (nk, s1, s2)) with s2 as
    ``statistics`` gives it.
    """
    n, d = X.shape
    K = params.means.shape[0]
    log_norm, resp_all = np.empty(n), np.empty((n, K))
    nk, s1, s2 = np.zeros(K), np.zeros((K, d)), np.zeros((K, d, d))
    patterns, inverse = np.unique(missing, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        rows = np.flatnonzero(inverse.ravel() == p)
        obs = ~pattern
        logp, filled, cond = _pattern_terms(X[rows], obs, params, reg_covar)
        log_joint = logp + np.log(params.weights)
        log_norm[rows] = logsumexp(log_joint, axis=1)
        resp = resp_all[rows] = np.exp(log_joint - log_norm[rows, None])
        r_sum = resp.sum(axis=0)
        nk += r_sum
        for k in range(K):
            s1[k] += resp[:, k] @ filled[k]
            s2[k] += (filled[k] * resp[:, k, None]).T @ filled[k] + r_sum[k] * cond[k]
    nk += 10 * np.finfo(np.float64).eps
    if params.covariance_type in ("diag", "spherical"):
        s2 = np.einsum("kii->ki", s2)
    elif params.covariance_type == "tied":
        s2 = s2.sum(axis=0)[None]
    return log_norm, resp_all, (nk, s1, s2)
