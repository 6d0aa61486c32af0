"""The kNN graph as a scikit-learn transformer: ``KNeighborsTransformer`` puts lowdim's
indexes (exact BLAS, HNSW, Gower, ...) where a pipeline, ``Isomap(metric='precomputed')``
or ``scanpy.pp.neighbors(transformer=...)`` expects scikit-learn's."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import ValidatedInputMixin
from .._params import NONE, InstanceOf, Interval, Options, validate_params
from ._base import KNNIndex
from ._choose import ALGORITHMS, INDEX_METRICS, make_index, resolve_metric
from ._neighbor_graph import knn_csr
from ._self_query import self_neighbors

# scikit-learn's exact searches: lowdim's exact index answers all of them
EXACT_NAMES = ("brute", "kd_tree", "ball_tree")


class KNeighborsTransformer(ValidatedInputMixin, TransformerMixin, BaseEstimator):
    """Each row's nearest training rows as a sparse graph, a drop-in for
    ``sklearn.neighbors.KNeighborsTransformer`` backed by lowdim's indexes.

    ``transform(X)`` gives an (n_queries, n_samples_fit) CSR matrix whose row i holds
    the ``n_neighbors`` nearest training rows of ``X[i]`` (one more with
    ``mode='distance'``, as scikit-learn counts each point its own neighbour), stored in
    order of distance; ``fit_transform(X)`` puts each row itself first at distance 0,
    then its ``n_neighbors`` nearest others, so that scanpy's
    ``pp.neighbors(adata, transformer=KNeighborsTransformer(15))`` reads it without a
    sort.

    Parameters
    ----------
    n_neighbors : int, default=5
    mode : {'distance', 'connectivity'}, default='distance'
        Store the distances, or ones.
    algorithm : {'auto', 'exact', 'approximate', 'brute', 'kd_tree', 'ball_tree'} or KNNIndex, default='auto'
        lowdim's index rule ('auto': approximate HNSW from 20,000 rows when faiss is
        installed, exact otherwise); scikit-learn's exact names take the exact index.
    leaf_size : int, default=30
        Accepted for compatibility (no tree is built).
    metric : str, default='minkowski'
        Any metric of ``lowdim.neighbors.make_index`` ('euclidean', 'cosine',
        'manhattan', ..., 'gower' for a coded mixed table); 'minkowski' with ``p``.
    p : float, default=2
    metric_params : dict, optional
    n_jobs : int, optional
        Accepted for compatibility; lowdim's thread pools do the search.

    Attributes
    ----------
    effective_metric_ : str
    effective_metric_params_ : dict
    n_samples_fit_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.neighbors import KNeighborsTransformer
    >>> X = np.array([[0.0], [1.0], [3.0], [7.0]])
    >>> G = KNeighborsTransformer(n_neighbors=1).fit_transform(X)
    >>> G.indices.tolist(), G.data.tolist()
    ([0, 1, 1, 0, 2, 1, 3, 2], [0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 4.0])
    """

    _parameter_constraints = {
        "n_neighbors": [Interval(int, 1, None, closed="left")],
        "mode": [Options({"distance", "connectivity"})],
        "algorithm": [Options(set(ALGORITHMS) | set(EXACT_NAMES)), InstanceOf(KNNIndex)],
        "leaf_size": [Interval(int, 1, None, closed="left")],
        "metric": [Options({"minkowski", *INDEX_METRICS} - {"precomputed"})],
        "p": [Interval(float, 1, None, closed="left")],
        "metric_params": [NONE, InstanceOf(dict)],
        "n_jobs": [NONE, Interval(int, None, None)],
    }

    def __init__(
        self,
        *,
        mode="distance",
        n_neighbors=5,
        algorithm="auto",
        leaf_size=30,
        metric="minkowski",
        p=2,
        metric_params=None,
        n_jobs=None,
    ):
        self.mode = mode
        self.n_neighbors = n_neighbors
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Index the training rows.

        Parameters
        ----------
        X : array-like or scipy.sparse (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        metric, params = resolve_metric(self.metric, self.p, self.metric_params)
        algorithm = "exact" if self.algorithm in EXACT_NAMES else self.algorithm
        self._index = make_index(algorithm, metric, X.shape[0], params, sparse=sp.issparse(X)).build(X)
        self._fit_X = X
        self.effective_metric_, self.effective_metric_params_ = metric, dict(params or {})
        self.n_samples_fit_ = X.shape[0]
        return self

    def _k(self):
        """Neighbours per row: one more for 'distance' (a point is its own)."""
        k = self.n_neighbors + (self.mode == "distance")
        if k > self.n_samples_fit_:
            raise ValueError(
                f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, n_samples_fit = "
                f"{self.n_samples_fit_}; lower n_neighbors (mode={self.mode!r} counts each point as its own "
                "neighbour)."
            )
        return k

    def transform(self, X):
        """The graph from the rows of ``X`` to their nearest training rows.

        Parameters
        ----------
        X : array-like or scipy.sparse (n_queries, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix (n_queries, n_samples_fit)
        """
        check_is_fitted(self)
        X = self._validate_input(X, reset=False, accept_sparse=True)
        distances, indices = self._index.query(X, self._k())
        return knn_csr(np.asarray(distances), np.asarray(indices), mode=self.mode, n_columns=self.n_samples_fit_)

    def fit_transform(self, X, y=None):
        """``fit(X)``, then the graph of the training rows: each row itself first (distance
        0), then its nearest other rows.

        Parameters
        ----------
        X : array-like or scipy.sparse (n_samples, n_features)
        y : ignored

        Returns
        -------
        scipy.sparse.csr_matrix (n_samples, n_samples)
        """
        self.fit(X)
        k = self._k()
        n = self.n_samples_fit_
        own = np.arange(n)[:, None]
        if k == 1:
            return knn_csr(np.zeros((n, 1)), own, mode=self.mode)
        distances, indices = self_neighbors(self._index, self._fit_X, k - 1)
        distances = np.hstack([np.zeros((n, 1), dtype=distances.dtype), distances])
        return knn_csr(distances, np.hstack([own, indices]), mode=self.mode)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = []
        return tags
