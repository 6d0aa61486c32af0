"""t-SNE (van der Maaten & Hinton 2008): kNN affinities -> initialisation -> gradient
descent with a repulsion strategy (exact, Barnes-Hut, FFT interpolation)."""

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._params import NONE, InstanceOf, Interval, Options
from ..neighbors import PRECOMPUTED_KNN
from ._affinities import KERNELS, kernel_neighbors, row_affinities
from ._base import SHARED_CONSTRAINTS, NeighborEmbedding, as_float64, sparse_input, training_index
from ._gradients import REPULSIONS, StudentObjective, check_method_dimensions, choose_repulsion
from ._optimizer import Phase
from ._placement import place_points


class TSNE(ClassNamePrefixFeaturesOutMixin, TransformerMixin, NeighborEmbedding):
    """t-distributed stochastic neighbour embedding, a drop-in for
    ``sklearn.manifold.TSNE`` with FFT-accelerated gradients and ``transform``.

    Affinities are Gaussian over each point's ``3 x perplexity`` nearest neighbours
    (all other points with ``method='exact'``), bandwidths matched to the perplexity,
    symmetrised. The embedding starts from rescaled PCA (or spectral) coordinates, runs
    ``early_exaggeration_iter`` iterations with attraction multiplied by
    ``early_exaggeration`` (momentum 0.5), then the rest (momentum 0.8), by gradient
    descent with per-coordinate gains. The repulsion is computed by the ``method``
    strategy; attraction is always exact over the sparse affinities.

    Parameters
    ----------
    n_components : int, default=2
    perplexity : float, default=30.0
        Effective number of neighbours; lowered (with a warning) to (n - 1) / 3 on small data.
    early_exaggeration : float, default=12.0
    learning_rate : float or 'auto', default='auto'
        'auto' is ``max(n / early_exaggeration / 4, 50)`` for this gradient (which
        carries the factor ``2 (dof + 1) / dof`` = 4): the same step as openTSNE's and
        FIt-SNE's ``n / early_exaggeration`` on their gradient without the 4, and as
        scikit-learn's 'auto'.
    max_iter : int, default=1000
        Iterations in all, early exaggeration included.
    n_iter_without_progress : int, default=300
        Stop the main phase when KL has not improved for this many iterations (checked
        every 50); -1 stops at the first check without improvement.
    min_grad_norm : float, default=1e-7
    metric : str or callable, default='euclidean'
        'euclidean', 'sqeuclidean', 'cosine', 'precomputed' (X is a square distance
        matrix), any of ``lowdim.neighbors.PAIRWISE_METRICS`` ('manhattan',
        'chebyshev', 'minkowski', 'correlation', 'hamming', 'jaccard', 'canberra',
        'braycurtis'), or a function of two rows returning their distance (called on
        each pair, as scikit-learn's; numba-compiled ones in a compiled loop). The
        Gaussian is in the squared distance for every metric (as openTSNE);
        scikit-learn squares Euclidean distances only, so its affinities for other
        metrics (and precomputed matrices) differ.
    metric_params : dict, optional
        Keyword arguments of the metric: ``{'p': 3}`` for 'minkowski'.
    init : {'pca', 'spectral', 'random'} or ndarray (n_samples, n_components), default='pca'
        'pca' and 'spectral' are rescaled to standard deviation 1e-4 in the first
        coordinate; an array is used as given.
    verbose : int, default=0
        1: progress bars with an ETA for each stage (the kNN search, the perplexity
        calibration, the symmetrisation, the iterations); 2: also the KL divergence
        every 50 iterations (as scikit-learn's levels).
    random_state : None, int or Generator
    method : {'auto', 'exact', 'barnes_hut', 'fft'}, default='auto'
        'auto': exact up to 400 samples, Barnes-Hut up to 10,000 (or for 3-D), FFT
        above (1- and 2-D).
    angle : float, default=0.5
        Barnes-Hut opening angle (0 = exact).
    n_jobs : int, optional
        Accepted for compatibility; lowdim's kernels use numba's thread pool
        (``NUMBA_NUM_THREADS``). Results do not depend on the thread count.
    dof : float, default=1.0
        Degrees of freedom of the Student-t output kernel (1 = Cauchy, t-SNE; larger
        values give less heavy tails, towards SNE's Gaussian; below 1 tighter clusters).
    early_exaggeration_iter : int, default=250
    exaggeration : float, optional
        Attraction multiplied by this in the main phase too (openTSNE's
        ``exaggeration``): values above 1 (2-4 for a million points) pull clusters
        tighter and show more of the global arrangement, as UMAP's maps do.
    affinity : {'perplexity', 'multiscale', 'uniform'}, default='perplexity'
        The input kernel: a Gaussian per point calibrated to ``perplexity``; the mean of
        such Gaussians at each of ``perplexities`` (multiscale, keeps local and coarser
        structure); or equal weights on each point's ``round(perplexity)`` nearest
        neighbours (uniform, as openTSNE's ``Uniform``: a uniform distribution over k
        points has perplexity k).
    perplexities : sequence of float, optional
        The scales of ``affinity='multiscale'``; default ``(perplexity, 10 * perplexity)``.
    precomputed_knn : NeighborGraph or tuple, default=(None, None)
        Each point's nearest neighbours, found once for many fits: a
        ``lowdim.neighbors.NeighborGraph`` (built with this metric) or umap-learn's
        ``(indices, distances)``, the point itself first. At least ``ceil(perplexity)``
        neighbours; the affinities use up to 3 x perplexity + 1 of them. The kNN
        search of ``fit`` is skipped.
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        kNN index: 'auto' is approximate (HNSW) from 20,000 points when faiss is installed.
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    callbacks : sequence of callables, optional
        ``callback(iteration, kl_divergence, state) -> stop?`` after every iteration
        (``state.Y`` is the current embedding; KL is re-evaluated every 50 iterations).

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    kl_divergence_ : float
    n_iter_ : int
    learning_rate_ : float
    perplexity_ : float
    perplexities_ : tuple of float
        With ``affinity='multiscale'``: the perplexities used (lowered on small data).
    affinities_ : sparse (n_samples, n_samples)
        The symmetric input affinities P (summing to one), kept for :meth:`optimize`
        (and saved with the model).
    method_ : str
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
    >>> X = load_digits().data[:300]
    >>> Y = TSNE(random_state=0, max_iter=300).fit_transform(X)
    >>> Y.shape
    (300, 2)
    """

    _parameter_constraints = {
        **SHARED_CONSTRAINTS,
        "method": [Options({"auto", *REPULSIONS})],
        "angle": [Interval(float, 0, 1, closed="both")],
        "n_jobs": [NONE, Interval(int, None, None)],
        "dof": [Interval(float, 0, None, closed="neither")],
        "exaggeration": [NONE, Interval(float, 0, None, closed="neither")],
        "affinity": [Options(set(KERNELS))],
        "perplexities": [NONE, InstanceOf(list, tuple, label="a sequence of perplexities")],
        "precomputed_knn": PRECOMPUTED_KNN,
    }

    def __init__(
        self,
        n_components=2,
        *,
        perplexity=30.0,
        early_exaggeration=12.0,
        learning_rate="auto",
        max_iter=1000,
        n_iter_without_progress=300,
        min_grad_norm=1e-7,
        metric="euclidean",
        metric_params=None,
        init="pca",
        verbose=0,
        random_state=None,
        method="auto",
        angle=0.5,
        n_jobs=None,
        dof=1.0,
        early_exaggeration_iter=250,
        neighbors_algorithm="auto",
        callbacks=None,
        exaggeration=None,
        affinity="perplexity",
        perplexities=None,
        precomputed_knn=(None, None),
    ):
        self.n_components = n_components
        self.perplexity = perplexity
        self.early_exaggeration = early_exaggeration
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.metric = metric
        self.metric_params = metric_params
        self.init = init
        self.verbose = verbose
        self.random_state = random_state
        self.method = method
        self.angle = angle
        self.n_jobs = n_jobs
        self.dof = dof
        self.early_exaggeration_iter = early_exaggeration_iter
        self.neighbors_algorithm = neighbors_algorithm
        self.callbacks = callbacks
        self.exaggeration = exaggeration
        self.affinity = affinity
        self.perplexities = perplexities
        self.precomputed_knn = precomputed_knn

    def _check_relations(self):
        super()._check_relations()
        check_method_dimensions(self.method, self.n_components)

    def _objective_factory(self, n):
        repulsion = choose_repulsion(self.method, n, self.n_components, self.angle)
        self.method_ = repulsion.name
        return lambda P: StudentObjective(P, repulsion, self.dof)

    def optimize(self, n_iter, *, exaggeration=1.0, momentum=0.8, learning_rate=None):
        """Continue the gradient descent of a fitted map (openTSNE's ``optimize``).

        For example, a map fitted with ``exaggeration=4`` and then continued with
        ``exaggeration=1`` shows the global arrangement first and the clusters' detail
        after; or more iterations for a map that stopped early.

        Parameters
        ----------
        n_iter : int
        exaggeration : float, default=1.0
            Attraction multiplied by this during these iterations.
        momentum : float, default=0.8
        learning_rate : float, optional
            Default: the fit's ``learning_rate_``.

        Returns
        -------
        self
            With ``embedding_``, ``kl_divergence_`` and ``n_iter_`` (counted on) updated.
        """
        check_is_fitted(self)
        if int(n_iter) != n_iter or n_iter < 1:
            raise ValueError(f"n_iter must be a positive integer; got {n_iter!r}.")
        if learning_rate is not None:
            self.learning_rate_ = float(learning_rate)
        P, order = self._cache_order(self.affinities_)
        phases = [Phase(int(n_iter), float(exaggeration), float(momentum))]
        start = self.embedding_.astype(np.float64)
        Y, self.kl_divergence_, done = self._optimize(P, order, start, self._objective_factory(start.shape[0]), phases)
        self.embedding_ = Y.astype(self.embedding_.dtype)
        self.n_iter_ += done
        return self

    # the base's (return embedding_), not TransformerMixin's, which would place the
    # training points again through transform
    fit_transform = NeighborEmbedding.fit_transform

    def transform(self, X):
        """Place new points against the fixed training embedding.

        Each new point gets perplexity-calibrated affinities to its nearest training
        points, starts at their affinity-weighted mean position, and alone moves to
        minimise its own KL divergence (training points fixed, Barnes-Hut repulsion
        from them), so a batch gives the same result as one point at a time.

        Parameters
        ----------
        X : array-like (m, n_features), or (m, n_samples) distances to the training points

        Returns
        -------
        ndarray (m, n_components)
        """
        X = self._validate_input(X, reset=False, accept_sparse=sparse_input(self, X))
        if self.metric == "precomputed" and X.shape[1] != self.X_fit_.shape[0]:
            raise ValueError(
                f"with metric='precomputed', X must hold distances to the {self.X_fit_.shape[0]} "
                f"training points; it has {X.shape[1]} columns."
            )
        index = training_index(self, np.float64)
        n_train = self.embedding_.shape[0]
        perplexity, kernel = self._kernel()
        k = min(n_train, kernel_neighbors(perplexity, kernel, n_train + 1))
        distances, indices = index.query(as_float64(X), k)
        conditional = row_affinities(distances, perplexity, kernel)
        theta = 0.0 if self.method_ == "exact" else self.angle
        Y = place_points(self.embedding_.astype(np.float64), indices, conditional, self.dof, theta)
        return Y.astype(X.dtype)

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
