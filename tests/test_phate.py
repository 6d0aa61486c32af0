"""PHATE: the kernel, the landmark walk, the diffusion time and the layout against
their definitions, and the map keeping a trajectory in order."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist, squareform

from lowdim import PHATE
from lowdim.diffusion import (
    decay_kernel,
    entropy_curve,
    knee_by_two_lines,
    landmark_operator,
    potential,
    sgd_mds,
)
from lowdim.diffusion._phate_steps import row_normalize
from lowdim.neighbors import ExactIndex


@pytest.fixture(scope="module")
def spiral():
    """A noisy spiral arc in 10 dimensions: one trajectory, parameter ``s``."""
    rng = np.random.default_rng(0)
    s = np.sort(rng.uniform(0, 1, 600))
    core = np.c_[np.cos(4 * s) * (1 + 2 * s), np.sin(4 * s) * (1 + 2 * s), s]
    X = np.c_[core, np.zeros((600, 7))] @ np.linalg.qr(rng.normal(size=(10, 10)))[0]
    return X + rng.normal(scale=0.02, size=X.shape), s


def test_the_kernel_is_the_alpha_decay_kernel_made_symmetric(spiral):
    X = spiral[0][:200]
    index = ExactIndex().build(X)
    dist, idx = index.query(X, 15, exclude_self=True)
    K, scales = decay_kernel(index, X, dist, idx, 5, 10.0)
    D = cdist(X, X)
    sigma = np.sort(D, axis=1)[:, 5]  # the 5th nearest other point (column 0 is the point itself)
    np.testing.assert_allclose(scales, sigma, rtol=1e-6)
    one_way = np.exp(-((D / sigma[:, None]) ** 10))
    one_way[one_way < 1e-4] = 0.0
    expected = (one_way + one_way.T) / 2
    np.fill_diagonal(expected, 1.0)
    np.testing.assert_allclose(K.toarray(), expected, atol=1e-6)  # every pair the kernel reaches is found


def test_landmark_walk_is_a_walk_and_the_potential_its_log(spiral):
    X = spiral[0]
    index = ExactIndex().build(X)
    K, _ = decay_kernel(index, X, *index.query(X, 15, exclude_self=True), 5, 40.0)
    P = row_normalize(K)
    labels, to_landmarks, op = landmark_operator(K, P, 50, np.random.default_rng(0))
    assert op.shape == (50, 50) and np.unique(labels).size == 50
    np.testing.assert_allclose(op.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.asarray(to_landmarks.sum(axis=1)).ravel(), 1.0)
    np.testing.assert_allclose(potential(op, 3, 1.0), -np.log(op @ op @ op + 1e-7))
    c = (1 - 0.5) / 2
    np.testing.assert_allclose(potential(op, 2, 0.5), (op @ op) ** c / c)


def test_entropy_falls_and_the_knee_splits_two_lines():
    op = np.diag([1.0, 0.9, 0.5, 0.2])
    h = entropy_curve(op, 30)
    assert np.all(np.diff(h) < 0)  # the spectrum concentrates as the walk runs
    y = np.r_[np.linspace(10, 2, 8), np.linspace(1.9, 1.0, 30)]
    assert knee_by_two_lines(y) == 7


def test_sgd_mds_recovers_a_euclidean_configuration():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    D = squareform(pdist(X))
    Y = sgd_mds(D, X + rng.normal(scale=0.5, size=X.shape), rng, epochs=60)
    np.testing.assert_allclose(squareform(pdist(Y)), D, atol=1e-3 * D.max())


@pytest.mark.parametrize("n_landmark", [None, 150])
def test_the_map_keeps_the_trajectory_in_order(spiral, n_landmark):
    X, s = spiral
    model = PHATE(n_landmark=n_landmark, random_state=0).fit(X)
    D = cdist(model.embedding_, model.embedding_)
    np.fill_diagonal(D, np.inf)
    near = np.argsort(D, axis=1)[:, :10]
    # each point's 10 nearest on the map are its neighbours along the arc (600 points:
    # 10 of them span about 0.01 of it; a map that folds the arc onto itself scores 0.3)
    assert np.mean(np.abs(s[near] - s[:, None])) < 0.02
    assert model.t_ >= 1 and model.entropy_.shape == (100,)
    if n_landmark:
        assert model.landmark_embedding_.shape[0] <= n_landmark


def test_transform_places_points_beside_their_neighbours(spiral):
    X, s = spiral
    model = PHATE(n_landmark=150, random_state=0).fit(X)
    placed = model.transform(X)
    scale = np.ptp(model.embedding_, axis=0).max()
    assert np.median(np.linalg.norm(placed - model.embedding_, axis=1)) < 0.05 * scale
    new = X[::7] + np.random.default_rng(2).normal(scale=0.01, size=X[::7].shape)
    assert np.median(np.linalg.norm(model.transform(new) - model.embedding_[::7], axis=1)) < 0.05 * scale


def test_pca_first_and_fixed_time(spiral):
    X = np.c_[spiral[0], np.random.default_rng(3).normal(scale=0.01, size=(600, 30))]
    model = PHATE(n_pca=5, t=10, mds="classic", random_state=0).fit(X)
    assert model.t_ == 10 and model.entropy_ is None
    assert model.pca_components_.shape == (5, 40) and model.X_fit_.shape == (600, 5)
    assert model.transform(X[:4]).shape == (4, 2)
