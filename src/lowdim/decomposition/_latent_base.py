"""Shared estimator code of the linear Gaussian latent models (PPCA, factor analysis).

Subclasses set ``_isotropic`` and implement ``_fit_complete(S, mean, n, rng)`` for data
without NaN; the missing-value EM, the posterior transform, the likelihood,
``sample`` and the covariance methods live here once.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._estimator import ComponentTransformer, DensityScoreMixin
from .._iterative import callback_list
from .._params import validate_params
from .._random import check_random_state
from .._validation import check_n_components, warn_constant_features
from ..linalg import ScatterAccumulator, column_moments, flip_signs, matmul, subspace_iteration, top_eigh
from ._latent_gaussian import em_missing, loglik_rows, posterior_mean
from ._wide_covariance import WideCovariance


def principal_init(S, k, *, method="lapack", rng=None, n_iter=3):
    """Loadings and noise from the top-k eigenpairs of ``S`` (the PPCA solution), found
    by LAPACK ('lapack') or by randomized subspace iteration with ``n_iter`` power
    iterations ('randomized', from ``rng``)."""
    if isinstance(S, WideCovariance):
        w, V = S.top_eigh(k)
    elif method == "randomized" and k < S.shape[0]:
        size = min(S.shape[0], k + 10)
        w, V, _ = subspace_iteration(
            lambda B: matmul(S, B),
            S.shape[0],
            S.dtype,
            size,
            k,
            n_iter=max(n_iter, 1),
            rng=rng,
            tol=None,
            nystrom=False,
        )
    else:
        w, V = top_eigh(S, k)
    d = S.shape[0]
    noise = max((S.trace() - w.sum()) / max(d - k, 1), 1e-12 * max(S.trace() / d, 1e-300))
    W = (V * np.sqrt(np.maximum(w - noise, 0.0))).T
    return W, noise


def _covariance(X):
    """``(S, mean)`` of complete rows: the covariance built in one pass, or for a wide
    table (more columns than rows) the ``WideCovariance`` operator of the centred rows."""
    if X.shape[1] > X.shape[0]:
        mean = X.mean(axis=0, dtype=np.float64)
        return WideCovariance(X - mean), mean
    acc = ScatterAccumulator(X.shape[1])
    acc.update(X)
    return acc.covariance(ddof=0), acc.mean


class LatentGaussianMixin(DensityScoreMixin, ComponentTransformer):
    """Base of ``ProbabilisticPCA`` and ``FactorAnalysis`` (not public)."""

    _isotropic = False

    def fit(self, X, y=None):
        """Fit the model; NaN entries are treated as missing and marginalised by EM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            May contain NaN (missing values); infinity is an error.
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, allow_nan=True)
        n, d = X.shape
        k = d if self.n_components is None and not self._isotropic else self.n_components
        k = d - 1 if k is None else k
        check_n_components(k, n, d, type(self).__name__, below_features=self._isotropic)
        rng = check_random_state(getattr(self, "random_state", None))
        mask = ~np.isnan(X)
        if mask.all():
            S, mean = _covariance(X)
            warn_constant_features(S.diagonal(), self._shown_name)
            W, mean, psi, history, n_iter = self._fit_complete(S, mean, k, rng)
        else:
            W, mean, psi, history, n_iter = self._fit_missing(X, mask, k)
        self._store(W, mean, psi, [n * v for v in history], n_iter, X.dtype)  # totals, as scikit-learn
        return self

    def _fit_missing(self, X, mask, k):
        if getattr(self, "method", "em") == "closed_form":
            raise ValueError(
                f"X has {int((~mask).sum())} missing values; method='closed_form' needs "
                "complete data. Use method='auto' or 'em' to marginalise them."
            )
        empty = np.flatnonzero(mask.sum(axis=0) < 2)
        if empty.size:
            raise ValueError(
                f"feature(s) {', '.join(map(str, empty[:10]))} have fewer than 2 observed "
                "values; drop them or observe more rows."
            )
        X0 = np.where(mask, X, 0.0).astype(np.float64)
        m = mask.astype(np.float64)
        mean0 = X0.sum(axis=0) / m.sum(axis=0)
        filled = np.where(mask, X0, mean0)  # only the starting point of EM
        mean_f, var = column_moments(filled)
        warn_constant_features(var, self._shown_name, X=filled)
        S = np.cov(filled.T, ddof=0).reshape(X.shape[1], X.shape[1])
        W, noise = principal_init(S, k)
        psi = np.full(X.shape[1], noise) if self._isotropic else np.maximum(np.diag(S) - (W**2).sum(0), noise)
        W, mean, psi, history, n_iter, _ = em_missing(
            X0,
            m,
            W,
            mean_f,
            psi,
            isotropic=self._isotropic,
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose,
            label=f"{type(self).__name__} EM",
        )
        return W, mean, psi, history, n_iter

    def _store(self, W, mean, psi, history, n_iter, dtype):
        W = self._orient(W)
        self.components_ = W.astype(dtype)
        self.mean_ = mean.astype(dtype)
        self.noise_variance_ = psi.astype(dtype)
        self.loglike_ = [float(v) for v in history]
        self.n_iter_ = int(max(n_iter, 1))
        self.n_components_ = int(W.shape[0])

    def _orient(self, W):
        """Sign convention (largest-magnitude loading positive); subclasses may rotate."""
        return flip_signs(W)[0] if W.size else W

    # ------------------------------------------------------------------ using the model
    def _prepare(self, X):
        X = self._validate_input(X, reset=False, allow_nan=True)
        mask = ~np.isnan(X)
        return np.where(mask, X, 0.0).astype(np.float64), mask.astype(np.float64), X.dtype

    def _params64(self):
        return (
            self.mean_.astype(np.float64),
            self.components_.astype(np.float64),
            np.broadcast_to(self.noise_variance_, self.mean_.shape).astype(np.float64),
        )

    def transform(self, X):
        """Posterior mean of the latent factors, from each row's observed entries.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), NaN allowed

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X0, mask, dtype = self._prepare(X)
        mean, W, psi = self._params64()
        return posterior_mean(X0, mask, mean, W, psi).astype(dtype)

    def inverse_transform(self, X):
        """Map latent factors back to feature space: ``z W + mean``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        Z = self._validate_codes(X)
        return (Z @ self.components_ + self.mean_).astype(self.components_.dtype)

    def score_samples(self, X):
        """Log-likelihood of each sample (of its observed entries when NaN are present).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X0, mask, _ = self._prepare(X)
        mean, W, psi = self._params64()
        return loglik_rows(X0, mask, mean, W, psi)

    def get_covariance(self):
        """Model covariance ``W^T W + diag(noise)``.

        Returns
        -------
        ndarray of shape (n_features, n_features)
        """
        check_is_fitted(self)
        _, W, psi = self._params64()
        return W.T @ W + np.diag(psi)

    def get_precision(self):
        """Inverse of ``get_covariance`` (by the matrix inversion lemma).

        Returns
        -------
        ndarray of shape (n_features, n_features)
        """
        check_is_fitted(self)
        _, W, psi = self._params64()
        Wp = W / psi
        M = np.eye(W.shape[0]) + Wp @ W.T
        return np.diag(1.0 / psi) - Wp.T @ np.linalg.solve(M, Wp)

    def sample(self, n_samples=1, random_state=None):
        """Draw samples from the fitted model.

        Parameters
        ----------
        n_samples : int
        random_state : None, int or Generator

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        rng = check_random_state(random_state)
        mean, W, psi = self._params64()
        z = rng.standard_normal((n_samples, W.shape[0]))
        noise = rng.standard_normal((n_samples, W.shape[1])) * np.sqrt(psi)
        return (z @ W + mean + noise).astype(self.components_.dtype)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
