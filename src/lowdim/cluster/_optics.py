"""OPTICS (Ankerst, Breunig, Kriegel & Sander 1999): an ordering of the points with a
reachability distance each, whose valleys are the clusters at every density at once."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._memory import available_bytes, require_memory
from .._mixed_input import GowerTableMixin
from .._params import BOOLEAN, NONE, InstanceOf, Interval, Options, validate_params
from .._validation import check_precomputed
from .._warnings import warn_user
from ..linalg import distance_blocks
from ..neighbors import (
    INDEX_METRICS,
    KD_TREE_UP_TO,
    SPARSE_METRICS,
    GowerIndex,
    ProductTiles,
    make_index,
    resolve_metric,
)
from ._base import warn_constant_columns
from ._dbscan_regions import tree_neighbourhoods
from ._optics_extract import cluster_optics_dbscan, cluster_optics_xi, resolve_size

# a listed pair's peak bytes: its column found, mirrored (sparse sum), as int64, its distance
PAIR_BYTES = 32
# Minkowski metrics the ordering kernel computes from the rows: their power p
POWERS = {"euclidean": 2.0, "l2": 2.0, "manhattan": 1.0, "cityblock": 1.0, "l1": 1.0, "chebyshev": np.inf}


def _power(metric, params):
    """The Minkowski power of a metric the kernel computes, or None."""
    if metric == "minkowski" and set(params or {}) == {"p"}:
        return float(params["p"])
    return POWERS.get(metric) if not params else None


def _sparse_core(D, k):
    """Core distances from a sparse distance graph: the ``k``-th smallest of each row's
    stored distances to other rows, the row itself counted first at distance 0."""
    n = D.shape[0]
    rows = np.repeat(np.arange(n), np.diff(D.indptr))
    other = D.indices != rows
    rows, vals = rows[other], D.data[other]
    order = np.lexsort((vals, rows))
    counts = np.bincount(rows, minlength=n)
    if k > 1 and counts.min() < k - 1:
        i = int(np.argmin(counts))
        raise ValueError(
            f"row {i} of the sparse distance matrix stores {counts[i]} neighbours; OPTICS with "
            f"min_samples={k} needs at least {k - 1} per row: store more or lower min_samples."
        )
    if k == 1:
        return np.zeros(n)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return vals[order][first + k - 2].astype(np.float64)


def optics_graph(X, min_samples, max_eps, metric="minkowski", p=2, metric_params=None):
    """OPTICS's ordering, core distances, reachability and predecessors.

    Minkowski metrics (Euclidean, Manhattan, Chebyshev, any p) are computed from the rows
    (memory: the data; Euclidean with a finite ``max_eps``: the pairs within it, from the
    k-d tree or tiles of products); other metrics and sparse rows from
    the full distance matrix
    (n x n); ``metric='precomputed'`` takes distances, dense or a sparse graph whose
    stored pairs are the only neighbours.

    Parameters
    ----------
    X : ndarray or sparse (n, d), or distances (n, n) with 'precomputed'
    min_samples : int
        Neighbourhood of the core distance, the point itself included.
    max_eps : float
        Farthest distance at which a point reaches another.
    metric : str, default='minkowski'
    p : float, default=2
    metric_params : dict, optional

    Returns
    -------
    ordering : ndarray of int64 (n,)
    reachability : ndarray (n,)
        In row order; inf where undefined.
    predecessor : ndarray of int64 (n,)
        -1 where undefined.
    core_distances : ndarray (n,)

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> optics_graph(X, 2, np.inf)[0].tolist()
    [0, 1, 2, 3]
    """
    from .._kernels.optics import core_distances, dense_order, graph_core, graph_order, pair_distances

    if metric == "precomputed" and sp.issparse(X):
        D = sp.csr_matrix(X, dtype=np.float64)
        D.sort_indices()
        core = _finite(_sparse_core(D, min_samples), max_eps)
        return (*graph_order(D.indptr.astype(np.int64), D.indices.astype(np.int64), D.data, core, max_eps), core)
    given = metric in ("precomputed", "gower")
    metric, params = (metric, metric_params) if given else resolve_metric(metric, p, metric_params)
    power = None if sp.issparse(X) else _power(metric, params)
    if power is not None:
        rows = np.ascontiguousarray(X, dtype=np.float64)
        within = _within_max_eps(rows, max_eps) if power == 2.0 else None
        if within is not None:  # only pairs within max_eps can reach one another: no pass over all pairs
            indptr, indices = within
            dist = pair_distances(rows, indptr, indices, power)
            core = _finite(graph_core(indptr, dist, min_samples), max_eps)
            return (*graph_order(indptr, indices, dist, core, max_eps), core)
        core = _finite(core_distances(rows, min_samples, power), max_eps)
        return (*dense_order(rows, np.empty((0, 0)), False, core, power, max_eps, _chunks()), core)
    D = _distance_matrix(X, metric, params)
    core = _finite(np.partition(D, min_samples - 1, axis=1)[:, min_samples - 1].copy(), max_eps)
    return (*dense_order(np.empty((0, 0)), D, True, core, 2.0, max_eps, _chunks()), core)


def _within_max_eps(rows, max_eps):
    """CSR ``(indptr, indices)`` of each row's rows within ``max_eps`` (a hair beyond: the
    exact distances decide), from the k-d tree up to KD_TREE_UP_TO columns, above from tiles of
    products (every pair within found, whatever the rounding); None for an infinite
    max_eps, or pairs that would be a quarter of all pairs (then the pass over all pairs
    costs as much, without their memory) or not fit in half the free memory."""
    n, d = rows.shape
    if not np.isfinite(max_eps):
        return None
    max_pairs = min(n * n // 4, available_bytes() // (2 * PAIR_BYTES))
    if d <= KD_TREE_UP_TO:
        return tree_neighbourhoods(rows, max_eps * (1.0 + 1e-9), leaf_size=30, max_pairs=max_pairs, bytes_per_pair=16)
    # the part on and above the diagonal holds (pairs + n) / 2
    within = ProductTiles(rows, max_eps * (1.0 + 1e-9), superset=True).pairs((max_pairs + n) // 2)
    return None if within is None else (within.indptr.astype(np.int64), within.indices.astype(np.int64))


def _chunks():
    """Pieces of each pass: a few per thread, so that uneven pieces still balance."""
    from numba import get_num_threads

    return 4 * get_num_threads()


def _finite(core, max_eps):
    """Core distances beyond ``max_eps`` are undefined (inf), and rounded as the
    reachabilities are."""
    core[core > max_eps] = np.inf
    return np.around(core, 15)


def _distance_matrix(X, metric, params):
    """Every pair's distance (n x n float64) for a metric the kernel does not compute."""
    n = X.shape[0]
    if metric == "precomputed":
        return np.ascontiguousarray(X, dtype=np.float64)  # checked by fit
    require_memory(8 * n * n, f"OPTICS(metric={metric!r}) on {n} samples", "use a Minkowski metric (no matrix)")
    pairwise = None
    if metric == "gower":
        pairwise = GowerIndex("gower", params).build(X).pairwise
    elif sp.issparse(X):
        if metric not in SPARSE_METRICS:
            raise ValueError(
                f"OPTICS on sparse rows takes the metrics {', '.join(SPARSE_METRICS)}; got metric={metric!r}: "
                "pass a dense array for other metrics."
            )
        pairwise = make_index("exact", metric, n, sparse=True).build(X).pairwise
    D = np.empty((n, n))
    for start, stop, block in distance_blocks(X, X, metric, metric_params=params, pairwise=pairwise):
        D[start:stop] = np.asarray(block.toarray() if sp.issparse(block) else block)
    if metric == "gower":  # two rows that share no column (NaN) never reach each other
        D[np.isnan(D)] = np.inf
    np.fill_diagonal(D, 0)
    return D


class OPTICS(GowerTableMixin, ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """Ordering points to identify the clustering structure, a drop-in for
    ``sklearn.cluster.OPTICS``.

    Every point gets a place in an ordering and a reachability distance (how far it is
    from the points before it, never less than their core distance); plotted in that
    order, clusters are valleys at every density at once. The clusters are read from the
    valleys' steep walls (``cluster_method='xi'``) or by a cut at one ``eps``
    (``'dbscan'``). Ordering, reachability and labels equal scikit-learn's for
    Euclidean, Manhattan and Chebyshev distances and precomputed ones (ties go to the
    lowest row, reachabilities rounded to 15 decimals as there); other Minkowski powers
    agree to the last bit of ``|d| ** p``.

    The ordering is Prim's growth over the reachability distances: ``n`` passes over the
    remaining points, computed from the rows for Minkowski metrics (memory: the data),
    from the full distance matrix for other metrics, and over the stored pairs of a
    sparse precomputed graph. With a finite ``max_eps`` and Euclidean rows, only the
    pairs within ``max_eps`` are found (a k-d tree up to 16 columns, tiles of products
    above) and grown over, with the same result: the time and memory follow those pairs,
    not ``n ** 2`` (while they fit in half the free memory and are under a quarter of all
    pairs; beyond, the passes over all pairs).

    Parameters
    ----------
    min_samples : int > 1 or float in (0, 1], default=5
        Neighbourhood of the core distance, the point itself included (a float: a
        fraction of the rows).
    max_eps : float, default=inf
        Farthest distance at which a point reaches another; smaller is faster with a
        sparse graph and leaves farther points unreached.
    metric : str, default='minkowski'
        'minkowski' with ``p``, 'euclidean', 'manhattan', 'chebyshev', any metric of
        ``lowdim.neighbors.make_index`` or scipy's ``cdist``, 'gower' for mixed tables
        (a DataFrame with text, category, boolean or date columns is coded as
        ``mixed_codes`` codes it; gaps are skipped pair by pair, and two rows that share
        no column do not reach each other), or 'precomputed' (X holds distances: dense,
        or sparse with each row's neighbours stored).
    p : float, default=2
    metric_params : dict, optional
        The metric's keywords ('categorical', 'ordinal', 'weights' for 'gower').
    cluster_method : {'xi', 'dbscan'}, default='xi'
    eps : float, optional
        The cut of ``cluster_method='dbscan'`` (default ``max_eps``).
    xi : float in [0, 1], default=0.05
        The steepness that bounds a cluster (``cluster_method='xi'``).
    predecessor_correction : bool, default=True
    min_cluster_size : int > 1 or float in (0, 1], optional
        Smallest xi cluster (default ``min_samples``).
    algorithm : {'auto', 'ball_tree', 'kd_tree', 'brute'}, default='auto'
        Accepted for compatibility; the ordering needs every pair once, which the
        kernel computes directly.
    leaf_size : int, default=30
        Accepted for compatibility.
    memory : None
        Accepted for compatibility (no caching).
    n_jobs : int, optional
        Accepted for compatibility; numba's threads do the work.

    Attributes
    ----------
    labels_ : ndarray of int64 (n_samples,)
        -1 for noise.
    reachability_ : ndarray (n_samples,)
        Each point's reachability distance in row order (inf for the first point of
        each connected part).
    ordering_ : ndarray of int64 (n_samples,)
        The cluster ordering.
    core_distances_ : ndarray (n_samples,)
        Distance to the ``min_samples``-th nearest point (inf beyond ``max_eps``).
    predecessor_ : ndarray of int64 (n_samples,)
        The point each was reached from (-1 for none).
    cluster_hierarchy_ : ndarray of int64 (n_clusters, 2)
        ``[start, end]`` of every xi cluster in the ordering, inner clusters first
        (``cluster_method='xi'`` only).
    n_features_in_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns: each column's name, kind and levels.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import OPTICS
    >>> X = np.array([[1, 2], [2, 5], [3, 6], [8, 7], [8, 8], [7, 3]])
    >>> OPTICS(min_samples=2).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints = {
        "min_samples": [Interval(int, 2, None, closed="left"), Interval(float, 0, 1, closed="right")],
        "max_eps": [Interval(float, 0, None, closed="left")],
        "metric": [Options({"precomputed", "minkowski", "l1", "l2", *POWERS, *INDEX_METRICS})],
        "p": [Interval(float, 1, None, closed="left")],
        "metric_params": [NONE, InstanceOf(dict)],
        "cluster_method": [Options({"xi", "dbscan"})],
        "eps": [NONE, Interval(float, 0, None, closed="left")],
        "xi": [Interval(float, 0, 1, closed="both")],
        "predecessor_correction": [BOOLEAN],
        "min_cluster_size": [NONE, Interval(int, 2, None, closed="left"), Interval(float, 0, 1, closed="right")],
        "algorithm": [Options({"auto", "ball_tree", "kd_tree", "brute"})],
        "leaf_size": [Interval(int, 1, None, closed="left")],
        "memory": [NONE],
        "n_jobs": [NONE, Interval(int, None, None)],
    }

    def __init__(
        self,
        *,
        min_samples=5,
        max_eps=np.inf,
        metric="minkowski",
        p=2,
        metric_params=None,
        cluster_method="xi",
        eps=None,
        xi=0.05,
        predecessor_correction=True,
        min_cluster_size=None,
        algorithm="auto",
        leaf_size=30,
        memory=None,
        n_jobs=None,
    ):
        self.min_samples = min_samples
        self.max_eps = max_eps
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.cluster_method = cluster_method
        self.eps = eps
        self.xi = xi
        self.predecessor_correction = predecessor_correction
        self.min_cluster_size = min_cluster_size
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.memory = memory
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Order the points and extract the clusters.

        Parameters
        ----------
        X : array-like or sparse (n_samples, n_features), or distances with 'precomputed'
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True, min_samples=2)
        if self.metric != "precomputed":
            warn_constant_columns(X, "OPTICS")
        else:
            check_precomputed(X)
        n = X.shape[0]
        m = resolve_size(self.min_samples, n, "min_samples")
        eps = self.max_eps if self.eps is None else self.eps
        if self.cluster_method == "dbscan" and eps > self.max_eps:
            raise ValueError(f"Specify an epsilon smaller than {self.max_eps}. Got {eps}: eps must be at most max_eps.")
        self.ordering_, self.reachability_, self.predecessor_, self.core_distances_ = optics_graph(
            X, m, float(self.max_eps), self.metric, self.p, self._distance_params()
        )
        if np.isinf(self.reachability_).all():
            warn_user(
                "All reachability values are inf. Set a larger max_eps or all data will be considered outliers "
                f"(max_eps={self.max_eps} reaches no point from any other)."
            )
        if self.cluster_method == "xi":
            self.labels_, self.cluster_hierarchy_ = cluster_optics_xi(
                reachability=self.reachability_,
                predecessor=self.predecessor_,
                ordering=self.ordering_,
                min_samples=m,
                min_cluster_size=self.min_cluster_size,
                xi=self.xi,
                predecessor_correction=self.predecessor_correction,
            )
        else:
            self.labels_ = cluster_optics_dbscan(
                reachability=self.reachability_,
                core_distances=self.core_distances_,
                ordering=self.ordering_,
                eps=eps,
            )
        return self

    def fit_predict(self, X, y=None):
        """``fit`` and return ``labels_``.

        Parameters
        ----------
        X : array-like or sparse
        y : ignored

        Returns
        -------
        ndarray of int64 (n_samples,)
        """
        return self.fit(X).labels_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.allow_nan = self.metric == "gower"  # a gap is skipped pair by pair
        return tags
