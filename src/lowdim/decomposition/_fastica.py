"""FastICA (Hyvärinen & Oja, 2000): independent components by fixed-point iterations."""

import numpy as np
import scipy.linalg

from .._estimator import ComponentTransformer
from .._iterative import callback_list, run_loop
from .._params import (
    ARRAY_LIKE,
    CALLABLE,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_finite
from .._warnings import warn_user
from ..linalg import flip_signs
from ._pca import PCA


def _logcosh(u, alpha=1.0):
    t = np.tanh(alpha * u)
    return t, alpha * (1 - t * t)


def _exp(u):
    e = np.exp(-0.5 * u * u)
    return u * e, (1 - u * u) * e


def _cube(u):
    return u**3, 3 * u * u


CONTRASTS = {"logcosh": _logcosh, "exp": _exp, "cube": _cube}


def _contrast(fun, fun_args):
    """``g(u) -> (g(u), mean of g'(u) per column)`` for the projections ``u`` (one row
    per sample, one column per component). A user's callable is called as
    scikit-learn's: on ``u.T`` (a row per component), returning g there and g' either
    elementwise or already averaged over the samples (its last axis)."""
    args = dict(fun_args or {})
    if isinstance(fun, str):
        base = CONTRASTS[fun]

        def named(u):
            gu, dg = base(u, **args)
            return gu, dg.mean(axis=0)

        return named

    def given(u):
        gu, dg = fun(u.T, **args)
        dg = np.asarray(dg, dtype=np.float64)
        return np.asarray(gu).T, dg.mean(axis=-1) if dg.ndim == 2 else np.broadcast_to(dg, u.shape[1:])

    return given


def _symmetric_decorrelation(W):
    """``(W W^T)^(-1/2) W``: the closest matrix with orthonormal rows."""
    s, U = scipy.linalg.eigh(W @ W.T)
    s = np.maximum(s, np.finfo(W.dtype).tiny)
    return (U / np.sqrt(s)) @ U.T @ W


def _fixed_point(W, Z, g):
    """One FastICA update of every row of W (whitened data Z, one row per sample)."""
    gu, dg_mean = g(Z @ W.T)  # (n, k), (k,)
    return (gu.T @ Z) / Z.shape[0] - dg_mean[:, None] * W


def ica_parallel(Z, W0, g, *, max_iter, tol, callbacks=(), verbose=0):
    """Symmetric FastICA: all components at once, decorrelated after every step.

    Converges when ``max |1 - |<w_new, w_old>|| <= tol`` over the rows.

    Returns
    -------
    W : ndarray (k, k), rows orthonormal
    n_iter : int
    """

    def step(W):
        W_new = _symmetric_decorrelation(_fixed_point(W, Z, g))
        change = float(np.max(np.abs(np.abs(np.einsum("ij,ij->i", W_new, W)) - 1)))
        return W_new, change, change

    result = run_loop(
        step,
        _symmetric_decorrelation(W0),
        max_iter=max_iter,
        tol=tol,
        callbacks=callbacks,
        verbose=verbose,
        label="FastICA",
    )
    return result.state, result.n_iter


def ica_deflation(Z, W0, g, *, max_iter, tol, callbacks=(), verbose=0):
    """Deflationary FastICA: one component at a time, orthogonal to the previous ones.

    Returns
    -------
    W : ndarray (k, k)
    n_iter : int
        The largest number of iterations any component needed.
    """
    k = W0.shape[0]
    W = np.zeros_like(W0)
    most = 0
    for j in range(k):

        def step(w, j=j):
            w_new = _fixed_point(w[None, :], Z, g)[0]
            w_new -= W[:j].T @ (W[:j] @ w_new)
            w_new /= np.linalg.norm(w_new)
            change = abs(abs(float(w_new @ w)) - 1)
            return w_new, change, change

        w0 = W0[j] - W[:j].T @ (W[:j] @ W0[j])
        result = run_loop(
            step,
            w0 / np.linalg.norm(w0),
            max_iter=max_iter,
            tol=tol,
            callbacks=callbacks,
            verbose=verbose,
            label=f"FastICA (deflation, component {j})",
        )
        W[j] = result.state
        most = max(most, result.n_iter)
    return W, most


class FastICA(ComponentTransformer):
    """Independent component analysis by FastICA, whitening through lowdim's PCA.

    A drop-in for ``sklearn.decomposition.FastICA``: whitening by lowdim's PCA, or
    none for data that are already white (``whiten=False``).

    Parameters
    ----------
    n_components : int or None
        Number of sources (default ``min(n_samples, n_features)``).
    algorithm : {'parallel', 'deflation'}
    whiten : {'unit-variance', 'arbitrary-variance'} or False
        Both strings give unit-variance sources here (the whitened data have unit
        variance). False: X is taken as already whitened (no centring, no whitening;
        ``n_components`` is ignored, with a warning, as in scikit-learn) and
        ``transform`` is ``X @ components_.T``.
    fun : {'logcosh', 'exp', 'cube'} or callable
        Contrast. A callable is scikit-learn's: ``fun(x, **fun_args) -> (g(x), g'(x))``
        with ``x`` of shape (n_components, n_samples) and ``g'`` elementwise or
        averaged over the samples (``.mean(axis=-1)``).
    fun_args : dict or None
        E.g. ``{'alpha': 1.0}`` for 'logcosh'.
    max_iter : int
        Iteration cap (per component for 'deflation'); ``ConvergenceWarning`` when hit.
    tol : float
        Convergence threshold on ``1 - |<w_new, w_old>|``.
    w_init : array-like of shape (n_components, n_components) or None
        Initial unmixing matrix in whitened space (default: Gaussian from random_state).
    whiten_solver : {'auto', 'covariance', 'eigh', 'svd'}, default='auto'
        PCA solver used for whitening; 'eigh' (scikit-learn's name) is 'covariance'.
        scikit-learn's default is 'svd'; lowdim's 'auto' picks 'covariance' for tall
        data (one pass, same whitening up to rounding).
    random_state : None, int, RandomState or Generator
    callbacks : callable or list of callables, optional
        ``callback(iteration, change of the unmixing, state) -> stop?`` after every iteration
        (with ``algorithm='deflation'``, of each component's run: True ends that component's).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Unmixing matrix: ``sources = (X - mean_) @ components_.T``. Sources are ordered
        by the variance they contribute to X (squared norm of their ``mixing_``
        column), and signed so the largest-magnitude entry of each row is positive.
    mixing_ : ndarray of shape (n_features, n_components)
        Pseudo-inverse of ``components_``.
    whitening_ : ndarray of shape (n_components, n_features)
        The identity with ``whiten=False``.
    mean_ : ndarray of shape (n_features,)
        Zeros with ``whiten=False``.
    n_iter_, n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import FastICA
    >>> rng = np.random.default_rng(0)
    >>> S = np.column_stack([rng.uniform(-1, 1, 2000), rng.laplace(size=2000)])
    >>> X = S @ np.array([[1.0, 0.5], [0.3, 1.0]])
    >>> FastICA(n_components=2, random_state=0).fit_transform(X).shape
    (2000, 2)
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "algorithm": [Options({"parallel", "deflation"})],
        "whiten": [Options({"unit-variance", "arbitrary-variance", False})],
        "fun": [Options(set(CONTRASTS)), CALLABLE],
        "fun_args": [NONE, InstanceOf(dict)],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "w_init": [NONE, ARRAY_LIKE],
        "whiten_solver": [Options({"auto", "covariance", "eigh", "svd"})],
        "random_state": [RANDOM_STATE],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=None,
        *,
        algorithm="parallel",
        whiten="unit-variance",
        fun="logcosh",
        fun_args=None,
        max_iter=200,
        tol=1e-4,
        w_init=None,
        whiten_solver="auto",
        random_state=None,
        callbacks=None,
    ):
        self.n_components = n_components
        self.algorithm = algorithm
        self.whiten = whiten
        self.fun = fun
        self.fun_args = fun_args
        self.max_iter = max_iter
        self.tol = tol
        self.w_init = w_init
        self.whiten_solver = whiten_solver
        self.callbacks = callbacks
        self.random_state = random_state

    def fit(self, X, y=None):
        """Estimate the unmixing matrix.

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
        if self.whiten is False:
            Z, whitening, mean = self._as_white(X)
        else:
            Z, whitening, mean = self._whitened(X)
        k = Z.shape[1]
        rng = check_random_state(self.random_state)
        W0 = self._initial(k, rng)
        solve = ica_parallel if self.algorithm == "parallel" else ica_deflation
        W, self.n_iter_ = solve(
            Z,
            W0,
            _contrast(self.fun, self.fun_args),
            max_iter=self.max_iter,
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
        )
        (unmixing,) = flip_signs(W @ whitening)
        mixing = np.linalg.pinv(unmixing)
        # sources come in no particular order: sort them by the variance they put into X
        order = np.argsort(-np.sum(mixing**2, axis=0), kind="stable")
        self.whitening_ = whitening.astype(X.dtype)
        self.components_ = unmixing[order].astype(X.dtype)
        self.mixing_ = mixing[:, order].astype(X.dtype)
        self.mean_ = mean.astype(X.dtype)
        self.n_components_ = int(k)
        return self

    def _whitened(self, X):
        """Whitened data (unit variance over the n samples), the whitening matrix, the mean."""
        solver = "covariance" if self.whiten_solver == "eigh" else self.whiten_solver
        pca = PCA(self.n_components, whiten=True, solver=solver)
        pca._part_of = "FastICA"  # its warnings (zero-variance columns) name the user's estimator
        pca.fit(X)
        variances = pca.explained_variance_.astype(np.float64)
        rank = _numerical_rank(variances, X.shape, X.dtype)
        # unit variance over the n samples (PCA's whitening divides by n - 1), as
        # scikit-learn's FastICA: the contrast's fixed points depend on the scale
        unit = np.sqrt(X.shape[0] / max(X.shape[0] - 1, 1))
        Z = pca.transform(X).astype(np.float64)[:, :rank] * unit
        whitening = unit * pca.components_[:rank].astype(np.float64) / np.sqrt(variances[:rank])[:, None]
        return Z, whitening, pca.mean_.astype(np.float64)

    def _as_white(self, X):
        """``whiten=False``: the data as they are, every feature a component."""
        if self.n_components is not None and self.n_components != X.shape[1]:
            warn_user(
                f"Ignoring n_components with whiten=False. FastICA takes the data as already white: "
                f"n_components={self.n_components} is ignored and all {X.shape[1]} features are components.",
                UserWarning,
            )
        d = X.shape[1]
        return X.astype(np.float64), np.eye(d), np.zeros(d)

    def _initial(self, k, rng):
        if self.w_init is None:
            return rng.standard_normal((k, k))
        W0 = np.asarray(self.w_init, dtype=np.float64)
        if W0.shape != (k, k):
            raise ValueError(f"w_init has shape {W0.shape}; it must be (n_components, n_components) = ({k}, {k}).")
        check_finite(W0, "w_init")
        rank = np.linalg.matrix_rank(W0)
        if rank < k:  # decorrelating its rows gives zero (or NaN) unmixing directions
            raise ValueError(
                f"w_init has rank {rank}, below n_components={k}: its rows must be {k} independent directions; pass "
                "an invertible matrix, or None for a random start."
            )
        return W0

    def transform(self, X):
        """Recover the sources of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False)
        return ((X - self.mean_) @ self.components_.T).astype(X.dtype, copy=False)

    def inverse_transform(self, X):
        """Mix sources back into feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        S = self._validate_codes(X)
        return (S @ self.mixing_.T + self.mean_).astype(self.components_.dtype)


def _numerical_rank(variances, shape, dtype):
    """How many of the descending component ``variances`` are not zero up to rounding;
    the rest cannot be whitened (a source needs variance): warn and leave them out.

    Examples
    --------
    >>> _numerical_rank(np.array([2.0, 1.0]), (10, 2), np.float64)
    2
    """
    if variances.size == 0 or variances[0] <= 0:
        raise ValueError(
            "FastICA: every row of X is identical (no variance in any direction); there are no sources to find."
        )
    tol = variances[0] * np.finfo(dtype).eps * max(shape)
    rank = int(np.count_nonzero(variances > tol))
    if rank < variances.size:
        warn_user(
            f"There are some small singular values: FastICA's X has rank {rank}, below the "
            f"{variances.size} components asked for; the "
            f"{variances.size - rank} directions without variance carry no source, so {rank} components "
            f"are found (pass n_components={rank} to silence this).",
            UserWarning,
        )
    return rank
