"""A user's numba-compiled metric over all pairs of rows.

Not cached on disk: the kernel is compiled anew for each metric function it is given
(numba cannot cache a kernel that takes a function as an argument)."""

from numba import njit, prange


@njit(parallel=True)
def all_pairs(X, Y, metric, args, out):
    """``out[i, j] = metric(X[i], Y[j], *args)``.

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
            out[i, j] = metric(X[i], Y[j], *args)
