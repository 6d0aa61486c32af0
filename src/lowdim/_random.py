"""Random-state handling: one ``numpy.random.Generator`` per fit."""

import numbers

import numpy as np


def check_random_state(seed):
    """Turn ``seed`` into a ``numpy.random.Generator``.

    Parameters
    ----------
    seed : None, int, numpy.random.RandomState or numpy.random.Generator
        None gives fresh entropy; an int a reproducible stream; a ``RandomState``
        is consumed to seed a new generator (so repeated calls advance it, as in
        scikit-learn); a ``Generator`` is used as is.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> from lowdim._random import check_random_state
    >>> a = check_random_state(0).normal(size=3)
    >>> b = check_random_state(0).normal(size=3)
    >>> bool((a == b).all())
    True
    """
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(0, 2**31 - 1, size=4))
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"random_state must be a non-negative int; got {seed}.")
        return np.random.default_rng(int(seed))
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or Generator; got {seed!r}.")
