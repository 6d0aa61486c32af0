"""What t-SNE and SNE share: perplexity affinities on the kNN graph ->
initialisation -> gradient descent on a KL objective (supplied by the subclass)."""

import weakref
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee
from sklearn.base import BaseEstimator

from .._estimator import EmbeddingMixin, ValidatedInputMixin
from .._iterative import callback_list, iteration_bar
from .._mixed_input import GowerTableMixin
from .._params import (
    ARRAY_LIKE,
    CALLABLE,
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
from .._validation import check_precomputed, check_sample_count, warn_constant_features
from ..distributed import check_dask_array, is_dask_array
from ..linalg import column_moments
from ..neighbors import (
    ALGORITHMS,
    INDEX_METRICS,
    SPARSE_METRICS,
    KNNIndex,
    find_neighbors,
    given_neighbors,
    make_index,
    search_algorithm,
    sparse_rows_allowed,
    warn_duplicates,
)
from ._affinities import (
    affinities_from_neighbors,
    effective_perplexity,
    kernel_neighbors,
    neighbor_affinities,
)
from ._gradients import entropy_term
from ._graph_arrays import sorted_csr
from ._initialization import check_init_for_metric, featureless_start, initial_embedding
from ._optimizer import Phase, descend

# Above this many points the kNN index is released once the neighbours are found (about
# 0.7 GB a million points, at the fit's peak) and rebuilt by the first transform.
KEEP_INDEX_UP_TO = 100_000

SHARED_CONSTRAINTS = {
    "n_components": [Interval(int, 1, None, closed="left")],
    "perplexity": [Interval(float, 0, None, closed="neither")],
    "early_exaggeration": [Interval(float, 1, None, closed="left")],
    "learning_rate": [Options({"auto"}), Interval(float, 0, None, closed="neither")],
    "max_iter": [Interval(int, 1, None, closed="left")],
    "n_iter_without_progress": [Interval(int, -1, None, closed="left")],
    "min_grad_norm": [Interval(float, 0, None, closed="left")],
    "metric": [Options(set(INDEX_METRICS)), CALLABLE],
    "metric_params": [NONE, InstanceOf(dict)],
    "init": [Options({"pca", "spectral", "random"}), ARRAY_LIKE],
    "verbose": VERBOSE,
    "random_state": [RANDOM_STATE],
    "early_exaggeration_iter": [Interval(int, 0, None, closed="left")],
    "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
    "callbacks": CALLBACKS,
}


def check_rows_or_distances(X, metric, name):
    """A precomputed distance matrix must be square and non-negative; rows are checked
    for constant features (and variances that underflow)."""
    if metric == "precomputed":
        check_precomputed(X)
    else:
        warn_constant_features(column_moments(X)[1], name, "every sample is the same point", X=X)


def sparse_input(estimator, X):
    """``sparse_rows_allowed`` for a neighbour embedding and its ``metric``."""
    return sparse_rows_allowed(estimator._shown_name, estimator.metric, X)


_SHARED_ROWS = weakref.WeakValueDictionary()  # id -> a read-only copy made by shared_rows


def shared_rows(X):
    """A read-only copy of the array ``X`` that ``own_copy`` hands out as it is, so
    several fits (``lowdim.sweep``) keep one copy of the rows instead of one each."""
    X = np.array(X, copy=True)
    X.setflags(write=False)
    _SHARED_ROWS[id(X)] = X
    return X


def own_copy(X):
    """A copy the model owns (dense or sparse), or the rows from ``shared_rows``."""
    if sp.issparse(X):
        return X.copy()
    if _SHARED_ROWS.get(id(X)) is X:
        return X
    return np.array(X, copy=True)


def as_float64(X):
    """``X`` in float64, contiguous when dense, CSR when sparse, lazily for a dask array."""
    if is_dask_array(X):
        return X.astype(np.float64)
    return sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)


def training_rows(estimator, X, accept_sparse, **checks):
    """The rows a neighbour embedding fits, validated (``checks``: ``_validate_input``'s
    options) and the feature count recorded: a dask array stays on the cluster (the kNN
    graph is built there, the layout runs here from the graph); anything else becomes
    an own copy, which the model keeps (and indexes built on it) for transform."""
    name = type(estimator).__name__
    if not is_dask_array(X):
        return own_copy(estimator._validate_input(X, reset=True, accept_sparse=accept_sparse, **checks))
    if estimator.metric == "precomputed":
        raise ValueError(f"{name} on a dask array needs feature vectors; metric='precomputed' takes a NumPy array.")
    if isinstance(estimator.neighbors_algorithm, KNNIndex):
        raise ValueError(
            f"{name} on a dask array builds its kNN graph on the cluster with 'auto', 'exact' or "
            f"'approximate' indexes; got neighbors_algorithm={estimator.neighbors_algorithm!r}."
        )
    X = check_dask_array(X, name)
    estimator.n_features_in_ = X.shape[1]
    return X


def start_embedding(estimator, X, affinities, rng, *, index=None, on_product=None):
    """The initial embedding of a neighbour embedding for its ``init`` and ``metric``:
    'precomputed' distances refuse the PCA start; a mixed table ('gower') starts from the
    spectral layout instead, and its graph's pieces are joined by Gower's distance (the
    estimator's built index, else an exact one of ``X``).

    Parameters
    ----------
    estimator : TSNE, SNE or UMAP
        Reads ``init``, ``metric``, ``n_components`` (and ``metric_params`` /
        ``metric_kwds``, ``_index``).
    X : ndarray (n, d)
    affinities : sparse (n, n)
    rng : numpy.random.Generator
    index : KNNIndex, optional
        A built index of ``X`` whose metric joins the graph's components.
    on_product : callable, optional
        As ``initial_embedding``'s.

    Returns
    -------
    ndarray (n, n_components)

    Examples
    --------
    >>> from lowdim import TSNE
    >>> start_embedding(TSNE(init="random"), np.zeros((3, 2)), None, np.random.default_rng(0)).shape
    (3, 2)
    """
    start, distances = featureless_start(estimator.init, estimator.metric)
    if estimator.metric == "gower":
        index = getattr(estimator, "_index", None)
        if index is None:
            params = estimator._distance_params()
            index = make_index("exact", "gower", X.shape[0], params).build(X)
    rows = init_rows(start, X, estimator.n_components)
    return initial_embedding(
        start, rows, affinities, estimator.n_components, rng, precomputed=distances, index=index, on_product=on_product
    )


def init_rows(init, X, n_components):
    """What ``initial_embedding`` reads for ``init``: for 'pca' on a dask array, the
    principal scores computed on the cluster (only they come to the client)."""
    if not (is_dask_array(X) and isinstance(init, str) and init == "pca"):
        return X
    from ..decomposition import PCA

    return np.asarray(PCA(n_components, random_state=0).fit(X).transform(X))


def training_index(estimator, dtype=None):
    """The kNN index over ``estimator.X_fit_`` (in ``dtype`` if given, as at fit time),
    rebuilt once for a loaded model, whose file holds the data but not the index."""
    index = getattr(estimator, "_index", None)
    if index is None:
        precomputed = estimator.metric == "precomputed"
        params = estimator._distance_params()
        X = estimator.X_fit_
        if precomputed:  # new rows bring their distances; the index holds only the count
            X = np.zeros((X.shape[0], 1))
        index = make_index(
            "exact" if precomputed else search_algorithm(estimator.neighbors_algorithm),
            estimator.metric,
            X.shape[0],
            params,
            sparse=sp.issparse(X),
        ).build(X if sp.issparse(X) else np.asarray(X, dtype=dtype))
        estimator._index = index
    return index


def _in_original_order(callback, order):
    """``callback`` seeing the embedding rows in the user's order."""

    def call(iteration, objective, state):
        Y = np.empty_like(state.Y)
        Y[order] = state.Y
        return callback(iteration, objective, replace(state, Y=Y))

    return call


class NeighborEmbedding(GowerTableMixin, EmbeddingMixin, ValidatedInputMixin, BaseEstimator):
    """Base of TSNE and SNE. Subclasses define ``_objective_factory(n)``: it sets
    ``method_`` and returns ``P -> objective`` with ``gradient(Y, exaggeration) ->
    (grad, aux)``, ``value(Y, aux)`` and ``final(Y)`` (the KL divergence)."""

    _stage_bars = True  # verbose shows a bar with an ETA for every stage (the CLI uses them)

    _joint = True  # symmetric joint affinities (False: the conditionals p(j | i))

    # sum P log P, the constant part of KL(P || Q) (parametric t-SNE reports KL with it)
    _p_log_p = staticmethod(entropy_term)

    def _check_relations(self):
        """Relations between parameters, checked before X is read."""
        check_init_for_metric(self.init, self.metric)

    def _check_data(self, X):
        check_sample_count(X.shape[0], self._shown_name, self.n_components)
        if not is_dask_array(X):  # a dask array's columns are not scanned on the client
            check_rows_or_distances(X, self.metric, self._shown_name)

    def _kernel(self):
        """(the perplexity argument, the kernel) of the affinities: t-SNE's 'affinity'
        (multiscale takes the effective perplexities), SNE's Gaussian."""
        kernel = getattr(self, "affinity", "perplexity")
        return (self.perplexities_ if kernel == "multiscale" else self.perplexity_), kernel

    def _given_neighbors(self, X):
        """``precomputed_knn``, or a sparse precomputed ``X``'s stored distances (as
        many columns as the affinities use, at least the perplexity's), or None."""
        n = X.shape[0]
        perplexity, _ = self._kernel()
        reach = min(n - 1, int(np.ceil(max(np.atleast_1d(perplexity)))))
        given = getattr(self, "precomputed_knn", None)
        return given_neighbors(
            X,
            self._n_neighbors(n),
            precomputed_knn=given,
            metric=self.metric,
            name=self._shown_name,
            minimum=reach,
            algorithm=self.neighbors_algorithm,
        )

    def _input_affinities(self, X64):
        """``perplexity_`` (and ``perplexities_``) for these rows, then the joint
        affinities and the kNN index (``_affinities``); ``method_`` must be set."""
        n, name = X64.shape[0], self._shown_name
        self.perplexity_ = effective_perplexity(self.perplexity, n, name)
        if getattr(self, "affinity", "perplexity") == "multiscale":
            given = self.perplexities if self.perplexities is not None else (self.perplexity, 10 * self.perplexity)
            self.perplexities_ = tuple(effective_perplexity(float(p), n, name) for p in given)
        return self._affinities(X64, n)

    def _affinities(self, X64, n):
        """Joint affinities, the kNN index, and a duplicate-row warning."""
        perplexity, kernel = self._kernel()
        given = self._given_neighbors(X64)
        if given is None and is_dask_array(X64):  # the graph is built on the cluster; no index to keep
            where = {
                "algorithm": self.neighbors_algorithm,
                "metric": self.metric,
                "metric_params": self._distance_params(),
            }
            given = find_neighbors(X64, self._n_neighbors(n), **where)[:2]
        if given is not None:  # the index for transform is built when first needed
            P, nearest = affinities_from_neighbors(*given, perplexity, joint=self._joint, kernel=kernel)
            warn_duplicates(nearest, self._shown_name, self._uses_gower)
            return P, None
        P, index, nearest = neighbor_affinities(
            X64,
            perplexity,
            self._n_neighbors(n),
            metric=self.metric,
            algorithm=self.neighbors_algorithm,
            joint=self._joint,
            metric_params=self._distance_params(),
            verbose=self.verbose > 0,
            keep_index=n <= KEEP_INDEX_UP_TO,
            kernel=kernel,
        )
        warn_duplicates(nearest, self._shown_name, self._uses_gower)
        return P, index

    def _n_neighbors(self, n):
        """Neighbours per point for the affinities: 3 x perplexity (of the largest, for
        multiscale; the perplexity itself for the uniform kernel; every other point for
        the exact method with a Gaussian)."""
        perplexity, kernel = self._kernel()
        if self.method_ == "exact" and kernel != "uniform":
            return n - 1
        return kernel_neighbors(perplexity, kernel, n)

    def fit(self, X, y=None):
        """Embed ``X``.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or (n_samples, n_samples) distances
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_relations()
        X = training_rows(self, X, accept_sparse=sparse_input(self, X))
        self._check_data(X)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        X64 = as_float64(X)  # one graph whatever the input dtype
        objective = self._objective_factory(n)
        P, self._index = self._input_affinities(X64)
        self.learning_rate_ = (
            max(n / self.early_exaggeration / 4.0, 50.0) if self.learning_rate == "auto" else float(self.learning_rate)
        )
        Y, P, order = self._start(X64, P, rng)  # the unordered graph is freed: one copy in memory
        Y, kl, self.n_iter_ = self._optimize(P, order, Y, objective)
        self.kl_divergence_ = float(kl)  # a plain float whichever objective computed it, as scikit-learn's
        self.affinities_ = self._original_order(P, order)
        self.embedding_ = Y.astype(X.dtype)
        self.X_fit_ = X
        self.n_components_ = self.n_components
        return self

    def _start(self, X64, P, rng):
        """The initial embedding and the affinities in cache order (``_cache_order``),
        with ``verbose`` under a step bar (together a few seconds a million points)."""
        from .._progress import progress_bar

        start = featureless_start(self.init, self.metric)[0]
        init = start if isinstance(start, str) else "given"
        with progress_bar(total=2, desc=f"{self._shown_name} start", unit="step", disable=self.verbose < 1) as bar:
            bar.set_postfix_str(f"initial embedding ({init})")
            Y = start_embedding(self, X64, P, rng)
            bar.update()
            bar.set_postfix_str("affinities in cache order")
            P, order = self._cache_order(P)
            bar.update()
        return Y, P, order

    def _cache_order(self, P):
        """``P`` in reverse Cuthill-McKee order of the affinity graph, and the order: a
        point's neighbours then sit near it in memory, so the attraction pass reads the
        embedding in cache order (BENCHMARKS.md, Design choices: rcm)."""
        from .._kernels.symmetric_graph import permuted_csr

        order = reverse_cuthill_mckee(P if self._joint else (P + P.T).tocsr(), symmetric_mode=True)
        return sorted_csr(*permuted_csr(P.indptr, P.indices, P.data, order), P.shape[0]), order

    @staticmethod
    def _original_order(P, order):
        """``P`` (permuted by ``order``) back in the rows' own order."""
        from .._kernels.symmetric_graph import permuted_csr

        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size, dtype=order.dtype)
        return sorted_csr(*permuted_csr(P.indptr, P.indices, P.data, inverse), P.shape[0])

    def _optimize(self, P, order, Y, make_objective, phases=None):
        """Gradient descent on the problem in cache order (``P`` already permuted by
        ``order``), through ``phases`` (default: the estimator's). Returns the embedding
        in the original order, the final KL and the iteration count."""
        objective = make_objective(P)
        given = callback_list(self.callbacks)
        callbacks = [_in_original_order(callback, order) for callback in given]
        phases = phases or self._phases()
        label = self._shown_name
        with iteration_bar(label, sum(phase.n_iter for phase in phases), self.verbose >= 1) as tick:
            state = descend(
                np.ascontiguousarray(Y[order]),
                objective.gradient,
                objective.value,
                phases,
                self.learning_rate_,
                min_grad_norm=self.min_grad_norm,
                n_iter_without_progress=self.n_iter_without_progress,
                callbacks=callbacks + tick,
                verbose=self.verbose >= 2,
                label=label,
            )
        out = np.empty_like(state.Y)
        out[order] = state.Y
        return out, objective.final(state.Y), state.iteration

    def _phases(self):
        early = min(self.early_exaggeration_iter, self.max_iter)
        phases = [Phase(early, self.early_exaggeration, 0.5)] if early else []
        if self.max_iter > early:
            exaggeration = getattr(self, "exaggeration", None)  # openTSNE's, for the main phase
            phases.append(Phase(self.max_iter - early, exaggeration or 1.0, 0.8))
        return phases

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.sparse = self.metric in SPARSE_METRICS
        return tags
