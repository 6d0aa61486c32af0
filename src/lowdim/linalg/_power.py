"""Power iteration with deflation: one eigenvector at a time, to a tolerance."""

import numpy as np

from .._iterative import run_loop


def _power_step(apply, basis):
    """One power step for the operator deflated by the columns of ``basis``."""

    def step(state):
        x, _ = state
        y = apply(x)
        if basis.shape[1]:
            y -= basis @ (basis.T @ y)
        eigenvalue = float(x @ y)
        norm = float(np.linalg.norm(y))
        if norm == 0.0:
            return (x, 0.0), 0.0, 0.0
        x_new = y / norm
        cos = min(1.0, abs(float(x_new @ x)))
        return (x_new, eigenvalue), eigenvalue, np.sqrt(max(0.0, 1.0 - cos * cos))

    return step


def power_eigh(
    apply, dim, dtype, *, n_components, rng, tol=1e-7, max_iter=1000, stop_variance=None, callbacks=(), verbose=0
):
    """Top eigenpairs of a symmetric positive semi-definite operator by power iteration.

    Each eigenvector is iterated until the sine of the angle between successive
    iterates is at most ``tol`` (a ``ConvergenceWarning`` otherwise), then deflated
    (projected out) before the next one starts.

    Parameters
    ----------
    apply : callable
        ``apply(x) -> C @ x`` for vectors of length ``dim``.
    dim : int
    dtype : numpy dtype
    n_components : int
        Maximum number of eigenpairs.
    rng : numpy.random.Generator
        Start vectors.
    tol, max_iter : float, int
        Per-component convergence criterion and iteration cap.
    stop_variance : float, optional
        Stop early once the eigenvalues found sum to at least this.
    callbacks, verbose
        As in ``run_loop``.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
    eigenvectors : ndarray of shape (dim, k)
    n_iter : list of int
        Iterations used per component.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.diag([5.0, 2.0, 1.0])
    >>> w, V, _ = power_eigh(lambda x: C @ x, 3, np.float64, n_components=2,
    ...                      rng=np.random.default_rng(0))
    >>> np.round(w, 6)
    array([5., 2.])
    """
    basis = np.zeros((dim, 0), dtype=dtype)
    values, iters = [], []
    for j in range(n_components):
        x = rng.standard_normal(dim).astype(dtype)
        if basis.shape[1]:
            x -= basis @ (basis.T @ x)
        x /= np.linalg.norm(x)
        result = run_loop(
            _power_step(apply, basis),
            (x, 0.0),
            max_iter=max_iter,
            tol=tol,
            callbacks=callbacks,
            verbose=verbose,
            label=f"power iteration (component {j})",
        )
        vec, value = result.state
        vec = vec - basis @ (basis.T @ vec)
        vec /= np.linalg.norm(vec)
        basis = np.column_stack([basis, vec.astype(dtype)])
        values.append(value)
        iters.append(result.n_iter)
        if result.stopped or (stop_variance is not None and sum(values) >= stop_variance):
            break
    return np.asarray(values), basis, iters
