"""From HDBSCAN's condensed tree to a flat clustering: cluster stabilities, excess-of-mass
or leaf selection (with ``cluster_selection_epsilon`` and ``max_cluster_size``), the
labels and membership strengths of points, and GLOSH outlier scores. Clusters are
numbered ``n .. n + n_clusters - 1`` in breadth-first order (a parent before its
children), the root being ``n``."""

from dataclasses import dataclass

import numpy as np


@dataclass
class ClusterTree:
    """The clusters of a condensed tree and how points leave them.

    Attributes
    ----------
    n : int
        Number of points (cluster ``c`` is stored at ``c - n``).
    parent : int64 (n_clusters,)
        Parent cluster of each cluster (the root's is -1).
    birth : float64 (n_clusters,)
        Lambda at which each cluster appears (0 for the root).
    size : int64 (n_clusters,)
        Points in each cluster at its birth.
    stability : float64 (n_clusters,)
    deaths : float64 (n_clusters,)
        Largest finite lambda of a row leaving each cluster directly (points or child
        clusters); infinite only when every such row leaves at infinity. Copies of a row
        (distance 0) leave at lambda = 1 / 0: counted, they made every other point's
        probability 0 and outlier score NaN in their cluster.
    point_parent : int64 (n,)
        Cluster each point falls out of.
    point_lambda : float64 (n,)
        Lambda at which it does.
    """

    n: int
    parent: np.ndarray
    birth: np.ndarray
    size: np.ndarray
    stability: np.ndarray
    deaths: np.ndarray
    point_parent: np.ndarray
    point_lambda: np.ndarray

    @classmethod
    def from_condensed(cls, n, parent, child, lam, child_size):
        """The tree of the condensed rows ``(parent, child, lambda, child_size)``.

        Examples
        --------
        >>> t = ClusterTree.from_condensed(2, np.array([2, 2]), np.array([0, 1]), np.array([1.0, 2.0]), np.ones(2, int))
        >>> t.stability.tolist(), t.deaths.tolist()
        ([3.0], [2.0])
        """
        n_clusters = int(max(parent.max(initial=n), child.max(initial=n))) - n + 1
        is_cluster = child >= n
        up = np.full(n_clusters, -1, dtype=np.int64)
        birth, size = np.zeros(n_clusters), np.zeros(n_clusters, dtype=np.int64)
        up[child[is_cluster] - n] = parent[is_cluster]
        birth[child[is_cluster] - n] = lam[is_cluster]
        size[child[is_cluster] - n] = child_size[is_cluster]
        size[0] = n
        rows = parent - n
        stability = np.bincount(rows, weights=(lam - birth[rows]) * child_size, minlength=n_clusters)
        deaths = np.zeros(n_clusters)
        finite = np.isfinite(lam)
        np.maximum.at(deaths, rows[finite], lam[finite])
        deaths[np.setdiff1d(rows[~finite], rows[finite])] = np.inf  # clusters of copies alone
        point_parent, point_lambda = np.full(n, n, dtype=np.int64), np.zeros(n)
        point_parent[child[~is_cluster]] = parent[~is_cluster]
        point_lambda[child[~is_cluster]] = lam[~is_cluster]
        return cls(n, up, birth, size, stability, deaths, point_parent, point_lambda)

    @property
    def n_clusters(self):
        return self.parent.size

    def has_children(self):
        """Whether each cluster has child clusters."""
        out = np.zeros(self.n_clusters, dtype=bool)
        out[self.parent[self.parent >= 0] - self.n] = True
        return out

    def subtree_deaths(self):
        """Largest lambda of any point in each cluster's subtree (GLOSH's lambda_max)."""
        deaths = self.deaths.copy()
        for c in range(self.n_clusters - 1, 0, -1):  # children have larger numbers
            p = self.parent[c] - self.n
            deaths[p] = max(deaths[p], deaths[c])
        return deaths


def select_clusters(tree, method="eom", *, epsilon=0.0, max_cluster_size=None, allow_single_cluster=False):
    """Which clusters make the flat clustering: a boolean per cluster.

    'eom' keeps a cluster when its stability is at least the total of the clusters
    kept below it (and it has at most ``max_cluster_size`` points); 'leaf' keeps the
    leaves. With ``epsilon``, a kept cluster born closer than ``epsilon`` is replaced
    by its nearest ancestor born farther than it.

    Examples
    --------
    >>> t = ClusterTree.from_condensed(2, np.array([2, 2]), np.array([0, 1]), np.array([1.0, 2.0]), np.ones(2, int))
    >>> select_clusters(t, allow_single_cluster=True).tolist()
    [True]
    """
    k = tree.n_clusters
    limit = np.inf if max_cluster_size is None else max_cluster_size
    if method == "leaf":
        marked = ~tree.has_children()
        marked[0] = k == 1 and allow_single_cluster
    else:
        marked = _topmost(tree, _excess_of_mass(tree, limit, allow_single_cluster))
    if epsilon > 0.0 and not marked[0]:
        marked = _topmost(tree, _epsilon_merge(tree, marked, epsilon, allow_single_cluster))
    return marked


def _excess_of_mass(tree, limit, allow_single_cluster):
    k, n = tree.n_clusters, tree.n
    marked = np.zeros(k, dtype=bool)
    below = np.zeros(k)  # total kept stability of each cluster's children
    size = tree.size.copy()
    children_size = np.bincount(tree.parent[1:] - n, weights=tree.size[1:], minlength=k) if k > 1 else np.zeros(1)
    size[0] = children_size[0]  # the root's: its child clusters' points (as the hdbscan package)
    for c in range(k - 1, -1 if allow_single_cluster else 0, -1):
        if below[c] > tree.stability[c] or size[c] > limit:
            kept = below[c]
        else:
            marked[c], kept = True, tree.stability[c]
        if c > 0:
            below[tree.parent[c] - n] += kept
    return marked


def _epsilon_merge(tree, marked, epsilon, allow_single_cluster):
    n = tree.n
    chosen = np.zeros_like(marked)
    for c in np.flatnonzero(marked):
        node = c
        if c > 0 and 1.0 / tree.birth[c] < epsilon:
            while True:  # up to the first ancestor born farther apart than epsilon
                up = tree.parent[node] - n
                if up == 0:
                    node = 0 if allow_single_cluster else node
                    break
                node = up
                if 1.0 / tree.birth[node] > epsilon:
                    break
        chosen[node] = True
    return chosen


def _topmost(tree, marked):
    """The marked clusters none of whose ancestors is marked."""
    covered = np.zeros_like(marked)
    for c in range(1, tree.n_clusters):
        p = tree.parent[c] - tree.n
        covered[c] = covered[p] or marked[p]
    return marked & ~covered


def cluster_labels(tree, selected):
    """Flat label of each cluster (its selected ancestor's number, or -1).

    Examples
    --------
    >>> t = ClusterTree.from_condensed(2, np.array([2, 2]), np.array([0, 1]), np.array([1.0, 2.0]), np.ones(2, int))
    >>> cluster_labels(t, np.array([True])).tolist()
    [0]
    """
    numbers = np.cumsum(selected) - 1
    out = np.where(selected, numbers, -1)
    for c in range(1, tree.n_clusters):
        if out[c] < 0:
            out[c] = out[tree.parent[c] - tree.n]
    return out


def label_points(tree, selected, clusters, lambdas, epsilon=0.0):
    """Labels and membership strengths of points that fall out of ``clusters`` at
    ``lambdas`` (the training points, or new points placed in the tree).

    A point takes the label of the selected cluster above where it falls out; its
    strength is its lambda over the largest lambda leaving that cluster (capped at 1).
    When the root is the one selected cluster, only points leaving at or beyond the
    largest lambda leaving the root directly (or ``1 / epsilon``) belong to it.
    """
    labels = cluster_labels(tree, selected)[clusters - tree.n]
    if selected[0]:
        threshold = 1.0 / epsilon if epsilon > 0 else tree.deaths[0]
        labels = np.where(lambdas >= threshold, labels, -1)
    chosen = np.flatnonzero(selected)
    top = tree.deaths[chosen[np.maximum(labels, 0)]] if chosen.size else np.zeros(labels.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        strength = np.where((top == 0) | ~np.isfinite(lambdas), 1.0, np.minimum(lambdas, top) / top)
    return labels, np.where(labels >= 0, strength, 0.0)


def outlier_scores(tree):
    """GLOSH (Campello et al. 2015): ``1 - lambda_p / lambda_max`` of the cluster each
    point leaves, lambda_max over that cluster's whole subtree."""
    top = tree.subtree_deaths()[tree.point_parent - tree.n]
    lam = tree.point_lambda
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = (top - lam) / top
    return np.where((top == 0) | ~np.isfinite(lam), 0.0, scores)
