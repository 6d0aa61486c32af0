"""DBSCAN's steps over eps-neighbourhoods held as CSR arrays (``indptr``, ``indices``):
each point's neighbour weight, and the labels by union-find over the core points."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def neighbour_weights(indptr, indices, weights):
    """The summed weight of each point's neighbourhood (itself included where listed)."""
    n = indptr.size - 1
    out = np.zeros(n)
    for i in prange(n):
        total = 0.0
        for t in range(indptr[i], indptr[i + 1]):
            total += weights[indices[t]]
        out[i] = total
    return out


@njit(cache=True)
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]  # path halving
        i = parent[i]
    return i


@njit(cache=True)
def dbscan_labels(indptr, indices, core):
    """Labels: the core points' connected parts numbered by their first row (each part's
    root is its smallest row), a border point in the lowest-numbered part among its core
    neighbours, -1 for noise."""
    n = core.size
    parent = np.arange(n)
    for i in range(n):
        if not core[i]:
            continue
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            if core[j]:
                a, b = _root(parent, i), _root(parent, j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    labels = np.full(n, -1, dtype=np.int64)
    label_of = np.full(n, -1, dtype=np.int64)
    count = 0
    for i in range(n):
        if core[i]:
            r = _root(parent, i)
            if label_of[r] < 0:
                label_of[r] = count
                count += 1
            labels[i] = label_of[r]
    for i in range(n):
        if core[i]:
            continue
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            if core[j] and (labels[i] < 0 or labels[j] < labels[i]):
                labels[i] = labels[j]
    return labels
