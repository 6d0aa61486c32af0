"""Scree plot: variance explained per component, cumulative, and the chosen k."""

import numpy as np

from ._figure import axes, finish


def _ratios(source):
    ratio = getattr(source, "explained_variance_ratio_", source)
    return np.asarray(ratio, dtype=float)


def scree_plot(source, path=None, *, n_chosen=None, ax=None, title="Scree plot", overwrite=True):
    """Draw the explained-variance ratio per component and its cumulative sum.

    Parameters
    ----------
    source : fitted PCA-like estimator or array-like of shape (k,)
        Anything with ``explained_variance_ratio_``, or the ratios themselves.
    path : str, optional
        Where to write the figure (PNG, SVG, PDF by extension); the figure is closed.
    n_chosen : int, optional
        Mark the chosen number of components (default: the estimator's
        ``n_components_`` when it kept fewer components than it shows).
    ax : matplotlib Axes, optional
    title : str
    overwrite : bool, default=True
        Replace an existing file at ``path``; False refuses it (``FileExistsError``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> ax = scree_plot([0.5, 0.3, 0.2], n_chosen=2)
    """
    ratio = _ratios(source)
    fig, ax = axes(ax, (7, 4.2), headless=path is not None)
    ks = np.arange(1, ratio.size + 1)
    ax.bar(ks, ratio, color="#4C72B0", label="per component")
    ax.set_xlabel("component")
    from matplotlib.ticker import MaxNLocator

    # ticks under the bars (components are whole numbers): every one while they fit
    if ratio.size <= 20:
        ax.set_xticks(ks)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.4, ratio.size + 0.6)
    ax.set_ylabel("explained variance ratio")
    twin = ax.twinx()
    twin.plot(ks, np.cumsum(ratio), color="#C44E52", marker="o", ms=3, label="cumulative")
    twin.set_ylim(0, 1.02)
    twin.set_ylabel("cumulative")
    handles = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    if n_chosen is not None:
        line = ax.axvline(n_chosen + 0.5, color="0.3", ls="--", lw=1)
        handles.append(line)
    labels = ["per component", "cumulative"] + ([f"chosen k = {n_chosen}"] if n_chosen is not None else [])
    ax.legend(handles, labels, loc="center right")
    ax.set_title(title)
    finish(fig, path, overwrite)
    return ax
