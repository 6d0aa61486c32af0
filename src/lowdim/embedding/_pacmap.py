"""PaCMAP (Wang, Huang, Rudin & Shaposhnik, JMLR 2021): near, mid-near and further
pairs, a three-phase weight schedule, and Adam on the pair losses."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

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
from .._validation import check_at_most_samples, check_reduced_rows, check_sample_count
from ..neighbors import (
    ALGORITHMS,
    PRECOMPUTED_KNN,
    KNNIndex,
    check_distance_range,
    check_n_neighbors,
    given_neighbors,
    make_index,
    search_algorithm,
    warn_duplicates,
)
from ._base import check_rows_or_distances
from ._initialization import initial_embedding, rescale
from ._pacmap_pairs import (
    EXTRA_NEIGHBORS,
    further_partners,
    local_scales,
    mid_near_partners,
    near_partners,
    pairs_from_rows,
    rows_from_pairs,
)

PCA_DIMENSIONS = 100  # with apply_pca, wider data are reduced to this many components first
PCA_INIT_STD = 0.01  # the PCA start's first coordinate has this standard deviation
MAX_ITERS = 100_000  # 200x the default in all; a loaded model's phases size its transform
# the index's metric for each distance: angular rows are scaled to unit length first
METRICS = {"euclidean": "euclidean", "angular": "euclidean", "cosine": "euclidean", "gower": "gower"}


def default_n_neighbors(n):
    """10 up to 10,000 points, then 10 + 15 (log10 n - 4) (the pacmap package's rule)."""
    return 10 if n <= 10_000 else int(round(10 + 15 * (np.log10(n) - 4)))


def phase_weights(t, phases):
    """``(w_near, w_mid, w_far)`` at iteration ``t``: mid-near weight from 1000 down to
    3 over the first phase (near 2), then 3 and 3, then the mid-near pairs off (near 1)."""
    p1, p2, _ = phases
    if t < p1:
        f = t / max(p1, 1)
        return 2.0, 1000.0 * (1.0 - f) + 3.0 * f, 1.0
    if t < p1 + p2:
        return 3.0, 3.0, 1.0
    return 1.0, 0.0, 1.0


class PaCMAP(
    GowerTableMixin,
    EmbeddingMixin,
    ValidatedInputMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Pairwise controlled manifold approximation, with the pacmap package's parameter names.

    Three kinds of pairs shape the map: each point's ``n_neighbors`` near pairs (chosen
    among its nearest 50 more by the distance scaled by both points' local scales),
    mid-near pairs (the second closest of six random points: they carry the global
    layout) and further pairs (random non-neighbours, pushed apart). The losses
    ``d / (10 + d)``, ``d / (10000 + d)`` and ``1 / (1 + d)`` of ``d = 1 + |y_i - y_j|^2``
    are weighted in three phases: mid-near pairs strong first (1000 down to 3) to fix the
    global layout, then balanced, then off while near pairs refine the clusters. Adam
    (learning rate ``lr``) on the full gradient.

    The gradient is summed in a fixed number of row chunks, so a seed gives the same map
    on any number of threads.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int or None, default=10
        Near pairs per point (the pacmap package's default); None: 10 up to 10,000
        points, ``10 + 15 (log10 n - 4)`` above (its rule for large data).
    MN_ratio : float, default=0.5
        Mid-near pairs per point, as a multiple of ``n_neighbors``.
    FP_ratio : float, default=2.0
        Further pairs per point, as a multiple of ``n_neighbors``.
    pair_neighbors, pair_MN, pair_FP : ndarray of shape (n_pairs, 2), optional
        Pairs given instead of sampled (rows of the training data; the fitted ones are
        ``pair_neighbors_`` etc.).
    distance : {'euclidean', 'angular', 'cosine', 'gower'}, default='euclidean'
        'angular' (= 'cosine'): rows are scaled to unit length first. 'gower': a mixed
        table (category codes, NaN gaps: ``lowdim.mixed_codes``) compared by Gower's
        distance; the 'pca' start is then the principal axes of the rows in the space
        whose distances follow Gower's (``GowerIndex.encode``).
    metric_params : dict, optional
        'categorical', 'ordinal', 'weights' of ``distance='gower'``.
    lr : float, default=1.0
        Adam's learning rate.
    num_iters : int or tuple of 3 int, default=(100, 100, 250)
        Iterations of the three phases; an int is the total, 100 + 100 + the rest (a
        third each below 300); at most 100,000 in all.
    apply_pca : bool, default=True
        Reduce data of more than 100 columns to 100 principal components before the
        pairs are chosen (the pacmap package does the same).
    init : {'pca', 'random'} or ndarray, default='pca'
        'pca': the first principal components scaled to a standard deviation of 0.01.
    random_state : None, int or Generator
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        'auto' is approximate (HNSW) from 20,000 points when faiss is installed.
    precomputed_knn : NeighborGraph or tuple, default=(None, None)
        Each point's nearest neighbours, found once for many fits: a
        ``lowdim.neighbors.NeighborGraph`` or umap-learn's ``(indices, distances)``,
        the point itself first. The near pairs are chosen among them (best with
        ``n_neighbors + 50`` columns; at least ``n_neighbors``) and the search of
        ``fit`` is skipped.
    verbose : bool, default=False
        A progress bar over the iterations.
    callbacks : callable or list of callables, optional
        Each is called after every iteration of ``fit`` as ``callback(iteration,
        objective, Y)``: ``Y`` is the layout so far and ``objective`` is NaN (PaCMAP's
        loss is not computed). Returning True stops the optimisation there.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    n_neighbors_ : int
    pair_neighbors_, pair_MN_, pair_FP_ : ndarray (n_pairs, 2)
        The pairs used (rows of the training data).
    scales_ : ndarray (n_samples,)
        Each training row's local scale (mean distance to its 4th-6th neighbours).
    P_fit_ : ndarray (n_samples, n_features or 100), float32
        The training rows as the pairs saw them (after 'angular' scaling, centring and
        PCA), kept for ``transform``.
    pca_mean_, pca_components_ : ndarray or None
        The PCA applied first (``apply_pca`` and more than 100 columns); without it,
        ``pca_mean_`` is the centre float64 Euclidean rows are moved by before their
        cast to float32 (so rows far from the origin keep their precision).
    n_features_in_ : int
    n_components_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X = load_digits().data[:400]
    >>> PaCMAP(random_state=0, num_iters=(50, 50, 100)).fit_transform(X).shape
    (400, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "n_neighbors": [NONE, Interval(int, 1, None, closed="left")],
        "MN_ratio": [Interval(float, 0, None, closed="left")],
        "FP_ratio": [Interval(float, 0, None, closed="left")],
        "pair_neighbors": [NONE, ARRAY_LIKE],
        "pair_MN": [NONE, ARRAY_LIKE],
        "pair_FP": [NONE, ARRAY_LIKE],
        "distance": [Options(set(METRICS))],
        "metric_params": [NONE, InstanceOf(dict)],
        "lr": [Interval(float, 0, None, closed="neither")],
        "num_iters": [Interval(int, 1, MAX_ITERS, closed="both"), InstanceOf(tuple, list, label="a tuple of 3 ints")],
        "apply_pca": [BOOLEAN],
        "init": [Options({"pca", "random"}), ARRAY_LIKE],
        "random_state": [RANDOM_STATE],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "precomputed_knn": PRECOMPUTED_KNN,
        "verbose": VERBOSE,
        "callbacks": CALLBACKS,
    }
    fit_transform = EmbeddingMixin.fit_transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_components=2,
        n_neighbors=10,
        MN_ratio=0.5,
        FP_ratio=2.0,
        pair_neighbors=None,
        pair_MN=None,
        pair_FP=None,
        distance="euclidean",
        metric_params=None,
        lr=1.0,
        num_iters=(100, 100, 250),
        apply_pca=True,
        init="pca",
        random_state=None,
        neighbors_algorithm="auto",
        precomputed_knn=(None, None),
        verbose=False,
        callbacks=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.MN_ratio = MN_ratio
        self.FP_ratio = FP_ratio
        self.pair_neighbors = pair_neighbors
        self.pair_MN = pair_MN
        self.pair_FP = pair_FP
        self.distance = distance
        self.metric_params = metric_params
        self.lr = lr
        self.num_iters = num_iters
        self.apply_pca = apply_pca
        self.init = init
        self.random_state = random_state
        self.neighbors_algorithm = neighbors_algorithm
        self.precomputed_knn = precomputed_knn
        self.verbose = verbose
        self.callbacks = callbacks

    def _phases(self):
        if isinstance(self.num_iters, tuple | list):
            if (
                len(self.num_iters) != 3
                or not all(isinstance(p, numbers.Real) and float(p).is_integer() and p >= 0 for p in self.num_iters)
                or sum(self.num_iters) > MAX_ITERS
            ):
                raise ValueError(
                    f"num_iters must be an int or 3 non-negative ints, at most {MAX_ITERS} in all; got "
                    f"{self.num_iters!r}."
                )
            return tuple(int(p) for p in self.num_iters)
        total = int(self.num_iters)
        first = 100 if total >= 300 else total // 3
        return first, first, total - 2 * first

    def _preprocess(self, X, fitting):
        """Rows as the pairs see them: unit length for 'angular', then (with
        ``apply_pca`` and more than 100 columns) 100 principal components; float32."""
        if self.distance == "gower":  # compared column by column: no scaling, no PCA
            self.pca_mean_ = self.pca_components_ = None
            return np.ascontiguousarray(X, dtype=np.float32)
        # float32 rows stay float32 (PCA accumulates in float64; centring before the
        # product keeps rows far from the origin exact): the pairs read float32 anyway
        X = np.asarray(X)
        X = X if X.dtype == np.float32 else X.astype(np.float64, copy=False)
        if self.distance == "euclidean":  # before the cast to float32 (new rows too): it would make infinities
            check_distance_range(X)
        else:  # unit rows first, in float64: any scale
            X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), np.finfo(X.dtype).tiny)
        if fitting:
            self.pca_mean_ = self.pca_components_ = None
            if self.apply_pca and X.shape[1] > PCA_DIMENSIONS and X.shape[0] > PCA_DIMENSIONS:
                from ..decomposition import PCA

                pca = PCA(PCA_DIMENSIONS, random_state=0).fit(X)
                self.pca_mean_, self.pca_components_ = (
                    np.asarray(a, dtype=np.float64) for a in (pca.mean_, pca.components_)
                )
            elif self.distance == "euclidean" and X.dtype == np.float64:
                # centred before the cast: float32 keeps 7 digits of x, not of x - mean
                # (coordinates such as 5e6 + metres lost their metres)
                self.pca_mean_ = np.mean(X, axis=0)
        if self.pca_components_ is not None:
            X = (X - self.pca_mean_.astype(X.dtype)) @ self.pca_components_.T.astype(X.dtype)
        elif self.pca_mean_ is not None:
            X = X - self.pca_mean_.astype(X.dtype)
        return np.ascontiguousarray(X, dtype=np.float32)

    def _check_loaded(self):
        """A loaded model's training rows are as wide as its new rows become."""
        check_reduced_rows(self, "P_fit_")

    def _check_data(self, X):
        n = X.shape[0]
        check_sample_count(n, "PaCMAP")
        if isinstance(self.init, str) and self.init == "pca" and self.n_components > min(X.shape):
            raise ValueError(
                f"n_components={self.n_components} must be at most min(n_samples, n_features) = "
                f"min({n}, {X.shape[1]}) for init='pca'; lower n_components or pass init='random'."
            )
        check_at_most_samples(self.n_components, n)
        check_rows_or_distances(X, self.distance, "PaCMAP")

    def _near(self, P, k):
        """Near partners from each row's ``k + 50`` nearest others, and every row's scale."""
        n = P.shape[0]
        extra = min(k + EXTRA_NEIGHBORS, n - 1)
        # a given graph's metric is the user's ('cosine' for angular rows, searched here
        # as unit rows by Euclidean distance)
        metric = {"euclidean": "euclidean", "gower": "gower"}.get(self.distance, "cosine")
        given = given_neighbors(
            P,
            extra,
            precomputed_knn=self.precomputed_knn,
            metric=metric,
            name="PaCMAP",
            minimum=min(k, n - 1),
            algorithm=self.neighbors_algorithm,
        )
        if given is not None:
            self._index = None  # built by the first transform
            distances, indices = given
            self.n_neighbors_ = k
        else:
            self._index = self._make_index(n, self.neighbors_algorithm).build(P)
            distances, indices = self._index.query(P, extra, exclude_self=True)
        warn_duplicates(distances, "PaCMAP", self._uses_gower)
        self.scales_ = local_scales(distances)
        return near_partners(distances, indices, k, self.scales_, self.scales_)

    def _make_index(self, n, algorithm):
        metric, params = METRICS[self.distance], self._distance_params() if self.distance == "gower" else None
        return make_index(algorithm, metric, n, params, verbose=self.verbose)

    def _gower_index(self, P):
        """The built Gower index of the training rows (the search's, or an exact one)."""
        if self._index is None:
            self._index = self._make_index(P.shape[0], "exact").build(P)
        return self._index

    def _pairs(self, P, rng):
        n = P.shape[0]
        if self.n_neighbors is not None:
            check_n_neighbors(self.n_neighbors, n)
        k = min(self.n_neighbors or default_n_neighbors(n), n - 1)
        self.n_neighbors_ = k
        given = {"pair_neighbors": self.pair_neighbors, "pair_MN": self.pair_MN, "pair_FP": self.pair_FP}
        rows = {name: None if p is None else rows_from_pairs(p, n, name) for name, p in given.items()}
        near = self._near(P, k)  # also the scales and the index that transform needs
        if rows["pair_neighbors"] is not None:
            near = rows["pair_neighbors"]
        n_mid = int(round(self.MN_ratio * k))
        n_far = min(int(round(self.FP_ratio * k)), max(n - 1 - k, 0))
        distances = self._gower_index(P).candidate_distances if self.distance == "gower" else None
        mid = rows["pair_MN"] if rows["pair_MN"] is not None else mid_near_partners(P, n_mid, rng, distances)
        far = rows["pair_FP"] if rows["pair_FP"] is not None else further_partners(near, n_far, rng)
        return near, mid, far

    def _initial(self, P, rng):
        gower = self.distance == "gower" and isinstance(self.init, str) and self.init == "pca"
        Y = initial_embedding(self.init, self._gower_index(P).encode(P) if gower else P, None, self.n_components, rng)
        if isinstance(self.init, str) and self.init == "pca":
            Y = rescale(Y, rng, PCA_INIT_STD)
        return np.ascontiguousarray(Y, dtype=np.float32)

    def _optimize(self, Y, gradient, desc, callbacks=(), first_phase=True):
        """Adam over the three phases (without ``first_phase``, the last two);
        ``gradient(Y, weights)`` returns it in parts (``adam_step``'s); any of
        ``callbacks`` returning True stops it."""
        from .._kernels.pacmap import adam_step
        from .._progress import progress_bar

        phases = self._phases()
        steps = range(0 if first_phase else phases[0], sum(phases))
        m, v = np.zeros_like(Y), np.zeros_like(Y)
        for step, t in enumerate(progress_bar(steps, desc=desc, unit="it", disable=not self.verbose), start=1):
            adam_step(Y, gradient(Y, phase_weights(t, phases)), m, v, self.lr, 0.9, 0.999, 1e-7, step)
            if any(callback(step, float("nan"), Y) for callback in callbacks):
                break
        return Y

    def fit(self, X, y=None):
        """Embed ``X``.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        self._check_data(X)
        rng = check_random_state(self.random_state)
        P = self._preprocess(X, fitting=True)
        near, mid, far = self._pairs(P, rng)
        Y = self._initial(P, rng)
        from .._kernels.pacmap import CHUNKS, pair_gradient

        buffers = np.empty((CHUNKS, *Y.shape), dtype=Y.dtype)

        def gradient(Y, weights):
            pair_gradient(Y, near, mid, far, *weights, buffers)
            return buffers

        self._optimize(Y, gradient, "PaCMAP", callback_list(self.callbacks))
        self.pair_neighbors_, self.pair_MN_, self.pair_FP_ = (pairs_from_rows(p) for p in (near, mid, far))
        self.P_fit_ = P
        self.embedding_ = Y.astype(X.dtype)
        self.n_components_ = self.n_components
        return self

    def transform(self, X):
        """Place new points in the fixed training map.

        Each new point's near partners are training points chosen as in ``fit``
        (scaled distances among its nearest 50 more); it inherits the mid-near and
        further partners of its nearest training point, starts at the mean of its
        near partners' positions and moves alone through the last two phases. The
        first, where mid-near pairs dominate, lays out the global structure, which the
        fixed map already has: run on one point, it drags the point towards the mean
        of its far-flung mid-near partners (one training point in eight would land
        among others than its neighbours). Points do not interact, so a batch gives
        the same result as one point at a time.

        Parameters
        ----------
        X : array-like (m, n_features)

        Returns
        -------
        ndarray (m, n_components)
        """
        X = self._validate_input(X, reset=False)
        P = self._preprocess(X, fitting=False)
        n_train = self.P_fit_.shape[0]
        if getattr(self, "_index", None) is None:  # a loaded model: its file holds the rows, not the index
            self._index = self._make_index(n_train, search_algorithm(self.neighbors_algorithm)).build(self.P_fit_)
        k = min(self.n_neighbors_, n_train)
        distances, indices = self._index.query(P, min(k + EXTRA_NEIGHBORS, n_train))
        near = near_partners(distances, indices, k, local_scales(distances), self.scales_)
        nearest = indices[:, 0]
        mid = rows_from_pairs(self.pair_MN_, n_train, "pair_MN_")[nearest]
        far = rows_from_pairs(self.pair_FP_, n_train, "pair_FP_")[nearest]
        reference = np.ascontiguousarray(self.embedding_, dtype=np.float32)
        Y = reference[near].mean(axis=1)
        from .._kernels.pacmap import anchored_gradient

        out = np.empty((1, *Y.shape), dtype=Y.dtype)

        def gradient(Y, weights):
            anchored_gradient(Y, reference, near, mid, far, *weights, out[0])
            return out

        Y = self._optimize(np.ascontiguousarray(Y), gradient, "PaCMAP transform", first_phase=False)
        return Y.astype(X.dtype)

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
