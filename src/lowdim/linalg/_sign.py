"""The sign convention for eigen- and singular vectors."""

import numpy as np


def flip_signs(components, *companions):
    """Make the entry of largest absolute value in each component positive.

    Parameters
    ----------
    components : ndarray of shape (k, d)
        One vector per row.
    *companions : ndarray of shape (n, k)
        Arrays whose columns must flip with the rows of ``components`` (scores, U).

    Returns
    -------
    tuple of ndarray
        ``components`` (and the companions) with signs fixed; new arrays.

    Examples
    --------
    >>> import numpy as np
    >>> flip_signs(np.array([[0.1, -0.9]]))[0]
    array([[-0.1,  0.9]])
    """
    components = np.asarray(components)
    if components.size == 0:
        return (components.copy(), *(np.asarray(c).copy() for c in companions))
    pivot = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), pivot])
    signs[signs == 0] = 1
    signs = signs.astype(components.dtype)
    out = [components * signs[:, None]]
    out.extend(np.asarray(c) * signs[None, :].astype(np.asarray(c).dtype) for c in companions)
    return tuple(out)
