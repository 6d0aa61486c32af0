"""k-prototypes kernels: the cost of a row to a prototype (squared Euclidean distance on
the numbers plus gamma times the categories that differ), gaps skipped."""

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _cost(xn, xc, cn, cc, gamma):
    s = 0.0
    for j in range(xn.shape[0]):
        a = xn[j]
        if not np.isnan(a):
            t = a - cn[j]
            s += t * t
    m = 0
    for j in range(xc.shape[0]):
        if xc[j] >= 0 and xc[j] != cc[j]:
            m += 1
    return s + gamma * m


@njit(cache=True, parallel=True)
def assign_prototypes(Xn, Xc, Cn, Cc, gamma, labels, costs):
    """Each row's cheapest prototype (the first on a tie) into ``labels`` and its cost
    into ``costs``. ``Xc`` holds category codes, -1 for a gap (NaN in ``Xn``)."""
    for i in prange(Xn.shape[0]):
        best = np.inf
        b = 0
        for k in range(Cn.shape[0]):
            c = _cost(Xn[i], Xc[i], Cn[k], Cc[k], gamma)
            if c < best:
                best = c
                b = k
        labels[i] = b
        costs[i] = best


@njit(cache=True, parallel=True)
def lower_costs(Xn, Xc, cn, cc, gamma, costs):
    """``costs = min(costs, cost to the prototype (cn, cc))`` row by row (seeding)."""
    for i in prange(Xn.shape[0]):
        c = _cost(Xn[i], Xc[i], cn, cc, gamma)
        if c < costs[i]:
            costs[i] = c
