"""PCA solvers: one strategy per way of finding the top of the covariance spectrum.

Every solver takes validated data and returns a ``Spectrum``: the per-feature mean and
scale, the leading eigenvectors of the (standardised) covariance as rows, their
eigenvalues (ddof = 1) and the total variance, so the estimator never needs to know
which solver ran. ``choose_solver`` is the documented 'auto' rule.

Dense input arrives without the NaN/infinity scan (``convert_array``):
each solver first computes moments in which every entry takes part, and only when
they are not finite runs ``check_finite`` to report the first bad position.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._threads import blas_limit
from .._validation import check_finite
from ..linalg import (
    CenteredData,
    ScatterAccumulator,
    block_rows,
    column_moments,
    feature_scale,
    needs_centering,
    power_eigh,
    randomized_svd,
    symmetric_from_upper,
    syrk_upper,
    top_eigh,
)
from ._wide_covariance import WideCovariance


@dataclass
class Spectrum:
    """What a solver found. Eigenvalues are covariance eigenvalues (ddof = 1), descending.

    ``complete`` tells whether ``eigenvalues`` is the whole spectrum (needed for 'mle').
    """

    mean: np.ndarray
    variances: np.ndarray
    scale: object
    components: np.ndarray
    eigenvalues: np.ndarray
    n_samples: int
    complete: bool
    n_iter: int = 1
    accumulator: object = None  # exact moments, when the solver built them (streaming)

    @property
    def total_variance(self):
        if self.scale is None:
            return float(self.variances.sum())
        return float(np.count_nonzero(self.variances > 0))


@dataclass
class SolverOptions:
    """Tuning knobs shared by the solvers (from the estimator's parameters)."""

    standardize: bool = False
    tol: float = 0.0
    max_iter: int = 1000
    n_oversamples: int = 10
    iterated_power: object = "auto"
    rng: object = None
    stop_fraction: object = None
    verbose: int = 0
    columns: object = None  # the data's column names (a DataFrame's), for messages


def spectrum_from_scatter(acc, k, opts, dtype=np.float64):
    """Eigendecomposition of an accumulated scatter matrix (covariance solver, streaming).

    ``dtype``: that of the data; float32 data's scatter carries float32 rounding, so the
    eigensolver may work in float32 and refine in float64 (``top_eigh``'s precision).
    An accumulator that still holds its rows as a thin factor is solved from it
    (``spectrum_from_factor``), never forming the d x d scatter."""
    factor = acc.factor()
    if factor is not None:
        return spectrum_from_factor(acc, factor, k, opts)
    n, mean, cov = acc.moments()  # new arrays
    cov /= max(n - 1, 1)
    variances = np.diag(cov).copy()
    scale = None
    if opts.standardize:
        scale = feature_scale(variances)
        cov /= np.outer(scale, scale)
    # the scatter's products ran on one BLAS thread each (gram_of_columns), so no
    # BLAS thread is left spinning and the eigensolver may use all the caller allows
    w, V = top_eigh(cov, k, precision=dtype, rank=max(n - 1, 1))  # centred n rows: rank n - 1 at most
    return Spectrum(mean, variances, scale, V.T, np.maximum(w, 0.0), n, k is None, accumulator=acc)


def spectrum_from_factor(acc, factor, k, opts):
    """The covariance's top eigenpairs from a thin accumulator's ``factor`` ``(n, mean,
    F)`` (``F^T F`` the scatter, fewer rows than columns): its rows' Gram matrix shares
    them (``WideCovariance``); ``k=None`` gives all ``min(n, d)``."""
    n, mean, rows = factor
    cov = WideCovariance(rows, max(n - 1, 1))
    variances = cov.diagonal().copy()
    scale = None
    if opts.standardize:
        scale = feature_scale(variances)
        cov = WideCovariance(rows / scale, max(n - 1, 1))
    w, V = cov.top_eigh(min(n, mean.size) if k is None else k)
    return Spectrum(mean, variances, scale, V.T, np.maximum(w, 0.0), n, k is None, accumulator=acc)


class CovarianceSolver:
    """One pass: ``X^T X`` in row blocks, then the top of the symmetric eigenproblem.

    An in-memory array has its column moments taken first (one parallel pass), which
    decide the centring (``ScatterAccumulator.of_array``: near the origin one syrk over
    all rows); sparse and memory-mapped input goes block by block (one pass)."""

    name, sparse_ok, complete = "covariance", True, True

    def fit(self, X, k, opts):
        from .._progress import progress_bar

        if type(X) is np.ndarray:
            return spectrum_from_scatter(
                ScatterAccumulator.of_array(X, *checked_moments(X, opts.columns)), k, opts, X.dtype
            )
        acc = ScatterAccumulator(X.shape[1])
        # a memory map is read block by block, with a progress bar when verbose
        with progress_bar(total=X.shape[0], desc="PCA pass", unit="row", disable=not opts.verbose) as bar:
            acc.update(X, on_nonfinite=lambda: check_finite(X, columns=opts.columns), progress=bar.update)
        return spectrum_from_scatter(acc, k, opts, X.dtype)


class GramSolver:
    """For D >> N: eigendecomposition of the N x N Gram matrix ``Xc Xc^T`` (never D x D).

    Data near the origin: one syrk on the raw data, centred afterwards in float64;
    otherwise (far from the origin, or standardised) centred column blocks.
    Components are recovered as ``Xc^T u / sigma``. Two passes plus one for the moments.
    """

    name, sparse_ok, complete = "gram", False, True

    def _column_blocks(self, X, mean, scale):
        step = block_rows(X.shape[0], X.dtype.itemsize)
        for j in range(0, X.shape[1], step):
            blk = X[:, j : j + step] - mean[j : j + step].astype(X.dtype)
            if scale is not None:
                blk /= scale[j : j + step].astype(X.dtype)
            yield j, blk

    def _gram(self, X, mean, scale, raw):
        if raw:
            gram = symmetric_from_upper(syrk_upper(X, gram_of_rows=True))
            r = (X @ mean.astype(X.dtype)).astype(np.float64)
            return gram - r[:, None] - r[None, :] + mean @ mean
        gram = np.zeros((X.shape[0], X.shape[0]))
        for _, blk in self._column_blocks(X, mean, scale):
            gram += syrk_upper(blk, gram_of_rows=True)
        return symmetric_from_upper(gram)

    def fit(self, X, k, opts):
        n, d = X.shape
        mean, variances = checked_moments(X, opts.columns)
        scale = feature_scale(variances) if opts.standardize else None
        raw = scale is None and not needs_centering(mean, variances, X.dtype)
        w, U = top_eigh(self._gram(X, mean, scale, raw), min(k, n) if k is not None else None, precision=X.dtype)
        w = np.maximum(w, 0.0)
        keep = w > (w[0] * np.finfo(X.dtype).eps * n if w.size else 0.0)
        Uk = (U[:, keep] / np.sqrt(w[keep])).astype(X.dtype)
        components = np.zeros((w.size, d), dtype=X.dtype)
        if raw:
            components[keep] = Uk.T @ X - np.outer(Uk.sum(axis=0), mean.astype(X.dtype))
        else:
            for j, blk in self._column_blocks(X, mean, scale):
                components[keep, j : j + blk.shape[1]] = Uk.T @ blk
        return Spectrum(mean, variances, scale, components, w / (n - 1), n, k is None)


class SVDSolver:
    """LAPACK SVD of the explicitly centred data: the most accurate, the most memory."""

    name, sparse_ok, complete = "svd", False, True

    def fit(self, X, k, opts):
        n = X.shape[0]
        mean, variances = checked_moments(X, opts.columns)
        scale = feature_scale(variances) if opts.standardize else None
        Xc = X - mean.astype(X.dtype)
        if scale is not None:
            Xc /= scale.astype(X.dtype)
        _, s, Vt = scipy.linalg.svd(
            Xc, full_matrices=False, check_finite=False, overwrite_a=True, lapack_driver="gesdd"
        )
        if k is not None:
            s, Vt = s[:k], Vt[:k]
        return Spectrum(mean, variances, scale, Vt, s.astype(np.float64) ** 2 / (n - 1), n, k is None)


def checked_moments(X, columns=None):
    """Column mean and variance; non-finite moments mean non-finite (or overflowing)
    data, so the exact position (and ``columns``' name of it) is looked up only then
    (see ``convert_array``)."""
    mean, variances = column_moments(X)
    if not (np.isfinite(mean).all() and np.isfinite(variances).all()):
        check_finite(X, columns=columns)
    return mean, variances


def _prepare_operator(X, opts):
    """Moments and the implicitly centred operator; dense data far from the origin are
    centred explicitly (one copy), since implicit centring would cancel digits."""
    mean, variances = checked_moments(X, opts.columns)
    scale = feature_scale(variances) if opts.standardize else None
    if not sp.issparse(X) and needs_centering(mean, variances, X.dtype):
        return mean, variances, scale, CenteredData(X - mean.astype(X.dtype), np.zeros_like(mean), scale)
    return mean, variances, scale, CenteredData(X, mean, scale)


AUTO_POWER_CAP = 7
AUTO_RITZ_TOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-9}


def resolve_power_iterations(iterated_power, dtype):
    """(n_iter, tol): a fixed count, or for 'auto' up to 7 power iterations that stop
    once the next change of the top-k Ritz values, extrapolated from the last two, is
    below 1e-6 (float32) / 1e-9 (float64) of the largest."""
    if iterated_power != "auto":
        return int(iterated_power), None
    return AUTO_POWER_CAP, AUTO_RITZ_TOL[np.dtype(dtype)]


def variances_along(op, Vt):
    """The data's variance (ddof = 1) along each row of ``Vt`` (one pass: ``Xc V``),
    and the rows reordered by it, descending."""
    scores = op.matmat(Vt.T)
    variance = np.einsum("ij,ij->j", scores, scores, dtype=np.float64) / (op.shape[0] - 1)
    order = np.argsort(-variance, kind="stable")
    return variance[order], Vt[order]


class RandomizedSolver:
    """Randomized subspace iteration (Halko et al.) with Rayleigh-Ritz after every pass.

    ``iterated_power=q`` makes ``q + 1`` fused passes (tall data) or ``q + 2`` (wide
    data), plus one for the moments; 'auto' stops early when the spectrum has settled.
    One more pass measures the variance along each returned component, so that
    ``explained_variance_`` is the variance of ``transform``'s columns (the subspace's
    eigenvalue estimates can differ from it in the fourth digit).
    """

    name, sparse_ok, complete = "randomized", True, False

    def fit(self, X, k, opts):
        n, d = X.shape
        mean, variances, scale, op = _prepare_operator(X, opts)
        q, tol = resolve_power_iterations(opts.iterated_power, X.dtype)
        _, Vt, passes = randomized_svd(op, k, n_oversamples=opts.n_oversamples, n_iter=q, rng=opts.rng, tol=tol)
        eigenvalues, Vt = variances_along(op, Vt)
        return Spectrum(mean, variances, scale, Vt, eigenvalues, n, False, n_iter=passes + 1)


class PowerSolver:
    """Power iteration with deflation, one component at a time, to ``tol``."""

    name, sparse_ok, complete = "power", True, False

    def fit(self, X, k, opts):
        n, d = X.shape
        mean, variances, scale, op = _prepare_operator(X, opts)
        cov = op.covariance_operator()
        spectrum = Spectrum(mean, variances, scale, None, None, n, False)
        stop = None
        if opts.stop_fraction is not None:
            stop = opts.stop_fraction * spectrum.total_variance
        w, V, iters = power_eigh(
            cov.matvec,
            d,
            X.dtype,
            n_components=k,
            rng=opts.rng,
            tol=opts.tol or 1e-6,
            max_iter=opts.max_iter,
            stop_variance=stop,
            verbose=opts.verbose,
        )
        spectrum.components, spectrum.eigenvalues = V.T, np.maximum(w, 0.0)
        spectrum.n_iter = int(sum(iters))
        return spectrum


class LanczosSolver:
    """ARPACK Lanczos on the implicitly centred covariance operator (sparse-friendly).

    For sparse input the products run on lowdim's own thread pool; BLAS is held to one
    thread meanwhile, since its idle threads would spin on the cores those products use.
    """

    name, sparse_ok, complete = "lanczos", True, False

    def fit(self, X, k, opts):
        n, d = X.shape
        mean, variances, scale, op = _prepare_operator(X, opts)
        with blas_limit(1 if sp.issparse(X) else None):
            max_iter = None if opts.max_iter is None else 10 * opts.max_iter
            w, V = op.top_components(k, rng=opts.rng, tol=opts.tol, max_iter=max_iter)
        return Spectrum(mean, variances, scale, V.T.astype(X.dtype), w, n, False, n_iter=op.n_products)


SOLVERS = {
    cls.name: cls() for cls in (CovarianceSolver, GramSolver, SVDSolver, RandomizedSolver, PowerSolver, LanczosSolver)
}


def choose_solver(n, d, k, sparse):
    """The 'auto' rule, from shape, the requested k (None = full spectrum) and sparsity.

    - sparse: 'covariance' when d <= 2000 or the full spectrum is needed, else 'lanczos';
    - n >= d: 'covariance' when d <= 4096, else 'randomized' for k < 10% of d, else 'svd';
    - d > n: 'gram' when n <= 8192, else 'randomized' for k < 10% of n, else 'svd'.

    Parameters
    ----------
    n, d : int
        Rows and columns of the data.
    k : int or None
        Components wanted (None: the whole spectrum).
    sparse : bool

    Returns
    -------
    str
        The solver's name.

    Examples
    --------
    >>> choose_solver(70000, 784, 50, False)
    'covariance'
    >>> choose_solver(2000, 50000, 50, False)
    'gram'
    """
    small_k = k is not None and k < 0.1 * min(n, d)
    if sparse:
        return "covariance" if d <= 2000 or k is None else "lanczos"
    if n >= d:
        return "covariance" if d <= 4096 else ("randomized" if small_k else "svd")
    return "gram" if n <= 8192 else ("randomized" if small_k else "svd")
