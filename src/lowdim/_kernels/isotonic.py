"""Pool-adjacent-violators: the non-decreasing least-squares fit to a sequence."""

import numpy as np
from numba import njit


@njit(cache=True)
def pava(y, w):
    """Weighted isotonic (non-decreasing) regression of ``y`` in the given order."""
    n = y.shape[0]
    value = np.empty(n)
    weight = np.empty(n)
    count = np.empty(n, dtype=np.int64)
    top = 0
    for i in range(n):
        value[top] = y[i]
        weight[top] = w[i]
        count[top] = 1
        top += 1
        while top > 1 and value[top - 2] > value[top - 1]:
            total = weight[top - 2] + weight[top - 1]
            value[top - 2] = (value[top - 2] * weight[top - 2] + value[top - 1] * weight[top - 1]) / total
            weight[top - 2] = total
            count[top - 2] += count[top - 1]
            top -= 1
    out = np.empty(n)
    pos = 0
    for b in range(top):
        for _ in range(count[b]):
            out[pos] = value[b]
            pos += 1
    return out
