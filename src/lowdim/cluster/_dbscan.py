"""DBSCAN (Ester, Kriegel, Sander & Xu 1996): clusters as the connected parts of the
dense points, each with the sparse points at its edge; the rest is noise."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import NONE, InstanceOf, Interval, Options, validate_params
from .._validation import check_precomputed
from .._warnings import warn_user
from ..linalg import distance_blocks
from ..neighbors import INDEX_METRICS, SPARSE_METRICS, GowerIndex, make_index, resolve_metric
from ._base import warn_constant_columns

TREE_UP_TO = 16  # columns up to which a k-d tree finds the eps-neighbourhoods; brute force above
SAMPLE_ROWS = 200  # rows whose neighbour distances give the data's scale when eps misses it
SCALE_GAP = 4  # one cluster of every row with eps this many times the data's scale: said
# Neighbour pairs handled at a time (about 25 MiB of per-pair arrays): numpy's bincount
# and scipy's components do in compiled code what a first fit would otherwise compile
BLOCK_PAIRS = 1 << 20


def tree_neighbourhoods(X, eps, leaf_size, max_pairs=None, bytes_per_pair=8):
    """``(indptr, indices)``: each row's rows within ``eps`` (itself included) as CSR
    arrays, by the k-d tree; None when they would hold more than ``max_pairs`` pairs.
    The pairs are counted first, and refused if ``bytes_per_pair`` each exceed the memory."""
    from .._kernels.kdtree import build_tree
    from .._kernels.radius import radius_counts, radius_lists

    points, order, start, stop, low, high = build_tree(X, leaf_size=leaf_size)
    queries = np.ascontiguousarray(X, dtype=np.float64)  # in the rows' own order: CSR rows as given
    r2 = float(eps) ** 2
    counts = radius_counts(points, start, stop, low, high, queries, r2)
    total = int(counts.sum())
    if max_pairs is not None and total > max_pairs:
        return None
    require_memory(bytes_per_pair * total, f"the {total:,} pairs within a distance of {eps:g}", "lower it")
    indptr = np.concatenate([[0], np.cumsum(counts)])
    found = np.empty(indptr[-1], dtype=np.int64)
    radius_lists(points, start, stop, low, high, queries, r2, indptr, found, order)
    return indptr, found


def _brute_neighbourhoods(X, eps, metric, params, pairwise=None):
    """The same pattern from distances in row blocks (any metric; ``pairwise`` gives a
    block's distances for sparse rows)."""
    rows, cols = [], []
    for start, _, D in distance_blocks(X, X, metric, metric_params=params, pairwise=pairwise):
        r, c = np.nonzero(np.asarray(D) <= eps)
        rows.append(r + start)
        cols.append(c)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    A = sp.csr_matrix((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(X.shape[0],) * 2)
    A = A + sp.identity(X.shape[0], dtype=bool, format="csr")  # a point is its own neighbour
    return A.indptr, A.indices


def _precomputed_neighbourhoods(D, eps):
    """From distances: dense, or sparse with each row's candidate neighbours stored."""
    n = D.shape[0]
    if sp.issparse(D):
        D = sp.csr_matrix(D)
        A = sp.csr_matrix((D.data <= eps, D.indices, D.indptr), shape=D.shape)
    else:
        A = sp.csr_matrix(np.asarray(D) <= eps)
    A = A + sp.identity(n, dtype=bool, format="csr")
    A.eliminate_zeros()
    return A.indptr, A.indices


def _row_blocks(indptr):
    """``(first, stop)`` row ranges of the CSR ``indptr`` holding about ``BLOCK_PAIRS``
    pairs each (one row at least): the per-pair arrays below stay that small."""
    n, first = indptr.size - 1, 0
    while first < n:
        stop = int(np.searchsorted(indptr, indptr[first] + BLOCK_PAIRS, side="right")) - 1
        stop = min(n, max(stop, first + 1))
        yield first, stop
        first = stop


def _block_pairs(indptr, indices, first, stop):
    """The pairs of rows ``first..stop``: their rows (from ``first``) and neighbours."""
    rows = np.repeat(np.arange(stop - first), np.diff(indptr[first : stop + 1]))
    return rows, indices[indptr[first] : indptr[stop]]


def neighbour_weights(indptr, indices, weights):
    """The summed weight of each point's eps-neighbourhood (itself included where
    listed), added in the order the neighbours are listed.

    Examples
    --------
    >>> neighbour_weights(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([1.0, 0.5])).tolist()
    [1.5, 0.5]
    """
    out = np.empty(indptr.size - 1)
    for first, stop in _row_blocks(indptr):
        rows, cols = _block_pairs(indptr, indices, first, stop)
        out[first:stop] = np.bincount(rows, weights=weights[cols], minlength=stop - first)
    return out


def label_clusters(indptr, indices, core):
    """DBSCAN's labels from the eps-neighbourhoods (CSR arrays) and the core mask: the
    connected parts of the core points (numbered by their first row), each border point
    in the lowest-numbered cluster among its core neighbours (the cluster that reaches it
    first when they are grown in row order, as scikit-learn's), -1 for noise.

    Parameters
    ----------
    indptr, indices : ndarray of int
        Who is within eps of whom.
    core : ndarray of bool (n,)

    Returns
    -------
    ndarray of int64 (n,)

    Examples
    --------
    >>> A = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1]], dtype=bool))
    >>> label_clusters(A.indptr, A.indices, np.array([True, True, False, False])).tolist()
    [0, 0, 0, -1]
    """
    from .._kernels.components import connected_components

    n = core.size
    counts, kept = np.zeros(n, dtype=np.int64), []
    for first, stop in _row_blocks(indptr):  # the core points' links among themselves
        rows, cols = _block_pairs(indptr, indices, first, stop)
        both = core[first:stop][rows] & core[cols]
        counts[first:stop] = np.bincount(rows[both], minlength=stop - first)
        kept.append(cols[both])
    links = np.concatenate(kept) if kept else np.empty(0, dtype=np.int64)
    indptr_core = np.concatenate([[0], np.cumsum(counts)])
    graph = sp.csr_matrix((np.ones(links.size, dtype=np.int8), links, indptr_core), shape=(n, n))
    parts = connected_components(graph)[1]  # numbered by smallest row; the others are parts of their own
    labels = np.full(n, -1, dtype=np.int64)
    labels[core] = np.unique(parts[core], return_inverse=True)[1]
    for first, stop in _row_blocks(indptr):  # border points: the lowest cluster among their core neighbours
        rows, cols = _block_pairs(indptr, indices, first, stop)
        take = ~core[first:stop][rows] & core[cols]
        best = np.full(stop - first, n, dtype=np.int64)
        np.minimum.at(best, rows[take], labels[cols[take]])
        border = best < n
        labels[first:stop][border] = best[border]
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
    about n log n); other metrics and wider data by blocked distances (memory: one block
    and the neighbourhoods).

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
            return _precomputed_neighbourhoods(check_precomputed(X), self.eps)
        if self.metric != "gower":
            metric, _ = resolve_metric(self.metric, 2 if self.p is None else self.p, self.metric_params)
            tree = metric == "euclidean" and not sp.issparse(X) and self.algorithm != "brute"
            if tree and X.shape[1] <= TREE_UP_TO:
                return tree_neighbourhoods(np.asarray(X), self.eps, self.leaf_size)
        X, metric, params, pairwise = self._distances(X)
        return _brute_neighbourhoods(X, self.eps, metric, params, pairwise)

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
        indptr, indices = (np.asarray(a, dtype=np.int64) for a in self._neighbourhoods(X))
        core = neighbour_weights(indptr, indices, weights) >= self.min_samples
        self.labels_ = label_clusters(indptr, indices, core)
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
