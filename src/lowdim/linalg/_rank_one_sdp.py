"""A primal-dual interior-point solver for semidefinite programs whose constraint
matrices have rank one:

    minimise <C, X>  subject to  a_i^T X a_i = b_i (i = 1..m),  X PSD.

Maximum variance unfolding has this form (``a_i = e_j - e_k`` for every kNN edge).
Rank one makes the Schur complement of the HKM search direction a Hadamard product,
``M = (A^T X A) o (A^T S^-1 A)``: two matrix products instead of m^2 trace products,
and nothing of size ``p^2 x p^2`` (which general conic solvers factorise). The
iteration is Mehrotra's predictor-corrector from an infeasible start (Helmberg, Rendl,
Vanderbei & Wolkowicz 1996 for the direction; Todd, "Semidefinite optimization", Acta
Numerica 2001, for the method; Toh, Todd & Tutuncu's SDPT3 for the starting point).
It stops on the relative duality gap and primal and dual infeasibility, so the answer
carries its own optimality certificate.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse

STEP_FRACTION = 0.98  # of the largest step keeping X and S positive definite
# stop when the worst of gap and infeasibilities has not improved for this many
# iterations, returning the best iterate: without interior points the iteration
# freezes (its steps shrink to nothing) or drifts off after its best point
STALL_WINDOW = 10


@dataclass
class SDPResult:
    """Primal solution ``X``, dual ``(y, S)`` with ``C - sum_i y_i a_i a_i^T = S``, the
    final relative duality gap and infeasibilities, and the number of iterations."""

    X: np.ndarray
    y: np.ndarray
    S: np.ndarray
    gap: float
    primal_infeasibility: float
    dual_infeasibility: float
    n_iter: int
    converged: bool


@dataclass
class _Point:
    X: np.ndarray
    y: np.ndarray
    S: np.ndarray

    def moved(self, d, a_p, a_d):
        return _Point(self.X + a_p * d.X, self.y + a_d * d.y, self.S + a_d * d.S)


class DenseConstraints:
    """Constraint vectors given as the columns of ``A`` (p, m).

    Examples
    --------
    >>> cons = DenseConstraints(np.array([[1.0, 1.0], [0.0, -1.0]]))
    >>> cons.apply(np.eye(2)).tolist()
    [1.0, 2.0]
    """

    def __init__(self, A):
        self.A = A

    def apply(self, Z):
        """``a_i^T Z a_i`` for every ``i``."""
        return np.einsum("pm,pm->m", self.A, Z @ self.A)

    def adjoint(self, y):
        """``sum_i y_i a_i a_i^T``."""
        return (self.A * y) @ self.A.T

    def gram(self, Z):
        """``a_i^T Z a_j`` for every pair (m, m)."""
        return self.A.T @ (Z @ self.A)

    def sq_norms(self):
        return np.sum(self.A * self.A, axis=0)


class EdgeConstraints:
    """Constraint vectors ``a_i = V^T (e_rows_i - e_cols_i)``: edge lengths of the Gram
    matrix ``V X V^T`` (n, n). Every product goes through that matrix, so the Schur
    complement costs gathers from it instead of ``p m^2`` multiplications.

    Parameters
    ----------
    V : ndarray (n, m)
        The basis of the face the program is restricted to.
    rows, cols : ndarray of int (p,)
        The two end points of every edge.

    Examples
    --------
    >>> cons = EdgeConstraints(np.eye(3), np.array([0, 1]), np.array([1, 2]))
    >>> cons.apply(np.diag([1.0, 2.0, 4.0])).tolist()  # squared edge lengths
    [3.0, 6.0]
    """

    def __init__(self, V, rows, cols):
        self.V, self.rows, self.cols = V, rows, cols

    def _lift(self, Z):
        return self.V @ Z @ self.V.T

    def apply(self, Z):
        K, r, c = self._lift(Z), self.rows, self.cols
        return K[r, r] + K[c, c] - K[r, c] - K[c, r]  # Z need not be symmetric

    def adjoint(self, y):
        n, r, c = self.V.shape[0], self.rows, self.cols
        L = scipy.sparse.coo_matrix((np.r_[-y, -y], (np.r_[r, c], np.r_[c, r])), shape=(n, n)).tocsr()
        L = L - scipy.sparse.diags(np.asarray(L.sum(axis=1)).ravel())  # weighted graph Laplacian
        return self.V.T @ (L @ self.V)

    def gram(self, Z):
        K = self._lift(Z)
        B = K[:, self.rows] - K[:, self.cols]
        return B[self.rows] - B[self.cols]

    def sq_norms(self):
        D = self.V[self.rows] - self.V[self.cols]
        return np.sum(D * D, axis=1)


def _sym(Z):
    return 0.5 * (Z + Z.T)


def _max_step(Z, D):
    """Largest ``alpha`` (capped at 1 / STEP_FRACTION) with ``Z + alpha D`` PSD, for
    ``Z`` positive definite: ``-1 / lambda_min(L^-1 D L^-T)`` with ``Z = L L^T``."""
    L = np.linalg.cholesky(Z)
    W = scipy.linalg.solve_triangular(L, scipy.linalg.solve_triangular(L, D, lower=True).T, lower=True)
    lowest = scipy.linalg.eigvalsh(_sym(W), subset_by_index=[0, 0])[0]
    return 1.0 / STEP_FRACTION if lowest >= 0 else min(1.0 / STEP_FRACTION, -1.0 / lowest)


def _schur_factor(cons, X, S_inv):
    """Cholesky factor of ``(A^T X A) o (A^T S^-1 A)``, nudged on its diagonal if the
    last iterations have made it numerically semidefinite."""
    M = cons.gram(X) * cons.gram(S_inv)
    jitter = 0.0
    for _ in range(8):
        try:
            return scipy.linalg.cho_factor(M + jitter * np.eye(len(M)), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            jitter = max(jitter * 100, 1e-14 * float(np.max(np.diag(M))))
    raise np.linalg.LinAlgError(
        "the Schur complement of the SDP is not positive definite; are two constraints the same?"
    )


class _Newton:
    """The HKM Newton system at one point, factorised once for the predictor and the
    corrector: primal ``A(X) = b``, dual ``A^T(y) + S = C``."""

    def __init__(self, cons, pt, C, b):
        self.cons, self.pt = cons, pt
        self.S_inv = scipy.linalg.cho_solve((np.linalg.cholesky(pt.S), True), np.eye(len(C)))
        self.Rd = C - pt.S - cons.adjoint(pt.y)
        self.rp = b - cons.apply(pt.X)
        self.chol = _schur_factor(cons, pt.X, self.S_inv)
        self.mu = float(np.sum(pt.X * pt.S)) / len(C)

    def direction(self, R3):
        """Direction for the complementarity right-hand side ``R3``
        (``dX + H(X dS S^-1) = R3``)."""
        cons, pt = self.cons, self.pt
        dy = scipy.linalg.cho_solve(self.chol, self.rp - cons.apply(R3) + cons.apply(pt.X @ self.Rd @ self.S_inv))
        dS = _sym(self.Rd - cons.adjoint(dy))
        return _Point(_sym(R3 - _sym(pt.X @ dS @ self.S_inv)), dy, dS)

    def steps(self, d):
        return _max_step(self.pt.X, d.X), _max_step(self.pt.S, d.S)


def _positive_definite(Z):
    try:
        np.linalg.cholesky(Z)
        return True
    except np.linalg.LinAlgError:
        return False


def _inside(pt, d, a_p, a_d):
    """``pt`` moved by ``d``, the steps shortened (by 20 % at a time) until ``X`` and
    ``S`` are positive definite in floating point too: near the optimum their smallest
    eigenvalues reach rounding level, where the exact step bound no longer guards."""
    for _ in range(30):
        new = pt.moved(d, a_p, a_d)
        if _positive_definite(new.X) and _positive_definite(new.S):
            return new
        a_p, a_d = 0.8 * a_p, 0.8 * a_d
    raise np.linalg.LinAlgError("the SDP iterates left the cone at rounding level")


def _starting_point(cons, b, p):
    """SDPT3's scaled identities: ``X = xi I``, ``S = eta I``, ``y = 0``."""
    norms = cons.sq_norms()
    xi = max(10.0, np.sqrt(p), p * float(np.max((1.0 + np.abs(b)) / (1.0 + norms))))
    eta = max(10.0, np.sqrt(p), float(np.max(norms)))
    return _Point(xi * np.eye(p), np.zeros(len(b)), eta * np.eye(p))


def _measures(newton, C, b):
    """Relative duality gap, primal and dual infeasibility at the Newton system's point."""
    pt = newton.pt
    primal, dual = float(np.sum(C * pt.X)), float(b @ pt.y)
    gap = abs(primal - dual) / (1.0 + abs(primal) + abs(dual))
    return (
        gap,
        np.linalg.norm(newton.rp) / (1.0 + np.linalg.norm(b)),
        np.linalg.norm(newton.Rd) / (1.0 + np.linalg.norm(C)),
    )


def _step(newton):
    """One Mehrotra predictor-corrector step from the Newton system's point."""
    pt = newton.pt
    aff = newton.direction(-pt.X)  # predictor: affine scaling
    a_p, a_d = (min(1.0, a) for a in newton.steps(aff))
    trial = pt.moved(aff, a_p, a_d)
    sigma_mu = min(1.0, (float(np.sum(trial.X * trial.S)) / len(pt.X) / newton.mu) ** 3) * newton.mu
    d = newton.direction(sigma_mu * newton.S_inv - pt.X - _sym(aff.X @ aff.S @ newton.S_inv))
    a_p, a_d = (min(1.0, STEP_FRACTION * a) for a in newton.steps(d))
    return _inside(pt, d, a_p, a_d)


def solve_rank_one_sdp(C, A, b, *, tol=1e-8, max_iter=100):
    """Solve the semidefinite program min <C, X> subject to a_i^T X a_i = b_i, X PSD.

    Each iteration costs two Gram matrices of the constraint vectors (``a_i^T X a_j``
    and ``a_i^T S^-1 a_j``, m x m), one m x m Cholesky factorisation and a few p x p
    products (``p`` the size of ``X``, ``m`` the constraints). Losing definiteness at
    rounding level ends the iteration like a stall.

    Parameters
    ----------
    C : ndarray (p, p), symmetric
    A : ndarray (p, m), DenseConstraints or EdgeConstraints
        The vectors ``a_i`` (an array: its columns).
    b : ndarray (m,)
    tol : float
        Relative duality gap and primal / dual infeasibility to stop at.
    max_iter : int
        Without an interior (constraints pinning ``X`` to a face of the cone), the
        iteration stalls; it stops here, or after STALL_WINDOW iterations without
        progress, with the best iterate and ``converged=False``.

    Returns
    -------
    SDPResult
        ``S`` stays positive definite, so whenever the dual infeasibility is at
        rounding level ``b @ y`` is a lower bound on the optimum.

    Examples
    --------
    >>> import numpy as np
    >>> # X_11 = 1, X_22 = 4 and |x_1 - x_2|^2 = 1 leave only X_12 = 2
    >>> A = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
    >>> r = solve_rank_one_sdp(-np.eye(2), A, np.array([1.0, 4.0, 1.0]))
    >>> r.converged, np.round(r.X, 5).tolist()
    (True, [[1.0, 2.0], [2.0, 4.0]])
    """
    cons = DenseConstraints(A) if isinstance(A, np.ndarray) else A
    pt = _starting_point(cons, b, C.shape[0])
    best, best_it = None, 0
    for it in range(max_iter + 1):
        try:
            newton = _Newton(cons, pt, C, b)
        except np.linalg.LinAlgError:  # S or the Schur complement lost definiteness
            break
        gap, pinf, dinf = _measures(newton, C, b)
        if best is None or max(gap, pinf, dinf) < max(best[3:6]):
            best, best_it = (pt.X, pt.y, pt.S, gap, pinf, dinf, it), it
        if max(best[3:6]) < tol or it == max_iter or it - best_it >= STALL_WINDOW:
            break
        try:
            pt = _step(newton)
        except np.linalg.LinAlgError:  # no step keeps X and S positive definite
            break
    if best is None:
        raise np.linalg.LinAlgError("the SDP's starting point is not positive definite")
    return SDPResult(*best, max(best[3:6]) < tol)
