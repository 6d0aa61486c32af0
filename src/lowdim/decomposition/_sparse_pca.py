"""Sparse PCA: components with few non-zero loadings, as dictionary learning on the
transposed, centred data (the sparse codes of the features are the loadings)."""

import numpy as np

from .._estimator import ComponentTransformer
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLABLE,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    VERBOSE,
    Interval,
    Options,
    validate_params,
)
from .._validation import check_n_components, warn_constant_features
from ..linalg import column_moments
from ._batched_lars import CodingBudget
from ._dictionary_learning import DictionaryLearning, MiniBatchDictionaryLearning, learn_dictionary, warn_nothing_coded
from ._factorization_updates import ridge_update_h

_SHARED = {
    "n_components": [NONE, Interval(int, 1, None, closed="left")],
    "alpha": [Interval(float, 0, None, closed="left")],
    "ridge_alpha": [Interval(float, 0, None, closed="left")],
    "max_iter": [Interval(int, 0, None, closed="left")],
    "tol": [Interval(float, 0, None, closed="left")],
    "method": [Options({"lars", "cd"})],
    "n_jobs": [NONE, Interval(int, None, None)],
    "verbose": VERBOSE,
    "random_state": [RANDOM_STATE],
    "callbacks": CALLBACKS,
}


class _SparsePCABase(ComponentTransformer):
    """Centring, the normalised components, and the ridge ``transform``."""

    def _prepare(self, X):
        X = self._validate_input(X, reset=True)
        warn_constant_features(column_moments(X)[1], self._shown_name, X=X)
        check_n_components(None, X.shape[0], X.shape[1], type(self).__name__)
        self.mean_ = np.mean(X, axis=0, dtype=np.float64)
        return X.dtype, np.asarray(X, dtype=np.float64) - self.mean_, int(self.n_components or X.shape[1])

    def _store(self, loadings, dtype):
        """Unit-norm components from the features' codes (k x d); zero rows stay zero."""
        norms = np.linalg.norm(loadings, axis=1)
        loadings = loadings / np.where(norms > 0, norms, 1.0)[:, None]
        self.components_ = loadings.astype(dtype)
        self.n_components_ = loadings.shape[0]
        self.mean_ = self.mean_.astype(dtype)

    def transform(self, X):
        """Scores by ridge regression on the components (they are not orthogonal, so a
        projection would double count): ``(X - mean) V^T (V V^T + ridge_alpha I)^-1``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False)
        Xc = np.asarray(X, dtype=np.float64) - self.mean_
        scores = ridge_update_h(Xc.T, self.components_.astype(np.float64).T, self.ridge_alpha).T
        return scores.astype(X.dtype if X.dtype == np.float32 else np.float64)

    def inverse_transform(self, X):
        """``scores V + mean``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        W = self._validate_codes(X)
        return (W @ self.components_ + self.mean_).astype(W.dtype)


class SparsePCA(_SparsePCABase):
    """Sparse principal components (Zou, Hastie & Tibshirani 2006; Mairal et al. 2009's
    dictionary learning on the transposed data): a drop-in for
    ``sklearn.decomposition.SparsePCA``.

    Each component is a direction with few non-zero loadings, so it reads as a handful
    of the original features. Minimises ``0.5 ||X^T - V^T U^T||^2 + alpha ||V||_1`` over
    loadings V and unit-norm columns of U (X centred); ``alpha`` trades sparsity against
    fit.

    Parameters
    ----------
    n_components : int or None
        None: n_features.
    alpha : float, default=1
        Sparsity of the loadings, in the data's units: at or above the largest centred
        column norm every loading is zero, and a fit that keeps none warns with that
        bound.
    ridge_alpha : float, default=0.01
        Ridge penalty of ``transform``.
    max_iter : int, default=1000
    tol : float, default=1e-8
    method : {'lars', 'cd'}, default='lars'
        The lasso solver: least-angle regression or coordinate descent.
    n_jobs : None
    U_init : ndarray of shape (n_samples, n_components), optional
    V_init : ndarray of shape (n_components, n_features), optional
    verbose : int or bool
    random_state : None, int, RandomState or Generator
    callbacks : callable or list of callables, optional
        ``callback(iteration, objective, state) -> stop?`` after every iteration of the
        dictionary learning on the transposed data (whose codes are the loadings).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Unit-norm sparse loadings.
    mean_ : ndarray of shape (n_features,)
    error_ : ndarray
        The objective after each iteration.
    n_components_, n_iter_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import SparsePCA
    >>> X = np.random.default_rng(0).normal(size=(100, 10))
    >>> spca = SparsePCA(n_components=3, alpha=2.0, random_state=0).fit(X)
    >>> spca.components_.shape, spca.transform(X).shape
    ((3, 10), (100, 3))
    """

    _parameter_constraints = {**_SHARED, "U_init": [NONE, ARRAY_LIKE], "V_init": [NONE, ARRAY_LIKE]}

    def __init__(
        self,
        n_components=None,
        *,
        alpha=1,
        ridge_alpha=0.01,
        max_iter=1000,
        tol=1e-8,
        method="lars",
        n_jobs=None,
        U_init=None,
        V_init=None,
        verbose=False,
        random_state=None,
        callbacks=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.ridge_alpha = ridge_alpha
        self.max_iter = max_iter
        self.tol = tol
        self.method = method
        self.n_jobs = n_jobs
        self.U_init = U_init
        self.V_init = V_init
        self.verbose = verbose
        self.random_state = random_state
        self.callbacks = callbacks

    def fit(self, X, y=None):
        """Find the sparse components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        dtype, Xc, k = self._prepare(X)
        learner = DictionaryLearning(
            k,
            alpha=self.alpha,
            max_iter=self.max_iter,
            tol=self.tol,
            fit_algorithm=self.method,
            code_init=None if self.V_init is None else np.asarray(self.V_init).T,
            dict_init=None if self.U_init is None else np.asarray(self.U_init).T,
            verbose=self.verbose,
            random_state=self.random_state,
            callbacks=self.callbacks,
        )
        loadings, _, errors = learn_dictionary(learner, Xc.T, k)
        warn_nothing_coded(loadings, self.alpha, Xc.T, "SparsePCA", "loading", "centred column")
        self.error_, self.n_iter_ = np.asarray(errors), learner.n_iter_
        self._store(loadings.T, dtype)
        return self


class MiniBatchSparsePCA(_SparsePCABase):
    """Sparse PCA by online dictionary learning over mini-batches of the features: a
    drop-in for ``sklearn.decomposition.MiniBatchSparsePCA``; faster than ``SparsePCA``
    for many features.

    Parameters
    ----------
    n_components : int or None
    alpha : float, default=1
    ridge_alpha : float, default=0.01
    max_iter : int, default=1000
        Passes over the features at most.
    callback : callable, optional
    batch_size : int, default=3
        Features per mini-batch.
    verbose : int or bool
    shuffle : bool, default=True
    n_jobs : None
    method : {'lars', 'cd'}, default='lars'
    random_state : None, int, RandomState or Generator
    tol : float, default=1e-3
    max_no_improvement : int or None, default=10
    callbacks : callable or list of callables, optional
        ``callback(iteration, objective, state) -> stop?`` after every iteration of the
        dictionary learning on the transposed data (whose codes are the loadings).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    mean_ : ndarray of shape (n_features,)
    n_components_, n_iter_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import MiniBatchSparsePCA
    >>> X = np.random.default_rng(0).normal(size=(100, 12))
    >>> MiniBatchSparsePCA(n_components=3, random_state=0).fit(X).components_.shape
    (3, 12)
    """

    _parameter_constraints = {
        **_SHARED,
        "callback": [NONE, CALLABLE],
        "batch_size": [Interval(int, 1, None, closed="left")],
        "shuffle": [BOOLEAN],
        "max_no_improvement": [NONE, Interval(int, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=None,
        *,
        alpha=1,
        ridge_alpha=0.01,
        max_iter=1000,
        callback=None,
        batch_size=3,
        verbose=False,
        shuffle=True,
        n_jobs=None,
        method="lars",
        random_state=None,
        tol=1e-3,
        max_no_improvement=10,
        callbacks=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.ridge_alpha = ridge_alpha
        self.max_iter = max_iter
        self.callback = callback
        self.batch_size = batch_size
        self.verbose = verbose
        self.shuffle = shuffle
        self.n_jobs = n_jobs
        self.method = method
        self.random_state = random_state
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.callbacks = callbacks

    def fit(self, X, y=None):
        """Find the sparse components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        dtype, Xc, k = self._prepare(X)
        if Xc.shape[1] < 2:
            raise ValueError(
                "MiniBatchSparsePCA learns from batches of features and needs at least 2; got "
                f"n_features = {Xc.shape[1]}. Use SparsePCA."
            )
        learner = MiniBatchDictionaryLearning(
            k,
            alpha=self.alpha,
            max_iter=self.max_iter,
            fit_algorithm=self.method,
            batch_size=self.batch_size,
            shuffle=self.shuffle,
            verbose=self.verbose,
            random_state=self.random_state,
            callback=self.callback,
            tol=self.tol,
            max_no_improvement=self.max_no_improvement,
            callbacks=self.callbacks,
        ).fit(Xc.T)
        D = np.asarray(learner.components_, dtype=np.float64)
        loadings = learner._encode(Xc.T, D, budget=CodingBudget())  # the features' codes with the fit algorithm
        warn_nothing_coded(loadings, self.alpha, Xc.T, "MiniBatchSparsePCA", "loading", "centred column")
        self.n_iter_ = learner.n_iter_
        self._store(loadings.T, dtype)
        return self
