"""UMAP in other output spaces (umap-learn's output_metric): each distance's gradient
against finite differences, and maps on a sphere and in the plane's other metrics
that keep the classes apart."""

import warnings

import numpy as np
import pytest

from lowdim import UMAP
from lowdim._kernels.output_metrics import distance_grad
from lowdim._kernels.output_spaces import CODES
from lowdim.metrics import knn_accuracy

SPACES = ["manhattan", "chebyshev", "minkowski", "cosine", "correlation", "haversine", "hyperboloid", "euclidean"]


@pytest.mark.parametrize("name", SPACES)
def test_each_gradient_is_the_derivative_of_its_distance(name):
    rng = np.random.default_rng(CODES[name])
    dim = 2 if name == "haversine" else 3
    h = 1e-6
    for _ in range(20):
        x, y = rng.uniform(0.2, 2.5, dim), rng.uniform(0.2, 2.5, dim)  # away from kinks and poles
        grad = np.empty(dim)
        d = distance_grad(CODES[name], x, y, 3.0, grad)
        numeric = np.empty(dim)
        for i in range(dim):
            step = np.zeros(dim)
            step[i] = h
            g = np.empty(dim)
            numeric[i] = (
                distance_grad(CODES[name], x + step, y, 3.0, g) - distance_grad(CODES[name], x - step, y, 3.0, g)
            ) / (2 * h)
        assert d >= 0
        # central differences of a smooth function: error O(h^2) plus rounding O(eps / h)
        np.testing.assert_allclose(grad, numeric, atol=1e-6 * max(1.0, np.abs(numeric).max()))


def test_haversine_is_the_great_circle_angle():
    x, y = np.array([0.3, 1.0]), np.array([2.0, -0.4])  # (colatitude, longitude)
    unit = lambda c: np.array([np.sin(c[0]) * np.cos(c[1]), np.sin(c[0]) * np.sin(c[1]), np.cos(c[0])])  # noqa: E731
    angle = np.arccos(np.clip(unit(x) @ unit(y), -1, 1))
    assert distance_grad(CODES["haversine"], x, y, 2.0, np.empty(2)) == pytest.approx(angle, rel=1e-12)


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 8, (5, 10))
    X = np.vstack([c + rng.normal(size=(60, 10)) for c in centres])
    return X, np.repeat(np.arange(5), 60)


@pytest.mark.parametrize("name", ["manhattan", "chebyshev", "minkowski", "haversine", "hyperboloid"])
def test_maps_in_other_spaces_keep_the_classes_apart(blobs, name):
    X, y = blobs
    kwds = {"output_metric_kwds": {"p": 3}} if name == "minkowski" else {}
    Y = UMAP(output_metric=name, n_neighbors=10, random_state=0, **kwds).fit_transform(X)
    assert np.isfinite(Y).all()
    if name == "haversine":  # judge on the sphere itself
        Y = np.c_[np.sin(Y[:, 0]) * np.cos(Y[:, 1]), np.sin(Y[:, 0]) * np.sin(Y[:, 1]), np.cos(Y[:, 0])]
    assert knn_accuracy(Y, y, random_state=0) > 0.95


def test_output_space_options_are_checked(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match="n_components must be 2; got 3"):
        UMAP(output_metric="haversine", n_components=3).fit(X)
    with pytest.raises(ValueError, match="densmap and output_dens need output_metric='euclidean'"):
        UMAP(output_metric="manhattan", densmap=True).fit(X)
    with pytest.raises(ValueError, match="takes no parameters"):
        UMAP(output_metric="haversine", output_metric_kwds={"p": 2}).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = UMAP(output_metric="chebyshev", n_epochs=30, random_state=0).fit(X)
    assert model.transform(X[:5]).shape == (5, 2)
    with pytest.raises(ValueError, match="this map's space is output_metric='chebyshev'"):
        model.inverse_transform(model.embedding_[:2])
