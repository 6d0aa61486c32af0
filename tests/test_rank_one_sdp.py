"""The interior-point method for rank-one constrained SDPs behind exact MVU."""

import numpy as np
import pytest

from lowdim.linalg._rank_one_sdp import DenseConstraints, EdgeConstraints, solve_rank_one_sdp


def _random_program(p=8, m=20, seed=0):
    """min <C, X> s.t. a_i^T X a_i = b_i with b from a positive definite X0 (so the
    program has an interior) and C positive definite (so it is bounded)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(p, m))
    G = rng.normal(size=(p, p))
    X0 = G @ G.T + np.eye(p)
    H = rng.normal(size=(p, p))
    return H @ H.T + 0.1 * np.eye(p), A, np.einsum("pm,pm->m", A, X0 @ A)


def test_solution_carries_its_certificate():
    C, A, b = _random_program()
    r = solve_rank_one_sdp(C, A, b)
    assert r.converged
    assert np.linalg.eigvalsh(r.X)[0] > -1e-9 and np.linalg.eigvalsh(r.S)[0] > -1e-9
    np.testing.assert_allclose(np.einsum("pm,pm->m", A, r.X @ A), b, rtol=1e-7)
    np.testing.assert_allclose(C - (A * r.y) @ A.T, r.S, atol=1e-7)  # dual feasible
    # zero duality gap: <C, X> = b^T y, complementary slackness <X, S> = 0
    np.testing.assert_allclose(np.sum(C * r.X), b @ r.y, rtol=1e-7)
    assert np.sum(r.X * r.S) < 1e-6 * abs(np.sum(C * r.X))


def test_agrees_with_clarabel():
    cp = pytest.importorskip("cvxpy")
    C, A, b = _random_program(p=10, m=30, seed=3)
    X = cp.Variable((10, 10), PSD=True)
    problem = cp.Problem(cp.Minimize(cp.trace(C @ X)), [cp.sum(cp.multiply(A.T @ X, A.T), axis=1) == b])
    problem.solve(solver="CLARABEL")
    r = solve_rank_one_sdp(C, A, b)
    np.testing.assert_allclose(np.sum(C * r.X), problem.value, rtol=1e-6)


def test_edge_constraints_equal_their_dense_columns():
    rng = np.random.default_rng(1)
    V = np.linalg.qr(rng.normal(size=(12, 5)))[0]
    rows, cols = np.array([0, 1, 2, 5, 7, 3]), np.array([1, 2, 9, 6, 11, 10])
    edge, dense = EdgeConstraints(V, rows, cols), DenseConstraints((V[rows] - V[cols]).T)
    Z, y = rng.normal(size=(5, 5)), rng.normal(size=6)  # Z not symmetric on purpose
    np.testing.assert_allclose(edge.apply(Z), dense.apply(Z), atol=1e-12)
    np.testing.assert_allclose(edge.adjoint(y), dense.adjoint(y), atol=1e-12)
    np.testing.assert_allclose(edge.gram(Z), dense.gram(Z), atol=1e-12)
    np.testing.assert_allclose(edge.sq_norms(), dense.sq_norms(), atol=1e-12)


def test_program_without_interior_returns_its_best_iterate():
    # a triangle's three sides and a fourth point joined to all three in the plane:
    # rigid in 2-D, so the only feasible Gram matrix has rank 2 (no interior point)
    P = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.5, 0.5]])
    rows, cols = np.array([0, 0, 1, 0, 1, 2]), np.array([1, 2, 2, 3, 3, 3])
    V = np.linalg.qr(np.c_[np.ones(4), np.eye(4)[:, :3]])[0][:, 1:]
    d2 = np.sum((P[rows] - P[cols]) ** 2, axis=1)
    r = solve_rank_one_sdp(-np.eye(3), EdgeConstraints(V, rows, cols), d2, max_iter=60)
    K = V @ r.X @ V.T
    Pc = P - P.mean(axis=0)
    np.testing.assert_allclose(K, Pc @ Pc.T, atol=1e-3)  # the one feasible point, to the stall's accuracy
    assert r.n_iter <= 60
