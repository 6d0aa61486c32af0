"""A user's numba-compiled metric over all pairs of rows.

Not cached on disk: the kernel is compiled anew for each metric function it is given
(numba cannot cache a kernel that takes a function as an argument)."""

from numba import njit, prange, types
from numba.extending import overload


def distance_of(result):
    """A metric function's distance: its result, or the first item of a ``(distance,
    gradient)`` pair (umap-learn's metrics may return both)."""
    return result[0] if isinstance(result, tuple) else result


@overload(distance_of)
def _distance_of(result):
    if isinstance(result, types.BaseTuple):
        return lambda result: result[0]
    return lambda result: result


@njit(parallel=True)
def all_pairs(X, Y, metric, args, out):
    """``out[i, j] = metric(X[i], Y[j], *args)`` (its distance, if it returns a pair).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> manhattan = njit(lambda a, b: np.abs(a - b).sum())
    >>> out = np.empty((1, 2))
    >>> all_pairs(np.zeros((1, 2)), np.array([[1.0, 2.0], [0.0, -1.0]]), manhattan, (), out)
    >>> out.tolist()
    [[3.0, 1.0]]
    """
    for i in prange(X.shape[0]):
        for j in range(Y.shape[0]):
            out[i, j] = distance_of(metric(X[i], Y[j], *args))
