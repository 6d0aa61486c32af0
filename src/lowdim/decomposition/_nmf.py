"""Matrix factorisation X ~ W H by alternating optimisation: NMF and unconstrained ALS."""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer
from .._iterative import callback_list, run_loop
from .._memory import require_memory
from .._messages import shown
from .._params import BOOLEAN, CALLBACKS, NONE, RANDOM_STATE, VERBOSE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_n_components, warn_constant_features
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning
from ..linalg import CenteredData, column_moments, randomized_svd, symmetric_from_upper, syrk_upper, top_eigh
from ._factorization_updates import (
    beta_value,
    flat_row_start,
    hals_update_h,
    loss,
    loss_from_products,
    mu_update_h,
    mu_update_w,
    penalty,
    ridge_update_h,
    solve_rows,
    squared_norm,
)

CHECK_EVERY = 10  # iterations over which the decrease of the error is measured
# float32 products resolve the error's change to about 1e-6 of it: a tighter tol asks for
# float64 arithmetic even on float32 data
FLOAT32_TOL = 1e-5


def _top_svd(X, k, rng):
    """Top-k singular triplets of X (not centred): exact from the smaller Gram matrix
    when it has at most 4096 rows, else randomized."""
    n, d = X.shape
    if min(n, d) <= 4096 and not sp.issparse(X):
        gram = symmetric_from_upper(syrk_upper(np.ascontiguousarray(X), gram_of_rows=n < d))
        w, V = top_eigh(gram.astype(np.float64), k)
        s = np.sqrt(np.maximum(w, 0.0))
        safe = np.where(s > 0, s, 1.0)
        Vx = V.astype(X.dtype)  # products in X's precision: no float64 copy of float32 data
        if n < d:  # V holds left singular vectors
            return V, s, (X.T @ Vx / safe).T
        return (X @ Vx) / safe, s, V.T
    s, Vt, _ = randomized_svd(CenteredData(X, np.zeros(d)), k, n_iter=7, rng=rng)
    return (X @ Vt.T) / np.where(s > 0, s, 1.0), s, Vt


def nndsvd_init(X, k, rng, fill=False):
    """Non-negative double SVD start (Boutsidis & Gallopoulos, 2008); ``fill`` puts the
    data mean in the zeros (True: the 'nndsvda' variant) or small random values of a
    hundredth of the mean ('random': 'nndsvdar').

    Examples
    --------
    >>> import numpy as np
    >>> W, H = nndsvd_init(np.ones((4, 3)), 1, np.random.default_rng(0))
    >>> bool(np.allclose(W @ H, 1.0))
    True
    """
    U, s, Vt = _top_svd(X, k, rng)
    W, H = np.zeros((X.shape[0], k)), np.zeros((k, X.shape[1]))
    for j in range(k):
        x, y = U[:, j], Vt[j]
        parts = []
        for sx, sy in ((np.maximum(x, 0), np.maximum(y, 0)), (np.maximum(-x, 0), np.maximum(-y, 0))):
            nx, ny = float(np.linalg.norm(sx)), float(np.linalg.norm(sy))
            # an all-zero part stays zero (1e-300 is 0 in float32: 0 / 0 would be NaN)
            parts.append((nx * ny, sx / nx if nx > 0 else sx, sy / ny if ny > 0 else sy))
        sigma, u, v = max(parts, key=lambda p: p[0])
        W[:, j], H[j] = np.sqrt(s[j] * sigma) * u, np.sqrt(s[j] * sigma) * v
    mean = X.mean()
    if fill == "random":
        for F in (W, H):
            zero = F == 0
            F[zero] = np.abs(rng.standard_normal(int(zero.sum()))) * mean / 100.0
    elif fill:
        W[W == 0], H[H == 0] = mean, mean
    return W, H


def alternate(W, H, update_w, update_h, start_value, *, tol, max_iter, verbose, label, callbacks=()):
    """Alternate ``W = update_w(W, H)``, then ``H, value = update_h(W, H)`` (W first, as
    scikit-learn: from the same start it reaches better optima than H first here).

    Stops when the error ``sqrt(2 * value)`` decreased by less than ``tol`` times its
    current value over the last 10 iterations (scale-free; scikit-learn divides by the
    error of the starting point instead, which stops far earlier after a poor start).
    Returns (W, H, value, result)."""

    def step(state):
        W, H, recent = state
        W = update_w(W, H)
        H, value = update_h(W, H)
        recent = (recent + [np.sqrt(2 * max(value, 0.0))])[-(CHECK_EVERY + 1) :]
        change = (recent[0] - recent[-1]) / max(recent[-1], 1e-300) if len(recent) > CHECK_EVERY else np.inf
        return (W, H, recent), value, change

    result = run_loop(
        step,
        (W, H, [np.sqrt(2 * start_value)]),
        max_iter=max_iter,
        tol=tol,
        callbacks=callbacks,
        verbose=verbose,
        label=label,
        warn=False,
    )
    if not (result.converged or result.stopped):
        warn_max_iter(max_iter, f"the error still fell by more than tol={tol:g} of itself", label)
    W, H, _ = result.state
    return W, H, result.objective, result


def warn_max_iter(max_iter, still, label):
    """scikit-learn's warning that ``max_iter`` was reached (its sentence first: code
    filters on it), with what was ``still`` true over the last CHECK_EVERY iterations."""
    warn_user(
        f"Maximum number of iterations {max_iter} reached. Increase it to improve convergence. ({label}: {still} "
        f"over the last {CHECK_EVERY} iterations.)",
        ConvergenceWarning,
    )


def _cd_beta_message(beta_loss):
    return (
        f"Invalid beta_loss parameter: solver 'cd' does not handle beta_loss = {beta_value(beta_loss)!r}; "
        f"beta_loss={beta_loss!r} needs solver='mu' ('cd' minimises the Frobenius loss)."
    )


class _Factorization(ComponentTransformer):
    """Shared input handling, fit and inverse_transform of X ~ W H."""

    def _check(self, X, reset):
        X = self._validate_input(X, reset=reset, allow_nan=self.__sklearn_tags__().input_tags.allow_nan)
        observed = ~np.isnan(X)
        if observed.all():
            work = np.float32 if X.dtype == np.float32 and self._float32_arithmetic() else np.float64
            return X.astype(work, copy=False), None, X.dtype
        return np.where(observed, X, 0.0).astype(np.float64), observed.astype(np.float64), X.dtype

    def _float32_arithmetic(self):
        """Whether complete float32 data are factorised in float32 (default: no)."""
        return False

    def _start_fit(self, X):
        """Validate parameters and data; return (X, mask, dtype, n_components)."""
        validate_params(self)
        X, mask, dtype = self._check(X, reset=True)
        n, d = X.shape
        k = self.n_components or min(n, d)
        check_n_components(k, n, d, type(self).__name__)
        warn_constant_features(column_moments(X)[1], self._shown_name, X=X)
        return X, mask, dtype, k

    def fit(self, X, y=None):
        """Fit the factorisation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), NaN = missing
        y : ignored

        Returns
        -------
        self
        """
        self.fit_transform(X)
        return self

    def inverse_transform(self, X):
        """``W H``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        W = self._validate_codes(X)
        return (W @ self.components_).astype(W.dtype)

    def _store(self, H, result, k, dtype):
        self.components_ = H.astype(dtype)
        self.loss_history_ = result.history
        self.n_iter_ = result.n_iter
        self.n_components_ = int(k)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class NMF(_Factorization):
    """Non-negative matrix factorisation ``X ~ W H`` with ``W, H >= 0``.

    A drop-in for ``sklearn.decomposition.NMF`` (same parameter names and penalty
    scaling), plus missing values: NaN entries are left out of the loss (solver 'mu').
    Sparse input (scipy.sparse) is factorised without densifying it, for the
    Frobenius and Kullback-Leibler losses (KL through ``X / (W H)`` at the stored
    entries only).

    Parameters
    ----------
    n_components : int, 'auto' or None
        None: n_features (as scikit-learn; more than min(n_samples, n_features) is an
        overcomplete factorisation, which NMF allows). 'auto': from the shapes of the
        ``W`` / ``H`` given to ``fit`` (else n_features).
    init : {None, 'random', 'nndsvd', 'nndsvda', 'nndsvdar', 'custom'}
        None: 'nndsvda' when n_components <= min(n_samples, n_features), else 'random';
        'nndsvdar': NNDSVD with its zeros set to small random values; 'custom': the
        ``W`` and ``H`` given to ``fit`` / ``fit_transform``.
    solver : {'cd', 'mu'}
        'cd': HALS coordinate descent (Frobenius loss, complete data: NaN is an error);
        'mu': multiplicative updates (any beta-divergence, NaN = missing).
    beta_loss : {'frobenius', 'kullback-leibler', 'itakura-saito'} or float
        The beta-divergence minimised (2, 1, 0 or any beta); other than 'frobenius'
        needs solver='mu', and beta <= 0 needs X without zeros.
    tol : float
        Stop when the error ``sqrt(2 * objective)`` decreased by less than ``tol`` times
        its current value over the last 10 iterations (stricter than scikit-learn's
        rule, which divides by the error at the start). Complete float32 data with
        solver 'cd' are factorised in float32 arithmetic, as scikit-learn does, when
        ``tol >= 1e-5``; a tighter tol asks for more than float32 can judge, and the
        fit runs in float64.
    max_iter : int
    random_state : None, int, RandomState or Generator
    alpha_W : float
        Penalty strength on W (times n_features, as in scikit-learn).
    alpha_H : float or 'same'
        Penalty strength on H (times n_samples).
    l1_ratio : float in [0, 1]
        Share of L1 (sparsity) in the penalties; the rest is L2.
    verbose : int or bool
    shuffle : bool, default=False
        'cd': visit the components in a random order (from ``random_state``) in every
        update instead of first to last.
    callbacks : callable or list of callables, optional
        ``callback(iteration, objective, state) -> stop?`` after every iteration (the objective:
        the beta-divergence plus the penalties).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        H.
    reconstruction_err_ : float
        ``sqrt(2 * loss)``: the Frobenius norm of the residual, or of the KL divergence.
    loss_history_ : list of float
        Objective (loss + penalties) after each iteration; it never increases (beyond
        float32 rounding when float32 data are factorised in float32, see ``tol``).
    n_iter_, n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import NMF
    >>> X = np.random.default_rng(0).random((50, 6))
    >>> W = NMF(n_components=2, random_state=0).fit_transform(X)
    >>> bool((W >= 0).all())
    True
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left"), Options({"auto"})],
        "init": [NONE, Options({"random", "nndsvd", "nndsvda", "nndsvdar", "custom"})],
        "solver": [Options({"cd", "mu"})],
        "beta_loss": [Options({"frobenius", "kullback-leibler", "itakura-saito"}), Interval(float, None, None)],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "alpha_W": [Interval(float, 0, None, closed="left")],
        "alpha_H": [Interval(float, 0, None, closed="left"), Options({"same"})],
        "l1_ratio": [Interval(float, 0, 1, closed="both")],
        "verbose": VERBOSE,
        "shuffle": [BOOLEAN],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components="auto",
        *,
        init=None,
        solver="cd",
        beta_loss="frobenius",
        tol=1e-4,
        max_iter=200,
        random_state=None,
        alpha_W=0.0,
        alpha_H="same",
        l1_ratio=0.0,
        verbose=0,
        shuffle=False,
        callbacks=None,
    ):
        self.n_components = n_components
        self.init = init
        self.solver = solver
        self.beta_loss = beta_loss
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.alpha_W = alpha_W
        self.alpha_H = alpha_H
        self.l1_ratio = l1_ratio
        self.verbose = verbose
        self.callbacks = callbacks
        self.shuffle = shuffle

    @property
    def _solver(self):
        """The update rule: the ``solver`` parameter (the mini-batch fit has only 'mu')."""
        return self.solver

    def _check(self, X, reset):
        if sp.issparse(X) or (hasattr(X, "format") and hasattr(X, "nnz")):
            return self._check_sparse(X, reset)
        X64, mask, dtype = super()._check(X, reset)  # float32 when fitted in float32
        if np.any(X64 < 0):
            r, c = np.argwhere(X64 < 0)[0]
            raise ValueError(
                f"Negative values in data passed to NMF (first at row {r}, column {c}: "
                f"{shown(X64[r, c])}); NMF needs non-negative data."
            )
        beta = beta_value(self.beta_loss)
        if beta != 2.0 and self._solver != "mu":
            raise ValueError(_cd_beta_message(self.beta_loss))
        if beta <= 0 and np.any((X64 == 0) & (mask if mask is not None else True)):
            raise ValueError(
                f"When beta_loss <= 0 and X contains zeros, the solver may diverge. beta_loss={self.beta_loss!r} "
                "needs X without zeros: the divergence is infinite there. Add a small constant to X, or use a "
                "beta above 0."
            )
        return X64, mask, dtype

    def _float32_arithmetic(self):
        """Float32 for 'cd' (half the memory and BLAS time, as scikit-learn) unless tol
        asks for more than float32 products can judge."""
        return self._solver == "cd" and self.tol >= FLOAT32_TOL

    def _probe_rows(self, n_features):
        """Rows a loaded model is tried on: ones, as a divergence of beta <= 0 (Itakura-Saito)
        is infinite at zeros, which every other model is tried on."""
        return np.ones((2, n_features))

    def _check_loaded(self):
        """A loaded model's factor must be what NMF fits: finite and non-negative."""
        H = np.asarray(self.components_)
        if H.ndim != 2 or not np.all(np.isfinite(H)) or np.any(H < 0):
            raise ValueError("components_ must be a finite non-negative (n_components, n_features) matrix")

    def _check_sparse(self, X, reset):
        """Sparse X as CSR, float64 or float32 as dense data (missing values need a
        dense array with NaN)."""
        X = self._validate_input(X, reset=reset, accept_sparse=True)
        work = np.float32 if X.dtype == np.float32 and self._float32_arithmetic() else np.float64
        X64 = sp.csr_matrix(X, dtype=work)
        X64.sum_duplicates()
        if X64.nnz and X64.data.min() < 0:
            r, c = (a[0] for a in (X64 < 0).nonzero())
            raise ValueError(
                f"Negative values in data passed to NMF (first at row {r}, column {c}: "
                f"{shown(X64[r, c])}); NMF needs non-negative data."
            )
        beta = beta_value(self.beta_loss)
        if beta != 2.0 and self._solver != "mu":
            raise ValueError(_cd_beta_message(self.beta_loss))
        if beta not in (1.0, 2.0):  # its updates need W H at every entry: as a dense array
            n, d = X64.shape
            require_memory(
                3 * 8 * n * d,
                f"NMF with beta_loss={self.beta_loss!r} on a sparse {n} x {d} X (W H at every entry)",
                "use beta_loss='frobenius' or 'kullback-leibler', whose updates keep X sparse",
            )
            return self._check(X64.toarray().astype(X.dtype, copy=False), reset)
        return X64, None, X.dtype

    def _penalties(self, n, d):
        alpha_H = self.alpha_W if self.alpha_H == "same" else self.alpha_H
        return (
            d * self.alpha_W * self.l1_ratio,
            d * self.alpha_W * (1 - self.l1_ratio),
            n * alpha_H * self.l1_ratio,
            n * alpha_H * (1 - self.l1_ratio),
        )

    def _updates(self, X, mask, pen, rng=None):
        """(update_w, update_h) closures; update_h also returns the objective."""
        sq = squared_norm(X)

        def order(k):  # shuffle: a fresh order of the components for every update
            return rng.permutation(k) if self.shuffle and rng is not None else None

        def update_w(W, H):
            if self._solver == "mu":
                return mu_update_w(X, W, H, mask, self.beta_loss, pen[0], pen[1])
            return hals_update_h(X.T, H.T, W.T, pen[0], pen[1], order=order(W.shape[1])).T

        def update_h(W, H):
            if self._solver == "cd":  # the objective from the products the update computed
                H, WtX, WtW = hals_update_h(X, W, H, pen[2], pen[3], products=True, order=order(H.shape[0]))
                return H, loss_from_products(sq, WtX, WtW, H) + penalty(W, H, pen)
            H = mu_update_h(X, W, H, mask, self.beta_loss, pen[2], pen[3])
            return H, loss(X, W, H, mask, self.beta_loss, sq) + penalty(W, H, pen)

        return update_w, update_h

    def _initial(self, X, k, rng):
        init = self.init or ("nndsvda" if k <= min(X.shape) else "random")
        if init == "random":
            scale = np.sqrt(max(X.mean(), 1e-12) / k)
            return (
                np.abs(rng.standard_normal((X.shape[0], k))) * scale,
                np.abs(rng.standard_normal((k, X.shape[1]))) * scale,
            )
        if k > min(X.shape):
            raise ValueError(
                f"init = {init!r} can only be used when n_components <= min(n_samples, n_features): "
                f"min(n_samples, n_features) = {min(X.shape)}; "
                f"got {k}. Use init='random' for an overcomplete factorisation."
            )
        # multiplicative updates cannot leave exact zeros: always fill them for 'mu'
        fill = "random" if init == "nndsvdar" else (init == "nndsvda" or self._solver == "mu")
        return nndsvd_init(X, k, rng, fill=fill)

    def _starting_factors(self, X, W, H, k, rng):
        """The start in X's type: the given factors (checked) or ``init``'s."""
        if self.init == "custom" or (W is not None and H is not None):
            W, H = self._given_factors(W, H, X.shape[0], X.shape[1], k)
        else:
            if W is not None or H is not None:
                warn_user(
                    "When init!='custom', provided W or H are ignored: lowdim starts from W and H when both are "
                    "given (or with init='custom'); pass both, or neither.",
                    RuntimeWarning,
                )
            W, H = self._initial(X, k, rng)
        return W.astype(X.dtype, copy=False), H.astype(X.dtype, copy=False)

    def _n_components(self, n, d, W, H):
        """The number of components: given, from the custom factors ('auto'), or d."""
        if self.n_components not in (None, "auto"):
            return int(self.n_components)
        if self.n_components == "auto":
            if H is not None:
                return int(np.shape(H)[0])
            if W is not None:
                return int(np.shape(W)[1])
        return d

    def _given_factors(self, W, H, n, d, k):
        """The custom start, checked: non-negative, finite, of the right shapes."""
        if W is None or H is None:
            raise ValueError("init='custom' needs both W and H passed to fit / fit_transform (fit(X, W=W, H=H)).")
        return [_given_factor(name, F, shape, k) for name, F, shape in (("W", W, (n, k)), ("H", H, (k, d)))]

    def fit(self, X, y=None, W=None, H=None):
        """Fit the factorisation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), non-negative, NaN = missing
        y : ignored
        W, H : ndarray, optional
            The start with ``init='custom'`` (see ``fit_transform``).

        Returns
        -------
        self
        """
        self.fit_transform(X, W=W, H=H)
        return self

    def fit_transform(self, X, y=None, W=None, H=None):
        """Fit the factorisation and return W.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), non-negative, NaN = missing
        y : ignored
        W, H : ndarray, optional
            Initial factors: used with ``init='custom'`` (required then), and also when
            both are given with another ``init`` (which is then not run).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        validate_params(self)
        X, mask, dtype = self._check(X, reset=True)
        n, d = X.shape
        k = self._n_components(n, d, W, H)
        check_n_components(None, n, d, "NMF")  # needs two samples; more components than min(n, d) is fine
        warn_constant_features(column_moments(X)[1], "NMF", X=X)
        rng = check_random_state(self.random_state)
        W, H = self._starting_factors(X, W, H, k, rng)
        pen = self._penalties(n, d)
        start = loss(X, W, H, mask, self.beta_loss) + penalty(W, H, pen)
        W, H, _, result = alternate(
            W,
            H,
            *self._updates(X, mask, pen, rng=rng),
            start,
            tol=self.tol,
            max_iter=self.max_iter,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose,
            label="NMF",
        )
        self.reconstruction_err_ = float(np.sqrt(2 * loss(X, W, H, mask, self.beta_loss)))
        self._store(H, result, k, dtype)
        return W.astype(dtype)

    def transform(self, X):
        """W for new rows with H fixed (the same updates, observed entries only), each
        row on its own: a row gets the same codes alone or with other rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X, mask, dtype = self._check(X, reset=False)  # also checks the model is fitted
        return self._solve_w(X, mask, self.components_.astype(np.float64))[0].astype(dtype)

    def _solve_w(self, X, mask, H):
        """(W, iterations) for the rows of ``X`` with ``H`` fixed: the fit's updates of W,
        from a flat start at each row's own scale, each row until it moves by at most
        ``tol`` of its norm over CHECK_EVERY updates (``solve_rows``): a row's codes do
        not depend on the rows passed with it."""
        l1, l2 = self._penalties(X.shape[0], X.shape[1])[:2]  # W's: scaled by the features, not the rows
        W = flat_row_start(X, H.shape[0], mask)

        def update(rows, W_rows):
            if self._solver == "mu":
                return mu_update_w(X[rows], W_rows, H, None if mask is None else mask[rows], self.beta_loss, l1, l2)
            return hals_update_h(X[rows].T, H.T, W_rows.T, l1, l2).T

        W, n_iter, converged = solve_rows(update, W, tol=self.tol, max_iter=self.max_iter, window=CHECK_EVERY)
        if not converged:
            still = f"a row's codes still moved by more than tol={self.tol:g} of them"
            warn_max_iter(self.max_iter, still, "NMF transform")
        return W, n_iter

    def _fit_w_only(self, X, H):
        """scikit-learn's ``update_H=False``: W for ``X`` with the given ``H`` fixed, as
        (W, H, iterations); the estimator is not fitted."""
        validate_params(self)
        X, mask, dtype = self._check(X, reset=True)
        k = self._n_components(X.shape[0], X.shape[1], None, H)
        H = _given_factor("H", H, (k, X.shape[1]), k)
        W, n_iter = self._solve_w(X, mask, H)
        return W.astype(dtype), H.astype(dtype), n_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.input_tags.allow_nan = self._solver == "mu"  # only 'mu' fits observed entries
        return tags


class MatrixFactorization(_Factorization):
    """Unconstrained low-rank factorisation ``X ~ W H`` by alternating least squares,
    with a ridge penalty and missing values (NaN entries are left out of the loss).

    Parameters
    ----------
    n_components : int or None
        Default: min(n_samples, n_features).
    alpha : float
        Ridge penalty on both factors: loss + 0.5 * alpha * (||W||^2 + ||H||^2). At
        the optimum each component keeps its singular value minus ``alpha``: those
        whose singular value is below it are zero, and a warning counts them.
    tol : float
        As in ``NMF``.
    max_iter : int
    random_state : None, int, RandomState or Generator
        Start (randomized SVD).
    verbose : int or bool
    callbacks : callable or list of callables, optional
        ``callback(iteration, objective, state) -> stop?`` after every iteration (one
        update of W and one of H); ``objective`` is the penalised loss.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    loss_history_ : list of float
    n_iter_, n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import MatrixFactorization
    >>> X = np.random.default_rng(0).normal(size=(30, 5)); X[0, 0] = np.nan
    >>> MatrixFactorization(n_components=2, random_state=0).fit_transform(X).shape
    (30, 2)
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "alpha": [Interval(float, 0, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "verbose": VERBOSE,
        "callbacks": CALLBACKS,
    }

    def __init__(
        self, n_components=None, *, alpha=1e-6, tol=1e-6, max_iter=500, random_state=None, verbose=0, callbacks=None
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    def fit_transform(self, X, y=None):
        """Fit and return W.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), NaN = missing
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X, mask, dtype, k = self._start_fit(X)
        n, d = X.shape
        U, s, Vt = _top_svd(X, k, check_random_state(self.random_state))
        pen = (0.0, self.alpha, 0.0, self.alpha)
        maskT = None if mask is None else mask.T
        W, H = U * np.sqrt(s), np.sqrt(s)[:, None] * Vt

        def update_h(W, H):
            H = ridge_update_h(X, W, self.alpha, mask)
            return H, loss(X, W, H, mask) + penalty(W, H, pen)

        W, H, _, result = alternate(
            W,
            H,
            lambda W, H: ridge_update_h(X.T, H.T, self.alpha, maskT).T,
            update_h,
            loss(X, W, H, mask) + penalty(W, H, pen),
            tol=self.tol,
            max_iter=self.max_iter,
            verbose=self.verbose,
            label="MatrixFactorization",
            callbacks=callback_list(self.callbacks),
        )
        # W H is unchanged by W_j * c, H_j / c: pick the balance ||W_j|| = ||H_j|| that the
        # ridge penalty prefers, so the scale of the output is determined
        c = np.sqrt(np.linalg.norm(H, axis=1) / np.maximum(np.linalg.norm(W, axis=0), 1e-300))
        c = np.where(c > 0, c, 1.0)
        W, H = W * c, H / c[:, None]
        self._warn_shrunk(np.linalg.norm(W, axis=0) * np.linalg.norm(H, axis=1), s[0])
        self._store(H, result, k, dtype)
        return W.astype(dtype)

    def _warn_shrunk(self, strengths, top_singular_value):
        """Warn when the ridge penalty shrank components to zero: at the optimum each
        keeps its singular value minus ``alpha`` (none when that is negative), so data
        in small units, or more components than the data's rank, give zero columns."""
        shrunk = int(np.sum(strengths < 1e-3 * self.alpha))
        if shrunk == 0:
            return
        warn_user(
            f"MatrixFactorization: alpha={self.alpha:g} shrank {shrunk} of {strengths.size} components to zero "
            "(a component keeps its singular value minus alpha, and nothing when that is negative; the largest "
            f"singular value here is {top_singular_value:.2g}). Ask for fewer components, or, for data in small "
            "units, lower alpha or standardise the features.",
            UserWarning,
        )

    def transform(self, X):
        """Ridge least-squares W for new rows with H fixed (observed entries only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X, mask, dtype = self._check(X, reset=False)  # also checks the model is fitted
        H = self.components_.astype(np.float64)
        return ridge_update_h(X.T, H.T, self.alpha, None if mask is None else mask.T).T.astype(dtype)


def _given_factor(name, F, shape, k):
    """A given factor ``W`` or ``H`` as float64, checked (scikit-learn's sentences kept):
    its shape, finite, non-negative, not all zero (multiplicative updates could not
    move it)."""
    F = np.array(F, dtype=np.float64)
    if F.shape != shape:
        which = "first" if F.shape[:1] != shape[:1] else "second"
        raise ValueError(
            f"Array with wrong {which} dimension passed to NMF (input {name}): {name} has shape {F.shape}; "
            f"expected {shape} for n_components={k}."
        )
    if not np.all(np.isfinite(F)):
        raise ValueError(f"{name} must hold finite values (input {name} of NMF).")
    if np.any(F < 0):
        raise ValueError(f"Negative values in data passed to NMF (input {name}): {name} must be non-negative.")
    if not F.any():
        raise ValueError(
            f"Array passed to NMF (input {name}) is full of zeros: no update can move a zero factor; start from "
            "small positive values."
        )
    return F
