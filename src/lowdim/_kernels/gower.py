"""Gower's distance between mixed rows: blocks of pairs, and given candidate pairs."""

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _gower_pair(q, x, categorical, scale, weights):
    """The ``weights``-weighted mean over the columns both rows have (not NaN) of 0/1
    for ``categorical`` columns and the absolute difference times ``scale`` for the
    others; NaN when they share no column."""
    total = 0.0
    weight = 0.0
    for j in range(q.shape[0]):
        a = q[j]
        b = x[j]
        if np.isnan(a) or np.isnan(b):
            continue
        if categorical[j]:
            part = 0.0 if a == b else 1.0
        else:
            part = abs(a - b) * scale[j]
        total += weights[j] * part
        weight += weights[j]
    return total / weight if weight > 0.0 else np.nan


@njit(cache=True, parallel=True)
def gower_block(Q, X, categorical, scale, weights, out):
    """Gower distances from the rows of ``Q`` to those of ``X`` into ``out`` (m, n)."""
    for i in prange(Q.shape[0]):
        for r in range(X.shape[0]):
            out[i, r] = _gower_pair(Q[i], X[r], categorical, scale, weights)


@njit(cache=True, parallel=True)
def gower_candidates(Q, X, candidates, categorical, scale, weights, out):
    """Gower distance of each row of ``Q`` to its ``candidates`` rows of ``X`` into
    ``out`` (m, c); a pair sharing no column gets infinity (never a neighbour)."""
    for i in prange(Q.shape[0]):
        for t in range(candidates.shape[1]):
            d = _gower_pair(Q[i], X[candidates[i, t]], categorical, scale, weights)
            out[i, t] = np.inf if np.isnan(d) else d


@njit(cache=True, parallel=True)
def gower_pairs(X, a, b, categorical, scale, weights, out):
    """Gower distance of each pair of rows ``(a[t], b[t])`` of ``X`` into ``out``; a pair
    sharing no column gets 1, the largest distance (never similar for its likeness)."""
    for t in prange(a.shape[0]):
        d = _gower_pair(X[a[t]], X[b[t]], categorical, scale, weights)
        out[t] = 1.0 if np.isnan(d) else d


@njit(cache=True, parallel=True)
def refine_neighbors(X, rows, indices, distances, categorical, scale, weights, new_indices, new_distances):
    """One round of neighbours-of-neighbours for ``rows``: each listed row's k nearest
    among its neighbours and their neighbours (``indices``/``distances``, ascending),
    by exact Gower distance, into ``new_indices``/``new_distances`` (read from the old
    graph only, so the result does not depend on the thread count)."""
    k = indices.shape[1]
    for t in prange(rows.shape[0]):
        i = rows[t]
        best_i = indices[i].copy()
        best_d = distances[i].copy()
        for a in range(k):
            j = indices[i, a]
            for b in range(k):
                c = indices[j, b]
                if c == i:
                    continue
                seen = False
                for s in range(k):
                    if best_i[s] == c:
                        seen = True
                        break
                if seen:
                    continue
                d = _gower_pair(X[i], X[c], categorical, scale, weights)
                if np.isnan(d) or d > best_d[k - 1] or (d == best_d[k - 1] and c > best_i[k - 1]):
                    continue
                s = k - 1
                while s > 0 and (best_d[s - 1] > d or (best_d[s - 1] == d and best_i[s - 1] > c)):
                    best_d[s] = best_d[s - 1]
                    best_i[s] = best_i[s - 1]
                    s -= 1
                best_d[s] = d
                best_i[s] = c
        new_indices[i] = best_i
        new_distances[i] = best_d
