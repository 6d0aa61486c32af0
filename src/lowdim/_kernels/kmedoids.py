"""k-medoids kernels on a dense dissimilarity matrix: BUILD, FastPAM1 swap search,
nearest / second-nearest medoid. Parallel over candidates; every choice is reduced
in index order, so results do not depend on the thread count."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def nearest_two(D, medoids, nearest, dn, ds):
    """For each point: position (in ``medoids``) of its nearest medoid, the distance to
    it and to the second nearest (inf with one medoid)."""
    n = D.shape[0]
    k = medoids.shape[0]
    for o in prange(n):
        b1 = np.inf
        b2 = np.inf
        a = 0
        for i in range(k):
            v = D[medoids[i], o]
            if v < b1:
                b2 = b1
                b1 = v
                a = i
            elif v < b2:
                b2 = v
        nearest[o] = a
        dn[o] = b1
        ds[o] = b2


@njit(cache=True, parallel=True)
def build_next(D, dn, is_medoid):
    """BUILD step: the non-medoid whose addition lowers the total distance most
    (``dn``: current distance to the nearest chosen medoid; inf before the first)."""
    n = D.shape[0]
    gain = np.full(n, -np.inf)
    for c in prange(n):
        if is_medoid[c]:
            continue
        g = 0.0
        row = D[c]
        for o in range(n):
            if row[o] < dn[o]:
                g += (dn[o] - row[o]) if dn[o] < np.inf else -row[o]
        gain[c] = g
    return np.argmax(gain)


@njit(cache=True, parallel=True)
def best_swaps(D, is_medoid, nearest, dn, ds, k):
    """FastPAM1 (Schubert & Rousseeuw, 2019): for every non-medoid candidate ``c``,
    the change of total distance for swapping it with each medoid in one O(n) pass,
    and the best medoid position to swap out.

    Returns per-candidate best change (inf for medoids) and the medoid position.
    """
    n = D.shape[0]
    best_delta = np.full(n, np.inf)
    best_pos = np.zeros(n, dtype=np.int64)
    for c in prange(n):
        if is_medoid[c]:
            continue
        delta = np.zeros(k)
        shared = 0.0
        row = D[c]
        for o in range(n):
            doj = row[o]
            if doj < dn[o]:
                shared += doj - dn[o]  # o moves to c whichever medoid leaves
            else:
                delta[nearest[o]] += min(ds[o], doj) - dn[o]  # only if its medoid leaves
        pos = 0
        for i in range(1, k):
            if delta[i] < delta[pos]:
                pos = i
        best_delta[c] = shared + delta[pos]
        best_pos[c] = pos
    return best_delta, best_pos


@njit(cache=True, parallel=True)
def cluster_medoids(D, labels, medoids):
    """'alternate' update: in each cluster, the member with the smallest sum of
    distances to the other members. Updates ``medoids`` in place; returns whether
    any changed."""
    k = medoids.shape[0]
    changed = np.zeros(k, dtype=np.bool_)
    for i in prange(k):
        members = np.flatnonzero(labels == i)
        if members.size == 0:
            continue
        best = medoids[i]
        best_cost = 0.0
        for o in members:
            best_cost += D[best, o]
        for c in members:
            cost = 0.0
            for o in members:
                cost += D[c, o]
            if cost < best_cost:
                best_cost = cost
                best = c
        if best != medoids[i]:
            medoids[i] = best
            changed[i] = True
    return changed.any()
