"""Gaussian mixture models fitted by EM, with missing values marginalised."""

import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import DensityScoreMixin, ValidatedInputMixin
from .._iterative import LoopResult, best_of_restarts, callback_list, run_loop
from .._memory import require_memory
from .._messages import listed
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    VERBOSE,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_at_most_samples, warn_constant_features
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning
from ..linalg import column_moments
from ._base import CLUSTER_NOTE, check_shown_centres
from ._gmm_em import GaussianParams, e_step, e_step_missing, m_step, statistics
from ._kmeans import KMeans
from ._kmeans_init import kmeans_plusplus
from ._lloyd import assign

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _one_hot(labels, k):
    resp = np.zeros((labels.size, k))
    resp[np.arange(labels.size), labels] = 1.0
    return resp


def initial_responsibilities(X, k, init_params, rng):
    """Starting responsibilities: k-means labels, k-means++ or random-row centres
    (nearest centre), or random values normalised per row.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> initial_responsibilities(X, 2, "kmeans", np.random.default_rng(0)).sum(axis=0).tolist()
    [2.0, 2.0]
    """
    if init_params == "random":
        resp = rng.uniform(size=(X.shape[0], k))
        return resp / resp.sum(axis=1, keepdims=True)
    if init_params == "kmeans":
        with warnings.catch_warnings():  # the mixture warns of its data itself, once, in its own name
            warnings.simplefilter("ignore")
            return _one_hot(KMeans(k, n_init=1, random_state=rng).fit(X).labels_, k)
    x_sq = np.einsum("ij,ij->i", X, X)
    if init_params == "k-means++":
        centers = kmeans_plusplus(X, k, rng, weights=np.ones(X.shape[0]), x_sq=x_sq)[0]
    else:  # random_from_data
        centers = X[rng.choice(X.shape[0], size=k, replace=False)]
    return _one_hot(assign(X, centers, x_sq)[0], k)


SWAMPED = 0.01  # reg_covar above this share of a feature's variance shapes the components along it


def warn_swamped_features(variances, reg_covar, estimator_name):
    """Warn when ``reg_covar`` (an absolute amount added to every covariance's diagonal)
    exceeds a hundredth of some non-constant feature's variance: along such features the
    components' covariances are the regulariser's (data in small units, 1e-4 and below,
    were put in one cluster without a word).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_swamped_features(np.array([1.0, 1e-8]), 1e-6, "GaussianMixture")
    >>> "columns 1" in str(w[0].message)
    True
    """
    variances = np.asarray(variances, dtype=np.float64)
    swamped = np.flatnonzero((variances > 0) & (variances * SWAMPED < reg_covar))
    if swamped.size == 0:
        return
    smallest = variances[swamped].min()
    warn_user(
        f"{estimator_name}: reg_covar={reg_covar:g} is more than 1 % of the variance of {swamped.size} of "
        f"{variances.size} feature(s) (columns {listed(swamped)}; the smallest variance {smallest:.2g}): along them "
        f"the regulariser, not the data, shapes the components. Standardise the features, or pass reg_covar <= "
        f"{smallest * SWAMPED:.2g}.",
        UserWarning,
    )


def invert_covariance_layout(matrices, covariance_type):
    """Inverse of each covariance (or precision) in scikit-learn's layout for the type:
    (k, d, d) 'full', (d, d) 'tied', (k, d) 'diag', (k,) 'spherical'. Turns
    ``precisions_init`` into covariances and covariances into ``precisions_``.

    Examples
    --------
    >>> invert_covariance_layout(np.array([2.0, 4.0]), "spherical").tolist()
    [0.5, 0.25]
    """
    M = np.asarray(matrices, dtype=np.float64)
    if covariance_type in ("diag", "spherical"):
        return 1.0 / M
    if covariance_type == "tied":
        return np.linalg.inv(M)
    return np.stack([np.linalg.inv(m) for m in M])


def precision_cholesky(covariances, covariance_type):
    """Factors ``U`` with ``precision = U U^T`` in scikit-learn's layout: upper triangular
    ``inv(L)^T`` from ``covariance = L L^T`` ('full', 'tied'), ``1 / sqrt`` of the
    variances ('diag', 'spherical').

    Examples
    --------
    >>> precision_cholesky(np.array([4.0, 0.25]), "spherical").tolist()
    [0.5, 2.0]
    """
    C = np.asarray(covariances, dtype=np.float64)
    if covariance_type in ("diag", "spherical"):
        return 1.0 / np.sqrt(C)

    def one(cov):
        L = np.linalg.cholesky(cov)
        return scipy.linalg.solve_triangular(L, np.eye(cov.shape[0]), lower=True).T

    return one(C) if covariance_type == "tied" else np.stack([one(c) for c in C])


def precision_from_cholesky(U, covariance_type):
    """``U U^T`` in the layout of ``covariance_type`` (the squares for 'diag' and
    'spherical').

    Examples
    --------
    >>> precision_from_cholesky(np.array([0.5, 2.0]), "spherical").tolist()
    [0.25, 4.0]
    """
    if covariance_type in ("diag", "spherical"):
        return U**2
    return U @ np.swapaxes(U, -1, -2)


class GaussianMixture(ValidatedInputMixin, DensityScoreMixin, DensityMixin, BaseEstimator):
    """Gaussian mixture fitted by EM, a drop-in for ``sklearn.mixture.GaussianMixture``.

    Densities are evaluated in log space and normalised with log-sum-exp. NaN entries
    are missing values: they are marginalised in the E-step (each row's density uses
    its observed features; the M-step uses the conditional expectations of the missing
    ones), in ``fit`` and in every scoring method; the initialisation alone fills them
    with column means.

    Parameters
    ----------
    n_components : int, default=1
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default='full'
    tol : float, default=1e-3
        Stop when the mean log-likelihood per sample changes by less than ``tol``.
    reg_covar : float, default=1e-6
        Added to every variance, in the data's units squared: above a hundredth of
        a feature's variance it shapes the components along that feature, and a
        warning names the features and a value that fits them. With 0, a component
        that collapses onto too few points raises an error suggesting a positive value.
    max_iter : int, default=100
        0 returns the initialisation (scored, with a ``ConvergenceWarning``).
    n_init : int, default=1
        Restarts; the one with the highest likelihood is kept.
    init_params : {'kmeans', 'k-means++', 'random', 'random_from_data'}, default='kmeans'
    weights_init, means_init, precisions_init : array-like, optional
        Given starting parameters (scikit-learn's layouts).
    random_state : None, int, RandomState or Generator
    warm_start : bool, default=False
        Start ``fit`` from the last fit's parameters (one run; ``n_init`` is ignored),
        e.g. to continue with more iterations or follow data that change slowly.
    verbose : int, default=0
        Print the EM objective every ``verbose_interval`` iterations.
    verbose_interval : int, default=10
    callbacks : list of callables, optional
        ``callback(iteration, -mean_log_likelihood, params) -> stop?``.

    Attributes
    ----------
    weights_, means_, covariances_, precisions_ : ndarray
    precisions_cholesky_ : ndarray
        ``U`` with ``precisions_ = U U^T`` (upper triangular for 'full' and 'tied';
        ``1 / sqrt(covariances_)`` for 'diag' and 'spherical'), as scikit-learn.
    converged_ : bool
    n_iter_ : int
    lower_bound_ : float
        Mean log-likelihood per sample at the last E-step.
    lower_bounds_ : list of float
        ``lower_bound_`` after each EM iteration of the kept run.
    n_features_in_ : int
        Number of features seen in ``fit``.
    offset_ : ndarray (n_features,)
        Column means the distances are computed about (``X - offset_``, for precision).
    offset_means_ : ndarray (n_components, n_features)
        ``means_`` in those coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import GaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(8, 1, (200, 2))])
    >>> gm = GaussianMixture(2, random_state=0).fit(X)
    >>> np.sort(gm.means_[:, 0]).round().astype(int).tolist()
    [0, 8]
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "covariance_type": [Options(set(COVARIANCE_TYPES))],
        "tol": [Interval(float, 0, None, closed="left")],
        "reg_covar": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 0, None, closed="left")],
        "n_init": [Interval(int, 1, None, closed="left")],
        "init_params": [Options({"kmeans", "k-means++", "random", "random_from_data"})],
        "weights_init": [NONE, ARRAY_LIKE],
        "means_init": [NONE, ARRAY_LIKE],
        "precisions_init": [NONE, ARRAY_LIKE],
        "random_state": [RANDOM_STATE],
        "verbose": VERBOSE,
        "verbose_interval": [Interval(int, 1, None, closed="left")],
        "warm_start": [BOOLEAN],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=1,
        *,
        covariance_type="full",
        tol=1e-3,
        reg_covar=1e-6,
        max_iter=100,
        n_init=1,
        init_params="kmeans",
        weights_init=None,
        means_init=None,
        precisions_init=None,
        random_state=None,
        warm_start=False,
        verbose=0,
        verbose_interval=10,
        callbacks=None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.precisions_init = precisions_init
        self.random_state = random_state
        self.verbose = verbose
        self.verbose_interval = verbose_interval
        self.warm_start = warm_start
        self.callbacks = callbacks

    # ----------------------------------------------------------------- fitting
    def _centered(self, X):
        """``X`` minus the fitted column offset (in X's dtype; float64 when it has NaN,
        for the missing-value algebra) and its NaN mask (or None)."""
        missing = np.isnan(X)
        if missing.any():
            return np.asarray(X, dtype=np.float64) - self.offset_, missing
        return np.subtract(X, self.offset_.astype(X.dtype), dtype=X.dtype), None

    def _expectation(self, Xc, missing, params):
        """Per-sample log-likelihoods, responsibilities and sufficient statistics."""
        if missing is None:
            resp, log_norm = e_step(Xc, params, self.reg_covar)
            return log_norm, resp, lambda: statistics(Xc, resp, self.covariance_type)
        log_norm, resp, stats = e_step_missing(Xc, missing, params, self.reg_covar)
        return log_norm, resp, lambda: stats

    def _initial_params(self, Xc, missing, rng):
        """Starting parameters: from initial responsibilities, with any given weights,
        means or precisions taking their place (no M-step when all three are given)."""
        k, d = self.n_components, Xc.shape[1]
        given = (self.weights_init, self.means_init, self.precisions_init)
        if any(v is None for v in given):
            filled = np.where(missing, 0.0, Xc) if missing is not None else Xc  # 0 = column mean
            resp = initial_responsibilities(filled, k, self.init_params, rng)
            params = m_step(*statistics(filled, resp, self.covariance_type), self.covariance_type, self.reg_covar)
        else:
            params = GaussianParams(None, None, None, self.covariance_type)
        if self.weights_init is not None:
            params.weights = _check_weights(self._given(self.weights_init, (k,), "weights_init", "weights"))
        if self.means_init is not None:
            params.means = self._given(self.means_init, (k, d), "means_init", "means") - self.offset_
        if self.precisions_init is not None:
            shape = {"full": (k, d, d), "tied": (d, d), "diag": (k, d), "spherical": (k,)}[self.covariance_type]
            name = f"{self.covariance_type} precision"
            precisions = _check_precisions(self._given(self.precisions_init, shape, "precisions_init", name), name)
            params.covariances = invert_covariance_layout(precisions, self.covariance_type)
        return params

    @staticmethod
    def _given(value, shape, name, reference_name=None):
        """An initial value of ``shape`` (scikit-learn's wording of the error kept: code
        may match it, with ``reference_name`` as scikit-learn calls the parameter)."""
        value = np.asarray(value, dtype=np.float64)
        if value.shape != shape:
            raise ValueError(
                f"The parameter '{reference_name or name}' should have the shape of {shape}, but got {value.shape}: "
                f"{name} must have one entry per component (n_components) and feature as given."
            )
        return value

    def _em(self, Xc, missing, params, previous=-np.inf):
        def step(state):
            params, previous = state
            log_norm, _, stats = self._expectation(Xc, missing, params)
            bound = float(np.mean(log_norm))
            new = m_step(*stats(), self.covariance_type, self.reg_covar)
            return (new, bound), -bound, abs(bound - previous)

        if self.max_iter == 0:  # the initialisation itself, scored (scikit-learn's way to inspect it)
            bound = float(np.mean(self._expectation(Xc, missing, params)[0]))
            return LoopResult(state=(params, bound), objective=-bound, n_iter=0, history=[])
        return run_loop(
            step,
            (params, previous),
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose_interval if self.verbose else 0,
            label="GaussianMixture EM",
            warn=False,  # once, for the run kept (fit)
        )

    def _warm_params(self, Xc):
        """The last fit's parameters, in the new data's centred coordinates (warm_start)."""
        if not (self.warm_start and "weights_" in self.__dict__):
            return None
        if (
            self.means_.shape != (self.n_components, Xc.shape[1])
            or self.covariances_.ndim != {"full": 3, "tied": 2, "diag": 2, "spherical": 1}[self.covariance_type]
        ):
            raise ValueError(
                f"warm_start continues the last fit, which had {self.means_.shape[0]} components on "
                f"{self.means_.shape[1]} features and covariance_type to match; refit without "
                "warm_start to change them."
            )
        return GaussianParams(
            self.weights_.astype(np.float64),
            self.means_.astype(np.float64) - self.offset_,
            self.covariances_.astype(np.float64),
            self.covariance_type,
        )

    def _check_covariance_memory(self, d):
        """Refuse, before any work, covariances that cannot fit: a 'full' model of 200,000
        features holds three (covariances, precisions, their Cholesky factors) of
        200,000 x 200,000 per component (numpy asked for 596 GiB)."""
        per = {"full": self.n_components * d * d, "tied": d * d}.get(self.covariance_type, 0)
        require_memory(
            3 * 8 * per,
            f"{type(self).__name__}(covariance_type={self.covariance_type!r}) of {self.n_components} components "
            f"on {d} features ({d} x {d} covariances)",
            "use covariance_type='diag' or 'spherical', or fewer features (PCA first)",
        )

    def fit(self, X, y=None):
        """Estimate the mixture parameters by EM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features); NaN marks missing values
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, allow_nan=True)
        check_at_most_samples(self.n_components, X.shape[0])
        self._check_covariance_memory(X.shape[1])
        with np.errstate(invalid="ignore"):
            empty = np.flatnonzero(np.all(np.isnan(X), axis=0))
        if empty.size:
            raise ValueError(f"X column {empty[0]} has no observed value; drop it.")
        mean = np.nanmean(X, axis=0, dtype=np.float64)
        self.offset_ = mean.astype(X.dtype).astype(np.float64)
        Xc, missing = self._centered(X)
        variances = np.nanvar(Xc, axis=0) if missing is not None else column_moments(Xc)[1]
        warn_constant_features(variances, "GaussianMixture", CLUSTER_NOTE, X=X)
        warn_swamped_features(variances, self.reg_covar, "GaussianMixture")
        rng = check_random_state(self.random_state)
        warm = self._warm_params(Xc)
        if warm is not None:  # one run from where the last fit ended (n_init ignored, as scikit-learn),
            # its change measured from the last fit's bound, so a run of max_iter=1 fits can converge
            best = self._em(Xc, missing, warm, previous=self.lower_bound_)
        else:
            best = best_of_restarts(
                lambda r: self._em(Xc, missing, self._initial_params(Xc, missing, r)), self.n_init, rng
            )
        params, bound = best.state
        self._store(params, X.dtype)
        self.lower_bound_, self.n_iter_, self.converged_ = bound, int(best.n_iter), bool(best.converged)
        self.lower_bounds_ = [-value for value in best.history]
        if self.max_iter == 0:
            warn_user(
                "GaussianMixture: max_iter=0 returns the initialisation without any EM step; raise max_iter to fit.",
                ConvergenceWarning,
            )
        else:
            self._warn_unconverged(best)
        return self

    def _warn_unconverged(self, best):
        """One warning for the run kept (not one per restart), in scikit-learn's words."""
        if not (best.converged or best.stopped):
            warn_user(
                "Best performing initialization did not converge. Try different init parameters, or increase "
                f"max_iter, tol, or check for degenerate data ({type(self).__name__}: max_iter={self.max_iter} "
                f"reached with the lower bound still changing by more than tol={self.tol:g}).",
                ConvergenceWarning,
            )

    def _covariance_shapes(self):
        """The shapes of the covariance arrays for ``covariance_type``, from ``means_``."""
        k, d = np.shape(self.means_)
        return {"full": (k, d, d), "tied": (d, d), "diag": (k, d), "spherical": (k,)}[self.covariance_type]

    def _check_loaded(self):
        """A loaded model's covariances must have the layout of its covariance_type, and
        its means as users read them must be those its predictions use."""
        check_shown_centres(self, "means_", "offset_means_")
        shape = self._covariance_shapes()
        for name in ("covariances_", "precisions_", "precisions_cholesky_"):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(
                    f"{name} has shape {np.shape(getattr(self, name))}; covariance_type="
                    f"{self.covariance_type!r} with means_ of shape {np.shape(self.means_)} needs {shape}"
                )

    def _store(self, params, dtype):
        self.weights_ = params.weights.astype(dtype)
        self.means_ = (params.means + self.offset_).astype(dtype)
        self.covariances_ = params.covariances.astype(dtype)
        U = precision_cholesky(params.covariances, self.covariance_type)  # one factorisation for both
        self.precisions_cholesky_ = U.astype(dtype)
        self.precisions_ = precision_from_cholesky(U, self.covariance_type).astype(dtype)
        self.offset_means_ = params.means

    def _params(self):
        return GaussianParams(
            self.weights_.astype(np.float64),
            self.offset_means_,
            self.covariances_.astype(np.float64),
            self.covariance_type,
        )

    # ----------------------------------------------------------------- using the model
    def _posterior(self, X):
        X = self._validate_input(X, reset=False, allow_nan=True)
        Xc, missing = self._centered(X)
        log_norm, resp, _ = self._expectation(Xc, missing, self._params())
        return X.dtype, log_norm, resp

    def score_samples(self, X):
        """Log-likelihood of each sample (of its observed features when it has NaN).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._posterior(X)[1]

    def predict_proba(self, X):
        """Posterior probability of each component for each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components), in X's dtype
        """
        dtype, _, resp = self._posterior(X)
        return resp.astype(dtype)

    def predict(self, X):
        """Most probable component of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        return np.argmax(self._posterior(X)[2], axis=1).astype(np.int64)

    def fit_predict(self, X, y=None):
        """Fit, then return the most probable component of each sample.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of int (n_samples,)
        """
        return self.fit(X).predict(X)

    def sample(self, n_samples=1):
        """Draw samples from the fitted mixture.

        Parameters
        ----------
        n_samples : int, default=1

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of int64, the component of each sample
        """
        check_is_fitted(self)
        if n_samples < 1:
            raise ValueError(f"Invalid value for 'n_samples': n_samples must be at least 1; got {n_samples}.")
        rng = check_random_state(self.random_state)
        params = self._params()
        counts = rng.multinomial(n_samples, params.weights / params.weights.sum())
        parts, labels = [], []
        for k, m in enumerate(counts):
            L = np.linalg.cholesky(params.full(k))
            parts.append(self.means_[k].astype(np.float64) + rng.standard_normal((m, L.shape[0])) @ L.T)
            labels.append(np.full(m, k, dtype=np.int64))
        return np.vstack(parts).astype(self.means_.dtype), np.concatenate(labels)

    def _n_parameters(self):
        k, d = self.means_.shape
        cov = {"full": k * d * (d + 1) / 2, "tied": d * (d + 1) / 2, "diag": k * d, "spherical": k}
        return int(cov[self.covariance_type] + k * d + k - 1)

    def bic(self, X):
        """Bayesian information criterion on ``X`` (lower is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        n = np.shape(X)[0]
        return -2 * self.score(X) * n + self._n_parameters() * np.log(n)

    def aic(self, X):
        """Akaike information criterion on ``X`` (lower is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        return -2 * self.score(X) * np.shape(X)[0] + 2 * self._n_parameters()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _check_weights(weights):
    """``weights_init``: in [0, 1] and summing to 1 (scikit-learn's sentences kept)."""
    if weights.min() < 0 or weights.max() > 1:
        raise ValueError(
            f"The parameter 'weights' should be in the range [0, 1], but got min value {weights.min():.5f}, "
            f"max value {weights.max():.5f}: weights_init are the components' shares of the data."
        )
    if not np.isclose(weights.sum(), 1.0):
        raise ValueError(
            f"The parameter 'weights' should be normalized, but got sum(weights) = {weights.sum():.5f}; "
            "pass weights_init / weights_init.sum()."
        )
    return weights


def _check_precisions(precisions, name):
    """``precisions_init``: positive (diag, spherical) or symmetric positive definite
    matrices (full, tied), one per component."""
    if precisions.ndim < 2 or (precisions.ndim == 2 and "tied" not in name):  # variances' inverses
        if np.any(precisions <= 0):
            raise ValueError(f"'{name}' should be positive: precisions_init has entries <= 0.")
        return precisions
    for matrix in precisions.reshape(-1, *precisions.shape[-2:]):
        if not np.allclose(matrix, matrix.T) or np.linalg.eigvalsh(matrix).min() <= 0:
            raise ValueError(
                f"'{name}' should be symmetric, positive-definite: precisions_init holds a matrix that is not."
            )
    return precisions
