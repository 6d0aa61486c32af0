"""Maximum variance unfolding (Weinberger & Saul, 2004): the centred Gram matrix of
largest trace that keeps every kNN distance, found by a semidefinite program, and its
landmark version (Weinberger, Packer & Saul, 2005) where the Gram matrix is
``Q L Q^T`` with ``Q`` the LLE reconstruction of all points from ``m`` landmarks and
only the ``m x m`` matrix ``L`` is optimised.

The exact program is first restricted to the face of the PSD cone that its rigid
clusters leave (``_mvu_face``), then solved by lowdim's interior-point method for
rank-one constraints (``linalg._rank_one_sdp``) or, on request, through cvxpy with an
open solver; the landmark program goes through cvxpy."""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu
from sklearn.base import BaseEstimator

from .._estimator import EmbeddingMixin, ValidatedInputMixin
from .._params import NONE, RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import warn_constant_features
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning
from ..linalg import EdgeConstraints, column_moments, flip_signs, solve_rank_one_sdp
from ..neighbors import check_n_neighbors, join_components, kneighbors_graph, nearest_neighbors, symmetrize
from ._classical import farthest_points
from ._local_fits import assemble, standard_blocks
from ._mvu_face import laplacian_basis, mvu_face

# lowdim's interior-point method takes 20-24 iterations of O(n^3) each (times in
# BENCHMARKS.md, Manifold learning: exact MVU). Through cvxpy the program has n^2 / 2
# unknowns and Clarabel factorises their n^4 / 4 Hessian: minutes and gigabytes from
# about a hundred points, hence the lower limit.
EXACT_LIMIT = 2000
CVXPY_EXACT_LIMIT = 100
AUTO_EXACT = 300
AUTO_LANDMARKS = 20
EXACT_TOL = 1e-8  # relative duality gap and infeasibility of the interior-point method
EXACT_MAX_ITER = 80
# Data in few dimensions leave the program nearly without interior even on its reduced
# face (a strip rolled in 3-D, 50-150 points, 4-8 neighbours: relative gaps 1e-5 to 2e-2
# with distances kept to 5e-6 to 3e-4): a warning only past these.
GAP_WARN, DISTANCE_WARN = 1e-2, 1e-3
_INSTALL = "MaximumVarianceUnfolding needs cvxpy for this: pip install 'lowdim[sdp]'"


def _cvxpy():
    try:
        import cvxpy
    except ImportError as exc:
        raise ImportError(_INSTALL) from exc
    return cvxpy


def edge_list(X, n_neighbors):
    """Undirected kNN edges ``(i, j, squared distance)`` with ``i < j``, the graph joined
    into one component (a disconnected graph leaves MVU unbounded)."""
    G = symmetrize(kneighbors_graph(X, n_neighbors, algorithm="exact"))
    G = sp.triu(join_components(G, X, name="MaximumVarianceUnfolding neighbour graph"), k=1).tocoo()
    return G.row, G.col, G.data**2


def _solve(problem, solver):
    """Solve with the named solver; 'auto' is Clarabel (interior point), then SCS
    (first order, more tolerant of the degenerate optimal faces MVU has) if Clarabel
    fails."""
    cp = _cvxpy()
    names = [solver.upper()] if solver != "auto" else ["CLARABEL", "SCS"]
    for name in names:
        try:
            with warnings.catch_warnings():
                # cvxpy's "may be inaccurate" is judged by fit() from the distances kept
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(solver=name)
        except cp.error.SolverError:
            continue
        if problem.status in ("optimal", "optimal_inaccurate"):
            return f"{problem.status} ({name})"
    raise RuntimeError(
        f"the MVU semidefinite program was not solved ({', '.join(names)}: status "
        f"{problem.status!r}); try fewer n_neighbors or n_landmarks."
    )


def _outer_rows(diff):
    """One row ``vec(a a^T)`` per row ``a`` of ``diff``: ``<a a^T, M>`` becomes a matrix
    product with ``vec(M)`` (symmetric ``M``: either vec order)."""
    return (diff[:, :, None] * diff[:, None, :]).reshape(len(diff), -1)


def exact_program(V, rows, cols, d2, solver="auto"):
    """The MVU program on the face spanned by ``V`` (n, r): PSD ``Z`` (r, r) of maximum
    trace with ``|V_i - V_j|^2_Z = d2`` on every edge; the Gram matrix is ``V Z V^T``
    (centred, as ``V`` is orthogonal to the ones vector). Returns ``(Z, status,
    gap)``, the gap None from cvxpy."""
    r = V.shape[1]
    if solver in ("auto", "interior-point"):
        res = solve_rank_one_sdp(-np.eye(r), EdgeConstraints(V, rows, cols), d2, tol=EXACT_TOL, max_iter=EXACT_MAX_ITER)
        status = (
            f"{'optimal' if res.converged else 'stopped'} (interior point, {res.n_iter} iterations, "
            f"relative gap {res.gap:.1e}, primal infeasibility {res.primal_infeasibility:.1e})"
        )
        return res.X, status, res.gap
    cp = _cvxpy()
    Z = cp.Variable((r, r), PSD=True)
    problem = cp.Problem(cp.Maximize(cp.trace(Z)), [_outer_rows(V[rows] - V[cols]) @ cp.vec(Z, order="F") == d2])
    status = _solve(problem, solver)
    return (Z.value + Z.value.T) / 2, status, None


def centered_basis(v):
    """Orthonormal basis (len(v), len(v) - 1) of the complement of ``v``: Gram matrices
    ``B M B^T`` with ``M`` PSD are then centred by construction, and the landmark
    program keeps an interior (with the centring as a constraint it has none, and
    Clarabel fails on it).

    Examples
    --------
    >>> P = centered_basis(np.ones(4))
    >>> np.allclose(P.T @ P, np.eye(3)), np.allclose(np.ones(4) @ P, 0)
    (True, True)
    """
    q, _ = np.linalg.qr(np.c_[v / np.linalg.norm(v), np.eye(len(v))[:, : len(v) - 1]])
    return q[:, 1:]


def landmark_program(B, rows, cols, d2, trace_weight, solver="auto"):
    """PSD ``M`` (r, r) minimising ``sum of squared edge misfits - trace_weight * trace``
    of the Gram matrix ``B M B^T`` (landmarks cannot meet every distance exactly).
    Returns ``(M, status)``.

    Edge (i, j) has ``|y_i - y_j|^2 = <a a^T, M>`` with ``a = B_i - B_j``, linear in
    ``vec(M)``; the E edge rows are compressed by a QR factorisation to ``r^2`` rows,
    so the program's size does not grow with the number of edges.
    """
    cp = _cvxpy()
    r = B.shape[1]
    M = cp.Variable((r, r), PSD=True)
    Qa, R = np.linalg.qr(_outer_rows(B[rows] - B[cols]))
    misfit = cp.sum_squares(R @ cp.vec(M, order="F") - Qa.T @ d2)
    problem = cp.Problem(cp.Minimize(misfit - trace_weight * cp.trace((B.T @ B) @ M)))
    status = _solve(problem, solver)
    return (M.value + M.value.T) / 2, status


def landmark_basis(X, n_neighbors, landmarks, reg=1e-3):
    """``Q`` (n, m): every point as the LLE reconstruction from the landmarks' positions,
    ``Y_rest = -Phi_rr^-1 Phi_rl Y_landmarks`` with ``Phi = (I - W)^T (I - W)``."""
    n = X.shape[0]
    _, idx = nearest_neighbors(X, n_neighbors, algorithm="exact")
    Phi = assemble(*standard_blocks(X, idx, 2, reg, 0.0), n).tocsc()
    rest = np.setdiff1d(np.arange(n), landmarks)
    Q = np.zeros((n, len(landmarks)))
    Q[landmarks, np.arange(len(landmarks))] = 1.0
    if rest.size:
        Phi_rr = Phi[rest][:, rest] + 1e-12 * sp.identity(rest.size, format="csc")
        Q[rest] = -splu(Phi_rr.tocsc()).solve(Phi[rest][:, landmarks].toarray())
    return Q


class MaximumVarianceUnfolding(EmbeddingMixin, ValidatedInputMixin, BaseEstimator):
    """Maximum variance unfolding (semidefinite embedding).

    Pulls the points as far apart as possible while every kNN distance stays as it is:
    the Gram matrix of largest trace under those equalities, a semidefinite program,
    then embedded by its top eigenvectors. The exact program is solved for up to a few
    hundred points (each iteration costs O(n^3); times in BENCHMARKS.md) by lowdim's
    interior-point method, which exploits that every constraint has rank one and
    returns its optimality certificate (``duality_gap_``). When the data live in few
    dimensions, the program has no interior point (rigid groups of neighbours fix
    their Gram matrix); rigid clusters of the neighbour graph first cut it down to the
    face of the PSD cone where its solutions lie, and if the solver still stalls it
    returns its best iterate (a 300-point Swiss roll: relative gap 3.5e-7, distances
    kept to 3e-5). With ``n_landmarks`` only an ``m x m``
    matrix is optimised (landmark MVU), every point being the LLE reconstruction from
    the landmarks, and distances are kept in the least-squares sense; that program, and
    the exact one on request, go through cvxpy (optional extra ``lowdim[sdp]``; Clarabel
    or SCS, both open).

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=5
    n_landmarks : 'auto', int or None, default='auto'
        Landmarks of landmark MVU; None solves the exact program (at most 2,000
        samples; seconds at a few hundred points); 'auto' is exact up to 300
        samples and 20 landmarks above.
    solver : {'auto', 'interior-point', 'clarabel', 'scs'}, default='auto'
        'interior-point' is lowdim's own (exact program only); 'clarabel' and 'scs'
        go through cvxpy (exact program: at most 100 samples, its cost grows as n^4).
        'auto' is 'interior-point' for the exact
        program and Clarabel (then SCS) for the landmark program.
    random_state : None, int or Generator
        The first landmark.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    eigenvalues_ : ndarray (n_components,)
        Of the learned Gram matrix, largest first.
    variance_fraction_ : float
        Share of the learned Gram matrix's trace in the kept components.
    distance_error_ : float
        Root mean squared relative error of the squared kNN distances in the full
        learned geometry (0 for the exact program, up to solver accuracy).
    solver_status_ : str
    duality_gap_ : float or None
        Relative duality gap of the exact program from the interior-point method (None
        from cvxpy or for landmark MVU). Its dual iterate stays feasible, so the
        learned variance is within about this fraction of the optimum, up to the
        distance error.
    n_landmarks_ : int or None
        Landmarks used (None: the exact program).
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_components_ : int
        Dimension of the embedding.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import MaximumVarianceUnfolding
    >>> t = np.linspace(0, np.pi, 40)
    >>> X = np.c_[np.cos(t), np.sin(t)]
    >>> Y = MaximumVarianceUnfolding(n_components=1, n_neighbors=2).fit_transform(X)
    >>> bool(np.all(np.diff(Y[:, 0]) > 0) or np.all(np.diff(Y[:, 0]) < 0))
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "n_neighbors": [Interval(int, 1, None, closed="left")],
        "n_landmarks": [NONE, Options({"auto"}), Interval(int, 2, None, closed="left")],
        "solver": [Options({"auto", "interior-point", "clarabel", "scs"})],
        "random_state": [RANDOM_STATE],
    }

    def __init__(self, n_components=2, *, n_neighbors=5, n_landmarks="auto", solver="auto", random_state=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.n_landmarks = n_landmarks
        self.solver = solver
        self.random_state = random_state

    def _landmarks(self, n):
        """The number of landmarks, or None for the exact program."""
        if self.n_landmarks == "auto":
            return None if n <= AUTO_EXACT else AUTO_LANDMARKS
        return self.n_landmarks

    def _check_sizes(self, n):
        check_n_neighbors(self.n_neighbors, n)
        landmarks = self._landmarks(n)
        m = n if landmarks is None else landmarks
        cvxpy_exact = self.solver in ("clarabel", "scs")
        limit = CVXPY_EXACT_LIMIT if cvxpy_exact else EXACT_LIMIT
        if landmarks is None and n > limit:
            raise ValueError(
                f"exact MVU on {n} samples is a semidefinite program with {n * (n + 1) // 2} "
                f"unknowns; set n_landmarks (e.g. {min(100, n)}) for landmark MVU"
                + (
                    f", or solver='auto' (lowdim's interior-point method, up to {EXACT_LIMIT} samples)"
                    if cvxpy_exact
                    else ""
                )
                + f", or use at most {limit} samples."
            )
        if landmarks is not None and self.solver == "interior-point":
            raise ValueError(
                "solver='interior-point' solves the exact program only; for landmark MVU "
                f"(n_landmarks={landmarks}) use solver='auto', 'clarabel' or 'scs', or set "
                "n_landmarks=None."
            )
        if m > n:
            raise ValueError(f"n_landmarks={m} must be at most n_samples={n}.")
        if self.n_components > m:
            raise ValueError(
                f"n_components={self.n_components} must be at most n_samples={m}"
                f"{' (the number of landmarks)' if landmarks else ''}; lower n_components."
            )

    def fit(self, X, y=None):
        """Learn the embedding of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        n = X.shape[0]
        self._check_sizes(n)
        warn_constant_features(column_moments(X)[1], "MaximumVarianceUnfolding", "every sample is the same point", X=X)
        X64 = np.ascontiguousarray(X, dtype=np.float64)
        rows, cols, d2 = edge_list(X64, self.n_neighbors)
        scale = float(np.mean(d2)) or 1.0  # the program is solved on unit-mean squared edges
        factor = self._learn_factor(X64, rows, cols, d2 / scale) * np.sqrt(scale)
        self._embed(factor, rows, cols, d2, X.dtype)
        gap_ok = self.duality_gap_ is None or self.duality_gap_ <= GAP_WARN
        if self.n_landmarks_ is None and not (gap_ok and self.distance_error_ <= DISTANCE_WARN):
            warn_user(
                f"MaximumVarianceUnfolding: the semidefinite program keeps the kNN distances to "
                f"{self.distance_error_:.1e} relative error (rms); solver: {self.solver_status_}. "
                "A neighbour graph "
                "nearly rigid in the data's own dimension leaves the program (almost) no interior "
                "point; landmark MVU (n_landmarks) solves a better-posed one.",
                ConvergenceWarning,
            )
        return self

    def _learn_factor(self, X, rows, cols, d2):
        """A factor ``F`` (n, r) of the learned Gram matrix ``F F^T``."""
        m = self._landmarks(X.shape[0])
        self.n_landmarks_ = m
        self.duality_gap_ = None
        if m is None:
            # (Clarabel fails on the reduced face of low-dimensional data, as it has no
            # interior either; on the whole cone it returns an inexact answer)
            own = self.solver in ("auto", "interior-point")
            face = mvu_face(X, rows, cols) if own else laplacian_basis(rows, cols, X.shape[0])
            Z, self.solver_status_, self.duality_gap_ = exact_program(face, rows, cols, d2, self.solver)
            w, V = np.linalg.eigh(Z)
            return face @ (V * np.sqrt(np.clip(w, 0, None)))
        landmarks = np.sort(farthest_points(X, m, check_random_state(self.random_state)))
        Q = landmark_basis(X, self.n_neighbors, landmarks)
        B = Q @ centered_basis(Q.sum(axis=0))  # centred by construction: the program keeps an interior
        # the trace is weighted so that stretching every edge by about 1 % costs what it
        # gains at the data's own variance (unit-mean squared edges)
        variance = np.sum((X - X.mean(axis=0)) ** 2) / np.mean(np.sum((X[rows] - X[cols]) ** 2, axis=1))
        M, self.solver_status_ = landmark_program(B, rows, cols, d2, 0.01 * len(d2) / variance, self.solver)
        w, V = np.linalg.eigh(M)
        return B @ (V * np.sqrt(np.clip(w, 0, None)))

    def _embed(self, F, rows, cols, d2, dtype):
        F = F - F.mean(axis=0)
        U, s, _ = np.linalg.svd(F, full_matrices=False)
        k = self.n_components
        (Ut,) = flip_signs(U[:, :k].T)
        # the factor spans the learned Gram matrix's range, which can be narrower than k
        # (the graph's face or the landmarks): the missing directions have eigenvalue 0
        pad = k - len(s[:k])
        self.embedding_ = np.pad(Ut.T * s[:k], ((0, 0), (0, pad))).astype(dtype)
        self.eigenvalues_ = np.pad(s[:k] ** 2, (0, pad))
        self.variance_fraction_ = float(np.sum(s[:k] ** 2) / max(np.sum(s**2), np.finfo(float).tiny))
        learned = np.sum((F[rows] - F[cols]) ** 2, axis=1)
        relative = (learned - d2) / np.maximum(d2, np.finfo(float).eps * max(float(d2.max()), 1.0))
        self.distance_error_ = float(np.sqrt(np.mean(relative**2)))
        self.n_components_ = k
