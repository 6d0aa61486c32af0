"""Randomized truncated SVD (Halko, Martinsson & Tropp, 2011), iterating on the small side.

With ``m = min(n, d)``, subspace iteration runs on the m x m operator ``M = Xc Xc^T``
(n <= d) or ``Xc^T Xc`` (d < n); each application ``Z = M P`` is one fused pass over
the data (row or column blocks that stay in cache). Every application also gives the
Rayleigh-Ritz matrix ``P^T Z`` (l x l, solved in float64) for free, so

- the singular values and vectors come from the last application, with no extra pass
  (wide data need one more pass for the right singular vectors): the Nystroem
  approximation ``Z (P^T Z)^-1 Z^T`` built from it is Halko et al.'s final step
  ``Q^T A`` for free, half a power iteration more accurate than the Ritz pairs of P;
- with a tolerance, iteration stops as soon as the values it would return (Nystroem's,
  half a step ahead of the Ritz values of P) settle, so data with a decaying spectrum
  take 2-3 passes and flat spectra use the whole budget.

Passes over the data: ``n_applications`` for tall data, ``n_applications + 1`` for wide
data, where ``n_applications = n_iter + 1`` (or fewer with a tolerance).
"""

import numpy as np
import scipy.linalg

from .._iterative import run_loop
from ._blas import matmul


def _cholesky_qr(Y):
    """``(Q, R)`` with ``Y = Q R`` by Cholesky QR, twice (Fukaya et al. 2014): two Gram
    products and two small triangular inverses instead of Householder QR's panel
    updates, several times faster for tall Y; None when a Gram matrix is not safely
    positive definite in float64 (columns dependent to about 1e-8)."""
    Q, R_total = Y, np.eye(Y.shape[1])
    for _ in range(2):
        try:
            R = scipy.linalg.cholesky(matmul(Q.T, Q).astype(np.float64), lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        diagonal = R.diagonal()
        if not np.isfinite(R).all() or diagonal.min() <= np.sqrt(np.finfo(np.float64).eps) * diagonal.max():
            return None
        R_inv = scipy.linalg.solve_triangular(R, np.eye(R.shape[0]), lower=False, check_finite=False)
        Q, R_total = matmul(Q, R_inv.astype(Y.dtype)), R @ R_total
    return Q, R_total


def _orthonormalize(Y):
    """An orthonormal basis of span(Y): Cholesky QR, or Householder QR where it is unsafe."""
    qr = _cholesky_qr(Y)
    return qr[0] if qr is not None else scipy.linalg.qr(Y, mode="economic", check_finite=False)[0]


def _thin_svd(B):
    """``U, s`` of the thin SVD of a tall B: the SVD of Cholesky QR's small R."""
    qr = _cholesky_qr(B)
    if qr is None:
        return scipy.linalg.svd(B, full_matrices=False, check_finite=False)[:2]
    U, s, _ = scipy.linalg.svd(qr[1], check_finite=False)
    return matmul(qr[0], U), s


def _ritz_pairs(P, Z, k, psd=True):
    """Top-k Ritz pairs of span(P) from ``Z = M P`` (values descending, vectors (dim, k));
    ``psd``: M is positive semi-definite, so negative values are rounding (clipped to 0)."""
    P64 = P.astype(np.float64)
    H = matmul(P64.T, Z.astype(np.float64))
    w, W = scipy.linalg.eigh((H + H.T) / 2, check_finite=False)
    w = w[::-1][:k]
    return np.maximum(w, 0.0) if psd else w, P64 @ W[:, ::-1][:, :k]


def _nystrom(P, Z, k, eps):
    """Top-k eigenpairs of the Nystroem approximation ``Z (P^T Z)^-1 Z^T`` of a PSD M
    from the last iterate P and ``Z = M P``, or None when ``P^T Z`` is not positive
    definite even after the shift.

    Its eigenvectors lie in span(Z) = span(M P), one half-step further than P: for
    ``M = A^T A`` the eigenvalues are the squared singular values of ``Q^T A`` with Q an
    orthonormal basis of ``A P`` (Halko et al.'s final step), never below the Ritz
    values of span(P) and never above M's. As in Tropp et al. (2017), M + nu I is
    approximated with a shift nu at the precision of Z, which is subtracted again.
    """
    P, Z = P.astype(np.float64), Z.astype(np.float64)
    nu = eps * np.sqrt(Z.shape[0]) * np.linalg.norm(Z)
    Y = Z + nu * P
    H = matmul(P.T, Y)
    try:
        C = scipy.linalg.cholesky((H + H.T) / 2, lower=False, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    B = scipy.linalg.solve_triangular(C, Y.T, trans="T", lower=False, check_finite=False).T
    U, s = _thin_svd(B)
    return np.maximum(s[:k] ** 2 - nu, 0.0), U[:, :k]


def subspace_iteration(apply, dim, dtype, size, k, *, n_iter, rng, tol=None, nystrom=True):
    """Subspace iteration with Rayleigh-Ritz after every application of a symmetric
    positive semi-definite operator, and a Nystroem final step.

    Parameters
    ----------
    apply : callable
        ``apply(P) -> M @ P`` for P of shape (dim, size).
    dim : int
    dtype : numpy dtype of the iterates.
    size : int
        Block size l (rank + oversampling).
    k : int
        Number of Ritz pairs to track and return.
    n_iter : int
        Power iterations: at most ``n_iter + 1`` applications of ``M``.
    rng : numpy.random.Generator
    tol : float, optional
        Stop once the next change of the top-k values it would return (Nystroem's, or
        the Ritz values without it; relative to the largest), extrapolated from the
        last two changes, is at most ``tol``.
    nystrom : bool
        Take the eigenpairs from the Nystroem approximation built from the last
        iterate and its image (``_nystrom``: as accurate as half a power iteration
        more, with no extra application); needs ``M`` positive semi-definite. False:
        the Ritz pairs of the last iterate, negative values kept (for operators that
        may be indefinite).

    Returns
    -------
    values : ndarray of shape (k,)
        Eigenvalues of ``M`` (squared singular values), descending, float64.
    vectors : ndarray of shape (dim, k)
        Orthonormal eigenvectors, float64.
    n_applications : int

    Examples
    --------
    >>> import numpy as np
    >>> M = np.diag(np.arange(1.0, 11.0))
    >>> w, V, n = subspace_iteration(lambda P: M @ P, 10, np.float64, 6, 2, n_iter=20,
    ...                              rng=np.random.default_rng(0))
    >>> np.round(w, 6)
    array([10.,  9.])
    """
    P = _orthonormalize(rng.standard_normal(size=(dim, size)).astype(dtype, copy=False))
    eps = np.finfo(dtype).eps

    def step(state):
        P, Z, previous, _, last_change, done = state
        if Z is not None:  # after the first application: the next iterate
            P = _orthonormalize(Z)
        Z, done = apply(P), done + 1
        if tol is None and done <= n_iter:  # a fixed count: only the last pairs are wanted
            return (P, Z, None, None, np.inf, done), 0.0, np.inf
        # the pairs that would be returned now; their values decide convergence
        pairs = (_nystrom(P, Z, k, eps) if nystrom else None) or _ritz_pairs(P, Z, k, psd=nystrom)
        w = pairs[0]
        change = np.inf if previous is None else np.max(np.abs(w - previous)) / max(w[0], 1e-300)
        # subspace iteration converges geometrically: the next change is about
        # change * (change / last_change); stop when that is below tol
        expected = change * min(1.0, change / last_change) if 0 < last_change < np.inf else change
        return (P, Z, w, pairs, change, done), float(w.sum()), expected

    result = run_loop(
        step, (P, None, None, None, np.inf, 0), max_iter=n_iter + 1, tol=tol, warn=False, label="randomized PCA"
    )
    return *result.state[3], result.n_iter


def randomized_svd(op, k, *, n_oversamples=10, n_iter=4, rng, tol=None):
    """Top-``k`` singular values and right singular vectors of ``op``.

    Parameters
    ----------
    op : CenteredData-like
    k : int
        Number of singular triplets.
    n_oversamples : int
        Extra basis vectors beyond ``k`` (improves accuracy).
    n_iter : int
        Power iterations (at most ``n_iter + 1`` passes of ``M``).
    rng : numpy.random.Generator
    tol : float, optional
        Stop early when the eigenvalue estimates settle (see ``subspace_iteration``).

    Returns
    -------
    s : ndarray of shape (k,)
        Singular values, descending (float64).
    Vt : ndarray of shape (k, d)
        Right singular vectors as rows (dtype of ``op``).
    n_applications : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.linalg import CenteredData
    >>> X = np.random.default_rng(0).normal(size=(40, 6))
    >>> s = randomized_svd(CenteredData(X, X.mean(0)), 2, rng=np.random.default_rng(0))[0]
    >>> bool(np.allclose(s, np.linalg.svd(X - X.mean(0), compute_uv=False)[:2]))
    True
    """
    n, d = op.shape
    size = min(k + n_oversamples, n, d)
    apply = op.cogram_matmat if n <= d else op.gram_matmat
    w, basis, applications = subspace_iteration(apply, min(n, d), op.dtype, size, k, n_iter=n_iter, rng=rng, tol=tol)
    if n <= d:  # basis: approximate left singular vectors U. The SVD of Xc^T U (Halko et al.'s
        # last step) gives right vectors orthonormal to rounding, with the singular values of the
        # projection; Xc^T U / s is orthonormal only as far as U is converged
        V, s, _ = np.linalg.svd(op.rmatmat(basis.astype(op.dtype)).astype(np.float64), full_matrices=False)
    else:
        V, s = basis, np.sqrt(w)
    return s, V.T.astype(op.dtype), applications
