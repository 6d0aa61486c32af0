"""Orthomax rotations of factor loadings (varimax, quartimax)."""

import numpy as np

GAMMA = {"varimax": 1.0, "quartimax": 0.0}


def _planar_angle(x, y, gamma):
    """Angle of the plane rotation of columns (x, y) that maximises the orthomax
    criterion (Kaiser's closed form)."""
    d = x.size
    u, v = x * x - y * y, 2 * x * y
    A, B = u.sum(), v.sum()
    num = 2 * (u * v).sum() - 2 * gamma * A * B / d
    den = (u * u - v * v).sum() - gamma * (A * A - B * B) / d
    return 0.25 * np.arctan2(num, den)


def orthomax(loadings, method="varimax", *, max_iter=500, tol=1e-10):
    """Rotate loadings (n_features x k) to maximise the orthomax criterion.

    Kaiser's algorithm: sweeps of plane rotations of every pair of factors, each by
    the angle that maximises the criterion in that plane (closed form), until no
    angle exceeds ``tol``. Each rotation can only raise the criterion.

    Parameters
    ----------
    loadings : ndarray of shape (n_features, k)
    method : {'varimax', 'quartimax'}
    max_iter : int
        Maximum number of sweeps.
    tol : float
        Largest plane angle (radians) below which iteration stops.

    Returns
    -------
    rotated : ndarray of shape (n_features, k)
    rotation : ndarray of shape (k, k)
        ``rotated = loadings @ rotation``.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2)
    >>> np.round(np.abs(orthomax(L)[0]), 6)
    array([[1., 0.],
           [0., 1.]])
    """
    gamma = GAMMA[method]
    L = np.array(loadings, dtype=np.float64)
    k = L.shape[1]
    R = np.eye(k)
    for _ in range(max_iter):
        largest = 0.0
        for p in range(k - 1):
            for q in range(p + 1, k):
                phi = _planar_angle(L[:, p], L[:, q], gamma)
                largest = max(largest, abs(phi))
                c, s = np.cos(phi), np.sin(phi)
                plane = np.array([[c, -s], [s, c]])
                L[:, [p, q]] = L[:, [p, q]] @ plane
                R[:, [p, q]] = R[:, [p, q]] @ plane
        if largest < tol:
            break
    return L, R
