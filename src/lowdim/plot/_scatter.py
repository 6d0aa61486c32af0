"""2-D embedding scatter coloured by label, readable from 100 to 100,000 points."""

import numpy as np

from ._categories import MISSING, categories
from ._figure import axes, finish

MAX_LEGEND = 20
LEGEND_CHARS = 30  # a longer category name is cut: it would squeeze the map to nothing
MAX_NAMED = 60  # up to this many points carry their row id beside them


def _marker_style(n):
    """Marker size and alpha that keep structure visible as n grows."""
    if n <= MAX_NAMED:  # a small table: points big enough to find their names
        return 40.0, 0.9
    if n <= 2_000:
        return 12.0, 0.85
    if n <= 20_000:
        return 3.0, 0.6
    return 1.2, 0.45


NOISE_COLOR = (0.75, 0.75, 0.75, 1.0)
MISSING_COLOR = (0.45, 0.45, 0.45, 1.0)  # darker than noise: a row without a label, not an outlier


def _draw_labels(ax, Z, labels, size, alpha, title=None):
    import matplotlib.pyplot as plt

    names, codes, noise = categories(labels)
    cmap = plt.get_cmap("tab10" if names.size <= 10 else "tab20" if names.size <= 20 else "viridis")
    colors = (
        cmap(np.maximum(codes, 0) / max(names.size - 1, 1)) if names.size > 20 else cmap(np.maximum(codes, 0) % cmap.N)
    )
    colors[codes == -1] = NOISE_COLOR
    colors[codes == MISSING] = MISSING_COLOR
    shuffle = np.random.default_rng(0).permutation(Z.shape[0])
    shuffle = shuffle[np.argsort(codes[shuffle] >= 0, kind="stable")]  # noise drawn first, below
    ax.scatter(Z[shuffle, 0], Z[shuffle, 1], c=colors[shuffle], s=size, alpha=alpha, lw=0, rasterized=True)
    missing = bool(np.any(codes == MISSING))
    if names.size + noise + missing <= MAX_LEGEND:
        if noise:
            ax.scatter([], [], color=NOISE_COLOR, s=30, label="noise")
        if missing:
            ax.scatter([], [], color=MISSING_COLOR, s=30, label="missing")
        for k, name in enumerate(names):
            ax.scatter([], [], color=cmap(k % cmap.N), s=30, label=_shortened(name))
        ax.legend(
            loc="center left",
            bbox_to_anchor=(1.01, 0.5),
            frameon=False,
            fontsize=8,
            markerscale=1.0,
            handletextpad=0.2,
            title=None if title is None else _shortened(title),
            title_fontsize=8,
        )


def _shortened(name):
    """A legend entry of at most ``LEGEND_CHARS`` characters, the cut shown by an ellipsis."""
    text = str(name)
    return text if len(text) <= LEGEND_CHARS else text[: LEGEND_CHARS - 1] + "\u2026"


def _name_points(ax, Z, ids):
    for (x, y), text in zip(Z[:, :2], ids):
        ax.annotate(str(text), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=8, color="0.2")


def _draw_categories(ax, coordinates, names):
    """A biplot's second kind of point: dark triangles, each named beside it."""
    coordinates = np.asarray(coordinates, dtype=float)[:, :2]
    ax.scatter(coordinates[:, 0], coordinates[:, 1], marker="^", s=36, color="#222222", zorder=3)
    for (x, y), name in zip(coordinates, names):
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7, zorder=4)


def embedding_scatter(
    Z,
    labels=None,
    path=None,
    *,
    ax=None,
    title=None,
    density=None,
    overwrite=True,
    ids=None,
    axis_labels=None,
    label_name=None,
    categories=None,
):
    """Scatter a 2-D embedding, coloured by label with a legend.

    Parameters
    ----------
    Z : array-like of shape (n, >= 2) or fitted estimator with ``embedding_``
        Only the first two columns are drawn.
    labels : array-like of shape (n,), optional
        Categories (numbers or text); up to 20 get a legend. -1 among integer
        labels (a clusterer's noise) is drawn grey, under the rest.
    path : str, optional
        Write the figure there and close it.
    ax : matplotlib Axes, optional
    title : str, optional
    density : bool, optional
        Without labels, shade by point density (hexbin) instead of drawing points;
        default: for more than 20,000 points.
    overwrite : bool, default=True
        Replace an existing file at ``path``; False refuses it (``FileExistsError``).
    ids : array-like of shape (n,), optional
        Row names, written beside the points when there are at most 60 (a small table:
        countries, samples).
    label_name : str, optional
        The legend's title (the label column's name).
    axis_labels : (str, str), optional
        Names of the two axes, e.g. ``("PC1 (67.4 %)", "PC2 (24.0 %)")``; without them
        the axes are bare (an embedding's axes mean nothing).
    categories : (array-like of shape (m, >= 2), list of str), optional
        Points of another kind drawn in the same map and named, as a correspondence
        analysis' biplot places the categories (or columns) among the rows.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.default_rng(0).normal(size=(100, 2))
    >>> ax = embedding_scatter(Z, labels=np.arange(100) % 3)
    >>> ax = embedding_scatter(Z[:4], ids=["England", "Wales", "Scotland", "N Ireland"], axis_labels=("PC1", "PC2"))
    >>> [t.get_text() for t in ax.texts], ax.get_xlabel()
    (['England', 'Wales', 'Scotland', 'N Ireland'], 'PC1')
    """
    Z = np.asarray(getattr(Z, "embedding_", Z), dtype=float)
    if Z.ndim != 2 or Z.shape[1] < 2:
        raise ValueError(f"embedding_scatter needs an (n, 2) array; got shape {Z.shape}.")
    fig, ax = axes(ax, (7.2, 5.6), headless=path is not None)
    size, alpha = _marker_style(Z.shape[0])
    if labels is not None:
        _draw_labels(ax, Z, labels, size, alpha, label_name)
    elif density if density is not None else Z.shape[0] > 20_000:
        ax.hexbin(Z[:, 0], Z[:, 1], gridsize=120, bins="log", cmap="viridis", mincnt=1)
    else:
        ax.scatter(Z[:, 0], Z[:, 1], s=size, alpha=alpha, lw=0, color="#4C72B0", rasterized=True)
    if ids is not None and Z.shape[0] <= MAX_NAMED:
        _name_points(ax, Z, ids)
    if categories is not None:
        _draw_categories(ax, *categories)
    _frame(ax, axis_labels, title)
    finish(fig, path, overwrite)
    return ax


def _frame(ax, axis_labels, title):
    """An embedding's frame: no ticks (its units mean nothing), equal aspect, the axes'
    names and the title when given."""
    ax.set_xticks([])
    ax.set_yticks([])
    if axis_labels is not None:
        ax.set_xlabel(axis_labels[0])
        ax.set_ylabel(axis_labels[1])
    ax.set_aspect("equal", adjustable="datalim")
    if title:
        ax.set_title(title)
