"""k-medoids: PAM (BUILD + FastPAM1 SWAP) and the 'alternate' (Voronoi) iteration."""

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin

from .._estimator import ValidatedInputMixin
from .._iterative import callback_list, run_loop
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import (
    ARRAY_LIKE,
    CALLABLE,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_array, check_precomputed, warn_constant_features
from ..linalg import EUCLIDEAN_METRICS, column_moments, pairwise_distances
from ..neighbors import GowerIndex
from ._base import CLUSTER_NOTE, check_n_clusters, gower_comparable, warn_fewer_clusters

# dissimilarities (n x n) up to which the default fit ('build' or random start,
# 'alternate') runs in numpy, where the kernels' compilation (seconds) would outlast the
# fit on a first call; near-ties are summed again in the kernels' order (the same medoids)
SMALL_MEDOIDS = 1 << 24
ROW_BLOCK = 1 << 20  # float64 values per block of rows summed in numpy


def _numpy_sized(D):
    return D.shape[0] * D.shape[0] <= SMALL_MEDOIDS


def _sequential_row_sums(A):
    """Each row's sum, added left to right in float64 as the kernels add (``cumsum`` is
    sequential where ``sum`` pairs): ties are broken alike on both paths."""
    return np.cumsum(A, axis=1, dtype=np.float64)[:, -1] if A.shape[1] else np.zeros(A.shape[0])


def _nearest(D, medoids):
    """Per point: the position (in ``medoids``) of its nearest medoid (the first at a
    tie), the distance to it and to the second nearest (inf with one medoid)."""
    n = D.shape[0]
    if _numpy_sized(D):
        rows = D[medoids]
        second = np.partition(rows, 1, axis=0)[1] if len(medoids) > 1 else np.full(n, np.inf)
        return np.argmin(rows, axis=0), rows.min(axis=0).astype(np.float64), second.astype(np.float64)
    from .._kernels.kmedoids import nearest_two

    nearest, dn, ds = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n)
    nearest_two(D, medoids, nearest, dn, ds)
    return nearest, dn, ds


def _build_next(D, dn, is_medoid):
    """BUILD's next medoid: the non-medoid whose addition lowers the total distance most."""
    if not _numpy_sized(D):
        from .._kernels.kmedoids import build_next

        return build_next(D, dn, is_medoid)
    n = D.shape[0]
    before = np.where(np.isfinite(dn), dn, 0.0)  # no medoid yet: a point's gain is minus its distance

    def terms(rows):
        rows = np.asarray(D[rows], dtype=np.float64)
        return np.where(rows < dn, before - rows, 0.0)

    gain = np.empty(n)
    step = max(1, ROW_BLOCK // max(n, 1))
    for start in range(0, n, step):  # numpy's pairwise sums: fast, within 2 n eps |gain| of the kernel's
        gain[start : start + step] = terms(slice(start, start + step)).sum(axis=1)
    gain[is_medoid] = -np.inf
    slack = np.where(np.isfinite(gain), 4 * n * np.finfo(np.float64).eps * np.abs(gain), 0.0)
    best = int(np.argmax(gain))
    # the points that may lead once summed in the kernel's order: summed so, the first best wins
    close = np.flatnonzero(gain + slack + slack[best] >= gain[best])
    if close.size == 1:
        return best
    return int(close[np.argmax(_sequential_row_sums(terms(close)))])


def _cluster_medoids(D, labels, medoids):
    """'alternate' update, in place: in each cluster the member with the smallest sum of
    distances to the others (the first such; the medoid stays unless one is strictly
    smaller). Returns whether any changed."""
    if not _numpy_sized(D):
        from .._kernels.kmedoids import cluster_medoids

        return cluster_medoids(D, labels, medoids)
    changed = False
    for i in range(len(medoids)):
        members = np.flatnonzero(labels == i)
        if members.size == 0:
            continue
        costs = _sequential_row_sums(D[np.ix_(members, members)])
        own = _sequential_row_sums(D[medoids[i], members][None, :])[0]
        if costs.min() < own:  # strictly cheaper: another member
            medoids[i], changed = members[np.argmin(costs)], True
    return changed


def build(D, n_clusters):
    """PAM's greedy BUILD: the most central point, then repeatedly the point whose
    addition lowers the total distance most.

    Examples
    --------
    >>> D = np.abs(np.subtract.outer([0.0, 1.0, 2.0, 10.0, 11.0], [0.0, 1.0, 2.0, 10.0, 11.0]))
    >>> build(D, 2).tolist()
    [2, 3]
    """
    n = D.shape[0]
    medoids = np.empty(n_clusters, dtype=np.int64)
    is_medoid = np.zeros(n, dtype=np.bool_)
    dn = np.full(n, np.inf)
    for i in range(n_clusters):
        medoids[i] = _build_next(D, dn, is_medoid)
        is_medoid[medoids[i]] = True
        dn = np.minimum(dn, D[medoids[i]])
    return medoids


def kmedoids_plusplus(D, n_clusters, rng):
    """k-means++ seeding with the dissimilarities (squared) as potential.

    Examples
    --------
    >>> D = np.abs(np.subtract.outer(np.arange(6.0), np.arange(6.0)))
    >>> len(set(kmedoids_plusplus(D, 3, np.random.default_rng(0)).tolist()))
    3
    """
    n = D.shape[0]
    medoids = [int(rng.integers(n))]
    closest = D[medoids[0]].astype(np.float64) ** 2
    for _ in range(1, n_clusters):
        total = closest.sum()
        if total <= 0:
            rest = np.setdiff1d(np.arange(n), medoids)
            medoids.append(int(rng.choice(rest)))
        else:
            medoids.append(int(min(np.searchsorted(np.cumsum(closest), rng.random() * total), n - 1)))
        closest = np.minimum(closest, D[medoids[-1]].astype(np.float64) ** 2)
    return np.asarray(medoids, dtype=np.int64)


def pam_swap(D, medoids, *, max_iter, callbacks=(), verbose=0):
    """PAM's SWAP phase with FastPAM1's O(n) evaluation of all k swaps per candidate:
    each iteration performs the best swap, until none lowers the total distance.

    Returns the LoopResult (state = medoid indices, objective = total distance).
    """
    from .._kernels.kmedoids import best_swaps

    n, k = D.shape[0], len(medoids)

    def step(medoids):
        nearest, dn, ds = _nearest(D, medoids)
        is_medoid = np.zeros(n, dtype=np.bool_)
        is_medoid[medoids] = True
        delta, pos = best_swaps(D, is_medoid, nearest, dn, ds, k)
        c = int(np.argmin(delta))
        total = float(dn.sum())
        if not delta[c] < -1e-12 * max(total, 1.0):
            return medoids, total, 0.0
        medoids = medoids.copy()
        medoids[pos[c]] = c
        return medoids, total + float(delta[c]), 1.0

    return run_loop(
        step,
        np.asarray(medoids, dtype=np.int64),
        max_iter=max_iter,
        tol=0.0,
        callbacks=callbacks,
        verbose=verbose,
        label="KMedoids (pam)",
    )


def alternate(D, medoids, *, max_iter, callbacks=(), verbose=0):
    """Voronoi iteration: assign to the nearest medoid, then move each medoid to the
    member of its cluster with the smallest total distance, until nothing moves."""

    def step(medoids):
        nearest, dn, _ = _nearest(D, medoids)
        medoids = medoids.copy()
        changed = _cluster_medoids(D, nearest, medoids)
        return medoids, float(_nearest(D, medoids)[1].sum()), 1.0 if changed else 0.0

    return run_loop(
        step,
        np.asarray(medoids, dtype=np.int64),
        max_iter=max_iter,
        tol=0.0,
        callbacks=callbacks,
        verbose=verbose,
        label="KMedoids (alternate)",
    )


class KMedoids(
    GowerTableMixin, ValidatedInputMixin, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator
):
    """k-medoids: clusters represented by actual data points, for any dissimilarity.

    Minimises the total dissimilarity of the points to their nearest medoid. 'pam' is
    BUILD followed by SWAP with the FastPAM1 evaluation (all k swaps of a candidate in
    one pass over the data, O(n^2) per iteration instead of O(k n^2)); 'alternate'
    is the faster, less thorough Voronoi iteration. Both need the n x n dissimilarity
    matrix (computed here unless ``metric='precomputed'``); a memory check refuses
    sizes that would not fit.

    Parameters
    ----------
    n_clusters : int, default=8
    metric : str or callable, default='euclidean'
        Any metric scipy's ``cdist`` accepts, 'gower' for mixed tables (category codes,
        NaN gaps: ``lowdim.mixed_codes``), or 'precomputed' (X is then the n x n
        dissimilarity matrix, and ``predict``/``transform`` take dissimilarities from
        new points to the training points, shape (m, n)).
    metric_params : dict, optional
        Keyword arguments of the metric (``{'p': 3}`` for 'minkowski'; 'categorical',
        'ordinal', 'weights' for 'gower').
    method : {'alternate', 'pam'}, default='alternate'
    init : {'build', 'k-medoids++', 'random'} or array of indices, default='build'
    max_iter : int, default=300
    random_state : None, int, RandomState or Generator
        Used by the 'k-medoids++' and 'random' inits.
    callbacks : callable or list of callables, optional
        ``callback(iteration, total distance, state) -> stop?`` after every iteration.

    Attributes
    ----------
    medoid_indices_ : ndarray of int64 (n_clusters,)
    cluster_centers_ : ndarray (n_clusters, n_features) or None (precomputed)
    labels_ : ndarray of int64 (n_samples,)
    inertia_ : float
        Total dissimilarity to the nearest medoid.
    n_iter_ : int
    n_features_in_ : int
        Number of features seen in ``fit``.
    offset_ : ndarray (n_features,)
        Column means the distances are computed about (``X - offset_``, for precision).
    ranges_ : ndarray (n_features,) or None
        With 'gower': the training columns' ranges, which new rows are scaled by too.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import KMedoids
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [4, 2], [4, 4], [4, 0]])
    >>> km = KMedoids(n_clusters=2, method="pam").fit(X)
    >>> km.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "metric": [InstanceOf(str, label="a metric name"), CALLABLE],
        "metric_params": [NONE, InstanceOf(dict)],
        "method": [Options({"alternate", "pam"})],
        "init": [Options({"build", "k-medoids++", "random"}), ARRAY_LIKE],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        metric="euclidean",
        metric_params=None,
        method="alternate",
        init="build",
        max_iter=300,
        random_state=None,
        callbacks=None,
    ):
        self.n_clusters = n_clusters
        self.metric = metric
        self.metric_params = metric_params
        self.method = method
        self.init = init
        self.max_iter = max_iter
        self.random_state = random_state
        self.callbacks = callbacks

    @property
    def _n_features_out(self):
        return self.n_clusters

    def _dissimilarities(self, X):
        """The n x n dissimilarity matrix of the training data, after a memory check."""
        n = X.shape[0]
        if self.metric == "precomputed":
            return check_precomputed(X, what="dissimilarities")
        require_memory(
            n * n * X.dtype.itemsize,
            f"KMedoids on {n} samples (an n x n dissimilarity matrix)",
            "subsample the data, or use KMeans (no pairwise matrix)",
        )
        self.ranges_ = None
        if self.metric == "gower":
            index = GowerIndex("gower", self._distance_params()).build(X)
            self.offset_, self.ranges_ = np.zeros(X.shape[1], X.dtype), index.ranges
            return gower_comparable(index.pairwise(X))
        mean, var = column_moments(X)
        warn_constant_features(var, "KMedoids", CLUSTER_NOTE, X=X)
        # Euclidean distances do not change with a shift; taking out the mean keeps the
        # BLAS expansion precise for data far from the origin
        self.offset_ = mean.astype(X.dtype) if self.metric in EUCLIDEAN_METRICS else np.zeros(X.shape[1], X.dtype)
        return pairwise_distances(X - self.offset_, metric=self.metric, metric_params=self.metric_params)

    def _start(self, D, rng):
        n = D.shape[0]
        if not isinstance(self.init, str):
            idx = np.asarray(self.init, dtype=np.int64).ravel()
            if idx.shape != (self.n_clusters,) or idx.min() < 0 or idx.max() >= n or np.unique(idx).size != idx.size:
                raise ValueError(f"init must be {self.n_clusters} distinct row indices in [0, {n}); got {self.init!r}.")
            return idx
        if self.init == "build":
            return build(D, self.n_clusters)
        if self.init == "k-medoids++":
            return kmedoids_plusplus(D, self.n_clusters, rng)
        return np.sort(rng.choice(n, size=self.n_clusters, replace=False))

    def fit(self, X, y=None):
        """Choose the medoids.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            dissimilarities with ``metric='precomputed'``
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        check_n_clusters(self.n_clusters, X.shape[0])
        D = self._dissimilarities(X)
        rng = check_random_state(self.random_state)
        search = pam_swap if self.method == "pam" else alternate
        result = search(D, self._start(D, rng), max_iter=self.max_iter, callbacks=callback_list(self.callbacks))
        self.medoid_indices_ = np.asarray(result.state, dtype=np.int64)
        self.labels_, dn, _ = _nearest(D, self.medoid_indices_)
        self.inertia_ = float(dn.sum())
        self.n_iter_ = int(result.n_iter)
        self.cluster_centers_ = None if self.metric == "precomputed" else X[self.medoid_indices_].copy()
        warn_fewer_clusters(
            self.labels_ if self.cluster_centers_ is None else self.cluster_centers_, self.n_clusters, "KMedoids"
        )
        return self

    def transform(self, X):
        """Dissimilarity of each sample to each medoid.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            dissimilarities to the training points with ``metric='precomputed'``

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
        """
        if self.metric == "precomputed":
            from sklearn.utils.validation import check_is_fitted

            check_is_fitted(self)
            X = check_array(X, estimator_name="KMedoids")
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} columns, but KMedoids was fitted on {self.n_features_in_} "
                    "points; pass the dissimilarities to every training point."
                )
            return X[:, self.medoid_indices_]
        X = self._validate_input(X, reset=False)
        if self.metric == "gower":
            params = {**(self._distance_params() or {}), "ranges": self.ranges_}
            index = GowerIndex("gower", params).build(self.cluster_centers_)
            return gower_comparable(index.pairwise(X)).astype(X.dtype, copy=False)
        centers = (self.cluster_centers_ - self.offset_).astype(X.dtype)
        return pairwise_distances(
            X - self.offset_.astype(X.dtype), centers, metric=self.metric, metric_params=self.metric_params
        ).astype(X.dtype, copy=False)

    def predict(self, X):
        """Index of the nearest medoid of each sample.

        Parameters
        ----------
        X : array-like, as for ``transform``

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        return np.argmin(self.transform(X), axis=1).astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags
