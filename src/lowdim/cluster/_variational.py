"""Variational inference for Bayesian Gaussian mixtures, as pure functions.

The model (Bishop, 2006, section 10.2; Blei & Jordan, 2006, for the Dirichlet process):
weights from a Dirichlet distribution or a stick-breaking Dirichlet process, each
component's mean ``N(m0, (beta0 Lambda)^-1)`` and precision ``Wishart(W0, nu0)``. The
posterior factors are of the same families; the variational M-step sets them from the
sufficient statistics the EM M-step uses (``_gmm_em.statistics``), and the E-step needs
only expected log weights and expected log densities. Covariance layouts follow
scikit-learn's: (k, d, d) 'full', (d, d) 'tied', (k, d) 'diag', (k,) 'spherical', where
``covariances`` is the inverse of the expected precision, ``W^-1 / nu``.
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import betaln, digamma, gammaln

from ._gmm_em import GaussianParams, log_gaussians

_EPS = 10 * np.finfo(np.float64).eps


@dataclass
class Priors:
    """The prior's parameters: weight concentration, mean prior and its precision
    ``beta0``, Wishart degrees of freedom ``nu0`` and covariance prior ``W0^-1`` (in the
    covariance type's layout)."""

    weight_type: str
    concentration: float
    mean: np.ndarray
    mean_precision: float
    dof: float
    covariance: np.ndarray


@dataclass
class Posterior:
    """The variational factors: weight concentrations (one array for the Dirichlet
    distribution, the Beta pair for the process), each component's mean precision
    ``beta``, degrees of freedom ``nu`` and the Gaussian with the posterior means and
    the inverse expected precisions."""

    concentration: object
    mean_precision: np.ndarray
    dof: np.ndarray
    gaussians: GaussianParams


def default_covariance_prior(X, covariance_type):
    """The empirical covariance of X (unbiased) in the type's layout.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [2.0, 4.0]])
    >>> default_covariance_prior(X, "diag").tolist(), float(default_covariance_prior(X, "spherical"))
    ([2.0, 8.0], 5.0)
    """
    if covariance_type in ("full", "tied"):
        return np.atleast_2d(np.cov(X.T))
    var = np.var(X, axis=0, ddof=1)
    return var if covariance_type == "diag" else float(var.mean())


def gaussian_moments(nk, s1, s2, covariance_type, reg_covar):
    """Component means and covariances (``reg_covar`` added) from the statistics, in
    the type's layout; 'tied' pools the scatter of every component."""
    means = s1 / nk[:, None]
    d = means.shape[1]
    if covariance_type in ("diag", "spherical"):
        var = np.maximum(s2 / nk[:, None] - means**2, 0.0) + reg_covar
        return means, (var if covariance_type == "diag" else var.mean(axis=1))
    if covariance_type == "full":
        cov = s2 / nk[:, None, None] - np.einsum("ki,kj->kij", means, means)
        return means, cov + reg_covar * np.eye(d)
    scatter = s2.sum(axis=0) - np.einsum("k,ki,kj->ij", nk, means, means)
    return means, scatter / nk.sum() + reg_covar * np.eye(d)


def weight_concentration(nk, priors):
    """Posterior concentrations: ``alpha0 + N_k`` (Dirichlet distribution), or the Beta
    pairs ``(1 + N_k, alpha0 + sum_{j > k} N_j)`` of the stick-breaking process."""
    if priors.weight_type == "dirichlet_distribution":
        return priors.concentration + nk
    after = np.concatenate([np.cumsum(nk[::-1])[-2::-1], [0.0]])
    return 1.0 + nk, priors.concentration + after


def update(nk, s1, s2, priors, covariance_type, reg_covar):
    """The variational M-step: every posterior factor from the statistics.

    Examples
    --------
    >>> from lowdim.cluster._gmm_em import statistics
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> resp = np.repeat(np.eye(2), 2, axis=0)
    >>> priors = Priors("dirichlet_distribution", 0.5, np.array([5.5]), 1.0, 1.0, np.array([1.0]))
    >>> q = update(*statistics(X, resp, "diag"), priors, "diag", 0.0)
    >>> q.gaussians.means.round(3).tolist(), q.mean_precision.round(6).tolist()
    ([[2.167], [8.833]], [3.0, 3.0])
    """
    xbar, cov = gaussian_moments(nk, s1, s2, covariance_type, reg_covar)
    beta = priors.mean_precision + nk
    means = (priors.mean_precision * priors.mean + nk[:, None] * xbar) / beta[:, None]
    diff = xbar - priors.mean
    shrink = nk * priors.mean_precision / beta  # weight of the mean's shift towards the prior
    K = nk.size
    if covariance_type == "full":
        dof = priors.dof + nk
        scale = (
            priors.covariance + nk[:, None, None] * cov + shrink[:, None, None] * np.einsum("ki,kj->kij", diff, diff)
        )
        covariances = scale / dof[:, None, None]
    elif covariance_type == "tied":
        dof = np.full(K, priors.dof + nk.sum() / K)
        scale = priors.covariance + cov * nk.sum() / K + (shrink[:, None] * diff).T @ diff / K
        covariances = scale / dof[0]
    elif covariance_type == "diag":
        dof = priors.dof + nk
        covariances = (priors.covariance + nk[:, None] * cov + shrink[:, None] * diff**2) / dof[:, None]
    else:
        dof = priors.dof + nk
        covariances = (priors.covariance + nk * cov + shrink * np.mean(diff**2, axis=1)) / dof
    gaussians = GaussianParams(None, means, covariances, covariance_type)
    posterior = Posterior(weight_concentration(nk, priors), beta, dof, gaussians)
    gaussians.weights = expected_weights(posterior)
    return posterior


def expected_log_weights(posterior):
    """``E[log pi_k]`` under the posterior concentrations.

    Examples
    --------
    >>> q = Posterior(np.array([1.0, 1.0]), None, None, None)
    >>> expected_log_weights(q).round(4).tolist()
    [-1.0, -1.0]
    """
    c = posterior.concentration
    if isinstance(c, tuple):  # stick-breaking: E[log v_k] + sum_{j<k} E[log(1 - v_j)]
        a, b = c
        total = digamma(a + b)
        rest = digamma(b) - total
        return digamma(a) - total + np.concatenate([[0.0], np.cumsum(rest[:-1])])
    return digamma(c) - digamma(np.sum(c))


def expected_weights(posterior):
    """The weights' posterior means (normalised sticks for the process).

    Examples
    --------
    >>> expected_weights(Posterior(np.array([1.0, 3.0]), None, None, None)).tolist()
    [0.25, 0.75]
    """
    c = posterior.concentration
    if isinstance(c, tuple):
        a, b = c
        sticks = a / (a + b)
        w = sticks * np.concatenate([[1.0], np.cumprod(1.0 - sticks[:-1])])
        return w / w.sum()
    return c / np.sum(c)


def _log_det_scale(posterior):
    """``0.5 log |W_k|`` of each Wishart factor (W = (nu Sigma)^-1 for the stored
    Sigma), one value per component (repeated for 'tied')."""
    g, nu = posterior.gaussians, posterior.dof
    t, cov, d = g.covariance_type, g.covariances, g.means.shape[1]
    if t == "full":
        logdet = np.linalg.slogdet(cov)[1]
    elif t == "tied":
        logdet = np.full(nu.size, np.linalg.slogdet(cov)[1])
    elif t == "diag":
        logdet = np.sum(np.log(cov), axis=1)
    else:
        logdet = d * np.log(cov)
    return -0.5 * (logdet + d * np.log(nu))


def _digamma_sum(nu, d):
    """``sum_i psi((nu - i) / 2)`` for i = 0 .. d-1, per component."""
    return np.sum(digamma(0.5 * (nu[None, :] - np.arange(d)[:, None])), axis=0)


def expected_log_joint(X, posterior, reg_covar):
    """``E[log pi_k] + E[log N(x_i | mu_k, Lambda_k)]``, shape (n, k) (Bishop's 10.64-10.65:
    the Gaussian at the posterior mean with the expected precision, and the mean's and
    the precision's spread)."""
    d = X.shape[1]
    nu, beta = posterior.dof, posterior.mean_precision
    log_gauss = log_gaussians(X, posterior.gaussians, reg_covar)
    log_lambda = d * np.log(2.0) + _digamma_sum(nu, d)
    correction = -0.5 * d * np.log(nu) + 0.5 * (log_lambda - d / beta)
    return log_gauss + correction + expected_log_weights(posterior)


def lower_bound(log_resp, posterior):
    """The evidence lower bound up to a constant of the prior (as scikit-learn monitors
    it): the entropy of the responsibilities plus the log normalisers of the posterior
    factors (Wishart, Dirichlet or Beta, and the means' Gaussians)."""
    d = posterior.gaussians.means.shape[1]
    nu = posterior.dof
    log_det = _log_det_scale(posterior)
    log_wishart = (
        nu * log_det + 0.5 * nu * d * np.log(2.0) + np.sum(gammaln(0.5 * (nu[None, :] - np.arange(d)[:, None])), axis=0)
    )
    if posterior.gaussians.covariance_type == "tied":
        log_wishart = np.full(nu.size, log_wishart[0])
    c = posterior.concentration
    if isinstance(c, tuple):
        log_weights = float(np.sum(betaln(*c)))
    else:
        log_weights = float(np.sum(gammaln(c)) - gammaln(np.sum(c)))
    entropy = -float(np.sum(np.exp(log_resp) * log_resp))
    return (
        entropy + float(np.sum(log_wishart)) + log_weights - 0.5 * d * float(np.sum(np.log(posterior.mean_precision)))
    )
