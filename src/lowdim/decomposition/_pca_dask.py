"""PCA of a dask array: the spectrum by map-reduce over row blocks.

Three solvers, each a few passes over the data with only small arrays on the driver:

- 'covariance': one pass; every block's mean and centred ``X^T X`` (syrk) merged in a
  tree (memory d x d per task). Every n_components form; 'auto' for d <= 4096.
- 'svd': TSQR, one pass; every block's R factor (QR of the block centred on its own
  mean, float64) merged in a tree by stacking and factoring again, the difference of
  the means carried exactly; the SVD of the final d x d R gives the spectrum without
  squaring the condition number. Every n_components form.
- 'randomized': subspace iteration on the covariance from the feature side: each
  product ``Xc^T (Xc P)`` is one pass (d x l per block) followed by a Rayleigh-Ritz
  step on the driver; the first pass also gathers the moments (each block centred on
  its own mean, the products merged exactly), so q power iterations read the data
  q + 1 times; the spectrum comes from the Nystroem approximation built from the last
  product (Halko et al.'s final step without its extra pass). For large d and an
  integer n_components; 'auto' picks it when d > 4096.
"""

from functools import partial

import numpy as np

from ..distributed import compute, row_blocks, tree_reduce
from ..linalg import (
    ScatterAccumulator,
    block_scatter,
    block_variances,
    feature_scale,
    merge_scatter,
    merge_variances,
    subspace_iteration,
)
from . import _pca_blocks as bm
from ._pca_solvers import Spectrum, resolve_power_iterations, spectrum_from_scatter

SOLVERS = ("auto", "covariance", "svd", "randomized")


def choose_dask_solver(n, d, k):
    """'auto' for dask input: 'covariance' up to 4096 features; beyond, 'randomized' for
    an integer n_components below 10% of min(n, d), else 'svd' (TSQR).

    Examples
    --------
    >>> choose_dask_solver(2_000_000, 500, None), choose_dask_solver(10**6, 10**5, 20)
    ('covariance', 'randomized')
    """
    if d <= 4096:
        return "covariance"
    return "randomized" if k is not None and k < 0.1 * min(n, d) else "svd"


def _reduce_blocks(X, leaf, merge, *args):
    import dask

    blocks, starts = row_blocks(X)
    task = dask.delayed(leaf, pure=True)
    return tree_reduce([task(b, s, *args) for b, s in zip(blocks, starts)], merge)


def covariance_spectrum(X, k, opts):
    """One pass: merged block scatter matrices, then the top of the eigenproblem."""
    n, mean, scatter = compute(_reduce_blocks(X, block_scatter, merge_scatter))[0]
    return spectrum_from_scatter(ScatterAccumulator.from_moments(n, mean, scatter), k, opts)


def tsqr_spectrum(X, k, opts):
    """One pass of TSQR; the spectrum from the SVD of the final R factor."""
    n, mean, R = compute(_reduce_blocks(X, bm.block_r_factor, bm.merge_r_factors))[0]
    variances = np.einsum("ij,ij->j", R, R) / max(n - 1, 1)
    scale = feature_scale(variances) if opts.standardize else None
    _, s, Vt = np.linalg.svd(R if scale is None else R / scale, full_matrices=False)
    if k is not None:
        s, Vt = s[:k], Vt[:k]
    return Spectrum(mean, variances, scale, Vt, s**2 / max(n - 1, 1), n, k is None)


def randomized_spectrum(X, k, opts):
    """Subspace iteration with one pass per product; the first pass also computes the
    moments (block-centred products merged exactly), except with ``standardize``,
    whose scale must be known before the first product (one pass more)."""
    import dask

    n, d = X.shape
    blocks, starts = row_blocks(X)
    moments = {}
    if opts.standardize:
        moments.update(
            zip(
                ("n", "mean", "ss"),
                compute(_reduce_blocks(X, block_variances, merge_variances))[0],
            )
        )
    scale = feature_scale(moments["ss"] / max(n - 1, 1)) if opts.standardize else None
    product = dask.delayed(bm.block_gram_product, pure=True)
    first = dask.delayed(bm.block_moments_product, pure=True)

    def apply(P):
        if not moments:
            merge = partial(bm.merge_moments_products, P=P)
            parts = [first(b, s, P) for b, s in zip(blocks, starts)]
            moments["n"], moments["mean"], moments["ss"], G = compute(tree_reduce(parts, merge))[0]
            return G
        parts = [product(b, moments["mean"], scale, P) for b in blocks]
        return compute(tree_reduce(parts, bm.merge_sum))[0]

    q, tol = resolve_power_iterations(opts.iterated_power, X.dtype)
    size = min(k + opts.n_oversamples, n, d)
    w, V, passes = subspace_iteration(apply, d, X.dtype, size, k, n_iter=q, rng=opts.rng, tol=tol)
    variances = moments["ss"] / max(n - 1, 1)
    return Spectrum(moments["mean"], variances, scale, V.T, np.maximum(w, 0.0) / max(n - 1, 1), n, False, n_iter=passes)


_SPECTRA = {"covariance": covariance_spectrum, "svd": tsqr_spectrum, "randomized": randomized_spectrum}


def dask_spectrum(X, solver, k, opts):
    """The ``Spectrum`` of the dask array ``X`` (checked by the caller) by ``solver``.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d), one column chunk
    solver : {'covariance', 'svd', 'randomized'}
        'auto' is resolved by the caller (``choose_dask_solver``).
    k : int or None
        Components wanted; None for the whole spectrum (not with 'randomized').
    opts : SolverOptions

    Examples
    --------
    >>> import dask.array as da
    >>> from lowdim.decomposition._pca_solvers import SolverOptions
    >>> X = da.random.default_rng(0).normal(size=(1000, 5), chunks=(250, 5))
    >>> spectrum = dask_spectrum(X, "covariance", 2, SolverOptions())
    >>> spectrum.components.shape, spectrum.n_samples
    ((2, 5), 1000)
    """
    if solver not in _SPECTRA:
        raise ValueError(
            f"solver={solver!r} does not run on dask arrays; use one of "
            f"{list(SOLVERS)} ('covariance' or 'svd' for every n_components form, "
            "'randomized' for many features)."
        )
    if solver == "randomized" and k is None:
        raise ValueError("solver='randomized' computes the top k components only; give k.")
    return _SPECTRA[solver](X, k, opts)
