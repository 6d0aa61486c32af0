"""UMAP's local fuzzy sets: per point, the distance to its nearest neighbour (rho) and
the bandwidth (sigma) that makes its membership strengths sum to log2(k)."""

import numpy as np
from numba import njit

MIN_SIGMA_SCALE = 1e-3  # sigma is at least this times the mean neighbour distance


@njit(cache=True, inline="always")
def _rho(row, local_connectivity):
    """Distance to the ``local_connectivity``-th nearest non-coincident neighbour
    (interpolated for a fractional value); 0 when there is none (dropped edges, at
    infinity, are none). In scalar loops and comparisons: a boolean mask and ``max``
    would add most of a second to the first call's compile."""
    whole = np.int64(local_connectivity)  # the whole part: it is not negative
    frac = local_connectivity - whole
    count, first, before, at, largest = 0, 0.0, 0.0, 0.0, -np.inf
    for j in range(row.shape[0]):  # the positive entries, in the row's order
        v = row[j]
        if 0.0 < v < np.inf:
            if count == 0:
                first = v
            if count == whole - 1:
                before = v
            if count == whole:
                at = v
            largest = v if v > largest else largest
            count += 1
    if count == 0:
        return 0.0
    if whole >= count:
        return largest
    if whole > 0:
        return before + frac * (at - before) if frac > 1e-5 else before
    return frac * first


@njit(cache=True, inline="always")
def _membership_sum(row, rho, sigma):
    total = 0.0
    for j in range(row.shape[0]):
        gap = row[j] - rho
        total += np.exp(-gap / sigma) if gap > 0.0 else 1.0
    return total


@njit(cache=True, inline="always")
def _start_sigma(row, rho):
    """The power of two nearest the row's mean gap ``d - rho`` (1 without one): from 1,
    doubling or halving sigma reaches only 2^+-64 in the 64 steps, so rows of incomes in
    cents (gaps of 1e20) kept a sigma too small. Any power of two brackets the answer
    between the same two powers as 1 does, so the bisection that follows, and the
    sigma it finds, are the same wherever 1 found it."""
    total, count = 0.0, 0
    for j in range(row.shape[0]):
        if row[j] > rho and np.isfinite(row[j]):
            total += row[j] - rho
            count += 1
    if count == 0 or not total > 0.0:
        return 1.0
    return 2.0 ** np.floor(np.log2(total / count) + 0.5)  # not np.round, whose compile a first call would wait for


@njit(cache=True, inline="always")
def _finite_mean(row):
    """The mean of the row's finite distances: a dropped edge (at infinity) made the
    floor on sigma infinite, and every membership of the row 1. Summed in the row's
    order, as ``row.mean()`` sums (not called: one more compile on a first call)."""
    total, count = 0.0, 0
    for j in range(row.shape[0]):
        if np.isfinite(row[j]):
            total += row[j]
            count += 1
    return total / count if count else 0.0


@njit(cache=True, nogil=True)
def smooth_knn(distances, target, local_connectivity, tol, max_iter, mean_distance, out_rho, out_sigma, lo, hi):
    """``out_rho[i]``, ``out_sigma[i]`` for rows ``lo..hi`` of the (n, k) neighbour
    distances (self excluded, increasing): bisection on sigma until the memberships
    ``exp(-max(0, d - rho) / sigma)`` sum to ``target`` within ``tol``. Serial and
    without the GIL (callers split the rows: ``in_row_ranges``)."""
    for i in range(lo, hi):
        row = distances[i]
        rho = _rho(row, local_connectivity)
        lo, hi, sigma = 0.0, np.inf, _start_sigma(row, rho)
        for _ in range(max_iter):
            total = _membership_sum(row, rho, sigma)
            if abs(total - target) < tol:
                break
            if total > target:
                hi = sigma
                sigma = 0.5 * (lo + hi)
            else:
                lo = sigma
                sigma = sigma * 2.0 if hi == np.inf else 0.5 * (lo + hi)
        floor = MIN_SIGMA_SCALE * (_finite_mean(row) if rho > 0.0 else mean_distance)
        out_rho[i] = rho
        out_sigma[i] = floor if floor > sigma else sigma
