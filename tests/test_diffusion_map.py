"""DiffusionMap: the eigenvectors of the walk computed by hand, the Nystrom extension,
the diffusion time, the density normalisation."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.stats import spearmanr

from lowdim import DiffusionMap
from lowdim.neighbors import NeighborGraph


@pytest.fixture(scope="module")
def arc():
    """Points along a noisy spiral arc, sampled unevenly: the arc's parameter is the
    manifold's one coordinate."""
    rng = np.random.default_rng(0)
    s = np.sort(rng.uniform(0, 1, 300) ** 1.5)
    X = np.c_[np.cos(3 * s) * (1 + s), np.sin(3 * s) * (1 + s), 0.3 * s] + rng.normal(scale=0.01, size=(300, 3))
    return X, s


def _by_hand(X, epsilon, alpha, t, k):
    """The diffusion coordinates from the dense definition: kernel, density
    normalisation, the walk's eigenvectors (through its symmetric form)."""
    K = np.exp(-cdist(X, X, "sqeuclidean") / epsilon)
    q = K.sum(axis=1)
    Ka = K / np.outer(q, q) ** alpha
    d = Ka.sum(axis=1)
    w, V = np.linalg.eigh(Ka / np.sqrt(np.outer(d, d)))
    w, V = w[::-1][1 : k + 1], V[:, ::-1][:, 1 : k + 1]
    psi = V / np.sqrt(d)[:, None]
    return psi * w**t, w


@pytest.mark.parametrize("alpha,t", [(0.0, 1.0), (0.5, 2.0), (1.0, 0.5)])
def test_coordinates_equal_the_dense_definition(arc, alpha, t):
    X = arc[0][:120]
    model = DiffusionMap(3, n_neighbors=120, bandwidth=0.5, alpha=alpha, t=t, random_state=0).fit(X)
    Y, w = _by_hand(X, 0.5, alpha, t, 3)
    np.testing.assert_allclose(model.eigenvalues_, w, rtol=1e-5)  # float32 neighbour distances
    signs = np.sign(np.sum(model.embedding_ * Y, axis=0))
    np.testing.assert_allclose(model.embedding_ * signs, Y, atol=1e-5 * np.abs(Y).max())


def test_nystrom_extension_returns_the_training_coordinates(arc):
    X = arc[0][:150]
    for bandwidth in ("adaptive", 0.3):
        model = DiffusionMap(2, n_neighbors=150, bandwidth=bandwidth, random_state=0).fit(X)
        np.testing.assert_allclose(model.transform(X), model.embedding_, atol=1e-5 * np.abs(model.embedding_).max())
    # with a kNN kernel too: a row is linked to its nearest and to the rows that count it
    # among theirs (it placed a training row among others than its neighbours one time in five)
    model = DiffusionMap(2, n_neighbors=15, random_state=0).fit(arc[0])
    np.testing.assert_allclose(model.transform(arc[0]), model.embedding_, atol=1e-5 * np.abs(model.embedding_).max())
    new = arc[0] + np.random.default_rng(1).normal(scale=0.002, size=arc[0].shape)
    placed = model.transform(new)
    assert spearmanr(placed[:, 0], model.embedding_[:, 0]).statistic > 0.99


def test_first_coordinate_follows_the_arc_and_time_scales_by_the_eigenvalues(arc):
    X, s = arc
    one = DiffusionMap(2, random_state=0).fit(X)
    assert abs(spearmanr(one.embedding_[:, 0], s).statistic) > 0.99
    assert 1 > one.eigenvalues_[0] >= one.eigenvalues_[1] > -1
    three = DiffusionMap(2, t=3, random_state=0).fit(X)
    signs = np.sign(np.sum(one.eigenvectors_ * three.eigenvectors_, axis=0))
    np.testing.assert_allclose(three.embedding_ * signs, one.eigenvectors_ * one.eigenvalues_**3, rtol=1e-6, atol=1e-9)


def test_alpha_one_removes_the_sampling_density():
    # a circle sampled densely on one side, a fixed bandwidth (the kernel reaching past
    # the neighbours it is cut at nowhere): with alpha=1 the first two coordinates are a
    # round circle (the Laplace-Beltrami eigenfunctions cos, sin); alpha=0 squashes it
    rng = np.random.default_rng(2)
    theta = np.sort(np.r_[rng.uniform(0, 2 * np.pi, 300), rng.normal(0, 0.4, 500)] % (2 * np.pi))
    X = np.c_[np.cos(theta), np.sin(theta)]

    def roundness(alpha):
        Y = DiffusionMap(2, n_neighbors=60, bandwidth=0.01, alpha=alpha, random_state=0).fit_transform(X)
        Y = Y / Y.std(axis=0)
        radius = np.linalg.norm(Y, axis=1)
        return radius.std() / radius.mean()

    assert roundness(1.0) < 0.05 and roundness(0.0) > 0.5


def test_given_neighbours_skip_the_search(arc):
    X = arc[0]
    graph = NeighborGraph.build(X, 14, algorithm="exact")
    a = DiffusionMap(2, random_state=0).fit_transform(X)
    b = DiffusionMap(2, precomputed_knn=graph, random_state=0).fit_transform(X)
    np.testing.assert_allclose(np.abs(a), np.abs(b), rtol=1e-6, atol=1e-9)


def test_disconnected_groups_are_joined_with_a_warning():
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 50]
    with pytest.warns(UserWarning, match="component"):
        Y = DiffusionMap(2, n_neighbors=10, random_state=0).fit_transform(X)
    assert np.isfinite(Y).all()
    # the slowest mode of the walk separates the two groups
    assert np.unique(np.sign(Y[:60, 0])).size == np.unique(np.sign(Y[60:, 0])).size == 1
    assert np.sign(Y[0, 0]) != np.sign(Y[60, 0])
