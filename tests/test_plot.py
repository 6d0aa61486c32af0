"""Figures: what each plot draws, rendered to PNG and checked for content."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from lowdim.cluster import select_n_clusters  # noqa: E402
from lowdim.decomposition import PCA  # noqa: E402
from lowdim.plot import embedding_scatter, error_curve, image_grid, scree_plot, selection_curve  # noqa: E402


def _nonblank(path):
    image = np.asarray(Image.open(path).convert("L"), dtype=float)
    return image.shape[0] > 200 and image.std() > 5


def test_scatter_legend_markers_and_density(tmp_path):
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(3000, 2))
    ax = embedding_scatter(Z, labels=np.arange(3000) % 4, path=None)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0", "1", "2", "3"]
    big = embedding_scatter(rng.normal(size=(70_000, 2)))  # no labels: density shading
    assert big.collections[0].__class__.__name__ == "PolyCollection"
    many = embedding_scatter(Z, labels=np.arange(3000) % 30)  # too many classes for a legend
    assert many.get_legend() is None
    sizes = embedding_scatter(rng.normal(size=(70_000, 2)), labels=np.arange(70_000) % 10).collections[0]
    assert sizes.get_sizes()[0] < 2 and sizes.get_alpha() < 0.5  # small, translucent at 70,000
    embedding_scatter(Z, np.arange(3000) % 4, tmp_path / "s.png")
    assert _nonblank(tmp_path / "s.png")


def test_scree_from_estimator_marks_choice(tmp_path):
    X = np.random.default_rng(0).normal(size=(200, 8)) @ np.diag(np.arange(8, 0, -1.0))
    ax = scree_plot(PCA().fit(X), n_chosen=3)
    assert len(ax.patches) == 8 and "chosen k = 3" in [t.get_text() for t in ax.get_legend().get_texts()]
    scree_plot(PCA().fit(X), tmp_path / "scree.png")
    assert _nonblank(tmp_path / "scree.png")


def test_image_grid_and_curves(tmp_path):
    rng = np.random.default_rng(0)
    ax = image_grid(rng.random((5, 12 * 10)), (12, 10), titles=list("abcde"), n_cols=3)
    assert ax.images[0].get_array().shape == (2 * 12 + 1, 3 * 10 + 2) and len(ax.texts) == 5
    X = np.vstack([rng.normal(c, 0.3, (60, 2)) for c in (0, 4, 8)])
    selection = select_n_clusters(X, "silhouette", k_range=range(2, 6), random_state=0)
    ax = selection_curve(selection)
    assert ax.get_xlabel() == "number of clusters k" and ax.get_legend().get_texts()[0].get_text() == "chosen k = 3"
    error_curve([1, 2, 4], [0.4, 0.2, 0.1], tmp_path / "e.png", chosen=2)
    assert _nonblank(tmp_path / "e.png")
