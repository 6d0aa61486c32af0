"""Probabilistic PCA (Tipping & Bishop, 1999): closed form, EM, and EM with missing values."""

import numpy as np

from .._iterative import callback_list
from .._params import CALLBACKS, NONE, RANDOM_STATE, VERBOSE, Interval, Options
from ._latent_base import LatentGaussianMixin, principal_init
from ._latent_gaussian import em_from_moments, loglik_from_moments


class ProbabilisticPCA(LatentGaussianMixin):
    """Probabilistic PCA: ``x = W z + mean + e`` with isotropic noise ``e ~ N(0, s2 I)``.

    Complete data are fitted in closed form (maximum likelihood: the top eigenvectors
    of the covariance, noise = mean of the discarded eigenvalues) or by EM; data with
    NaN entries are fitted by EM over the observed entries only, so missing values are
    marginalised, not imputed.

    Parameters
    ----------
    n_components : int or None
        Latent dimension (default ``n_features - 1``); must be < n_features.
    method : {'auto', 'closed_form', 'em'}
        'auto': closed form for complete data, EM when NaN are present.
    max_iter : int
        EM iteration cap (``ConvergenceWarning`` when reached).
    tol : float
        EM stops when the average log-likelihood per sample improves by less than this.
    random_state : None, int, RandomState or Generator
        Initial loadings of EM on complete data.
    verbose : int or bool
        Print the EM objective every ``verbose`` iterations.
    callbacks : callable or list of callables, optional
        ``callback(iteration, negative log-likelihood, state) -> stop?`` after every EM
        iteration (``method='em'``, or rows with missing values; the closed form has none).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Loadings ``W`` (rows), scaled by ``sqrt(eigenvalue - noise)``; the
        largest-magnitude entry of each is positive.
    noise_variance_ : ndarray of shape (n_features,)
        The isotropic noise variance, repeated per feature.
    mean_ : ndarray of shape (n_features,)
    loglike_ : list of float
        Log-likelihood of the data (the sum over samples) after each EM iteration (one
        value for the closed form).
    n_iter_, n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import ProbabilisticPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 5)) + 0.1 * rng.normal(size=(200, 5))
    >>> X[::7, 3] = np.nan                       # missing entries are marginalised
    >>> ProbabilisticPCA(n_components=2).fit(X).transform(X).shape
    (200, 2)
    """

    _isotropic = True
    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "method": [Options({"auto", "closed_form", "em"})],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "verbose": VERBOSE,
        "callbacks": CALLBACKS,
    }

    def __init__(
        self, n_components=None, *, method="auto", max_iter=1000, tol=1e-8, random_state=None, verbose=0, callbacks=None
    ):
        self.n_components = n_components
        self.method = method
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    def _fit_complete(self, S, mean, k, rng):
        d = S.shape[0]
        if self.method != "em":
            W, noise = principal_init(S, k)
            psi = np.full(d, noise)
            return W, mean, psi, [loglik_from_moments(S, W, psi)], 1
        W0 = rng.standard_normal((k, d)) * np.sqrt(S.trace() / d / k)
        psi0 = np.full(d, S.trace() / d)
        W, psi, history, n_iter, _ = em_from_moments(
            S,
            W0,
            psi0,
            isotropic=True,
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose,
            label="ProbabilisticPCA EM",
        )
        W = _principal_axes(W, psi)
        return W, mean, psi, history, n_iter


def _principal_axes(W, psi):
    """EM's loadings are determined up to a rotation; rotate them onto orthogonal axes
    ordered by variance, as the closed form gives."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    return s[:, None] * Vt
