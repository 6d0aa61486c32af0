"""Online non-negative matrix factorisation: multiplicative updates over mini-batches,
with the update's two halves summed over the batches seen (Lefevre, Bach & Fevotte, 2011)."""

import numpy as np
import scipy.sparse as sp

from .._iterative import STOP, SmoothedObjective, callback_list, run_loop
from .._params import BOOLEAN, CALLBACKS, NONE, Interval, validate_params
from .._random import check_random_state
from .._validation import check_n_components, warn_constant_features
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning
from ..linalg import column_moments
from ._factorization_updates import (
    EPS,
    beta_value,
    flat_row_start,
    loss,
    loss_from_products,
    mu_terms,
    mu_update_w,
    penalty,
    product_at_entries,
    solve_rows,
)
from ._nmf import FLOAT32_TOL, NMF

BLOCK_ENTRIES = 1 << 21  # rows per block of the W solve: about this many entries
_OWN = ("solver", "shuffle")  # NMF's parameters that the online fit does not have


class MiniBatchNMF(NMF):
    """Non-negative matrix factorisation ``X ~ W H`` fitted on mini-batches of rows.

    A drop-in for ``sklearn.decomposition.MiniBatchNMF``. Each step updates the batch's
    rows of W by a multiplicative update (or solves them afresh, ``fresh_restarts``), then
    H from the sums of the update's numerator and denominator over the batches seen so
    far, the older ones discounted by ``forget_factor``. ``partial_fit`` streams batches
    that never sit in memory together. Missing values (NaN) are left out of the loss;
    sparse input is never densified (Frobenius and Kullback-Leibler losses).

    Parameters
    ----------
    n_components : int, 'auto' or None
        As in ``NMF``.
    init : {None, 'random', 'nndsvd', 'nndsvda', 'nndsvdar', 'custom'}
        The start, computed on the whole of X (as in ``NMF``).
    batch_size : int, default=1024
        Rows per mini-batch; the batches are consecutive slices of the rows, in order.
    beta_loss : {'frobenius', 'kullback-leibler', 'itakura-saito'} or float
    tol : float, default=1e-4
        Stop when a step changed H by at most ``tol`` times its norm (Frobenius norms);
        0 turns this rule off. Also the stopping rule of the solves for W (relative
        change of W).
    max_no_improvement : int or None, default=10
        Stop after that many steps without a decrease of the smoothed batch objective
        (an exponentially weighted average over about one pass); None turns it off.
    max_iter : int, default=200
        Passes over the data at most.
    alpha_W, alpha_H, l1_ratio : float
        Penalties as in ``NMF``; the penalty on H is scaled by the rows of each batch.
    forget_factor : float in [0, 1], default=0.7
        Weight of the past after one pass over the data (each step multiplies the sums
        by ``forget_factor ** (batch_size / n_samples)``; each ``partial_fit`` call by
        ``forget_factor``). 1 keeps every batch in full (finite data); below 1 favours
        recent batches (data that drift). The sums start as one pseudo-batch holding H
        at its start (numerator H, denominator 1), which the forgetting also discounts.
    fresh_restarts : bool, default=False
        Solve each batch's W from a flat start (up to ``fresh_restarts_max_iter``
        updates) instead of one update from its last value.
    fresh_restarts_max_iter : int, default=30
    transform_max_iter : int or None
        Updates of W in ``transform`` and, with ``fresh_restarts``, at the end of ``fit``
        (None: ``max_iter``).
    random_state : None, int, RandomState or Generator
        The start ('random', 'nndsvdar' and the randomized SVD of the others).
    verbose : int or bool
    callbacks : callable or list of callables, optional
        ``callback(step, objective, state) -> stop?`` after every mini-batch (the objective:
        the smoothed cost per row).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        H.
    components_numerator_, components_denominator_ : ndarray of shape (n_components, n_features)
        The discounted sums of the update's two halves: ``partial_fit`` goes on from
        them, also in a model loaded from a file.
    reconstruction_err_ : float
        ``sqrt(2 * loss)`` of the training data with the W that ``fit_transform`` returns.
    n_iter_ : int
        Passes over the data started.
    n_steps_ : int
        Mini-batches processed.
    n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import MiniBatchNMF
    >>> X = np.random.default_rng(0).random((500, 6))
    >>> model = MiniBatchNMF(n_components=2, batch_size=100, random_state=0).fit(X)
    >>> model.transform(X[:3]).shape, bool((model.components_ >= 0).all())
    ((3, 2), True)
    """

    _parameter_constraints = {
        **{name: rule for name, rule in NMF._parameter_constraints.items() if name not in _OWN},
        "batch_size": [Interval(int, 1, None, closed="left")],
        "max_no_improvement": [NONE, Interval(int, 1, None, closed="left")],
        "forget_factor": [Interval(float, 0, 1, closed="both")],
        "fresh_restarts": [BOOLEAN],
        "fresh_restarts_max_iter": [Interval(int, 1, None, closed="left")],
        "transform_max_iter": [NONE, Interval(int, 1, None, closed="left")],
        "callbacks": CALLBACKS,
    }
    _solver = "mu"

    def __init__(
        self,
        n_components="auto",
        *,
        init=None,
        batch_size=1024,
        beta_loss="frobenius",
        tol=1e-4,
        max_no_improvement=10,
        max_iter=200,
        alpha_W=0.0,
        alpha_H="same",
        l1_ratio=0.0,
        forget_factor=0.7,
        fresh_restarts=False,
        fresh_restarts_max_iter=30,
        transform_max_iter=None,
        random_state=None,
        verbose=0,
        callbacks=None,
    ):
        self.n_components = n_components
        self.init = init
        self.batch_size = batch_size
        self.beta_loss = beta_loss
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.max_iter = max_iter
        self.alpha_W = alpha_W
        self.alpha_H = alpha_H
        self.l1_ratio = l1_ratio
        self.forget_factor = forget_factor
        self.fresh_restarts = fresh_restarts
        self.fresh_restarts_max_iter = fresh_restarts_max_iter
        self.transform_max_iter = transform_max_iter
        self.random_state = random_state
        self.callbacks = callbacks
        self.verbose = verbose

    def _float32_arithmetic(self):
        """Float32 data are factorised in float32 unless tol asks for more (as ``NMF``)."""
        return self.tol >= FLOAT32_TOL

    def _begin(self, X, W, H, rng, *, stream=False):
        """Checked data and the starting W, H; the running sums started. A stream
        (``partial_fit``) may start with one row, a fit needs two (as NMF)."""
        X, mask, dtype = self._check(X, reset=True)
        n, d = X.shape
        k = self._n_components(n, d, W, H)
        if not stream:
            check_n_components(None, n, d, type(self).__name__)
        if n > 1:  # one row (a stream's first) says nothing of the columns' variation
            warn_constant_features(column_moments(X)[1], self._shown_name, X=X)
        W, H = self._starting_factors(X, W, H, k, rng)
        # the sums start as one pseudo-batch that holds H where it starts (numerator H,
        # denominator 1, as scikit-learn): the first batches move H towards their own fit
        # instead of replacing it with a fit to a few hundred rows
        self.components_numerator_ = H.copy()
        self.components_denominator_ = np.ones((k, d), dtype=X.dtype)
        self.n_components_, self.n_steps_ = int(k), 0
        return X, mask, dtype, W, H

    def fit_transform(self, X, y=None, W=None, H=None):
        """Fit on mini-batches of X's rows and return W for all of X: each row's W as
        its last batch left it, as scikit-learn; with ``fresh_restarts`` solved again for
        the final H as ``transform`` solves it, so the result is ``fit(X).transform(X)``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), non-negative
        y : ignored
        W, H : ndarray, optional
            The start with ``init='custom'``.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        validate_params(self)
        X, mask, dtype, W, H = self._begin(X, W, H, check_random_state(self.random_state))
        n = X.shape[0]
        batch = min(self.batch_size, n)
        slices = [slice(i, min(i + batch, n)) for i in range(0, n, batch)]
        rho = self.forget_factor ** (batch / n)
        sq_rows = _row_squares(X) if mask is None and beta_value(self.beta_loss) == 2.0 else None
        smoothing = SmoothedObjective(min(1.0, batch / (n + 1)), self.max_no_improvement)

        changes = []  # H's relative change at each step of the last pass

        def step(H):
            part = slices[self.n_steps_ % len(slices)]
            sq = None if sq_rows is None else float(sq_rows[part].sum())
            W[part], H_new, cost = self._step(X[part], _rows(mask, part), W[part], H, rho, sq)
            self.n_steps_ += 1
            changes.append(np.linalg.norm(H_new - H) / max(np.linalg.norm(H), 1e-300))
            del changes[: -len(slices)]
            # settled when every batch of a whole pass moved H little: one batch that does
            # not move it (rows of zeros, say) says nothing about the others
            change = max(changes) if len(changes) == len(slices) else np.inf
            # the first batch's objective is measured at the start, before any update of H
            if self.n_steps_ > 1 and smoothing.stale(cost / (part.stop - part.start)):
                change = STOP
            objective = smoothing.average if smoothing.average is not None else cost / (part.stop - part.start)
            return H_new, objective, change if self.tol > 0 or change is STOP else np.inf

        result = run_loop(
            step,
            H,
            max_iter=self.max_iter * len(slices),
            tol=self.tol,
            callbacks=callback_list(self.callbacks),
            verbose=self.verbose,
            label="MiniBatchNMF",
            warn=False,
        )
        if not result.converged and self.tol > 0:
            self._warn_max_iter()
        H = result.state
        if self.fresh_restarts:  # W solved afresh for the final H, exactly as transform solves it,
            # so that fit_transform(X) is fit(X).transform(X) (scikit-learn's promise with fresh restarts)
            W = self._solve_w(
                X, mask, H.astype(dtype).astype(H.dtype), self.transform_max_iter or self.max_iter, each_row=True
            )
        self.reconstruction_err_ = float(np.sqrt(2 * loss(X, W, H, mask, self.beta_loss)))
        self.components_ = H.astype(dtype)
        self.n_iter_ = int(np.ceil(self.n_steps_ / len(slices)))
        return W.astype(dtype)

    def _warn_max_iter(self):
        warn_user(
            f"MiniBatchNMF ran max_iter={self.max_iter} passes over the data ({self.n_steps_} mini-batches) "
            f"without H settling within tol={self.tol:g}: Maximum number of iterations {self.max_iter} "
            "reached. Increase it to improve convergence.",
            ConvergenceWarning,
        )

    def _step(self, X, mask, W, H, rho, sq=None):
        """One mini-batch: W's rows updated, then H from the discounted sums. Returns
        (W, H, the batch's objective at the updated W and the old H)."""
        pen = self._penalties(X.shape[0], X.shape[1])
        if self.fresh_restarts:
            W = self._solve_w(X, mask, H, self.fresh_restarts_max_iter)
        else:
            W = mu_update_w(X, W, H, mask, self.beta_loss, pen[0], pen[1])
        product = None
        if beta_value(self.beta_loss) != 2.0:  # W H once, for the objective, then the update
            product = product_at_entries(W, H, X) if sp.issparse(X) else W @ H
            cost = loss(X, W, H, mask, self.beta_loss, product=product)
        numerator, denominator, gamma = mu_terms(X, W, H, mask, self.beta_loss, pen[2], pen[3], product)
        if product is None:  # the objective from products at hand, or from its definition
            cost = loss_from_products(sq, numerator, W.T @ W, H) if sq is not None else loss(X, W, H, mask)
        cost += penalty(W, H, pen)
        A, B = self.components_numerator_, self.components_denominator_
        A *= rho
        A += numerator * (H if gamma == 1.0 else H ** (1.0 / gamma))
        B *= rho
        B += denominator
        H = A / np.maximum(B, EPS)
        return W, (H if gamma == 1.0 else H**gamma), cost

    def _solve_w(self, X, mask, H, max_iter, *, each_row=False):
        """W for rows X with H fixed: multiplicative updates from a flat start until W
        changes by at most ``tol`` of its norm; with ``each_row`` (transform), each row
        from its own scale and until it alone changes that little (``solve_rows``), so
        that a row's codes do not depend on the rows passed with it. With the Frobenius
        loss on complete rows, ``X H^T`` and ``H H^T`` are formed once for all the
        updates; the other losses update blocks of dense rows in turn, so no temporary
        is larger than a block."""
        update = self._w_update(X, mask, H)
        if each_row:
            W = flat_row_start(X, H.shape[0]).astype(H.dtype)
            return solve_rows(update, W, tol=self.tol, max_iter=max_iter)[0]
        W = np.full((X.shape[0], H.shape[0]), np.sqrt(max(float(X.mean()), 1e-12) / H.shape[0]), dtype=H.dtype)
        for _ in range(max_iter):
            W_new = update(None, W)
            change = np.linalg.norm(W_new - W) / max(np.linalg.norm(W), 1e-300)
            W = W_new
            if self.tol > 0 and change <= self.tol:
                break
        return W

    def _w_update(self, X, mask, H):
        """``update(rows, W_rows)``: one multiplicative update of the W of ``rows`` (None:
        all of them)."""
        l1, l2 = self._penalties(X.shape[0], X.shape[1])[:2]  # W's: scaled by the features, not the rows
        if mask is None and beta_value(self.beta_loss) == 2.0:
            XHt, HHt = np.asarray(X @ H.T), H @ H.T

            def update(rows, W):
                numerator = XHt if rows is None else XHt[rows]
                return W * numerator / np.maximum(W @ HHt + l2 * W + l1, EPS)

            return update
        # sparse rows: temporaries hold only the stored entries, so one block
        block = X.shape[0] if sp.issparse(X) else max(1, BLOCK_ENTRIES // max(X.shape[1], 1))

        def update(rows, W):
            Xr, mr = (X, mask) if rows is None else (X[rows], _rows(mask, rows))
            parts = [slice(i, i + block) for i in range(0, Xr.shape[0], block)]
            return np.vstack([mu_update_w(Xr[p], W[p], H, _rows(mr, p), self.beta_loss, l1, l2) for p in parts])

        return update

    def partial_fit(self, X, y=None, W=None, H=None):
        """Update H with one batch of rows (the first call starts the model on it).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), non-negative
        y : ignored
        W, H : ndarray, optional
            The start with ``init='custom'`` (first call only).

        Returns
        -------
        self
        """
        if not hasattr(self, "components_"):
            validate_params(self)
            X, mask, dtype, _, H = self._begin(X, W, H, check_random_state(self.random_state), stream=True)
        else:
            X, mask, dtype = self._check(X, reset=False)
            H = self.components_.astype(X.dtype)
            self.components_numerator_ = self.components_numerator_.astype(X.dtype)
            self.components_denominator_ = self.components_denominator_.astype(X.dtype)
        W = self._solve_w(X, mask, H, self.fresh_restarts_max_iter)
        _, H, _ = self._step(X, mask, W, H, self.forget_factor)
        self.components_ = H.astype(dtype)
        self.n_steps_ += 1
        return self

    def transform(self, X):
        """W for new rows with H fixed (multiplicative updates, observed entries only),
        each row on its own: a row gets the same codes alone or with other rows.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X, mask, dtype = self._check(X, reset=False)  # also checks the model is fitted
        H = self.components_.astype(X.dtype)
        return self._solve_w(X, mask, H, self.transform_max_iter or self.max_iter, each_row=True).astype(dtype)


def _rows(mask, part):
    return None if mask is None else mask[part]


def _row_squares(X):
    """Each row's squared norm, in float64."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)
