"""UMAP's layout: one epoch of stochastic gradient descent on the fuzzy cross-entropy
with edge sampling and negative sampling.

The embedding is float32 (as umap-learn's), and so is the arithmetic of a step.
Deterministic in parallel: every point moves only itself (its attraction along its
own edges, which appear in both directions of the symmetric graph, plus its negative
samples) against the positions of the others at the start of the epoch, and the
random numbers are a hash of (seed, epoch, edge, sample), not a shared stream. So the
result is the same for any thread count, without umap-learn's fall-back to one thread.
"""

import numpy as np
from numba import njit, prange

CLIP = np.float32(4.0)  # gradient components are clipped to [-CLIP, CLIP] (as umap-learn)


@njit(cache=True, inline="always")
def _mix(x):
    """splitmix64 finaliser: a well-spread 64-bit hash."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def random_index(seed, epoch, edge, sample, n):
    """A reproducible pseudo-random index in [0, n) for this (epoch, edge, sample)."""
    key = _mix(np.uint64(seed) + np.uint64(epoch) * np.uint64(0x9E3779B97F4A7C15))
    key = _mix(key ^ (np.uint64(edge) * np.uint64(0xD1B54A32D192ED03) + np.uint64(sample)))
    return np.int64(key % np.uint64(n))


@njit(cache=True, inline="always", fastmath=True)
def _pull(cur, other, a, b, alpha):
    """Attractive step of ``cur`` towards ``other`` (float32, as umap-learn)."""
    d = cur.shape[0]
    d2 = np.float32(0.0)
    for c in range(d):
        diff = cur[c] - other[c]
        d2 += diff * diff
    if d2 <= 0.0:
        return
    power = d2 ** (b - np.float32(1.0))  # one pow: d2^b = power * d2
    coef = np.float32(-2.0) * a * b * power / (a * power * d2 + np.float32(1.0))
    for c in range(d):
        g = min(max(coef * (cur[c] - other[c]), -CLIP), CLIP)
        cur[c] += g * alpha


@njit(cache=True, inline="always", fastmath=True)
def _push(cur, other, a, b, gamma, alpha):
    """Repulsive step of ``cur`` away from ``other`` (float32)."""
    d = cur.shape[0]
    d2 = np.float32(0.0)
    for c in range(d):
        diff = cur[c] - other[c]
        d2 += diff * diff
    if d2 <= 0.0:
        return
    coef = np.float32(2.0) * gamma * b / ((np.float32(0.001) + d2) * (a * d2 ** b + np.float32(1.0)))
    for c in range(d):
        g = min(max(coef * (cur[c] - other[c]), -CLIP), CLIP)
        cur[c] += g * alpha


@njit(cache=True, parallel=True)
def layout_epoch(Y, ref, self_embedding, indptr, indices, edge_keys, epochs_per_sample, next_sample, next_negative,
                 epochs_per_negative, a, b, gamma, alpha, epoch, seed, pulls):
    """Move every row of ``Y`` by its edges (CSR, pointing into ``ref``) due at
    ``epoch``: ``pulls`` attractive steps each, then the negative samples owed since
    the last visit, drawn from ``ref``. ``self_embedding``: ``ref`` is ``Y`` as it was
    at the start of the epoch (a point never repels itself); otherwise ``ref`` is a
    fixed embedding the rows of ``Y`` are placed in."""
    n_ref = ref.shape[0]
    a, b, gamma, alpha = np.float32(a), np.float32(b), np.float32(gamma), np.float32(alpha)
    for i in prange(Y.shape[0]):
        cur = Y[i]
        for e in range(indptr[i], indptr[i + 1]):
            if next_sample[e] > epoch:
                continue
            j = indices[e]
            for _ in range(pulls):
                _pull(cur, ref[j], a, b, alpha)
            next_sample[e] += epochs_per_sample[e]
            n_neg = int((epoch - next_negative[e]) / epochs_per_negative[e])
            for p in range(n_neg):
                k = random_index(seed, epoch, edge_keys[e], p, n_ref)
                if self_embedding and k == i:
                    continue
                _push(cur, ref[k], a, b, gamma, alpha)
            next_negative[e] += n_neg * epochs_per_negative[e]
