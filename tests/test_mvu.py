"""Maximum variance unfolding (issue 5): a rolled strip comes out flat."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from lowdim.manifold import MaximumVarianceUnfolding
from lowdim.manifold._mvu import centred_basis, edge_list


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


def test_centred_basis_and_edges():
    P = centred_basis(np.arange(1.0, 6.0))
    np.testing.assert_allclose(P.T @ P, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(np.arange(1.0, 6.0) @ P, 0, atol=1e-12)
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    rows, cols, d2 = edge_list(X, 1)
    assert np.all(rows < cols)
    assert sorted(zip(rows.tolist(), cols.tolist())) == [(0, 1), (1, 2), (2, 3)]  # the last joins a component
    np.testing.assert_allclose(sorted(d2), [1.0, 4.0, 49.0])


def test_size_limits_name_the_fix():
    X = np.random.default_rng(0).normal(size=(300, 3))
    with pytest.raises(ValueError, match="set n_landmarks"):
        MaximumVarianceUnfolding(n_landmarks=None).fit(X)
    assert MaximumVarianceUnfolding(n_landmarks="auto", random_state=0).fit(X).n_landmarks_ == 20
    with pytest.raises(ValueError, match="n_landmarks=600 must be at most n_samples=300"):
        MaximumVarianceUnfolding(n_landmarks=600).fit(X)
