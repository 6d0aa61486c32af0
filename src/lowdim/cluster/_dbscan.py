"""DBSCAN (Ester, Kriegel, Sander & Xu 1996): clusters as the connected parts of the
dense points, each with the sparse points at its edge; the rest is noise."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._mixed_input import GowerTableMixin
from .._params import NONE, InstanceOf, Interval, Options, validate_params
from .._validation import check_precomputed
from .._warnings import warn_user
from ..linalg import distance_blocks
from ..neighbors import INDEX_METRICS, KD_TREE_UP_TO, SPARSE_METRICS, GowerIndex, make_index, resolve_metric
from ._base import warn_constant_columns
from ._dbscan_regions import (
    TreeNeighbourhoods,
    metric_neighbourhoods,
    precomputed_neighbourhoods,
)

SAMPLE_ROWS = 200  # rows whose neighbour distances give the data's scale when eps misses it
SCALE_GAP = 4  # one cluster of every row with eps this many times the data's scale: said
LINK_PAIRS = 1 << 20  # the core points' links kept for scipy's components (no compiling) up to this many


def _local_rows(indptr):
    """Each listed pair's row within its block."""
    return np.repeat(np.arange(indptr.size - 1), np.diff(indptr))


def neighbour_weights(regions, weights):
    """The summed weight of each point's eps-neighbourhood (itself included where
    listed), added in the order the neighbours are listed; ``regions`` hands out the
    neighbourhoods (``_dbscan_regions``).

    Examples
    --------
    >>> from lowdim.cluster._dbscan_regions import StoredNeighbourhoods
    >>> regions = StoredNeighbourhoods(np.array([0, 2, 3]), np.array([0, 1, 1]))
    >>> neighbour_weights(regions, np.array([1.0, 0.5])).tolist()
    [1.5, 0.5]
    """
    if np.all(weights == 1.0):
        return regions.counts.astype(np.float64)
    out = np.empty(regions.n)
    for ids, indptr, indices in regions.blocks():
        out[ids] = np.bincount(_local_rows(indptr), weights=weights[indices], minlength=ids.size)
    return out


def _core_parts(regions, core):
    """Each row's connected part of the core points' links (numbered by its smallest
    row; a row outside them a part of its own): their links kept while they number at
    most ``LINK_PAIRS`` (scipy's components: nothing to compile), else merged block by
    block (union-find), so that memory never holds all of them."""
    from .._kernels.components import all_roots, connected_components, union_marked_links

    n, kept, stored, parent = regions.n, [], 0, None
    for ids, indptr, indices in regions.blocks(rows=core):
        if parent is None and stored + indices.size <= LINK_PAIRS:
            rows = ids[_local_rows(indptr)]
            both = core[rows] & core[indices] & (indices < rows)  # each pair once: neighbourhoods list each other
            kept.append((rows[both], indices[both]))
            stored += indices.size
            continue
        if parent is None:
            parent = np.arange(n, dtype=np.int64)
            for rows, cols in kept:
                union_marked_links(parent, rows, np.arange(rows.size + 1), cols, core)
            kept = None
        union_marked_links(parent, ids, indptr, indices, core)
    if parent is not None:
        return all_roots(parent)
    kept = kept or [(np.empty(0, np.int64), np.empty(0, np.int64))]
    rows, cols = np.concatenate([r for r, _ in kept]), np.concatenate([c for _, c in kept])
    graph = sp.csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    return connected_components(graph)[1]


def label_clusters(regions, core):
    """DBSCAN's labels from the eps-neighbourhoods and the core mask: the connected
    parts of the core points (numbered by their first row), each border point in the
    lowest-numbered cluster among its core neighbours (the cluster that reaches it first
    when they are grown in row order, as scikit-learn's), -1 for noise.

    Parameters
    ----------
    regions : StoredNeighbourhoods, TreeNeighbourhoods or BlockedNeighbourhoods
        Who is within eps of whom.
    core : ndarray of bool (n,)

    Returns
    -------
    ndarray of int64 (n,)

    Examples
    --------
    >>> from lowdim.cluster._dbscan_regions import StoredNeighbourhoods
    >>> A = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1]], dtype=bool))
    >>> regions = StoredNeighbourhoods(A.indptr, A.indices)
    >>> label_clusters(regions, np.array([True, True, False, False])).tolist()
    [0, 0, 0, -1]
    """
    n = core.size
    parts = _core_parts(regions, core)
    labels = np.full(n, -1, dtype=np.int64)
    labels[core] = np.unique(parts[core], return_inverse=True)[1]
    for ids, indptr, indices in regions.blocks(rows=~core):  # border points: their lowest core neighbour's cluster
        local = _local_rows(indptr)
        take = ~core[ids][local] & core[indices]
        best = np.full(ids.size, n, dtype=np.int64)
        np.minimum.at(best, local[take], labels[indices[take]])
        border = best < n
        labels[ids[border]] = best[border]
    return labels


def _weights(sample_weight, n):
    """One finite weight per row (negative ones allowed: they hold a neighbour back from
    being core, as in scikit-learn), not all zero."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:  # one weight for every row, as scikit-learn takes it
        w = np.full(n, float(w))
    if w.shape != (n,) or not np.all(np.isfinite(w)):
        raise ValueError(f"sample_weight needs one finite weight per row ({n}); got shape {w.shape}.")
    if not w.any():
        raise ValueError("Sample weights must contain at least one non-zero number; every weight is zero.")
    return w


class DBSCAN(GowerTableMixin, ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """Density-based clustering with noise, a drop-in for ``sklearn.cluster.DBSCAN``.

    A point with at least ``min_samples`` points (itself included; weights summed with
    ``sample_weight``) within ``eps`` is a core point; core points within ``eps`` of each
    other share a cluster, and a non-core point within ``eps`` of a core point joins its
    cluster (the lowest-numbered one, as scikit-learn's growth in row order gives it).
    Labels equal scikit-learn's.

    Euclidean data of up to 16 columns are searched by a k-d tree (the neighbourhoods in
    about n log n); other metrics and wider data by blocked distances. Memory holds one
    block of neighbourhoods at a time, whatever ``eps`` (an ``eps`` that reaches every
    row costs time, not n^2 memory).

    Parameters
    ----------
    eps : float, default=0.5
        The neighbourhood radius (a distance of exactly ``eps`` is within).
    min_samples : int, default=5
    metric : str, default='euclidean'
        Any metric of ``lowdim.neighbors.make_index`` or scipy's ``cdist`` ('manhattan',
        'cosine', 'minkowski' with ``p``, ...), 'gower' for mixed tables (a DataFrame
        with text, category, boolean or date columns is coded as ``mixed_codes`` codes
        it; gaps are skipped pair by pair, and two rows that share no column are never
        neighbours; ``eps`` is then a share of the columns' ranges, between 0 and 1),
        or 'precomputed' (X holds the distances: dense, or sparse with each row's
        candidate neighbours stored).
    metric_params : dict, optional
        The metric's keywords ('categorical', 'ordinal', 'weights' for 'gower').
    algorithm : {'auto', 'kd_tree', 'ball_tree', 'brute'}, default='auto'
        'auto' takes the k-d tree where it applies; 'brute' the blocked distances.
    leaf_size : int, default=30
    p : float, optional
        The Minkowski power with ``metric='minkowski'`` (default 2).
    n_jobs : int, optional
        Accepted for compatibility; numba's and BLAS's threads do the work.

    Attributes
    ----------
    core_sample_indices_ : ndarray of int64 (n_core,)
    components_ : ndarray or sparse (n_core, n_features)
        The core points (sparse for sparse input).
    labels_ : ndarray of int64 (n_samples,)
        -1 for noise.
    n_features_in_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns: each column's name, kind and levels.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import DBSCAN
    >>> X = np.array([[1, 2], [2, 2], [2, 3], [8, 7], [8, 8], [25, 80]])
    >>> DBSCAN(eps=3, min_samples=2).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, -1]
    """

    _parameter_constraints = {
        "eps": [Interval(float, 0, None, closed="neither")],
        "min_samples": [Interval(int, 1, None, closed="left")],
        "metric": [Options({"precomputed", "minkowski", *INDEX_METRICS})],
        "metric_params": [NONE, InstanceOf(dict)],
        "algorithm": [Options({"auto", "kd_tree", "ball_tree", "brute"})],
        "leaf_size": [Interval(int, 1, None, closed="left")],
        "p": [NONE, Interval(float, 1, None, closed="left")],
        "n_jobs": [NONE, Interval(int, None, None)],
    }

    def __init__(
        self,
        eps=0.5,
        *,
        min_samples=5,
        metric="euclidean",
        metric_params=None,
        algorithm="auto",
        leaf_size=30,
        p=None,
        n_jobs=None,
    ):
        self.eps = eps
        self.min_samples = min_samples
        self.metric = metric
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.n_jobs = n_jobs

    def _neighbourhoods(self, X):
        if self.metric == "precomputed":
            return precomputed_neighbourhoods(check_precomputed(X), self.eps)
        if self.metric != "gower":
            metric, _ = resolve_metric(self.metric, 2 if self.p is None else self.p, self.metric_params)
            tree = metric == "euclidean" and not sp.issparse(X) and self.algorithm != "brute"
            if tree and X.shape[1] <= KD_TREE_UP_TO:
                return TreeNeighbourhoods(np.asarray(X), self.eps, self.leaf_size)
        X, metric, params, pairwise = self._distances(X)
        return metric_neighbourhoods(X, self.eps, metric, params, pairwise)

    def _distances(self, X):
        """``(rows, metric, params, pairwise)`` for ``distance_blocks``: ``pairwise`` gives
        a block's distances to every row where the metric needs an index (Gower's, with a
        pair sharing no column at NaN: never within eps; sparse rows: products a block of
        rows at a time, the matrix never densified), else None."""
        if self.metric == "gower":
            return X, "gower", None, GowerIndex("gower", self._distance_params()).build(X).pairwise
        metric, params = resolve_metric(self.metric, 2 if self.p is None else self.p, self.metric_params)
        if not sp.issparse(X):
            return np.asarray(X, dtype=np.float64), metric, params, None
        if metric not in SPARSE_METRICS:
            raise ValueError(
                f"DBSCAN on sparse rows takes the metrics {', '.join(SPARSE_METRICS)}; got metric={metric!r}: "
                "pass a dense array for other metrics."
            )
        return X, metric, params, make_index("exact", metric, X.shape[0], sparse=True).build(X).pairwise

    def _typical_reach(self, X):
        """The median distance of a row to its ``min_samples``-th nearest row (itself the
        first, as ``min_samples`` counts it), over ``SAMPLE_ROWS`` rows against all (a
        block of rows at a time, only each row's k-th distance kept): the scale ``eps``
        compares with. None for a sparse distance matrix."""
        k, n = int(np.ceil(self.min_samples)), X.shape[0]
        if self.metric == "precomputed" and sp.issparse(X) or k > n:
            return None
        rows = np.sort(np.random.default_rng(0).choice(n, min(n, SAMPLE_ROWS), replace=False))
        if self.metric == "precomputed":
            blocks = (np.asarray(X[rows[i : i + 50]]) for i in range(0, rows.size, 50))
        else:
            X, metric, params, pairwise = self._distances(X)
            blocks = (D for _, _, D in distance_blocks(X[rows], X, metric, metric_params=params, pairwise=pairwise))
        kth = np.concatenate(
            [np.partition(np.where(np.isnan(D), np.inf, D), k - 1, axis=1)[:, k - 1] for D in map(np.asarray, blocks)]
        )
        kth = kth[np.isfinite(kth)]
        return float(np.median(kth)) if kth.size else None

    def _warn_degenerate(self, X):
        """Every row noise, or one cluster of every row with eps far above the data's
        scale: the result of an eps that does not fit the data, said with the scale."""
        noise = self.labels_ < 0
        one = not noise.any() and self.labels_.max() == 0 and X.shape[0] > 2 * self.min_samples
        if not (noise.all() or one):
            return
        reach = self._typical_reach(X)
        if not reach:
            return
        m = f"min_samples={self.min_samples} rows (itself counted)"
        if noise.all():
            warn_user(
                f"DBSCAN: every row is noise: none has {m} within eps={self.eps:g}; the median row has them "
                f"within {reach:.3g}: raise eps towards that distance.",
                UserWarning,
            )
        elif self.eps > SCALE_GAP * reach:
            warn_user(
                f"DBSCAN: one cluster holds every row: eps={self.eps:g} is {self.eps / reach:.0f} times the distance "
                f"within which the median row has {m}, {reach:.3g}; if the data have groups, lower eps towards it.",
                UserWarning,
            )

    def fit(self, X, y=None, sample_weight=None):
        """Find the clusters.

        Parameters
        ----------
        X : array-like or sparse (n_samples, n_features), or distances with 'precomputed'
        y : ignored
        sample_weight : array-like (n_samples,), optional
            A point's weight towards its neighbours' core count (negative: it keeps a
            neighbour from being core).

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True, min_samples=2)  # one row has no density
        if self.metric != "precomputed":
            warn_constant_columns(X, "DBSCAN")

        weights = _weights(sample_weight, X.shape[0])
        regions = self._neighbourhoods(X)
        core = neighbour_weights(regions, weights) >= self.min_samples
        self.labels_ = label_clusters(regions, core)
        self.core_sample_indices_ = np.flatnonzero(core).astype(np.int64)
        self.components_ = X[self.core_sample_indices_].copy()  # sparse rows stay sparse, as scikit-learn's
        self._warn_degenerate(X)
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """``fit`` and return ``labels_``.

        Parameters
        ----------
        X : array-like or sparse
        y : ignored
        sample_weight : array-like (n_samples,), optional

        Returns
        -------
        ndarray of int64 (n_samples,)
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.allow_nan = self.metric == "gower"  # a gap is skipped pair by pair
        return tags
