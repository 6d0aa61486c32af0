"""Bisecting k-means (Steinbach, Karypis & Kumar 2000): split one cluster in two with
2-means, again and again, until there are ``n_clusters``; the splits form a binary tree,
which ``predict`` follows down from the root."""

import numpy as np
import scipy.sparse as sp

from .._iterative import best_of_restarts, callback_list
from .._params import BOOLEAN, CALLABLE, CALLBACKS, RANDOM_STATE, VERBOSE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_sample_weight
from ..linalg import sq_euclidean
from ._base import CentroidClusterer, check_n_clusters, same_clusters, warn_fewer_clusters
from ._kmeans import initial_centers
from ._lloyd import kmeans_single
from ._products_lloyd import by_products, own_squared_distances, products_kmeans
from ._sparse_two_means import SPARSE_BOUNDS, EmptyHalf, sparse_two_means


def _squared_errors(Xc, x_sq, centers, labels, products):
    """Each row's squared distance to its centre: from its own differences (the k-means
    kernel's, or numpy's in a fit ``by_products``), for sparse rows from the expansion
    (they stay sparse)."""
    if products:
        return own_squared_distances(Xc, np.asarray(centers, dtype=np.float64), labels, x_sq)
    from .._kernels.kmeans import point_distances

    out = np.empty(Xc.shape[0])
    point_distances(Xc, np.asarray(centers, dtype=np.float64), np.asarray(labels, dtype=np.int64), out)
    return out**2


def _halves_errors(Xc, x_sq, weights, labels, centers, products):
    """The two halves' weighted squared errors about their centres."""
    errors = _squared_errors(Xc, x_sq, centers, labels, products)
    return np.bincount(labels, weights=weights * errors, minlength=2)


def _one_point(Xc, x_sq):
    """Whether a cluster's rows are all one point (one row, or equal rows): rows of other
    norms (``x_sq``) answer at once; the rest are compared, sparse ones in their stored
    form without a dense copy (equal rows stored differently only send them to a 2-means,
    which splits them as before)."""
    if Xc.shape[0] < 2:
        return True
    if np.any(x_sq != x_sq[0]):
        return False
    if not sp.issparse(Xc):
        return bool(np.all(Xc == Xc[:1]))
    X = Xc.tocsr()
    lengths = np.diff(X.indptr)
    if np.any(lengths != lengths[0]):
        return False
    stored = slice(X.indptr[0], X.indptr[-1])
    indices, data = X.indices[stored].reshape(X.shape[0], -1), X.data[stored].reshape(X.shape[0], -1)
    return bool(np.all(indices == indices[:1]) and np.all(data == data[:1]))


class _LeafRows:
    """Each leaf's rows as a contiguous range of one permutation. Dense rows are kept in
    that order (a leaf's rows are a view, partitioned in place when it splits, where
    gathering them at every use would copy the data at every level); sparse rows are
    gathered."""

    def __init__(self, Xc, x_sq, weights):
        self.X, self.x_sq, self.w = Xc, x_sq.copy(), weights.copy()
        self.perm = np.arange(Xc.shape[0])

    def data(self, span):
        s0, s1 = span
        X = self.X[self.perm[s0:s1]] if sp.issparse(self.X) else self.X[s0:s1]
        return X, self.x_sq[s0:s1], self.w[s0:s1]

    def split(self, span, labels):
        """Reorder a leaf's rows by their half; the halves' ranges and sorted labels."""
        s0, s1 = span
        labels = np.array(labels, dtype=np.int64)
        left, right, cut = misplaced_pairs(labels)
        # in place, moving only the misplaced rows; sparse rows are gathered through the
        # permutation, which moves as the dense rows would (the same fit either way)
        rows = [self.x_sq[s0:s1], self.w[s0:s1], self.perm[s0:s1], labels]
        for a in rows if sp.issparse(self.X) else [self.X[s0:s1], *rows]:
            a[left], a[right] = a[right], a[left]
        return (s0, s0 + cut), (s0 + cut, s1), labels


def misplaced_pairs(labels):
    """The swaps that put the rows labelled 0 before those labelled 1, moving only the
    misplaced ones (Hoare's partition: the k-th 1 from the left with the k-th 0 from the
    right): ``(left, right, number of 0s)``.

    Examples
    --------
    >>> misplaced_pairs(np.array([1, 0, 1, 0]))
    (array([0]), array([3]), 2)
    """
    cut = int(np.count_nonzero(labels == 0))
    left = np.flatnonzero(labels[:cut] == 1)
    right = cut + np.flatnonzero(labels[cut:] == 0)[::-1]
    return left, right, cut


class BisectingKMeans(CentroidClusterer):
    """Hierarchical k-means by repeated bisection, a drop-in for
    ``sklearn.cluster.BisectingKMeans``.

    Starting from one cluster of all points, the cluster with the largest squared error
    ('biggest_inertia') or the most points ('largest_cluster') is split by 2-means (the
    best of ``n_init`` starts), until there are ``n_clusters``. Cheaper than k-means for
    many clusters (each split sees only its cluster's points) and deterministic in its
    hierarchy: ``predict`` sends a point down the tree of splits, towards the nearer of
    two centres at each, as scikit-learn's does (not always to the nearest final centre).

    Parameters
    ----------
    n_clusters : int, default=8
    init : {'random', 'k-means++'} or callable, default='random'
        Start of each 2-means.
    n_init : int, default=1
        Starts per split; the split with the lowest squared error is kept.
    random_state : None, int or Generator
    max_iter : int, default=300
        Iterations per 2-means.
    verbose : int, default=0
    tol : float, default=1e-4
        Of each 2-means, relative to the mean variance of all of X (as KMeans).
    copy_x : bool, default=True
        Kept for compatibility; X is never modified.
    algorithm : {'lloyd', 'elkan'}, default='lloyd'
        Kept for compatibility: every 2-means runs with Hamerly's distance bounds, which
        give Lloyd's result.
    bisecting_strategy : {'biggest_inertia', 'largest_cluster'}, default='biggest_inertia'
    callbacks : callable or list of callables, optional
        Each is called after every split as ``callback(split, objective, centers)``:
        ``objective`` is the inertia of the clusters so far, ``centers`` their centres in
        the coordinates of ``offset_``. Returning True stops splitting: the model then has
        fewer than ``n_clusters`` clusters (warned).

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features)
    labels_ : ndarray of int64 (n_samples,)
        Numbered by the leaves of the tree of splits, left (a split's first half) first.
    inertia_ : float
        Weighted sum of squared distances of the points to their centres.
    split_children_ : ndarray of int64 (2 n_clusters - 1, 2)
        The tree of splits: node 0 is all points; a split node's two halves (-1 at leaves).
    split_centers_ : ndarray (2 n_clusters - 1, n_features)
        Each node's centre, in the centred coordinates of ``offset_``.
    split_labels_ : ndarray of int64 (2 n_clusters - 1,)
        The cluster of each leaf (-1 at split nodes).
    offset_ : ndarray (n_features,)
        Column means (zero for sparse X); distances are computed on ``X - offset_``.
    offset_centers_ : ndarray (n_clusters, n_features), float64
        The centres in those coordinates.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import BisectingKMeans
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0], [20.0, 0.0], [20.0, 1.0]])
    >>> model = BisectingKMeans(n_clusters=3, random_state=0).fit(X)
    >>> sorted(np.bincount(model.labels_).tolist())
    [2, 2, 2]
    """

    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "init": [Options({"k-means++", "random"}), CALLABLE],
        "n_init": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "verbose": VERBOSE,
        "tol": [Interval(float, 0, None, closed="left")],
        "copy_x": [BOOLEAN],
        "algorithm": [Options({"lloyd", "elkan"})],
        "bisecting_strategy": [Options({"biggest_inertia", "largest_cluster"})],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="random",
        n_init=1,
        random_state=None,
        max_iter=300,
        verbose=0,
        tol=1e-4,
        copy_x=True,
        algorithm="lloyd",
        bisecting_strategy="biggest_inertia",
        callbacks=None,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.max_iter = max_iter
        self.verbose = verbose
        self.tol = tol
        self.copy_x = copy_x
        self.algorithm = algorithm
        self.bisecting_strategy = bisecting_strategy
        self.callbacks = callbacks

    def _bisect(self, Xc, x_sq, weights, tol, rng, products):
        """The best of ``n_init`` 2-means runs on one cluster's rows: (labels, centres).
        A cluster of one point (a row, or equal rows) stays whole beside an empty half at
        the same place (more clusters asked for than distinct rows: scikit-learn's empty
        clusters, and lowdim's warning); predict's tie then goes to the whole half."""
        if _one_point(Xc, x_sq):
            first = Xc[:1].toarray() if sp.issparse(Xc) else np.asarray(Xc[:1], dtype=np.float64)
            return np.zeros(Xc.shape[0], dtype=np.int64), np.vstack([first, first])

        def run_once(rng):
            start = initial_centers(self.init, Xc, 2, rng, weights, x_sq, self.offset_)
            loop = {"max_iter": self.max_iter, "tol": tol, "verbose": self.verbose >= 2}
            if sp.issparse(Xc) and Xc.nnz >= SPARSE_BOUNDS:
                try:  # the bounds settle most rows after a split's first iterations
                    return sparse_two_means(Xc, weights, start, x_sq, **loop)
                except EmptyHalf:
                    pass  # Lloyd's steps relocate a row into the empty half
            if products:  # sparse rows, and a small fit: Lloyd by products
                return products_kmeans(Xc, weights, start, x_sq, **loop)
            # bounds skip most distances of a 2-means and give Lloyd's result; Hamerly's
            # single bound, as every iteration is one kernel call, where Elkan's per-step
            # Python work outweighs its saved distances on the small clusters of a deep tree;
            # a row in doubt gets both distances in one read of it (the kernel's k = 2 case)
            return kmeans_single(Xc, weights, start, x_sq, algorithm="hamerly", **loop)

        best = best_of_restarts(run_once, self.n_init, rng, same=same_clusters)
        return best.state.labels, best.state.centers

    def fit(self, X, y=None, sample_weight=None):
        """Split until there are ``n_clusters`` clusters.

        Parameters
        ----------
        X : array-like or sparse matrix (n_samples, n_features)
        y : ignored
        sample_weight : array-like (n_samples,), optional

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        check_n_clusters(self.n_clusters, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        Xc, x_sq, mean_var = self._prepare(X, reset=True)
        rng = check_random_state(self.random_state)
        n_nodes = 2 * self.n_clusters - 1
        children = np.full((n_nodes, 2), -1, dtype=np.int64)
        centers = np.zeros((n_nodes, X.shape[1]))
        centers[0] = np.asarray(weights.astype(Xc.dtype) @ Xc).ravel() / weights.sum()  # one pass in X's type
        # the whole fit's size decides, as KMeans's: the deep tree's many small 2-means of a
        # large fit are each quicker in the warm bound kernels than by products
        products = by_products(Xc, self.n_clusters, "auto")
        rows, spans = _LeafRows(Xc, x_sq, weights), {0: (0, X.shape[0])}
        leaves, scores, errors = [0], np.zeros(1), np.zeros(1)  # the leaves left first, their scores and errors
        callbacks = callback_list(self.callbacks)
        for step in range(self.n_clusters - 1):
            at = int(np.argmax(scores))  # the first of equal scores
            node = leaves[at]
            span = spans.pop(node)
            labels, halves = self._bisect(*rows.data(span), self.tol * mean_var, rng, products)
            *halves_spans, labels = rows.split(span, labels)
            halves_errors = _halves_errors(*rows.data(span), labels, halves, products)
            by_size = self.bisecting_strategy == "largest_cluster"
            halves_scores = np.bincount(labels, minlength=2).astype(np.float64) if by_size else halves_errors
            for side in range(2):
                child = 2 * step + 1 + side
                children[node, side], centers[child], spans[child] = child, halves[side], halves_spans[side]
            leaves[at : at + 1] = [2 * step + 1, 2 * step + 2]
            scores = np.concatenate([scores[:at], halves_scores, scores[at + 1 :]])
            errors = np.concatenate([errors[:at], halves_errors, errors[at + 1 :]])
            if any(callback(step + 1, float(errors.sum()), centers[leaves]) for callback in callbacks):
                break
        self._finish(X, rows, children, centers, spans, leaves, products)
        return self

    def _finish(self, X, rows, children, centers, spans, leaves, products):
        self.split_children_, self.split_centers_ = children, centers
        self.split_labels_ = np.full(children.shape[0], -1, dtype=np.int64)
        self.split_labels_[leaves] = np.arange(len(leaves))
        ordered = np.empty(X.shape[0], dtype=np.int64)  # the labels in the rows' final order
        for label, leaf in enumerate(leaves):
            ordered[spans[leaf][0] : spans[leaf][1]] = label
        self.labels_ = np.empty(X.shape[0], dtype=np.int64)
        self.labels_[rows.perm] = ordered
        self._store_centers(centers[leaves], X.dtype)
        Xs, xs_sq, ws = rows.data((0, X.shape[0]))
        self.inertia_ = float(ws @ _squared_errors(Xs, xs_sq, self.offset_centers_, ordered, products))
        # the clusters that hold rows: an unsplittable leaf's empty half repeats its centre
        # only up to rounding (the mean of equal rows need not be exactly the row)
        warn_fewer_clusters(self.labels_, self.n_clusters, "BisectingKMeans")

    def predict(self, X):
        """The cluster of each sample, down the tree of splits: at each split towards the
        nearer of its two halves' centres (scikit-learn's rule).

        Parameters
        ----------
        X : array-like or sparse matrix (n_samples, n_features)

        Returns
        -------
        ndarray of int64 (n_samples,)
        """
        X, Xc, x_sq, _ = self._centered_input(X)
        shift = self.offset_ if sp.issparse(X) else 0.0  # sparse rows are not centred
        rows = Xc.astype(np.float64) if sp.issparse(Xc) else np.asarray(Xc, dtype=np.float64)
        node = np.zeros(X.shape[0], dtype=np.int64)
        for parent in range(self.split_children_.shape[0]):  # halves are numbered after their parent
            left, right = self.split_children_[parent]
            here = np.flatnonzero(node == parent)
            if left < 0 or here.size == 0:
                continue
            pair = self.split_centers_[[left, right]] + shift
            D = sq_euclidean(rows[here], pair, x_sq[here])
            node[here] = np.where(D[:, 1] < D[:, 0], right, left)
        return self.split_labels_[node]
