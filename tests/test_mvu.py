"""Maximum variance unfolding: a rolled strip comes out flat."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr

from lowdim.manifold import MaximumVarianceUnfolding
from lowdim.manifold._mvu import AUTO_EXACT, CVXPY_EXACT_LIMIT, EXACT_LIMIT, centered_basis, edge_list
from lowdim.manifold._mvu_face import mvu_face


def _rolled_strip(n, seed=0):
    """A 2-D strip (arc length along a spiral x height) rolled up in 3-D."""
    rng = np.random.default_rng(seed)
    t = np.pi * (1 + 1.5 * rng.uniform(size=n))
    h = 4 * rng.uniform(size=n)
    arc = 0.5 * (t * np.sqrt(1 + t**2) + np.arcsinh(t))
    return np.c_[t * np.cos(t), h, t * np.sin(t)], np.c_[arc, h]


def _check_unrolled(est, truth):
    Y = est.embedding_
    # the first coordinate runs along the strip, the second across it, and the learned
    # geometry is (nearly) flat: the two kept dimensions carry its variance
    assert abs(spearmanr(Y[:, 0], truth[:, 0])[0]) > 0.99
    assert abs(spearmanr(Y[:, 1], truth[:, 1])[0]) > 0.9
    assert est.variance_fraction_ > 0.99


def test_exact_mvu_unrolls_a_strip_and_keeps_the_edges():
    X, truth = _rolled_strip(50)
    est = MaximumVarianceUnfolding(n_neighbors=6).fit(X)
    _check_unrolled(est, truth)
    assert est.distance_error_ < 1e-3
    # unfolding pulls points apart: the learned variance exceeds the data's
    assert np.sum(est.embedding_**2) > np.sum((X - X.mean(axis=0)) ** 2)


def test_landmark_mvu_unrolls_a_larger_strip():
    X, truth = _rolled_strip(400, seed=1)
    est = MaximumVarianceUnfolding(n_neighbors=6, n_landmarks=20, random_state=0).fit(X)
    _check_unrolled(est, truth)
    assert est.distance_error_ < 0.15  # least squares: landmarks cannot keep every edge exactly


def test_centered_basis_and_edges():
    P = centered_basis(np.arange(1.0, 6.0))
    np.testing.assert_allclose(P.T @ P, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(np.arange(1.0, 6.0) @ P, 0, atol=1e-12)
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    rows, cols, d2 = edge_list(X, 1)
    assert np.all(rows < cols)
    assert sorted(zip(rows.tolist(), cols.tolist())) == [(0, 1), (1, 2), (2, 3)]  # the last joins a component
    np.testing.assert_allclose(sorted(d2), [1.0, 4.0, 49.0])


def test_size_limits_name_the_fix():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="set n_landmarks"):
        MaximumVarianceUnfolding(n_landmarks=None).fit(rng.normal(size=(EXACT_LIMIT + 1, 3)))
    with pytest.raises(ValueError, match="or solver='auto'"):
        MaximumVarianceUnfolding(n_landmarks=None, solver="scs").fit(rng.normal(size=(CVXPY_EXACT_LIMIT + 1, 3)))
    with pytest.raises(ValueError, match="exact program only"):
        MaximumVarianceUnfolding(n_landmarks=10, solver="interior-point").fit(rng.normal(size=(50, 3)))
    X = rng.normal(size=(AUTO_EXACT + 1, 3))
    assert MaximumVarianceUnfolding(n_landmarks="auto", random_state=0).fit(X).n_landmarks_ == 20
    with pytest.raises(ValueError, match="n_landmarks=600 must be at most n_samples=301"):
        MaximumVarianceUnfolding(n_landmarks=600).fit(X)


def _digits(n):
    from sklearn.datasets import load_digits

    return load_digits().data[:n]


def test_exact_mvu_of_a_few_hundred_images_is_certified_optimal():
    """64-D images: the program has an interior, the interior-point method converges and
    its dual iterate certifies the variance (relative gap below 1e-8)."""
    X = _digits(200)
    est = MaximumVarianceUnfolding(n_neighbors=5, n_landmarks=None).fit(X)
    assert est.solver_status_.startswith("optimal (interior point")
    assert est.duality_gap_ < 1e-8
    assert est.distance_error_ < 1e-7
    assert np.sum(est.eigenvalues_) > np.sum((X - X.mean(axis=0)) ** 2)  # unfolded: more variance


@pytest.mark.parametrize("data", ["digits", "strip"])
def test_interior_point_agrees_with_clarabel(data):
    pytest.importorskip("cvxpy")
    X = _digits(40) if data == "digits" else _rolled_strip(40)[0]
    ours = MaximumVarianceUnfolding(n_neighbors=5, n_landmarks=None).fit(X)
    ref = MaximumVarianceUnfolding(n_neighbors=5, n_landmarks=None, solver="clarabel").fit(X)
    # the objective, the learned total variance, is unique (the optimal Gram matrix
    # need not be); the strip leaves the program without interior points, where
    # Clarabel's answer is inexact (slightly violated distances buy extra variance)
    total = [np.sum(e.eigenvalues_) / e.variance_fraction_ for e in (ours, ref)]
    np.testing.assert_allclose(total[0], total[1], rtol=1e-6 if data == "digits" else 2e-3)
    assert ours.distance_error_ <= max(ref.distance_error_, 1e-6)


def test_face_holds_every_solution_and_a_rigid_set_stays_as_it_is():
    X = _rolled_strip(40)[0]
    rows, cols, d2 = edge_list(X, 5)
    V = mvu_face(X, rows, cols)
    assert V.shape[1] < len(X) - 1  # the strip in 3-D has rigid clusters
    np.testing.assert_allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-10)
    np.testing.assert_allclose(np.ones(len(X)) @ V, 0, atol=1e-10)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(V @ (V.T @ Xc), Xc, atol=1e-9)  # the data's own Gram matrix is feasible
    # all distances of a planar point set known: universally rigid, MVU returns the data
    P = np.random.default_rng(1).normal(size=(9, 2))
    est = MaximumVarianceUnfolding(n_neighbors=8, n_landmarks=None).fit(P)
    assert mvu_face(P, *edge_list(P, 8)[:2]).shape[1] == 2
    np.testing.assert_allclose(pdist(est.embedding_), pdist(P), rtol=1e-7)


@pytest.mark.parametrize("n_landmarks", [None, 10])
def test_components_beyond_the_learned_rank_are_zero_columns(n_landmarks):
    # the learned Gram matrix is centred (rank at most n - 1) and lives on the graph's face
    # or the landmarks' span: asked for more, the embedding keeps the promised width
    X = np.abs(np.random.default_rng(0).normal(size=(12, 4))) + 0.1
    k = 10 if n_landmarks else 12
    est = MaximumVarianceUnfolding(n_components=k, n_landmarks=n_landmarks, random_state=0).fit(X)
    rank = int(np.sum(est.eigenvalues_ > 0))
    assert est.embedding_.shape == (12, k) and est.eigenvalues_.shape == (k,) and rank < k
    np.testing.assert_array_equal(est.embedding_[:, rank:], 0.0)
    np.testing.assert_allclose(np.sum(est.embedding_**2, axis=0), est.eigenvalues_, rtol=1e-10, atol=1e-12)
