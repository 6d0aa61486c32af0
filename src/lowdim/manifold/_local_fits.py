"""Local fits of the LLE family. Each method turns every neighbourhood into a small
symmetric block of a global quadratic form ``M``; the embedding is the bottom of M's
spectrum. Blocks are computed batched over row chunks (numpy's stacked LAPACK) so the
(rows, k, d) neighbourhood arrays stay within a fixed memory budget."""

import numpy as np
import scipy.sparse as sp

BLOCK_BYTES = 4 << 20


def _row_chunks(n, k, d):
    """Slices of at most ``BLOCK_BYTES / (8 k d)`` rows."""
    step = max(1, BLOCK_BYTES // (8 * max(k, 1) * max(d, 1)))
    return [slice(s, min(n, s + step)) for s in range(0, n, step)]


def barycenter_weights(Q, R, idx, reg):
    """Weights that rebuild each row of ``Q`` from its neighbours ``R[idx]``: the
    solution of ``(G + r I) w = 1`` rescaled to sum to one, with ``G`` the local Gram
    matrix of the differences and ``r = reg * trace(G)`` (``reg`` when the trace is 0).

    Parameters
    ----------
    Q : ndarray (m, d)
    R : ndarray (n, d)
    idx : ndarray of int (m, k)
    reg : float

    Returns
    -------
    ndarray (m, k), rows summing to one

    Examples
    --------
    >>> R = np.array([[0.0], [2.0]])
    >>> barycenter_weights(np.array([[1.0]]), R, np.array([[0, 1]]), 1e-3).round(6).tolist()
    [[0.5, 0.5]]
    """
    m, k = idx.shape
    W = np.empty((m, k))
    eye = np.eye(k)
    for rows in _row_chunks(m, k, R.shape[1]):
        Z = R[idx[rows]].astype(np.float64, copy=False) - Q[rows, None, :].astype(np.float64, copy=False)
        G = Z @ Z.transpose(0, 2, 1)
        trace = np.trace(G, axis1=1, axis2=2)
        r = np.where(trace > 0, reg * trace, reg)
        w = np.linalg.solve(G + r[:, None, None] * eye, np.ones((G.shape[0], k, 1)))[..., 0]
        W[rows] = w / w.sum(axis=1, keepdims=True)
    return W


def _tangent_coordinates(Z, d):
    """Top ``d`` left singular vectors of each centred neighbourhood ``Z`` (b, k, D)
    from the eigenvectors of ``Z Z^T`` (k x k, small), largest first."""
    _, U = np.linalg.eigh(Z @ Z.transpose(0, 2, 1))
    return U[:, :, ::-1][:, :, :d]


def standard_blocks(X, idx, d, reg, tol):
    """Standard LLE: over the group ``[i, neighbours]``, ``u u^T`` with ``u = [1, -w]``.

    Every builder takes the data, the (n, k) neighbour indices (self excluded), the
    output dimension, the Gram regularisation and a tolerance (the eigenvalue floor of
    'modified', the dependent-column threshold of 'hessian').

    Returns
    -------
    groups : ndarray (n, k + 1), blocks : ndarray (n, k + 1, k + 1)
    """
    n = X.shape[0]
    u = np.hstack([np.ones((n, 1)), -barycenter_weights(X, X, idx, reg)])
    return np.hstack([np.arange(n)[:, None], idx]), u[:, :, None] * u[:, None, :]


def _hessian_chunk(Z, d, tol=1e-4):
    """Hessian estimators of a chunk of centred neighbourhoods: Gram-Schmidt of
    ``[1, U, U_a U_b (a <= b)]``; the columns after the first ``1 + d`` span the
    quadratic part; the block is their outer product. A quadratic column whose new
    direction is below ``tol`` of the largest (it depends on the others: a degenerate
    neighbourhood) is left out rather than adding an arbitrary direction."""
    U = _tangent_coordinates(Z, d)
    a, b = np.triu_indices(d)
    Y = np.concatenate([np.ones(U.shape[:2] + (1,)), U, U[:, :, a] * U[:, :, b]], axis=2)
    Q, R = np.linalg.qr(Y)
    size = np.abs(np.diagonal(R, axis1=1, axis2=2))
    independent = size >= tol * size.max(axis=1, keepdims=True)
    H = Q[:, :, 1 + d :] * independent[:, None, 1 + d :]
    return H @ H.transpose(0, 2, 1)


def hessian_blocks(X, idx, d, reg, tol):
    """Hessian eigenmaps (Donoho & Grimes, 2003) over the neighbourhoods (self excluded);
    ``tol`` is the relative size under which a quadratic column counts as dependent."""
    n, k = idx.shape
    blocks = np.empty((n, k, k))
    for rows in _row_chunks(n, k, X.shape[1]):
        Z = X[idx[rows]].astype(np.float64, copy=False)
        blocks[rows] = _hessian_chunk(Z - Z.mean(axis=1, keepdims=True), d, tol)
    return idx, blocks


def ltsa_blocks(X, idx, d, reg, tol):
    """Local tangent space alignment (Zhang & Zha, 2004): ``I - G G^T`` with
    ``G = [1 / sqrt(k), U]`` per neighbourhood."""
    n, k = idx.shape
    blocks = np.empty((n, k, k))
    for rows in _row_chunks(n, k, X.shape[1]):
        Z = X[idx[rows]].astype(np.float64, copy=False)
        U = _tangent_coordinates(Z - Z.mean(axis=1, keepdims=True), d)
        G = np.concatenate([np.full(U.shape[:2] + (1,), 1 / np.sqrt(k)), U], axis=2)
        blocks[rows] = np.eye(k) - G @ G.transpose(0, 2, 1)
    return idx, blocks


def _local_spectra(X, idx, tol):
    """Eigen-decompositions of the local Gram matrices (descending), floored at ``tol``
    times the largest."""
    n, k = idx.shape
    evals, evecs = np.empty((n, k)), np.empty((n, k, k))
    for rows in _row_chunks(n, k, X.shape[1]):
        Z = X[idx[rows]].astype(np.float64, copy=False) - X[rows, None, :].astype(np.float64, copy=False)
        w, V = np.linalg.eigh(Z @ Z.transpose(0, 2, 1))
        evals[rows], evecs[rows] = w[:, ::-1], V[:, :, ::-1]
    return np.maximum(evals, tol * evals[:, :1] + np.finfo(np.float64).tiny), evecs


def _modified_sizes(evals, d):
    """Zhang & Wang's s_i: the most bottom directions whose share of the local spectrum
    stays within the median ratio of the residual to the tangent part."""
    k = evals.shape[1]
    ratio = evals[:, d:].sum(axis=1) / evals[:, :d].sum(axis=1)
    eta = np.median(ratio)
    head = np.cumsum(evals, axis=1)  # head[:, j] = sum of the largest j + 1
    s_range = np.arange(1, k - d + 1)
    tail = head[:, -1:] - head[:, k - s_range - 1]  # sum of the smallest s
    ok = tail / head[:, k - s_range - 1] <= eta
    return np.maximum(np.where(ok, s_range, 0).max(axis=1), 1)


def modified_blocks(X, idx, d, reg, tol):
    """Modified LLE (Zhang & Wang, 2006): several weight vectors per neighbourhood, the
    regularised barycentre ``w`` blended, through a Householder reflection, with the
    ``s_i`` bottom local eigenvectors, so that each sums to one."""
    n, k = idx.shape
    evals, evecs = _local_spectra(X, idx, tol)
    s = _modified_sizes(evals, d)
    w = barycenter_weights(X, X, idx, reg)
    mask = (np.arange(k - d)[None, :] >= (k - d - s)[:, None]).astype(np.float64)  # (n, k-d)
    V = evecs[:, :, d:] * mask[:, None, :]
    v = V.sum(axis=1)  # V^T 1
    alpha = np.linalg.norm(v, axis=1) / np.sqrt(s)
    h = (v - alpha[:, None]) * mask
    hh = np.einsum("ij,ij->i", h, h)
    scale = np.where(hh > 1e-12 * np.maximum(alpha**2 * s, 1e-300), 2.0 / np.where(hh > 0, hh, 1.0), 0.0)
    H = np.eye(k - d) - scale[:, None, None] * h[:, :, None] * h[:, None, :]
    Wi = ((1 - alpha)[:, None, None] * w[:, :, None] + V @ H) * mask[:, None, :]
    blocks = np.empty((n, k + 1, k + 1))
    blocks[:, 0, 0] = s
    blocks[:, 0, 1:] = blocks[:, 1:, 0] = -Wi.sum(axis=2)
    blocks[:, 1:, 1:] = Wi @ Wi.transpose(0, 2, 1)
    return np.hstack([np.arange(n)[:, None], idx]), blocks


def assemble(groups, blocks, n):
    """``M = sum_i P_i^T B_i P_i``: the blocks scattered onto their groups' rows and
    columns and summed (sparse CSR, symmetric).

    Examples
    --------
    >>> B = np.ones((1, 2, 2))
    >>> assemble(np.array([[0, 2]]), B, 3).toarray().tolist()
    [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
    """
    m = groups.shape[1]
    rows = np.repeat(groups, m, axis=1).ravel()
    cols = np.tile(groups, (1, m)).ravel()
    M = sp.csr_matrix((blocks.ravel(), (rows, cols)), shape=(n, n))
    M.sum_duplicates()
    return M


BLOCK_BUILDERS = {
    "standard": standard_blocks,
    "hessian": hessian_blocks,
    "ltsa": ltsa_blocks,
    "modified": modified_blocks,
}
