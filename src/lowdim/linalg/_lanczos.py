"""Lanczos (ARPACK) for the top eigenpairs of a symmetric operator, with a LOBPCG fallback."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import eigh, lu_factor, lu_solve, solve

from .._memory import require_memory
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning


def lanczos_eigh(op, k, *, rng, tol=0.0, max_iter=None):
    """Largest ``k`` eigenpairs of the symmetric ``LinearOperator`` ``op``.

    ARPACK's implicitly restarted Lanczos with a start vector drawn from ``rng`` (so the
    result is reproducible); if it does not converge, LOBPCG is tried with a
    ``ConvergenceWarning``.

    Parameters
    ----------
    op : scipy.sparse.linalg.LinearOperator of shape (d, d)
    k : int
        Must satisfy ``k < d``.
    rng : numpy.random.Generator
    tol : float
        Relative accuracy (0 = machine precision).
    max_iter : int, optional
        Restart cap.

    Returns
    -------
    eigenvalues : ndarray of shape (k,), descending
    eigenvectors : ndarray of shape (d, k)

    Examples
    --------
    >>> import numpy as np, scipy.sparse.linalg as spla
    >>> C = np.diag(np.arange(1.0, 11.0))
    >>> w, V = lanczos_eigh(spla.aslinearoperator(C), 2, rng=np.random.default_rng(0))
    >>> np.round(w, 8)
    array([10.,  9.])
    """
    d = op.shape[0]
    v0 = rng.uniform(-1, 1, size=d)
    ncv = min(d, max(2 * k + 1, 20))
    try:
        w, V = spla.eigsh(op, k=k, which="LA", v0=v0, ncv=ncv, tol=tol, maxiter=max_iter)
    except spla.ArpackNoConvergence:
        warn_user(
            f"ARPACK did not converge for k={k} (max_iter={max_iter}); falling back to LOBPCG.", ConvergenceWarning
        )
        X0 = rng.standard_normal((d, k))
        w, V = spla.lobpcg(op, X0, largest=True, tol=None if tol == 0 else tol, maxiter=500)
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


NULL_SHIFT = 1e-10  # shift below zero, relative to M's largest diagonal entry


class ShiftInverse:
    """``(M + s I)^-1`` for the shift ``s`` = ``NULL_SHIFT`` times M's largest diagonal
    entry (small against M's scale, far above rounding), as an operator factorised on
    first use: a sparse LU in SuperLU's symmetric mode (minimum-degree ordering of
    M + M^T, diagonal pivots), far less fill than the default column ordering on a
    symmetric positive definite matrix; LAPACK's LU with row pivoting for a dense ``M``
    (not Cholesky: rounding leaves eigenvalues of about -1e-9 that the shift does not
    lift). Pass one to :func:`smallest_eigh` and :func:`nearest_null_vectors` to
    factorise ``M`` once for both.

    Parameters
    ----------
    M : sparse matrix or ndarray (n, n)
        Symmetric positive semi-definite.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> inv = ShiftInverse(sp.identity(3, format="csr"))
    >>> np.round(inv.operator.matvec(np.ones(3)), 6)
    array([1., 1., 1.])
    """

    def __init__(self, M):
        self.M = M
        self.shift = NULL_SHIFT * max(float(np.max(np.abs(M.diagonal()))), np.finfo(np.float64).tiny)
        self._operator = None

    @property
    def operator(self):
        """The factorised inverse as a ``LinearOperator``."""
        if self._operator is None:
            n = self.M.shape[0]
            if sp.issparse(self.M):
                A = (sp.csc_matrix(self.M) + self.shift * sp.identity(n, format="csc")).tocsc()
                lu = spla.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
                solve = lu.solve
            else:
                require_memory(8 * n * n, f"LU factorisation of a dense {n} x {n} matrix", "pass a sparse matrix")
                A = np.array(self.M, dtype=np.float64)
                A[np.diag_indices(n)] += self.shift
                factors = lu_factor(A, overwrite_a=True, check_finite=False)
                solve = lambda b: lu_solve(factors, b, check_finite=False)  # noqa: E731
            self._operator = spla.LinearOperator(self.M.shape, matvec=solve, matmat=solve, dtype=np.float64)
        return self._operator


def nearest_null_vectors(M, P, inverse=None):
    """The vectors of the (numerical) null space of a symmetric positive semi-definite
    ``M`` closest to the columns of ``P``.

    Each column ``y`` minimises ``y^T M y + s ||y - p||^2`` for the shift ``s`` of
    :func:`smallest_eigh` (``1e-10`` of M's largest diagonal entry), that is
    ``y = s (M + s I)^-1 p``: an eigenvector of eigenvalue ``lam`` keeps the fraction
    ``s / (lam + s)`` of p's component along it, all of it at rounding-level eigenvalues
    and almost none from ``1e-8`` of the scale on. A well-defined choice inside a null space
    of more dimensions than are wanted, where eigenvectors are an arbitrary basis.

    Parameters
    ----------
    M : sparse or dense (n, n)
    P : ndarray (n, m)
    inverse : ShiftInverse, optional
        Of ``M``, when already made (its factorisation is reused).

    Returns
    -------
    ndarray (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> M = np.diag([0.0, 0.0, 1.0])
    >>> np.round(nearest_null_vectors(M, np.array([[1.0], [2.0], [3.0]])).ravel(), 6)
    array([1., 2., 0.])
    """
    inverse = inverse or ShiftInverse(M)
    P = np.asarray(P, dtype=np.float64)
    if sp.issparse(M):
        return inverse.shift * inverse.operator.matmat(P)
    A = np.asarray(M, dtype=np.float64) + inverse.shift * np.eye(M.shape[0])
    return inverse.shift * solve(A, P, assume_a="sym", check_finite=False)


def smallest_eigh(M, k, *, rng, solver="auto", tol=1e-6, max_iter=100, dense_below=200, inverse=None):
    """Smallest ``k`` eigenpairs of a sparse symmetric positive semi-definite matrix.

    'arpack' is shift-invert Lanczos about a shift just below zero: ``M + s I`` is
    factorised once (sparse LU, symmetric ordering) and the largest eigenvalues of its
    inverse are the smallest of ``M``, so the clustered bottom of the spectrum (LLE, LTSA, Hessian
    eigenmaps) converges in a few restarts. 'dense' is LAPACK on ``M.toarray()``. If
    ARPACK does not converge, the dense solver is used with a ``ConvergenceWarning``.

    Parameters
    ----------
    M : sparse or dense (n, n)
    k : int
    rng : numpy.random.Generator
        Start vector.
    solver : {'auto', 'arpack', 'dense'}
        'auto': dense below ``dense_below`` samples, or when ``k`` is 10 or more.
    tol, max_iter : ARPACK accuracy and restart cap.
    inverse : ShiftInverse, optional
        Of ``M``, to share its factorisation with other solves.
    dense_below : int, default=200
        Matrices smaller than this are solved densely by LAPACK.

    Returns
    -------
    eigenvalues : ndarray (k,), increasing
    eigenvectors : ndarray (n, k)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> L = sp.diags([np.r_[1.0, 2 * np.ones(298), 1.0], -np.ones(299), -np.ones(299)], [0, 1, -1])
    >>> w, V = smallest_eigh(L.tocsr(), 2, rng=np.random.default_rng(0))
    >>> np.round(w, 6)
    array([0.     , 0.00011])
    """
    n = M.shape[0]
    if solver == "auto":
        solver = "dense" if n < dense_below or k >= 10 else "arpack"
    if solver == "arpack" and k < n - 1:
        inverse = inverse or ShiftInverse(M)
        try:
            w, V = spla.eigsh(
                M,
                k,
                sigma=-inverse.shift,
                which="LM",
                v0=rng.uniform(-1, 1, n),
                tol=tol,
                maxiter=max_iter,
                OPinv=inverse.operator,
            )
            order = np.argsort(w)
            return w[order], V[:, order]
        except (spla.ArpackNoConvergence, RuntimeError) as exc:
            warn_user(
                f"ARPACK shift-invert did not converge for the {k} smallest eigenpairs ({exc}); "
                "using the dense solver.",
                ConvergenceWarning,
            )
    require_memory(8 * n * n, f"dense eigendecomposition of a {n} x {n} matrix", "use solver='arpack'")
    dense = M.toarray() if sp.issparse(M) else np.asarray(M)
    return eigh(dense, subset_by_index=[0, k - 1], check_finite=False)
