"""k-means of a dask array: k-means|| seeding and Lloyd / Hamerly / Elkan iterations as
map-reduce over row blocks.

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
from .._random import check_random_state
from .._validation import check_array, warn_constant_features
from ..cluster._base import CLUSTER_NOTE, check_n_clusters, warn_fewer_clusters
from ..cluster._kmeans import resolve_algorithm
from ..cluster._kmeans_init import kmeans_plusplus, random_rows, reduce_candidates
from ..cluster._lloyd import _centre_geometry, assign
from . import _block_moments as bm
from . import _kmeans_blocks as kb
from ._arrays import check_dask_array, compute
from ._runner import BlockPasses

SAMPLE_ROWS = 20_000


def _summary_leaf(block, weights, state, size, start, seed):
    return None, (bm.block_variances(block, start), kb.sample_rows(block, start, weights, size, seed))


def first_pass(runner, rng):
    """Column moments (n, mean, sum of squared deviations) and a uniform row sample."""
    n = runner.n_samples
    total = min(SAMPLE_ROWS, max(n // 8, min(n, 2_000)))  # at most an eighth of large data
    sizes = [int(np.ceil(total * size / n)) for size in runner.sizes]
    extra = [(size, start, seed) for size, start, (seed,) in zip(sizes, runner.starts, runner.seeds(rng))]
    _, smalls = runner.run(_summary_leaf, [None] * len(runner), per_block=extra)
    moments = bm.merge_variances([m for m, _ in smalls])
    rows, w, _ = (np.concatenate(parts) for parts in zip(*[s for _, s in smalls]))
    return moments, rows, w


def _potential(S, sw, n_total, candidates):
    """Estimated k-means|| potential ``sum_i w_i d^2(x_i, C)`` from the sample ``S``."""
    s_sq = np.einsum("ij,ij->i", S, S)
    return float(sw @ assign(S, candidates, s_sq)[1]) * n_total / S.shape[0]


def kmeans_parallel(runner, offset, S, sw, n_clusters, rng, rounds=5, oversampling=2.0):
    """k-means|| over the blocks: each round one pass; the last pass only counts how
    many points each candidate is nearest to. Returns the starting centres (centred)."""
    cumulative = np.cumsum(sw)
    first = S[min(np.searchsorted(cumulative, rng.random() * cumulative[-1]), S.shape[0] - 1)]
    candidates, new = first[None, :], first[None, :]
    states, owned = [None] * len(runner), None
    for r in range(rounds + 1):
        phi = _potential(S, sw, runner.n_samples, candidates) if r < rounds else 0.0
        rate = oversampling * n_clusters / phi if phi > 0 else None
        first_index = candidates.shape[0] - new.shape[0]
        per_block = [(offset, new, first_index, rate, seed) for (seed,) in runner.seeds(rng)]
        states, smalls = runner.run(kb.candidate_round, states, per_block=per_block)
        owned = np.sum([o for _, o in smalls], axis=0)
        new = np.concatenate([rows for rows, _ in smalls])
        candidates = np.vstack([candidates, new])
    if candidates.shape[0] < n_clusters:  # too few candidates: k-means++ on the sample
        return kmeans_plusplus(S, n_clusters, rng, weights=sw, x_sq=np.einsum("ij,ij->i", S, S))[0]
    return reduce_candidates(candidates, owned, n_clusters, rng)


@dataclass
class PassResult:
    """What the client keeps between passes: the centres assigned to, the persisted
    block states, and the merged small results of the pass."""

    centres: np.ndarray
    block_states: list
    sums: np.ndarray
    wsum: np.ndarray
    changed: int
    inertia: float
    far_rows: np.ndarray
    far_dist: np.ndarray


def _assign_pass(runner, offset, states, geo, algorithm):
    n_far = min(geo.centres.shape[0], 16)
    states, smalls = runner.run(kb.lloyd_pass, states, offset, geo, algorithm, n_far)
    sums, wsum, changed, inertia, far = zip(*smalls)
    rows, dist = (np.concatenate(p) for p in zip(*far))
    return PassResult(geo.centres, states, np.sum(sums, axis=0), np.sum(wsum, axis=0),
                      int(sum(changed)), float(sum(inertia)), rows, dist)


def _next_centres(res):
    """Weighted means of the clusters; an empty cluster takes the farthest row seen."""
    new = res.centres.copy()
    full = res.wsum > 0
    new[full] = res.sums[full] / res.wsum[full, None]
    empty = np.flatnonzero(~full)
    order = np.argsort(-res.far_dist, kind="stable")
    for c, i in zip(empty, order):
        new[c] = res.far_rows[i]
    return new


def lloyd(runner, offset, centres, *, algorithm, max_iter, tol, callbacks, verbose):
    """k-means iterations over the blocks from ``centres`` (centred, float64)."""
    k = centres.shape[0]
    geo = kb.Geometry(centres, np.zeros(k), np.zeros(k), np.zeros((k, k)))
    start = _assign_pass(runner, offset, [None] * len(runner), geo, algorithm)

    def step(res):
        new = _next_centres(res)
        shift = np.sqrt(np.sum((new - res.centres) ** 2, axis=1))
        cd, half = _centre_geometry(new)
        res = _assign_pass(runner, offset, res.block_states, kb.Geometry(new, shift, half, cd), algorithm)
        return res, res.inertia, 0.0 if res.changed == 0 else float(np.sum(shift**2))

    return run_loop(step, start, max_iter=max_iter, tol=tol, callbacks=callbacks, verbose=verbose,
                    label=f"KMeans ({algorithm}, dask)")


def _start(km, runner, S, sw, rng):
    init = km.init
    if callable(init):
        raise TypeError("a callable init needs the data in memory; on a dask array use "
                        "'k-means||' (or 'k-means++', which runs as it), 'random' or an array.")
    if not isinstance(init, str):
        C = check_array(init, name="init", estimator_name=type(km).__name__)
        if C.shape != (km.n_clusters, S.shape[1]):
            raise ValueError(f"init has shape {C.shape}; it must be (n_clusters, n_features) = "
                             f"({km.n_clusters}, {S.shape[1]}).")
        return C.astype(np.float64) - km.offset_
    if init == "random":
        return random_rows(S, km.n_clusters, rng, weights=sw)
    return kmeans_parallel(runner, km.offset_, S, sw, km.n_clusters, rng)


def fit_kmeans(km, X, sample_weight=None):
    """Fit ``km`` (a ``lowdim.KMeans``) on the dask array ``X``.

    Fitted attributes are numpy arrays (``labels_`` too: 8 bytes per row, gathered
    once at the end). On a dask array 'k-means++' runs as 'k-means||', its scalable
    form: greedy k-means++ needs one pass per cluster.

    Examples
    --------
    >>> import dask.array as da
    >>> from lowdim import KMeans
    >>> X = da.concatenate([da.zeros((50, 2)), da.ones((50, 2)) * 9]).rechunk(25)
    >>> km = fit_kmeans(KMeans(n_clusters=2, random_state=0), X)
    >>> np.sort(km.cluster_centers_[:, 0]).tolist(), km.labels_.shape
    ([0.0, 9.0], (100,))
    """
    name = type(km).__name__
    X = check_dask_array(X, name)
    n, d = X.shape
    check_n_clusters(km.n_clusters, n)
    runner = BlockPasses(X, sample_weight)
    rng = check_random_state(km.random_state)
    (_, mean, ss), sample, sw = first_pass(runner, rng)
    var = ss / max(n - 1, 1)
    warn_constant_features(var, name, CLUSTER_NOTE)
    km.offset_ = mean.astype(X.dtype).astype(np.float64)
    S = sample - km.offset_
    mean_var = float(np.mean(var) * (n - 1) / n)
    km.algorithm_ = resolve_algorithm(km.algorithm, km.n_clusters, d)
    km.n_init_ = km._resolve_n_init()

    def run_once(rng):
        return lloyd(runner, km.offset_, _start(km, runner, S, sw, rng), algorithm=km.algorithm_,
                     max_iter=km.max_iter, tol=km.tol * mean_var, callbacks=km.callbacks or (),
                     verbose=km.verbose)

    best = best_of_restarts(run_once, km.n_init_, rng)
    km.n_features_in_ = d
    km._store_centres(best.state.centres, X.dtype)
    km.labels_ = fetch_labels(best.state.block_states)
    km.inertia_, km.n_iter_ = best.state.inertia, int(best.n_iter)
    warn_fewer_clusters(km.cluster_centers_, km.n_clusters, name)
    return km


def fetch_labels(states):
    """The labels held by the block states, in row order (int64)."""
    import dask

    return np.concatenate(compute(*[dask.delayed(kb.block_labels)(s) for s in states]))

