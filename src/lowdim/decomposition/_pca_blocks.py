"""What each row block contributes to a distributed PCA beyond its moments (TSQR R
factors, products with the covariance), and how the contributions merge exactly.

Each function runs on a worker on one row block and returns small float64 arrays; the
merges use the same pairwise update as the moments (``linalg.merge_step``).
"""

import numpy as np

from ..linalg import check_block_finite, merge_step, merge_variances


def block_r_factor(block, start):
    """(n, mean, R) of one block: R from the QR factorisation of the block centred on
    its own mean, in float64, so that ``R^T R`` is the block's scatter (TSQR leaf).

    Examples
    --------
    >>> n, m, R = block_r_factor(np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 4.0]]), 0)
    >>> bool(np.allclose(R.T @ R, np.cov(np.array([[0, 1], [2, 1], [4, 4.0]]).T) * 2))
    True
    """
    centered = block.astype(np.float64)
    mean = centered.mean(axis=0)
    check_block_finite(block, start, mean)  # a NaN or infinity anywhere makes its column mean non-finite
    centered -= mean
    return block.shape[0], mean, np.linalg.qr(centered, mode="r")  # (min(n, d), d)


def merge_r_factors(parts):
    """Merge TSQR leaves: stack the R factors with the row ``sqrt(na nb / n) (mb - ma)``
    that carries the difference of the means, and factor again (exact centring).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(9, 3)) + 5
    >>> n, m, R = merge_r_factors([block_r_factor(X[:4], 0), block_r_factor(X[4:], 4)])
    >>> bool(np.allclose(R.T @ R / (n - 1), np.cov(X.T)))
    True
    """
    n, mean = parts[0][0], parts[0][1].copy()
    rows = [parts[0][2]]
    for nb, mean_b, R_b in parts[1:]:
        n, mean, delta, weight = merge_step(n, mean, nb, mean_b)
        rows += [R_b, np.sqrt(weight) * delta[None, :]]
    return n, mean, np.linalg.qr(np.vstack(rows), mode="r")


def block_gram_product(block, mean, scale, P):
    """``Xc^T (Xc P)`` for one block centred on the global ``mean`` (and divided by
    ``scale``), products in the block's dtype, returned in float64.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [3.0, 0.0]])
    >>> block_gram_product(X, np.array([2.0, 0.0]), None, np.eye(2)).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    Xc = block - mean.astype(block.dtype)
    if scale is not None:
        Xc /= scale.astype(block.dtype)
    return (Xc.T @ (Xc @ P.astype(block.dtype))).astype(np.float64)


def block_moments_product(block, start, P):
    """(n, mean, per-feature sum of squared deviations, ``Sb P``) of one block, with
    ``Sb`` the block's scatter about its own mean: the first pass of randomized PCA,
    which needs no global mean yet (``merge_moments_products`` corrects for it).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [3.0, 2.0]])
    >>> n, m, ss, G = block_moments_product(X, 0, np.eye(2))
    >>> m.tolist(), ss.tolist(), G.tolist()
    ([2.0, 1.0], [2.0, 2.0], [[2.0, 2.0], [2.0, 2.0]])
    """
    nb = block.shape[0]
    mean = block.mean(axis=0, dtype=np.float64)
    check_block_finite(block, start, mean)
    shift = mean.astype(block.dtype)  # x - shift is exact for data near its mean
    Xc = block - shift
    Y = Xc @ P.astype(block.dtype)
    G = (Xc.T @ Y).astype(np.float64)
    offset = mean - shift  # scatter about the mean = scatter about shift - nb offset offset^T
    ss = np.einsum("ij,ij->j", Xc, Xc, dtype=np.float64) - nb * offset**2
    if offset.any():
        G -= np.outer(offset, nb * (offset @ P))
    return nb, mean, ss, G


def merge_moments_products(parts, P):
    """Merge ``block_moments_product`` results exactly: ``S P = sum_b (S_b P + n_b d_b
    (d_b^T P))`` with ``d_b`` the difference of part b's mean from the merged mean.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(9, 3)) + 4
    >>> P = np.eye(3)[:, :2]
    >>> n, m, ss, G = merge_moments_products([block_moments_product(X[:4], 0, P),
    ...                                       block_moments_product(X[4:], 4, P)], P)
    >>> Xc = X - X.mean(0)
    >>> bool(np.allclose(G, Xc.T @ Xc @ P)), bool(np.allclose(ss, (Xc**2).sum(0)))
    (True, True)
    """
    n, mean, ss = merge_variances([part[:3] for part in parts])
    G = sum(part[3] for part in parts)  # the parts' own scatters times P, plus
    for nb, mean_b, _, _ in parts:  # the scatter of their means about the merged one
        delta = mean_b - mean
        G += np.outer(delta, nb * (delta @ P))
    return n, mean, ss, G


def merge_sum(parts):
    """Sum a list of arrays (the merge of ``block_gram_product``).

    Examples
    --------
    >>> merge_sum([np.ones(2), np.ones(2)]).tolist()
    [2.0, 2.0]
    """
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return total
