"""UMAP's fuzzy simplicial set (McInnes, Healy & Melville 2018): local fuzzy sets from
each point's kNN distances (local connectivity, smooth-kNN calibration), combined by
fuzzy union; the label intersection of supervised UMAP; the output curve's a and b."""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import curve_fit

from .._warnings import warn_user
from ._graph_arrays import float64_row_blocks, symmetric_graph

SMOOTH_KNN_TOL = 1e-5
SMOOTH_KNN_STEPS = 64


def _finite_mean(distances):
    """The mean neighbour distance, dropped edges (at infinity) left out."""
    if not distances.size:
        return 0.0
    mean = float(np.mean(distances, dtype=np.float64))
    if np.isfinite(mean):
        return mean
    finite = distances[np.isfinite(distances)]
    return float(np.mean(finite, dtype=np.float64)) if finite.size else 0.0


def local_memberships(distances, n_neighbors, local_connectivity=1.0, bar=None):
    """Membership strengths ``exp(-max(0, d - rho) / sigma)`` of each point's neighbours.

    Parameters
    ----------
    distances : ndarray (n, k)
        Distances to the k nearest other points, increasing (k = n_neighbors - 1: the
        point itself counts as its first neighbour, as in umap-learn).
    n_neighbors : int
        The memberships of a row sum to ``log2(n_neighbors)``.
    local_connectivity : float
        How many nearest neighbours are fully connected (membership 1).
    bar : tqdm, optional
        Advanced by the rows done (``row_progress``).

    Returns
    -------
    memberships : ndarray (n, k) in [0, 1]
        In the distances' dtype (float32 distances give float32 memberships).
    rho, sigma : ndarray (n,)

    Examples
    --------
    >>> M, rho, sigma = local_memberships(np.array([[1.0, 2.0, 3.0]]), 4)
    >>> M.round(4).tolist(), round(float(M.sum()), 4)  # sums to log2(4)
    ([[1.0, 0.618, 0.382]], 2.0)
    """
    from .._kernels.umap_graph import smooth_knn
    from .._threads import LIGHT_ROWS, in_row_ranges
    from ._smooth_knn_small import SMALL_FUZZY, smooth_knn_small

    memberships, blocks = float64_row_blocks(distances, bar)
    n = memberships.shape[0]
    rho, sigma = np.empty(n), np.empty(n)
    mean = _finite_mean(distances)
    target = float(np.log2(n_neighbors))
    for rows, D in blocks:
        r, s = rho[rows], sigma[rows]  # views of the block's rows
        args = (D, target, float(local_connectivity), SMOOTH_KNN_TOL, SMOOTH_KNN_STEPS, mean)
        if memberships.size <= SMALL_FUZZY:  # a small graph: no kernel to compile
            r[:], s[:] = smooth_knn_small(*args)
        else:
            run = lambda a, b, args=(*args, r, s): smooth_knn(*args, a, b)  # noqa: E731
            in_row_ranges("umap-graph", 0, D.shape[0], run, min_size=LIGHT_ROWS)
        with np.errstate(invalid="ignore"):  # dropped (infinite) edges: NaN, removed by the caller
            memberships[rows] = np.exp(-np.maximum(D - rho[rows, None], 0.0) / sigma[rows, None])
    return memberships, rho, sigma


def fuzzy_union(indices, memberships, n_samples, mix_ratio=1.0, bar=None):
    """Symmetric fuzzy graph ``mix (A + A^T - A o A^T) + (1 - mix) A o A^T`` of the
    directed memberships (CSR in the memberships' dtype, int32 indices, weights in
    [0, 1], no zeros stored); ``bar`` advanced by its passes' rows.

    Examples
    --------
    >>> W = fuzzy_union(np.array([[1], [0]]), np.array([[0.5], [0.5]]), 2)
    >>> W.toarray().tolist()
    [[0.0, 0.75], [0.75, 0.0]]
    """
    return symmetric_graph(indices, memberships, n_samples, "fuzzy_union", mix_ratio, bar)


def drop_far_edges(distances, limit, name):
    """The neighbour distances with every edge at least ``limit`` long at infinity
    (dropped: the ends share nothing under a bounded metric), with one warning
    counting them; an error when every edge would go (the layout has nothing to lay
    out). ``name``: the estimator, its metric and where the limit came from.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     drop_far_edges(np.array([[0.5, 1.0]]), 1.0, "UMAP").tolist()
    [[0.5, inf]]
    """
    far = distances >= limit
    if far.all():
        raise ValueError(
            f"{name}: every neighbour edge is at least disconnection_distance={limit:g} long, so no two rows are "
            "linked; use a metric that fits these values (a bounded one on rows that share nothing: 'euclidean' "
            "for numbers) or a larger disconnection_distance."
        )
    if far.any():
        warn_user(
            f"{name}: {int(far.sum())} neighbour edges at least disconnection_distance={limit:g} long were dropped.",
            UserWarning,
        )
        distances = np.where(far, np.inf, distances)
    return distances


def fuzzy_graph(distances, indices, local_connectivity=1.0, mix_ratio=1.0, bar=None):
    """UMAP's fuzzy simplicial set of a kNN graph: each point's local memberships
    (``local_memberships``, the point itself counting as its first neighbour) combined
    by fuzzy union (``fuzzy_union``). Infinite distances (dropped edges) give no edge.

    Parameters
    ----------
    distances : ndarray (n, k)
        Distances to each point's k nearest other points, increasing.
    indices : ndarray (n, k)
    local_connectivity : float, default=1.0
    mix_ratio : float, default=1.0
        1 is the fuzzy union, 0 the fuzzy intersection.
    bar : tqdm, optional
        Advanced by the rows of the memberships and of the union's passes (``row_progress``).

    Returns
    -------
    scipy.sparse.csr_matrix (n, n), symmetric, weights in [0, 1]

    Examples
    --------
    >>> W = fuzzy_graph(np.array([[1.0], [1.0], [2.0]]), np.array([[1], [0], [1]]))
    >>> W.toarray().round(2).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    memberships, _, _ = local_memberships(distances, distances.shape[1] + 1, local_connectivity, bar)
    return fuzzy_union(indices, np.nan_to_num(memberships, copy=False), distances.shape[0], mix_ratio, bar)


def intersect_labels(W, y, far_dist=5.0, unknown_dist=1.0):
    """Supervised UMAP: weaken edges between points of different labels by
    ``exp(-far_dist)`` (``exp(-unknown_dist)`` when either label is -1, unknown), then
    renormalise each point's strongest edge to 1 and take the fuzzy union again.

    Examples
    --------
    >>> A = np.zeros((4, 4))
    >>> A[0, 1] = A[0, 2] = A[2, 3] = 1.0
    >>> W = sp.csr_matrix(A + A.T)
    >>> intersect_labels(W, np.array([0, 0, 1, 1])).toarray().round(4)[0].tolist()
    [0.0, 1.0, 0.0134, 0.0]
    """
    W = W.tocoo()
    y = np.asarray(y)
    a, b = y[W.row], y[W.col]
    same = np.where(a == b, 1.0, np.exp(-far_dist))
    return weaken_edges(W, np.where((a == -1) | (b == -1), np.exp(-unknown_dist), same))


def weaken_edges(W, factor):
    """The fuzzy graph ``W`` (COO) with each edge's weight times its ``factor``, each
    point's strongest edge back to 1, then the fuzzy union again (a reweighted graph is
    a fuzzy simplicial set once more).

    Examples
    --------
    >>> W = sp.coo_matrix(np.array([[0, 1.0, 0.5], [1.0, 0, 1.0], [0.5, 1.0, 0]]))
    >>> halved = np.where(W.row + W.col == 2, 0.5, 1.0)  # the edge between 0 and 2
    >>> weaken_edges(W, halved).toarray()[0].tolist()  # 0.25 from either end, united
    [0.0, 1.0, 0.4375]
    """
    return _reset_connectivity(sp.csr_matrix((W.data * factor, (W.row, W.col)), shape=W.shape))


def _reset_connectivity(W):
    """Each point's strongest edge back to 1, then the fuzzy union again."""
    top = np.asarray(W.max(axis=1).toarray()).ravel()
    W = (sp.diags(1.0 / np.where(top > 0, top, 1.0)) @ W).tocsr()
    T = W.T.tocsr()
    W = (W + T - W.multiply(T)).tocsr()
    W.eliminate_zeros()
    W.sort_indices()
    return W


def intersect_target_graph(W, T, weight):
    """Supervised UMAP with a metric target: the weighted fuzzy intersection
    ``W^(1 - weight) T^weight`` of the data graph ``W`` and the target's graph ``T`` on
    the union of their edges, an edge missing from one graph taking half that graph's
    weakest weight (so it is weakened, not cut), then connectivity reset.

    Examples
    --------
    >>> A = np.zeros((4, 4)); A[0, 1] = A[0, 2] = A[1, 3] = A[2, 3] = 1.0
    >>> B = np.zeros((4, 4)); B[0, 2] = B[1, 3] = 1.0
    >>> M = intersect_target_graph(sp.csr_matrix(A + A.T), sp.csr_matrix(B + B.T), 0.5)
    >>> bool(M[0, 2] > M[0, 1])  # the edge both graphs have outweighs the data-only one
    True
    """
    W, T = W.tocsr().astype(np.float64), T.tocsr().astype(np.float64)
    support = (abs(W) + abs(T)).tocoo()
    w = np.asarray(W[support.row, support.col]).ravel()
    t = np.asarray(T[support.row, support.col]).ravel()
    w = np.where(w > 0, w, 0.5 * W.data[W.data > 0].min(initial=1.0))
    t = np.where(t > 0, t, 0.5 * T.data[T.data > 0].min(initial=1.0))
    mixed = w ** (1.0 - weight) * t**weight
    return _reset_connectivity(sp.csr_matrix((mixed, (support.row, support.col)), shape=W.shape))


def curve_parameters(spread, min_dist):
    """``a``, ``b`` of UMAP's output similarity ``1 / (1 + a d^(2b))``, fitted by least
    squares to 1 below ``min_dist`` and ``exp(-(d - min_dist) / spread)`` above
    (umap-learn's ``find_ab_params``).

    Parameters
    ----------
    spread, min_dist : float

    Returns
    -------
    a, b : float

    Examples
    --------
    >>> a, b = curve_parameters(1.0, 0.1)
    >>> round(a, 2), round(b, 2)
    (1.58, 0.9)
    """
    d = np.linspace(0.0, 3.0 * spread, 300)
    target = np.where(d < min_dist, 1.0, np.exp(-(d - min_dist) / spread))
    (a, b), _ = curve_fit(lambda x, a, b: 1.0 / (1.0 + a * x ** (2.0 * b)), d, target, p0=(1.0, 1.0))
    return float(a), float(b)
