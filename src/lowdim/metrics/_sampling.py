"""Query rows for metrics that are exact averages over a random sample of points."""

import numpy as np

from .._random import check_random_state


def query_rows(n, size, random_state):
    """All ``n`` rows when ``size`` is None or at least ``n``; otherwise ``size`` of them
    drawn without replacement, sorted.

    Examples
    --------
    >>> query_rows(5, None, 0).tolist()
    [0, 1, 2, 3, 4]
    >>> len(query_rows(100, 10, 0))
    10
    """
    if size is None or n <= size:
        return np.arange(n)
    if size < 1:
        raise ValueError(f"the sample size must be a positive int; got {size}.")
    return np.sort(check_random_state(random_state).choice(n, size=int(size), replace=False))
