"""G-means (Hamerly & Elkan, 2003): grow k by splitting every cluster whose points,
projected on the direction of its best split in two, fail an Anderson-Darling test of
normality."""

import numpy as np
from scipy.special import log_ndtr

from ._kmeans import KMeans

MIN_TESTED = 8  # the statistic's small-sample correction and p-values hold from 8 points


def anderson_darling_normal(z):
    """Anderson-Darling statistic ``A*^2`` of ``z`` against a normal with the sample's
    mean and variance (small-sample corrected), and its p-value by D'Agostino and
    Stephens' approximation (1986, table 4.9).

    Parameters
    ----------
    z : array-like (n,)

    Returns
    -------
    statistic : float
    p_value : float
        Small when ``z`` is unlikely to come from a normal distribution.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(anderson_darling_normal(rng.normal(size=500))[1] > 0.01)
    True
    >>> bool(anderson_darling_normal(np.r_[rng.normal(-3, 1, 250), rng.normal(3, 1, 250)])[1] < 1e-6)
    True
    """
    z = np.sort(np.asarray(z, dtype=np.float64))
    n = z.size
    spread = z.std(ddof=1)
    if n < 2 or spread == 0:
        return 0.0, 1.0
    z = (z - z.mean()) / spread
    i = np.arange(1, n + 1)
    a2 = -n - np.mean((2 * i - 1) * (log_ndtr(z) + log_ndtr(-z[::-1])))
    a = a2 * (1 + 0.75 / n + 2.25 / n**2)
    if a >= 0.6:
        p = np.exp(1.2937 - 5.709 * a + 0.0186 * a**2)
    elif a >= 0.34:
        p = np.exp(0.9177 - 4.279 * a - 1.38 * a**2)
    elif a >= 0.2:
        p = 1 - np.exp(-8.318 + 42.796 * a - 59.938 * a**2)
    else:
        p = 1 - np.exp(-13.436 + 101.14 * a - 223.73 * a**2)
    return float(a), float(min(max(p, 0.0), 1.0))


def _split(points, rng):
    """Two centres for a cluster: from ``mean +- sqrt(2 lambda / pi) v`` (its principal
    axis), refined by 2-means on its points; and whether its points look Gaussian
    along the line joining them (the p-value)."""
    mean = points.mean(axis=0)
    centred = points - mean
    _, s, Vt = np.linalg.svd(centred, full_matrices=False)
    offset = Vt[0] * s[0] * np.sqrt(2.0 / (np.pi * max(points.shape[0] - 1, 1)))
    two = KMeans(2, init=np.vstack([mean + offset, mean - offset]), n_init=1, random_state=rng).fit(points)
    v = two.cluster_centers_[0] - two.cluster_centers_[1]
    if not np.any(v):
        return two.cluster_centers_, 1.0
    return two.cluster_centers_, anderson_darling_normal(centred @ v / (v @ v))[1]


def gmeans(X, k_min=1, k_max=None, significance=1e-4, rng=None):
    """Run G-means from ``k_min`` centres (k-means++) until no cluster splits or
    ``k_max`` is reached.

    Parameters
    ----------
    X : ndarray (n, d)
    k_min : int, default=1
    k_max : int, optional
        Default ``n // MIN_TESTED``.
    significance : float, default=1e-4
        A cluster splits when its projection's p-value is below it (the paper's 1e-4:
        a Gaussian cluster is rarely split, however many clusters are tested).
    rng : numpy.random.Generator

    Returns
    -------
    model : KMeans
        k-means fitted with the final centres.
    history : list of (k, inertia, n_split)
        One entry per round.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (200, 2)) for c in ((0, 0), (8, 0), (0, 8))])
    >>> gmeans(X, rng=rng)[0].n_clusters
    3
    """
    rng = np.random.default_rng(rng)
    n = X.shape[0]
    k_max = max(k_min, n // MIN_TESTED) if k_max is None else k_max
    model = KMeans(k_min, n_init=1, random_state=rng).fit(X)
    history = []
    while True:
        centres, n_split = [], 0
        for c in range(model.n_clusters):
            members = X[model.labels_ == c]
            room = k_max - model.n_clusters - n_split
            if members.shape[0] >= MIN_TESTED and room > 0:
                children, p = _split(members, rng)
                if p < significance:
                    centres.extend(children)
                    n_split += 1
                    continue
            centres.append(model.cluster_centers_[c])
        history.append((model.n_clusters, float(model.inertia_), n_split))
        if n_split == 0:
            return model, history
        model = KMeans(len(centres), init=np.asarray(centres), n_init=1, random_state=rng).fit(X)
