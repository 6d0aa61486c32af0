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


def test_scree_ticks_sit_under_the_components():
    ax = scree_plot([0.4, 0.3, 0.15, 0.1, 0.05])
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks == [1, 2, 3, 4, 5]
    many = scree_plot(np.full(50, 0.02))
    assert all(float(t).is_integer() for t in many.get_xticks())


def test_a_small_tables_plot_names_its_points_and_axes(tmp_path, monkeypatch):
    """`embed --plot` of UK food: the countries beside their points, the axes as principal
    components with their share of the variance."""
    import lowdim.plot
    from lowdim.cli.main import main

    drawn = {}

    def record(Z, labels=None, path=None, **kwargs):
        drawn.update(kwargs, n=len(Z))
        return embedding_scatter(Z, labels, path, **kwargs)

    monkeypatch.setattr(lowdim.plot, "embedding_scatter", record)
    assert main(["embed", "--dataset", "uk-food", "-m", "pca", "--plot", str(tmp_path / "uk.png"), "--quiet"]) == 0
    assert list(drawn["ids"]) == ["England", "Wales", "Scotland", "N.Ireland"]
    assert drawn["axis_labels"][0].startswith("PC1 (67.4 % of the variance")
    ax = embedding_scatter(np.eye(4)[:, :2], ids=drawn["ids"], axis_labels=drawn["axis_labels"])
    assert [t.get_text() for t in ax.texts] == list(drawn["ids"]) and ax.get_ylabel().startswith("PC2 (")
    crowd = embedding_scatter(np.random.default_rng(0).normal(size=(500, 2)), ids=np.arange(500))
    assert len(crowd.texts) == 0  # names only where they can be read


def test_pca_writes_its_loadings_by_feature(tmp_path):
    import csv

    from lowdim.cli.main import main
    from lowdim.datasets import load_uk_food

    path = tmp_path / "loadings.csv"
    assert main(["pca", "--dataset", "uk-food", "-k", "2", "--loadings", str(path), "--quiet"]) == 0
    rows = list(csv.reader(open(path)))
    X, _, foods = load_uk_food()
    assert rows[0] == ["feature", "PC1", "PC2"] and [r[0] for r in rows[1:]] == list(foods)
    expected = PCA(2).fit(X).components_.T
    np.testing.assert_allclose(np.array([r[1:] for r in rows[1:]], dtype=float), expected, atol=1e-12)


def test_the_legend_is_titled_by_the_label_column():
    ax = embedding_scatter(np.eye(3)[:, :2], labels=["a", "b", "b"], label_name="cultivar")
    assert ax.get_legend().get_title().get_text() == "cultivar"


def test_rows_without_a_label_are_named_missing_in_the_legend():
    # an empty label cell was a category named '', drawn in the first colour and left out of the legend
    Z = np.random.default_rng(0).normal(size=(6, 2))
    ax = embedding_scatter(Z, labels=np.array(["a", None, "b", "a", "", "b"], dtype=object), label_name="species")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["missing", "a", "b"]
    ax = embedding_scatter(Z, labels=np.array([1.0, np.nan, 2.0, 1.0, 2.0, 2.0]))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["missing", "1.0", "2.0"]


def test_long_category_names_are_cut_in_the_legend_and_leave_the_map_its_width():
    # a 200-character name squeezed the axes to nothing ("Tight layout not applied")
    import warnings

    import matplotlib.pyplot as plt

    Z = np.random.default_rng(0).normal(size=(6, 2))
    long = "x" * 200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = embedding_scatter(Z, labels=[long, "b", "b", long, "b", "b"], label_name="y" * 80)
        ax.figure.tight_layout()
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["b", "x" * 29 + "\u2026"] and len(ax.get_legend().get_title().get_text()) == 30
    assert ax.get_position().width > 0.5  # most of the figure is still the map
    plt.close(ax.figure)
