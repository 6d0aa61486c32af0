"""Local scales of neighbourhoods when rows repeat: a row with as many copies as the
neighbours that set its scale has a scale of 0, and every kernel or weight divided by
it is infinite (overflow, a graph in pieces, a map 1e8 wide)."""

import numpy as np


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
