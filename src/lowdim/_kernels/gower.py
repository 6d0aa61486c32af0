"""Gower's distance between mixed rows, one block of pairs at a time."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def gower_block(Q, X, categorical, scale, weights, out):
    """Gower distances from the rows of ``Q`` to those of ``X`` into ``out`` (m, n).

    Per column j: a number's (or an ordinal's rank's) absolute difference times
    ``scale[j]`` (one over its range); for ``categorical[j]``, 0 when the codes agree
    and 1 otherwise. The distance is the ``weights``-weighted mean over the columns
    present (not NaN) in both rows; a pair sharing no column gets NaN."""
    m, d = Q.shape
    n = X.shape[0]
    for i in prange(m):
        q = Q[i]
        for r in range(n):
            x = X[r]
            total = 0.0
            weight = 0.0
            for j in range(d):
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
            out[i, r] = total / weight if weight > 0.0 else np.nan
