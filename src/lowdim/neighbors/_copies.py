"""Rows that repeat: the warning that counts them, and local scales that copies do not
bring to 0 (a row with as many copies as the neighbours that set its scale has a scale
of 0, and every kernel or weight divided by it is infinite: an overflow, a graph in
pieces, a map 1e8 wide)."""

import numpy as np

from .._warnings import warn_user


def positive_scales(scales, reference=None):
    """``scales`` with every entry <= 0 replaced by the median of the positive entries
    of ``reference`` (``scales`` itself by default; 1 when none is positive).

    Passing a fit's filled scales as ``reference`` gives the fit's replacement again:
    adding copies of a median leaves it unchanged, so new rows are scaled as the fit's.

    Parameters
    ----------
    scales : ndarray
    reference : ndarray, optional

    Returns
    -------
    ndarray of float64, the shape of ``scales``

    Examples
    --------
    >>> positive_scales(np.array([0.0, 1.0, 2.0, 4.0])).tolist()
    [2.0, 1.0, 2.0, 4.0]
    >>> positive_scales(np.array([0.0]), reference=np.array([2.0, 1.0, 2.0, 4.0])).tolist()
    [2.0]
    """
    scales = np.array(scales, dtype=np.float64)
    reference = scales if reference is None else np.asarray(reference, dtype=np.float64)
    positive = reference[reference > 0]
    scales[~(scales > 0)] = float(np.median(positive)) if positive.size else 1.0
    return scales


def warn_duplicates(distances, name, gower=False):
    """Warn with the number of samples that have an identical twin (a neighbour at
    distance 0): they get nearly the same coordinates.

    Parameters
    ----------
    distances : ndarray (n, k) or (n,)
        Each point's neighbour distances, or its distance to its nearest neighbour.
    name : str
        The estimator, for the message.
    gower : bool, default=False
        The distances are Gower's: a distance of 0 is a row equal on every column both
        rows hold, which a row with gaps can be to many others, not only a copy.

    Examples
    --------
    >>> warn_duplicates(np.array([[1.0], [2.0]]), "TSNE")
    """
    distances = np.asarray(distances)
    nearest = distances.min(axis=1) if distances.ndim == 2 else distances
    n_dup = int(np.count_nonzero(nearest <= 0.0))
    if not n_dup:
        return
    what = (
        "another row at Gower's distance 0 (equal on every column both hold: a copy, or rows whose gaps leave only "
        "equal values to compare)"
        if gower
        else "a duplicate (another row at distance 0)"
    )
    warn_user(f"{name}: {n_dup} samples have {what}; they are placed together.", UserWarning)
