"""PaCMAP's three kinds of pairs (Wang et al., JMLR 2021, section 5), each as an
(n, k) int32 array of partners per row (-1: none)."""

import numpy as np

from ..neighbors import positive_scales

MID_NEAR_CANDIDATES = 6  # a mid-near partner is the second closest of six random points
EXTRA_NEIGHBORS = 50  # near partners are chosen among the n_neighbors + 50 nearest


def local_scales(distances, *, skip_copies=False):
    """Each point's scale sigma: its mean distance to the 4th-6th nearest neighbours
    (fewer columns: the farthest ones there are).

    With ``skip_copies`` the neighbours at distance 0 (copies of the row) are passed
    over, so that a duplicated row keeps the scale of its neighbourhood instead of
    1e-10, which would make every scaled distance from it astronomical; a row whose
    listed neighbours are all copies takes the median scale of the others.

    Examples
    --------
    >>> d = np.array([[0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]])
    >>> local_scales(d).tolist(), local_scales(d, skip_copies=True).tolist()
    ([3.0], [5.0])
    """
    m = distances.shape[1]
    if not skip_copies:
        lo, hi = (3, 6) if m >= 6 else (max(m - 1, 0), m)
        return np.maximum(distances[:, lo:hi].mean(axis=1), 1e-10)
    copies = np.sum(distances <= 0, axis=1)  # sorted rows: the copies come first
    columns = np.where((m - copies >= 6)[:, None], copies[:, None] + np.arange(3, 6), m - 1)
    return positive_scales(np.take_along_axis(distances, np.minimum(columns, m - 1), axis=1).mean(axis=1))


def near_partners(distances, indices, k, scales, partner_scales):
    """The ``k`` partners of smallest scaled distance ``d^2 / (sigma_i sigma_j)`` among
    each row's nearest neighbours (``distances``, ``indices``: sorted, self excluded)."""
    scaled = distances.astype(np.float64) ** 2 / (scales[:, None] * partner_scales[indices])
    order = np.argsort(scaled, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(indices, order, axis=1).astype(np.int32)


def random_others(rng, n_rows, n_pool, size, exclude_self):
    """Random rows of a pool of ``n_pool``, shape (n_rows, *size); with ``exclude_self``
    row i never draws i (the pool is the rows themselves)."""
    if not exclude_self:
        return rng.integers(0, n_pool, size=(n_rows, *size)).astype(np.int32)
    draws = rng.integers(0, n_pool - 1, size=(n_rows, *size))
    rows = np.arange(n_rows).reshape((n_rows,) + (1,) * len(size))
    return (draws + (draws >= rows)).astype(np.int32)


def mid_near_partners(X, k, rng, candidate_distances=None):
    """``k`` mid-near partners per row: each the second closest of six random others,
    in Euclidean distance or by ``candidate_distances(X, candidates)`` ((n, c) distances
    to (n, c) candidate rows: a ``GowerIndex``'s)."""
    n = X.shape[0]
    if k == 0 or n < 3:
        return np.full((n, max(k, 0)), -1, dtype=np.int32)
    candidates = random_others(rng, n, n, (k, min(MID_NEAR_CANDIDATES, n - 1)), True)
    if candidate_distances is None:
        from .._kernels.pacmap import second_closest

        return second_closest(X, X, candidates)
    D = candidate_distances(X, candidates.reshape(n, -1)).reshape(candidates.shape)
    second = np.argsort(D, axis=2, kind="stable")[:, :, min(1, candidates.shape[2] - 1)]
    return np.take_along_axis(candidates, second[:, :, None], axis=2)[:, :, 0]


def further_partners(near, k, rng):
    """``k`` random other rows per row that are not its near partners."""
    n = near.shape[0]
    if k == 0:
        return np.full((n, 0), -1, dtype=np.int32)
    spare = 2 * k + 16  # enough draws that k of them miss the near partners
    candidates = random_others(rng, n, n, (spare,), n > 1)
    from .._kernels.pacmap import first_not_near

    return first_not_near(candidates, near, k, True)


def rows_from_pairs(pairs, n, name):
    """Given (n_pairs, 2) pairs (the pacmap package's layout), each row's partners as
    an (n, k) array padded with -1."""
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"{name} must be an (n_pairs, 2) integer array of row pairs; got shape {pairs.shape}.")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n):
        raise ValueError(f"{name} refers to rows outside 0..{n - 1}; got {pairs.min()}..{pairs.max()}.")
    counts = np.bincount(pairs[:, 0], minlength=n)
    out = np.full((n, int(counts.max(initial=0))), -1, dtype=np.int32)
    order = np.argsort(pairs[:, 0], kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(len(order)) - np.repeat(starts, counts)
    out[pairs[order, 0], slot] = pairs[order, 1]
    return out


def pairs_from_rows(partners):
    """(n_pairs, 2) pairs from per-row partners (the -1 padding dropped)."""
    rows = np.repeat(np.arange(partners.shape[0], dtype=np.int32), partners.shape[1])
    flat = partners.ravel()
    keep = flat >= 0
    return np.column_stack([rows[keep], flat[keep]])
