"""Symmetric eigensolvers returning the top of the spectrum, largest first."""

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from ._blas import matmul


def top_eigh(C, k=None, *, precision=np.float64, rank=None):
    """Largest ``k`` eigenpairs of the symmetric matrix ``C`` (all of them if ``k`` is None).

    For ``k`` well below the size, LAPACK's bisection driver (evx) computes only the requested
    eigenvectors; otherwise the divide-and-conquer driver computes all. A positive
    semi-definite ``C`` of known low ``rank`` (a scatter of fewer rows than columns) is
    solved on its range (``low_rank_eigh``): no reduction of the whole matrix.

    Parameters
    ----------
    C : ndarray of shape (d, d)
        Symmetric matrix (only the upper triangle is read).
    k : int or None
        Number of eigenpairs.
    rank : int, optional
        An upper bound of the rank of a positive semi-definite ``C``.
    precision : dtype, default float64
        The precision the entries of ``C`` carry (e.g. float32 for a covariance made
        from float32 data). With float32 and ``k`` at most half the size, the subspace
        is found in float32 and refined in float64 (``refined_single_eigh``), which is
        faster (BENCHMARKS.md, Design choices: eigh). Where its
        residuals show the float32 subspace too coarse for these eigenvalues (a
        spectrum spanning more than about three decades), float64 LAPACK is used.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Descending.
    eigenvectors : ndarray of shape (d, k)
        Orthonormal columns.

    Examples
    --------
    >>> import numpy as np
    >>> w, V = top_eigh(np.diag([1.0, 3.0, 2.0]), 2)
    >>> w
    array([3., 2.])
    """
    d = C.shape[0]
    if k == 0:
        return np.empty(0, dtype=C.dtype), np.empty((d, 0), dtype=C.dtype)
    if rank is not None and k is not None and k <= rank and 4 * (rank + RANGE_EXTRA) <= d:
        found = low_rank_eigh(C, k, rank)
        if found is not None:
            return found
    if k is None or k >= d or k > d // 2:
        w, V = scipy.linalg.eigh(C, lower=False, driver="evd", check_finite=False)
        if k is not None:
            w, V = w[d - k :], V[:, d - k :]
    else:
        refined = refined_single_eigh(C, k) if np.dtype(precision) == np.float32 and C.dtype == np.float64 else None
        if refined is not None:
            return refined
        w, V = scipy.linalg.eigh(C, lower=False, subset_by_index=[d - k, d - 1], driver="evx", check_finite=False)
        if w.size < k:  # bisection can lose a tight cluster of equal eigenvalues (OpenBLAS's
            # dsyevx returns none for a top eigenvalue of multiplicity 100): the full driver
            w, V = scipy.linalg.eigh(C, lower=False, driver="evd", check_finite=False)
            w, V = w[d - k :], V[:, d - k :]
    return w[::-1].copy(), V[:, ::-1].copy()


RANGE_EXTRA = 10  # columns beyond the rank in low_rank_eigh's range
RANGE_RTOL = 1e-10  # largest residual ||C v - w v|| / w_1 accepted from the range


def low_rank_eigh(C, k, rank):
    """Top ``k`` eigenpairs of a symmetric positive semi-definite ``C`` of rank at most
    ``rank``, from its range: ``C`` times ``rank + RANGE_EXTRA`` Gaussian columns spans
    it (any columns do: the seed is fixed, and the result does not depend on it), once
    more by ``C`` (what rounding left of the null space damped), then one Rayleigh-Ritz
    step. Three products of ``d^2 (rank + 10)`` instead of a reduction of the whole
    matrix (``4/3 d^3``, memory-bound; BENCHMARKS.md, PCA: a stream of wide rows). None
    when a residual exceeds ``RANGE_RTOL`` times the largest eigenvalue (a rank bound
    that was not one). Only the upper triangle of ``C`` is read.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(20, 300))
    >>> C = A.T @ A
    >>> w, V = low_rank_eigh(C, 3, 20)
    >>> bool(np.allclose(w, np.linalg.eigvalsh(C)[::-1][:3], rtol=1e-12))
    True
    """
    d = C.shape[0]
    m = min(d, rank + RANGE_EXTRA)
    Q = _orthonormal(_symmetric_times(C, np.random.default_rng(0).standard_normal((d, m))))
    Q = _orthonormal(_symmetric_times(C, Q))  # once more by C
    w, V, residuals = _rayleigh_ritz(C, Q, k)
    return (w, V) if np.all(residuals <= RANGE_RTOL * max(w[0], 0.0)) else None


REFINE_RTOL = 1e-4  # largest residual ||C v - w v|| / w accepted from the float32 subspace


def refined_single_eigh(C, k, extra=None, rtol=REFINE_RTOL):
    """Top ``k`` eigenpairs of a float64 symmetric matrix from a float32 subspace: the
    top ``k + extra`` eigenvectors by LAPACK in float32 (twice as fast as in float64),
    orthonormalised in float64, then one Rayleigh-Ritz step with ``C`` in float64 (the
    eigenproblem of ``Q^T C Q``, ``k + extra`` wide), or None when that is not accurate.

    The float32 subspace is off by about ``eps32 * ||C|| / (lambda_i - lambda_{k+extra+1})``;
    the residual of each Ritz pair, ``||C v - w v||`` (computed in float64), measures
    that. Only when every residual is at most ``rtol * w`` are the pairs returned: then
    the eigenvalues are accurate to about ``rtol**2 / (relative gap)``, in practice to
    float64 rounding (1e-11 relative for a Fashion-MNIST covariance, whose float32 data
    already differ from the float64 data by 4e-7), and the eigenvectors to the level a
    covariance made from float32 data carries anyway. A spectrum spanning more than
    about three decades down to ``w_k`` (or zero eigenvalues) gives larger residuals,
    and None. Only the upper triangle of ``C`` is read.

    Parameters
    ----------
    C : ndarray (d, d), float64
    k : int
        At most ``d``.
    extra : int, optional
        Vectors beyond ``k`` (default ``max(10, k // 5)``): the Rayleigh-Ritz step then
        separates the top ``k`` from the rest by the gap to eigenvalue ``k + extra + 1``.
    rtol : float
        Largest residual accepted, relative to its eigenvalue.

    Returns
    -------
    (eigenvalues (k,) descending, eigenvectors (d, k) orthonormal columns), or None

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(300, 40))
    >>> C = A.T @ A
    >>> w, V = refined_single_eigh(C, 3)
    >>> bool(np.allclose(w, np.linalg.eigvalsh(C)[::-1][:3], rtol=1e-12))
    True
    >>> Q = np.linalg.qr(np.random.default_rng(1).normal(size=(40, 40)))[0]
    >>> wide = (Q * np.r_[1e6, np.linspace(1.0, 0.5, 39)]) @ Q.T
    >>> print(refined_single_eigh(wide, 3))  # 1e6 against 1: too wide for float32
    None
    """
    d = C.shape[0]
    m = min(d, k + (max(10, k // 5) if extra is None else extra))
    # into float32's range: for a positive semi-definite C the largest diagonal entry is its largest
    scale = float(np.abs(np.diag(C)).max()) or 1.0
    single = np.divide(C, scale, out=np.empty(C.shape, np.float32), casting="same_kind")  # one pass
    _, Q = scipy.linalg.eigh(
        single, lower=False, subset_by_index=[d - m, d - 1], driver="evx", check_finite=False, overwrite_a=True
    )
    w, V, residuals = _rayleigh_ritz(C, _orthonormal(Q.astype(np.float64)), k)
    return (w, V) if np.all(residuals <= rtol * w) else None


def _orthonormal(A):
    """An orthonormal basis of A's columns (economic QR, A overwritten)."""
    return scipy.linalg.qr(A, mode="economic", overwrite_a=True, check_finite=False)[0]


def _rayleigh_ritz(C, Q, k):
    """``(w, V, residuals)``: the top ``k`` Ritz pairs of C on the orthonormal columns Q
    (the eigenproblem of ``Q^T C Q``), descending, and each pair's ``||C v - w v||``."""
    CQ = _symmetric_times(C, Q)
    w, S = scipy.linalg.eigh(matmul(Q.T, CQ), lower=False, check_finite=False, overwrite_a=True)
    w, top = w[::-1][:k].copy(), np.ascontiguousarray(S[:, ::-1][:, :k])
    V = np.ascontiguousarray(matmul(Q, top))
    return w, V, np.linalg.norm(matmul(CQ, top) - V * w, axis=0)


def _symmetric_times(C, B):
    """``C @ B`` reading only the upper triangle of ``C`` (BLAS symm, scipy's threads)."""
    if C.flags.c_contiguous:  # C.T is Fortran-ordered and its lower triangle is C's upper
        return blas.dsymm(1.0, C.T, B, side=0, lower=1)
    return blas.dsymm(1.0, C, B, side=0, lower=0)
