"""HDBSCAN (Campello, Moulavi & Sander 2013; McInnes & Healy 2017): density-based
clusters of varying density from the minimum spanning tree of mutual reachability,
computed exactly on a k-d tree without forming any n x n matrix."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import ValidatedInputMixin
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import BOOLEAN, CALLABLE, NONE, InstanceOf, Interval, Options, validate_params
from .._validation import check_array, check_precomputed, convert_array
from ..linalg import pairwise_distances
from ..neighbors import (
    KD_TREE_UP_TO,
    PAIRWISE_METRICS,
    PRECOMPUTED_KNN,
    ExactIndex,
    GowerIndex,
    StoredDistances,
    check_metric_params,
    given_neighbors,
    knn_given,
)
from ._base import warn_constant_columns
from ._hdbscan_graph import ReachabilityTree, graph_spanning_tree
from ._hdbscan_input import (
    INFINITE_LABEL,
    MISSING_LABEL,
    check_metric_for_algorithm,
    left_out_rows,
    spread_like_core,
    spread_rows,
)
from ._hdbscan_prim import core_neighbours, prim_fits, prim_spanning_tree
from ._hdbscan_tree import ClusterTree, label_points, outlier_scores, select_clusters
from ._tree_choice import prim_pays

EUCLIDEAN = ("euclidean", "l2")
# other metrics take the dense path: all pairwise distances, as for 'precomputed'
METRICS = (*EUCLIDEAN, "precomputed", "cosine", "gower", *PAIRWISE_METRICS)
MIN_CANDIDATES = 8  # neighbours each point offers the first Boruvka round, at least


class HDBSCAN(GowerTableMixin, ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """Hierarchical density-based clustering, a drop-in for ``sklearn.cluster.HDBSCAN``
    with the hdbscan package's outlier scores and ``approximate_predict``.

    A point's core distance is the distance to its ``min_samples``-th nearest point
    (itself the first); two points are ``max(core_a, core_b, distance / alpha)`` apart
    in mutual reachability. The minimum spanning tree of that graph is found exactly by
    Boruvka rounds on a k-d tree, its single-linkage hierarchy condensed to clusters of
    at least ``min_cluster_size`` points, and the most stable of them kept.

    Rows of ``X`` holding infinity or NaN (with a metric of rows other than 'gower',
    which takes gaps) are left out of the tree and labelled as scikit-learn labels
    them: -2 with probability 0 (infinity), -3 with probability NaN (missing values);
    their core distances are inf or NaN, their outlier scores 1 or NaN.

    Parameters
    ----------
    min_cluster_size : int, default=5
        Smallest group of points that counts as a cluster (at least 2).
    min_samples : int, optional
        Neighbourhood size of the core distance (itself included); default
        ``min_cluster_size``. Larger values call more points noise.
    cluster_selection_epsilon : float, default=0.0
        Clusters that split at a distance below it are merged back into their parent.
    max_cluster_size : int, optional
        'eom' does not keep clusters larger than this (no limit by default).
    metric : str or callable, default='euclidean'
        'euclidean' ('l2'): exact on a k-d tree, no n x n matrix (sparse rows are
        densified). 'precomputed': ``X`` is a square distance matrix (dense, symmetric,
        no NaN; or sparse with the distances it stores, at least ``min_samples - 1``
        per row). 'manhattan', 'chebyshev', 'minkowski', 'cosine', 'correlation',
        'canberra', ... (``lowdim.neighbors.PAIRWISE_METRICS``), 'gower' for mixed tables
        (coded by ``lowdim.preprocessing.mixed_codes``, columns described in
        ``metric_params``), SciPy's 'seuclidean', 'mahalanobis' (``V`` or ``VI``),
        'dice', 'rogerstanimoto', 'russellrao', 'sokalmichener', 'sokalsneath',
        'haversine' (latitude, longitude in radians) and a callable of two rows: all
        pairwise distances (n x n memory, checked first), as for 'precomputed'.
    alpha : float, default=1.0
        Distances are divided by it in mutual reachability (core distances are not).
        Where weights tie, the tree is scikit-learn's (and so are the labels): for
        any ``alpha`` on a small table (Prim's steps), for ``alpha <= 1`` on a larger
        one (above, ties may be resolved differently).
    algorithm : {'auto', 'kd_tree', 'ball_tree', 'brute'}, default='auto'
        Accepted for scikit-learn compatibility: Euclidean feature vectors of a small
        table (``n^2 (d + 32) <= 2^33``: 10,000 rows of 50 features) take Prim's
        algorithm over all pairs as scikit-learn does, in numpy and scipy, so a first
        fit compiles nothing; larger ones the k-d tree kernels (exact); other metrics
        all pairwise distances with Prim's algorithm. A
        metric scikit-learn's KDTree or BallTree does not take (a callable, 'cosine',
        'precomputed', ...) is refused with 'kd_tree' or 'ball_tree', as there.
    leaf_size : int, default=40
        Points per leaf of the k-d tree.
    cluster_selection_method : {'eom', 'leaf'}, default='eom'
        Excess of mass (the most persistent clusters) or the leaves of the condensed
        tree (many small, homogeneous clusters).
    allow_single_cluster : bool, default=False
        Allow one cluster with noise as the result.
    store_centers : {'centroid', 'medoid', 'both'}, optional
        Also compute each cluster's probability-weighted mean and/or medoid (of the
        rows: refused with precomputed distances).
    prediction_data : bool, default=True
        Keep the k-d tree (the training data) for ``approximate_predict``.
    metric_params : dict, optional
        Keyword arguments of the metric: ``{'p': 3}`` for 'minkowski'.
    n_jobs : int, optional
        Accepted as scikit-learn has it; lowdim's kernels use numba's thread pool (all
        cores, or ``NUMBA_NUM_THREADS``), with the same result for any number.
    copy : bool or 'warn', default='warn'
        scikit-learn 1.9's switch for working on a copy of ``X``; lowdim never writes
        to ``X``, so every value behaves as a copy (and none warns).
    precomputed_knn : NeighborGraph or tuple, optional
        Each row's nearest neighbours, found once for many fits (a Euclidean
        ``lowdim.neighbors.NeighborGraph``, or umap-learn's ``(indices, distances)``,
        the point itself first), at least ``min_samples - 1`` of them: the core
        distances come from it and the spanning tree is the minimum one over its
        edges (components it leaves apart joined by their shortest edges). No search
        over the rows: fast on many dimensions, and the exact tree whenever the graph
        holds its edges (more neighbours than ``min_samples`` make that likely).

    Attributes
    ----------
    labels_ : ndarray of int64 (n_samples,)
        Cluster of each point, -1 for noise.
    probabilities_ : ndarray (n_samples,)
        Strength of each point's membership, in [0, 1] (0 for noise).
    outlier_scores_ : ndarray (n_samples,)
        GLOSH outlier score of each point, in [0, 1].
    core_distances_ : ndarray (n_samples,)
    condensed_tree_ : ndarray (n_rows, 4)
        Columns parent, child, lambda_val, child_size as in the hdbscan package:
        clusters numbered from ``n_samples`` (the root), points ``0 .. n_samples - 1``,
        lambda = 1 / distance.
    single_linkage_tree_ : ndarray (n_samples - 1, 4)
        scipy-style linkage of the mutual-reachability spanning tree.
    cluster_persistence_ : ndarray (n_clusters,)
        Stability of each selected cluster.
    centroids_, medoids_ : ndarray (n_clusters, n_features)
        With ``store_centers``.
    training_points_ : ndarray (n_samples, n_features)
        With ``prediction_data`` (for ``approximate_predict``).
    n_features_in_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import HDBSCAN
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (50, 2)), rng.normal(5, 0.3, (50, 2))])
    >>> model = HDBSCAN(min_cluster_size=10).fit(X)
    >>> sorted(set(model.labels_.tolist()) - {-1})
    [0, 1]
    """

    _parameter_constraints = {
        "min_cluster_size": [Interval(int, 2, None, closed="left")],
        "min_samples": [NONE, Interval(int, 1, None, closed="left")],
        "cluster_selection_epsilon": [Interval(float, 0, None, closed="left")],
        "max_cluster_size": [NONE, Interval(int, 1, None, closed="left")],
        "metric": [Options(set(METRICS) | {"haversine"}), CALLABLE],
        "alpha": [Interval(float, 0, None, closed="neither")],
        "algorithm": [Options({"auto", "kd_tree", "ball_tree", "brute"})],
        "leaf_size": [Interval(int, 1, None, closed="left")],
        "cluster_selection_method": [Options({"eom", "leaf"})],
        "allow_single_cluster": [BOOLEAN],
        "store_centers": [NONE, Options({"centroid", "medoid", "both"})],
        "prediction_data": [BOOLEAN],
        "precomputed_knn": PRECOMPUTED_KNN,
        "metric_params": [NONE, InstanceOf(dict)],
        "n_jobs": [NONE, Interval(int, None, None)],
        "copy": [BOOLEAN, Options({"warn"})],
    }

    def __init__(
        self,
        min_cluster_size=5,
        min_samples=None,
        cluster_selection_epsilon=0.0,
        max_cluster_size=None,
        metric="euclidean",
        metric_params=None,
        alpha=1.0,
        algorithm="auto",
        leaf_size=40,
        n_jobs=None,
        cluster_selection_method="eom",
        allow_single_cluster=False,
        store_centers=None,
        copy="warn",
        prediction_data=True,
        precomputed_knn=None,
    ):
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.cluster_selection_epsilon = cluster_selection_epsilon
        self.max_cluster_size = max_cluster_size
        self.metric = metric
        self.alpha = alpha
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.cluster_selection_method = cluster_selection_method
        self.allow_single_cluster = allow_single_cluster
        self.store_centers = store_centers
        self.prediction_data = prediction_data
        self.precomputed_knn = precomputed_knn
        self.metric_params = metric_params
        self.n_jobs = n_jobs
        self.copy = copy

    def _min_samples(self):
        return self.min_cluster_size if self.min_samples is None else self.min_samples

    def fit(self, X, y=None):
        """Find the clusters.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            distances with ``metric='precomputed'``
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_relations()
        X, finite, missing = self._rows_or_distances(X)
        for stale in ("training_points_", "centroids_", "medoids_"):  # from an earlier fit
            self.__dict__.pop(stale, None)
        self._selected_cache = None
        n, m = X.shape[0], self._min_samples()
        if m > n:
            raise ValueError(
                f"min_samples ({m}) must be at most the number of samples in X ({n} sample{'s' if n != 1 else ''}); "
                "lower min_samples (or min_cluster_size, its default) or pass more samples."
            )
        if self.metric != "precomputed":
            warn_constant_columns(X, "HDBSCAN")
        tree, search = self._spanning_tree(X, m)
        self.core_distances_ = tree.core_by_row()
        self._tree_cache = search if self.prediction_data else None
        if self.prediction_data and self.metric in EUCLIDEAN and not sp.issparse(X):
            self.training_points_ = np.asarray(X, dtype=np.float64)  # approximate_predict searches them
        self._build_hierarchy(tree)
        if self.store_centers is not None:
            self._store_centers(X)
        if finite is not None:
            self._place_left_out_rows(finite, missing)
        return self

    def _place_left_out_rows(self, finite, missing):
        """Rows with infinity or NaN (left out of the tree) in the per-row attributes,
        as scikit-learn encodes them: label -2 (infinite) or -3 (missing, NaN first),
        probability 0 or NaN; core distance inf or NaN (how the tree's rows are found
        again); outlier score 1 or NaN."""
        for name, at_inf, at_nan in (
            ("labels_", INFINITE_LABEL, MISSING_LABEL),
            ("probabilities_", 0.0, np.nan),
            ("core_distances_", np.inf, np.nan),
            ("outlier_scores_", 1.0, np.nan),
        ):
            setattr(self, name, spread_rows(getattr(self, name), finite, missing, at_inf, at_nan))

    def _check_loaded(self):
        """A loaded model's NaN and infinity only where rows were left out of the tree:
        NaN core distance with label -3 (probability and outlier score NaN), infinite
        with label -2; everywhere else finite values."""
        labels = np.asarray(self.labels_)
        core, prob, score = (
            np.asarray(getattr(self, a), dtype=np.float64)
            for a in ("core_distances_", "probabilities_", "outlier_scores_")
        )
        missing, infinite = labels == MISSING_LABEL, labels == INFINITE_LABEL
        kept = ~(missing | infinite)
        if not (
            np.isnan(core[missing]).all()
            and np.isnan(prob[missing]).all()
            and np.isposinf(core[infinite]).all()
            and all(np.isfinite(a[kept]).all() for a in (core, prob, score))
            and np.isfinite(prob[infinite]).all()
        ):
            raise ValueError(
                "core_distances_, probabilities_ or outlier_scores_ hold NaN or infinity outside the rows "
                "labelled -3 (missing values) or -2 (infinity)"
            )
        tree = np.asarray(self.condensed_tree_, dtype=np.float64)
        if np.isnan(tree).any() or np.isneginf(tree).any():  # +inf: the lambda (1 / 0) of copies of a row
            raise ValueError("condensed_tree_ holds NaN or -infinity; only a lambda of copies of a row is infinite")

    def _tree_core(self):
        """Core distances of the rows in the tree (those with finite rows)."""
        core = self.core_distances_
        return core[np.isfinite(core)]

    def _check_relations(self):
        """Parameters that do not go together, refused before X is read."""
        check_metric_for_algorithm(self.metric, self.algorithm)
        if not callable(self.metric) and self.metric != "haversine":
            check_metric_params(self.metric, self.metric_params)
        if self.store_centers is not None and self.metric == "precomputed":
            raise ValueError(
                "Cannot store centers when using a precomputed distance matrix: centres are points of the "
                "data's space; pass the rows with their metric, or store_centers=None."
            )

    def _rows_or_distances(self, X):
        """``(X, finite rows mask, NaN rows mask)``, validated: a precomputed matrix
        (square, no NaN), or rows (sparse rows as a dense array: the k-d tree and the
        pairwise metrics need them) of which those with infinity or NaN are left out
        (``left_out_rows``; the masks are None when none is)."""
        if self.metric == "precomputed":
            if sp.issparse(X):
                return self._validate_input(X, reset=True, accept_sparse=True), None, None
            # np.inf: a pair at no finite distance, joined only at the top of the hierarchy
            _check_dense_distances(np.asarray(X))
            return self._validate_input(X, reset=True, validate=convert_array), None, None
        if self.metric == "gower":  # Gower's distance takes gaps
            return self._validate_input(X, reset=True), None, None
        if sp.issparse(X):  # the k-d tree and the pairwise metrics need dense rows
            if self.algorithm in ("kd_tree", "ball_tree"):
                raise ValueError(
                    "Sparse data matrices only support algorithm `brute`: lowdim densifies sparse rows, which "
                    "scikit-learn's trees do not take; pass algorithm='auto' or 'brute'."
                )
            n, d = X.shape
            require_memory(8 * n * d, f"HDBSCAN on sparse {n} x {d} rows (as a dense array)", "reduce the features")
            X = X.toarray()
        # rows with infinity or NaN are labelled apart: only the rows kept are checked
        X, finite, missing = left_out_rows(self._validate_input(X, reset=True, validate=convert_array))
        return check_array(X, estimator_name="HDBSCAN"), finite, missing

    def _spanning_tree(self, X, m):
        """``(ReachabilityTree, kd-tree or None)``: the mutual-reachability spanning tree
        with what Prim's tie rule needs, and the search tree it was found with (kept for
        ``approximate_predict``)."""
        from .._kernels.kdtree import build_tree, knn_query
        from .._kernels.reachability_tree import dense_reachability_mst, reachability_mst

        if knn_given(self.precomputed_knn) or sp.issparse(X):
            return self._graph_tree(X, m), None
        if self.metric in EUCLIDEAN and prim_fits(X):
            return self._prim_tree(X, m), None
        if self.metric not in EUCLIDEAN:
            # a precomputed matrix was checked with the input (_rows_or_distances)
            D = np.asarray(X, dtype=np.float64) if self.metric == "precomputed" else self._pairwise(X)
            core = np.partition(D, m - 1, axis=1)[:, m - 1].astype(np.float64)
            knn = np.argsort(D, axis=1, kind="stable")[:, :m]
            a, b, w = dense_reachability_mst(D, core, float(self.alpha))
            return ReachabilityTree(a, b, w, np.arange(D.shape[0]), knn, np.take_along_axis(D, knn, 1), core), None
        search = build_tree(X, leaf_size=self.leaf_size)
        points, order = search[0], search[1]
        dist, pos = knn_query(points, *search[2:], points, min(max(m, MIN_CANDIDATES), X.shape[0]))
        core = dist[:, m - 1].copy()
        if X.shape[1] > KD_TREE_UP_TO and prim_pays(dist):
            screened = self._screened_tree(X, order, pos[:, :m], dist[:, :m])
            if screened is not None:
                return screened, search
        a, b, w = reachability_mst(points, *search[2:], core, dist, pos, float(self.alpha))
        return ReachabilityTree(order[a], order[b], w, order, pos[:, :m], dist[:, :m], core), search

    def _prim_tree(self, X, m):
        """``_spanning_tree`` of a small table by Prim's algorithm over all pairs, in
        numpy and scipy (``_hdbscan_prim``): a first fit compiles no kernel."""
        X = np.asarray(X, dtype=np.float64)
        nbr, dist = core_neighbours(X, m)
        core = dist.max(axis=1)
        a, b, w = prim_spanning_tree(X, core, float(self.alpha))
        return ReachabilityTree(a, b, w, np.arange(X.shape[0]), nbr, dist, core, prim_ordered=True, interpreted=True)

    def _screened_tree(self, X, order, pos, dist):
        """``_spanning_tree`` of rows that fill their space (``prim_pays``), where the
        k-d tree's rounds cost more than Prim's steps over all pairs, screened in float32
        (``screened_prim``), from the k-d tree's core neighbours (``order``: position ->
        row; ``pos``, ``dist``: each position's); None for rows beyond float32's range."""
        from .._kernels.linkage import screened_prim

        nbr, nbr_dist = np.empty_like(pos), np.empty_like(dist)
        nbr[order], nbr_dist[order] = order[pos], dist  # positions -> rows
        core = nbr_dist[:, -1].copy()
        found = screened_prim(X, core, float(self.alpha))
        if found is None:
            return None
        return ReachabilityTree(*found, np.arange(X.shape[0]), nbr, nbr_dist, core, prim_ordered=True)

    def _pairwise(self, X):
        """All distances between the rows in a metric other than Euclidean (dense: n x n)."""
        n = X.shape[0]
        require_memory(n * n * 8, f"HDBSCAN(metric={self.metric!r}) on {n} samples", "use metric='euclidean'")
        if self.metric == "gower":  # a pair with no column in common is never near
            D = GowerIndex("gower", self._distance_params()).build(X).pairwise(X)
            return np.where(np.isnan(D), np.inf, D)
        if callable(self.metric) or self.metric in ("cosine", "haversine"):
            metric, params = self.metric, self.metric_params
        else:
            metric, params = PAIRWISE_METRICS[self.metric], check_metric_params(self.metric, self.metric_params)
        return pairwise_distances(np.asarray(X, dtype=np.float64), metric=metric, metric_params=params)

    def _graph_tree(self, X, m):
        """``_spanning_tree`` from ``precomputed_knn`` or a sparse precomputed ``X``'s
        stored distances: no search over the rows."""
        n, fewest = X.shape[0], max(m - 1, 1)
        if sp.issparse(X):  # every stored distance: the more edges, the nearer the exact tree
            D = sp.csr_matrix(X, dtype=np.float64)
            from .._kernels.components import connected_components

            stored = np.diff(D.indptr) - (D.diagonal() != 0)  # others stored per row
            if stored.min(initial=fewest) < fewest:
                raise ValueError(
                    f"There exists points with fewer than {fewest} neighbors. Ensure your distance matrix has "
                    f"non-zero values for at least min_samples - 1 = {fewest} neighbours of each point (a kNN "
                    f"graph): row {int(np.argmin(stored))} stores {int(stored.min())}."
                )
            pieces = connected_components(D + D.T)[0]
            if pieces > 1:  # no stored distance joins them: nothing to build one tree from
                raise ValueError(
                    f"HDBSCAN cannot be performed on a disconnected graph: the sparse distance matrix has "
                    f"{pieces} connected components with no stored distance between them; store distances "
                    "that join them, or pass a dense matrix."
                )
            given = given_neighbors(X, n - 1, metric="precomputed", name="HDBSCAN", minimum=fewest)
            return graph_spanning_tree(D, *given, m, float(self.alpha), StoredDistances())
        if self.metric == "precomputed":
            raise ValueError(
                "precomputed_knn replaces the search over the rows; with metric='precomputed' every "
                "distance is given already: pass one of them."
            )
        given = given_neighbors(
            X, n - 1, precomputed_knn=self.precomputed_knn, metric="euclidean", name="HDBSCAN", minimum=fewest
        )
        X64 = np.asarray(X, dtype=np.float64)
        return graph_spanning_tree(X64, *given, m, float(self.alpha), ExactIndex().build(X64))

    def _build_hierarchy(self, tree):
        from .._kernels.cluster_tree import condense, prim_tree, single_linkage

        tree = _finite_heights(tree)
        if tree.a.size == 0:  # one point: noise
            left = right = sizes = np.empty(0, dtype=np.int64)
            dist = np.empty(0)
            rows = (left,) * 4
        else:
            # a small table's tree runs the kernels' Python source: its first fit compiles nothing
            link, cut = (single_linkage.py_func, condense.py_func) if tree.interpreted else (single_linkage, condense)
            source, target, weight = (
                (tree.a, tree.b, tree.weight) if tree.prim_ordered else prim_tree(*tree[:7], self.alpha)
            )
            # numpy's default (unstable) sort, as scikit-learn: it orders the merges at equal heights
            ranks = np.argsort(weight)
            left, right, dist, sizes = link(source[ranks], target[ranks], weight[ranks])
            rows = cut(left, right, dist, sizes, self.min_cluster_size)
        self.single_linkage_tree_ = np.column_stack([left, right, dist, sizes]).astype(np.float64)
        self.condensed_tree_ = np.column_stack([np.asarray(r, dtype=np.float64) for r in rows]).reshape(-1, 4)
        tree, selected = self._selection()
        self.labels_, self.probabilities_ = label_points(
            tree, selected, tree.point_parent, tree.point_lambda, self.cluster_selection_epsilon
        )
        self.outlier_scores_ = outlier_scores(tree)
        self.cluster_persistence_ = _persistence(tree, selected, self.labels_)

    def _selection(self):
        """The cluster tree of ``condensed_tree_`` and the selected clusters (cached:
        a loaded model rebuilds them on first use)."""
        if getattr(self, "_selected_cache", None) is None:
            rows = self.condensed_tree_
            ints = [rows[:, c].astype(np.int64) for c in (0, 1, 3)]
            n = self.single_linkage_tree_.shape[0] + 1  # the rows in the tree
            tree = ClusterTree.from_condensed(n, ints[0], ints[1], rows[:, 2], ints[2])
            selected = select_clusters(
                tree,
                self.cluster_selection_method,
                epsilon=self.cluster_selection_epsilon,
                max_cluster_size=self.max_cluster_size,
                allow_single_cluster=self.allow_single_cluster,
            )
            self._selected_cache = (tree, selected)
        return self._selected_cache

    def _kd_tree(self):
        """The k-d tree of ``training_points_`` (cached; rebuilt after loading)."""
        from .._kernels.kdtree import build_tree

        if getattr(self, "_tree_cache", None) is None:
            self._tree_cache = build_tree(self.training_points_, leaf_size=self.leaf_size)
        return self._tree_cache

    def _store_centers(self, X):
        k = int(self.labels_.max()) + 1
        X64 = np.asarray(X, dtype=np.float64)
        if self.store_centers in ("centroid", "both"):
            self.centroids_ = np.array(
                [
                    np.average(X64[self.labels_ == c], axis=0, weights=self.probabilities_[self.labels_ == c])
                    for c in range(k)
                ]
            ).reshape(k, X.shape[1])
        if self.store_centers in ("medoid", "both"):
            self.medoids_ = np.array(
                [_medoid(X64[self.labels_ == c], self.probabilities_[self.labels_ == c]) for c in range(k)]
            ).reshape(k, X.shape[1])

    def approximate_predict(self, X):
        """Labels and membership strengths of new points, placed in the fitted tree
        without refitting: each joins the cluster alive at the lambda of its nearest
        mutual-reachability neighbour among the training points (the hdbscan
        package's method). A new point's core distance is that of the fit, counting
        itself: the distance to its ``min_samples - 1``-th nearest training point. A
        training point passed again thus has a smaller core distance than in the fit
        (its copy in the training set is one of its neighbours), and keeps its label
        except at the fringe of a cluster.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)

        Returns
        -------
        labels : ndarray of int64 (n_new,)
        probabilities : ndarray (n_new,)
        """
        check_is_fitted(self)
        if not hasattr(self, "training_points_"):
            raise ValueError(
                "approximate_predict needs the training points: fit with prediction_data=True and metric='euclidean'."
            )
        X = self._validate_input(X, reset=False)
        nearest, lam = self._nearest_reachable(X)
        cluster_tree, selected = self._selection()
        clusters = _alive_clusters(cluster_tree, nearest, lam)
        return label_points(cluster_tree, selected, clusters, lam, self.cluster_selection_epsilon)

    def _nearest_reachable(self, X):
        """Each new row's nearest training point by mutual reachability (among its
        ``min_samples`` nearest) and the lambda of that distance."""
        from .._kernels.kdtree import knn_query

        tree = self._kd_tree()
        points, order = tree[0], tree[1]
        m = self._min_samples()
        dist, pos = knn_query(points, *tree[2:], np.asarray(X, dtype=np.float64), m)
        own_core = dist[:, m - 2] if m > 1 else np.zeros(X.shape[0])
        reach = np.maximum(np.maximum(own_core[:, None], self._tree_core()[order[pos]]), dist / self.alpha)
        best = np.argmin(reach, axis=1)
        with np.errstate(divide="ignore"):
            return order[pos[np.arange(X.shape[0]), best]], 1.0 / reach[np.arange(X.shape[0]), best]

    def dbscan_clustering(self, cut_distance, min_cluster_size=5):
        """DBSCAN-like labels at one cut of the single-linkage tree: points joined at
        mutual-reachability distance below ``cut_distance``, in groups of at least
        ``min_cluster_size``; the rest noise (-1).

        Parameters
        ----------
        cut_distance : float
        min_cluster_size : int, default=5

        Returns
        -------
        ndarray of int64 (n_samples,)
        """
        from scipy.sparse import coo_matrix

        check_is_fitted(self)
        L = self.single_linkage_tree_
        n = L.shape[0] + 1
        parent = np.arange(2 * n - 1)
        for r in range(L.shape[0]):  # union the merges below the cut
            if L[r, 2] < cut_distance:
                parent[int(L[r, 0])] = parent[int(L[r, 1])] = n + r
        joined = np.flatnonzero(parent[: 2 * n - 2] != np.arange(2 * n - 2))
        G = coo_matrix((np.ones(joined.size), (joined, parent[joined])), shape=(2 * n - 1, 2 * n - 1))
        from .._kernels.components import connected_components

        _, comp = connected_components(G.tocsr())  # union-find: one direction suffices
        comp = comp[:n]
        sizes = np.bincount(comp)
        big = np.flatnonzero(sizes >= min_cluster_size)
        numbers = np.full(sizes.size, -1)
        numbers[big] = np.arange(big.size)
        return spread_like_core(numbers[comp].astype(np.int64), self.core_distances_, INFINITE_LABEL, MISSING_LABEL)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.allow_nan = self.metric != "precomputed"  # rows with NaN are labelled apart
        tags.input_tags.sparse = True  # distances stored, or rows (densified)
        return tags


def _alive_clusters(tree, nearest, lam):
    """The cluster a new point at ``lam`` joins: its neighbour's, or the ancestor still
    alive at ``lam`` when the neighbour stayed in to a larger lambda."""
    out = tree.point_parent[nearest].copy()
    for i in np.flatnonzero(tree.point_lambda[nearest] > lam):
        c = out[i] - tree.n
        while c > 0 and tree.birth[c] >= lam[i]:
            c = tree.parent[c] - tree.n
        out[i] = c + tree.n
    return out


def _persistence(tree, selected, labels):
    """Each selected cluster's stability over its size times the largest lambda (in [0, 1])."""
    top = tree.point_lambda.max(initial=0.0)
    sizes = np.bincount(labels[labels >= 0], minlength=int(selected.sum()))
    if not np.isfinite(top) or top == 0:
        return np.ones(sizes.size)
    return tree.stability[selected] / (np.maximum(sizes, 1) * top)


def _medoid(points, weights, block=2048):
    """The point with the smallest weighted sum of distances to the others."""
    from ..linalg import sq_euclidean

    totals = np.empty(points.shape[0])
    for start in range(0, points.shape[0], block):
        D = np.sqrt(np.maximum(sq_euclidean(points[start : start + block], points), 0.0))
        totals[start : start + block] = D @ weights
    return points[np.argmin(totals)]


# How far above the highest finite merge the tree joins rows at no finite distance
# (np.inf in a precomputed matrix): the kernels index by finite heights, and a cluster
# born there has lambda = 1 / height, 1e-12 of any finite one's (scikit-learn's: 0).
NO_FINITE_DISTANCE = 1e12


def _finite_heights(tree):
    """``tree`` with its infinite edges (pieces at no finite distance from each other)
    at ``NO_FINITE_DISTANCE`` times its highest finite edge."""
    infinite = ~np.isfinite(tree.weight)
    if not infinite.any():
        return tree
    finite = tree.weight[~infinite]
    top = NO_FINITE_DISTANCE * max(
        float(finite.max(initial=0.0)), float(np.max(tree.core, where=np.isfinite(tree.core), initial=0.0)), 1.0
    )
    return tree._replace(
        weight=np.where(infinite, top, tree.weight),
        core=np.where(np.isfinite(tree.core), tree.core, top),
        nbr_dist=np.where(np.isfinite(tree.nbr_dist), tree.nbr_dist, top),
    )


def _check_dense_distances(D):
    """A dense precomputed matrix: no NaN (the hdbscan package's sentence), square,
    symmetric (Prim's tree reads each pair once)."""
    if D.dtype.kind == "f" and np.isnan(D).any():
        raise ValueError(
            "np.nan values found in precomputed-dense: a distance matrix has no missing entries; use np.inf for "
            "pairs at no finite distance, or a sparse matrix storing the known distances."
        )
    if D.dtype.kind in "fiu":
        check_precomputed(D, symmetric=True)
