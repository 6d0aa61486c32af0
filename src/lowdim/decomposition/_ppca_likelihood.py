"""Probabilistic PCA log-likelihood (Tipping & Bishop) and Minka's evidence for the rank."""

import numpy as np
from scipy.special import gammaln


def ppca_loglik_curve(Z, sqnorm, eigenvalues, total_variance, n_features, ks):
    """Per-sample PPCA log-likelihood for each rank in ``ks``, without refitting.

    The model with rank k has covariance ``W diag(l) W^T + s2 (I - W W^T)`` where
    ``l`` are the top-k eigenvalues and ``s2`` is the mean of the discarded variance.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Centred samples projected on the (at least max(ks)) leading eigenvectors.
    sqnorm : ndarray of shape (n,)
        Squared norms of the centred samples.
    eigenvalues : ndarray of shape (p,)
    total_variance : float
        Trace of the fitted covariance.
    n_features : int
    ks : sequence of int
        Ranks to evaluate (each < n_features, or = n_features with no noise term).

    Returns
    -------
    ndarray of shape (n, len(ks))

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.zeros((1, 2)); ll = ppca_loglik_curve(Z, np.zeros(1), np.ones(2), 2.0, 2, [1])
    >>> bool(np.isclose(ll[0, 0], -np.log(2 * np.pi)))
    True
    """
    Z = np.asarray(Z, dtype=np.float64)
    lam = np.maximum(np.asarray(eigenvalues, dtype=np.float64), np.finfo(np.float64).tiny)
    z2 = Z**2
    with np.errstate(over="ignore"):  # a row off a variance of 0: log-likelihood -inf
        maha = np.cumsum(z2 / lam, axis=1)
    proj = np.cumsum(z2, axis=1)
    logdet_top = np.cumsum(np.log(lam))
    kept = np.cumsum(lam)
    out = np.empty((Z.shape[0], len(ks)))
    for col, k in enumerate(ks):
        rest = n_features - k
        m = maha[:, k - 1] if k else 0.0
        p = proj[:, k - 1] if k else 0.0
        logdet = logdet_top[k - 1] if k else 0.0
        quad = m
        if rest > 0:
            s2 = max((total_variance - (kept[k - 1] if k else 0.0)) / rest, np.finfo(np.float64).tiny)
            logdet = logdet + rest * np.log(s2)
            with np.errstate(over="ignore"):
                quad = quad + np.maximum(sqnorm - p, 0.0) / s2
        out[:, col] = -0.5 * (n_features * np.log(2 * np.pi) + logdet + quad)
    return out


def minka_log_evidence(eigenvalues, rank, n_samples):
    """Laplace approximation of log p(data | rank) for PPCA (Minka, 2000, eq. 30).

    Eigenvalues at the rounding level of the largest (``d * eps`` of it) count as zero:
    a rank whose last eigenvalue is zero has evidence -inf (the data have no variance
    there to model), and the noise variance of the discarded directions is floored at
    that level, so exactly rank-deficient data get their rank.

    Parameters
    ----------
    eigenvalues : ndarray of shape (d,)
        The full covariance spectrum, descending.
    rank : int
        Candidate dimensionality, 1 <= rank < d.
    n_samples : int

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> ev = np.array([10.0, 1.1, 1.0, 0.9])
    >>> bool(minka_log_evidence(ev, 1, 100) > minka_log_evidence(ev, 3, 100))
    True
    >>> minka_log_evidence(np.array([4.0, 1e-17, 0.0]), 2, 100)
    -inf
    """
    lam = np.asarray(eigenvalues, dtype=np.float64)
    d, k, n = lam.size, rank, n_samples
    floor = max(float(lam.max(initial=0.0)) * d * np.finfo(np.float64).eps, np.finfo(np.float64).tiny)
    if lam[k - 1] <= floor:
        return -np.inf
    i = np.arange(1, k + 1)
    log_pu = -k * np.log(2.0) + np.sum(gammaln((d - i + 1) / 2.0) - (d - i + 1) / 2.0 * np.log(np.pi))
    top = lam[:k]
    s2 = max(lam[k:].sum() / (d - k), floor)
    log_lik = -n / 2.0 * np.sum(np.log(top)) - n * (d - k) / 2.0 * np.log(s2)
    m = d * k - k * (k + 1) / 2.0
    hat = np.concatenate([top, np.full(d - k, s2)])
    rest = np.maximum(lam, floor)  # rounding-level eigenvalues as the floor, never 0 or negative
    log_az = 0.0
    for a in range(k):
        b = np.arange(a + 1, d)
        gap = np.maximum(np.abs(rest[a] - rest[b]), floor)
        log_az += np.sum(
            np.log(np.maximum(np.abs(1.0 / hat[b] - 1.0 / hat[a]), 1.0 / rest[a] * np.finfo(np.float64).eps))
            + np.log(gap)
            + np.log(n)
        )
    return log_pu + log_lik + (m + k) / 2.0 * np.log(2 * np.pi) - log_az / 2.0 - k / 2.0 * np.log(n)
