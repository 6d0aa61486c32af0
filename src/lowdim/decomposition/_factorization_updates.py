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


def product_at_entries(W, H, X):
    """The entries of ``W H`` at the stored entries of sparse ``X``, in the order of
    ``X.data`` (CSR, or CSC as the transpose of a CSR matrix): O(nnz k) work, never the
    dense product.

    Examples
    --------
    >>> product_at_entries(np.ones((2, 1)), np.full((1, 2), 3.0), sp.csr_matrix(np.eye(2))).tolist()
    [3.0, 3.0]
    """
    from .._kernels.factorization import csr_entry_products

    if X.format == "csc":  # the stored entries of X^T = H^T W^T, row by row
        X, W, H = X.T, H.T, W.T
    X = sp.csr_matrix(X)
    dtype = np.result_type(W, H)
    return csr_entry_products(
        X.indptr, X.indices, np.ascontiguousarray(W, dtype=dtype), np.ascontiguousarray(H.T, dtype=dtype)
    )


def product_like(X, W, H):
    """``W H`` laid out in memory as X is (C or Fortran order), so that elementwise work
    with X runs along memory also when X is the transposed view of the W update."""
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        return (H.T @ W.T).T
    return W @ H


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
    numerator, denominator, gamma = mu_terms(X, W, H, mask, beta, l1, l2)
    step = numerator / np.maximum(denominator, EPS)
    return H * (step if gamma == 1.0 else step**gamma)


def mu_update_w(X, W, H, mask=None, beta="frobenius", l1=0.0, l2=0.0):
    """Multiplicative update of non-negative W with H fixed: ``mu_update_h`` of the
    transposed problem, or one fused pass over the stored entries for the
    Kullback-Leibler loss on sparse X.

    Examples
    --------
    >>> import numpy as np
    >>> mu_update_w(np.ones((3, 2)), np.full((3, 1), 0.5), np.ones((1, 2)))
    array([[1.],
           [1.],
           [1.]])
    """
    if sp.issparse(X) and beta_value(beta) == 1.0:
        from .._kernels.factorization import csr_kl_update_w

        X = sp.csr_matrix(X)
        dtype = np.result_type(W, H)
        Ht = np.ascontiguousarray(H.T, dtype=dtype)
        scalars = (dtype.type(v) for v in (l1, l2, EPS))
        W = np.ascontiguousarray(W, dtype)
        return csr_kl_update_w(X.indptr, X.indices, X.data.astype(dtype, copy=False), W, Ht, Ht.sum(axis=0), *scalars)
    return mu_update_h(X.T, H.T, W.T, None if mask is None else mask.T, beta, l1, l2).T


def mu_exponent(beta):
    """Fevotte & Idier's exponent of the multiplicative update: 1 for beta in [1, 2].

    Examples
    --------
    >>> mu_exponent(0.0), mu_exponent(1.5), mu_exponent(3.0)
    (0.5, 1.0, 0.5)
    """
    b = beta_value(beta)
    return 1.0 / (2.0 - b) if b < 1.0 else (1.0 / (b - 1.0) if b > 2.0 else 1.0)


def mu_terms(X, W, H, mask=None, beta="frobenius", l1=0.0, l2=0.0, product=None):
    """The two halves of the multiplicative update: ``H * (numerator / denominator)
    ** gamma`` (the negative and positive parts of the gradient). Kept apart so that an
    online fit can accumulate them over mini-batches (Lefevre, Bach & Fevotte, 2011).
    ``product``: ``W H`` when already computed (at X's stored entries if X is sparse);
    a dense one is overwritten.

    Returns
    -------
    numerator, denominator : ndarray of H's shape
    gamma : float

    Examples
    --------
    >>> import numpy as np
    >>> numerator, denominator, gamma = mu_terms(np.ones((2, 3)), np.ones((2, 1)), np.full((1, 3), 0.5))
    >>> numerator.tolist(), denominator.tolist(), gamma
    ([[2.0, 2.0, 2.0]], [[1.0, 1.0, 1.0]], 1.0)
    """
    b = beta_value(beta)
    if sp.issparse(X):
        numerator, denominator = _sparse_mu_terms(X, W, H, b, product)
    elif b == 2.0:
        if mask is None:  # W^T W H costs k x k x d, not the n x d product W H
            numerator, denominator = W.T @ X, (W.T @ W) @ H
        else:
            numerator, denominator = W.T @ (X * mask), W.T @ ((W @ H) * mask)
    else:
        WH = product_like(X, W, H) if product is None else product
        WH = np.maximum(WH, EPS, out=WH if WH.dtype == np.result_type(X, WH) else None)
        if b == 1.0:  # in place: no second n x d array; W^T 1 needs no array of ones
            ratio, base = np.divide(X, WH, out=WH), (None if mask is None else mask)
        else:
            ratio, base = X * WH ** (b - 2.0), WH ** (b - 1.0)
            if mask is not None:
                base = base * mask
        if mask is not None:
            ratio = ratio * mask
        numerator = W.T @ ratio
        denominator = np.broadcast_to(W.sum(axis=0)[:, None], H.shape) if base is None else W.T @ base
    return numerator, denominator + l2 * H + l1, mu_exponent(b)


def _sparse_mu_terms(X, W, H, b, product=None):
    """The update's halves for sparse X: Frobenius from sparse products, KL from the
    ratio ``X / (W H)`` at the stored entries only (the zeros contribute ``W^T 1``)."""
    if b == 2.0:
        return W.T @ X, (W.T @ W) @ H
    if b == 1.0:
        wh = product_at_entries(W, H, X) if product is None else product
        # X's structure shared, not copied: only the values differ
        ratio = type(X)((X.data / np.maximum(wh, EPS), X.indices, X.indptr), shape=X.shape)
        return W.T @ ratio, np.broadcast_to(W.sum(axis=0)[:, None], H.shape)
    raise ValueError(
        f"beta_loss with beta={b:g} on sparse input would need W H at every entry; use "
        "'frobenius' or 'kullback-leibler', or pass a dense array."
    )


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


def loss(X, W, H, mask=None, beta="frobenius", sq_norm=None, product=None):
    """Data term over the observed entries: the beta-divergence of W H from X
    (0.5 ||X - W H||^2 for Frobenius, the generalised KL divergence, Itakura-Saito's
    ``x / y - log(x / y) - 1``, or ``(x^b + (b - 1) y^b - b x y^(b - 1)) / (b (b - 1))``).

    Complete data with the Frobenius loss never form W H: ``||X||^2 - 2 tr(W^T X H^T)
    + tr(W^T W H H^T)`` (pass ``sq_norm = ||X||^2`` to skip that pass). ``product``:
    ``W H`` when already computed (at X's stored entries if X is sparse).

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
        wh = np.maximum(product_at_entries(W, H, X) if product is None else product, EPS)
        positive = X.data > 0
        stored = float(np.sum(X.data[positive] * np.log(X.data[positive] / wh[positive])) - X.data.sum())
        return stored + float(W.sum(axis=0) @ H.sum(axis=1))  # + sum(W H) over every entry
    WH = product_like(X, W, H) if product is None else product
    if b == 2.0:
        diff = (X - WH) * mask
        return 0.5 * float(np.sum(diff * diff))
    if b == 1.0 and mask is None:  # x log(x / y) where x > 0; sum(W H) from the factors' sums
        positive = X > 0
        x = X[positive]
        stored = float(np.sum(x * np.log(x / np.maximum(WH[positive], EPS)), dtype=np.float64))
        return stored - float(np.sum(X, dtype=np.float64)) + float(W.sum(axis=0) @ H.sum(axis=1))
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


def flat_row_start(X, k, mask=None):
    """A start of W for the rows of ``X``: each row's k codes equal, at the row's own
    scale ``sqrt(mean / k)`` (the mean over its observed entries), so that no row's start
    depends on the other rows.

    Examples
    --------
    >>> import numpy as np
    >>> flat_row_start(np.array([[4.0, 4.0], [0.0, 0.0]]), 2).round(6).tolist()
    [[1.414214, 1.414214], [1e-06, 1e-06]]
    """
    observed = X.shape[1] if mask is None else np.maximum(mask.sum(axis=1), 1.0)
    sums = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()  # sparse: a matrix
    return np.repeat(np.sqrt(np.maximum(sums / observed, 1e-12) / k)[:, None], k, axis=1)


def solve_rows(update, W, *, tol, max_iter, window=1):
    """Iterate ``W[rows] = update(rows, W[rows])`` over the rows still moving; a row stops
    when it moved by at most ``tol`` of its norm over the last ``window`` iterations.
    Each row by its own measure, so that a row's codes do not depend on the other rows
    passed with it (a batch-wide criterion stops a row sooner or later by its company).

    Parameters
    ----------
    update : callable ``(rows, W_rows) -> new W_rows``
    W : ndarray (n, k)
        The start, updated in place.
    tol : float
        0 runs every row ``max_iter`` times.
    max_iter : int
    window : int, default=1

    Returns
    -------
    W : ndarray (n, k)
    n_iter : int
        Iterations of the slowest row.
    converged : bool
        Every row stopped before ``max_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> halve = lambda rows, Wr: Wr / 2 + 1.0  # every row moves toward 2
    >>> W, n_iter, converged = solve_rows(halve, np.array([[2.0], [10.0]]), tol=1e-6, max_iter=100)
    >>> W.round(4).ravel().tolist(), n_iter, converged  # the first row stops at once
    ([2.0, 2.0], 22, True)
    """
    active = np.arange(W.shape[0])
    history = [W.copy()]
    for it in range(1, max_iter + 1):
        W[active] = update(active, W[active])
        history = (history + [W[active].copy()])[-(window + 1) :]
        if tol <= 0 or len(history) <= window:
            continue
        moved = np.linalg.norm(history[-1] - history[0], axis=1)
        done = moved <= tol * np.linalg.norm(history[-1], axis=1)
        if done.any():
            active = active[~done]
            history = [h[~done] for h in history]
        if not active.size:
            return W, it, True
    return W, max_iter, False
