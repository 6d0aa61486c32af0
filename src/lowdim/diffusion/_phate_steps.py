"""PHATE's steps as functions of arrays (Moon et al. 2019): the alpha-decay kernel,
landmarks by k-means on the walk's diffusion coordinates, the diffusion time at the
knee of the von Neumann entropy, the potential, and its metric MDS layout."""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import svdvals
from scipy.spatial.distance import pdist, squareform

from ..cluster import MiniBatchKMeans
from ..linalg import pairwise_distances, procrustes_fit, sq_euclidean, subspace_iteration
from ..manifold import classical_mds, smacof
from ..neighbors import positive_scales

THRESHOLD = 1e-4  # kernel values below it are dropped (graphtools' default)
POTENTIAL_FLOOR = 1e-7  # added before the log, as the phate package does
SGD_BLOCK = 4096  # pairs read in sequence between random jumps (sequential reads, random enough order)


def decay_radius(scales, decay):
    """Distance at which ``exp(-(d / s)^decay)`` falls to THRESHOLD.

    Examples
    --------
    >>> round(float(decay_radius(np.array([1.0]), 40)[0]), 4)
    1.0571
    """
    return scales * (-np.log(THRESHOLD)) ** (1.0 / decay)


def _widen(index, X, dist, idx, radius):
    """Query again, with twice as many neighbours, the rows whose farthest neighbour
    found still lies within their kernel's radius; None when no row needs it. (A
    subset of the rows is queried as new points: each row's own entry is dropped.)"""
    m, n = idx.shape[1], X.shape[0]
    rows = np.flatnonzero(dist[:, -1] <= radius)
    if rows.size == 0 or m >= n - 1:
        return None
    k = min(2 * m, n - 1)
    d2, i2 = (np.asarray(a) for a in index.query(X[rows], k + 1))
    own = i2 == rows[:, None]
    own[~own.any(axis=1), -1] = True  # the row itself not found: drop the farthest instead
    keep = ~own
    return rows, (d2[keep].reshape(rows.size, k), i2[keep].reshape(rows.size, k))


def decay_kernel(index, X, dist, idx, knn, decay):
    """The alpha-decay kernel ``exp(-(d / s_i)^decay)`` of each row's neighbours, ``s_i``
    the distance to its ``knn``-th nearest other row, kept above THRESHOLD (rows that
    reach past the neighbours given are searched again, wider), made symmetric as
    ``(K + K^T) / 2`` with each row itself at 1. ``decay=None``: each row's ``knn``
    nearest at 1.

    Parameters
    ----------
    index : KNNIndex
        Built on ``X`` (None: the neighbours given are all there are).
    X : ndarray (n, d)
    dist, idx : ndarray (n, m)
        Each row's nearest other rows, nearest first, ``m >= knn``.
    knn : int
    decay : float or None

    Returns
    -------
    K : scipy.sparse.csr_matrix (n, n)
    scales : ndarray (n,)

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> K, s = decay_kernel(None, X, np.array([[1.0, 2], [1, 1], [1, 2], [8, 9]]),
    ...                     np.array([[1, 2], [0, 2], [1, 0], [2, 1]]), 1, 40)
    >>> K.toarray().round(2).tolist()[0], s.tolist()
    ([1.0, 0.37, 0.0, 0.0], [1.0, 1.0, 1.0, 8.0])
    """
    n = X.shape[0]
    dist, idx = np.asarray(dist, dtype=np.float64), np.asarray(idx, dtype=np.int64)
    scales = positive_scales(dist[:, knn - 1])  # a row with knn copies would reach no other row
    if decay is None:
        rows, cols, values = np.repeat(np.arange(n), knn), idx[:, :knn].ravel(), np.ones(n * knn)
    else:
        wider = _widen(index, X, dist, idx, decay_radius(scales, decay)) if index is not None else None
        rows, cols, d = np.repeat(np.arange(n), idx.shape[1]), idx.ravel(), dist.ravel()
        if wider is not None:  # the rows searched again replace their first search
            again, (d2, i2) = wider
            keep = ~np.isin(rows, again)
            rows = np.concatenate([rows[keep], np.repeat(again, i2.shape[1])])
            cols = np.concatenate([cols[keep], np.asarray(i2, dtype=np.int64).ravel()])
            d = np.concatenate([d[keep], np.asarray(d2, dtype=np.float64).ravel()])
        values = np.exp(-((d / scales[rows]) ** decay))
        strong = values >= THRESHOLD
        rows, cols, values = rows[strong], cols[strong], values[strong]
    K = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    K = (K + K.T) * 0.5 + sp.identity(n, format="csr")
    return K.tocsr(), scales


def row_normalize(K):
    """``D^-1 K``: each row a probability distribution.

    Examples
    --------
    >>> row_normalize(sp.csr_matrix(np.array([[1.0, 3.0], [2.0, 2.0]]))).toarray().tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """
    total = np.asarray(K.sum(axis=1)).ravel()
    return sp.csr_matrix(sp.diags(1.0 / total) @ K)


def diffusion_coordinates(K, P, k, rng):
    """The coordinates PHATE's landmarks are clustered in: the walk ``P`` applied to
    the top ``k`` eigenvectors of the symmetric ``D^-1/2 K D^-1/2``, as graphtools
    builds them. Subspace iteration runs on its square (positive semi-definite, so the
    Nystroem step applies), eight times: the eigenvalues of a walk crowd near 1, and a
    rougher subspace gives landmark clusters that mix distant points (on 70,000 Fashion-
    MNIST rows, four plain iterations cost 0.11 of trustworthiness).

    Examples
    --------
    >>> K = sp.csr_matrix(np.array([[1.0, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]))
    >>> diffusion_coordinates(K, row_normalize(K), 2, np.random.default_rng(0)).shape
    (3, 2)
    """
    n = K.shape[0]
    inv_sqrt = 1.0 / np.sqrt(np.asarray(K.sum(axis=1)).ravel())
    M = sp.csr_matrix(sp.diags(inv_sqrt) @ K @ sp.diags(inv_sqrt))
    size = min(n, k + 10)
    _, U, _ = subspace_iteration(lambda V: M @ (M @ V), n, np.float64, size, min(k, size), n_iter=8, rng=rng)
    return np.asarray(P @ U)


def landmark_walk(K, P, labels):
    """The walk between landmark clusters: from each point to each cluster (``P``
    summed over its columns) and from each cluster to the points (its rows of ``K``,
    normalised), composed.

    Parameters
    ----------
    K, P : scipy.sparse.csr_matrix (n, n)
        The kernel and its walk.
    labels : ndarray of int (n,)
        Each point's cluster, numbered 0 .. L-1, none empty.

    Returns
    -------
    labels : ndarray of int64 (n,)
    to_landmarks : scipy.sparse.csr_matrix (n, L)
        Each point's transition probabilities to the landmarks.
    operator : ndarray (L, L)
        The walk between landmarks.

    Examples
    --------
    >>> K = sp.csr_matrix(np.array([[1.0, 1, 0], [1, 1, 1], [0, 1, 1]]))
    >>> op = landmark_walk(K, row_normalize(K), np.array([0, 0, 1]))[2]
    >>> op.round(3).tolist()
    [[0.767, 0.233], [0.583, 0.417]]
    """
    labels = np.asarray(labels, dtype=np.int64)
    n, L = K.shape[0], int(labels.max()) + 1
    C = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, L))
    to_landmarks = sp.csr_matrix(P @ C)
    from_landmarks = row_normalize(sp.csr_matrix(C.T @ K))
    return labels, to_landmarks, np.asarray((from_landmarks @ to_landmarks).todense())


def landmark_operator(K, P, n_landmark, rng, random=False):
    """Landmarks as k-means clusters of the walk's diffusion coordinates (``random``:
    random points, each point in the cluster of its nearest one in those coordinates),
    and the walk between them (``landmark_walk``).

    Parameters
    ----------
    K, P : scipy.sparse.csr_matrix (n, n)
    n_landmark : int
    rng : numpy.random.Generator
    random : bool, default=False

    Returns
    -------
    labels, to_landmarks, operator
        As ``landmark_walk``; empty clusters dropped.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 6]
    >>> K = sp.csr_matrix(np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)))
    >>> labels, T, op = landmark_operator(K, row_normalize(K), 4, rng)
    >>> op.shape, bool(np.allclose(op.sum(axis=1), 1))
    ((4, 4), True)
    """
    coords = diffusion_coordinates(K, P, min(100, K.shape[0] - 1), rng)
    if random:
        chosen = rng.choice(K.shape[0], n_landmark, replace=False)
        found = np.argmin(sq_euclidean(coords, coords[chosen]), axis=1)
    else:
        seed = int(rng.integers(2**31 - 1))
        kmeans = MiniBatchKMeans(n_landmark, batch_size=10_000, init_size=3 * n_landmark, random_state=seed, n_init=1)
        found = kmeans.fit_predict(coords.astype(np.float32))  # a coarse partition: float32 halves its cost
    return landmark_walk(K, P, np.unique(found, return_inverse=True)[1])


def entropy_curve(operator, t_max):
    """Von Neumann entropy of the walk's singular values raised to each power ``t``
    from 1 to ``t_max``: how spread the operator's spectrum still is after ``t`` steps.

    Examples
    --------
    >>> entropy_curve(np.diag([1.0, 0.5]), 3).round(3).tolist()
    [0.637, 0.5, 0.349]
    """
    s = svdvals(operator)
    powers = s[None, :] ** np.arange(1, t_max + 1)[:, None]
    prob = powers / powers.sum(axis=1, keepdims=True) + np.finfo(np.float64).eps
    return -(prob * np.log(prob)).sum(axis=1)


def knee_by_two_lines(y):
    """Index of the knee of a curve: the split at which a least-squares line through
    the points up to it and another through the points from it leave the smallest
    total absolute error (the L-method of Salvador & Chan).

    Examples
    --------
    >>> knee_by_two_lines(np.r_[np.linspace(10, 2, 5), np.linspace(1.8, 1.0, 15)])
    4
    """
    x = np.arange(y.size, dtype=np.float64)
    best, where = np.inf, 1
    for split in range(1, y.size - 1):
        error = 0.0
        for part in (slice(0, split + 1), slice(split, None)):
            slope, offset = np.polyfit(x[part], y[part], 1)
            error += np.abs(slope * x[part] + offset - y[part]).sum()
        if error < best:
            best, where = error, split
    return where


def potential(operator, t, gamma):
    """The diffusion potential of ``operator ** t``: ``-log`` (gamma = 1, PHATE's
    log potential), the probabilities themselves (gamma = -1), or
    ``p^c / c`` with ``c = (1 - gamma) / 2`` between them.

    Examples
    --------
    >>> potential(np.array([[0.5, 0.5], [0.5, 0.5]]), 1, 1.0).round(3).tolist()
    [[0.693, 0.693], [0.693, 0.693]]
    """
    diffused = np.linalg.matrix_power(operator, t)
    if gamma == 1:
        return -np.log(diffused + POTENTIAL_FLOOR)
    if gamma == -1:
        return diffused
    c = (1.0 - gamma) / 2.0
    return diffused**c / c


def sgd_mds(delta, init, rng, epochs=30, rates=(0.5, 1e-3)):
    """Metric MDS by stochastic gradient descent over all pairs from ``init``: each
    epoch visits every pair once and moves both points to shrink the pair's stress,
    by a rate annealed exponentially between ``rates`` (Zheng, Pawar & Goodman 2018's
    scheme, on the unweighted stress SMACOF also minimises: from a classical-MDS start
    the weighted stress's large first steps undo the start).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [3.0, 4.0]])
    >>> D = squareform(pdist(X))
    >>> Y = sgd_mds(D, X + np.random.default_rng(0).normal(size=X.shape), np.random.default_rng(0), epochs=200)
    >>> bool(np.allclose(squareform(pdist(Y)), D, atol=1e-6))
    True
    """
    from .._kernels.stress import sgd_stress_epoch

    i, j = np.triu_indices(delta.shape[0], 1)
    targets = delta[i, j].astype(np.float64)
    order = rng.permutation(targets.size)  # shuffled once; each epoch visits blocks of it in a new order
    i, j, targets = i[order], j[order], targets[order]
    starts = np.arange(0, targets.size, SGD_BLOCK)
    Y = np.array(init, dtype=np.float64)
    high, low = rates
    for rate in high * np.exp(np.log(low / high) * np.arange(epochs) / max(epochs - 1, 1)):
        sgd_stress_epoch(Y, i, j, targets, rng.permutation(starts), SGD_BLOCK, rate)
    return Y


def potential_layout(pot, n_components, *, how, solver, distance, rng):
    """The MDS layout of the potential's rows: classical MDS, then metric stress
    (SGD or SMACOF) from it, then non-metric SMACOF with ``how='nonmetric'``; each turned
    back onto the classical layout's axes.

    Examples
    --------
    >>> pot = np.random.default_rng(0).normal(size=(20, 5))
    >>> potential_layout(pot, 2, how="metric", solver="sgd", distance="euclidean",
    ...                  rng=np.random.default_rng(0)).shape
    (20, 2)
    """
    D = pairwise_distances(pot) if distance == "euclidean" else squareform(pdist(pot, distance))
    classic, _ = classical_mds(D, n_components)
    if how == "classic":
        return classic
    if solver == "sgd":
        Y = sgd_mds(D, classic, rng)
    else:
        Y = smacof(D, n_components, classic, metric=True).state
    if how == "nonmetric":
        Y = smacof(D, n_components, Y, metric=False).state
    rotation, _, moving_mean, reference_mean = procrustes_fit(classic, Y)
    return (Y - moving_mean) @ rotation + reference_mean
