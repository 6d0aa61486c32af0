"""Factor analysis by EM on the covariance, with missing values and rotations."""

import numpy as np

from .._iterative import callback_list
from .._params import ARRAY_LIKE, BOOLEAN, CALLBACKS, NONE, RANDOM_STATE, VERBOSE, Interval, Options
from ._latent_base import LatentGaussianMixin, principal_init
from ._latent_gaussian import em_from_moments
from ._rotation import orthomax


class FactorAnalysis(LatentGaussianMixin):
    """Factor analysis: ``x = W z + mean + e`` with per-feature noise ``e ~ N(0, diag(psi))``.

    A drop-in for ``sklearn.decomposition.FactorAnalysis`` (same names for
    ``n_components``, ``tol``, ``max_iter``, ``noise_variance_init``, ``rotation`` and
    the fitted attributes). Complete data: EM on the sample covariance, built in one
    pass, so each iteration costs O(d^2 k) whatever the number of rows. Data with NaN:
    EM over the observed entries only (missing values are marginalised).

    Parameters
    ----------
    n_components : int or None
        Number of factors (default ``n_features``); 0 is the model of independent
        features (noise only), as scikit-learn allows.
    tol : float, default=1e-8
        EM stops when the average log-likelihood per sample improves by less than
        this. scikit-learn's tol (default 1e-2) is on the total log-likelihood of the
        n samples, so its 1e-2 is 1e-2 / n here: lowdim's default is as tight or
        tighter for any n up to a million (and EM on the covariance costs the same
        per iteration whatever n).
    copy : bool
        Kept for compatibility; the input is never modified.
    max_iter : int
        EM iteration cap (``ConvergenceWarning`` when reached).
    noise_variance_init : array-like of shape (n_features,) or None
        Initial noise variances (default: from the principal-axes solution).
    svd_method : {'randomized', 'lapack'}, default='randomized'
        How the start's principal axes (the top eigenvectors of the covariance) are
        found: randomized subspace iteration or LAPACK. scikit-learn runs an SVD of
        the data in every iteration; lowdim's EM works on the covariance and needs
        no SVD, so this choice affects the start only (and so, slightly, which
        optimum EM reaches).
    iterated_power : int, default=3
        Power iterations of the randomized start.
    rotation : {None, 'varimax', 'quartimax'}
        Orthomax rotation of the fitted loadings.
    random_state : None, int, RandomState or Generator, default=0
        Seeds the randomized start.
    verbose : int or bool
    callbacks : callable or list of callables, optional
        ``callback(iteration, negative log-likelihood, state) -> stop?`` after every iteration.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Loadings (rows).
    noise_variance_ : ndarray of shape (n_features,)
    mean_ : ndarray of shape (n_features,)
    loglike_ : list of float
        Log-likelihood of the data (the sum over samples, as scikit-learn's) after
        each EM iteration; ``loglike_[-1]`` is ``score_samples(X).sum()``.
    rotation_matrix_ : ndarray of shape (n_components, n_components) or None
    n_iter_, n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import FactorAnalysis
    >>> rng = np.random.default_rng(0)
    >>> noise = rng.normal(size=(300, 6)) * [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> X = rng.normal(size=(300, 2)) @ rng.normal(size=(2, 6)) + noise
    >>> FactorAnalysis(n_components=2, rotation="varimax").fit(X).components_.shape
    (2, 6)
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 0, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "copy": [BOOLEAN],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "noise_variance_init": [NONE, ARRAY_LIKE],
        "rotation": [NONE, Options({"varimax", "quartimax"})],
        "verbose": VERBOSE,
        "svd_method": [Options({"lapack", "randomized"})],
        "iterated_power": [Interval(int, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=None,
        *,
        tol=1e-8,
        copy=True,
        max_iter=1000,
        noise_variance_init=None,
        svd_method="randomized",
        iterated_power=3,
        rotation=None,
        random_state=0,
        verbose=0,
        callbacks=None,
    ):
        self.n_components = n_components
        self.tol = tol
        self.copy = copy
        self.max_iter = max_iter
        self.noise_variance_init = noise_variance_init
        self.rotation = rotation
        self.verbose = verbose
        self.svd_method = svd_method
        self.iterated_power = iterated_power
        self.random_state = random_state
        self.callbacks = callbacks

    def _fit_complete(self, S, mean, k, rng):
        W, noise = principal_init(S, k, method=self.svd_method, rng=rng, n_iter=self.iterated_power)
        if self.noise_variance_init is None:
            psi = np.maximum(S.diagonal() - (W**2).sum(axis=0), noise)
        else:
            psi = np.asarray(self.noise_variance_init, dtype=np.float64)
            if psi.shape != (S.shape[0],) or np.any(psi <= 0):
                raise ValueError(f"noise_variance_init must hold {S.shape[0]} positive values; got shape {psi.shape}.")
        W, psi, history, n_iter, _ = em_from_moments(
            S,
            W,
            psi,
            isotropic=False,
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose,
            label="FactorAnalysis EM",
        )
        return W, mean, psi, history, n_iter

    def _orient(self, W):
        self.rotation_matrix_ = None
        if self.rotation is not None and W.shape[0] > 1:
            rotated, self.rotation_matrix_ = orthomax(W.T, self.rotation)
            W = rotated.T
        return super()._orient(W)
