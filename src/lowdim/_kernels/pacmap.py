"""PaCMAP's kernels (Wang, Huang, Rudin & Shaposhnik, JMLR 2021): the pair losses'
gradient, Adam steps, and the distance work of choosing mid-near and further pairs.

Every pair (i, j) pulls or pushes both ends with a force that depends on
``d = 1 + |y_i - y_j|^2``: near pairs ``w d / (10 + d)``, mid-near pairs
``w d / (10000 + d)``, further pairs ``w / (1 + d)``. The gradient is summed in a fixed
number of row chunks, each into its own buffer, and the buffers are added in order: the
result does not depend on the number of threads.
"""

import numpy as np
from numba import njit

from .._threads import LIGHT_ROWS, in_row_ranges

CHUNKS = 8  # gradient buffers; any thread count gives the same sums
# Partners of a table with up to this many candidate entries (rows x candidates x
# features, or x near partners) are chosen by numpy, in the kernels' arithmetic: the
# same pairs without compiling two kernels for so small a choice.
SMALL_CHOICE = 1 << 24

# Each public function runs a serial kernel without the GIL over ranges of rows (or of
# gradient chunks) that in_row_ranges spreads over threads: a prange loop would cost
# the compiler about a second more per kernel on a first call.


@njit(cache=True, inline="always")
def _kind(kind, near, mid, far, w_near, w_mid, w_far):
    """The partners of one kind of pair and the constants of its force: d(loss)/d(y_i)
    is ``w num / (shift + d)^2`` times (y_i - y_j), d = 1 + |y_i - y_j|^2 (near:
    w d / (10 + d); mid-near: w d / (10000 + d); further: w / (1 + d), a push)."""
    if kind == 0:
        return near, w_near, 20.0, 10.0
    if kind == 1:
        return mid, w_mid, 20000.0, 10000.0
    return far, -w_far, 2.0, 1.0


@njit(cache=True, inline="always")
def _force(Y, i, Z, j, w, num, shift):
    """The force between row i of ``Y`` and row j of ``Z`` over their difference, for
    one kind of pair's constants (``_kind``)."""
    d = 1.0
    for c in range(Y.shape[1]):
        diff = Y[i, c] - Z[j, c]
        d += diff * diff
    return w * num / ((shift + d) * (shift + d))


def pair_gradient(Y, near, mid, far, w_near, w_mid, w_far, buffers):
    """The gradient of the three pair losses at ``Y`` in ``CHUNKS`` parts: ``buffers``
    (CHUNKS, n, dim), of ``Y``'s dtype, whose sum in order is the gradient
    (``adam_step`` adds them up as it steps).

    ``near``, ``mid``, ``far``: (n, k) int32 partners of each row (-1: none).
    """
    pairs = (Y, near, mid, far, w_near, w_mid, w_far, buffers)
    in_row_ranges("pacmap", 0, buffers.shape[0], lambda a, b: _chunk_gradients(*pairs, a, b), per_thread=1)


@njit(cache=True, nogil=True)
def _chunk_gradients(Y, near, mid, far, w_near, w_mid, w_far, buffers, first, end):
    """Chunks ``first..end`` of the gradient, each into its buffer. One loop body for
    the three kinds of pairs, their force's constants set per kind (``_kind``): three
    inlined copies took the compiler twice as long."""
    n, dim = Y.shape
    chunks = buffers.shape[0]
    for t in range(first, end):
        G = buffers[t]
        G[:] = 0.0
        for i in range(t * n // chunks, (t + 1) * n // chunks):
            for kind in range(3):
                pairs, w, num, shift = _kind(kind, near, mid, far, w_near, w_mid, w_far)
                if w == 0.0:
                    continue
                for a in range(pairs.shape[1]):
                    j = pairs[i, a]
                    if j < 0:
                        continue
                    s = _force(Y, i, Y, j, w, num, shift)
                    for c in range(dim):
                        g = s * (Y[i, c] - Y[j, c])
                        G[i, c] += g
                        G[j, c] -= g


def anchored_gradient(Y, reference, near, mid, far, w_near, w_mid, w_far, out):
    """The gradient for new points ``Y`` whose partners are fixed rows of
    ``reference`` (``transform``): only the new points move, so each row owns its sum."""
    args = (Y, reference, near, mid, far, w_near, w_mid, w_far, out)
    in_row_ranges("pacmap", 0, Y.shape[0], lambda a, b: _anchored_rows(*args, a, b), per_thread=1)


@njit(cache=True, nogil=True)
def _anchored_rows(Y, reference, near, mid, far, w_near, w_mid, w_far, out, lo, hi):
    dim = Y.shape[1]
    for i in range(lo, hi):
        for c in range(dim):
            out[i, c] = 0.0
        for kind in range(3):
            pairs, w, num, shift = _kind(kind, near, mid, far, w_near, w_mid, w_far)
            if w == 0.0:
                continue
            for a in range(pairs.shape[1]):
                j = pairs[i, a]
                if j < 0:
                    continue
                s = _force(Y, i, reference, j, w, num, shift)
                for c in range(dim):
                    out[i, c] += s * (Y[i, c] - reference[j, c])


def adam_step(Y, parts, m, v, lr, beta1, beta2, eps, step):
    """One Adam update of ``Y`` in place (``step`` counts from 1, for bias correction)
    by the gradient given as ``parts`` (P, n, dim), added in order in float64 and
    rounded to their dtype (P = 1: the gradient itself); ``parts[0]`` is left holding
    the gradient. Summing the parts here spares a pass, and a kernel to compile."""
    rate = lr * np.sqrt(1.0 - beta2**step) / (1.0 - beta1**step)
    args = (Y, parts, m, v, rate, beta1, beta2, eps)
    in_row_ranges("pacmap", 0, Y.shape[0], lambda a, b: _adam_rows(*args, a, b), per_thread=1, min_size=LIGHT_ROWS)


@njit(cache=True, nogil=True)
def _adam_rows(Y, parts, m, v, rate, beta1, beta2, eps, lo, hi):
    for i in range(lo, hi):
        for c in range(Y.shape[1]):
            s = 0.0
            for t in range(parts.shape[0]):
                s += parts[t, i, c]
            parts[0, i, c] = s
            g = parts[0, i, c]  # the sum in the parts' dtype, as a gradient array holds it
            m[i, c] = beta1 * m[i, c] + (1.0 - beta1) * g
            v[i, c] = beta2 * v[i, c] + (1.0 - beta2) * g * g
            Y[i, c] -= rate * m[i, c] / (np.sqrt(v[i, c]) + eps)


@njit(cache=True, inline="always")
def _sq_distance(X, i, Z, j):
    s = 0.0
    for c in range(X.shape[1]):
        diff = X[i, c] - Z[j, c]
        s += diff * diff
    return s


def second_closest(X, Z, candidates):
    """For each row i of ``X`` and each group of candidate rows of ``Z``
    (``candidates``: (n, groups, size)), the candidate second closest to row i: the
    mid-near partner of PaCMAP (the second closest of six random points).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [6.0]])
    >>> second_closest(X[:2], X, np.array([[[1, 2, 3]], [[0, 3, 2]]])).tolist()
    [[2], [2]]
    """
    if candidates.size * X.shape[1] <= SMALL_CHOICE:
        return _second_closest_numpy(X, Z, candidates)
    out = np.empty(candidates.shape[:2], dtype=np.int32)
    in_row_ranges(
        "pacmap", 0, candidates.shape[0], lambda a, b: _second_closest_rows(X, Z, candidates, out, a, b), per_thread=1
    )
    return out


def _second_closest_numpy(X, Z, candidates):
    """``second_closest`` in numpy: each distance summed column by column in float64
    from the rows' own differences and squares (the kernel's sum, to the bit), the
    second of a stable sort (ties in candidate order, as the kernel keeps them)."""
    n, groups, size = candidates.shape
    flat = candidates.reshape(n, -1)
    sq = np.zeros(flat.shape)
    XT, ZT = np.ascontiguousarray(X.T), np.ascontiguousarray(Z.T)  # columns read whole
    for c in range(X.shape[1]):
        diff = XT[c, :, None] - ZT[c][flat]
        sq += diff * diff
    second = np.argsort(sq.reshape(candidates.shape), axis=2, kind="stable")[:, :, min(1, size - 1)]
    return np.take_along_axis(candidates, second[:, :, None], axis=2)[:, :, 0].astype(np.int32)


@njit(cache=True, nogil=True)
def _second_closest_rows(X, Z, candidates, out, lo, hi):
    groups, size = candidates.shape[1], candidates.shape[2]
    for i in range(lo, hi):
        for g in range(groups):
            best, second = np.inf, np.inf
            best_j, second_j = -1, -1
            for a in range(size):
                j = candidates[i, g, a]
                d = _sq_distance(X, i, Z, j)
                if d < best:
                    second, second_j = best, best_j
                    best, best_j = d, j
                elif d < second:
                    second, second_j = d, j
            out[i, g] = second_j if second_j >= 0 else best_j


def first_not_near(candidates, near, count, self_excluded):
    """For each row, the first ``count`` candidates that are not among its near
    partners (nor the row itself when ``self_excluded``), -1 where too few remain.

    Examples
    --------
    >>> first_not_near(np.array([[0, 2, 2, 3, 4]]), np.array([[3]]), 3, True).tolist()
    [[2, 4, -1]]
    """
    if candidates.size * near.shape[1] <= SMALL_CHOICE:
        return _first_not_near_numpy(candidates, near, count, self_excluded)
    out = np.full((candidates.shape[0], count), -1, dtype=np.int32)
    run = lambda a, b: _first_not_near_rows(candidates, near, count, self_excluded, out, a, b)  # noqa: E731
    in_row_ranges("pacmap", 0, candidates.shape[0], run, per_thread=1)
    return out


def _first_not_near_numpy(candidates, near, count, self_excluded):
    """``first_not_near`` in numpy: a candidate is kept unless it is a near partner,
    the row itself, or a repeat of an earlier candidate of its row (the kernel skips
    a repeat because the first one was taken, or left it out for the same reason)."""
    n, width = candidates.shape
    keep = np.ones(candidates.shape, dtype=bool)
    for b in range(near.shape[1]):
        keep &= candidates != near[:, b, None]
    if self_excluded:
        keep &= candidates != np.arange(n)[:, None]
    # each row's (value, place) keys sorted: a value's first place comes first
    values, places = np.divmod(np.sort(candidates * np.int64(width) + np.arange(width), axis=1), width)
    repeat = np.zeros_like(keep)
    repeat[np.arange(n)[:, None], places[:, 1:]] = values[:, 1:] == values[:, :-1]
    keep &= ~repeat
    place = np.cumsum(keep, axis=1) - 1
    rows, cols = np.nonzero(keep & (place < count))
    out = np.full((n, count), -1, dtype=np.int32)
    out[rows, place[rows, cols]] = candidates[rows, cols]
    return out


@njit(cache=True, nogil=True)
def _first_not_near_rows(candidates, near, count, self_excluded, out, lo, hi):
    for i in range(lo, hi):
        taken = 0
        for a in range(candidates.shape[1]):
            if taken == count:
                break
            j = candidates[i, a]
            if self_excluded and j == i:
                continue
            clash = False
            for b in range(near.shape[1]):
                if near[i, b] == j:
                    clash = True
                    break
            for b in range(taken):
                if out[i, b] == j:
                    clash = True
                    break
            if not clash:
                out[i, taken] = j
                taken += 1
