"""Synthetic data sets with known structure, for tests, demos and benchmarks."""

import numpy as np

from .._random import check_random_state

SWISS_HOLE = (2.5 * np.pi, 3.5 * np.pi, 7.0, 14.0)  # the middle third of the rectangle in both directions


def in_swiss_hole(position, height):
    """Whether Swiss-roll parameters fall in the hole of ``make_swiss_roll(hole=True)``.

    Examples
    --------
    >>> in_swiss_hole(np.array([3 * np.pi, np.pi]), np.array([10.0, 10.0])).tolist()
    [True, False]
    """
    p0, p1, h0, h1 = SWISS_HOLE
    return (position > p0) & (position < p1) & (height > h0) & (height < h1)


def make_swiss_roll(n_samples=1000, *, noise=0.0, hole=False, random_state=None):
    """Points on a Swiss roll (a rolled-up rectangle), optionally with a rectangular hole.

    Parameters
    ----------
    n_samples : int, default=1000
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to the 3-D points.
    hole : bool, default=False
        Leave out the middle of the rectangle (what Hessian LLE should keep).
    random_state : None, int or Generator

    Returns
    -------
    X : ndarray (n_samples, 3)
    t : ndarray (n_samples, 2)
        The unrolled coordinates: position along the roll and height.

    Examples
    --------
    >>> X, t = make_swiss_roll(100, hole=True, random_state=0)
    >>> X.shape, t.shape
    ((100, 3), (100, 2))
    """
    rng = check_random_state(random_state)
    pos, height, taken = [], [], 0
    while taken < n_samples:
        p = 1.5 * np.pi * (1 + 2 * rng.uniform(size=2 * n_samples))
        h = 21.0 * rng.uniform(size=2 * n_samples)
        if hole:
            keep = ~in_swiss_hole(p, h)
            p, h = p[keep], h[keep]
        pos.append(p)
        height.append(h)
        taken += p.size
    p, h = np.concatenate(pos)[:n_samples], np.concatenate(height)[:n_samples]
    X = np.c_[p * np.cos(p), h, p * np.sin(p)] + noise * rng.standard_normal((n_samples, 3))
    return X, np.c_[p, h]


def make_s_curve(n_samples=1000, *, noise=0.0, random_state=None):
    """Points on an S-shaped surface in 3-D.

    Parameters
    ----------
    n_samples : int, default=1000
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to the points.
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray (n_samples, 3)
    t : ndarray (n_samples, 2)
        The surface coordinates (angle along the S, height).

    Examples
    --------
    >>> make_s_curve(50, random_state=0)[0].shape
    (50, 3)
    """
    rng = check_random_state(random_state)
    a = 3 * np.pi * (rng.uniform(size=n_samples) - 0.5)
    h = 2.0 * rng.uniform(size=n_samples)
    X = np.c_[np.sin(a), h, np.sign(a) * (np.cos(a) - 1)] + noise * rng.standard_normal((n_samples, 3))
    return X, np.c_[a, h]


def make_blobs(n_samples=300, *, n_features=2, centers=3, cluster_std=1.0, random_state=None):
    """Isotropic Gaussian clusters.

    Parameters
    ----------
    n_samples : int
    n_features : int
    centers : int or array (k, n_features)
        Number of centres (drawn uniformly in [-10, 10]) or the centres themselves.
    cluster_std : float or array (k,)
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray (n_samples, n_features)
    y : ndarray of int64 (n_samples,)

    Examples
    --------
    >>> X, y = make_blobs(90, centers=3, random_state=0)
    >>> np.bincount(y).tolist()
    [30, 30, 30]
    """
    rng = check_random_state(random_state)
    if np.ndim(centers) == 0:
        centers = rng.uniform(-10, 10, size=(int(centers), n_features))
    centers = np.asarray(centers, dtype=np.float64)
    k = centers.shape[0]
    y = np.arange(n_samples) % k
    std = np.broadcast_to(np.asarray(cluster_std, dtype=np.float64), (k,))
    X = centers[y] + std[y, None] * rng.standard_normal((n_samples, centers.shape[1]))
    return X, y.astype(np.int64)


def make_sources(n_samples=2000, *, n_mixtures=None, random_state=None):
    """Independent non-Gaussian sources (sine, square wave, sawtooth, Laplace noise) and
    a random mixture of them: the classic test of ICA.

    Parameters
    ----------
    n_samples : int, default=2000
    n_mixtures : int, optional
        Observed mixtures (default: as many as sources).
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray (n_samples, n_mixtures)
        The observed mixtures.
    S : ndarray (n_samples, 4)
        The sources, each with unit variance.
    A : ndarray (n_mixtures, 4)
        The mixing matrix (``X = S @ A.T``).

    Examples
    --------
    >>> X, S, A = make_sources(500, random_state=0)
    >>> np.allclose(X, S @ A.T)
    True
    """
    rng = check_random_state(random_state)
    t = np.linspace(0, 8, n_samples)
    S = np.c_[np.sin(2 * t), np.sign(np.sin(3 * t)), (t % 1.0) - 0.5, rng.laplace(size=n_samples)]
    S = (S - S.mean(axis=0)) / S.std(axis=0)
    A = rng.uniform(0.5, 2.0, size=(n_mixtures or 4, 4))
    return S @ A.T, S, A
