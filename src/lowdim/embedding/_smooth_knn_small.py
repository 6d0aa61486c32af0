"""UMAP's smooth-kNN calibration of a small graph in numpy: every row's bisection at
once, in the kernel's arithmetic (``_kernels.umap_graph.smooth_knn``), so that a first
call on a small table does not wait for the kernel's compilation.

The sums run over the columns in the rows' order, as the kernel's loops do; rho and the
floor on sigma come out the same to the bit. The memberships' ``exp`` is numpy's here
and the C library's in the kernel; where the two differ in the last bit at a
comparison with the target, a row's bisection can stop at another sigma within the
same tolerance.
"""

import numpy as np

from .._kernels.umap_graph import MIN_SIGMA_SCALE

SMALL_FUZZY = 1 << 18  # rows x neighbours calibrated by numpy below the kernel


def smooth_knn_small(D, target, local_connectivity, tol, max_iter, mean_distance):
    """``(rho, sigma)`` of the (n, k) float64 neighbour distances ``D``, as ``smooth_knn``.

    Examples
    --------
    >>> rho, sigma = smooth_knn_small(np.array([[1.0, 2.0, 3.0]]), 2.0, 1.0, 1e-5, 64, 2.0)
    >>> rho.tolist(), round(float(sigma[0]), 4)
    ([1.0], 2.0781)
    """
    rho = _rho(D, local_connectivity)
    sigma = _start_sigma(D, rho)
    lo, hi = np.zeros(D.shape[0]), np.full(D.shape[0], np.inf)
    active = np.arange(D.shape[0])
    for _ in range(max_iter):
        if not active.size:
            break
        total = _membership_sums(D[active], rho[active], sigma[active])
        going = ~(np.abs(total - target) < tol)
        active, total = active[going], total[going]
        above = total > target
        s, a, b = sigma[active], lo[active], hi[active]
        b = np.where(above, s, b)
        a = np.where(above, a, s)
        sigma[active] = np.where(above | (b != np.inf), 0.5 * (a + b), s * 2.0)
        lo[active], hi[active] = a, b
    floor = MIN_SIGMA_SCALE * np.where(rho > 0.0, _finite_means(D), mean_distance)
    return rho, np.where(floor > sigma, floor, sigma)


def _columns_sum(terms):
    """Sum of the columns of ``terms`` from 0.0, one column after another (the
    kernel's order)."""
    total = np.zeros(terms.shape[0])
    for j in range(terms.shape[1]):
        total += terms[:, j]
    return total


def _membership_sums(D, rho, sigma):
    gap = D - rho[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.where(gap > 0.0, np.exp(-gap / sigma[:, None]), 1.0)
    return _columns_sum(terms)


def _rho(D, local_connectivity):
    """The kernel's ``_rho`` for every row: the positive finite distances counted in
    each row's order, the ``whole``-th and the one before it picked by that count."""
    whole = int(local_connectivity)
    frac = local_connectivity - whole
    positive = (D > 0.0) & (D < np.inf)
    count = positive.sum(axis=1)
    place = np.cumsum(positive, axis=1) - 1
    pick = lambda r: np.where(positive & (place == r), D, 0.0).sum(axis=1)  # noqa: E731 - one entry or none
    first, before, at = pick(0), pick(whole - 1), pick(whole)
    largest = np.where(positive, D, -np.inf).max(axis=1, initial=-np.inf)
    if whole > 0:
        inner = before + frac * (at - before) if frac > 1e-5 else before
    else:
        inner = frac * first
    return np.where(count == 0, 0.0, np.where(whole >= count, largest, inner))


def _start_sigma(D, rho):
    """The power of two nearest each row's mean gap (the kernel's ``_start_sigma``; the
    bisection finds the same sigma from any power of two)."""
    gap = D > rho[:, None]
    gap &= np.isfinite(D)
    total = _columns_sum(np.where(gap, D - rho[:, None], 0.0))
    count = gap.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        power = 2.0 ** np.floor(np.log2(total / count) + 0.5)
    return np.where((count == 0) | ~(total > 0.0), 1.0, power)


def _finite_means(D):
    """Each row's mean finite distance, summed in its order (0 without one)."""
    finite = np.isfinite(D)
    count = finite.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, _columns_sum(np.where(finite, D, 0.0)) / count, 0.0)
