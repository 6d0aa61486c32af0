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
