"""Curves behind a choice: elbow / silhouette / BIC / gap over k, stability over a
clustering's scale parameter, error against k."""

import numpy as np

from ._figure import axes, finish

_YLABELS = {
    "elbow": "inertia (within-cluster sum of squares)",
    "silhouette": "mean silhouette",
    "bic": "BIC (lower is better)",
    "aic": "AIC (lower is better)",
    "gap": "gap statistic",
}


def selection_curve(selection, path=None, *, ax=None, title=None, overwrite=True):
    """Draw the curve ``select_n_clusters`` read its choice from, the choice marked.

    Parameters
    ----------
    selection : ClusterCountSelection
    path : str, optional
    ax : matplotlib Axes, optional
    title : str, optional
    overwrite : bool, default=True
        Replace an existing file at ``path``; False refuses it (``FileExistsError``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import select_n_clusters
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> ax = selection_curve(select_n_clusters(X, "elbow", k_range=range(1, 5), random_state=0))
    """
    fig, ax = axes(ax, (6.4, 4.2), headless=path is not None)
    ks, scores = np.asarray(selection.candidates), np.asarray(selection.scores, dtype=float)
    errors = selection.details.get("s_k") if selection.method == "gap" else None
    ax.errorbar(ks, scores, yerr=errors, marker="o", ms=4, color="#4C72B0", capsize=2)
    chosen = np.flatnonzero(ks == selection.n_clusters)
    if chosen.size:
        ax.plot(
            ks[chosen],
            scores[chosen],
            "o",
            ms=11,
            mfc="none",
            mec="#C44E52",
            mew=2,
            label=f"chosen k = {selection.n_clusters}",
        )
        ax.legend()
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel(_YLABELS.get(selection.method, selection.method))
    ax.set_xticks(ks)
    ax.set_title(title or f"Choosing k by {selection.method}")
    finish(fig, path, overwrite)
    return ax


def stability_curve(selection, path=None, *, ax=None, title=None, overwrite=True):
    """Draw the stability of each candidate value (mean adjusted Rand index of resampled
    against full labels, with its spread) and the number of clusters it gives, the
    choice marked.

    Parameters
    ----------
    selection : StabilitySelection
    path : str, optional
    ax : matplotlib Axes, optional
    title : str, optional
    overwrite : bool, default=True

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from lowdim import HDBSCAN
    >>> from lowdim.cluster import select_by_stability
    >>> from lowdim.datasets import make_blobs
    >>> X, _ = make_blobs(200, centers=3, random_state=0)
    >>> ax = stability_curve(select_by_stability(HDBSCAN(), X, "min_cluster_size", [5, 15], n_resamples=2))
    """
    fig, ax = axes(ax, (6.4, 4.2), headless=path is not None)
    x = np.arange(len(selection.candidates))
    ax.errorbar(x, selection.stability, yerr=selection.spread, marker="o", ms=4, color="#4C72B0", capsize=2)
    best = selection.candidates.index(selection.value)
    ax.plot(
        x[best],
        selection.stability[best],
        "o",
        ms=11,
        mfc="none",
        mec="#C44E52",
        mew=2,
        label=f"chosen {selection.param} = {selection.value}",
    )
    for xi, yi, k in zip(x, selection.stability, selection.n_clusters):
        if np.isfinite(yi):
            ax.annotate(f"{k}", (xi, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_xticks(x, [str(v) for v in selection.candidates])
    ax.set(xlabel=f"{selection.param} (clusters found above each point)", ylabel="stability (mean ARI)")
    ax.legend()
    ax.set_title(title or f"Choosing {selection.param} by stability")
    finish(fig, path, overwrite)
    return ax


def error_curve(
    ks,
    errors,
    path=None,
    *,
    ax=None,
    title="Reconstruction error against k",
    ylabel="relative L2 error",
    chosen=None,
    overwrite=True,
):
    """Draw an error (compression, reconstruction) against the number of components.

    Parameters
    ----------
    ks : sequence of int
    errors : sequence of float
    path : str, optional
        Save the figure there.
    ax : matplotlib Axes, optional
    title : str
    ylabel : str
    chosen : int, optional
        A k to mark.
    overwrite : bool, default=True
        Replace an existing file at ``path``; False refuses it (``FileExistsError``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> ax = error_curve([1, 2, 4, 8], [0.5, 0.3, 0.1, 0.05], chosen=4)
    """
    fig, ax = axes(ax, (6.4, 4.2), headless=path is not None)
    ax.plot(ks, errors, marker="o", ms=4, color="#4C72B0")
    if chosen is not None:
        at = list(ks).index(chosen) if chosen in list(ks) else None
        if at is not None:
            ax.plot([chosen], [errors[at]], "o", ms=11, mfc="none", mec="#C44E52", mew=2, label=f"k = {chosen}")
            ax.legend()
    ax.set_xlabel("number of components k")
    ax.set_ylabel(ylabel)
    ax.set_yscale("log")
    ax.set_title(title)
    finish(fig, path, overwrite)
    return ax
