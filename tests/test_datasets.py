"""Dataset generators and loaders."""

import os
import subprocess
import sys

import numpy as np
import pytest

from lowdim import PCA, FastICA
from lowdim.datasets import (
    load_digits,
    load_fashion_mnist,
    load_uk_food,
    make_blobs,
    make_s_curve,
    make_sources,
    make_swiss_roll,
)
from lowdim.datasets._generators import SWISS_HOLE, in_swiss_hole


def test_swiss_roll_lies_on_the_roll_and_the_hole_is_empty():
    X, t = make_swiss_roll(3000, hole=True, random_state=0)
    np.testing.assert_allclose(X[:, 0], t[:, 0] * np.cos(t[:, 0]))
    np.testing.assert_allclose(X[:, 2], t[:, 0] * np.sin(t[:, 0]))
    assert not in_swiss_hole(t[:, 0], t[:, 1]).any()
    # the hole is in the middle: the full roll has points there, and the holed one on all four sides
    _, full = make_swiss_roll(3000, random_state=0)
    assert 0.08 < in_swiss_hole(full[:, 0], full[:, 1]).mean() < 0.14
    p0, p1, h0, h1 = SWISS_HOLE
    band_p, band_h = (t[:, 0] > p0) & (t[:, 0] < p1), (t[:, 1] > h0) & (t[:, 1] < h1)
    assert (band_p & (t[:, 1] < h0)).any() and (band_p & (t[:, 1] > h1)).any()
    assert (band_h & (t[:, 0] < p0)).any() and (band_h & (t[:, 0] > p1)).any()
    a, _ = make_swiss_roll(10, random_state=1)
    b, _ = make_swiss_roll(10, random_state=1)
    np.testing.assert_array_equal(a, b)


def test_s_curve_and_blobs():
    X, t = make_s_curve(500, random_state=0)
    assert X.shape == (500, 3) and np.all(np.abs(t[:, 0]) <= 1.5 * np.pi)
    np.testing.assert_allclose(X[:, 0], np.sin(t[:, 0]))
    X, y = make_blobs(600, n_features=4, centers=np.eye(4)[:3] * 50, cluster_std=0.5, random_state=0)
    for c in range(3):
        np.testing.assert_allclose(X[y == c].mean(axis=0), np.eye(4)[c] * 50, atol=0.2)


def test_sources_are_unmixed_by_fastica():
    X, S, A = make_sources(3000, random_state=0)
    recovered = FastICA(4, random_state=0).fit_transform(X)
    corr = np.abs(np.corrcoef(recovered.T, S.T)[:4, 4:])
    assert np.all(corr.max(axis=1) > 0.95)


def test_loaders():
    X, y = load_digits()
    assert X.shape == (1797, 64) and set(np.unique(y)) == set(range(10))
    with pytest.raises(FileNotFoundError, match="install it with"):
        load_fashion_mnist(directory=os.devnull + "-nowhere")


def test_fashion_mnist_folder_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LOWDIM_FASHION_MNIST_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="LOWDIM_FASHION_MNIST_DIR") as caught:
        load_fashion_mnist()
    assert str(tmp_path) in str(caught.value) and "apt-get install -y dataset-fashion-mnist" in str(caught.value)


def test_fashion_mnist_tests_stop_with_the_loaders_error_when_the_data_is_missing(tmp_path):
    """The suite's Fashion-MNIST tests, run against an empty folder, fail (never skip)
    and say what to install."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, LOWDIM_FASHION_MNIST_DIR=str(tmp_path))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "tests/test_approximate_knn.py::test_recall_on_fashion_mnist_sample",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0, done.stdout
    assert "Fashion-MNIST not found" in done.stdout and "dataset-fashion-mnist" in done.stdout
    assert "skipped" not in done.stdout.splitlines()[-1]


def test_uk_food_table_and_its_first_principal_component():
    X, countries, foods = load_uk_food()
    assert X.shape == (4, 17) and len(foods) == 17 and foods[6] == "Fresh_potatoes"
    assert list(countries) == ["England", "Wales", "Scotland", "N.Ireland"]
    assert X[0, 0] == 105 and X[3, -1] == 41
    pca = PCA(2).fit(X)
    scores = pca.transform(X)
    # the classic reading: PC1 alone sets Northern Ireland apart from the other three
    ni = scores[3, 0]
    assert np.all(np.sign(scores[:3, 0]) == -np.sign(ni)) and abs(ni) > 1.9 * np.abs(scores[:3, 0]).max()
    np.testing.assert_allclose(pca.explained_variance_ratio_, [0.674, 0.291], atol=0.001)
    # Northern Ireland eats more fresh potatoes and less fresh fruit: the loadings say so
    loading = pca.components_[0] * np.sign(ni)
    assert loading[foods.index("Fresh_potatoes")] > 0 and loading[foods.index("Fresh_fruit")] < 0
