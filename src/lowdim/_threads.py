"""BLAS thread limits without rescanning the process each time, safe across threads.

``threadpoolctl.threadpool_limits`` inspects every loaded library on each call
(BENCHMARKS.md, Design choices: threads), which a fit that limits BLAS once per call site can afford but an
iterative method should not pay per restart. One controller, made on first use (after
loading numpy's and scipy's BLAS, the two lowdim calls), is reused.

OpenBLAS's thread count is process-wide, so the limits opened by several threads at
once are counted: the counts from before the first are restored when the last closes.
A threadpoolctl limit per block lets overlapping blocks in two threads restore each
other's settings in the wrong order and leave BLAS on one thread for good (and
threadpoolctl >= 3.8 ignores every thread but one when it sets OpenBLAS's count).
"""

import threading
from contextlib import contextmanager
from functools import cache, lru_cache

_lock = threading.Lock()  # serialises every change lowdim makes to the BLAS counts
_open_limits = []  # the limits of the blas_limit blocks open now, in every thread
_saved = []  # the counts from before the first open block


@lru_cache(maxsize=1)
def _controller():
    import numpy  # noqa: F401 - both BLAS libraries are loaded before the one scan
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _blas_libraries():
    return [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]


def _set_counts(counts):
    for lib, count in zip(_blas_libraries(), counts):
        # threadpoolctl >= 3.8 lets only one "controlling" thread set OpenBLAS's
        # count and silently ignores the others; lowdim's changes are serialised by
        # _lock instead, and control is left free for the caller's own limits
        release = getattr(lib, "clear_controlling_thread", None)
        if release is not None:
            release(force=True)
        lib.set_num_threads(count)
        if release is not None:
            release(force=True)


@contextmanager
def blas_limit(limits):
    """Context manager limiting the BLAS libraries to ``limits`` threads (None: no change).

    While blocks overlap (in any threads) the smallest open limit applies; the
    counts from before the first block come back when the last one closes.

    Examples
    --------
    >>> with blas_limit(1):
    ...     blas_threads()
    1
    """
    if limits is None:
        yield
        return
    with _lock:
        if not _open_limits:
            _saved[:] = [lib.get_num_threads() for lib in _blas_libraries()]
        if not _open_limits or limits < min(_open_limits):
            _set_counts([limits] * len(_saved))
        _open_limits.append(limits)
    try:
        yield
    finally:
        with _lock:
            _open_limits.remove(limits)
            if not _open_limits:
                _set_counts(_saved)
            elif limits < min(_open_limits):
                _set_counts([min(_open_limits)] * len(_saved))


def blas_threads():
    """Threads the loaded BLAS libraries may use now (the smallest of their settings,
    so a limit the caller set, e.g. with threadpoolctl, is respected).

    Examples
    --------
    >>> with blas_limit(1):
    ...     blas_threads()
    1
    """
    counts = [lib.get_num_threads() for lib in _blas_libraries()]
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


@cache
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


LIGHT_ROWS = 1 << 14  # rows below which a light pass over rows stays in the calling thread
LIGHT_CELLS = 1 << 19  # the same for a pass that touches each cell once: a range is worth a thread above it
QUERY_RANGE = 256  # tree searches per range: each takes microseconds, a hand-off to a sleeping thread tens


def cell_pass_rows(n_columns):
    """The fewest rows a range of a one-pass-per-cell kernel (a copy, a distance to one
    centre) holds: ``LIGHT_CELLS`` cells, so small data stay in the calling thread.

    Examples
    --------
    >>> cell_pass_rows(4) == LIGHT_CELLS // 4, cell_pass_rows(10**7)
    (True, 1)
    """
    return max(1, LIGHT_CELLS // max(1, n_columns))


def in_row_ranges(name, lo, hi, run, per_thread=4, min_size=1):
    """``run(a, b)`` on consecutive ranges that split ``lo..hi``, spread over
    ``worker_pool(name)``; their results in order. For serial ``nogil`` kernels: a
    thread pool instead of a numba ``prange`` loop, which costs about a second more to
    compile on a first call. Ranges hold at least ``min_size`` items (but for the last);
    a single range, or numba limited to one thread (``--threads 1``), runs in the
    calling thread.

    Examples
    --------
    >>> sum(in_row_ranges("doctest", 0, 10, lambda a, b: list(range(a, b))), []) == list(range(10))
    True
    >>> in_row_ranges("doctest", 0, 10, lambda a, b: (a, b), min_size=8)
    [(0, 10)]
    """
    import numba

    threads = min(cores(), numba.get_num_threads())
    parts = max(1, min(per_thread * threads, (hi - lo) // max(1, min_size)))
    cuts = [lo + (hi - lo) * i // parts for i in range(parts + 1)]
    ranges = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    if threads == 1 or len(ranges) == 1:
        return [run(a, b) for a, b in ranges]
    return list(worker_pool(name).map(lambda ab: run(*ab), ranges))
