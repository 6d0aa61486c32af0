"""Scree plot: variance explained per component and cumulative."""

import numpy as np


def scree_plot(explained_variance_ratio, path=None, *, title="Scree plot"):
    """Draw the explained-variance ratio per component and its cumulative sum.

    Parameters
    ----------
    explained_variance_ratio : array-like of shape (k,)
    path : str, optional
        Where to write the figure (PNG, SVG, PDF by extension).
    title : str

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = scree_plot([0.5, 0.3, 0.2])
    """
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ratio = np.asarray(explained_variance_ratio, dtype=float)
    ks = np.arange(1, ratio.size + 1)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.bar(ks, ratio, color="#4C72B0", label="per component")
    ax.set_xlabel("component")
    ax.set_ylabel("explained variance ratio")
    twin = ax.twinx()
    twin.plot(ks, np.cumsum(ratio), color="#C44E52", marker="o", ms=3, label="cumulative")
    twin.set_ylim(0, 1.02)
    twin.set_ylabel("cumulative")
    ax.set_title(title)
    handles = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    ax.legend(handles, ["per component", "cumulative"], loc="center right")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
        plt.close(fig)
    return fig
