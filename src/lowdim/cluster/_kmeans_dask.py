"""k-means of a dask array: k-means|| seeding and Lloyd / Hamerly / Elkan iterations as
map-reduce over row blocks (the backend ``KMeans.fit`` calls for dask input).

Passes over the data: one for the column moments and a uniform sample of up to
20,000 rows (an eighth of the data at most, once it has 16,000 rows);
k-means|| takes ``rounds + 1`` (its potential is estimated on the sample, so that each
round samples and updates distances in the same pass); then one per iteration. The
per-block state (labels, bounds, the block's cluster sums) stays on the workers
between passes; the client holds centres, sums and the sample.
"""

from dataclasses import dataclass

import numpy as np

from .._iterative import best_of_restarts, run_loop
from ..distributed import BlockPasses, compute
from ..linalg import block_variances, merge_variances
from . import _kmeans_blocks as kb
from ._kmeans_init import kmeans_plusplus, parallel_seeding, random_partition, random_rows
from ._lloyd import assign, center_geometry

SAMPLE_ROWS = 20_000


def _summary_leaf(block, weights, state, size, start, seed):
    return None, (block_variances(block, start), kb.sample_rows(block, start, weights, size, seed))


def first_pass(runner, rng):
    """Column moments (n, mean, sum of squared deviations) and a uniform row sample."""
    n = runner.n_samples
    total = min(SAMPLE_ROWS, max(n // 8, min(n, 2_000)))  # at most an eighth of large data
    sizes = [int(np.ceil(total * size / n)) for size in runner.sizes]
    extra = [(size, start, seed) for size, start, (seed,) in zip(sizes, runner.starts, runner.seeds(rng))]
    _, smalls = runner.run(_summary_leaf, [None] * len(runner), per_block=extra)
    moments = merge_variances([m for m, _ in smalls])
    rows, w, _ = (np.concatenate(parts) for parts in zip(*[s for _, s in smalls]))
    return moments, rows, w


def _potential(S, sw, n_total, candidates):
    """Estimated k-means|| potential ``sum_i w_i d^2(x_i, C)`` from the sample ``S``."""
    s_sq = np.einsum("ij,ij->i", S, S)
    return float(sw @ assign(S, candidates, s_sq)[1]) * n_total / S.shape[0]


def kmeans_parallel(runner, offset, S, sw, n_clusters, rng, rounds=5, oversampling=2.0):
    """k-means|| over the blocks (``parallel_seeding``), each round one pass that also
    updates the distances; the potential that sets the sampling rate is estimated on
    the sample ``S`` before the pass. Returns the starting centres (centred)."""
    cumulative = np.cumsum(sw)
    first = S[min(np.searchsorted(cumulative, rng.random() * cumulative[-1]), S.shape[0] - 1)][None, :]
    states = [None] * len(runner)

    def round_pass(candidates, new, ell, rng):
        nonlocal states
        phi = _potential(S, sw, runner.n_samples, candidates) if ell > 0 else 0.0
        rate = ell / phi if phi > 0 else None
        first_index = candidates.shape[0] - new.shape[0]
        per_block = [(offset, new, first_index, rate, seed) for (seed,) in runner.seeds(rng)]
        states, smalls = runner.run(kb.candidate_round, states, per_block=per_block)
        sampled = np.concatenate([rows for rows, _ in smalls])
        return sampled, np.sum([owned for _, owned in smalls], axis=0)

    return parallel_seeding(
        round_pass,
        first,
        n_clusters,
        rng,
        rounds=rounds,
        oversampling=oversampling,
        too_few=lambda: kmeans_plusplus(S, n_clusters, rng, weights=sw, x_sq=np.einsum("ij,ij->i", S, S))[0],
    )


@dataclass
class PassResult:
    """What the client keeps between passes: the centres assigned to, the persisted
    block states, and the merged small results of the pass."""

    centers: np.ndarray
    block_states: list
    sums: np.ndarray
    wsum: np.ndarray
    changed: int
    inertia: float
    far_rows: np.ndarray
    far_dist: np.ndarray


def _assign_pass(runner, offset, states, geo, algorithm):
    n_far = min(geo.centers.shape[0], 16)
    states, smalls = runner.run(kb.lloyd_pass, states, offset, geo, algorithm, n_far)
    sums, wsum, changed, inertia, far = zip(*smalls)
    rows, dist = (np.concatenate(p) for p in zip(*far))
    return PassResult(
        geo.centers,
        states,
        np.sum(sums, axis=0),
        np.sum(wsum, axis=0),
        int(sum(changed)),
        float(sum(inertia)),
        rows,
        dist,
    )


def _next_centers(res):
    """Weighted means of the clusters; an empty cluster takes the farthest row seen."""
    new = res.centers.copy()
    full = res.wsum > 0
    new[full] = res.sums[full] / res.wsum[full, None]
    empty = np.flatnonzero(~full)
    order = np.argsort(-res.far_dist, kind="stable")
    for c, i in zip(empty, order):
        new[c] = res.far_rows[i]
    return new


def lloyd(runner, offset, centers, *, algorithm, max_iter, tol, callbacks, verbose):
    """k-means iterations over the blocks from ``centers`` (centred, float64)."""
    k = centers.shape[0]
    geo = kb.Geometry(centers, np.zeros(k), np.zeros(k), np.zeros((k, k)))
    start = _assign_pass(runner, offset, [None] * len(runner), geo, algorithm)

    def step(res):
        new = _next_centers(res)
        shift = np.sqrt(np.sum((new - res.centers) ** 2, axis=1))
        cd, half = center_geometry(new)
        res = _assign_pass(runner, offset, res.block_states, kb.Geometry(new, shift, half, cd), algorithm)
        return res, res.inertia, 0.0 if res.changed == 0 else float(np.sum(shift**2))

    return run_loop(
        step,
        start,
        max_iter=max_iter,
        tol=tol,
        callbacks=callbacks,
        verbose=verbose,
        label=f"KMeans ({algorithm}, dask)",
    )


def _start(init, runner, offset, S, sw, n_clusters, rng):
    """Starting centres (centred) for an ``init`` already checked by the estimator."""
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.float64) - offset
    if init == "random":
        return random_rows(S, n_clusters, rng, weights=sw)
    if init == "random-partition":  # the means of a random partition of the sample: near the data's mean
        return random_partition(S, n_clusters, rng, weights=sw)
    return kmeans_parallel(runner, offset, S, sw, n_clusters, rng)


@dataclass
class DaskKMeansFit:
    """What k-means of a dask array found: the column means it centred on, the centres
    in those coordinates (float64), and the best run's labels, inertia and iterations."""

    offset: np.ndarray
    variances: np.ndarray
    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int


def dask_kmeans(X, sample_weight, *, n_clusters, init, algorithm, n_init, max_iter, tol, rng, callbacks=(), verbose=0):
    """k-means of the dask array ``X`` (checked by the caller) over its row blocks.

    ``init`` is 'k-means||' (what 'k-means++' runs as here: greedy k-means++ needs one
    pass per cluster), 'random' or a (n_clusters, d) array; ``tol`` is relative to the
    mean column variance, as the estimator's; ``algorithm`` is resolved ('lloyd',
    'hamerly' or 'elkan'). Labels are gathered once at the end (8 bytes per row).

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.concatenate([da.zeros((50, 2)), da.ones((50, 2)) * 9]).rechunk(25)
    >>> fit = dask_kmeans(X, None, n_clusters=2, init="k-means||", algorithm="lloyd", n_init=1,
    ...                   max_iter=100, tol=1e-4, rng=np.random.default_rng(0))
    >>> np.sort((fit.centers + fit.offset)[:, 0]).tolist(), fit.labels.shape
    ([0.0, 9.0], (100,))
    """
    n = X.shape[0]
    runner = BlockPasses(X, sample_weight)
    (_, mean, ss), sample, sw = first_pass(runner, rng)
    variances = ss / max(n - 1, 1)
    offset = mean.astype(X.dtype).astype(np.float64)
    S = sample - offset
    mean_var = float(np.mean(variances) * (n - 1) / n)

    def run_once(rng):
        return lloyd(
            runner,
            offset,
            _start(init, runner, offset, S, sw, n_clusters, rng),
            algorithm=algorithm,
            max_iter=max_iter,
            tol=tol * mean_var,
            callbacks=callbacks,
            verbose=verbose,
        )

    best = best_of_restarts(run_once, n_init, rng)
    return DaskKMeansFit(
        offset,
        variances,
        best.state.centers,
        fetch_labels(best.state.block_states),
        best.state.inertia,
        int(best.n_iter),
    )


def fetch_labels(states):
    """The labels held by the block states, in row order (int64)."""
    import dask

    return np.concatenate(compute(*[dask.delayed(kb.block_labels)(s) for s in states]))
