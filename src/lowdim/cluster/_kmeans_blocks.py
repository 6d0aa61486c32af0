"""What one row block does in a distributed k-means pass (runs on a worker).

Each function takes the raw block, the model's ``offset`` (column means) and small
driver-side arrays, and returns ``(block_state, small_result)``: the state (labels,
bounds, the block's cluster sums) stays on the worker for the next pass; only the
small result travels to the client.
"""

from dataclasses import dataclass

import numpy as np

from .._threads import blas_limit
from ..linalg import shifted_copy_with_norms
from ._lloyd import CHUNK, KMeansState, assign, bounded_start


def centered_block(block, offset, weights):
    """``block - offset`` in the block's dtype, squared row norms, and the weights
    (ones when None)."""
    Xc, norms = np.empty(block.shape, dtype=block.dtype), np.empty(block.shape[0])
    shifted_copy_with_norms(block, offset.astype(block.dtype), Xc, norms)
    w = np.ones(block.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    return Xc, norms, w


def sample_rows(block, start, weights, size, seed):
    """Up to ``size`` distinct rows of the block drawn uniformly, with their weights and
    global indices (the uniform sample k-means|| estimates its potential on).

    Examples
    --------
    >>> rows, w, idx = sample_rows(np.arange(10.0).reshape(5, 2), 10, None, 2, 0)
    >>> rows.shape, (idx >= 10).all()
    ((2, 2), np.True_)
    """
    n = block.shape[0]
    pick = np.sort(np.random.default_rng(seed).choice(n, size=min(size, n), replace=False))
    w = np.ones(pick.size) if weights is None else np.asarray(weights, dtype=np.float64)[pick]
    return np.asarray(block[pick], dtype=np.float64), w, pick + start


@dataclass
class CandidateState:
    """Per block during k-means||: distance to the nearest candidate and its index."""

    closest: np.ndarray
    owner: np.ndarray


def candidate_round(block, weights, state, offset, new, first_index, rate, seed):
    """One k-means|| round on a block: take the candidates ``new`` (centred, float64,
    numbered from ``first_index``) into account, then (``rate`` not None) sample rows
    with probability ``min(1, rate * w * d^2)``.

    Returns (CandidateState, (sampled rows centred in float64, weights per candidate
    owned by this block)).
    """
    Xc, x_sq, w = centered_block(block, offset, weights)
    if new.shape[0] == 0:  # the last round sampled nothing: distances stay as they are
        lab, dist = np.zeros(Xc.shape[0], dtype=np.int64), np.full(Xc.shape[0], np.inf)
    else:
        with blas_limit(1):
            lab, dist = assign(Xc, new, x_sq)
    if state is None:
        state = CandidateState(dist, lab + first_index)
    else:
        closer = dist < state.closest
        state = CandidateState(np.where(closer, dist, state.closest), np.where(closer, lab + first_index, state.owner))
    rows = np.empty((0, Xc.shape[1]))
    if rate is not None:
        u = np.random.default_rng(seed).random(Xc.shape[0])
        rows = Xc[u < np.minimum(1.0, rate * w * state.closest)].astype(np.float64)
    owned = np.bincount(state.owner, weights=w, minlength=first_index + new.shape[0])
    return state, (rows, owned)


@dataclass
class Geometry:
    """What every block needs to update its bounds: the new centres, how far each
    moved, half the distance of each to its nearest other, and centre-centre distances."""

    centers: np.ndarray
    shift: np.ndarray
    half: np.ndarray
    center_dist: np.ndarray


def _step(Xc, x_sq, w, state, geo, algorithm):
    """Move the block's state to ``geo.centers``: reassign (with bounds) and keep the
    block's cluster sums up to date by the rows that moved."""
    from .._kernels.kmeans import apply_moves, elkan_step, hamerly_pass, move_points

    if algorithm == "elkan":
        labels = state.labels.copy()  # the old labels are needed to move the sums
        elkan_step(Xc, geo.centers, geo.center_dist, geo.half, geo.shift, labels, state.upper, state.lower)
        changed = move_points(Xc, w, state.labels, labels, state.sums, state.wsum)
        state.labels = labels
        return int(changed)
    n, k = Xc.shape[0], geo.centers.shape[0]
    bounds = algorithm == "hamerly"
    moved, prev = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    n_moved = np.empty((n + CHUNK - 1) // CHUNK, dtype=np.int64)
    C = np.ascontiguousarray(geo.centers, dtype=Xc.dtype)
    hamerly_pass(
        Xc,
        x_sq,
        C,
        np.ascontiguousarray(C.T),
        np.einsum("ij,ij->i", geo.centers, geo.centers),
        geo.half if bounds else np.zeros(k),
        geo.shift if bounds else np.zeros(k),
        state.labels,
        state.upper,
        state.lower,
        bounds,
        CHUNK,
        8 * np.finfo(Xc.dtype).eps,
        moved,
        prev,
        n_moved,
    )
    return int(apply_moves(Xc, w, moved, prev, state.labels, n_moved, CHUNK, state.sums, state.wsum))


def lloyd_pass(block, weights, state, offset, geo, algorithm, n_far):
    """One k-means pass on a block: assign to ``geo.centers`` (from scratch when
    ``state`` is None), update the block's sums.

    Returns (KMeansState, (sums, weights per cluster, rows that changed cluster, exact
    inertia of the assignment, the ``n_far`` rows farthest from their centre with
    their squared distances)). The far rows are for relocating empty clusters.
    """
    from .._kernels.kmeans import point_distances

    Xc, x_sq, w = centered_block(block, offset, weights)
    if state is not None:  # never change a task's input: a retried task would see it changed
        state = KMeansState(
            None,
            state.labels.copy(),
            state.sums.copy(),
            state.wsum.copy(),
            False,
            state.upper.copy(),
            state.lower.copy(),
        )
    with blas_limit(1):
        if state is None:
            state = bounded_start(Xc, w, geo.centers, x_sq, algorithm)
            changed = Xc.shape[0]
        else:
            changed = _step(Xc, x_sq, w, state, geo, algorithm)
    dist = np.empty(Xc.shape[0])
    point_distances(Xc, geo.centers, state.labels, dist)
    far = np.argsort(-dist, kind="stable")[:n_far]
    state.centers = None  # the driver keeps the centres
    return state, (
        state.sums.copy(),
        state.wsum.copy(),
        changed,
        float(w @ dist**2),
        (Xc[far].astype(np.float64), dist[far] ** 2),
    )


def block_labels(state):
    """The labels a block state holds (fetched once, at the end of a fit)."""
    return state.labels
