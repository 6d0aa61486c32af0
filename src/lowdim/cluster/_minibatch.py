"""Mini-batch k-means (Sculley, 2010), with ``partial_fit`` for data streamed in pieces."""

import numpy as np
import scipy.sparse as sp

from .._iterative import callback_list
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLABLE,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    VERBOSE,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_sample_weight
from .._warnings import warn_user
from ..distributed import is_dask_array, label_blocks, progress_wanted, stream_partial_fit
from ..linalg import group_row_sums
from ._base import (
    CentroidClusterer,
    check_n_clusters,
    resolve_n_init,
    warn_fewer_clusters,
)
from ._kmeans import INITS, initial_centers
from ._kmeans_init import dense_rows
from ._lloyd import assign


def minibatch_step(X, x_sq, weights, centers, counts, rng, reassignment_ratio):
    """Move each centre towards the mean of its batch points with step size
    ``batch weight / accumulated weight``; centres that have collected less than
    ``reassignment_ratio`` times the largest weight jump to random batch points.

    Updates ``centers`` and ``counts`` in place; returns the batch inertia (before the
    update) and the summed squared centre shift.
    """
    labels, dist = assign(X, centers, x_sq)
    sums, wsum = group_row_sums(X, labels, centers.shape[0], weights)
    old = centers.copy()
    counts += wsum
    hit = wsum > 0
    centers[hit] += (sums[hit] - wsum[hit, None] * centers[hit]) / counts[hit, None]
    if reassignment_ratio > 0 and counts.max() > 0:
        starved = np.flatnonzero(counts < reassignment_ratio * counts.max())[: max(1, len(counts) // 2)]
        if starved.size and X.shape[0] >= starved.size:
            picks = rng.choice(X.shape[0], size=starved.size, replace=False, p=weights / weights.sum())
            centers[starved] = dense_rows(X, picks)
            counts[starved] = np.min(counts[counts >= reassignment_ratio * counts.max()])
    return float(weights @ dist), float(np.sum((centers - old) ** 2))


class MiniBatchKMeans(CentroidClusterer):
    """k-means on random mini-batches, a drop-in for ``sklearn.cluster.MiniBatchKMeans``.

    Each step assigns one batch to the nearest centres (BLAS) and moves every centre
    towards its batch mean with a step that shrinks as the centre accumulates weight.
    ``partial_fit`` takes one batch at a time, so data that does not fit in memory can
    be clustered chunk by chunk. Given a ``dask.array``, ``partial_fit`` streams its row
    blocks in order, ``batch_size`` rows per step, and ``fit`` makes one such pass (the
    first step takes ``max(3 * batch_size, init_size)`` rows to initialise) plus one
    for ``labels_``.

    Parameters
    ----------
    n_clusters : int, default=8
    init : {'k-means++', 'random', 'k-means||'}, callable or array, default='k-means++'
    max_iter : int, default=100
        Passes over the data (in batches) at most.
    batch_size : int, default=1024
    verbose : int, default=0
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` on the full data after ``fit``.
    random_state : None, int, RandomState or Generator
    tol : float, default=0.0
        Stop when the squared centre shift of a step is at most ``tol`` times the mean
        feature variance (0 disables it).
    max_no_improvement : int or None, default=10
        Stop after that many steps without improvement of the smoothed batch inertia.
    init_size : int, optional
        Rows used to initialise (default ``3 * batch_size``, at least ``n_clusters``).
    n_init : int or 'auto', default='auto'
        Initialisations tried on the init sample (best inertia kept); 'auto' is 3 for
        'random', 1 otherwise.
    reassignment_ratio : float, default=0.01
    callbacks : callable or list of callables, optional
        Each is called after every mini-batch step of ``fit`` (not for dask arrays) as
        ``callback(step, objective, centers)``: ``objective`` is the smoothed batch
        inertia per sample that ``max_no_improvement`` watches, ``centers`` the centres
        so far in the coordinates of ``offset_``. Returning True stops the fit there.

    Attributes
    ----------
    cluster_centers_, labels_, inertia_, n_iter_, n_steps_, offset_, offset_centers_
    counts_ : ndarray (n_clusters,)
        Weight each centre has accumulated (its step sizes shrink with it); saved with
        the model, so a loaded model can go on with ``partial_fit``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import MiniBatchKMeans
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (500, 2)), rng.normal(10, 1, (500, 2))])
    >>> mbk = MiniBatchKMeans(n_clusters=2, batch_size=100, random_state=0).fit(X)
    >>> np.sort(mbk.cluster_centers_[:, 0]).round().astype(int).tolist()
    [0, 10]
    """

    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "init": [Options(set(INITS)), CALLABLE, ARRAY_LIKE],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "batch_size": [Interval(int, 1, None, closed="left")],
        "verbose": VERBOSE,
        "compute_labels": [BOOLEAN],
        "random_state": [RANDOM_STATE],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_no_improvement": [NONE, Interval(int, 0, None, closed="left")],
        "init_size": [NONE, Interval(int, 1, None, closed="left")],
        "n_init": [Options({"auto"}), Interval(int, 1, None, closed="left")],
        "reassignment_ratio": [Interval(float, 0, None, closed="left")],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        max_iter=100,
        batch_size=1024,
        verbose=0,
        compute_labels=True,
        random_state=None,
        tol=0.0,
        max_no_improvement=10,
        init_size=None,
        n_init="auto",
        reassignment_ratio=0.01,
        callbacks=None,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.verbose = verbose
        self.compute_labels = compute_labels
        self.random_state = random_state
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.init_size = init_size
        self.n_init = n_init
        self.reassignment_ratio = reassignment_ratio
        self.callbacks = callbacks

    def _initialize(self, Xc, x_sq, weights, rng):
        """Centres from the best of ``n_init`` starts, judged on an init sample."""
        n = Xc.shape[0]
        if self.init_size is not None and self.init_size < self.n_clusters:
            warn_user(
                f"init_size={self.init_size} should be larger than n_clusters={self.n_clusters}: the first "
                f"centres are drawn from init_size rows, so {self.n_clusters} rows are used.",
                RuntimeWarning,
            )
        size = min(n, max(self.n_clusters, self.init_size or 3 * self.batch_size))
        idx = np.sort(rng.choice(n, size=size, replace=False)) if size < n else np.arange(n)
        S, s_sq, sw = Xc[idx], x_sq[idx], weights[idx]
        best, best_inertia = None, np.inf
        for _ in range(resolve_n_init(self.n_init, self.init, 3)):
            start = initial_centers(self.init, S, self.n_clusters, rng, sw, s_sq, self.offset_)
            inertia = float(sw @ assign(S, start, s_sq)[1])
            if inertia < best_inertia:
                best, best_inertia = start, inertia
        return best

    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` in mini-batches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        validate_params(self)
        if is_dask_array(X):
            with progress_wanted(self.verbose):
                return self._fit_dask(X, sample_weight)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        check_n_clusters(self.n_clusters, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        Xc, x_sq, mean_var = self._prepare(X, reset=True)
        rng = self._rng = check_random_state(self.random_state)
        centers = self._initialize(Xc, x_sq, weights, rng)
        counts = np.zeros(self.n_clusters)
        n, batch = X.shape[0], min(self.batch_size, X.shape[0])
        n_steps = max(1, (self.max_iter * n) // batch)
        ewa, best, stale, alpha = None, np.inf, 0, min(1.0, 2.0 * batch / (n + 1))
        callbacks = callback_list(self.callbacks)
        for step in range(1, n_steps + 1):
            idx = rng.integers(0, n, size=batch)
            inertia, shift = minibatch_step(
                Xc[idx],
                x_sq[idx],
                weights[idx],
                centers,
                counts,
                rng,
                self.reassignment_ratio if step % 10 == 0 else 0.0,
            )
            per_sample = inertia / batch
            ewa = per_sample if ewa is None else (1 - alpha) * ewa + alpha * per_sample
            if self.verbose:
                print(f"[MiniBatchKMeans] step {step}/{n_steps}: batch inertia {per_sample:.6g}, ewa {ewa:.6g}")
            if any(callback(step, ewa, centers) for callback in callbacks):
                break
            if self.tol > 0 and shift <= self.tol * mean_var:
                if self.verbose:  # scikit-learn's words
                    print(f"[MiniBatchKMeans] Converged (small centers change) at step {step}/{n_steps}")
                break
            best, stale = (ewa, 0) if ewa < best else (best, stale + 1)
            if self.max_no_improvement is not None and stale >= self.max_no_improvement:
                if self.verbose:
                    print(f"[MiniBatchKMeans] Converged (lack of improvement in inertia) at step {step}/{n_steps}")
                break
        self.n_steps_ = step
        self.n_iter_ = int(np.ceil(step * batch / n))
        self._store_centers(centers, X.dtype)
        self.counts_ = counts
        self._label(Xc, x_sq, weights)
        if self.compute_labels:
            warn_fewer_clusters(self.cluster_centers_, self.n_clusters, "MiniBatchKMeans")
        return self

    def _fit_dask(self, X, sample_weight):
        """One streaming pass over the row blocks, then (``compute_labels``) one more
        for ``labels_`` and ``inertia_``."""
        for name in ("cluster_centers_", "labels_", "inertia_", "counts_", "n_steps_"):
            self.__dict__.pop(name, None)
        X = stream_partial_fit(self, X, sample_weight)
        self.n_iter_ = 1
        if self.compute_labels:
            self.labels_, self.inertia_ = label_blocks(lambda block: self._nearest(block)[1:], X, sample_weight)
            warn_fewer_clusters(self.cluster_centers_, self.n_clusters, "MiniBatchKMeans")
        return self

    def _label(self, Xc, x_sq, weights):
        """``labels_`` and ``inertia_`` of the (centred) data on the current centres."""
        if self.compute_labels:
            self.labels_, dist = assign(Xc, self.offset_centers_ + self._shift(Xc), x_sq)
            self.inertia_ = float(weights @ dist)

    def _shift(self, Xc):
        """From the centred coordinates to those of ``Xc``: sparse data are not centred."""
        return self.offset_ if sp.issparse(Xc) else np.zeros_like(self.offset_)

    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the centres with one batch (the first call initialises them on it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        if is_dask_array(X):
            with progress_wanted(self.verbose):
                stream_partial_fit(self, X, sample_weight)
            return self
        first = not hasattr(self, "cluster_centers_")
        if first:
            validate_params(self)
            self._rng = check_random_state(self.random_state)
        elif not hasattr(self, "_rng"):  # a model loaded from a file goes on streaming
            self._rng = check_random_state(self.random_state)
        X = self._validate_input(X, reset=first, check_fitted=False, accept_sparse=True)
        weights = check_sample_weight(sample_weight, X.shape[0])
        if first:
            check_n_clusters(self.n_clusters, X.shape[0])
            Xc, x_sq, _ = self._prepare(X, reset=True)
            centers = self._initialize(Xc, x_sq, weights, self._rng)
            self.counts_, self.n_steps_ = np.zeros(self.n_clusters), 0
        else:
            Xc, x_sq, _ = self._prepare(X, reset=False)
            centers = self.offset_centers_ + self._shift(Xc)
        minibatch_step(
            Xc,
            x_sq,
            weights,
            centers,
            self.counts_,
            self._rng,
            self.reassignment_ratio if self.n_steps_ % 10 == 9 else 0.0,
        )
        self.n_steps_ += 1
        self._store_centers(centers - self._shift(Xc), X.dtype)
        self._label(Xc, x_sq, weights)
        return self
