"""One-step updates of X ~ W H by alternating optimisation.

Each function updates H with W fixed (update W by passing the transposed problem);
``mask`` (1 = observed, 0 = missing) restricts the loss to observed entries.
Penalties on the updated factor: ``l1 * sum(F) + 0.5 * l2 * ||F||^2``.
"""

import numpy as np
import scipy.sparse as sp

EPS = 1e-12


BETA_NAMES = {"frobenius": 2.0, "kullback-leibler": 1.0, "itakura-saito": 0.0}


def beta_value(beta_loss):
    """The beta of a beta-divergence given by name or number.

    Examples
    --------
    >>> beta_value("kullback-leibler"), beta_value(1.5)
    (1.0, 1.5)
    """
    return BETA_NAMES[beta_loss] if isinstance(beta_loss, str) else float(beta_loss)


def squared_norm(X):
    """``||X||_F^2`` of a dense or sparse matrix, in float64.

    Examples
    --------
    >>> squared_norm(sp.csr_matrix(np.array([[3.0, 0.0], [0.0, 4.0]])))
    25.0
    """
    if sp.issparse(X):
        return float(np.sum(np.square(X.data, dtype=np.float64)))
    X = np.asarray(X)  # float64 sums over row blocks, with no temporary copy of X
    blocks = (X[i : i + 1024] for i in range(0, len(X), 1024))
    return float(sum(np.einsum("ij,ij->", B, B, dtype=np.float64) for B in blocks))


def product_at_entries(W, H, X, chunk=1 << 16):
    """The entries of ``W H`` at the stored entries of sparse ``X`` (in ``X.tocoo()``
    order): O(nnz k) work, never the dense product.

    Examples
    --------
    >>> product_at_entries(np.ones((2, 1)), np.full((1, 2), 3.0), sp.coo_matrix(np.eye(2))).tolist()
    [3.0, 3.0]
    """
    X = sp.coo_matrix(X)
    out = np.empty(X.nnz)
    for start in range(0, X.nnz, chunk):
        rows, cols = X.row[start : start + chunk], X.col[start : start + chunk]
        out[start : start + chunk] = np.einsum("ij,ji->i", W[rows], H[:, cols])
    return out


def hals_update_h(X, W, H, l1=0.0, l2=0.0, products=False, order=None):
    """HALS / coordinate descent for non-negative H (Frobenius loss, complete data).

    Each row of H is the exact minimiser with the other rows fixed (Cichocki & Phan),
    visited in ``order`` (default: first to last). A row whose column of W is zero has
    no minimiser and is left as it is: when the other update has zeroed a component,
    keeping this half lets it come back (as scikit-learn's coordinate descent does).
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
    for r in range(H.shape[0]) if order is None else order:
        if WtW[r, r] + l2 == 0:  # W's column r is zero: keep H's row, so the pair can revive
            continue
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
    cross = float(np.sum(WtX * H, dtype=np.float64))
    return 0.5 * max(sq_norm - 2 * cross + float(np.sum(WtW * (H @ H.T), dtype=np.float64)), 0.0)


def mu_update_h(X, W, H, mask=None, beta="frobenius", l1=0.0, l2=0.0):
    """Multiplicative update of non-negative H for a beta-divergence (Lee & Seung for
    Frobenius and Kullback-Leibler; Fevotte & Idier's majorisation-minimisation exponent
    for other betas, Itakura-Saito = 0 included), optionally over the observed entries.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.ones((2, 1)); X = np.ones((2, 3))
    >>> mu_update_h(X, W, np.full((1, 3), 0.5))
    array([[1., 1., 1.]])
    """
    b = beta_value(beta)
    if sp.issparse(X):
        return _sparse_mu_update_h(X, W, H, b, l1, l2)
    if b == 2.0:
        if mask is None:  # W^T W H costs k x k x d, not the n x d product W H
            numerator = W.T @ X
            denominator = (W.T @ W) @ H + l2 * H + l1
        else:
            numerator = W.T @ (X * mask)
            denominator = W.T @ ((W @ H) * mask) + l2 * H + l1
        return H * numerator / np.maximum(denominator, EPS)
    WH = np.maximum(W @ H, EPS)
    if b == 1.0:
        ratio, base = X / WH, np.ones_like(WH)
    else:
        ratio, base = X * WH ** (b - 2.0), WH ** (b - 1.0)
    if mask is not None:
        ratio, base = ratio * mask, base * mask
    numerator = W.T @ ratio
    denominator = (W.sum(axis=0)[:, None] if b == 1.0 and mask is None else W.T @ base) + l2 * H + l1
    step = numerator / np.maximum(denominator, EPS)
    gamma = 1.0 / (2.0 - b) if b < 1.0 else (1.0 / (b - 1.0) if b > 2.0 else 1.0)
    return H * (step if gamma == 1.0 else step**gamma)


def _sparse_mu_update_h(X, W, H, b, l1, l2):
    """Multiplicative update for sparse X: Frobenius from sparse products, KL from the
    ratio ``X / (W H)`` at the stored entries only (the zeros contribute ``W^T 1``)."""
    if b == 2.0:
        numerator = W.T @ X
        denominator = (W.T @ W) @ H + l2 * H + l1
    elif b == 1.0:
        X = sp.coo_matrix(X)
        ratio = sp.csr_matrix((X.data / np.maximum(product_at_entries(W, H, X), EPS), (X.row, X.col)), shape=X.shape)
        numerator = W.T @ ratio
        denominator = W.sum(axis=0)[:, None] + l2 * H + l1
    else:
        raise ValueError(
            f"beta_loss with beta={b:g} on sparse input would need W H at every entry; use "
            "'frobenius' or 'kullback-leibler', or pass a dense array."
        )
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
    """Data term over the observed entries: the beta-divergence of W H from X
    (0.5 ||X - W H||^2 for Frobenius, the generalised KL divergence, Itakura-Saito's
    ``x / y - log(x / y) - 1``, or ``(x^b + (b - 1) y^b - b x y^(b - 1)) / (b (b - 1))``).

    Complete data with the Frobenius loss never form W H: ``||X||^2 - 2 tr(W^T X H^T)
    + tr(W^T W H H^T)`` (pass ``sq_norm = ||X||^2`` to skip that pass).

    Examples
    --------
    >>> import numpy as np
    >>> loss(np.ones((2, 2)), np.ones((2, 1)), np.ones((1, 2)))
    0.0
    >>> round(loss(np.array([[1.0, 2.0]]), np.ones((1, 1)), np.ones((1, 2)), beta="itakura-saito"), 6)
    0.306853
    """
    b = beta_value(beta)
    if b == 2.0 and mask is None:
        sq = squared_norm(X) if sq_norm is None else sq_norm
        cross = float(np.sum(W * (X @ H.T), dtype=np.float64))
        return 0.5 * max(sq - 2 * cross + float(np.sum((W.T @ W) * (H @ H.T), dtype=np.float64)), 0.0)
    if sp.issparse(X):
        if b != 1.0:
            raise ValueError(
                f"beta_loss with beta={b:g} on sparse input would need W H at every entry; use "
                "'frobenius' or 'kullback-leibler', or pass a dense array."
            )
        X = sp.coo_matrix(X)
        wh = np.maximum(product_at_entries(W, H, X), EPS)
        positive = X.data > 0
        stored = float(np.sum(X.data[positive] * np.log(X.data[positive] / wh[positive])) - X.data.sum())
        return stored + float(W.sum(axis=0) @ H.sum(axis=1))  # + sum(W H) over every entry
    WH = W @ H
    if b == 2.0:
        diff = (X - WH) * mask
        return 0.5 * float(np.sum(diff * diff))
    safe = np.maximum(WH, EPS)
    if b == 1.0:
        terms = np.where(X > 0, X * np.log(np.maximum(X, EPS) / safe), 0.0) - X + WH
    elif b == 0.0:
        ratio = np.maximum(X, EPS) / safe
        terms = ratio - np.log(ratio) - 1.0
    else:
        terms = (X**b + (b - 1.0) * safe**b - b * X * safe ** (b - 1.0)) / (b * (b - 1.0))
    return float(np.sum(terms if mask is None else terms * mask))


def penalty(W, H, penalties):
    """``l1_W sum W + 0.5 l2_W ||W||^2 + l1_H sum H + 0.5 l2_H ||H||^2``."""
    l1w, l2w, l1h, l2h = penalties
    return float(l1w * W.sum() + 0.5 * l2w * np.sum(W * W) + l1h * H.sum() + 0.5 * l2h * np.sum(H * H))
