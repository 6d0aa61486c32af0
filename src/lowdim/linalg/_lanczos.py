"""Lanczos (ARPACK) for the top eigenpairs of a symmetric operator, with a LOBPCG fallback."""

import warnings

import numpy as np
import scipy.sparse.linalg as spla

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
        warnings.warn(
            f"ARPACK did not converge for k={k} (max_iter={max_iter}); falling back to LOBPCG.",
            ConvergenceWarning,
            stacklevel=2,
        )
        X0 = rng.standard_normal((d, k))
        w, V = spla.lobpcg(op, X0, largest=True, tol=None if tol == 0 else tol, maxiter=500)
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]
