"""Sparse-entry products of a low-rank factorisation (NMF's divergences on sparse data)."""

import numpy as np
from numba import njit, prange


# fastmath lets the k-length dot product run in SIMD lanes (2.5x): each entry's sum is
# still computed by one thread in a fixed order, the same on every run of a machine
@njit(cache=True, parallel=True, fastmath=True)
def csr_entry_products(indptr, indices, W, Ht):
    """``(W H)[i, j]`` at every stored entry of a CSR matrix, in storage order: one
    k-length dot product per entry, never the dense product.

    Parameters
    ----------
    indptr, indices : int arrays of the CSR structure (n rows)
    W : float array (n, k)
    Ht : float array (d, k)
        H transposed, C-contiguous: each entry reads two contiguous rows.

    Returns
    -------
    float array (nnz,) in W's type
    """
    n, k = W.shape
    out = np.empty(indptr[n], dtype=W.dtype)
    for i in prange(n):
        w = W[i]
        for p in range(indptr[i], indptr[i + 1]):
            h = Ht[indices[p]]
            acc = 0.0
            for r in range(k):
                acc += w[r] * h[r]
            out[p] = acc
    return out


@njit(cache=True, parallel=True, fastmath=True)
def csr_kl_update_w(indptr, indices, data, W, Ht, h_sums, l1, l2, eps):
    """One multiplicative Kullback-Leibler update of W for sparse X (CSR), fused: each
    row reads its stored entries once, forming ``x / (w . h)`` and its sum along H's
    rows in place of the ratio matrix and two sparse products.

    Parameters
    ----------
    indptr, indices, data : the CSR arrays of X (n rows)
    W : float array (n, k), k >= 1
    Ht : float array (d, k), H transposed and C-contiguous
    h_sums : float array (k,), H's row sums (the update's denominator without penalties)
    l1, l2, eps : scalars of W's type (a float64 scalar would turn float32 sums into
        float64 conversions that do not vectorise); eps floors products and denominators

    Returns
    -------
    float array (n, k): ``W * ((X / W H) H^T) / (h_sums + l2 W + l1)``
    """
    n, k = W.shape
    out = np.empty_like(W)
    for i in prange(n):
        w = W[i]
        acc = np.zeros(k, dtype=W.dtype)
        for p in range(indptr[i], indptr[i + 1]):
            h = Ht[indices[p]]
            dot = w[0] * h[0]
            for r in range(1, k):
                dot += w[r] * h[r]
            ratio = data[p] / (dot if dot > eps else eps)
            for r in range(k):
                acc[r] += ratio * h[r]
        for r in range(k):
            denominator = h_sums[r] + l2 * w[r] + l1
            out[i, r] = w[r] * (acc[r] / (denominator if denominator > eps else eps))
    return out
