"""Shared figure handling: use the caller's ``ax`` or make one; save and close when asked."""

from ..io import atomic_path


def axes(ax=None, figsize=(6.4, 4.4), *, headless=False):
    """``(fig, ax)``: the caller's axes, or a new figure (Agg backend when ``headless``)."""
    import matplotlib

    if ax is not None:
        return ax.figure, ax
    if headless:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, dpi=110)
    return fig, ax


def finish(fig, path, overwrite=True):
    """Save ``fig`` to ``path`` (format by extension) and close it; no-op without a path.
    ``overwrite=False`` refuses a file that exists when the figure is written."""
    if path is None:
        return
    import matplotlib.pyplot as plt

    fig.tight_layout()
    with atomic_path(path, overwrite=overwrite) as tmp:
        fig.savefig(tmp)
    plt.close(fig)
