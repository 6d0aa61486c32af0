"""Classical and landmark MDS core."""

import numpy as np
import pytest

from lowdim import PCA
from lowdim.manifold import classical_mds, farthest_points, landmark_mds


def _dist(A):
    return np.sqrt(((A[:, None] - A[None]) ** 2).sum(-1))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(120, 5)) @ np.diag([5.0, 3.0, 2.0, 1.0, 0.5]) + 7.0


def test_full_rank_classical_mds_preserves_distances(data):
    Y, model = classical_mds(_dist(data), 5)
    np.testing.assert_allclose(_dist(Y), _dist(data), atol=1e-9)
    assert np.all(np.diff(model.eigenvalues) <= 0)


def test_classical_mds_equals_pca(data):
    Y, model = classical_mds(_dist(data), 2)
    pca = PCA(2).fit(data)
    np.testing.assert_allclose(np.abs(Y), np.abs(pca.transform(data)), atol=1e-8)
    np.testing.assert_allclose(model.eigenvalues, pca.explained_variance_ * (len(data) - 1), rtol=1e-10)


def test_out_of_sample_placement_reproduces_training_points(data):
    Y, model = classical_mds(_dist(data), 3)
    np.testing.assert_allclose(model.place(_dist(data) ** 2), Y, atol=1e-8)
    one = model.place(_dist(data)[7:8] ** 2)
    np.testing.assert_allclose(one, Y[7:8], atol=1e-8)


def test_non_euclidean_dissimilarities_report_negative_eigenvalues():
    rng = np.random.default_rng(1)
    D = rng.uniform(1, 2, size=(30, 30))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0)
    Y, model = classical_mds(D, 30)
    assert model.eigenvalues.min() < 0 and np.isfinite(Y).all()
    assert np.all(Y[:, model.eigenvalues <= 0] == 0)


def test_landmark_mds_exact_on_low_rank_data_and_close_otherwise(data):
    rng = np.random.default_rng(2)
    flat = rng.normal(size=(500, 2)) @ rng.normal(size=(2, 6))
    Y, model, landmarks = landmark_mds(flat, 2, 10, np.random.default_rng(0))
    np.testing.assert_allclose(_dist(Y), _dist(flat), atol=1e-8)
    assert np.unique(landmarks).size == 10
    Y2, _, _ = landmark_mds(data, 2, 40, np.random.default_rng(0))
    full, _ = classical_mds(_dist(data), 2)
    corr = np.corrcoef(_dist(Y2).ravel(), _dist(full).ravel())[0, 1]
    assert corr > 0.99


def test_farthest_points_spread_out():
    X = np.r_[np.zeros((50, 2)), np.full((50, 2), 10.0), np.array([[5.0, 5.0]])]
    picked = farthest_points(X, 3, np.random.default_rng(0))
    groups = {tuple(X[i]) for i in picked}
    assert groups == {(0.0, 0.0), (10.0, 10.0), (5.0, 5.0)}
