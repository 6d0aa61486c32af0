"""Bayesian Gaussian mixtures fitted by variational inference (``_variational``)."""

import numpy as np

from .._iterative import LoopResult, best_of_restarts, callback_list, run_loop
from .._params import ARRAY_LIKE, BOOLEAN, CALLBACKS, NONE, RANDOM_STATE, VERBOSE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_at_most_samples, warn_constant_features
from ..linalg import column_moments
from ._base import CLUSTER_NOTE
from ._gaussian_mixture import COVARIANCE_TYPES, GaussianMixture, initial_responsibilities, warn_swamped_features
from ._gmm_em import statistics
from ._variational import (
    Posterior,
    Priors,
    default_covariance_prior,
    expected_log_joint,
    lower_bound,
    update,
)


class BayesianGaussianMixture(GaussianMixture):
    """Gaussian mixture with priors, fitted by variational inference: a drop-in for
    ``sklearn.mixture.BayesianGaussianMixture``.

    The weights have a Dirichlet-process prior (stick-breaking, Blei & Jordan 2006) or a
    Dirichlet distribution, each component a Gaussian-Wishart prior on its mean and
    precision (Bishop 2006, section 10.2). With a small ``weight_concentration_prior``
    the posterior leaves components it does not need with weights near zero, so
    ``n_components`` is an upper bound and the data choose how many are used. The
    E-step and the sufficient statistics are ``GaussianMixture``'s kernels.

    Parameters
    ----------
    n_components : int, default=1
        The most components the model may use.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default='full'
    tol : float, default=1e-3
        Stop when the lower bound changes by less than ``tol``.
    reg_covar : float, default=1e-6
        Added to every variance of the components' sample covariances (warned of
        above a hundredth of a feature's variance, as ``GaussianMixture``).
    max_iter : int, default=100
    n_init : int, default=1
        Restarts; the one with the highest lower bound is kept.
    init_params : {'kmeans', 'k-means++', 'random', 'random_from_data'}, default='kmeans'
    weight_concentration_prior_type : {'dirichlet_process', 'dirichlet_distribution'}
    weight_concentration_prior : float or None
        ``alpha0`` (> 0); None: ``1 / n_components``. Smaller values leave more
        components empty.
    mean_precision_prior : float or None
        ``beta0`` (> 0); None: 1. Larger values pull the means towards ``mean_prior``.
    mean_prior : array-like of shape (n_features,) or None
        None: the mean of X.
    degrees_of_freedom_prior : float or None
        ``nu0`` (> n_features - 1); None: n_features.
    covariance_prior : float or array-like or None
        ``W0^-1`` in the covariance type's layout ((d, d), (d,) for 'diag', a float for
        'spherical'); None: the covariance of X.
    random_state : None, int, RandomState or Generator
    warm_start : bool, default=False
        Start from the last fit's posterior (one run; ``n_init`` is ignored).
    verbose : int, default=0
    verbose_interval : int, default=10
    callbacks : callable or list of callables, optional
        ``callback(iteration, negative lower bound, state) -> stop?`` after every iteration of
        each start.

    Attributes
    ----------
    weights_, means_, covariances_, precisions_, precisions_cholesky_ : ndarray
        The posterior means of the weights and the means, and the inverse of the
        expected precisions, in scikit-learn's layouts.
    weight_concentration_ : ndarray
        The posterior Dirichlet parameters (n_components,), or for the process the two
        rows of Beta parameters (2, n_components) (unpack as ``a, b``).
    weight_concentration_prior_, mean_precision_prior_, degrees_of_freedom_prior_ : float
    mean_prior_ : ndarray (n_features,)
    covariance_prior_ : float or ndarray
    mean_precision_ : ndarray (n_components,)
    degrees_of_freedom_ : ndarray (n_components,) or float ('tied')
    converged_ : bool
    n_iter_ : int
    lower_bound_ : float
        The evidence lower bound (up to a constant) of the kept run.
    lower_bounds_ : list of float
        The lower bound after each iteration of the kept run.
    n_features_in_ : int
    offset_ : ndarray (n_features,)
        Column means the densities are computed about.
    offset_means_ : ndarray (n_components, n_features)
        ``means_`` in those coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import BayesianGaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(8, 1, (200, 2))])
    >>> bgm = BayesianGaussianMixture(n_components=6, weight_concentration_prior=0.01,
    ...                               random_state=0).fit(X)
    >>> int((bgm.weights_ > 0.05).sum())
    2
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "covariance_type": [Options(set(COVARIANCE_TYPES))],
        "tol": [Interval(float, 0, None, closed="left")],
        "reg_covar": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 0, None, closed="left")],
        "n_init": [Interval(int, 1, None, closed="left")],
        "init_params": [Options({"kmeans", "k-means++", "random", "random_from_data"})],
        "weight_concentration_prior_type": [Options({"dirichlet_process", "dirichlet_distribution"})],
        "weight_concentration_prior": [NONE, Interval(float, 0, None, closed="neither")],
        "mean_precision_prior": [NONE, Interval(float, 0, None, closed="neither")],
        "mean_prior": [NONE, ARRAY_LIKE],
        "degrees_of_freedom_prior": [NONE, Interval(float, 0, None, closed="neither")],
        "covariance_prior": [NONE, ARRAY_LIKE, Interval(float, 0, None, closed="neither")],
        "random_state": [RANDOM_STATE],
        "warm_start": [BOOLEAN],
        "verbose": VERBOSE,
        "verbose_interval": [Interval(int, 1, None, closed="left")],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        *,
        n_components=1,
        covariance_type="full",
        tol=1e-3,
        reg_covar=1e-6,
        max_iter=100,
        n_init=1,
        init_params="kmeans",
        weight_concentration_prior_type="dirichlet_process",
        weight_concentration_prior=None,
        mean_precision_prior=None,
        mean_prior=None,
        degrees_of_freedom_prior=None,
        covariance_prior=None,
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
        self.weight_concentration_prior_type = weight_concentration_prior_type
        self.weight_concentration_prior = weight_concentration_prior
        self.mean_precision_prior = mean_precision_prior
        self.mean_prior = mean_prior
        self.degrees_of_freedom_prior = degrees_of_freedom_prior
        self.covariance_prior = covariance_prior
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.verbose_interval = verbose_interval
        self.callbacks = callbacks

    def _priors(self, Xc, data_mean):
        """The prior's parameters (defaults from the data), checked, in the centred
        coordinates."""
        d, t = Xc.shape[1], self.covariance_type
        if self.mean_prior is None:  # X's mean in float64, not the offset (rounded to X's type)
            mean = data_mean - self.offset_
        else:
            mean = self._given(self.mean_prior, (d,), "mean_prior") - self.offset_
        dof = float(d if self.degrees_of_freedom_prior is None else self.degrees_of_freedom_prior)
        if dof <= d - 1:
            raise ValueError(
                f"degrees_of_freedom_prior={dof:g} must be greater than n_features - 1 = {d - 1} (a Wishart "
                "prior needs it); leave it None for n_features."
            )
        if self.covariance_prior is None:
            covariance = default_covariance_prior(Xc, t)
        elif t == "spherical":
            covariance = float(self.covariance_prior)
        else:
            covariance = self._covariance_prior(d)
        return Priors(
            self.weight_concentration_prior_type,
            float(self.weight_concentration_prior or 1.0 / self.n_components),
            mean,
            float(self.mean_precision_prior or 1.0),
            dof,
            covariance,
        )

    def _covariance_prior(self, d):
        """A given covariance prior, checked: positive (definite) in the type's layout."""
        shape = (d,) if self.covariance_type == "diag" else (d, d)
        value = self._given(self.covariance_prior, shape, "covariance_prior")
        if self.covariance_type == "diag":
            ok = np.all(value > 0)
        else:
            ok = np.allclose(value, value.T) and np.all(np.linalg.eigvalsh(value) > 0)
        if not ok:
            kind = "positive" if self.covariance_type == "diag" else "symmetric positive definite"
            raise ValueError(f"covariance_prior must be {kind} for covariance_type={self.covariance_type!r}.")
        return value

    def _run(self, Xc, priors, posterior):
        """Variational EM from ``posterior``: E-step, M-step, bound, until it settles."""

        def step(state):
            posterior, previous = state
            log_resp = self._e_step(Xc, posterior)[2]
            stats = statistics(Xc, np.exp(log_resp), self.covariance_type)
            posterior = update(*stats, priors, self.covariance_type, self.reg_covar)
            bound = lower_bound(log_resp, posterior)
            return (posterior, bound), -bound, abs(bound - previous)

        if self.max_iter == 0:  # the start itself, scored (as GaussianMixture)
            bound = lower_bound(self._e_step(Xc, posterior)[2], posterior)
            return LoopResult(state=(posterior, bound), objective=-bound, n_iter=0, history=[])
        return run_loop(
            step,
            (posterior, -np.inf),
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose_interval if self.verbose else 0,
            label="BayesianGaussianMixture",
            warn=False,  # once, for the run kept (fit)
        )

    def _e_step(self, Xc, posterior):
        """Per-sample log normalisers, responsibilities and their logarithms."""
        from .._kernels.mixture import log_normalize

        log_joint = expected_log_joint(Xc, posterior, self.reg_covar)
        resp = np.empty_like(log_joint)
        log_norm = log_normalize(log_joint, resp)
        return log_norm, resp, log_joint - log_norm[:, None]

    def _start(self, Xc, priors, rng):
        """The posterior after one M-step from the initial responsibilities."""
        resp = initial_responsibilities(Xc, self.n_components, self.init_params, rng)
        return update(*statistics(Xc, resp, self.covariance_type), priors, self.covariance_type, self.reg_covar)

    def fit(self, X, y=None):
        """Fit the variational posterior.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        if self.covariance_prior is None and X.shape[0] < 2:
            raise ValueError(
                "BayesianGaussianMixture's default covariance_prior is the covariance of X, which needs at "
                f"least 2 samples; got {X.shape[0]} sample (n_samples = {X.shape[0]}). Pass more rows or a "
                "covariance_prior."
            )
        check_at_most_samples(self.n_components, X.shape[0])
        self._check_covariance_memory(X.shape[1])
        warm = self.warm_start and "weights_" in self.__dict__
        data_mean = np.mean(X, axis=0, dtype=np.float64)
        if not warm:
            self.offset_ = data_mean.astype(X.dtype).astype(np.float64)
        Xc, _ = self._centered(X)
        variances = column_moments(Xc)[1]
        warn_constant_features(variances, "BayesianGaussianMixture", CLUSTER_NOTE, X=X)
        warn_swamped_features(variances, self.reg_covar, "BayesianGaussianMixture")
        priors = self._priors(Xc, data_mean)
        if warm:  # one run from the last posterior (n_init ignored, as scikit-learn)
            self._warm_params(Xc)  # checks that the last fit's shapes match
            best = self._run(Xc, priors, self._posterior_state())
        else:
            rng = check_random_state(self.random_state)
            best = best_of_restarts(lambda r: self._run(Xc, priors, self._start(Xc, priors, r)), self.n_init, rng)
        posterior, bound = best.state
        self._store_posterior(posterior, priors, X.dtype)
        self.lower_bound_, self.n_iter_, self.converged_ = bound, int(best.n_iter), bool(best.converged)
        self.lower_bounds_ = [-value for value in best.history]
        if self.max_iter > 0:
            self._warn_unconverged(best)
        return self

    def _store_posterior(self, posterior, priors, dtype):
        self._store(posterior.gaussians, dtype)
        tied = self.covariance_type == "tied"
        c = posterior.concentration
        self.weight_concentration_ = np.asarray(np.vstack(c) if isinstance(c, tuple) else c, dtype=np.float64)
        self.mean_precision_ = posterior.mean_precision
        self.degrees_of_freedom_ = float(posterior.dof[0]) if tied else posterior.dof
        self.weight_concentration_prior_ = priors.concentration
        self.mean_prior_ = (priors.mean + self.offset_).astype(dtype)
        self.mean_precision_prior_ = priors.mean_precision
        self.degrees_of_freedom_prior_ = priors.dof
        self.covariance_prior_ = priors.covariance

    def _posterior_state(self):
        """The fitted posterior as ``_variational`` works on it (centred means)."""
        c = self.weight_concentration_
        process = self.weight_concentration_prior_type == "dirichlet_process"
        dof = np.broadcast_to(np.asarray(self.degrees_of_freedom_, dtype=np.float64), self.mean_precision_.shape)
        return Posterior((c[0], c[1]) if process else c, self.mean_precision_, np.array(dof), self._params())

    def _posterior(self, X):
        X = self._validate_input(X, reset=False)
        log_norm, resp, _ = self._e_step(self._centered(X)[0], self._posterior_state())
        return X.dtype, log_norm, resp

    def _check_loaded(self):
        """A loaded model's posterior arrays must have the layouts its parameters say."""
        super()._check_loaded()
        k = np.shape(self.means_)[0]
        process = self.weight_concentration_prior_type == "dirichlet_process"
        shapes = {
            "weight_concentration_": (2, k) if process else (k,),
            "mean_precision_": (k,),
            "degrees_of_freedom_": () if self.covariance_type == "tied" else (k,),
        }
        for name, shape in shapes.items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name} has shape {np.shape(getattr(self, name))}; this model needs {shape}")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
