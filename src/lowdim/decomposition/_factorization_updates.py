"""One-step updates of X ~ W H by alternating optimisation.

Each function updates H with W fixed (update W by passing the transposed problem);
``mask`` (1 = observed, 0 = missing) restricts the loss to observed entries.
Penalties on the updated factor: ``l1 * sum(F) + 0.5 * l2 * ||F||^2``.
"""

import numpy as np

EPS = 1e-12


def hals_update_h(X, W, H, l1=0.0, l2=0.0, products=False):
    """HALS / coordinate descent for non-negative H (Frobenius loss, complete data).

    Each row of H is the exact minimiser with the other rows fixed (Cichocki & Phan).
    With ``products``, also returns ``W^T X`` and ``W^T W`` (for ``loss_from_products``).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.eye(2); X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> hals_update_h(X, W, np.ones((2, 2)))
    array([[1., 2.],
           [3., 4.]])
    """
    WtX = W.T @ X
    WtW = W.T @ W
    H = H.copy()
    for r in range(H.shape[0]):
        numerator = WtX[r] - WtW[r] @ H + WtW[r, r] * H[r] - l1
        H[r] = np.maximum(numerator / (WtW[r, r] + l2 + EPS), 0.0)
    return (H, WtX, WtW) if products else H


def loss_from_products(sq_norm, WtX, WtW, H):
    """0.5 ||X - W H||^2 from ``||X||^2``, ``W^T X`` and ``W^T W`` (k x d and k x k work).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.ones((2, 2)); W = np.ones((2, 1)); H = np.ones((1, 2))
    >>> loss_from_products(4.0, W.T @ X, W.T @ W, H)
    0.0
    """
    return 0.5 * max(sq_norm - 2 * float(np.sum(WtX * H)) + float(np.sum(WtW * (H @ H.T))), 0.0)


def mu_update_h(X, W, H, mask=None, beta="frobenius", l1=0.0, l2=0.0):
    """Multiplicative update of non-negative H (Lee & Seung) for the Frobenius or
    Kullback-Leibler loss, optionally over the observed entries only.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.ones((2, 1)); X = np.ones((2, 3))
    >>> mu_update_h(X, W, np.full((1, 3), 0.5))
    array([[1., 1., 1.]])
    """
    if beta == "frobenius":
        if mask is None:  # W^T W H costs k x k x d, not the n x d product W H
            numerator = W.T @ X
            denominator = (W.T @ W) @ H + l2 * H + l1
        else:
            numerator = W.T @ (X * mask)
            denominator = W.T @ ((W @ H) * mask) + l2 * H + l1
    else:  # Kullback-Leibler
        ratio = X / np.maximum(W @ H, EPS)
        if mask is not None:
            ratio = ratio * mask
        numerator = W.T @ ratio
        column = W.sum(axis=0)[:, None] if mask is None else W.T @ mask
        denominator = column + l2 * H + l1
    return H * numerator / np.maximum(denominator, EPS)


def ridge_update_h(X, W, l2=0.0, mask=None):
    """Unconstrained least squares for H (ALS); with missing entries one ridge system
    per column of X, built from that column's observed rows only.

    Examples
    --------
    >>> import numpy as np
    >>> ridge_update_h(np.eye(2), np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    k = W.shape[1]
    if mask is None:
        return np.linalg.solve(W.T @ W + l2 * np.eye(k), W.T @ X)
    Xm = np.where(mask > 0, X, 0.0)
    outer = (W[:, :, None] * W[:, None, :]).reshape(W.shape[0], k * k)
    A = (mask.T @ outer).reshape(-1, k, k) + (l2 + EPS) * np.eye(k)
    b = (W.T @ Xm).T
    return np.linalg.solve(A, b[..., None])[..., 0].T


def loss(X, W, H, mask=None, beta="frobenius", sq_norm=None):
    """Data term over the observed entries: 0.5 ||X - W H||^2 or the KL divergence.

    Complete data with the Frobenius loss never form W H: ``||X||^2 - 2 tr(W^T X H^T)
    + tr(W^T W H H^T)`` (pass ``sq_norm = ||X||^2`` to skip that pass).

    Examples
    --------
    >>> import numpy as np
    >>> loss(np.ones((2, 2)), np.ones((2, 1)), np.ones((1, 2)))
    0.0
    """
    if beta == "frobenius" and mask is None:
        sq = float(np.sum(X * X)) if sq_norm is None else sq_norm
        cross = float(np.sum(W * (X @ H.T)))
        return 0.5 * max(sq - 2 * cross + float(np.sum((W.T @ W) * (H @ H.T))), 0.0)
    WH = W @ H
    if beta == "frobenius":
        diff = (X - WH) * mask
        return 0.5 * float(np.sum(diff * diff))
    safe = np.maximum(WH, EPS)
    terms = np.where(X > 0, X * np.log(np.maximum(X, EPS) / safe), 0.0) - X + WH
    return float(np.sum(terms if mask is None else terms * mask))


def penalty(W, H, penalties):
    """``l1_W sum W + 0.5 l2_W ||W||^2 + l1_H sum H + 0.5 l2_H ||H||^2``."""
    l1w, l2w, l1h, l2h = penalties
    return float(l1w * W.sum() + 0.5 * l2w * np.sum(W * W) + l1h * H.sum() + 0.5 * l2h * np.sum(H * H))
