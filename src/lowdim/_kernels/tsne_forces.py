"""t-SNE forces that are sums over pairs: attraction along the sparse affinities, the
exact O(n^2) repulsion, and the per-edge part of the KL divergence.

The output kernel is Student-t with ``dof`` degrees of freedom,
``K1(d2) = (1 + d2 / dof) ** (-(dof + 1) / 2)``, and ``w(d2) = 1 / (1 + d2 / dof)``;
every kernel is parallel over points, each point summing its own terms in a fixed
order, so results do not depend on the thread count.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def kernel_terms(d2, dof):
    """``(K1, w)`` at squared distance ``d2``."""
    w = 1.0 / (1.0 + d2 / dof)
    if dof == 1.0:
        return w, w
    return w ** (0.5 * (dof + 1.0)), w


@njit(cache=True, fastmath=True)
def _attract_row(indptr, indices, pvals, y, Yref, inv_dof, out_row):
    """``out_row = sum_e p_e w(y - Yref[j_e]) (y - Yref[j_e])`` over one CSR row."""
    d = Yref.shape[1]
    if d == 2:  # the common case, unrolled
        y0, y1 = y[0], y[1]
        f0, f1 = 0.0, 0.0
        for e in range(indptr[0], indptr[1]):
            j = indices[e]
            a, b = y0 - Yref[j, 0], y1 - Yref[j, 1]
            coef = pvals[e] / (1.0 + (a * a + b * b) * inv_dof)
            f0 += coef * a
            f1 += coef * b
        out_row[0], out_row[1] = f0, f1
        return
    for a in range(d):
        out_row[a] = 0.0
    for e in range(indptr[0], indptr[1]):
        j = indices[e]
        d2 = 0.0
        for a in range(d):
            diff = y[a] - Yref[j, a]
            d2 += diff * diff
        coef = pvals[e] / (1.0 + d2 * inv_dof)
        for a in range(d):
            out_row[a] += coef * (y[a] - Yref[j, a])


@njit(cache=True, parallel=True)
def attractive_forces(indptr, indices, pvals, Y, dof, out):
    """``out[i] = sum_j p_ij w_ij (y_i - y_j)`` over the CSR affinities."""
    for i in prange(Y.shape[0]):
        _attract_row(indptr[i : i + 2], indices, pvals, Y[i], Y, 1.0 / dof, out[i])


@njit(cache=True, parallel=True)
def attractive_forces_to(indptr, indices, pvals, Y, Yref, dof, out):
    """As ``attractive_forces`` for points ``Y`` whose affinities (CSR rows) point into
    a fixed reference embedding ``Yref`` (t-SNE's transform of new points)."""
    for i in prange(Y.shape[0]):
        _attract_row(indptr[i : i + 2], indices, pvals, Y[i], Yref, 1.0 / dof, out[i])


@njit(cache=True, fastmath=True)
def _repel_row_2d(Y, i, inv_dof, cauchy, dof, out_row):
    """2-D ``exact_repulsion`` row, self included (it adds K1(0) = 1 to z, no force)."""
    y0, y1 = Y[i, 0], Y[i, 1]
    f0, f1, z = 0.0, 0.0, 0.0
    for j in range(Y.shape[0]):
        a, b = y0 - Y[j, 0], y1 - Y[j, 1]
        w = 1.0 / (1.0 + (a * a + b * b) * inv_dof)
        k1 = w if cauchy else w ** (0.5 * (dof + 1.0))
        z += k1
        f0 += k1 * w * a
        f1 += k1 * w * b
    out_row[0], out_row[1] = f0, f1
    return z


@njit(cache=True, fastmath=True)
def _repel_row(Y, i, inv_dof, cauchy, dof, out_row):
    """Any-dimension ``exact_repulsion`` row, self included."""
    d = Y.shape[1]
    for a in range(d):
        out_row[a] = 0.0
    z = 0.0
    for j in range(Y.shape[0]):
        d2 = 0.0
        for a in range(d):
            diff = Y[i, a] - Y[j, a]
            d2 += diff * diff
        w = 1.0 / (1.0 + d2 * inv_dof)
        k1 = w if cauchy else w ** (0.5 * (dof + 1.0))
        z += k1
        for a in range(d):
            out_row[a] += k1 * w * (Y[i, a] - Y[j, a])
    return z


@njit(cache=True, parallel=True)
def exact_repulsion(Y, dof, out, z_rows):
    """``out[i] = sum_{j != i} K1_ij w_ij (y_i - y_j)`` and ``z_rows[i] = sum_{j != i}
    K1_ij`` (the normalisation is ``z_rows.sum()``)."""
    cauchy = dof == 1.0
    for i in prange(Y.shape[0]):
        if Y.shape[1] == 2:
            z = _repel_row_2d(Y, i, 1.0 / dof, cauchy, dof, out[i])
        else:
            z = _repel_row(Y, i, 1.0 / dof, cauchy, dof, out[i])
        z_rows[i] = z - 1.0


@njit(cache=True)
def kl_edge_terms(indptr, indices, pvals, Y, dof, out):
    """``out[i] = -sum_j p_ij log K1_ij``: with sum p = 1, the KL divergence is
    ``sum p log p + out.sum() + log Z``. Serial: it runs once per objective check (every
    50 iterations), and a parallel loop would add more first-call compilation than it saves."""
    n, d = Y.shape
    half_power = 0.5 * (dof + 1.0)
    for i in range(n):
        acc = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            d2 = 0.0
            for a in range(d):
                diff = Y[i, a] - Y[j, a]
                d2 += diff * diff
            acc += pvals[e] * np.log1p(d2 / dof)
        out[i] = half_power * acc
