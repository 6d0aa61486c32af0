"""BLAS thread limits without rescanning the process each time.

``threadpoolctl.threadpool_limits`` inspects every loaded library on each call (about
7 ms here), which a fit that limits BLAS once per call site can afford but an
iterative method should not pay per restart. One controller, made on first use, is
reused; libraries loaded later are picked up by making a new one on request.
"""

from functools import lru_cache


@lru_cache(maxsize=1)
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_limit(limits):
    """Context manager limiting the BLAS libraries to ``limits`` threads (None: no change).

    Examples
    --------
    >>> with blas_limit(1):
    ...     pass
    """
    return _controller().limit(limits=limits, user_api="blas")


def blas_threads():
    """Threads the loaded BLAS libraries may use now (the smallest of their settings,
    so a limit the caller set, e.g. with threadpoolctl, is respected).

    Examples
    --------
    >>> with blas_limit(1):
    ...     blas_threads()
    1
    """
    counts = [lib.get_num_threads() for lib in _controller().lib_controllers if lib.user_api == "blas"]
    return max(1, min(counts)) if counts else cores()


def cores():
    """Cores this process may run on (its CPU affinity where the OS tells it).

    Examples
    --------
    >>> cores() >= 1
    True
    """
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@lru_cache(maxsize=None)
def worker_pool(name):
    """A thread pool with one worker per core, made once per ``name`` (a pool per
    purpose, so a task never waits for a pool its caller is occupying). For work whose
    kernels release the GIL: numba ``nogil`` kernels, BLAS, scipy's sparse products.

    Examples
    --------
    >>> list(worker_pool("doctest").map(abs, [-1, 2]))
    [1, 2]
    """
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=cores(), thread_name_prefix=f"lowdim-{name}")
