"""HDBSCAN's soft clustering (McInnes' method in the hdbscan package): for each point, the
probability of belonging to each selected cluster.

Two views are fused: how near the point is to each cluster's exemplars (the points that
stay longest in the cluster's leaves), and how much of an outlier it is relative to each
cluster in the condensed tree (the lambda at which it would merge with the cluster,
against the cluster's largest lambda). Their product, normalised, is the membership given
that the point is in some cluster; times the probability that it is in one (its highest
merge lambda over that cluster's largest), the membership itself.
"""

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.utils.validation import check_is_fitted

from ..neighbors import KD_TREE_UP_TO
from ._hdbscan_input import spread_like_core

BLOCK_ROWS = 4096  # rows per block of distances to the exemplars


def _ancestors(tree, c):
    """The clusters from ``c`` (an index into the tree's arrays) up to the root."""
    out = [c]
    while tree.parent[out[-1]] >= 0:
        out.append(int(tree.parent[out[-1]] - tree.n))
    return out


def exemplars(tree, selected):
    """The exemplar points of each selected cluster: in every leaf cluster below it, the
    points that leave the leaf at its largest lambda.

    Parameters
    ----------
    tree : ClusterTree
    selected : ndarray of bool (n_clusters,)

    Returns
    -------
    list of ndarray of int64
        One array of point indices per selected cluster, in label order.

    Examples
    --------
    >>> from lowdim.cluster._hdbscan_tree import ClusterTree
    >>> t = ClusterTree.from_condensed(
    ...     3, np.array([3, 3, 3]), np.array([0, 1, 2]), np.array([1.0, 2.0, 2.0]), np.ones(3, int)
    ... )
    >>> exemplars(t, np.array([True]))[0].tolist()
    [1, 2]
    """
    leaves = np.flatnonzero(~tree.has_children())
    above = {int(leaf): set(_ancestors(tree, int(leaf))) for leaf in leaves}
    order = np.argsort(tree.point_parent, kind="stable")  # the points grouped by the cluster they leave
    bounds = np.searchsorted(tree.point_parent[order], np.arange(tree.n_clusters + 1) + tree.n)
    out = []
    for c in np.flatnonzero(selected):
        points = []
        for leaf in (int(leaf) for leaf in leaves if c in above[int(leaf)]):  # the leaves of c's subtree
            members = order[bounds[leaf] : bounds[leaf + 1]]
            if members.size:
                lam = tree.point_lambda[members]
                points.append(np.sort(members[lam == lam.max()]))
        out.append(np.concatenate(points) if points else np.zeros(0, dtype=np.int64))
    return out


def merge_heights(tree, selected, clusters, lambdas):
    """The lambda at which each point (leaving cluster ``clusters`` at ``lambdas``) and
    each selected cluster are in one cluster: the point's own lambda when one of the two
    clusters contains the other, else the birth of the branch holding the point where it
    splits from the branch holding the selected cluster.

    Parameters
    ----------
    tree : ClusterTree
    selected : ndarray of bool
    clusters : ndarray of int64 (m,)
        Cluster numbers (``n + index``) the points leave.
    lambdas : ndarray (m,)

    Returns
    -------
    ndarray (m, n_selected)
    """
    table = _branch_heights(tree, np.flatnonzero(selected))[clusters - tree.n]
    return np.where(np.isnan(table), np.asarray(lambdas, dtype=np.float64)[:, None], table)


def _branch_heights(tree, chosen):
    """For every cluster of the tree and every chosen cluster: NaN when one contains the
    other (a point's own lambda is its merge height), else the birth of the branch below
    their lowest common ancestor on the first one's side."""
    paths = {c: _ancestors(tree, int(c)) for c in chosen}
    out = np.full((tree.n_clusters, chosen.size), np.nan)
    for cp in range(tree.n_clusters):
        up = _ancestors(tree, cp)
        on_path = set(up)
        for j, c in enumerate(chosen):
            if c in on_path or cp in paths[c]:
                continue
            meet = next(a for a in paths[c] if a in on_path)  # the lowest common ancestor
            out[cp, j] = tree.birth[up[up.index(meet) - 1]]
    return out


def _softmax(scores):
    scores = np.where(np.isnan(scores), -np.inf, scores)
    top = scores.max(axis=1, keepdims=True)
    weights = np.exp(scores - np.where(np.isfinite(top), top, 0.0))
    return weights / weights.sum(axis=1, keepdims=True)


def _nearest_exemplar(points, exemplar_points):
    """Each point's distance to the nearest of the exemplars: a k-d tree query on few
    columns, blocks of exact pairwise distances (scipy's cdist) on many."""
    if exemplar_points.shape[1] <= KD_TREE_UP_TO:
        from .._kernels.kdtree import build_tree, knn_query

        tree = build_tree(exemplar_points, leaf_size=16)
        return knn_query(tree[0], *tree[2:], points, 1)[0][:, 0]
    out = np.empty(points.shape[0])
    for start in range(0, points.shape[0], BLOCK_ROWS):  # memory: one block's distances
        out[start : start + BLOCK_ROWS] = cdist(points[start : start + BLOCK_ROWS], exemplar_points).min(axis=1)
    return out


def _distance_part(points, training, exemplar_sets):
    """Distance-based membership: the inverse distance to each cluster's nearest exemplar,
    normalised (a point on exemplars shares its weight among their clusters)."""
    points = np.ascontiguousarray(points, dtype=np.float64)
    nearest = np.column_stack([_nearest_exemplar(points, np.ascontiguousarray(training[e])) for e in exemplar_sets])
    with np.errstate(divide="ignore"):
        inverse = np.where(nearest > 0, 1.0 / nearest, np.finfo(np.float64).max / nearest.shape[1])
    return inverse / inverse.sum(axis=1, keepdims=True)


def lambda_ceiling(tree):
    """A finite stand-in for the infinite lambda of copies of a row (distance 0): twice
    the largest finite lambda of the tree. The soft memberships are ratios of lambdas,
    and inf / inf made them NaN (new points) or 0 (the copies themselves).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> lambda_ceiling(SimpleNamespace(point_lambda=np.array([1.0, np.inf]), deaths=np.array([3.0]), birth=[0.5]))
    6.0
    """
    values = np.concatenate([np.ravel(tree.point_lambda), np.ravel(tree.deaths), np.ravel(tree.birth)])
    finite = values[np.isfinite(values)]
    return 2.0 * float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def _tree_parts(model, clusters, lambdas):
    """Merge heights with every selected cluster, and the largest lambda leaving each
    point's own cluster directly and the cluster it merges with highest (the package's
    ``leaf_max_lambdas``: rows of points or child clusters, not the whole subtree),
    and the points' ``lambdas``: infinite ones (copies of a row) at ``lambda_ceiling``."""
    tree, selected = model._selection()
    chosen = np.flatnonzero(selected)
    ceiling = lambda_ceiling(tree)
    leaf_max, lambdas = np.minimum(tree.deaths, ceiling), np.minimum(lambdas, ceiling)
    heights = merge_heights(tree, selected, clusters, lambdas)
    nearest = chosen[np.argmax(heights, axis=1)]
    return heights, leaf_max[clusters - tree.n], leaf_max[nearest], lambdas


def _combined(distance, outlier, heights, nearest_max, lambdas, weights=(1.0, 1.0), shift=0.0):
    """(distance^a outlier^b), normalised, times the probability of being in some cluster:
    the highest merge height over the largest lambda of that cluster (or the point's own)."""
    result = distance ** weights[0] * outlier ** weights[1]
    result /= result.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        in_some = heights.max(axis=1) / (np.maximum(nearest_max, lambdas) + shift)
    return result * np.nan_to_num(in_some)[:, None]


def _fitted_with_points(model):
    check_is_fitted(model)
    if not hasattr(model, "training_points_"):
        raise ValueError(
            "soft clustering needs the training points: fit HDBSCAN with prediction_data=True and metric='euclidean'."
        )


def all_points_membership_vectors(clusterer):
    """Soft cluster memberships of the training points of a fitted ``HDBSCAN``.

    Parameters
    ----------
    clusterer : HDBSCAN
        Fitted with ``prediction_data=True`` and a Euclidean metric.

    Returns
    -------
    ndarray (n_samples, n_clusters)
        Entry ``[i, j]``: the probability that point i belongs to cluster j (rows sum to
        at most 1; noise points' rows are small; rows left out of the fit are 0 for
        infinity, NaN for missing values).

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import HDBSCAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(4, 0.3, (40, 2))])
    >>> soft = all_points_membership_vectors(HDBSCAN(min_cluster_size=10).fit(X))
    >>> soft.shape, bool((soft.argmax(axis=1)[:40] == 0).all())
    ((80, 2), True)
    """
    _fitted_with_points(clusterer)
    tree, selected = clusterer._selection()
    if not selected.any():
        return np.zeros((clusterer.core_distances_.size, 0))
    clusters = tree.point_parent
    heights, own_max, nearest_max, lambdas = _tree_parts(clusterer, clusters, tree.point_lambda)
    with np.errstate(divide="ignore"):  # the package's bulk score: exp(-lambda_max / height)
        outlier = _softmax(np.exp(-(own_max[:, None] + 1e-8) / heights))
    distance = _distance_part(clusterer.training_points_, clusterer.training_points_, exemplars(tree, selected))
    soft = _combined(distance, outlier, heights, nearest_max, lambdas)
    # rows left out of the tree (infinity, NaN): no membership, or an unknown one
    return spread_like_core(soft, clusterer.core_distances_, 0.0, np.nan)


def membership_vector(clusterer, points_to_predict):
    """Soft cluster memberships of new points, each placed in the fitted tree through its
    nearest mutual-reachability neighbour (as ``approximate_predict``).

    Parameters
    ----------
    clusterer : HDBSCAN
        Fitted with ``prediction_data=True`` and a Euclidean metric.
    points_to_predict : array-like (m, n_features)

    Returns
    -------
    ndarray (m, n_clusters)

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import HDBSCAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(4, 0.3, (40, 2))])
    >>> model = HDBSCAN(min_cluster_size=10).fit(X)
    >>> membership_vector(model, [[4.0, 4.1]]).argmax(axis=1).tolist()
    [1]
    """
    _fitted_with_points(clusterer)
    X = clusterer._validate_input(points_to_predict, reset=False)
    tree, selected = clusterer._selection()
    if not selected.any():
        return np.zeros((X.shape[0], 0))
    nearest, lam = clusterer._nearest_reachable(X)
    lam = np.minimum(lam, tree.point_lambda[nearest])
    heights, own_max, nearest_max, lam = _tree_parts(clusterer, tree.point_parent[nearest], lam)
    gap = own_max[:, None] - heights  # the package's per-point score: lambda_max / (lambda_max - height)
    outlier = _softmax(own_max[:, None] / np.where(gap > 0, gap, 1e-8))
    distance = _distance_part(np.asarray(X, dtype=np.float64), clusterer.training_points_, exemplars(tree, selected))
    return _combined(distance, outlier, heights, nearest_max, lam, weights=(0.5, 2.0), shift=1e-8)
