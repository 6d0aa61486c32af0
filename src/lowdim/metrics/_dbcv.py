"""Density-Based Clustering Validation (DBCV; Moulavi, Jaskowiak, Campello, Zimek & Sander
2014): how much denser each cluster is inside than between it and the others, from
-1 (wrong) to 1 (dense clusters far apart), noise counted against the score."""

import numpy as np

from .._validation import check_array, check_labels_given
from ..linalg import pairwise_distances


def _core_distances(D, d):
    """All-points core distance of each member: the (-d)-power mean of its distances to
    the other members, ``(sum_x (1 / d(o, x))^d / (n - 1))^(-1/d)``; 0 for a member with
    no other at a positive distance (a cluster of copies of one row sits at one point)."""
    n = D.shape[0]
    with np.errstate(divide="ignore"):
        inverse = np.where(D > 0, D, np.inf) ** (-float(d))  # a duplicate adds nothing
    np.fill_diagonal(inverse, 0.0)
    mean = inverse.sum(axis=1) / max(n - 1, 1)
    with np.errstate(divide="ignore"):
        return np.where(mean > 0, mean ** (-1.0 / d), 0.0)


def _internal(D, core):
    """The cluster's mutual-reachability spanning tree: its internal nodes (degree > 1)
    and the largest weight of an edge between two of them (the density sparseness; every
    edge counts when the tree has no internal edge).

    Core distances make many edges equally heavy, and which of them the tree takes
    changes the internal nodes: the tree Kruskal's algorithm keeps over the pairs in row
    order (scipy's and the hdbscan package's choice among ties)."""
    from .._kernels.components import reachability_tree

    if D.shape[0] == 1:
        return np.array([0]), 0.0
    a, b, weights = reachability_tree(D, core)
    n = D.shape[0]
    degree = np.bincount(np.concatenate([a, b]), minlength=n)
    internal = np.flatnonzero(degree > 1)
    inside = (degree[a] > 1) & (degree[b] > 1)
    if not inside.any():
        return (internal if internal.size else np.arange(n)), float(weights.max(initial=0.0))
    return internal, float(weights[inside].max())


def _separations(members, internal, cores, distances):
    """Each cluster's smallest mutual reachability between its internal nodes and those
    of another cluster."""
    out = np.full(len(members), np.inf)
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            core_i, core_j = cores[i][internal[i]], cores[j][internal[j]]
            D = distances(members[i][internal[i]], members[j][internal[j]])
            nearest = np.maximum(np.maximum(core_i[:, None], core_j[None, :]), D).min()
            out[i], out[j] = min(out[i], nearest), min(out[j], nearest)
    return out


def _cluster_ids(labels):
    """Labels as integer cluster ids (-1 and below: noise); text that reads as integers
    (scanpy's categorical '0', '1', '-1') is taken as them."""
    if labels.dtype.kind in "iub":
        return labels.astype(np.int64)
    check_labels_given(labels, "dbcv_score")
    try:
        ids = labels.astype(np.float64)
    except (TypeError, ValueError):
        ids = None
    if ids is None or not np.array_equal(ids, np.round(ids)):
        raise ValueError(
            f"dbcv_score reads labels as integer cluster ids, -1 for noise (as HDBSCAN's labels_); got "
            f"{labels.dtype} values such as {labels[0]!r}. Pass integer ids (np.unique(labels, "
            "return_inverse=True)[1] numbers named clusters, with no noise)."
        )
    return ids.astype(np.int64)


def dbcv_score(X, labels, *, metric="euclidean", d=None, per_cluster=False):
    """DBCV, the density-based validity of a clustering with noise (HDBSCAN's, DBSCAN's).

    For each cluster: the all-points core distance of its members, the minimum spanning
    tree of their mutual reachability, its *sparseness* (largest edge between internal
    nodes) and its *separation* (smallest mutual reachability between its internal nodes
    and another cluster's); the cluster scores ``(separation - sparseness) /
    max(separation, sparseness)``, and DBCV is the size-weighted mean over all points,
    noise (-1) included with weight and score 0. A cluster of one point scores 0 too; a
    cluster of copies of one row is as dense as can be (core distances and sparseness
    0); clusters that all sit at one point are not apart (0).

    Parameters
    ----------
    X : array-like (n_samples, n_features), or distances with metric='precomputed'
    labels : array-like of int (n_samples,)
        -1 for noise.
    metric : str, default='euclidean'
        Any metric of ``lowdim.linalg.pairwise_distances``, or 'precomputed'.
    d : int, optional
        The dimension in the core distance's power mean (default: the number of
        features; needed with 'precomputed').
    per_cluster : bool, default=False
        Also return each cluster's score.

    Returns
    -------
    float, or (float, ndarray) with ``per_cluster``

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.2, (50, 2)), rng.normal(5, 0.2, (50, 2))])
    >>> round(dbcv_score(X, np.repeat([0, 1], 50)), 2) > 0.8
    True
    """
    labels = np.asarray(labels)
    X = np.asarray(check_array(X, estimator_name="dbcv_score"), dtype=np.float64)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"dbcv_score needs one label per row of X ({X.shape[0]}); got labels of shape {labels.shape}.")
    if metric == "precomputed" and d is None:
        raise ValueError("dbcv_score with metric='precomputed' needs d, the dimension of the data; pass d=.")
    d = X.shape[1] if d is None else d
    labels = _cluster_ids(labels)
    clusters = np.unique(labels[labels >= 0])
    if clusters.size < 2:
        raise ValueError(f"DBCV compares clusters: labels hold {clusters.size} cluster(s); it needs at least 2.")
    members = [np.flatnonzero(labels == c) for c in clusters]

    def distances(a, b):
        return X[np.ix_(a, b)] if metric == "precomputed" else pairwise_distances(X[a], X[b], metric=metric)

    cores, internal, sparseness = [], [], []
    for rows in members:
        D = distances(rows, rows)
        core = _core_distances(D, d)
        nodes, sparse = _internal(D, core)
        cores.append(core)
        internal.append(nodes)
        sparseness.append(sparse)
    separation = _separations(members, internal, cores, distances)
    sparseness = np.array(sparseness)
    larger = np.maximum(separation, sparseness)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(larger > 0, (separation - sparseness) / larger, 0.0)  # 0: clusters at one point
    scores[[rows.size == 1 for rows in members]] = 0.0  # one point has no density to validate, as noise
    total = float(sum(rows.size * s for rows, s in zip(members, scores)) / labels.size)
    return (total, scores) if per_cluster else total
