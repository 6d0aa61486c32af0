"""Progress of lowdim's passes over a dask array, as tqdm bars on standard error.

A fit on a dask array is a few passes over the data, each one a Dask computation of
many tasks. Inside ``pass_progress(description)`` (the CLI turns it on; so does an
estimator's ``verbose``), every pass computed through a ``distributed.Client`` shows a
bar of its tasks (finished / all, as the scheduler reports them), and streaming fits
a bar of row blocks. Without a distributed client the passes run as usual, without a
bar.
"""

import contextvars
from contextlib import contextmanager, nullcontext

_STATE = contextvars.ContextVar("lowdim_dask_progress", default=None)


@contextmanager
def pass_progress(description):
    """Show a progress bar for every pass over a dask array made inside the block.

    Parameters
    ----------
    description : str
        Leads each bar, followed by the pass number (``"PCA on Dask: pass 2"``).

    Examples
    --------
    >>> import dask.array as da
    >>> from lowdim import PCA
    >>> X = da.ones((100, 3), chunks=(50, 3)) + da.arange(100)[:, None] % 7
    >>> with pass_progress("PCA on Dask"):  # no distributed client here: no bars
    ...     pca = PCA(n_components=1).fit(X)
    >>> pca.components_.shape
    (1, 3)
    """
    token = _STATE.set({"description": str(description), "passes": 0})
    try:
        yield
    finally:
        _STATE.reset(token)


def progress_wanted(verbose):
    """``pass_progress`` for an estimator's fit when its ``verbose`` asks for it and no
    enclosing block already shows progress; else a no-op context.

    Parameters
    ----------
    verbose : int or bool
        The estimator's ``verbose``.

    Returns
    -------
    context manager

    Examples
    --------
    >>> with progress_wanted(0):
    ...     pass
    """
    if verbose and _STATE.get() is None:
        return pass_progress("lowdim on Dask")
    return nullcontext()


def _distributed_client():
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:  # no client: Dask's local schedulers run the work
        return None


def compute_with_bar(objects):
    """``(results,)`` of ``objects`` computed on the distributed client with a bar of
    their tasks, or None when no bar is wanted or possible (the caller computes)."""
    state = _STATE.get()
    client = _distributed_client() if state is not None else None
    if client is None:
        return None
    state["passes"] += 1
    futures = client.compute(list(objects))
    _watch(futures, f"{state['description']}: pass {state['passes']}")
    return tuple(client.gather(futures))


def _watch(futures, description):
    """Block until ``futures`` finish, drawing the scheduler's task counts with tqdm."""
    from distributed.diagnostics.progressbar import TextProgressBar

    from .._progress import progress_bar

    with progress_bar(total=None, desc=description, unit="task", leave=False, mininterval=0.5) as bar:

        class Bar(TextProgressBar):
            def _draw_bar(self, remaining, all, **kwargs):  # distributed passes these by name
                bar.total = all
                bar.update(all - remaining - bar.n)

            def _draw_stop(self, **kwargs):
                pass

        Bar(futures, interval="200ms")


def block_bar(n_blocks, description):
    """A tqdm bar over row blocks for streaming fits inside ``pass_progress`` (disabled
    outside)."""
    from .._progress import progress_bar

    state = _STATE.get()
    return progress_bar(
        total=n_blocks,
        desc=f"{state['description'] if state else ''}: {description}",
        unit="block",
        leave=False,
        disable=state is None,
    )
