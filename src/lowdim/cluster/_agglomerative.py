"""Agglomerative (hierarchical) clustering: the whole merge tree and its cut.

Without a connectivity graph, Ward's, complete and average linkage run the
nearest-neighbour chain on the full distance matrix (O(n^2) time and 8 n^2 bytes); single
linkage is the minimum spanning tree (a k-d tree Boruvka for Euclidean data of up to 16
columns, Prim's algorithm in O(n) memory otherwise). With a connectivity graph, only
linked clusters merge, greedily by linkage; the graph is symmetrised and a disconnected one
completed by the shortest edges between its components (with a warning).
"""

import heapq
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import BOOLEAN, CALLABLE, NONE, HasMethods, InstanceOf, Interval, Options, validate_params
from .._validation import check_precomputed
from .._warnings import warn_user
from ..neighbors import KD_TREE_UP_TO, GowerIndex, join_components
from ._base import check_n_clusters, gower_comparable, warn_constant_columns, warn_found_fewer

LINKAGES = {"ward": 0, "complete": 1, "average": 2, "single": 3}  # the kernels' codes for the first three
METRICS = {"euclidean": 0, "l2": 0, "manhattan": 1, "l1": 1, "cityblock": 1, "cosine": 2}
TINY = np.finfo(np.float64).tiny  # scipy's spanning tree reads a zero weight as no edge
# Trees of up to this many points are linked and cut by the kernels' Python source
# (py_func): tens of milliseconds, where compiling those kernels costs a first fit 0.4 s
SMALL_TREE = 1 << 15


def _distances(X, metric):
    """The full distance matrix (float64, a fresh array the merges may overwrite)."""
    from .._kernels.linkage import distance_matrix

    if metric == "precomputed":
        return np.array(X, dtype=np.float64)
    if callable(metric):
        return np.array(metric(X), dtype=np.float64)
    # a fresh, writable copy: a read-only input (a memory map) would compile the kernel anew
    return distance_matrix(np.array(X, dtype=np.float64, order="C"), METRICS[metric])


def _spanning_tree(X, metric):
    """Edges ``(a, b, weight)`` of a minimum spanning tree of all pairs of rows."""
    from .._kernels.linkage import euclidean_prim_tree, prim_tree
    from .._kernels.reachability_tree import dense_reachability_mst

    n = X.shape[0]
    if metric == "precomputed" or callable(metric):
        return dense_reachability_mst(_distances(X, metric), np.zeros(n))
    X = np.array(X, dtype=np.float64, order="C")  # writable: see _distances
    if METRICS[metric] == 0 and X.shape[1] <= KD_TREE_UP_TO:
        from .._kernels.kdtree import build_tree, knn_query
        from .._kernels.reachability_tree import reachability_mst

        tree = build_tree(X, leaf_size=16)
        dist, pos = knn_query(tree[0], *tree[2:], tree[0], 2)
        a, b, w = reachability_mst(tree[0], *tree[2:], np.zeros(n), dist, pos)
        return tree[1][a], tree[1][b], w  # tree positions -> rows
    if METRICS[metric] == 0:
        return euclidean_prim_tree(X)
    return prim_tree(X, METRICS[metric])


def _tree_from_edges(a, b, w):
    """scipy's linkage order: merges sorted by distance (ties in the order given), each
    pair as (smaller node, larger node); ``(children, distances)``."""
    from .._kernels.cluster_tree import single_linkage

    order = np.argsort(w, kind="stable")
    link = single_linkage.py_func if a.size <= SMALL_TREE else single_linkage
    left, right, dist, _ = link(a[order].astype(np.int64), b[order].astype(np.int64), w[order])
    return np.sort(np.column_stack([left, right]), axis=1), dist


def _unstructured(X, metric, linkage):
    """The full tree without a connectivity graph: ``(children, distances)``."""
    from .._kernels.linkage import nn_chain

    if linkage == "single":
        return _tree_from_edges(*_spanning_tree(X, metric))
    return _tree_from_edges(*nn_chain(_distances(X, metric), LINKAGES[linkage]))


def _edge_lengths(X, rows, cols, metric):
    """Distances of the graph's edges (pairs of rows), or read from a precomputed matrix."""
    if metric == "precomputed":
        return np.asarray(X[rows, cols], dtype=np.float64).ravel()
    if callable(metric):
        return np.array([float(metric(X[[i]], X[[j]])[0, 0]) for i, j in zip(rows, cols)])
    Xr, Xc = np.asarray(X[rows], dtype=np.float64), np.asarray(X[cols], dtype=np.float64)
    code = METRICS[metric]
    if code == 0:
        return np.sqrt(((Xr - Xc) ** 2).sum(axis=1))
    if code == 1:
        return np.abs(Xr - Xc).sum(axis=1)
    dots = (Xr * Xc).sum(axis=1) / (np.linalg.norm(Xr, axis=1) * np.linalg.norm(Xc, axis=1))
    return np.maximum(0.0, 1.0 - dots)


def _fixed_connectivity(C, X, metric):
    """The graph symmetrised, without self-loops, a disconnected one completed; and its
    number of components before completion."""
    n = X.shape[0]
    if C.shape != (n, n):
        raise ValueError(
            f"Wrong shape for connectivity matrix: {C.shape} when X is {X.shape}; pass one row per sample."
        )
    C = sp.csr_matrix(C, dtype=np.float64)
    C = (abs(C) + abs(C.T)).tocsr()
    C.setdiag(0)
    C.eliminate_zeros()
    n_components = connected_components(C, directed=False)[0]
    if n_components > 1:
        warn_user(
            f"the number of connected components of the connectivity matrix is {n_components} > 1. Completing it "
            "to avoid stopping the tree early (by the shortest edges between the components)."
        )
        C = _completed(C, X, metric)
    C.data[:] = 1.0
    return C, n_components


def _completed(C, X, metric):
    """The graph joined by the shortest edges between its components under the clustering's
    metric (an exact index of the rows; a matrix only for a callable metric). The caller's
    warning, which names this estimator's fix, replaces the join's own."""
    from ..neighbors import make_index

    if callable(metric) or metric == "precomputed":
        rows, name = _distances(X, metric), "precomputed"
    else:
        rows, name = np.asarray(X, dtype=np.float64), {"l2": "euclidean"}.get(metric, metric)
    index = make_index("exact", name, X.shape[0]).build(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return sp.csr_matrix(join_components(C, rows, name="connectivity", index=index))


def _structured(X, C, metric, linkage, n_merges):
    """The first ``n_merges`` merges along the connectivity graph ``C``:
    ``(children, distances, parent)``."""
    from .._kernels.linkage import connected_merges

    C = sp.csr_matrix(C)
    C.sort_indices()
    rows = np.repeat(np.arange(C.shape[0]), np.diff(C.indptr))
    lengths = _edge_lengths(X, rows, C.indices, metric)
    if linkage == "single":
        G = sp.csr_matrix((np.maximum(lengths, TINY), C.indices, C.indptr), shape=C.shape)
        T = minimum_spanning_tree(G).tocoo()
        children, dist = _tree_from_edges(T.row, T.col, np.where(T.data == TINY, 0.0, T.data))
        return children, dist, None  # the whole tree, as scikit-learn's; the cut reads the parents
    points = np.ascontiguousarray(X, dtype=np.float64) if linkage == "ward" else np.zeros((C.shape[0], 1))
    indptr, indices = C.indptr.astype(np.int64), C.indices.astype(np.int64)
    return connected_merges(indptr, indices, lengths, points, LINKAGES[linkage], n_merges)


def cut_tree(children, n_clusters):
    """Labels of the leaves when the tree is cut into ``n_clusters`` clusters: the
    ``n_clusters - 1`` last merges undone, numbered as scikit-learn's ``_hc_cut``.

    Parameters
    ----------
    children : ndarray of int (n_samples - 1, 2)
        The merges, scikit-learn's ``children_`` (node ``n + i`` is merge i).
    n_clusters : int

    Returns
    -------
    ndarray of int64 (n_samples,)

    Examples
    --------
    >>> cut_tree(np.array([[0, 1], [2, 3]]), 2).tolist()
    [0, 0, 1]
    """
    from .._kernels.linkage import node_labels

    n = children.shape[0] + 1
    check_n_clusters(n_clusters, n)
    nodes = [-(int(children[-1].max()) + 1)] if n > 1 else [0]
    for _ in range(n_clusters - 1):
        pair = children[-nodes[0] - n]
        heapq.heappush(nodes, -int(pair[0]))
        heapq.heappushpop(nodes, -int(pair[1]))
    node_label = np.full(2 * n - 1, -1, dtype=np.int64)
    node_label[[-node for node in nodes]] = np.arange(len(nodes))
    spread = node_labels.py_func if n <= SMALL_TREE else node_labels
    return spread(np.asarray(children, dtype=np.int64), node_label, n)


def _clusters_apart(heights, n_clusters, n):
    """``n_clusters``, or fewer with a warning when the merges at height 0 (copies of a
    row) leave fewer groups: cutting one of them would split a row's copies between
    clusters at random (scikit-learn's cut does)."""
    apart = n - int(np.count_nonzero(np.asarray(heights)[: n - 1] == 0))
    if apart < n_clusters:
        warn_found_fewer(apart, n_clusters, "AgglomerativeClustering")
        return apart
    return n_clusters


def _heads(parent, n):
    """Each leaf's topmost node in a partial tree, as labels 0..k-1 in node order."""
    top = np.arange(n)
    while True:
        up = parent[top]
        if np.array_equal(up, top):
            break
        top = up
    return np.searchsorted(np.unique(top), top).astype(np.int64)


def _partial_parents(children, n, n_merges):
    """The parent of every node after the first ``n_merges`` merges (roots: themselves)."""
    parent = np.arange(n + n_merges)
    parent[children[:n_merges].ravel()] = np.repeat(n + np.arange(n_merges), 2)
    return parent


class AgglomerativeClustering(GowerTableMixin, ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """Hierarchical clustering by successive merges, a drop-in for
    ``sklearn.cluster.AgglomerativeClustering``.

    Each step merges the two clusters at the smallest linkage: Ward's (the smallest rise
    in within-cluster variance), complete (farthest pair), average (mean pair) or single
    (closest pair). The tree (``children_``) is cut into ``n_clusters`` clusters, or where
    merges are at least ``distance_threshold`` apart. The same tree as scikit-learn's
    (and scipy's): without ties, the same labels (single linkage: the same clusters,
    possibly numbered otherwise, since scikit-learn orders each merge's pair by Prim's
    visiting order).

    Parameters
    ----------
    n_clusters : int or None, default=2
        None with ``distance_threshold``.
    metric : str or callable, default='euclidean'
        'euclidean' ('l2'), 'manhattan' ('l1', 'cityblock'), 'cosine', 'precomputed' (X
        holds the distances), 'gower' for a mixed table (a DataFrame with text, category
        or boolean columns, or category codes; gaps allowed: R's ``hclust`` of ``daisy``)
        or a callable returning the distance matrix of X. Ward's linkage needs
        'euclidean'. With 'gower' two rows that share no column with a value are as far
        apart as Gower's distance goes (1).
    memory : str or object with a ``cache`` method, optional
        A joblib cache for the tree (a directory, or ``joblib.Memory``).
    connectivity : sparse matrix, array-like or callable, optional
        Which samples may merge: a graph (n_samples x n_samples), or a callable returning
        it from X (``lowdim.neighbors.KNeighborsTransformer(mode='connectivity')``'s
        output, for instance).
    compute_full_tree : 'auto' or bool, default='auto'
        With a connectivity graph, stop at ``n_clusters`` (False) or build the whole tree;
        'auto' builds it when ``n_clusters`` is below max(100, 0.02 n_samples) or with
        ``distance_threshold``. Without a graph the whole tree is always built.
    linkage : {'ward', 'complete', 'average', 'single'}, default='ward'
    distance_threshold : float, optional
        Cut where merges are at least this far apart (then ``n_clusters=None``).
    compute_distances : bool, default=False
        Keep ``distances_`` without ``distance_threshold``.
    metric_params : dict, optional
        Gower's keywords ('categorical', 'ordinal', 'weights': column numbers and
        weights); a DataFrame's category columns are found without them.

    Attributes
    ----------
    n_clusters_ : int
        ``n_clusters``, or the count ``distance_threshold`` gives; fewer (with a
        warning) when copies of rows leave fewer groups apart above height 0.
    labels_ : ndarray of int64 (n_samples,)
    n_leaves_ : int
    n_connected_components_ : int
        Of the connectivity graph before it was completed (1 without one).
    children_ : ndarray of int (n_merges, 2)
        Merge i joins nodes ``children_[i]`` into node ``n_samples + i`` (nodes below
        ``n_samples`` are the samples).
    distances_ : ndarray of float (n_merges,)
        The linkage of each merge; with ``distance_threshold`` or ``compute_distances``.
        Ward's is ``sqrt(2 n_a n_b / (n_a + n_b)) |c_a - c_b|`` (scipy's).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The columns' names, when fitted on a DataFrame.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category or
        boolean columns: each column's name, kind and category levels.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import AgglomerativeClustering
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [9.0, 9.0], [9.0, 8.0]])
    >>> AgglomerativeClustering(n_clusters=2).fit(X).labels_.tolist()
    [1, 1, 0, 0]
    >>> import pandas as pd
    >>> table = pd.DataFrame({"size": [1.0, 1.2, 9.0, None], "colour": ["red", "red", "blue", "blue"]})
    >>> AgglomerativeClustering(2, metric="gower", linkage="average").fit(table).labels_.tolist()
    [0, 0, 1, 1]
    """

    _parameter_constraints = {
        "n_clusters": [NONE, Interval(int, 1, None, closed="left")],
        "metric": [Options({"precomputed", "gower", *METRICS}), CALLABLE],
        "memory": [NONE, InstanceOf(str), HasMethods(["cache"])],
        "connectivity": [NONE, CALLABLE, InstanceOf(np.ndarray, sp.spmatrix, sp.sparray, list)],
        "compute_full_tree": [Options({"auto"}), BOOLEAN],
        "linkage": [Options(set(LINKAGES))],
        "distance_threshold": [NONE, Interval(float, 0, None, closed="left")],
        "compute_distances": [BOOLEAN],
        "metric_params": [NONE, InstanceOf(dict)],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        metric="euclidean",
        memory=None,
        connectivity=None,
        compute_full_tree="auto",
        linkage="ward",
        distance_threshold=None,
        compute_distances=False,
        metric_params=None,
    ):
        self.n_clusters = n_clusters
        self.metric = metric
        self.memory = memory
        self.connectivity = connectivity
        self.compute_full_tree = compute_full_tree
        self.linkage = linkage
        self.distance_threshold = distance_threshold
        self.compute_distances = compute_distances
        self.metric_params = metric_params

    def _check_choices(self):
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise ValueError(
                "Exactly one of n_clusters and distance_threshold has to be set, and the other needs to be None; "
                f"got n_clusters={self.n_clusters}, distance_threshold={self.distance_threshold}."
            )
        if self.distance_threshold is not None and self.compute_full_tree is False:
            raise ValueError(
                "compute_full_tree must be True if distance_threshold is set; pass compute_full_tree='auto'."
            )
        if self.linkage == "ward" and self.metric not in ("euclidean", "l2"):
            raise ValueError(
                f"{self.metric} was provided as metric. Ward can only work with euclidean distances (i.e. 'euclidean' "
                "and 'l2'); use linkage='average', 'complete' or 'single' for other metrics."
            )

    def _checked_data(self, X):
        X = self._validate_input(X, reset=True)
        n = X.shape[0]
        if self.metric == "precomputed":
            check_precomputed(X, symmetric=True)  # the nearest-neighbour chain needs one distance per pair
        nonzero = np.any(X != 0, axis=1)
        if self.metric == "cosine" and not nonzero.all():
            raise ValueError(
                f"Cosine affinity cannot be used when X contains zero vectors (row {int(np.argmin(nonzero))}); drop "
                "the zero rows or use another metric."
            )
        if self.n_clusters is not None:
            check_n_clusters(self.n_clusters, n)
        if self.metric not in ("precomputed", "gower"):  # Gower's distance scales each column by its range
            warn_constant_columns(X, "AgglomerativeClustering")
        return X

    def _gower_matrix(self, X):
        """Gower's distances of the rows (what the tree is built on, as 'precomputed')."""
        n = X.shape[0]
        require_memory(
            9 * n * n,  # the float64 matrix and a boolean mask of its gaps
            f"AgglomerativeClustering(metric='gower') on {n} samples (an n x n distance matrix)",
            "subsample the rows, or use HDBSCAN or KMedoids(method='alternate') with metric='gower'",
        )
        return gower_comparable(GowerIndex("gower", self._distance_params()).build(X).pairwise(X))

    def _full_tree(self, n):
        if self.connectivity is None or self.distance_threshold is not None:
            return True
        if self.compute_full_tree == "auto":
            return self.n_clusters < max(100, 0.02 * n)
        return bool(self.compute_full_tree)

    def fit(self, X, y=None):
        """Build the tree and cut it.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or distances with 'precomputed'
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_choices()
        X = self._checked_data(X)
        n = X.shape[0]
        full = self._full_tree(n)
        n_merges = n - 1 if full else n - self.n_clusters
        metric, connectivity = self.metric, self.connectivity
        if metric == "gower":  # the tree of the distance matrix; a callable graph reads the rows
            connectivity = connectivity(X) if callable(connectivity) else connectivity
            metric, X = "precomputed", self._gower_matrix(X)
        children, dist, parent, self.n_connected_components_ = self._cached_tree()(
            X, connectivity, metric, self.linkage, n_merges
        )
        if not full and n_merges and dist[n_merges - 1] == 0:  # copies still apart: the whole tree tells how many
            full = True
            children, dist, parent, _ = self._cached_tree()(X, connectivity, metric, self.linkage, n - 1)
        self.children_, self.n_leaves_ = children, n
        if self.distance_threshold is not None or self.compute_distances:
            self.distances_ = dist
        if self.distance_threshold is not None:
            self.n_clusters_ = int(np.count_nonzero(dist >= self.distance_threshold)) + 1
        else:
            self.n_clusters_ = _clusters_apart(dist, self.n_clusters, n)
        self.labels_ = cut_tree(children, self.n_clusters_) if full else _heads(parent, n)
        return self

    def _cached_tree(self):
        if self.memory is None:
            return build_tree
        if isinstance(self.memory, str):
            from joblib import Memory

            return Memory(self.memory, verbose=0).cache(build_tree)
        return self.memory.cache(build_tree)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags


def build_tree(X, connectivity, metric, linkage, n_merges):
    """The merge tree of ``AgglomerativeClustering``: ``(children, distances, parent,
    n_connected_components)``; ``parent`` is None for the whole tree.

    Parameters
    ----------
    X : ndarray (n, d), or distances with metric='precomputed'
    connectivity : graph, callable or None
    metric : str or callable
    linkage : str
    n_merges : int
        ``n - 1`` for the whole tree; fewer only with a connectivity graph.

    Returns
    -------
    tuple

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [5.0]])
    >>> build_tree(X, None, "euclidean", "single", 2)[0].tolist()
    [[0, 1], [2, 3]]
    """
    n = X.shape[0]
    if n == 1:  # nothing to merge: one cluster
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0), None, 1
    if connectivity is None:
        children, dist = _unstructured(X, metric, linkage)
        return children, dist, None, 1
    C = connectivity(X) if callable(connectivity) else connectivity
    C, n_components = _fixed_connectivity(C, X, metric)
    children, dist, parent = _structured(X, C, metric, linkage, n_merges)
    if parent is None and n_merges < n - 1:
        parent = _partial_parents(children, n, n_merges)
    return children, dist, parent, n_components
