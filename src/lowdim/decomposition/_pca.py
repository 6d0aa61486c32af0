"""Principal component analysis with named solvers, streaming and sparse input."""

import numbers
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._estimator import ComponentTransformer, DensityScoreMixin
from .._params import BOOLEAN, NONE, RANDOM_STATE, VERBOSE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import (
    check_finite,
    check_n_components,
    convert_array,
    warn_constant_features,
)
from ..distributed import check_dask_array, is_dask_array, map_rows, progress_wanted
from ..linalg import ScatterAccumulator, block_rows, flip_signs
from ._n_components import explained_shares, resolve_n_components
from ._pca_dask import choose_dask_solver, dask_spectrum
from ._pca_solvers import SOLVERS, SolverOptions, choose_solver, spectrum_from_scatter
from ._ppca_likelihood import ppca_loglik_curve

TRANSFORM_BLOCK_BYTES = 1 << 25  # rows of a memory map projected at once (~32 MB)


class FinishedOnRead:
    """A fitted attribute that ``partial_fit`` leaves pending: the first read after the
    last ``partial_fit`` runs the one eigendecomposition of the streamed moments
    (``_finish_streaming``), so streaming many chunks costs one, not one per chunk.
    The value lives in the instance's ``__dict__`` under the attribute's own name.
    """

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if obj.__dict__.get("_pending_dtype") is not None:
            obj._finish_streaming(obj._pending_dtype)
        try:
            return obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}") from None

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value

    def __delete__(self, obj):
        del obj.__dict__[self.name]


# a loaded model's running moments, which partial_fit continues (``_resume_state``)
_RUNNING = ("running_mean_", "running_scatter_", "running_rows_")

# fitted attributes that partial_fit leaves to be computed on first access
_DEFERRED = (
    "components_",
    "explained_variance_",
    "explained_variance_ratio_",
    "singular_values_",
    "mean_",
    "scale_",
    "noise_variance_",
    "total_variance_",
    "n_components_",
    "n_samples_",
    "solver_",
    "n_iter_",
)

_SKLEARN_SOLVER_NAMES = {
    "auto": "auto",
    "full": "svd",
    "covariance_eigh": "covariance",
    "arpack": "lanczos",
    "randomized": "randomized",
}


class PCA(DensityScoreMixin, ComponentTransformer):
    """Principal component analysis: a drop-in for ``sklearn.decomposition.PCA``.

    Parameters
    ----------
    n_components : int, float in (0, 1), 'mle' or None
        Number of components; a float keeps the smallest number explaining that
        fraction of the variance; 'mle' uses Minka's MLE; None keeps min(n, d)
        (``min(n, d) - 1`` with 'lanczos', ARPACK's limit, as scikit-learn's 'arpack');
        0 keeps none (``transform`` returns an (n, 0) array).
    solver : {'auto', 'covariance', 'gram', 'svd', 'randomized', 'power', 'lanczos'}
        'covariance': one pass, ``X^T X`` in row blocks, top-k symmetric eigensolver
        (for float32 data in float32, refined in float64: ``linalg.top_eigh``). With
        float32 data the products round at about eps32 times the largest entries of
        ``X^T X``, so small eigenvalues under a far larger one lose digits (two groups
        1,000 apart with unit spread: 70 % off at a ratio of 3e6), as with
        scikit-learn's 'covariance_eigh'; use float64 data or 'svd' there;
        'gram': eigendecomposition of the N x N Gram matrix for D >> N (never D x D);
        'svd': LAPACK SVD of the centred data (most accurate);
        'randomized': Halko-Martinsson-Tropp subspace iteration on the smaller side
        with Rayleigh-Ritz after every pass: ``q + 2`` passes over the data for n > d,
        ``q + 3`` for n <= d (one is for the moments), q = ``iterated_power``;
        'power': power iteration with deflation, one component at a time, to ``tol``;
        'lanczos': ARPACK on an implicitly centred operator (for sparse input);
        'auto': see ``choose_solver``; the choice is stored in ``solver_``.
    whiten : bool
        Scale the projections to unit variance.
    standardize : bool
        Divide each feature by its standard deviation first (PCA of the correlation
        matrix); constant features are left unscaled, with a warning.
    copy : bool
        Kept for compatibility; the input is never modified.
    tol : float
        Convergence tolerance of 'lanczos' (0 = machine precision) and 'power'
        (sine of the angle between iterates; 0 means 1e-6).
    iterated_power : int or 'auto'
        Power iterations of 'randomized'. 'auto': up to 7, stopping as soon as the next
        change of the top Ritz values, extrapolated from the last two passes, is below
        1e-6 (float32) or 1e-9 (float64) of the largest (about 3 passes for a
        decaying spectrum, all 8 for a flat one).
    n_oversamples : int
        Extra random vectors for 'randomized'.
    max_iter : int
        Iteration cap of 'power' (per component) and 'lanczos' (restarts / 10).
    random_state : None, int, RandomState or Generator
        Seeds 'randomized', 'power' and 'lanczos'.
    verbose : int
        Progress output (streaming fits show a progress bar).
    svd_solver : str or None
        scikit-learn's name for ``solver`` ('full', 'covariance_eigh', 'arpack',
        'randomized', 'auto'); when set it overrides ``solver``.
    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}
        scikit-learn's choice of how 'randomized' keeps its basis well conditioned
        between power iterations. Every value runs the same iteration in lowdim, which
        orthonormalises the basis by a Rayleigh-Ritz step after every pass (at least as
        stable as 'QR', the most stable of the three); accepted so that scikit-learn
        code runs unchanged.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Principal axes (rows, orthonormal); the largest-magnitude entry of each is positive.
    explained_variance_ : ndarray of shape (n_components,)
        Variance along each component (ddof = 1).
    explained_variance_ratio_ : ndarray of shape (n_components,)
    singular_values_ : ndarray of shape (n_components,)
    mean_ : ndarray of shape (n_features,)
    scale_ : ndarray of shape (n_features,) or None
        Standard deviations used when ``standardize=True``.
    noise_variance_ : float
        Mean of the discarded eigenvalues (probabilistic PCA noise).
    total_variance_ : float
    n_components_, n_samples_, n_samples_seen_, n_features_in_ : int
    n_iter_ : int
        'power': iterations over all components; 'randomized': passes of ``X^T X``;
        'lanczos': products with X and X^T; 1 for the direct solvers.
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.
    solver_ : str
        The solver that ran.
    running_mean_, running_scatter_ : ndarray of shape (n_features,), (n_features, n_features)
        On a model loaded from a file only: the float64 mean and centred scatter of the
        rows seen, which ``save`` keeps for a model built by streaming (``partial_fit``,
        an iterator of chunks, ``IncrementalPCA``) so that ``partial_fit`` continues it
        exactly; the next ``partial_fit`` takes them over.
    running_rows_ : ndarray of shape (n_rows, n_features)
        Instead of ``running_scatter_`` for a stream of fewer rows than half its columns:
        rows whose ``running_rows_.T @ running_rows_`` is the centred scatter
        (``linalg.ScatterAccumulator.factor``), about one per row seen.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import PCA
    >>> X = np.random.default_rng(0).normal(size=(200, 6))
    >>> pca = PCA(n_components=2, solver="covariance").fit(X)
    >>> pca.transform(X).shape
    (200, 2)
    """

    _deferred = _DEFERRED
    _resume_attributes = _RUNNING
    # the fitted attributes partial_fit leaves pending
    components_ = FinishedOnRead()
    explained_variance_ = FinishedOnRead()
    explained_variance_ratio_ = FinishedOnRead()
    singular_values_ = FinishedOnRead()
    mean_ = FinishedOnRead()
    scale_ = FinishedOnRead()
    noise_variance_ = FinishedOnRead()
    total_variance_ = FinishedOnRead()
    n_components_ = FinishedOnRead()
    n_samples_ = FinishedOnRead()
    solver_ = FinishedOnRead()
    n_iter_ = FinishedOnRead()
    _parameter_constraints = {
        "n_components": [
            NONE,
            Interval(int, 0, None, closed="left"),
            Interval(float, 0, 1, closed="neither"),
            Options({"mle"}),
        ],
        "solver": [Options({"auto", "covariance", "gram", "svd", "randomized", "power", "lanczos"})],
        "whiten": [BOOLEAN],
        "standardize": [BOOLEAN],
        "copy": [BOOLEAN],
        "tol": [Interval(float, 0, None, closed="left")],
        "iterated_power": [Interval(int, 0, None, closed="left"), Options({"auto"})],
        "n_oversamples": [Interval(int, 1, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "verbose": VERBOSE,
        "svd_solver": [NONE, Options(set(_SKLEARN_SOLVER_NAMES))],
        "power_iteration_normalizer": [Options({"auto", "QR", "LU", "none"})],
    }

    def __init__(
        self,
        n_components=None,
        *,
        solver="auto",
        whiten=False,
        standardize=False,
        copy=True,
        tol=0.0,
        iterated_power="auto",
        n_oversamples=10,
        max_iter=1000,
        random_state=None,
        verbose=0,
        svd_solver=None,
        power_iteration_normalizer="auto",
    ):
        self.n_components = n_components
        self.solver = solver
        self.whiten = whiten
        self.standardize = standardize
        self.copy = copy
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.svd_solver = svd_solver
        self.power_iteration_normalizer = power_iteration_normalizer

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None):
        """Fit the model on ``X``: an array, sparse matrix, memory map or iterator of chunks.

        Parameters
        ----------
        X : array-like, sparse matrix, dask array or iterator of arrays
            An iterator of 2-D row chunks is streamed through exact moment
            accumulation (one pass, memory O(min(n, d) d), solver 'covariance'); the result
            equals the batch fit. With ``verbose``, long fits show a progress bar.
            A ``dask.array`` is fitted by map-reduce over its row blocks with solver
            'covariance', 'svd' (TSQR) or 'randomized' (see ``lowdim.distributed``).
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        for attr in ("_accumulator", "_pending_dtype", "_streamed", "n_features_in_", "feature_names_in_", *_RUNNING):
            self.__dict__.pop(attr, None)  # fit starts afresh, also after partial_fit
        if is_dask_array(X):
            return self._fit_dask(X)
        if isinstance(X, Iterator):
            if self._requested_solver() not in ("auto", "covariance"):
                raise ValueError(
                    f"fit on an iterator of chunks accumulates exact moments (solver "
                    f"'covariance'); solver={self._requested_solver()!r} needs the whole "
                    "array: pass an array or memory map, or use solver='auto'."
                )
            return self._fit_chunks(X)
        X = self._validate_input(X, reset=True, accept_sparse=True, validate=convert_array)
        n, d = X.shape
        self._check_n_samples(n, d)
        solver = self._resolve_solver(n, d, sp.issparse(X))
        # every solver starts from column moments, which are finite exactly when the
        # data are: the NaN/infinity scan runs only when they are not (convert_array)
        spectrum = SOLVERS[solver].fit(X, self._solver_k(solver, n, d), self._solver_options(n, d))
        self._set_spectrum(spectrum, X.dtype, solver, X)
        return self

    def _fit_dask(self, X):
        """Map-reduce over the row blocks; only small arrays reach the client."""
        X = check_dask_array(X, type(self).__name__)
        n, d = X.shape
        self._check_n_samples(n, d)
        k = self.n_components
        want_k = int(k) if isinstance(k, numbers.Integral) else None
        solver = self._requested_solver()
        if solver == "auto":
            solver = choose_dask_solver(n, d, want_k)
        if solver == "randomized" and want_k is None:
            raise ValueError(
                f"n_components={k!r} needs the whole spectrum, which solver='randomized' "
                "does not compute; use solver='covariance' or 'svd' (TSQR) on dask arrays."
            )
        with progress_wanted(self.verbose):
            spectrum = dask_spectrum(X, solver, want_k, self._solver_options(n, d))
        self.n_features_in_ = d
        self._set_spectrum(spectrum, X.dtype, solver)
        return self

    def _fit_chunks(self, chunks):
        from .._progress import progress_bar

        dtype = None
        for chunk in progress_bar(chunks, desc="PCA chunks", unit="chunk", disable=not self.verbose):
            block = self._accumulate(chunk)
            dtype = np.result_type(dtype, block.dtype) if dtype is not None else block.dtype
        if dtype is None:
            raise ValueError("The iterator passed to fit yielded no chunks; pass at least 2 rows.")
        self._finish_streaming(dtype)
        return self

    def partial_fit(self, X, y=None):
        """Add the rows of ``X`` to exact running moments.

        Any split of the data into ``partial_fit`` calls gives the same model as one
        ``fit`` with the covariance solver (up to rounding). The eigendecomposition is
        deferred: it runs once, when a fitted attribute (``components_``, ...) or a
        method that needs it is first used after the last ``partial_fit``, so streaming
        many chunks costs one pass over the data plus one eigendecomposition. At least
        ``max(2, n_components)`` rows must have been seen by then.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        if "_accumulator" not in self.__dict__:
            if "running_mean_" in self.__dict__:
                self._resume_moments()
            elif "solver_" in self.__dict__:
                raise ValueError(self._no_moments_message())
            else:
                validate_params(self)
        block = self._accumulate(X)
        for name in self._deferred:
            self.__dict__.pop(name, None)
        self._pending_dtype = (
            block.dtype
            if self.__dict__.get("_pending_dtype") is None
            else np.result_type(self._pending_dtype, block.dtype)
        )
        self.n_samples_seen_ = self._accumulator.n
        return self

    def _no_moments_message(self):
        if self.solver_ == "covariance":  # a fit of one array, saved and loaded
            held = (
                "was loaded from a file without them (save keeps them for a model built by partial_fit or "
                "from chunks); refit on all rows"
            )
        else:
            held = f"was fitted with solver={self.solver_!r}, which keeps none; fit with solver='covariance' first"
        return f"partial_fit continues exact running moments, but this model {held}, or use a fresh estimator."

    def _resume_moments(self):
        """The running moments of a loaded model, back in an accumulator that
        ``partial_fit`` continues (the stream's dtype so far: its mean's)."""
        mean, n = self.__dict__.pop("running_mean_"), self.n_samples_seen_
        if "running_rows_" in self.__dict__:
            self._accumulator = ScatterAccumulator.from_factor(n, mean, self.__dict__.pop("running_rows_"))
        else:
            self._accumulator = ScatterAccumulator.from_moments(n, mean, self.__dict__.pop("running_scatter_"))
        self._streamed = True
        self._pending_dtype = self.__dict__["mean_"].dtype

    def _resume_state(self):
        """What ``save`` keeps beyond the fitted attributes of a model built by streaming
        (``partial_fit``, chunks): the running moments (float64 mean and centred scatter,
        ``n_features`` squared numbers, or while the rows seen are fewer than half the
        columns the accumulator's factor), so that ``partial_fit`` continues a loaded model
        exactly. A fit of one array keeps none in its file (its moments would outweigh it)."""
        if not self.__dict__.get("_streamed"):
            return {}
        factor = self._accumulator.factor()
        if factor is not None:
            return {"running_mean_": factor[1], "running_rows_": factor[2]}
        _, mean, scatter = self._accumulator.moments()
        return {"running_mean_": mean, "running_scatter_": (scatter + scatter.T) / 2}  # BLAS's X^T X may round apart

    def _check_loaded(self):
        """Loaded running moments are a scatter: symmetric (``save`` writes it so), with a
        non-negative diagonal (rows of a factor are one whatever they hold), of a count of
        rows seen."""
        held = [name for name in _RUNNING if name in self.__dict__]
        if not held:
            return
        if held not in (["running_mean_", "running_scatter_"], ["running_mean_", "running_rows_"]):
            raise ValueError(
                f"running moments are running_mean_ with running_scatter_ or with running_rows_; the file holds {held}"
            )
        scatter = self.__dict__.get("running_scatter_")
        if scatter is not None and ((scatter != scatter.T).any() or (np.diag(scatter) < 0).any()):
            raise ValueError("running_scatter_ is not a scatter matrix (symmetric, non-negative diagonal)")
        if not isinstance(self.__dict__.get("n_samples_seen_"), numbers.Integral) or self.n_samples_seen_ < 1:
            raise ValueError("running moments without the count of rows they sum (n_samples_seen_)")

    def _sync_fitted(self):
        """Complete any deferred decomposition (used before saving)."""
        if self.__dict__.get("_pending_dtype") is not None:
            self._finish_streaming(self._pending_dtype)

    def _accumulate(self, X):
        first = "_accumulator" not in self.__dict__
        X = self._validate_input(X, reset=first, check_fitted=False, accept_sparse=True, validate=convert_array)
        if first:
            self._accumulator = ScatterAccumulator(X.shape[1])
        self._streamed = True  # save keeps the moments (``_resume_state``)
        self._accumulator.update(
            X, on_nonfinite=lambda: check_finite(X, columns=getattr(self, "feature_names_in_", None))
        )
        return X

    def _finish_streaming(self, dtype):
        acc = self._accumulator
        n, d = acc.n, acc.n_features
        self._check_n_samples(n, d)
        spectrum = spectrum_from_scatter(acc, self._solver_k("covariance", n, d), self._solver_options(n, d), dtype)
        self._set_spectrum(spectrum, dtype, "covariance")
        self._pending_dtype = None

    def _check_n_samples(self, n, d):
        k = self.n_components
        if isinstance(k, numbers.Integral) and k > min(n, d) and n >= 2:
            raise ValueError(
                f"n_components={k} must be at most min(n_samples, n_features) = min({n}, {d}) = {min(n, d)}; lower "
                f"n_components. (scikit-learn: n_components={k} must be between 0 and min(n_samples, "
                f"n_features)={min(n, d)} with svd_solver='{self._sklearn_solver_name('full')}'.)"
            )
        check_n_components(k if isinstance(k, numbers.Integral) else None, n, d, type(self).__name__)

    def _sklearn_solver_name(self, auto):
        """The solver as the user named it in scikit-learn's terms (``auto`` for 'auto'),
        for messages that keep scikit-learn's sentences."""
        named = self.svd_solver or {v: k for k, v in _SKLEARN_SOLVER_NAMES.items()}.get(self.solver, self.solver)
        return auto if named == "auto" else named

    def _requested_solver(self):
        return self.solver if self.svd_solver is None else _SKLEARN_SOLVER_NAMES[self.svd_solver]

    def _resolve_solver(self, n, d, sparse):
        solver = self._requested_solver()
        k = self.n_components
        want_k = k if isinstance(k, numbers.Integral) else None
        if solver == "auto":
            solver = choose_solver(n, d, want_k, sparse)
        if sparse and not SOLVERS[solver].sparse_ok:
            raise TypeError(
                f"solver={solver!r} does not accept sparse input; use 'lanczos', "
                "'randomized', 'power' or 'covariance' (or 'auto')."
            )
        # None: every component, min(n, d) (ARPACK: one fewer, as scikit-learn's 'arpack')
        partial_ok = want_k is not None or k is None or (solver == "power" and k != "mle")
        if not SOLVERS[solver].complete and not partial_ok:
            said = f"n_components={k!r} cannot be a string with svd_solver='{self._sklearn_solver_name(solver)}': "
            raise ValueError(
                (said if isinstance(k, str) else "")
                + f"n_components={k!r} needs the whole spectrum, which solver={solver!r} "
                "does not compute; use solver='covariance', 'svd', 'gram' or 'auto'"
                + (" (or 'power' for a variance fraction)." if k != "mle" else ".")
            )
        if solver == "lanczos" and want_k is not None and want_k >= min(n, d):
            raise ValueError(
                f"n_components={want_k} must be strictly less than min(n_samples, n_features)={min(n, d)} "
                f"with svd_solver='arpack': solver='lanczos' (scikit-learn's 'arpack') needs n_components < "
                f"min(n_samples, n_features) = {min(n, d)}; got {want_k}. Use solver='covariance' or 'svd'."
            )
        return solver

    def _solver_k(self, solver, n, d):
        k = self.n_components
        if isinstance(k, numbers.Integral):
            return max(int(k), 1)  # n_components=0 solves for one and keeps none
        if solver in ("power", "randomized") or (k is None and solver == "lanczos"):
            return min(n, d) - (solver == "lanczos")
        return None

    def _solver_options(self, n, d):
        k = self.n_components
        fraction = float(k) if isinstance(k, float) else None
        return SolverOptions(
            standardize=bool(self.standardize),
            tol=float(self.tol),
            max_iter=self.max_iter,
            n_oversamples=self.n_oversamples,
            iterated_power=self.iterated_power,
            rng=check_random_state(self.random_state),
            stop_fraction=fraction,
            verbose=int(self.verbose),
            columns=getattr(self, "feature_names_in_", None),
        )

    def _set_spectrum(self, spectrum, dtype, solver, X=None):
        n, d = spectrum.n_samples, spectrum.mean.size
        warn_constant_features(spectrum.variances, self._shown_name, X=X)
        k = min(resolve_n_components(self.n_components, spectrum, n, d), spectrum.eigenvalues.size)
        if self.n_components == 0:
            k = 0
        total = spectrum.total_variance
        eig = spectrum.eigenvalues[:k]
        (components,) = flip_signs(np.asarray(spectrum.components[:k], dtype=np.float64))
        rest = min(n, d) - k
        self.noise_variance_ = float(max(total - eig.sum(), 0.0) / rest) if rest > 0 else 0.0
        self.components_ = components.astype(dtype)
        self.explained_variance_ = eig.astype(dtype)
        ratio = explained_shares(eig, total)
        self.explained_variance_ratio_ = ratio.astype(dtype)
        self.singular_values_ = np.sqrt(eig * (n - 1)).astype(dtype)
        self.mean_ = spectrum.mean.astype(dtype)
        self.scale_ = None if spectrum.scale is None else spectrum.scale.astype(dtype)
        self.total_variance_ = float(total)
        self.n_components_ = int(k)
        self.n_samples_ = self.n_samples_seen_ = int(n)
        self.solver_ = solver
        self.n_iter_ = int(spectrum.n_iter)
        if spectrum.accumulator is not None:
            self._accumulator = spectrum.accumulator  # partial_fit may continue from here

    # ------------------------------------------------------------------ using the model
    def _transform_blocks(self, X):
        """``transform`` of a memory map, one row block at a time."""
        rows = block_rows(X.shape[1], X.dtype.itemsize, TRANSFORM_BLOCK_BYTES)
        out = None
        for start in range(0, X.shape[0], rows):
            stop = min(X.shape[0], start + rows)
            try:
                Z = self.transform(np.asarray(X[start:stop]))
            except ValueError as exc:  # name the rows of the file, not of the block
                raise ValueError(
                    f"in rows {start} to {stop - 1} of the memory-mapped X (row numbers below count "
                    f"from {start}): {exc}"
                ) from None
            if out is None:
                out = np.empty((X.shape[0], Z.shape[1]), dtype=Z.dtype)
            out[start:stop] = Z
        return out

    def _centered(self, X):
        """Validated, centred (and scaled) copy of X, float dtype of the model."""
        X = self._validate_input(X, reset=False, accept_sparse=True)
        if sp.issparse(X):
            X = X.toarray() if X.shape[0] * X.shape[1] <= 10_000_000 else X
        if sp.issparse(X):
            return None, X
        Xc = X - self.mean_
        if self.scale_ is not None:
            Xc /= self.scale_
        return Xc, X

    def transform(self, X):
        """Project ``X`` on the principal components.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            A lazy dask array when ``X`` is one. A memory map is read in row blocks:
            memory holds one block and the scores, never a copy of the file.
        """
        if isinstance(X, np.memmap) and X.ndim == 2 and X.shape[0] > 0:
            return self._transform_blocks(X)
        if is_dask_array(X):
            check_is_fitted(self)
            return map_rows(
                self.transform,
                X,
                self.n_components_,
                self.components_.dtype,
                n_features=self.n_features_in_,
                estimator_name=type(self).__name__,
            )
        Xc, X = self._centered(X)
        W = self.components_
        if Xc is None:  # large sparse input: never densified
            Ws = W if self.scale_ is None else W / self.scale_
            Z = np.asarray(X @ Ws.T) - self.mean_ @ Ws.T
        else:
            Z = Xc @ W.T
        if self.whiten:
            Z /= np.sqrt(np.maximum(self.explained_variance_, np.finfo(W.dtype).tiny))
        return Z.astype(self.components_.dtype, copy=False)

    def inverse_transform(self, X):
        """Map projections back to feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            A lazy dask array when ``X`` is one.
        """
        if is_dask_array(X):
            check_is_fitted(self)
            return map_rows(
                self.inverse_transform,
                X,
                self.n_features_in_,
                self.components_.dtype,
                n_features=self.n_components_,
                estimator_name=type(self).__name__,
            )
        Z = self._validate_codes(X)
        if self.whiten:
            Z = Z * np.sqrt(self.explained_variance_)
        Xr = Z @ self.components_
        if self.scale_ is not None:
            Xr *= self.scale_
        return (Xr + self.mean_).astype(self.components_.dtype, copy=False)

    def reconstruction_error(self, X):
        """Mean over samples of the squared distance between ``x`` and its reconstruction.

        On the training data this equals ``(n - 1) / n`` times the sum of the discarded
        eigenvalues (in standardised units when ``standardize=True``, scaled back here).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        Xc, _ = self._centered(X)
        resid = Xc - (Xc @ self.components_.T) @ self.components_
        if self.scale_ is not None:
            resid *= self.scale_
        return float(np.einsum("ij,ij->", resid, resid, dtype=np.float64) / resid.shape[0])

    def score_samples(self, X):
        """Log-likelihood of each sample under the probabilistic PCA model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        Xc, _ = self._centered(X)
        Xc = Xc.astype(np.float64)
        W = self.components_.astype(np.float64)
        d, k = W.shape[1], self.n_components_
        total = float(self.explained_variance_.astype(np.float64).sum()) + self.noise_variance_ * (d - k)
        ll = ppca_loglik_curve(Xc @ W.T, np.einsum("ij,ij->i", Xc, Xc), self.explained_variance_, total, d, [k])[:, 0]
        if self.scale_ is not None:
            ll -= np.log(self.scale_.astype(np.float64)).sum()
        return ll

    def get_covariance(self):
        """Data covariance implied by the model: ``W diag(l - s2) W^T + s2 I`` (scaled back).

        Returns
        -------
        ndarray of shape (n_features, n_features)
        """
        check_is_fitted(self)
        W = self.components_.astype(np.float64)
        s2 = self.noise_variance_
        cov = (W.T * (self.explained_variance_ - s2)) @ W + s2 * np.eye(W.shape[1])
        if self.scale_ is not None:
            cov *= np.outer(self.scale_, self.scale_)
        return cov

    def get_precision(self):
        """Inverse of ``get_covariance``, by the matrix inversion lemma when possible.

        Returns
        -------
        ndarray of shape (n_features, n_features)
        """
        check_is_fitted(self)
        s2 = self.noise_variance_
        if s2 <= 0 or np.any(self.explained_variance_ <= 0):
            return np.linalg.pinv(self.get_covariance())
        W = self.components_.astype(np.float64)
        ev = self.explained_variance_.astype(np.float64)
        prec = (np.eye(W.shape[1]) - (W.T * ((ev - s2) / ev)) @ W) / s2
        if self.scale_ is not None:
            inv = 1.0 / self.scale_.astype(np.float64)
            prec *= np.outer(inv, inv)
        return prec

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
