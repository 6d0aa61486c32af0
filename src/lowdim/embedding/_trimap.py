"""TriMap (Amid & Warmuth 2019): an embedding that keeps the order of distances in
sampled triplets, a drop-in for the trimap package's ``TRIMAP``."""

import numpy as np
from sklearn.base import BaseEstimator

from .._estimator import EmbeddingMixin, ValidatedInputMixin
from .._iterative import callback_list
from .._mixed_input import GowerTableMixin
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    VERBOSE,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_at_most_samples, check_precomputed, check_sample_count, warn_constant_features
from .._warnings import warn_user
from ..linalg import column_moments
from ..neighbors import make_index, warn_duplicates
from ._pacmap_pairs import EXTRA_NEIGHBORS, local_scales, near_partners, random_others

PCA_DIMENSIONS = 100  # with apply_pca, wider data are reduced to this many components first
PCA_INIT_SCALE = 0.01  # the start: the first principal components times this
RANDOM_WEIGHT_SCALE = 0.1  # random triplets weigh a tenth of the neighbour triplets
GAINS = (0.2, 0.8, 0.01)  # delta-bar-delta: gain increase, damping, floor
MOMENTUM = (0.5, 0.8, 250)  # momentum before and after this iteration
DISTANCES = {"euclidean": 0, "manhattan": 1, "angular": 2, "cosine": 2, "hamming": 3}  # codes of pair_distances


def tempered_log(x, t):
    """``log_t(x) = (x^(1-t) - 1) / (1 - t)`` (the log at t = 1).

    Examples
    --------
    >>> float(tempered_log(np.array(4.0), 0.5))
    2.0
    """
    return np.log(x) if abs(t - 1.0) < 1e-5 else (np.power(x, 1.0 - t) - 1.0) / (1.0 - t)


def _scaled_similarity(d, scale_i, scale_j):
    return -(d**2) / (scale_i * scale_j)


def row_distances(X, code):
    """The distances of pairs of rows of ``X`` by the distance ``code`` (``DISTANCES``),
    as ``distances(a, b)`` for index arrays ``a`` and ``b``.

    Examples
    --------
    >>> row_distances(np.array([[0.0], [3.0]]), 0)(np.array([0]), np.array([1])).tolist()
    [3.0]
    """
    from .._kernels.trimap import pair_distances

    return lambda a, b: pair_distances(X, a, b, code)


def triplet_weights(distances, triplets, scales, n_knn, temperature):
    """Each triplet's weight: how much more similar its near pair is than its far one
    (``-d^2 / (sigma_i sigma_j)``), random triplets scaled by RANDOM_WEIGHT_SCALE,
    shifted to start at 0 and compressed by the tempered log.

    Parameters
    ----------
    distances : callable
        ``distances(a, b)``: the distances of the row pairs ``(a[t], b[t])``
        (``row_distances``, or a Gower index's ``pair_distances``).
    triplets : ndarray of int (m, 3)
    scales : ndarray (n,)
    n_knn : int
        How many triplets, first, are neighbour triplets (the rest are random).
    temperature : float

    Returns
    -------
    ndarray (m,)

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [5.0]])
    >>> triplet_weights(row_distances(X, 0), np.array([[0, 1, 2]]), np.ones(3), 1, 0.5).tolist()
    [0.0]
    """
    i, j, k = (np.ascontiguousarray(triplets[:, c]) for c in range(3))
    d_ik = distances(i, k)
    d_ij = distances(i, j)
    w = _scaled_similarity(d_ij, scales[i], scales[j]) - _scaled_similarity(d_ik, scales[i], scales[k])
    w[n_knn:] *= RANDOM_WEIGHT_SCALE
    w[np.isnan(w)] = 0.0
    w -= w.min()
    return tempered_log(1.0 + w, temperature)


def random_triplets(n, distances, n_random, scales, rng):
    """``n_random`` triplets per row of two random other rows, ordered so that the more
    similar (by scaled ``distances``, as for ``triplet_weights``) comes first.

    Examples
    --------
    >>> X = np.arange(10.0)[:, None]
    >>> random_triplets(10, row_distances(X, 0), 2, np.ones(10), np.random.default_rng(0)).shape
    (20, 3)
    """
    # Fortran order: each column a contiguous array, as pair_distances is compiled for
    pair = np.asfortranarray(random_others(rng, n, n, (n_random, 2), True).reshape(-1, 2).astype(np.int64))
    same = pair[:, 0] == pair[:, 1]
    while same.any():  # the two others must differ
        pair[same, 1] = random_others(rng, n, n, (1,), True)[np.repeat(np.arange(n), n_random)[same], 0]
        same = pair[:, 0] == pair[:, 1]
    anchor = np.repeat(np.arange(n), n_random).astype(np.int64)
    similar = [_scaled_similarity(distances(anchor, pair[:, c]), scales[anchor], scales[pair[:, c]]) for c in (0, 1)]
    swap = similar[0] < similar[1]
    pair[swap] = pair[swap][:, ::-1]
    return np.column_stack([anchor, pair])


class TriMap(GowerTableMixin, EmbeddingMixin, ValidatedInputMixin, BaseEstimator):
    """TriMap, with the trimap package's parameter names (``trimap.TRIMAP``).

    Each point gets ``n_inliers x n_outliers`` triplets ``(i, j, k)``: ``j`` one of its
    ``n_inliers`` most similar neighbours (distance scaled by the two points' local
    scales, the mean distance to their 4th-6th neighbours), ``k`` a random point farther
    out; and ``n_random`` triplets of two random points. Each triplet is weighted by how
    much more similar ``j`` is than ``k``, and the map minimises
    ``sum_t w_t / (1 + d_ik / d_ij)`` with ``d = 1 + squared distance`` on the map: the
    near pair of every triplet pulled in closer than its far pair. From the first
    principal components (times 0.01), ``n_iters`` full-gradient steps with momentum
    and per-coordinate gains (delta-bar-delta) find the map; the random triplets keep
    the global layout that neighbour methods lose.

    Parameters
    ----------
    n_dims : int, default=2
    n_inliers : int, default=12
    n_outliers : int, default=4
    n_random : int, default=3
    distance : {'euclidean', 'manhattan', 'angular', 'cosine', 'hamming', 'gower'}, default='euclidean'
        'gower': Gower's distance for a mixed table (a DataFrame with category, text or
        boolean columns and gaps, as it is; or category codes named in
        ``metric_params``); a pair sharing no column counts as the largest distance, 1,
        and the start is the PCA of the rows' encoding (``GowerIndex.encode``).
    lr : float, default=0.1
    n_iters : int, default=400
    triplets : ndarray of int (m, 3), optional
        Triplets to use instead of sampling them (with ``weights``).
    weights : ndarray (m,), optional
    use_dist_matrix : bool, default=False
        X holds the distances between the rows.
    knn_tuple : tuple of ndarray, optional
        ``(indices, distances)`` of each row's nearest neighbours (the row itself
        first), instead of searching.
    verbose : bool, default=False
    weight_adj : None
        Deprecated in trimap and ignored there too (a warning).
    weight_temp : float, default=0.5
        Temperature of the tempered log that compresses the weights.
    apply_pca : bool, default=True
        Reduce rows of more than 100 columns to 100 principal components first.
    opt_method : {'dbd', 'momentum', 'sd'}, default='dbd'
    return_seq : bool, default=False
        Keep the map every 10 iterations in ``embedding_seq_``.
    random_state : None, int or Generator
        The triplets' draws (the trimap package has no seed).
    callbacks : callable or list of callables, optional
        Each is called after every iteration as ``callback(iteration, objective, Y)``:
        ``Y`` is the map so far and ``objective`` the loss per triplet at the iteration's
        gradient point. Returning True stops the descent there.
    metric_params : dict, optional
        'categorical', 'ordinal', 'weights' of ``distance='gower'``.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_dims)
    triplets_ : ndarray of int32 (m, 3)
        The triplets used (the trimap package overwrites its ``triplets`` parameter
        with them; a scikit-learn estimator keeps its parameters as given).
    weights_ : ndarray of float32 (m,)
    loss_ : float
        The final loss per triplet.
    violated_ : float
        Fraction of triplets whose far point ended nearer.
    embedding_seq_ : ndarray (n_samples, n_dims, n_iters // 10 + 1) or None
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import TriMap
    >>> X = np.random.default_rng(0).normal(size=(300, 10))
    >>> TriMap(random_state=0).fit_transform(X).shape
    (300, 2)
    """

    _parameter_constraints = {
        "n_dims": [Interval(int, 2, None, closed="left")],
        "n_inliers": [Interval(int, 1, None, closed="left")],
        "n_outliers": [Interval(int, 1, None, closed="left")],
        "n_random": [Interval(int, 0, None, closed="left")],
        "distance": [Options({*DISTANCES, "gower"})],
        "lr": [Interval(float, 0, None, closed="neither")],
        "n_iters": [Interval(int, 1, None, closed="left")],
        "triplets": [NONE, ARRAY_LIKE],
        "weights": [NONE, ARRAY_LIKE],
        "use_dist_matrix": [BOOLEAN],
        "knn_tuple": [NONE, InstanceOf(tuple)],
        "verbose": VERBOSE,
        "weight_adj": [NONE, Interval(float, None, None)],
        "weight_temp": [Interval(float, 0, None, closed="left")],
        "apply_pca": [BOOLEAN],
        "opt_method": [Options({"dbd", "momentum", "sd"})],
        "return_seq": [BOOLEAN],
        "random_state": [RANDOM_STATE],
        "callbacks": CALLBACKS,
        "metric_params": [NONE, InstanceOf(dict)],
    }

    def __init__(
        self,
        n_dims=2,
        n_inliers=12,
        n_outliers=4,
        n_random=3,
        distance="euclidean",
        lr=0.1,
        n_iters=400,
        triplets=None,
        weights=None,
        use_dist_matrix=False,
        knn_tuple=None,
        verbose=False,
        weight_adj=None,
        weight_temp=0.5,
        apply_pca=True,
        opt_method="dbd",
        return_seq=False,
        random_state=None,
        callbacks=None,
        metric_params=None,
    ):
        self.n_dims = n_dims
        self.n_inliers = n_inliers
        self.n_outliers = n_outliers
        self.n_random = n_random
        self.distance = distance
        self.lr = lr
        self.n_iters = n_iters
        self.triplets = triplets
        self.weights = weights
        self.use_dist_matrix = use_dist_matrix
        self.knn_tuple = knn_tuple
        self.verbose = verbose
        self.weight_adj = weight_adj
        self.weight_temp = weight_temp
        self.apply_pca = apply_pca
        self.opt_method = opt_method
        self.return_seq = return_seq
        self.random_state = random_state
        self.callbacks = callbacks
        self.metric_params = metric_params

    def _rows(self, X):
        """Rows as the triplets see them: 100 principal components of wider rows (with
        ``apply_pca``); the PCA coordinates also give the start."""
        from ..decomposition import PCA

        X = np.ascontiguousarray(X, dtype=np.float64)  # any layout gives the same bits
        if self.distance == "gower":  # compared column by column, gaps included: no PCA
            return X
        wide = self.apply_pca and X.shape[1] > PCA_DIMENSIONS and X.shape[0] > PCA_DIMENSIONS
        if wide and self.distance != "hamming":
            return PCA(PCA_DIMENSIONS, random_state=0).fit_transform(X)
        return X

    def _neighbours(self, X, rows):
        """Each row's ``n_inliers + 50`` nearest others: given, from the distance matrix,
        or searched."""
        n = rows.shape[0]
        m = min(self.n_inliers + EXTRA_NEIGHBORS, n - 1)
        if self.knn_tuple is not None:
            idx, dist = (np.asarray(a) for a in self.knn_tuple)
            if idx.shape != dist.shape or idx.shape[0] != n or idx.shape[1] < self.n_inliers + 1:
                raise ValueError(
                    f"knn_tuple must be (indices, distances) of shape (n_samples, > n_inliers) with each row "
                    f"first; got shapes {idx.shape} and {dist.shape} for {n} rows and n_inliers={self.n_inliers}."
                )
            return dist[:, 1:].astype(np.float64), idx[:, 1:].astype(np.int64)
        if self.use_dist_matrix:
            D = np.asarray(X, dtype=np.float64).copy()
            np.fill_diagonal(D, np.inf)
            idx = np.argsort(D, axis=1, kind="stable")[:, :m]
            return np.take_along_axis(D, idx, axis=1), idx
        metric = {"angular": "cosine", "hamming": "hamming"}.get(self.distance, self.distance)
        if metric == "gower":  # kept: its pair distances and encoding serve the triplets and the start
            index = self._index = make_index("auto", "gower", n, self._distance_params()).build(rows)
        else:
            index = make_index("auto", metric, n).build(rows)
        dist, idx = index.query(rows, m, exclude_self=True)
        if metric == "cosine":  # annoy's angular distance: sqrt(2 - 2 cos)
            dist = np.sqrt(np.maximum(2.0 * np.asarray(dist, dtype=np.float64), 0.0))
        return np.asarray(dist, dtype=np.float64), np.asarray(idx, dtype=np.int64)

    def _sample(self, X, rows, rng):
        """The triplets (int32) and their weights (float32: both are read at every step),
        and how many of them are neighbour triplets (first, in runs of ``n_outliers``)."""
        from .._kernels.trimap import knn_triplets

        n = rows.shape[0]
        dist, idx = self._neighbours(X, rows)
        warn_duplicates(dist, self._shown_name, self._uses_gower)
        scales = local_scales(dist, skip_copies=True)  # copies would scale a row to 1e-10
        ranked = near_partners(dist, idx, self.n_inliers, scales, scales).astype(np.int64)
        neighbours = np.column_stack([np.arange(n), ranked])
        seed = int(rng.integers(2**31 - 1 - n))
        knn = knn_triplets(neighbours, self.n_inliers, self.n_outliers, seed)
        parts = [knn]
        distances = self._pair_distances(rows)
        if self.n_random > 0:
            parts.append(random_triplets(n, distances, self.n_random, scales, rng))
        triplets = np.vstack(parts)
        weights = triplet_weights(distances, triplets, scales, knn.shape[0], self.weight_temp)
        return triplets.astype(np.int32), weights.astype(np.float32), knn.shape[0]

    def _pair_distances(self, rows):
        """``distances(a, b)`` of row pairs: read from the given matrix (as the trimap
        package does), by Gower's index, or computed from the rows."""
        if self.use_dist_matrix:
            D = np.asarray(rows, dtype=np.float64)
            return lambda a, b: D[a, b]
        if self.distance == "gower":
            return self._gower_index(rows).pair_distances
        return row_distances(rows, DISTANCES[self.distance])

    def _gower_index(self, rows):
        """The Gower index of the rows (the search's, or an exact one where the neighbours
        were given): pair distances, and the numeric encoding that PCA starts from."""
        if self._index is None:
            self._index = make_index("exact", "gower", rows.shape[0], self._distance_params()).build(rows)
        return self._index

    def _check(self, X):
        n = X.shape[0]
        check_sample_count(n, "TriMap")
        check_at_most_samples(self.n_dims, n, "n_dims")
        if self.n_inliers > n - 2:  # its inliers and at least one other row, an outlier
            raise ValueError(
                f"n_inliers={self.n_inliers} must be at most {n - 2} for {n} samples: each point needs its inliers "
                "and at least one more row as an outlier; lower n_inliers."
            )
        if (self.triplets is None) != (self.weights is None):
            raise ValueError("triplets and weights go together: pass both (as TriMap fitted them) or neither.")
        if self.weight_adj is not None:
            warn_user("'weight_adj' is deprecated and will not be applied. Adjust 'weight_temp' if needed.")
        if self.use_dist_matrix:
            check_precomputed(X, parameter="use_dist_matrix=True")
        if not self.use_dist_matrix:
            warn_constant_features(column_moments(X)[1], "TriMap", "every sample is the same point", X=X)

    def _start(self, rows, init, n):
        if init is not None:
            Y = np.array(init, dtype=np.float64)
            if Y.shape != (n, self.n_dims):
                raise ValueError(f"init must have shape ({n}, {self.n_dims}); got {Y.shape}.")
            return Y
        from ..decomposition import PCA

        if self.distance == "gower" and not self.use_dist_matrix:
            rows = self._gower_index(rows).encode(rows)  # numbers whose distances follow Gower's, gaps filled
        k = min(self.n_dims, rows.shape[1], n)
        Y = np.zeros((n, self.n_dims))
        Y[:, :k] = PCA(k, random_state=0).fit_transform(rows)
        return PCA_INIT_SCALE * Y

    def _start_scale(self, X):
        """What the principal-component start is divided by: the range of X's values,
        as the trimap package scales rows of at most 100 features to [0, 1] first, so
        that the start is the same in any unit (in data units a start of incomes or
        populations is far too wide for the steps to move: trustworthiness 0.88 for the
        digits times 1e4 against 0.98). 1 for distances, Gower's and Hamming's, which
        have no unit to remove."""
        if self.use_dist_matrix or self.distance in ("gower", "hamming"):
            return 1.0
        span = float(np.max(X) - np.min(X))
        return span if span > 0 else 1.0

    def fit(self, X, y=None, init=None):
        """Sample the triplets and find the map.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or distances with ``use_dist_matrix``
        y : ignored
        init : ndarray (n_samples, n_dims), optional
            The start (default: the first principal components times 0.01).

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        self._check(X)
        rng = check_random_state(self.random_state)
        self._index = None  # a Gower index, built for this fit's rows
        rows = X if self.use_dist_matrix else self._rows(X)
        n_knn = 0  # given triplets: no runs assumed
        if self.triplets is not None:
            self.triplets_ = np.asarray(self.triplets, dtype=np.int32)
            self.weights_ = np.asarray(self.weights, dtype=np.float32)
        else:
            self.triplets_, self.weights_, n_knn = self._sample(X, rows, rng)
        start = self._start(np.asarray(rows, dtype=np.float64), init, X.shape[0])
        if init is None:
            start /= self._start_scale(X)
        self.embedding_ = self._descend(start, n_knn).astype(X.dtype)
        return self

    def fit_transform(self, X, y=None, init=None):
        """``fit`` and return ``embedding_``.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : ignored
        init : ndarray (n_samples, n_dims), optional

        Returns
        -------
        ndarray (n_samples, n_dims)
        """
        return self.fit(X, init=init).embedding_

    def _descend(self, Y, n_knn):
        """``n_iters`` gradient steps on the triplet loss from ``Y``: plain ('sd', the rate
        adapted to the loss), with momentum, or with momentum and per-coordinate gains
        ('dbd'); the gradient taken at the look-ahead point ``Y + momentum * velocity``."""
        from .._kernels.trimap import GRADIENT_CHUNKS, triplet_gradient

        n, dim = Y.shape
        # float32 halves the memory the triplets' random reads and writes touch (as trimap's)
        Y = Y.astype(np.float32)
        buffers = np.zeros((GRADIENT_CHUNKS, n, dim), dtype=np.float32)
        velocity, gain = np.zeros_like(Y), np.ones_like(Y)
        lr, last = float(self.lr), np.inf
        m = self.triplets_.shape[0]
        seq = [Y.copy()] if self.return_seq else None
        callbacks = callback_list(self.callbacks)
        for it in range(self.n_iters):
            momentum = MOMENTUM[1] if it > MOMENTUM[2] else MOMENTUM[0]
            at = Y if self.opt_method == "sd" else (Y + momentum * velocity).astype(np.float32)
            loss, violated = triplet_gradient(at, self.triplets_, self.weights_, n_knn, self.n_outliers, buffers)
            grad = buffers[0]
            if self.opt_method == "sd":
                Y -= lr * grad
                lr = lr * 1.01 if last > loss / m + 1e-7 else lr * 0.9
            elif self.opt_method == "momentum":
                velocity = momentum * velocity - lr * grad
                Y += velocity
                lr = lr * 1.01 if last > loss / m + 1e-7 else lr * 0.9
            else:
                flip = np.sign(velocity) != np.sign(grad)
                gain = np.where(flip, gain + GAINS[0], np.maximum(gain * GAINS[1], GAINS[2]))
                velocity = momentum * velocity - lr * gain * grad
                Y += velocity
            last = loss / m
            if seq is not None and (it + 1) % 10 == 0:
                seq.append(Y.copy())
            if any(callback(it + 1, last, Y) for callback in callbacks):
                break
        self.loss_, self.violated_ = float(loss / m), float(violated / m)
        self.embedding_seq_ = np.stack(seq, axis=2) if seq is not None else None
        return Y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.use_dist_matrix
        return tags
