"""UMAP (McInnes, Healy & Melville 2018): kNN -> fuzzy simplicial set -> spectral
initialisation -> SGD layout with negative sampling."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._estimator import EmbeddingMixin, ValidatedInputMixin
from .._iterative import callback_list
from .._kernels.output_spaces import CODES as OUTPUT_METRICS
from .._mixed_input import GowerTableMixin
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
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
from .._validation import check_sample_count, convert_array
from .._warnings import warn_user
from ..distributed import is_dask_array
from ..linalg import unique_rows
from ..neighbors import (
    ALGORITHMS,
    INDEX_METRICS,
    PRECOMPUTED_KNN,
    SPARSE_METRICS,
    KNNIndex,
    find_neighbors,
    knn_csr,
    knn_given,
    warn_components,
    warn_duplicates,
)
from ._base import check_rows_or_distances, sparse_input, start_embedding, training_rows
from ._graph_arrays import row_progress, symmetric_graph
from ._umap_graph import (
    curve_parameters,
    drop_far_edges,
    fuzzy_graph,
    fuzzy_union,
    intersect_labels,
    intersect_target_graph,
    local_memberships,
    weaken_edges,
)
from ._umap_layout import Density, data_radii, default_epochs, embedding_radii, optimize_layout
from ._umap_placement import MAX_EPOCHS, UMAPPlacement
from ._umap_targets import DISCRETE_TARGETS, discrete_edge_distances

INIT_BOX = 10.0  # the initial embedding is scaled into [0, INIT_BOX] per axis (as umap-learn)
# A spectral start in more pieces than this gets a wider box. The first epochs' repulsion
# throws points far wherever the start is dense, and pieces packed tighter than this
# scatter into each other, some to end the layout together (1,000 clusters of 100,
# seeds 0-15: 86 points beside another cluster in the 10-box, 28 in the 32-box).
PIECES_PER_BOX = 100
# the largest distance of bounded metrics: their default disconnection distance (as umap-learn)
BOUNDED_METRICS = {"cosine": 2.0, "correlation": 2.0, "hamming": 1.0, "jaccard": 1.0, "braycurtis": 1.0}
METRICS = set(INDEX_METRICS)
MAX_NEGATIVE_RATE = 1_000  # 200x the default; it multiplies every epoch's work, a loaded model's transform too


class UMAP(
    GowerTableMixin,
    UMAPPlacement,
    EmbeddingMixin,
    ValidatedInputMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
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
    metric : str or callable, default='euclidean'
        'euclidean', 'cosine', any of ``lowdim.neighbors.PAIRWISE_METRICS``
        ('manhattan', 'chebyshev', 'minkowski', 'correlation', 'hamming', 'jaccard',
        ...; exact neighbours), 'precomputed' (X is a square distance matrix, and
        ``transform`` takes distances to the training points), or a function of two rows
        returning their distance: numba-compiled (``@numba.njit``) as umap-learn takes it,
        run in a compiled loop, or plain Python (one call a pair: small data only);
        exact neighbours.
    metric_kwds : dict, optional
        Keyword arguments of the metric: ``{'p': 3}`` for 'minkowski'; for a
        numba-compiled function, their values in order after the two rows.
    output_metric : str, default='euclidean'
        The space of the map, as umap-learn's: 'euclidean' (or 'l2'); 'manhattan'
        ('l1', 'taxicab'), 'chebyshev' ('linf', 'linfinity', 'linfty'), 'minkowski'
        (``output_metric_kwds={'p': ...}``); 'cosine', 'correlation' (angles);
        'haversine' (the sphere: ``n_components=2``, columns colatitude and longitude in
        radians, x = sin(c0) cos(c1), y = sin(c0) sin(c1), z = cos(c0)); 'hyperboloid'
        (the hyperbolic plane, points lifted to ``z = sqrt(1 + |y|^2)``). Outside the
        Euclidean plane the layout follows each metric's gradient, ``densmap`` and
        ``inverse_transform`` are not available.
    output_metric_kwds : dict, optional
        ``{'p': float}`` for 'minkowski' (default 2); other output metrics take none.
    n_epochs : int, optional
        Default 500 up to 10,000 samples, 200 above.
    learning_rate : float, default=1.0
    init : {'spectral', 'pca', 'random'} or ndarray, default='spectral'
        The start, scaled into a box of side 10 (as umap-learn); a spectral start of a
        graph in more than 100 pieces into a box ``sqrt(pieces / 100)`` times as wide, so
        that the pieces start no more crowded than 100 in the box.
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
    target_metric : str, default='categorical'
        'categorical': ``y`` holds class labels. 'ordinal' (ordered levels), 'count'
        (non-negative whole counts) or 'string' (text): umap-learn's discrete targets;
        each edge of the data's graph is weakened by ``exp(-2.5 d / (1 -
        target_weight))``, ``d`` its ends' target distance scaled as umap-learn's (level
        gap over half the range; Poisson log-probabilities between the counts; edit
        distance capped at a third of the longest string, over that cap). Any metric
        name above: ``y`` is a continuous target (1-D or 2-D), whose own fuzzy kNN graph
        is intersected with the data's (``intersect_target_graph``, weight
        ``target_weight``).
    target_metric_kwds : dict, optional
    target_n_neighbors : int, default=-1
        Neighbours of the target's graph; -1 means ``n_neighbors``.
    a, b : float, optional
        The output curve ``1 / (1 + a d^(2b))`` given directly; default: fitted to
        ``min_dist`` and ``spread``.
    unique : bool, default=False
        Embed each distinct row once; duplicates get the same coordinates.
    disconnection_distance : float, optional
        Neighbour edges at least this long are dropped (the graph's components are
        then joined by their shortest edges, as always). Default: the largest
        possible distance of bounded metrics (cosine and correlation 2, Hamming,
        Jaccard and Bray-Curtis 1), none for the others.
    densmap : bool, default=False
        densMAP (Narayan, Berger & Cho 2021): in the last ``dens_frac`` of the epochs the
        layout also raises the correlation between each point's local radius in the
        embedding and in the data, so dense regions stay dense and sparse ones sparse
        (plain UMAP evens them out).
    dens_lambda : float, default=2.0
        Weight of that correlation against UMAP's objective.
    dens_frac : float, default=0.3
        Share of the epochs, at the end, with the density term.
    dens_var_shift : float, default=0.1
        Added to the variance of the embedding radii in the correlation (keeps its
        gradient finite while the radii are nearly equal).
    output_dens : bool, default=False
        ``fit_transform`` returns ``(embedding, rad_orig, rad_emb)``: the local radii
        (log scale) in the data and in the embedding (also kept as ``rad_orig_`` and
        ``rad_emb_`` when ``densmap=True``).
    transform_mode : {'embedding', 'graph'}, default='embedding'
        What ``transform`` returns: coordinates, or the new points' membership graph
        to the training points (sparse, (m, n_samples)); with 'graph', ``fit_transform``
        returns ``graph_`` (as umap-learn; ``embedding_`` is laid out all the same).
    transform_seed : int, default=42
        Seed of ``transform``'s placement (the same points always land in the same place).
    force_approximation_algorithm : bool, default=False
        Use the approximate (HNSW) neighbour index whatever the size.
    precomputed_knn : NeighborGraph or tuple, default=(None, None, None)
        Each point's nearest neighbours, found once for many fits: a
        ``lowdim.neighbors.NeighborGraph`` (built with this metric; its first
        ``n_neighbors - 1`` columns are read) or umap-learn's ``(indices, distances)``
        or ``(indices, distances, search_index)``, the point itself first, at least
        ``n_neighbors`` columns. The kNN search of ``fit`` is then skipped (a search
        index is ignored: ``transform`` builds lowdim's own index when needed).
    random_state : None, int or Generator
    n_jobs : int, optional
        Accepted for compatibility; numba's thread pool is used (results do not depend on it).
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        'auto' is approximate (HNSW) from 20,000 points when faiss is installed.
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    verbose : bool or int, default=False
        Show a progress bar over the layout epochs (tqdm, on standard error).
    callbacks : callable or list of callables, optional
        Each is called after every layout epoch as ``callback(epoch, objective, Y)``:
        ``Y`` is the layout so far (one row per distinct row when ``unique=True``) and
        ``objective`` is NaN (UMAP's cross-entropy is not computed). Returning True
        stops the layout there.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    graph_ : sparse (n_samples, n_samples)
        The fuzzy simplicial set.
    knn_graph_ : sparse (n_samples, n_samples) or None
        The kNN distances behind ``graph_`` (not kept in model files).
    graph_dists_ : sparse (n_samples, n_samples) or None
        With ``densmap`` or ``output_dens``: the neighbour distances behind the graph
        (each kNN edge, in either direction); None otherwise, as in umap-learn.
    a_, b_ : float
        The output curve ``1 / (1 + a d^(2b))`` (also as umap-learn's ``_a``, ``_b``).
    n_neighbors_ : int
        The neighbours each point had, itself included: ``n_neighbors``, or one fewer
        than the rows (the distinct rows with ``unique``) when there were not that many
        (as umap-learn, which calls it ``_n_neighbors``).
    rad_orig_, rad_emb_ : ndarray (n_samples,)
        With ``densmap`` or ``output_dens``: each point's local radius, log scale, in the
        data (``log(sum w d^2 / sum w)`` over its graph edges) and in the embedding (the
        same with the embedding's distances, weighted also by the output similarity).
    unique_inverse_ : ndarray of int or None
        With ``unique=True``: the distinct row (of ``X_fit_``) each input row is.
    n_epochs_ : int
    supervised_ : bool
        Whether ``fit`` had labels (``update`` refuses such a model).
    layout_seed_ : int
        Key of the layout's random numbers (drawn from ``random_state``).
    n_features_in_ : int
        Number of features seen in ``fit``.
    X_fit_ : ndarray (n_samples, n_features)
        The training data, kept for ``transform``.
    n_components_ : int
        Dimension of the embedding.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> X = load_digits().data[:500]
    >>> UMAP(random_state=0, n_epochs=100).fit_transform(X).shape
    (500, 2)
    """

    _stage_bars = True  # verbose shows a bar with an ETA for every stage (the CLI uses them)
    _parameter_constraints = {
        "n_neighbors": [Interval(int, 2, None, closed="left")],
        "n_components": [Interval(int, 1, None, closed="left")],
        "metric": [Options(METRICS), CALLABLE],
        "metric_kwds": [NONE, InstanceOf(dict)],
        "output_metric": [Options(set(OUTPUT_METRICS))],
        "output_metric_kwds": [NONE, InstanceOf(dict)],
        "target_metric": [Options({"categorical", *DISCRETE_TARGETS} | METRICS - {"precomputed"})],
        "target_metric_kwds": [NONE, InstanceOf(dict)],
        "target_n_neighbors": [Interval(int, -1, -1, closed="both"), Interval(int, 2, None, closed="left")],
        "a": [NONE, Interval(float, 0, None, closed="neither")],
        "b": [NONE, Interval(float, 0, None, closed="neither")],
        "unique": [BOOLEAN],
        "disconnection_distance": [NONE, Interval(float, 0, None, closed="neither")],
        "densmap": [BOOLEAN],
        "dens_lambda": [Interval(float, 0, None, closed="left")],
        "dens_frac": [Interval(float, 0, 1, closed="both")],
        "dens_var_shift": [Interval(float, 0, None, closed="left")],
        "output_dens": [BOOLEAN],
        "transform_mode": [Options({"embedding", "graph"})],
        "transform_seed": [Interval(int, 0, None, closed="left")],
        "force_approximation_algorithm": [BOOLEAN],
        "precomputed_knn": PRECOMPUTED_KNN,
        "n_epochs": [NONE, Interval(int, 1, MAX_EPOCHS, closed="both")],
        "learning_rate": [Interval(float, 0, None, closed="neither")],
        "init": [Options({"spectral", "pca", "random"}), ARRAY_LIKE],
        "min_dist": [Interval(float, 0, None, closed="left")],
        "spread": [Interval(float, 0, None, closed="neither")],
        "set_op_mix_ratio": [Interval(float, 0, 1, closed="both")],
        "local_connectivity": [Interval(float, 0, None, closed="left")],
        "repulsion_strength": [Interval(float, 0, None, closed="left")],
        "negative_sample_rate": [Interval(int, 0, MAX_NEGATIVE_RATE, closed="both")],
        "target_weight": [Interval(float, 0, 1, closed="both")],
        "random_state": [RANDOM_STATE],
        "n_jobs": [NONE, Interval(int, None, None)],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "verbose": VERBOSE,
        "callbacks": CALLBACKS,
    }
    transform = UMAPPlacement.transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_neighbors=15,
        n_components=2,
        *,
        metric="euclidean",
        metric_kwds=None,
        output_metric="euclidean",
        output_metric_kwds=None,
        n_epochs=None,
        learning_rate=1.0,
        init="spectral",
        min_dist=0.1,
        spread=1.0,
        set_op_mix_ratio=1.0,
        local_connectivity=1.0,
        repulsion_strength=1.0,
        negative_sample_rate=5,
        a=None,
        b=None,
        random_state=None,
        target_n_neighbors=-1,
        target_metric="categorical",
        target_metric_kwds=None,
        target_weight=0.5,
        transform_seed=42,
        transform_mode="embedding",
        force_approximation_algorithm=False,
        unique=False,
        disconnection_distance=None,
        densmap=False,
        dens_lambda=2.0,
        dens_frac=0.3,
        dens_var_shift=0.1,
        output_dens=False,
        precomputed_knn=(None, None, None),
        n_jobs=None,
        neighbors_algorithm="auto",
        verbose=False,
        callbacks=None,
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.metric = metric
        self.metric_kwds = metric_kwds
        self.output_metric = output_metric
        self.output_metric_kwds = output_metric_kwds
        self.a = a
        self.b = b
        self.target_n_neighbors = target_n_neighbors
        self.target_metric = target_metric
        self.target_metric_kwds = target_metric_kwds
        self.transform_seed = transform_seed
        self.transform_mode = transform_mode
        self.force_approximation_algorithm = force_approximation_algorithm
        self.unique = unique
        self.disconnection_distance = disconnection_distance
        self.densmap = densmap
        self.dens_lambda = dens_lambda
        self.dens_frac = dens_frac
        self.dens_var_shift = dens_var_shift
        self.output_dens = output_dens
        self.precomputed_knn = precomputed_knn
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
        self.callbacks = callbacks

    def _check_relations(self):
        """Parameters that constrain one another, checked right after each one's own
        constraints and before any data is touched."""
        if self.min_dist > self.spread:
            raise ValueError(f"min_dist={self.min_dist:g} must be at most spread={self.spread:g}.")
        if (self.a is None) != (self.b is None):
            raise ValueError(f"give both a and b of the output curve, or neither; got a={self.a}, b={self.b}.")
        self._output_space()

    def _check_data(self, X, finite=True):
        check_sample_count(X.shape[0], self._shown_name, self.n_components)
        if finite and not is_dask_array(X):  # a dask array's columns are not scanned on the client
            check_rows_or_distances(X, self.metric, self._shown_name)

    def _output_space(self):
        """``(code, p)`` of the output metric for the layout kernel, its options checked."""
        code, kwds = OUTPUT_METRICS[self.output_metric], dict(self.output_metric_kwds or {})
        p = kwds.pop("p", 2.0) if self.output_metric == "minkowski" else 2.0
        if kwds:
            raise ValueError(
                f"output_metric={self.output_metric!r} takes {'only p' if self.output_metric == 'minkowski' else 'no'} "
                f"parameters; got output_metric_kwds={self.output_metric_kwds!r}."
            )
        if not (isinstance(p, (int, float)) and not isinstance(p, bool) and 0 < p < np.inf):
            raise ValueError(f"output_metric_kwds p must be a positive number; got {p!r}.")
        if self.output_metric == "haversine" and self.n_components != 2:
            raise ValueError(
                f"output_metric='haversine' lays out on a sphere: n_components must be 2; got {self.n_components}."
            )
        if code and (self.densmap or self.output_dens):
            raise ValueError(
                f"densmap and output_dens need output_metric='euclidean'; got output_metric={self.output_metric!r}."
            )
        return code, float(p)

    def _algorithm(self):
        if self.metric == "precomputed":
            return "exact"
        return "approximate" if self.force_approximation_algorithm else self.neighbors_algorithm

    def _neighbors(self, X, k, search=False):
        """``(distances, indices, index)`` of each row's ``k`` nearest other rows: given
        ones (``precomputed_knn``, a sparse precomputed X) unless ``search``; the index,
        None for given neighbours, is then built when ``transform`` first needs it."""
        return find_neighbors(
            X,
            k,
            algorithm=self._algorithm(),
            metric=self.metric,
            metric_params=self._distance_params(),
            precomputed_knn=None if search else self.precomputed_knn,
            name=self._shown_name,
            verbose=self.verbose,
        )

    @property
    def _disconnection_limit(self):
        """The length from which neighbour edges are dropped (None: none is)."""
        given = self.disconnection_distance
        return BOUNDED_METRICS.get(self.metric) if given is None else given

    def _disconnect(self, distances):
        limit = self._disconnection_limit
        if limit is None:
            return distances
        source = "given" if self.disconnection_distance is not None else f"the largest {self.metric} distance"
        return drop_far_edges(distances, limit, f"{self._shown_name} (metric={self.metric!r}, {source})")

    def _graph(self, X, y, search=False, components=None):
        """The fuzzy simplicial set (label- or target-intersected when ``y`` is given)
        and the kNN index (built on ``X`` as given: float32 stays float32, the
        neighbours' distances are refined in float64). With ``verbose``, the search has
        its own bar and the steps after it one more. ``search``: find the neighbours
        even if ``precomputed_knn`` is given; ``components``: what the warning about a
        graph in pieces says happens to them."""
        from .._progress import progress_bar

        n = X.shape[0]
        self.n_neighbors_ = self._neighbors_for(n)
        k = self.n_neighbors_ - 1
        distances, indices, index = self._neighbors(X, k, search)
        self._knn = (distances, indices)  # behind knn_graph_ (scanpy's obsp['distances'])
        with progress_bar(total=2, desc="UMAP graph", unit="step", disable=not self.verbose) as bar:
            bar.set_postfix_str("fuzzy memberships and union")
            W = self._fuzzy(X, y, distances, indices)
            bar.update()
            bar.set_postfix_str("connected components")
            # as umap-learn: no edges between components in the layout (a joining edge would
            # drag a thread of points between two groups); the spectral start places them apart
            from .._kernels.components import connected_components

            n_comp = self._pieces = connected_components(W)[0]
            if n_comp > 1:
                warn_components(n_comp, f"{self._shown_name} neighbour graph", components or self._pieces_placed())
            bar.update()
        return W, index

    def _pieces_placed(self):
        """What the warning about a graph in pieces says places them: the spectral start
        puts them apart; another start leaves each where it puts it."""
        if isinstance(self.init, str) and self.init == "spectral":
            return "each is laid out on its own, and the spectral start places them apart"
        start = f"init={self.init!r}" if isinstance(self.init, str) else "the given init"
        return f"each is laid out on its own, from where {start} puts it"

    def _finite(self, ensure_all_finite):
        """The input checks for umap-learn's ``ensure_all_finite``: NaN (and with False
        infinity) let through only for a metric function, the one thing that can
        measure such rows."""
        if ensure_all_finite is True:
            return {}
        if ensure_all_finite not in (False, "allow-nan"):
            raise ValueError(f"ensure_all_finite must be True, False or 'allow-nan'; got {ensure_all_finite!r}.")
        if not callable(self.metric):
            raise ValueError(
                f"ensure_all_finite={ensure_all_finite!r} lets NaN or infinity into the rows, which "
                f"metric={self.metric!r} cannot measure; pass a metric function that handles them, or clean the data."
            )
        return (
            {"allow_nan": True} if ensure_all_finite == "allow-nan" else {"allow_nan": True, "validate": convert_array}
        )

    def _neighbors_for(self, n):
        """The neighbours each point gets among ``n`` rows (itself included): more than
        ``n`` asked for is cut to ``n - 1`` as umap-learn does, with its warning."""
        if self.n_neighbors <= n:
            return self.n_neighbors
        kept = max(n - 1, min(2, n))  # of 2 rows each keeps itself and the other: n - 1 would leave no edge
        cut = "X.shape[0] - 1" if kept < n else "X.shape[0]"
        warn_user(
            f"n_neighbors is larger than the dataset size; truncating to {cut} ({self._shown_name}: "
            f"n_neighbors={self.n_neighbors} with {n} {'distinct ' if self.unique else ''}rows; {kept} used).",
            UserWarning,
        )
        return kept

    @property
    def _n_neighbors(self):  # umap-learn's names for the fitted values, which code written for it reads
        return self.n_neighbors_

    @property
    def _a(self):
        return self.a_

    @property
    def _b(self):
        return self.b_

    def _fuzzy(self, X, y, distances, indices):
        """The fuzzy simplicial set of the kNN lists (and, for the radii, ``graph_dists_``),
        with ``verbose`` under a row bar over the memberships and the union's passes."""
        from .._kernels.symmetric_graph import SYMMETRIC_PASSES

        n = X.shape[0]
        warn_duplicates(distances, self._shown_name, self._uses_gower)
        distances = self._disconnect(distances)
        passes = 1 + SYMMETRIC_PASSES
        with row_progress("UMAP memberships and union", n * passes, self.verbose, passes) as bar:
            W = fuzzy_graph(distances, indices, self.local_connectivity, self.set_op_mix_ratio, bar)
        self.graph_dists_ = None  # as umap-learn's: kept only where the radii need it (8 bytes an edge)
        if self.densmap or self.output_dens:
            finite = np.where(np.isfinite(distances), distances, 0)
            self.graph_dists_ = symmetric_graph(indices, finite, n, "maximum")
        if y is not None and self.target_weight > 0:
            W = self._supervised(W, y)
        return W

    def _supervised(self, W, y):
        """The data graph intersected with the labels (categorical), reweighted by a
        discrete target's distances ('ordinal', 'count', 'string', as umap-learn), or
        intersected with the fuzzy kNN graph of a metric target."""
        far = 2.5 / (1.0 - self.target_weight) if self.target_weight < 1 else 1e12
        if self.target_metric == "categorical":
            return intersect_labels(W, y, far_dist=far)
        if self.target_metric in DISCRETE_TARGETS:
            W = W.tocoo()
            distances = discrete_edge_distances(self.target_metric, y, W.row, W.col)
            return weaken_edges(W, np.exp(-far * distances))
        Y = np.asarray(y, dtype=np.float64).reshape(W.shape[0], -1)
        n = Y.shape[0]
        k = min(self.n_neighbors if self.target_n_neighbors == -1 else self.target_n_neighbors, n) - 1
        distances, indices, _ = find_neighbors(
            Y, k, algorithm="exact", metric=self.target_metric, metric_params=self.target_metric_kwds
        )
        memberships, _, _ = local_memberships(distances, k + 1, 1.0)
        return intersect_target_graph(W, fuzzy_union(indices, memberships, n), self.target_weight)

    def _initial(self, X, W, rng):
        from .._progress import progress_bar

        label = f"UMAP start ({self.init if isinstance(self.init, str) else 'given'})"
        spectral = isinstance(self.init, str) and self.init == "spectral"
        unit = "product" if spectral else "step"
        with warnings.catch_warnings(), progress_bar(desc=label, unit=unit, disable=not self.verbose) as bar:
            warnings.simplefilter("ignore")  # eigensolver fallbacks on tiny graphs are not the user's concern

            def product_done(done, most):  # the eigensolver's budget gives the bar its end (and an ETA)
                if most is not None:
                    bar.total = max(most, done)
                bar.update()

            Y = start_embedding(self, X, W, rng, index=getattr(self, "_index", None), on_product=product_done)
            bar.total = bar.n if spectral else 1
            bar.update(0 if spectral else 1)
        if isinstance(self.init, str):
            lo, span = Y.min(axis=0), np.ptp(Y, axis=0)
            pieces = getattr(self, "_pieces", 1) if spectral else 1
            box = INIT_BOX * max(1.0, np.sqrt(pieces / PIECES_PER_BOX))
            Y = box * (Y - lo) / np.where(span > 0, span, 1.0)
            Y += rng.normal(0.0, 1e-4, size=Y.shape)  # separates coincident starts
        return np.ascontiguousarray(Y, dtype=np.float32)

    def fit(self, X, y=None, ensure_all_finite=True):
        """Embed ``X``; with labels ``y`` (-1 = unknown), supervised UMAP.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : array-like (n_samples,), optional
        ensure_all_finite : bool or 'allow-nan', default=True
            umap-learn's: True refuses NaN and infinity in ``X``; 'allow-nan' lets NaN
            through, False both (dense rows). Rows with them need a ``metric``
            function that handles them.

        Returns
        -------
        self
        """
        X, rng = self._fit_graph(X, y, ensure_all_finite)
        self.n_epochs_ = self.n_epochs or default_epochs(X.shape[0])
        self._layout(X, self._initial(X, self.graph_, rng), self.n_epochs_, rng)
        return self

    def _fit_graph(self, X, y, ensure_all_finite=True):
        """What ``fit`` does before the layout: checks, ``graph_``, ``a_``/``b_``; the
        rows fitted (distinct ones with ``unique``) and the random generator."""
        validate_params(self)
        self._check_relations()
        X = training_rows(self, X, accept_sparse=sparse_input(self, X), **self._finite(ensure_all_finite))
        self._check_data(X, finite=ensure_all_finite is True)  # constant columns: not measurable through NaN
        if y is not None:
            y = np.asarray(y)
            one_per_row = self.target_metric == "categorical" or self.target_metric in DISCRETE_TARGETS
            if y.shape[0] != X.shape[0] or (one_per_row and y.ndim != 1):
                raise ValueError(
                    f"y has shape {y.shape}; expected ({X.shape[0]},), one label per sample"
                    + (" (or (n_samples, k) for a metric target)." if y.ndim > 1 else ".")
                )
        self.unique_inverse_ = None
        if self.unique and is_dask_array(X):
            raise ValueError("unique=True needs the rows in memory; on a dask array pass unique=False.")
        if self.unique and self.metric != "precomputed":
            X, first, self.unique_inverse_ = unique_rows(X)
            y = None if y is None else y[first]
            if knn_given(self.precomputed_knn):
                raise ValueError("precomputed_knn refers to the rows as given; it cannot be combined with unique=True.")
        rng = check_random_state(self.random_state)
        self.graph_, self._index = self._graph(X, y)
        self.a_, self.b_ = (
            (float(self.a), float(self.b)) if self.a is not None else curve_parameters(self.spread, self.min_dist)
        )
        self.supervised_ = y is not None
        return X, rng

    def _layout(self, X, Y, n_epochs, rng, learning_rate=None):
        """Optimise the start ``Y`` over ``graph_`` for ``n_epochs`` and keep the map
        (``embedding_``, the radii, ``X_fit_ = X``)."""
        radii = self._data_radii() if self.densmap or self.output_dens else None
        density = Density(radii, self.dens_lambda, self.dens_frac, self.dens_var_shift) if self.densmap else None
        self.layout_seed_ = int(rng.integers(2**62))
        from .._progress import progress_bar

        with progress_bar(total=n_epochs, desc="UMAP layout", unit="epoch", disable=not self.verbose) as bar:

            def count_epoch(*_):
                bar.update()
                return False  # a callback returning True stops the layout

            optimize_layout(
                Y,
                self.graph_,
                n_epochs,
                self.a_,
                self.b_,
                seed=self.layout_seed_,
                gamma=self.repulsion_strength,
                negative_sample_rate=self.negative_sample_rate,
                learning_rate=self.learning_rate if learning_rate is None else learning_rate,
                callbacks=[count_epoch, *callback_list(self.callbacks)],
                density=density,
                output_metric=self._output_space(),
            )
        self._keep(X, Y, radii)

    def _keep(self, X, Y, radii=None):
        """Keep the laid-out map ``Y`` of the rows ``X`` (and the radii)."""
        if radii is not None:
            self.rad_orig_, self.rad_emb_ = radii, embedding_radii(Y, self.graph_, self.a_, self.b_)
            if self.unique_inverse_ is not None:  # one radius per input row, as embedding_
                self.rad_orig_, self.rad_emb_ = (
                    self.rad_orig_[self.unique_inverse_],
                    self.rad_emb_[self.unique_inverse_],
                )
        Y = Y.astype(X.dtype)  # one row per row of X_fit_; embedding_ has one per input row
        self.embedding_ = Y if self.unique_inverse_ is None else Y[self.unique_inverse_]
        self.X_fit_ = X
        self.n_components_ = self.n_components

    def update(self, X, *, n_epochs=None, learning_rate=None, ensure_all_finite=True):
        """Add rows to the fitted map without refitting it from scratch.

        The new rows are placed as ``transform`` places them; then the neighbour graph
        is built over all rows (old and new: a new row can be an old row's neighbour)
        and the whole map is optimised from the current positions with
        ``transform``'s gentler schedule, so the old points stay where they were up to
        the moves the new neighbours ask for. Afterwards the model is as if fitted on
        the rows together: ``embedding_``, ``graph_`` and ``X_fit_`` have a row for
        each. (umap-learn's ``update`` places the new rows and does not optimise.)

        Parameters
        ----------
        X : array-like (n_new, n_features)
        n_epochs : int, optional
            Epochs of the joint optimisation; default a third of the fit's (at least
            30), as ``transform``.
        learning_rate : float, optional
            Its initial step; default a quarter of ``learning_rate``, as ``transform``.
            Larger values let the map rearrange more around the new rows.
        ensure_all_finite : bool or 'allow-nan', default=True
            As in ``fit``.

        Returns
        -------
        self

        Examples
        --------
        >>> from sklearn.datasets import load_digits
        >>> X = load_digits().data
        >>> model = UMAP(random_state=0, n_epochs=100).fit(X[:1000]).update(X[1000:])
        >>> model.embedding_.shape
        (1797, 2)
        """
        X = self._validate_input(X, reset=False, accept_sparse=sparse_input(self, X), **self._finite(ensure_all_finite))
        placed = self._placed_for_update(X)
        X = X.astype(self.X_fit_.dtype)
        rows = sp.vstack([self.X_fit_, X]).tocsr() if sp.issparse(X) else np.vstack([self.X_fit_, X])
        rng = check_random_state(self.transform_seed)
        self.graph_, self._index = self._graph(rows, None, search=True)  # a given graph lacks the new rows
        start = np.ascontiguousarray(np.vstack([self.embedding_, placed]), dtype=np.float32)
        epochs = int(n_epochs or max(self.n_epochs_ // 3, 30))
        step = self.learning_rate / 4.0 if learning_rate is None else float(learning_rate)
        self._layout(rows, start, epochs, rng, learning_rate=step)
        return self

    def _data_radii(self):
        """Local radii of the data over the neighbour edges (the joining edges, which
        have no input distance, left out)."""
        D = self.graph_dists_.tocsr()
        present = D.copy()
        present.data[:] = 1.0
        return data_radii(self.graph_.multiply(present).tocsr(), D)

    def fit_transform(self, X, y=None, ensure_all_finite=True):
        """Fit and return the embedding (with ``output_dens``: also the data's and the
        embedding's local radii).

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        y : array-like (n_samples,), optional
        ensure_all_finite : bool or 'allow-nan', default=True
            As in ``fit``.

        Returns
        -------
        ndarray (n_samples, n_components), or ``(embedding, rad_orig, rad_emb)``, or
        with ``transform_mode='graph'`` the sparse ``graph_``
        """
        self.fit(X, y, ensure_all_finite)
        if self.transform_mode == "graph":
            return self.graph_
        if self.output_dens:
            return self.embedding_, self.rad_orig_, self.rad_emb_
        return self.embedding_

    @property
    def knn_graph_(self):
        """Sparse (n, n): each row's ``n_neighbors - 1`` nearest other rows at their distances
        (scanpy's ``obsp['distances']``, behind ``graph_``); None for a model loaded from a file."""
        knn = getattr(self, "_knn", None)
        return None if knn is None else knn_csr(*knn)

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = self.metric in SPARSE_METRICS
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags
