"""Initial centres for k-means: greedy k-means++, random rows (Forgy), random partition,
and k-means||."""

import numpy as np
import scipy.sparse as sp

from ..linalg import sq_euclidean
from ._lloyd import assign, kmeans_single


def _sample_by_potential(cumulative, rng, size):
    """Indices drawn with probability proportional to the increments of ``cumulative``."""
    draws = rng.random(size) * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, draws), len(cumulative) - 1)


def kmeans_plusplus(X, n_clusters, rng, *, weights, x_sq, n_local_trials=None, progress=False):
    """Greedy k-means++ (Arthur & Vassilvitskii, 2007): each new centre is the best of
    ``n_local_trials`` candidates drawn with probability proportional to the weighted
    squared distance to the nearest chosen centre.

    Parameters
    ----------
    X : ndarray (n, d)
    n_clusters : int
    rng : numpy.random.Generator
    weights : float64 (n,)
    x_sq : float64 (n,), squared row norms
    n_local_trials : int, optional
        Default ``2 + int(log(k))``.
    progress : bool, default=False
        A progress bar (tqdm, with an ETA) over the centres: each costs a pass over X.

    Returns
    -------
    centres : float64 (k, d)
    indices : int64 (k,), the rows chosen

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [10.0], [10.1]])
    >>> c, _ = kmeans_plusplus(X, 2, np.random.default_rng(0), weights=np.ones(4), x_sq=(X**2).ravel())
    >>> sorted((c.ravel() > 5).tolist())
    [False, True]
    """
    n = X.shape[0]
    trials = n_local_trials or 2 + int(np.log(n_clusters))
    chosen = np.empty(n_clusters, dtype=np.int64)
    chosen[0] = _sample_by_potential(np.cumsum(weights), rng, 1)[0]
    closest = sq_euclidean(X[chosen[:1]], X, x_sq[chosen[:1]], x_sq)[0].astype(np.float64)
    from .._progress import progress_bar

    for c in progress_bar(
        range(1, n_clusters), desc="k-means++ centres", unit="centre", disable=not progress, mininterval=0.5
    ):
        cumulative = np.cumsum(weights * closest)
        if cumulative[-1] <= 0:  # every point already on a centre: any point will do
            candidates = rng.choice(n, size=min(trials, n), replace=False)
        else:
            candidates = _sample_by_potential(cumulative, rng, trials)
        D = sq_euclidean(X[candidates], X, x_sq[candidates], x_sq)
        trial_closest = np.minimum(closest[None, :], D)
        best = int(np.argmin(trial_closest @ weights))
        chosen[c] = candidates[best]
        closest = trial_closest[best].astype(np.float64)
    return dense_rows(X, chosen), chosen


def dense_rows(X, rows):
    """Rows of ``X`` (dense or sparse) as a float64 array.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> dense_rows(sp.csr_matrix(np.eye(3)), [2]).tolist()
    [[0.0, 0.0, 1.0]]
    """
    picked = X[np.asarray(rows)]
    return np.asarray(picked.toarray() if sp.issparse(picked) else picked, dtype=np.float64)


def random_rows(X, n_clusters, rng, *, weights):
    """``n_clusters`` distinct rows drawn with probability proportional to ``weights``.

    Examples
    --------
    >>> random_rows(np.eye(3), 2, np.random.default_rng(0), weights=np.ones(3)).shape
    (2, 3)
    """
    positive = np.flatnonzero(weights > 0)
    if len(positive) >= n_clusters:
        idx = rng.choice(X.shape[0], size=n_clusters, replace=False, p=weights / weights.sum())
    else:  # every weighted row, then rows of no weight (they move nothing, as k-means++'s picks)
        rest = rng.choice(np.flatnonzero(weights <= 0), size=n_clusters - len(positive), replace=False)
        idx = np.concatenate([positive, rest])
    return dense_rows(X, np.sort(idx))


def random_partition(X, n_clusters, rng, *, weights):
    """The "random partition" start: every row put in a uniformly random cluster, the
    centres the (weighted) means of their rows. The centres start close to the overall
    mean, unlike Forgy's random rows (``random_rows``); a cluster that drew no row
    (fewer rows than about k log k) takes a random row instead.

    Examples
    --------
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> C = random_partition(X, 2, np.random.default_rng(0), weights=np.ones(10))
    >>> C.shape, bool(np.all(np.abs(C - X.mean(0)) < 6))
    ((2, 2), True)
    """
    n = X.shape[0]
    labels = rng.integers(n_clusters, size=n)
    member = sp.csr_matrix((weights, (labels, np.arange(n))), shape=(n_clusters, n))
    totals = np.asarray(member @ X, dtype=np.float64)
    counts = np.asarray(member.sum(axis=1)).ravel()
    empty = counts <= 0
    centres = totals / np.where(empty, 1.0, counts)[:, None]
    if empty.any():
        centres[empty] = dense_rows(X, rng.choice(n, size=int(empty.sum()), replace=False))
    return centres


def kmeans_parallel(X, n_clusters, rng, *, weights, x_sq, rounds=5, oversampling=2.0):
    """k-means|| (Bahmani et al., 2012) on an in-memory array: a few passes that each
    sample about ``oversampling * k`` candidates with probability proportional to their
    weighted squared distance, then weighted k-means++ and Lloyd on the candidates.

    Few passes over the data instead of k, which is what large data needs.

    Examples
    --------
    >>> X = np.vstack([np.zeros((50, 2)), np.full((50, 2), 9.0)])
    >>> c = kmeans_parallel(X, 2, np.random.default_rng(0), weights=np.ones(100),
    ...                     x_sq=(X**2).sum(1))
    >>> np.sort(c[:, 0]).round().astype(int).tolist()
    [0, 9]
    """
    n = X.shape[0]
    closest, owner = np.full(n, np.inf), np.zeros(n, dtype=np.int64)

    def round_pass(candidates, new, ell, rng):
        nonlocal closest, owner
        if new.shape[0]:
            labels, dist = assign(X, new, x_sq)
            closer = dist < closest
            closest = np.where(closer, dist, closest)
            owner = np.where(closer, labels + candidates.shape[0] - new.shape[0], owner)
        potential = float(weights @ closest)
        sampled = np.empty((0, X.shape[1]))
        if ell > 0 and potential > 0:
            prob = np.minimum(1.0, ell * weights * closest / potential)
            sampled = dense_rows(X, np.flatnonzero(rng.random(n) < prob))
        return sampled, np.bincount(owner, weights=weights, minlength=candidates.shape[0])

    first = dense_rows(X, _sample_by_potential(np.cumsum(weights), rng, 1))
    return parallel_seeding(
        round_pass,
        first,
        n_clusters,
        rng,
        rounds=rounds,
        oversampling=oversampling,
        too_few=lambda: kmeans_plusplus(X, n_clusters, rng, weights=weights, x_sq=x_sq)[0],
    )


def parallel_seeding(round_pass, first, n_clusters, rng, *, rounds, oversampling, too_few):
    """The k-means|| rounds for any layout of the data (in memory, row blocks on a cluster).

    ``round_pass(candidates, new, ell, rng) -> (sampled, owned)`` is one pass over the
    data: it takes the candidates ``new`` (the last rows of ``candidates``) into each
    point's nearest-candidate distance, then, when ``ell > 0``, samples rows with
    probability ``min(1, ell w d^2 / potential)``; ``owned`` is the weight of the points
    nearest to each candidate. The last pass only counts. ``too_few()`` gives the
    centres when fewer than ``n_clusters`` candidates were drawn.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> def round_pass(candidates, new, ell, rng):  # every row is a candidate
    ...     return (X if ell > 0 and len(candidates) == 1 else X[:0]), np.ones(len(candidates))
    >>> c = parallel_seeding(round_pass, X[:1], 2, np.random.default_rng(0), rounds=2,
    ...                      oversampling=2.0, too_few=None)
    >>> sorted(np.round(c.ravel()).tolist())
    [0.0, 5.0]
    """
    candidates = new = first
    for r in range(rounds + 1):
        new, owned = round_pass(candidates, new, oversampling * n_clusters if r < rounds else 0.0, rng)
        candidates = np.vstack([candidates, new])
    if candidates.shape[0] < n_clusters:
        return too_few()
    return reduce_candidates(candidates, owned, n_clusters, rng)


def reduce_candidates(C, cand_w, n_clusters, rng):
    """The last step of k-means||: weighted k-means++ and 30 Lloyd iterations on the
    candidates ``C`` weighted by how many points each is nearest to.

    Examples
    --------
    >>> C = np.array([[0.0], [0.2], [9.0], [9.4]])
    >>> c = reduce_candidates(C, np.array([5.0, 5.0, 1.0, 1.0]), 2, np.random.default_rng(0))
    >>> np.sort(c.ravel()).round(1).tolist()
    [0.1, 9.2]
    """
    C = np.asarray(C)
    c_sq = np.einsum("ij,ij->i", C, C).astype(np.float64)
    centers, _ = kmeans_plusplus(C, n_clusters, rng, weights=cand_w + 1e-12, x_sq=c_sq)
    result = kmeans_single(C, cand_w, centers, c_sq, algorithm="lloyd", max_iter=30, tol=0.0)
    return result.state.centers
