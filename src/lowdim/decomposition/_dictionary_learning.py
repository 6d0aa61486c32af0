"""Dictionary learning, batch and online: sparse codes and a dictionary of unit-norm
atoms with ``X ~ code D``, alternating the sparse coding (``_sparse_coding``) and block
coordinate descent on the atoms (``_dictionary_updates``)."""

import numpy as np

from .._estimator import ComponentTransformer
from .._iterative import STOP, SmoothedObjective, callback_list, run_loop
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
from .._random import check_random_state
from .._validation import check_n_components, warn_constant_features
from .._warnings import warn_user
from ..linalg import column_moments
from ._batched_lars import CodingBudget
from ._dictionary_updates import objective, svd_start, update_atoms
from ._sparse_coding import ALGORITHMS, SparseCodingTransform, encode_from_products

FIT_ALGORITHMS = {"lars": "lasso_lars", "cd": "lasso_cd"}
_SHARED = {
    "n_components": [NONE, Interval(int, 1, None, closed="left")],
    "alpha": [Interval(float, 0, None, closed="left")],
    "fit_algorithm": [Options(set(FIT_ALGORITHMS))],
    "n_jobs": [NONE, Interval(int, None, None)],
    "dict_init": [NONE, ARRAY_LIKE],
    "callback": [NONE, CALLABLE],
    "verbose": VERBOSE,
    "transform_algorithm": [Options(set(ALGORITHMS))],
    "transform_n_nonzero_coefs": [NONE, Interval(int, 1, None, closed="left")],
    "transform_alpha": [NONE, Interval(float, 0, None, closed="left")],
    "split_sign": [BOOLEAN],
    "random_state": [RANDOM_STATE],
    "positive_code": [BOOLEAN],
    "positive_dict": [BOOLEAN],
    "transform_max_iter": [Interval(int, 0, None, closed="left")],
}


class _DictionaryLearner(SparseCodingTransform, ComponentTransformer):
    """What the batch and the online learner share: the learnt atoms, coding with the
    fit algorithm, and the transform parameters' defaults."""

    transform = SparseCodingTransform.transform  # defined in the class, so that set_output wraps it

    def _atoms(self):
        return self.components_

    def _transform_alpha(self):
        return self.alpha if self.transform_alpha is None else self.transform_alpha

    def _encode(self, X, D, init=None, budget=None):
        """Codes of X (float64) against D with the fit algorithm and ``alpha``: by numpy
        while ``budget`` (one ``fit``'s ``CodingBudget``) lasts, else by the numba kernel
        (``partial_fit``: a stream, whose path must not depend on the calls before it, as
        a saved model going on from a file has none)."""
        return encode_from_products(
            D @ D.T,
            X @ D.T,
            FIT_ALGORITHMS[self.fit_algorithm],
            self.alpha,
            1,
            self.positive_code,
            max_iter=1000,
            init=init,
            budget=budget or CodingBudget.closed(),
        )

    def _given_dictionary(self, k, d):
        D = np.array(self.dict_init, dtype=np.float64)
        if D.shape != (k, d):
            raise ValueError(f"dict_init has shape {D.shape}; expected (n_components, n_features) = {(k, d)}.")
        return D

    def _start_data(self, X):
        """Checked float64 rows and the number of atoms."""
        self._check_coding()
        X = self._validate_input(X, reset=True)
        warn_constant_features(column_moments(X)[1], self._shown_name, X=X)
        check_n_components(None, X.shape[0], X.shape[1], type(self).__name__)
        return X, int(self.n_components or X.shape[1])

    def _callback(self, iteration, cost, D, code):
        """scikit-learn's callback contract: called every five iterations with the state."""
        if self.callback is not None and iteration % 5 == 0:
            self.callback({"ii": iteration, "current_cost": cost, "dictionary": D, "code": code})


class DictionaryLearning(_DictionaryLearner):
    """Sparse dictionary learning (Mairal, Bach, Ponce & Sapiro 2009), batch: a drop-in
    for ``sklearn.decomposition.DictionaryLearning``.

    Minimises ``0.5 ||X - code D||^2 + alpha ||code||_1`` over codes and atoms of norm
    at most 1, alternating the lasso for all codes (least-angle regression or coordinate
    descent, parallel over rows) with one pass of block coordinate descent over the
    atoms. Starts from the SVD of X.

    Parameters
    ----------
    n_components : int or None
        Atoms (None: n_features).
    alpha : float, default=1
        Sparsity of the codes, in the data's units: at or above the largest row norm
        every code is zero, and a fit that codes nothing warns with that bound.
    max_iter : int, default=1000
    tol : float, default=1e-8
        Stop when the objective fell by less than ``tol`` times its value in one iteration.
    fit_algorithm : {'lars', 'cd'}, default='lars'
        The lasso solver of the fit: least-angle regression or coordinate descent.
    transform_algorithm : {'lasso_lars', 'lasso_cd', 'lars', 'omp', 'threshold'}, default='omp'
    transform_n_nonzero_coefs, transform_alpha, transform_max_iter, split_sign, positive_code
        As in ``SparseCoder`` (``transform_alpha`` defaults to ``alpha``).
    n_jobs : None
        Accepted for scikit-learn's signature; the kernels use numba's threads.
    code_init, dict_init : ndarray, optional
        Starting codes (n_samples, n_components) and atoms (n_components, n_features).
    callback : callable, optional
        Called every five iterations with a dict of the state (``ii``,
        ``current_cost``, ``dictionary``, ``code``).
    verbose : int or bool
    random_state : None, int, RandomState or Generator
        Replacement atoms for unused ones.
    positive_dict : bool, default=False
        Non-negative atoms.
    callbacks : callable or list of callables, optional
        ``callback(iteration, objective, state) -> stop?`` after every iteration.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The atoms.
    error_ : ndarray
        The objective after each iteration.
    n_iter_, n_components_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import DictionaryLearning
    >>> X = np.random.default_rng(0).normal(size=(60, 8))
    >>> model = DictionaryLearning(n_components=5, alpha=0.5, random_state=0).fit(X)
    >>> model.components_.shape, bool(np.all(np.linalg.norm(model.components_, axis=1) <= 1 + 1e-12))
    ((5, 8), True)
    """

    _parameter_constraints = {
        **_SHARED,
        "max_iter": [Interval(int, 0, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "code_init": [NONE, ARRAY_LIKE],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=None,
        *,
        alpha=1,
        max_iter=1000,
        tol=1e-8,
        fit_algorithm="lars",
        transform_algorithm="omp",
        transform_n_nonzero_coefs=None,
        transform_alpha=None,
        n_jobs=None,
        code_init=None,
        dict_init=None,
        callback=None,
        verbose=False,
        split_sign=False,
        random_state=None,
        positive_code=False,
        positive_dict=False,
        transform_max_iter=1000,
        callbacks=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.fit_algorithm = fit_algorithm
        self.transform_algorithm = transform_algorithm
        self.transform_n_nonzero_coefs = transform_n_nonzero_coefs
        self.transform_alpha = transform_alpha
        self.n_jobs = n_jobs
        self.code_init = code_init
        self.dict_init = dict_init
        self.callback = callback
        self.verbose = verbose
        self.split_sign = split_sign
        self.random_state = random_state
        self.positive_code = positive_code
        self.positive_dict = positive_dict
        self.callbacks = callbacks
        self.transform_max_iter = transform_max_iter

    def fit(self, X, y=None):
        """Learn the dictionary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Learn the dictionary and return the codes of the fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        validate_params(self)
        X, k = self._start_data(X)
        dtype = X.dtype
        X = np.asarray(X, dtype=np.float64)
        code, D, errors = learn_dictionary(self, X, k)
        warn_nothing_coded(code, self.alpha, X, "DictionaryLearning", "code")
        self.components_ = D.astype(dtype)
        self.error_ = np.asarray(errors)
        self.n_components_ = k
        return code.astype(dtype)

    def _start(self, X, k):
        code, D = svd_start(X, k)
        if self.code_init is not None:
            code = np.array(self.code_init, dtype=np.float64)
            if code.shape != (X.shape[0], k):
                raise ValueError(
                    f"code_init has shape {code.shape}; expected (n_samples, n_components) = {(X.shape[0], k)}."
                )
        if self.dict_init is not None:
            D = self._given_dictionary(k, X.shape[1])
        return code, D


def warn_nothing_coded(codes, alpha, X, name, coded, norm_of="row"):
    """Warn when the L1 penalty left every code zero: with unit-norm atoms a row ``x``
    gets a non-zero code only when ``alpha`` is below some ``|atom . x|``, at most
    ``||x||``, so data in small units (or a large ``alpha``) give a fit of nothing.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_nothing_coded(np.zeros((2, 1)), 1.0, np.full((2, 3), 0.1), "DictionaryLearning", "code")
    >>> "below 0.17" in str(w[0].message)
    True
    """
    if np.any(codes) or not np.any(X):  # all-zero data: the constant-feature warning said it
        return
    largest = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))
    warn_user(
        f"{name}: alpha={alpha:g} made every {coded} zero, so the fit learned nothing: a {coded} can be non-zero "
        f"only with alpha below {largest:.2g} (the largest {norm_of} norm, at this scale of the data). Standardise "
        "the features, or lower alpha.",
        UserWarning,
    )


def learn_dictionary(model, X, k):
    """The batch alternation of ``DictionaryLearning`` (``model`` holds its parameters):
    returns (codes, atoms, objective after each iteration) and sets ``model.n_iter_``."""
    rng = check_random_state(model.random_state)
    budget = CodingBudget()
    code, D = model._start(X, k)
    D = np.array(D, dtype=np.float64)
    errors = []

    def step(state):
        code, D = state
        code = model._encode(X, D, init=code, budget=budget)
        update_atoms(D, code.T @ code, code.T @ X, rng, X, model.positive_dict)
        cost = objective(X, code, D, model.alpha)
        errors.append(cost)
        model._callback(len(errors), cost, D, code)
        change = (errors[-2] - cost) / max(cost, 1e-300) if len(errors) > 1 else np.inf
        return (code, D), cost, change

    if model.max_iter == 0:
        model.n_iter_ = 0
        return code, D, errors
    result = run_loop(
        step,
        (code, D),
        max_iter=model.max_iter,
        tol=model.tol,
        callbacks=callback_list(model.callbacks),
        verbose=int(model.verbose),
        label="DictionaryLearning",
    )
    model.n_iter_ = result.n_iter
    code, D = result.state
    return code, D, errors


class MiniBatchDictionaryLearning(_DictionaryLearner):
    """Online dictionary learning (Mairal, Bach, Ponce & Sapiro 2009): a drop-in for
    ``sklearn.decomposition.MiniBatchDictionaryLearning``.

    Each mini-batch is coded against the current atoms, its statistics ``c^T c`` and
    ``c^T x`` are added to running sums (older batches weighted down as in the paper's
    schedule), and one pass of block coordinate descent updates the atoms from the sums.
    ``partial_fit`` streams batches that never sit in memory together.

    Parameters
    ----------
    n_components : int or None
    alpha : float, default=1
    max_iter : int, default=1000
        Passes over the data at most.
    fit_algorithm : {'lars', 'cd'}, default='lars'
    n_jobs : None
    batch_size : int, default=256
    shuffle : bool, default=True
        Shuffle the rows once before the passes.
    dict_init : ndarray of shape (n_components, n_features), optional
    transform_algorithm, transform_n_nonzero_coefs, transform_alpha, transform_max_iter, split_sign, positive_code
        As in ``SparseCoder`` (``transform_alpha`` defaults to ``alpha``).
    verbose : int or bool
    random_state : None, int, RandomState or Generator
    positive_dict : bool, default=False
    callback : callable, optional
        Called every five steps with a dict of the state.
    tol : float, default=1e-3
        Stop when a step moves the atoms by at most ``tol`` (Frobenius norm of the
        change over the number of atoms).
    max_no_improvement : int or None, default=10
        Stop after that many steps without a decrease of the smoothed batch objective.
    callbacks : callable or list of callables, optional
        ``callback(step, objective, state) -> stop?`` after every mini-batch (the objective:
        the smoothed cost of the batches).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    code_sums_, data_code_sums_ : ndarray
        The weighted running sums ``c^T c`` (n_components, n_components) and ``c^T x``
        (n_components, n_features) (scikit-learn's private ``_inner_stats``):
        ``partial_fit`` goes on from them, also in a model loaded from a file.
    n_iter_ : int
        Passes over the data started.
    n_steps_ : int
        Mini-batches processed.
    n_components_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import MiniBatchDictionaryLearning
    >>> X = np.random.default_rng(0).normal(size=(300, 8))
    >>> model = MiniBatchDictionaryLearning(n_components=5, batch_size=50, random_state=0).fit(X)
    >>> model.transform(X[:2]).shape
    (2, 5)
    """

    _parameter_constraints = {
        **_SHARED,
        "max_iter": [Interval(int, 0, None, closed="left")],
        "batch_size": [Interval(int, 1, None, closed="left")],
        "shuffle": [BOOLEAN],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_no_improvement": [NONE, Interval(int, 0, None, closed="left")],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=None,
        *,
        alpha=1,
        max_iter=1000,
        fit_algorithm="lars",
        n_jobs=None,
        batch_size=256,
        shuffle=True,
        dict_init=None,
        transform_algorithm="omp",
        transform_n_nonzero_coefs=None,
        transform_alpha=None,
        verbose=False,
        split_sign=False,
        random_state=None,
        positive_code=False,
        positive_dict=False,
        transform_max_iter=1000,
        callback=None,
        tol=1e-3,
        max_no_improvement=10,
        callbacks=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.max_iter = max_iter
        self.fit_algorithm = fit_algorithm
        self.n_jobs = n_jobs
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.dict_init = dict_init
        self.transform_algorithm = transform_algorithm
        self.transform_n_nonzero_coefs = transform_n_nonzero_coefs
        self.transform_alpha = transform_alpha
        self.verbose = verbose
        self.split_sign = split_sign
        self.random_state = random_state
        self.positive_code = positive_code
        self.positive_dict = positive_dict
        self.transform_max_iter = transform_max_iter
        self.callback = callback
        self.tol = tol
        self.callbacks = callbacks
        self.max_no_improvement = max_no_improvement

    def _initial_atoms(self, X, k, rng):
        """``dict_init``, or the top right singular vectors scaled by their values."""
        from ._nmf import _top_svd

        if self.dict_init is not None:
            return self._given_dictionary(k, X.shape[1])
        r = min(k, *X.shape)
        _, s, Vt = _top_svd(X, r, rng)
        D = s[:, None] * Vt
        return np.vstack([D, np.zeros((k - r, X.shape[1]))]) if k > r else D

    def _begin(self, X, k, rng):
        self.components_ = self._initial_atoms(X, k, rng)
        self.code_sums_, self.data_code_sums_ = np.zeros((k, k)), np.zeros((k, X.shape[1]))
        self.n_components_, self.n_steps_ = k, 0

    def _step(self, batch, rng, budget=None):
        """Code one batch (by numpy while ``budget`` lasts), add its statistics, update
        the atoms; return (the batch's objective per row at the old atoms, how far the
        atoms moved)."""
        D = np.array(self.components_, dtype=np.float64)
        code = self._encode(batch, D, budget=budget)
        cost = objective(batch, code, D, self.alpha) / batch.shape[0]
        A, B = (np.array(s, dtype=np.float64) for s in (self.code_sums_, self.data_code_sums_))
        beta = _past_weight(self.n_steps_, batch.shape[0])
        A *= beta
        A += code.T @ code / batch.shape[0]
        B *= beta
        B += code.T @ batch / batch.shape[0]
        old = D.copy()
        update_atoms(D, A, B, rng, batch, self.positive_dict)
        self.components_, self.code_sums_, self.data_code_sums_ = D, A, B
        self.n_steps_ += 1
        return cost, float(np.linalg.norm(D - old)) / D.shape[0]

    def fit(self, X, y=None):
        """Learn the dictionary from mini-batches of X's rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X, k = self._start_data(X)
        dtype = X.dtype
        X = np.array(X, dtype=np.float64)
        rng = self._rng = check_random_state(self.random_state)
        if self.shuffle:
            X = X[rng.permutation(X.shape[0])]
        self._begin(X, k, rng)
        budget = CodingBudget()
        n, batch = X.shape[0], min(self.batch_size, X.shape[0])
        starts = list(range(0, n, batch))
        smoothing = SmoothedObjective(min(1.0, batch / (n + 1)), self.max_no_improvement)

        def step(_):
            start = starts[self.n_steps_ % len(starts)]
            cost, moved = self._step(X[start : start + batch], rng, budget)
            self._callback(self.n_steps_, cost, self.components_, None)
            if self.n_steps_ == 1:  # the first batch is scored at the starting atoms
                return None, cost, np.inf
            if smoothing.stale(cost):
                return None, smoothing.average, STOP
            return None, smoothing.average, moved if self.tol > 0 else np.inf

        if self.max_iter > 0:
            run_loop(
                step,
                None,
                max_iter=self.max_iter * len(starts),
                tol=self.tol,
                callbacks=callback_list(self.callbacks),
                verbose=int(self.verbose),
                label="MiniBatchDictionaryLearning",
                warn=False,
            )
        self.n_iter_ = int(np.ceil(self.n_steps_ / len(starts)))
        if self.n_steps_:  # every batch coded to zeros leaves no code sums: nothing learned
            warn_nothing_coded(self.code_sums_, self.alpha, X, "MiniBatchDictionaryLearning", "code")
        self._finish(dtype)
        return self

    def _finish(self, dtype):
        self.components_ = np.asarray(self.components_).astype(dtype)

    def partial_fit(self, X, y=None):
        """Update the dictionary with one batch (the first call starts it on the batch).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        first = not hasattr(self, "components_")
        if first:
            validate_params(self)
            self._check_coding()
            self._rng = check_random_state(self.random_state)
        elif not hasattr(self, "_rng"):  # a model loaded from a file goes on streaming
            self._rng = check_random_state(self.random_state)
        X = self._validate_input(X, reset=first, check_fitted=False)
        dtype = X.dtype
        X = np.asarray(X, dtype=np.float64)
        if first:
            self._begin(X, int(self.n_components or X.shape[1]), self._rng)
        self._step(X, self._rng)
        self.n_iter_ = self.n_steps_
        self._finish(dtype)
        return self


def _past_weight(step, batch_size):
    """The weight of the sums so far when the batch of ``step`` (0-based) is added, as
    scikit-learn weights them: the past counts as about ``batch_size`` batches early on
    and as all the rows seen later, so the first, poorly coded batches fade."""
    theta = (step + 1) * batch_size if step < batch_size - 1 else batch_size**2 + step + 1 - batch_size
    return (theta + 1 - batch_size) / (theta + 1)
