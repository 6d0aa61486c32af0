"""PHATE (Moon et al. 2019): potential of heat-diffusion for affinity-based trajectory
embedding, a drop-in for the phate package's ``PHATE``."""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer, EmbeddingMixin
from .._mixed_input import GowerTableMixin
from .._params import NONE, RANDOM_STATE, VERBOSE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_reduced_rows, check_sample_count, warn_constant_features
from ..decomposition import PCA
from ..linalg import column_moments
from ..manifold import check_nontrivial_components
from ..neighbors import INDEX_METRICS, check_n_neighbors, find_neighbors, make_index, positive_scales, warn_duplicates
from ._phate_steps import (
    THRESHOLD,
    decay_kernel,
    entropy_curve,
    knee_by_two_lines,
    landmark_operator,
    potential,
    potential_layout,
    row_normalize,
)

SEARCH_FACTOR = 3  # neighbours searched per kernel neighbour before widening where the kernel reaches further


class PHATE(GowerTableMixin, EmbeddingMixin, ComponentTransformer):
    """PHATE: a map of the potential distances of a random walk, a drop-in for
    ``phate.PHATE``.

    An alpha-decay kernel ``exp(-(d / s_i)^decay)`` (``s_i`` the distance to the
    ``knn``-th neighbour) joins nearby points, made symmetric; its rows normalised are
    a random walk. Above ``n_landmark`` points the walk is compressed to landmarks:
    k-means clusters of the walk's diffusion coordinates, with the walk from each point
    to each cluster and back. The walk is run ``t`` steps (``'auto'``: the knee of the
    von Neumann entropy of its spectrum), its log (``gamma=1``) is the *potential*, and
    the Euclidean distances between potentials are laid out by metric MDS (classical
    MDS, then stress by SGD or SMACOF). Points take the average of their landmarks'
    places, weighted by their transitions to them. Trajectories stay continuous and
    branches stay apart, where UMAP and t-SNE break them into clusters.

    Parameters
    ----------
    n_components : int, default=2
    knn : int, default=5
        Neighbour whose distance sets each point's kernel width.
    decay : float or None, default=40
        The kernel's tail: larger is sharper; None: each point's ``knn`` nearest at 1.
    n_landmark : int or None, default=2000
        Landmarks above this many points; None: the whole walk (n x n, dense).
    t : 'auto' or int, default='auto'
        Steps of the walk.
    gamma : float in [-1, 1], default=1
        The potential: 1 the log (PHATE's), -1 the probabilities, between a power.
    n_pca : int or None, default=100
        Rows with more columns are first reduced to this many principal components (not
        with ``knn_dist='gower'``: a mixed table's codes are no vectors to reduce).
    mds_solver : {'sgd', 'smacof'}, default='sgd'
        The metric MDS solver: stochastic gradient descent over the pairs (fast) or
        SMACOF (lower stress).
    knn_dist : str, default='euclidean'
        The neighbour metric: any metric of ``lowdim.neighbors.make_index``; 'gower' for
        a mixed table (a DataFrame with text, category or boolean columns, or category
        codes; gaps allowed).
    knn_max : int, optional
        Most neighbours per point in the kernel; default: as many as the kernel reaches
        above 1e-4.
    mds_dist : str, default='euclidean'
        Distance between potentials (scipy's ``pdist`` names).
    mds : {'classic', 'metric', 'nonmetric'}, default='metric'
    t_max : int, default=100
        Largest ``t`` tried by ``t='auto'``.
    random_landmarking : bool, default=False
        Landmarks are random points (each point in its nearest one's cluster, in the
        diffusion coordinates) instead of k-means clusters.
    n_jobs : int, optional
        Accepted for compatibility; numba's and BLAS's threads do the work.
    random_state : None, int or Generator
    verbose : int, default=0
        Accepted for compatibility.
    metric_params : dict, optional
        Keywords of ``knn_dist`` ('categorical', 'ordinal', 'weights' for 'gower'; a
        DataFrame's category columns are found without them).

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    t_ : int
        The steps taken (chosen with ``t='auto'``).
    entropy_ : ndarray (t_max,) or None
        The von Neumann entropy curve ``t='auto'`` chose from.
    landmark_labels_ : ndarray of int64 (n_samples,)
        Each point's landmark (its own row without landmarks).
    landmark_embedding_ : ndarray (n_landmarks, n_components)
    scales_ : ndarray (n_samples,)
        Each point's kernel width.
    X_fit_ : ndarray (n_samples, n_features_fit)
        The training rows as the kernel saw them (after the PCA), for ``transform``.
    pca_mean_, pca_components_ : ndarray or None
        The reduction applied before the kernel (None without one).
    n_components_ : int
    n_features_in_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``knn_dist='gower'`` on a table with text, category or
        boolean columns: each column's name, kind and category levels.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import PHATE
    >>> X = np.random.default_rng(0).normal(size=(300, 10))
    >>> PHATE(random_state=0).fit_transform(X).shape
    (300, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "knn": [Interval(int, 1, None, closed="left")],
        "decay": [NONE, Interval(float, 0, None, closed="neither")],
        "n_landmark": [NONE, Interval(int, 2, None, closed="left")],
        "t": [Options({"auto"}), Interval(int, 1, None, closed="left")],
        "gamma": [Interval(float, -1, 1, closed="both")],
        "n_pca": [NONE, Interval(int, 1, None, closed="left")],
        "mds_solver": [Options({"sgd", "smacof"})],
        "knn_dist": [Options(set(INDEX_METRICS) - {"precomputed"})],
        "knn_max": [NONE, Interval(int, 1, None, closed="left")],
        "mds_dist": [Options({"euclidean", "cityblock", "cosine", "correlation", "chebyshev", "sqeuclidean"})],
        "mds": [Options({"classic", "metric", "nonmetric"})],
        "t_max": [Interval(int, 3, None, closed="left")],
        "random_landmarking": [Options({True, False})],
        "n_jobs": [NONE, Interval(int, None, None)],
        "random_state": [RANDOM_STATE],
        "verbose": VERBOSE,
        "metric_params": [NONE, InstanceOf(dict)],
    }
    fit_transform = EmbeddingMixin.fit_transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_components=2,
        knn=5,
        decay=40,
        n_landmark=2000,
        t="auto",
        gamma=1,
        n_pca=100,
        mds_solver="sgd",
        knn_dist="euclidean",
        knn_max=None,
        mds_dist="euclidean",
        mds="metric",
        t_max=100,
        random_landmarking=False,
        n_jobs=1,
        random_state=None,
        verbose=0,
        metric_params=None,
    ):
        self.n_components = n_components
        self.knn = knn
        self.decay = decay
        self.n_landmark = n_landmark
        self.t = t
        self.gamma = gamma
        self.n_pca = n_pca
        self.mds_solver = mds_solver
        self.knn_dist = knn_dist
        self.knn_max = knn_max
        self.mds_dist = mds_dist
        self.mds = mds
        self.t_max = t_max
        self.random_landmarking = random_landmarking
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.metric_params = metric_params

    def _reduce(self, X, rng):
        """The rows the kernel sees: the top ``n_pca`` principal components when X has
        more columns."""
        self.pca_mean_ = self.pca_components_ = None
        gower = self.knn_dist == "gower"
        if gower or self.n_pca is None or X.shape[1] <= self.n_pca or self.n_pca >= X.shape[0]:
            return np.asarray(X, dtype=np.float64)
        pca = PCA(self.n_pca, random_state=int(rng.integers(2**31 - 1))).fit(X)
        self.pca_mean_, self.pca_components_ = pca.mean_.astype(np.float64), pca.components_.astype(np.float64)
        return (np.asarray(X, dtype=np.float64) - self.pca_mean_) @ self.pca_components_.T

    def _kernel(self, Z):
        n = Z.shape[0]
        m = min(n - 1, self.knn_max if self.knn_max is not None else SEARCH_FACTOR * self.knn)
        params = self._distance_params()
        dist, idx, index = find_neighbors(Z, max(m, self.knn), metric=self.knn_dist, metric_params=params, name="PHATE")
        warn_duplicates(dist, self._shown_name, self._uses_gower)
        decay = None if self.decay is None else float(self.decay)
        return decay_kernel(index if self.knn_max is None else None, Z, dist, idx, self.knn, decay)

    def _landmarks(self, K, P, rng):
        """``(labels, point-to-landmark transitions, landmark walk)``."""
        n = K.shape[0]
        if self.n_landmark is None or n <= self.n_landmark:
            return np.arange(n), sp.identity(n, format="csr"), P.toarray()
        return landmark_operator(K, P, self.n_landmark, rng, random=self.random_landmarking)

    def fit(self, X, y=None):
        """Compute the PHATE map.

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
        n = X.shape[0]
        check_sample_count(n, "PHATE")
        check_nontrivial_components(self.n_components, n)
        check_n_neighbors(self.knn, n)
        if self.knn_dist != "gower":  # Gower's distance scales each column by its own range
            warn_constant_features(column_moments(X)[1], "PHATE", "every sample is the same point", X=X)
        rng = check_random_state(self.random_state)
        Z = self._reduce(X, rng)
        K, self.scales_ = self._kernel(Z)
        labels, transitions, operator = self._landmarks(K, row_normalize(K), rng)
        self.entropy_ = None
        if self.t == "auto":
            self.entropy_ = entropy_curve(operator, self.t_max)
            self.t_ = knee_by_two_lines(self.entropy_)
        else:
            self.t_ = int(self.t)
        pot = potential(operator, self.t_, float(self.gamma))
        how = {"how": self.mds, "solver": self.mds_solver, "distance": self.mds_dist, "rng": rng}
        self.landmark_embedding_ = potential_layout(pot, self.n_components, **how)
        self.landmark_labels_ = labels
        self.embedding_ = np.asarray(transitions @ self.landmark_embedding_).astype(X.dtype)
        self.X_fit_ = Z.copy()
        self.n_components_ = self.n_components
        return self

    def _check_loaded(self):
        """A loaded model's training rows are as wide as its new rows become."""
        check_reduced_rows(self, "X_fit_")

    def transform(self, X):
        """Place new points: their kernel to the training points, normalised, averages
        the places of the training points' landmarks.

        Parameters
        ----------
        X : array-like (n_samples, n_features)

        Returns
        -------
        ndarray (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False)
        Z = np.asarray(X, dtype=np.float64)
        if self.pca_components_ is not None:
            Z = (Z - self.pca_mean_) @ self.pca_components_.T
        fit = self.X_fit_
        m = min(fit.shape[0], max(self.knn, self.knn_max or SEARCH_FACTOR * self.knn))
        dist, idx = make_index("exact", self.knn_dist, fit.shape[0], self._distance_params()).build(fit).query(Z, m)
        dist = np.asarray(dist, dtype=np.float64)
        if self.decay is None:
            weights = (np.arange(m) < self.knn).astype(np.float64)[None, :].repeat(Z.shape[0], axis=0)
        else:
            scale = positive_scales(dist[:, self.knn - 1 : self.knn], reference=self.scales_)
            weights = np.exp(-((dist / scale) ** float(self.decay)))
            weights[weights < THRESHOLD] = 0.0
        weights /= weights.sum(axis=1, keepdims=True)
        places = self.landmark_embedding_[self.landmark_labels_[idx]]
        return np.einsum("rk,rkc->rc", weights, places).astype(X.dtype)
