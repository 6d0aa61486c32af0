"""Isomap: kNN (or radius) graph -> geodesic distances (Dijkstra) -> classical MDS."""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer, EmbeddingMixin
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import CALLABLE, NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_precomputed, warn_constant_features
from ..linalg import column_moments
from ..neighbors import (
    ALGORITHMS,
    INDEX_METRICS,
    PRECOMPUTED_KNN,
    SPARSE_METRICS,
    KNNIndex,
    SparseIndex,
    StoredDistances,
    check_n_neighbors,
    given_neighbors,
    join_components,
    kneighbors_graph,
    knn_csr,
    knn_given,
    make_index,
    radius_neighbors_graph,
    resolve_metric,
    shortest_paths,
    sparse_rows_allowed,
    symmetrize,
    warn_duplicates,
)
from ._classical import ClassicalModel, classical_mds, farthest_points


def _neighbor_graph(X, n_neighbors, radius, metric, algorithm, metric_params=None, given=None):
    """Symmetric neighbour graph (found here, or the ``given`` ``(distances,
    indices)``) with zero-length edges (duplicate rows) kept as tiny positive weights,
    joined into one component (in the graph's metric)."""
    if sp.issparse(X) and metric == "precomputed":  # a sparse distance matrix: joined through its stored distances
        index = StoredDistances()
    elif sp.issparse(X):  # sparse rows: searched and joined by sparse products, never densified
        index = SparseIndex(metric).build(X)
    elif given is not None and metric == "euclidean":
        index = None  # nothing to search, and Euclidean rows are joined by BLAS distances
    else:
        exact = given is not None or metric == "precomputed"  # a given graph needs the index only to join
        index = make_index("exact" if exact else algorithm, metric, X.shape[0], metric_params).build(X)
    if given is not None:
        G = knn_csr(*given)
    elif radius is None:
        G = kneighbors_graph(X, n_neighbors, index=index)
    elif sp.issparse(X):  # a sparse distance graph: the stored distances within the radius
        G = sp.csr_matrix(X, copy=True)
        G.data[G.data > radius] = 0.0
        G.setdiag(0.0)
        G.eliminate_zeros()
    else:
        G = radius_neighbors_graph(X, radius, metric=metric, metric_params=metric_params)
    zero = G.data <= 0
    if zero.any():
        nearest = np.full(G.shape[0], np.inf)
        np.minimum.at(nearest, np.repeat(np.arange(G.shape[0]), np.diff(G.indptr)), G.data)
        warn_duplicates(nearest, "Isomap", gower=metric == "gower")
        G.data[zero] = np.finfo(np.float64).tiny
    join_by = index if metric != "euclidean" or sp.issparse(X) else None
    return join_components(symmetrize(G), X, name="Isomap neighbour graph", index=join_by)


class Isomap(GowerTableMixin, EmbeddingMixin, ComponentTransformer):
    """Isomap embedding (Tenenbaum, de Silva & Langford, 2000).

    Geodesic distances along the neighbour graph, embedded by classical MDS. With
    ``n_landmarks``, geodesics are computed from that many farthest-point landmarks only
    and every point is placed from its geodesics to them (landmark Isomap), which needs
    O(n m) memory instead of O(n^2), so 70,000 points fit. A disconnected graph is
    joined by its shortest edges, with a warning.

    Parameters
    ----------
    n_neighbors : int or None, default=5
        Neighbours per point of the kNN graph; None with ``radius`` set.
    radius : float, optional
        Use a radius graph instead of the kNN graph (with ``n_neighbors=None``, as in
        scikit-learn; setting both raises ``ValueError``). New points are placed
        through the training points within ``radius`` of them, or their nearest one.
    n_components : int, default=2
    eigen_solver : {'auto', 'arpack', 'dense'}, default='auto'
        Classical MDS's eigensolver: LAPACK, or Lanczos ('auto': Lanczos for a few
        components of more than 500 points).
    tol : float, default=0
        'arpack' convergence tolerance (0: machine precision).
    max_iter : int, optional
        'arpack' iteration cap.
    path_method : {'auto', 'D', 'FW'}, default='auto'
        Shortest paths: 'D' and 'auto' run lowdim's parallel Dijkstra from every
        reference point; 'FW' Floyd-Warshall (scipy, exact Isomap only; O(n^3), for
        small dense graphs). All give the same geodesics.
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        kNN index for the graph: 'auto' is approximate (HNSW) from 20,000 points on when
        faiss is installed (``lowdim[ann]``), exact blocked BLAS otherwise.
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    n_jobs : int, optional
        Accepted for compatibility; lowdim's kernels use its own thread pools.
    metric : str, default='minkowski'
        With ``p``: 'minkowski' with p = 2 is Euclidean (the default), p = 1 Manhattan;
        'euclidean', 'cosine', any of ``lowdim.neighbors.PAIRWISE_METRICS``, or
        'precomputed' (X is a square distance matrix; ``transform`` takes distances to
        the training points).
    p : float, default=2
        Minkowski power (scikit-learn's default metric).
    metric_params : dict, optional
        Further keyword arguments of the metric.
    precomputed_knn : NeighborGraph or tuple, optional
        Each point's nearest neighbours, found once for many fits: a
        ``lowdim.neighbors.NeighborGraph`` (built with this metric) or umap-learn's
        ``(indices, distances)``, the point itself first; its first ``n_neighbors``
        are the graph and the search of ``fit`` is skipped (not with ``radius``).
    n_landmarks : int, optional
        None: exact Isomap (an n x n geodesic matrix, memory-checked).
    random_state : None, int or Generator
        The first landmark.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    eigenvalues_ : ndarray (n_components,)
    reference_indices_ : ndarray of int64
        The landmarks (all samples for exact Isomap).
    geodesic_to_references_ : ndarray (n_samples, n_references)
        Geodesic distances from every point to the references.
    dist_matrix_ : ndarray (n_samples, n_references)
        scikit-learn's name for ``geodesic_to_references_`` (n x n for exact Isomap).
    n_features_in_ : int
        Number of features seen in ``fit``.
    X_fit_ : ndarray (n_samples, n_features)
        The training data, kept for ``transform``.
    n_components_ : int
        Dimension of the embedding.
    eigenvectors_ : ndarray (n_references, n_components)
        Eigenvectors of the double-centred squared geodesics (placing new points).
    mean_sq_ : ndarray (n_references,)
        Mean squared geodesic from each reference point.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import Isomap
    >>> t = np.linspace(0, 3 * np.pi, 200)
    >>> X = np.c_[t * np.cos(t), t * np.sin(t), np.random.default_rng(0).uniform(0, 5, 200)]
    >>> Isomap(n_neighbors=8, n_components=2).fit_transform(X).shape
    (200, 2)
    """

    _parameter_constraints = {
        "n_neighbors": [NONE, Interval(int, 1, None, closed="left")],
        "radius": [NONE, Interval(float, 0, None, closed="neither")],
        "n_components": [Interval(int, 1, None, closed="left")],
        "n_landmarks": [NONE, Interval(int, 2, None, closed="left")],
        "metric": [Options({"minkowski", *INDEX_METRICS}), CALLABLE],
        "p": [Interval(float, 1, None, closed="left")],
        "metric_params": [NONE, InstanceOf(dict)],
        "eigen_solver": [Options({"auto", "arpack", "dense"})],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [NONE, Interval(int, 1, None, closed="left")],
        "path_method": [Options({"auto", "D", "FW"})],
        "n_jobs": [NONE, Interval(int, None, None)],
        "random_state": [RANDOM_STATE],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "precomputed_knn": PRECOMPUTED_KNN,
    }
    fit_transform = EmbeddingMixin.fit_transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_neighbors=5,
        *,
        radius=None,
        n_components=2,
        eigen_solver="auto",
        tol=0,
        max_iter=None,
        path_method="auto",
        neighbors_algorithm="auto",
        n_jobs=None,
        metric="minkowski",
        p=2,
        metric_params=None,
        n_landmarks=None,
        random_state=None,
        precomputed_knn=None,
    ):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.n_components = n_components
        self.n_landmarks = n_landmarks
        self.metric = metric
        self.random_state = random_state
        self.neighbors_algorithm = neighbors_algorithm
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.path_method = path_method
        self.n_jobs = n_jobs
        self.p = p
        self.metric_params = metric_params
        self.precomputed_knn = precomputed_knn

    def _check_sizes(self, n):
        if self.n_neighbors is not None and self.radius is not None:
            raise ValueError(
                f"Both n_neighbors and radius are provided. Isomap: n_neighbors={self.n_neighbors} and "
                f"radius={self.radius} are both set; pass "
                "n_neighbors=None for the radius graph (as in scikit-learn), or radius=None for the "
                "kNN graph."
            )
        if self.n_neighbors is None and self.radius is None:
            raise ValueError("Isomap: n_neighbors and radius are both None; set one of them.")
        if self.radius is None:
            check_n_neighbors(self.n_neighbors, n)
        m = n if self.n_landmarks is None else self.n_landmarks
        if m > n:
            raise ValueError(f"n_landmarks={m} must be at most n_samples={n}.")
        if self.n_components > m:
            raise ValueError(
                f"n_components={self.n_components} must be at most n_samples={m}"
                f"{' (the number of landmarks)' if self.n_landmarks else ''}; lower n_components."
            )
        if self.n_landmarks is None:
            require_memory(
                8 * n * n,
                f"exact Isomap on {n} samples (an n x n geodesic matrix)",
                "set n_landmarks (landmark Isomap, O(n x n_landmarks) memory)",
            )
        elif self.metric == "precomputed":
            raise ValueError(
                "n_landmarks needs the data's coordinates; with metric='precomputed' the n x n "
                "distances are already in memory: use exact Isomap (n_landmarks=None)."
            )
        if self.path_method == "FW" and self.n_landmarks is not None:
            raise ValueError(
                "path_method='FW' computes all n x n geodesics; landmark Isomap needs path_method='auto' or 'D'."
            )

    def fit(self, X, y=None):
        """Compute the embedding of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        metric = resolve_metric(self.metric, self.p, self.metric_params)[0]
        X = self._validate_input(X, reset=True, accept_sparse=sparse_rows_allowed("Isomap", metric, X))
        params = resolve_metric(self.metric, self.p, self._distance_params())[1]  # with a coded table's columns
        n = X.shape[0]
        self._check_sizes(n)
        if sp.issparse(X) and metric != "precomputed" and (self.radius is not None or self.n_landmarks is not None):
            raise ValueError(
                "Isomap on sparse rows builds a kNN graph over all points: set radius=None and n_landmarks=None, "
                "or pass X.toarray()."
            )
        if metric == "precomputed":
            check_precomputed(X)
        else:
            warn_constant_features(column_moments(X)[1], "Isomap", "every sample is the same point", X=X)
        # the graph is discontinuous in the data (which neighbour is nearer), so it is
        # built in float64 whatever the input dtype: float32 and float64 input agree
        G = _neighbor_graph(
            sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64),
            self.n_neighbors,
            self.radius,
            metric,
            self.neighbors_algorithm,
            params,
            given=self._given_neighbors(X, metric),
        )
        if self.n_landmarks is None:
            refs = np.arange(n)
        else:
            refs = np.sort(farthest_points(X, self.n_landmarks, check_random_state(self.random_state)))
        if self.path_method == "FW":
            from scipy.sparse.csgraph import floyd_warshall

            geodesic = floyd_warshall(G, directed=False)
        else:
            geodesic = shortest_paths(G, refs).T  # (n, m)
        among_refs = geodesic if self.n_landmarks is None else geodesic[refs]
        Y, model = classical_mds(
            np.square(among_refs),
            self.n_components,
            squared=True,
            overwrite=True,
            solver=self.eigen_solver,
            tol=float(self.tol),
            max_iter=self.max_iter,
        )
        # transform needs it; the caller may reuse its array
        self.X_fit_ = X.copy() if sp.issparse(X) else np.array(X, copy=True)
        self.reference_indices_ = refs
        self.geodesic_to_references_ = geodesic
        self.eigenvectors_, self.eigenvalues_, self.mean_sq_ = model.vectors, model.eigenvalues, model.mean_sq
        # with every point a reference, Gower's placement gives back classical MDS's own coordinates
        self.embedding_ = (Y if self.n_landmarks is None else model.place(geodesic**2)).astype(X.dtype)
        self.n_components_ = self.n_components
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        metric = resolve_metric(self.metric, self.p, self.metric_params)[0] if isinstance(self.metric, str) else None
        tags.input_tags.sparse = self._takes_sparse(metric)
        return tags

    @staticmethod
    def _takes_sparse(metric):
        """Sparse rows for the metrics of sparse products, or a sparse distance graph."""
        return metric == "precomputed" or metric in SPARSE_METRICS

    def _given_neighbors(self, X, metric):
        """``precomputed_knn``'s first ``n_neighbors`` columns, or a sparse precomputed
        ``X``'s nearest stored distances, or None."""
        sparse = metric == "precomputed" and sp.issparse(X)
        if not (sparse or knn_given(self.precomputed_knn)):
            return None
        if self.radius is not None and not sparse:
            raise ValueError(
                f"precomputed_knn lists each point's nearest neighbours; radius={self.radius:g} needs every "
                "neighbour within the radius: set radius=None and use n_neighbors, or pass the radius graph as X."
            )
        if self.radius is not None:  # a sparse radius graph: its stored distances within the radius
            return None
        given = self.precomputed_knn
        algorithm = self.neighbors_algorithm
        return given_neighbors(
            X, self.n_neighbors, precomputed_knn=given, metric=metric, name="Isomap", algorithm=algorithm
        )

    def _model(self):
        return ClassicalModel(self.eigenvectors_, self.eigenvalues_, self.mean_sq_)

    @property
    def dist_matrix_(self):
        """Geodesic distances to the references (scikit-learn's name; n x n when exact)."""
        return self.geodesic_to_references_

    def _index(self):
        metric, params = resolve_metric(self.metric, self.p, self._distance_params())
        n = self.X_fit_.shape[0]
        if sp.issparse(self.X_fit_) and metric != "precomputed":
            return SparseIndex(metric).build(self.X_fit_)
        # 'precomputed': new rows bring their distances; the index holds only the count
        X = np.zeros((n, 1)) if metric == "precomputed" else self.X_fit_.astype(np.float64)
        return make_index("exact", metric, n, params).build(X)

    def transform(self, X):
        """Embed new points: geodesics through their nearest training points, then
        classical-MDS placement.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        metric = resolve_metric(self.metric, self.p, self.metric_params)[0]
        fitted_sparse = sp.issparse(getattr(self, "X_fit_", None))  # unfitted: the check below says so
        X = self._validate_input(X, reset=False, accept_sparse=fitted_sparse and metric != "precomputed")
        if self.radius is not None:
            geo = self._radius_geodesics(X.astype(np.float64))
            return self._model().place(geo**2).astype(X.dtype)
        k = min(self.n_neighbors, self.X_fit_.shape[0])
        dist, idx = self._index().query(X.astype(np.float64), k)
        m = self.geodesic_to_references_.shape[1]
        step = max(1, (64 << 20) // (8 * k * m))  # the (rows, k, m) candidate block stays small
        geo = np.vstack(
            [
                np.min(dist[s : s + step, :, None] + self.geodesic_to_references_[idx[s : s + step]], axis=1)
                for s in range(0, X.shape[0], step)
            ]
        )
        return self._model().place(geo**2).astype(X.dtype)

    def _radius_geodesics(self, X):
        """Geodesics of new points through the training points within ``radius`` (through
        the nearest training point when none is that close)."""
        fit = self.X_fit_.astype(np.float64)
        metric, params = resolve_metric(self.metric, self.p, self._distance_params())
        R = radius_neighbors_graph(fit, self.radius, Y=X, metric=metric, metric_params=params)
        dist, idx = self._index().query(X, 1)
        geo = np.empty((X.shape[0], self.geodesic_to_references_.shape[1]))
        for i in range(X.shape[0]):
            cols, d = R.indices[R.indptr[i] : R.indptr[i + 1]], R.data[R.indptr[i] : R.indptr[i + 1]]
            if cols.size == 0:
                cols, d = idx[i], dist[i]
            geo[i] = np.min(d[:, None] + self.geodesic_to_references_[cols], axis=0)
        return geo

    def reconstruction_error(self):
        """How far the reference geodesics are from the embedding's Euclidean geometry:
        ``sqrt(|B|_F^2 - sum of the kept eigenvalues^2) / m`` with ``B`` the
        double-centred squared geodesics among the ``m`` reference points.

        Returns
        -------
        float
        """
        D2 = self.geodesic_to_references_[self.reference_indices_] ** 2
        mean = D2.mean(axis=0)
        B = -0.5 * (D2 - mean[None, :] - mean[:, None] + mean.mean())
        return float(np.sqrt(max(np.sum(B**2) - np.sum(self.eigenvalues_**2), 0.0)) / D2.shape[0])
