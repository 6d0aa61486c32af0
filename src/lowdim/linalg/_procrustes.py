"""Orthogonal Procrustes: the rotation (or reflection), scale and shift that carry one
set of points onto another in least squares."""

import numpy as np


def procrustes_fit(reference, moving):
    """The similarity transform ``Y -> (Y - moving_mean) @ R * scale + reference_mean``
    that brings ``moving`` closest to ``reference`` (rows paired) in least squares: the
    SVD of the centred cross-product (Schoenemann 1966; Gower 1975).

    Parameters
    ----------
    reference, moving : ndarray (n, d)

    Returns
    -------
    rotation : ndarray (d, d)
        Orthogonal (a reflection allowed, as in scipy's ``procrustes``).
    scale : float
    moving_mean, reference_mean : ndarray (d,)

    Examples
    --------
    >>> ref = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> R, s, q0, p0 = procrustes_fit(ref, 3 * ref[:, ::-1] + 5)
    >>> bool(np.allclose((3 * ref[:, ::-1] + 5 - q0) @ R * s + p0, ref)), round(s, 6)
    (True, 0.333333)
    """
    P, Q = np.asarray(reference, dtype=np.float64), np.asarray(moving, dtype=np.float64)
    p0, q0 = P.mean(axis=0), Q.mean(axis=0)
    U, S, Vt = np.linalg.svd((Q - q0).T @ (P - p0))
    spread = float(((Q - q0) ** 2).sum())
    return U @ Vt, (float(S.sum()) / spread if spread > 0 else 1.0), q0, p0
