"""UMAP (McInnes, Healy & Melville 2018): kNN -> fuzzy simplicial set -> spectral
initialisation -> SGD layout with negative sampling."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._estimator import ValidatedInputMixin
from .._params import ARRAY_LIKE, NONE, RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_array, warn_constant_features
from ..linalg import column_moments
from ..neighbors import ALGORITHMS, ExactIndex, join_components, make_index
from ._affinities import warn_duplicates
from ._base import training_index
from ._initialization import initial_embedding
from ._umap_graph import curve_parameters, fuzzy_union, intersect_labels, local_memberships
from ._umap_layout import optimize_layout

INIT_BOX = 10.0  # the initial embedding is scaled into [0, INIT_BOX] per axis (as umap-learn)


class UMAP(ValidatedInputMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Uniform manifold approximation and projection, with umap-learn's parameter names.

    The kNN graph's local fuzzy sets (each point fully connected to its nearest
    neighbour, bandwidths so that memberships sum to log2(n_neighbors)) are joined by
    fuzzy union; the embedding starts from the graph's Laplacian eigenmap and is laid
    out by stochastic gradient descent on the fuzzy cross-entropy, edges sampled in
    proportion to their weight with ``negative_sample_rate`` negative samples each.

    The SGD is parallel and reproducible: each point moves only itself against the
    others' positions at the start of the epoch, and its random numbers are a hash of
    (seed, epoch, edge), so a seed gives the same embedding for any thread count (unlike
    umap-learn, which falls back to one thread when seeded). Without a seed a fresh one
    is drawn.

    Parameters
    ----------
    n_neighbors : int, default=15
        Neighbours per point, the point itself included (as umap-learn).
    n_components : int, default=2
    metric : {'euclidean', 'cosine'}, default='euclidean'
    n_epochs : int, optional
        Default 500 up to 10,000 samples, 200 above.
    learning_rate : float, default=1.0
    init : {'spectral', 'pca', 'random'} or ndarray, default='spectral'
    min_dist : float, default=0.1
    spread : float, default=1.0
    set_op_mix_ratio : float, default=1.0
        1 is fuzzy union, 0 fuzzy intersection of the local fuzzy sets.
    local_connectivity : float, default=1.0
    repulsion_strength : float, default=1.0
    negative_sample_rate : int, default=5
    target_weight : float, default=0.5
        Supervised mode (``fit(X, y)``): 0 ignores the labels, towards 1 separates the
        classes fully (edges between different labels are weakened by
        ``exp(-2.5 / (1 - target_weight))``; label -1 means unknown).
    random_state : None, int or Generator
    n_jobs : int, optional
        Accepted for compatibility; numba's thread pool is used (results do not depend
        on it).
    neighbors_algorithm : {'auto', 'exact', 'approximate'}, default='auto'
        'auto' is approximate (HNSW) from 20,000 points when faiss is installed.
    verbose : bool, default=False
        Show a progress bar over the layout epochs (tqdm, on standard error).

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    graph_ : sparse (n_samples, n_samples)
        The fuzzy simplicial set.
    a_, b_ : float
        The output curve ``1 / (1 + a d^(2b))``.
    n_epochs_ : int
    layout_seed_ : int
        Key of the layout's random numbers (drawn from ``random_state``).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X = load_digits().data[:500]
    >>> UMAP(random_state=0, n_epochs=100).fit_transform(X).shape
    (500, 2)
    """

    _iterative_fit = True
    _amplifies_rounding = True
    _components_limit = "samples"
    _expected_failed_checks = dict.fromkeys(
        ("check_transformer_general", "check_transformer_data_not_an_array"),
        "transform places new points by SGD against the fixed training embedding: a training point lands "
        "near its fitted position, not within 0.01 of it")
    _parameter_constraints = {
        "n_neighbors": [Interval(int, 2, None, closed="left")],
        "n_components": [Interval(int, 1, None, closed="left")],
        "metric": [Options({"euclidean", "cosine"})],
        "n_epochs": [NONE, Interval(int, 1, None, closed="left")],
        "learning_rate": [Interval(float, 0, None, closed="neither")],
        "init": [Options({"spectral", "pca", "random"}), ARRAY_LIKE],
        "min_dist": [Interval(float, 0, None, closed="left")],
        "spread": [Interval(float, 0, None, closed="neither")],
        "set_op_mix_ratio": [Interval(float, 0, 1, closed="both")],
        "local_connectivity": [Interval(float, 0, None, closed="left")],
        "repulsion_strength": [Interval(float, 0, None, closed="left")],
        "negative_sample_rate": [Interval(int, 0, None, closed="left")],
        "target_weight": [Interval(float, 0, 1, closed="both")],
        "random_state": [RANDOM_STATE],
        "n_jobs": [NONE, Interval(int, None, None)],
        "neighbors_algorithm": [Options(set(ALGORITHMS))],
        "verbose": [Options({True, False, 0, 1})],
    }

    def __init__(self, n_neighbors=15, n_components=2, *, metric="euclidean", n_epochs=None, learning_rate=1.0,
                 init="spectral", min_dist=0.1, spread=1.0, set_op_mix_ratio=1.0, local_connectivity=1.0,
                 repulsion_strength=1.0, negative_sample_rate=5, target_weight=0.5, random_state=None, n_jobs=None,
                 neighbors_algorithm="auto", verbose=False):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.metric = metric
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.init = init
        self.min_dist = min_dist
        self.spread = spread
        self.set_op_mix_ratio = set_op_mix_ratio
        self.local_connectivity = local_connectivity
        self.repulsion_strength = repulsion_strength
        self.negative_sample_rate = negative_sample_rate
        self.target_weight = target_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.neighbors_algorithm = neighbors_algorithm
        self.verbose = verbose

    def _check_data(self, X):
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"UMAP needs at least 2 samples; got {n} sample.")
        if self.n_components > n:
            raise ValueError(f"n_components={self.n_components} must be at most n_samples={n}; lower n_components.")
        if self.min_dist > self.spread:
            raise ValueError(f"min_dist={self.min_dist:g} must be at most spread={self.spread:g}.")
        warn_constant_features(column_moments(X)[1], "UMAP", "every sample is the same point")

    def _graph(self, X, y):
        """The fuzzy simplicial set (label-intersected when ``y`` is given), joined
        into one component, and the kNN index (built on ``X`` as given: float32 stays
        float32, the neighbours' distances are refined in float64)."""
        n = X.shape[0]
        k = min(self.n_neighbors, n) - 1
        index = make_index(self.neighbors_algorithm, self.metric, n).build(X)
        distances, indices = index.query(X, k, exclude_self=True)
        warn_duplicates(distances, "UMAP")
        memberships, _, _ = local_memberships(distances, k + 1, self.local_connectivity)
        W = fuzzy_union(indices, memberships, n, self.set_op_mix_ratio)
        if y is not None and self.target_weight > 0:
            far = 2.5 / (1.0 - self.target_weight) if self.target_weight < 1 else 1e12
            W = intersect_labels(W, y, far_dist=far)
        joined = join_components(W, X, name="UMAP neighbour graph")
        if joined is not W:  # the joining edges get the weakest weight of the graph
            bridge = (joined - W).tocsr()
            bridge.data[:] = W.data.min(initial=1.0)
            W = (W + bridge).tocsr()
        return W, index

    def _initial(self, X, W, rng):
        with warnings.catch_warnings():  # eigensolver fallbacks on tiny graphs are not the user's concern
            warnings.simplefilter("ignore")
            Y = initial_embedding(self.init, X, W, self.n_components, rng)
        if isinstance(self.init, str):
            lo, span = Y.min(axis=0), np.ptp(Y, axis=0)
            Y = INIT_BOX * (Y - lo) / np.where(span > 0, span, 1.0)
            Y += rng.normal(0.0, 1e-4, size=Y.shape)  # separates coincident starts
        return np.ascontiguousarray(Y, dtype=np.float32)

    def fit(self, X, y=None):
        """Embed ``X``; with labels ``y`` (-1 = unknown), supervised UMAP.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : array-like (n_samples,), optional

        Returns
        -------
        self
        """
        validate_params(self)
        # an own copy: the model keeps the training rows (and indexes built on them) for transform
        X = np.array(self._validate_input(X, reset=True), copy=True)
        self._check_data(X)
        if y is not None:
            y = np.asarray(y)
            if y.shape != (X.shape[0],):
                raise ValueError(f"y has shape {y.shape}; expected ({X.shape[0]},), one label per sample.")
        rng = check_random_state(self.random_state)
        self.graph_, self._index = self._graph(X, y)
        self.a_, self.b_ = curve_parameters(self.spread, self.min_dist)
        Y = self._initial(X, self.graph_, rng)
        self.n_epochs_ = self.n_epochs or (500 if X.shape[0] <= 10_000 else 200)
        self.layout_seed_ = int(rng.integers(2**62))
        from tqdm.auto import tqdm

        with tqdm(total=self.n_epochs_, desc="UMAP layout", unit="epoch", disable=not self.verbose) as bar:
            optimize_layout(Y, self.graph_, self.n_epochs_, self.a_, self.b_, seed=self.layout_seed_,
                            gamma=self.repulsion_strength, negative_sample_rate=self.negative_sample_rate,
                            learning_rate=self.learning_rate, callbacks=[lambda *_: bar.update() and False])
        self.embedding_ = Y.astype(X.dtype)
        self.X_fit_ = X
        self.n_components_ = self.n_components
        return self

    def fit_transform(self, X, y=None):
        """Fit, then return ``embedding_``."""
        return self.fit(X, y).embedding_

    def transform(self, X):
        """Place new points in the fixed training embedding.

        Each new point's memberships to its ``n_neighbors`` nearest training points
        (smooth-kNN with local connectivity reduced by one, as umap-learn), a start at
        their weighted mean position, then SGD moving only the new point for a third of
        the training epochs (at least 30). Points do not interact, so a batch gives the
        same result as one point at a time.

        Parameters
        ----------
        X : array-like (m, n_features)

        Returns
        -------
        ndarray (m, n_components)
        """
        X = self._validate_input(X, reset=False)
        n_train = self.embedding_.shape[0]
        k = min(self.n_neighbors, n_train)
        distances, indices = training_index(self).query(X, k)
        memberships, _, _ = local_memberships(distances, k, max(self.local_connectivity - 1.0, 0.0))
        weights = memberships / np.maximum(memberships.sum(axis=1, keepdims=True), np.finfo(float).tiny)
        ref = np.ascontiguousarray(self.embedding_, dtype=np.float32)
        Y = np.einsum("mk,mkd->md", weights, ref[indices]).astype(np.float32)
        W = sp.csr_matrix((memberships.ravel(), indices.ravel(), np.arange(0, X.shape[0] * k + 1, k)),
                          shape=(X.shape[0], n_train))
        optimize_layout(Y, W, max(self.n_epochs_ // 3, 30), self.a_, self.b_, seed=self.layout_seed_,
                        gamma=self.repulsion_strength, negative_sample_rate=self.negative_sample_rate,
                        learning_rate=self.learning_rate / 4.0, reference=ref)
        return Y.astype(X.dtype)

    def inverse_transform(self, Y):
        """Points of the data space for embedding coordinates: the average of the
        training points nearest in the embedding, weighted by the output similarity
        ``1 / (1 + a d^(2b))`` (a local kernel regression; exact at the training
        points' own positions up to their neighbours' weights).

        Parameters
        ----------
        Y : array-like (m, n_components)

        Returns
        -------
        ndarray (m, n_features)
        """
        Y = check_array(Y, name="Y", estimator_name="UMAP")
        if Y.shape[1] != self.n_components_:
            raise ValueError(f"Y has {Y.shape[1]} columns; the embedding has {self.n_components_}.")
        k = min(self.n_neighbors, self.embedding_.shape[0])
        dist, idx = ExactIndex().build(self.embedding_.astype(np.float64)).query(Y.astype(np.float64), k)
        w = 1.0 / (1.0 + self.a_ * dist ** (2.0 * self.b_))
        w /= w.sum(axis=1, keepdims=True)
        return np.einsum("mk,mkd->md", w, np.asarray(self.X_fit_, dtype=np.float64)[idx]).astype(self.X_fit_.dtype)

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
