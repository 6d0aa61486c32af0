"""Spectral clustering (Ng, Jordan & Weiss 2002; von Luxburg 2007): k-means, or
Damle et al.'s column-pivoted QR, on the bottom eigenvectors of the normalised
Laplacian of an affinity graph."""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._memory import require_memory
from .._params import CALLABLE, NONE, RANDOM_STATE, VERBOSE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from ..decomposition import KERNELS, kernel_matrix, median_squared_distance
from ..linalg import fewer_distinct_rows, sq_euclidean
from ..manifold import laplacian_eigenmap
from ..neighbors import check_n_neighbors, kneighbors_graph, precomputed_connectivity, warn_components
from ._base import check_n_clusters, warn_constant_columns, warn_found_fewer
from ._discretize import discretize
from ._graph_clustering import check_graph, neighbor_graph
from ._kmeans import KMeans

# additive_chi2 is not positive (an affinity weighs an edge), so it is left out, as
# scikit-learn's own tests leave it out
AFFINITIES = ("rbf", "nearest_neighbors", "fuzzy", "precomputed", "precomputed_nearest_neighbors") + tuple(
    k for k in KERNELS if k not in ("rbf", "additive_chi2")
)
SOLVERS = {None: "auto", "arpack": "arpack", "lobpcg": "lobpcg", "dense": "dense"}


class SpectralClustering(ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """Spectral clustering, a drop-in for ``sklearn.cluster.SpectralClustering`` that
    also clusters UMAP's fuzzy neighbour graph.

    Parameters
    ----------
    n_clusters : int, default=8
    eigen_solver : {None, 'arpack', 'lobpcg', 'dense'}, default=None
        None picks dense LAPACK for small graphs, Lanczos otherwise.
    n_components : int, optional
        Eigenvectors used (the constant one included); default ``n_clusters``.
    random_state : None, int or Generator
    n_init : int, default=10
        k-means restarts.
    gamma : float, default=1.0
        Width of the 'rbf' affinity ``exp(-gamma |x - y|^2)``.
    affinity : str or callable, default='rbf'
        'rbf' (and the kernels 'linear', 'poly', 'sigmoid', 'cosine', 'laplacian',
        'chi2' with ``gamma``, ``degree``, ``coef0``; a callable of two
        rows or of two blocks of rows, with ``kernel_params``, as ``kernel_matrix``):
        dense n x n (small data); 'nearest_neighbors':
        ``(C + C^T) / 2`` of the kNN connectivity (itself included); 'fuzzy': UMAP's
        fuzzy kNN graph; 'precomputed': ``X`` is the affinity matrix (a UMAP
        ``graph_``); 'precomputed_nearest_neighbors': ``X`` is a sparse graph of
        distances, of which each row's ``n_neighbors`` nearest make the connectivity.
    n_neighbors : int, default=10
    eigen_tol : float or 'auto', default='auto'
        Relative accuracy of the sparse eigensolver ('auto', 0: machine precision).
    assign_labels : {'kmeans', 'cluster_qr', 'discretize'}, default='kmeans'
        'cluster_qr' needs no restarts and no random start; 'discretize' finds the
        rotation of the spectral coordinates nearest to a partition (Yu & Shi).
    degree, coef0 : float, default=3, 1
        Of the 'poly' and 'sigmoid' kernels.
    kernel_params : dict, optional
        Keyword arguments of a callable affinity (the named kernels take none).
    n_jobs : int, optional
        Accepted as scikit-learn has it; the kernels use numba's and BLAS's threads.
    verbose : bool or int, default=False
        Print the stages (the label assignment's name as scikit-learn prints it) and
        show k-means' progress bars.

    Attributes
    ----------
    labels_ : ndarray of int64 (n_samples,)
    affinity_matrix_ : ndarray or sparse matrix (n_samples, n_samples)
    embedding_ : ndarray (n_samples, n_components)
        The spectral coordinates the labels were read from.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import SpectralClustering
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(4, 0.3, (40, 2))])
    >>> labels = SpectralClustering(2, affinity="nearest_neighbors", random_state=0).fit(X).labels_
    >>> len(set(labels[:40].tolist())), len(set(labels[40:].tolist())), bool(labels[0] != labels[-1])
    (1, 1, True)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "eigen_solver": [NONE, Options({"arpack", "lobpcg", "dense"})],
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "n_init": [Interval(int, 1, None, closed="left")],
        "gamma": [Interval(float, 0, None, closed="neither")],
        "affinity": [Options(set(AFFINITIES)), CALLABLE],
        "n_neighbors": [Interval(int, 1, None, closed="left")],
        "eigen_tol": [Interval(float, 0, None, closed="left"), Options({"auto"})],
        "assign_labels": [Options({"kmeans", "cluster_qr", "discretize"})],
        "degree": [Interval(float, 0, None, closed="left")],
        "coef0": [Interval(float, None, None)],
        "kernel_params": [NONE, InstanceOf(dict)],
        "n_jobs": [NONE, Interval(int, None, None)],
        "verbose": VERBOSE,
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        eigen_solver=None,
        n_components=None,
        random_state=None,
        n_init=10,
        gamma=1.0,
        affinity="rbf",
        n_neighbors=10,
        eigen_tol="auto",
        assign_labels="kmeans",
        degree=3,
        coef0=1,
        kernel_params=None,
        n_jobs=None,
        verbose=False,
    ):
        self.n_clusters = n_clusters
        self.eigen_solver = eigen_solver
        self.n_components = n_components
        self.random_state = random_state
        self.n_init = n_init
        self.gamma = gamma
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.eigen_tol = eigen_tol
        self.assign_labels = assign_labels
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _no_edges(self, X):
        """Why an affinity joins no two rows, and the fix: a kernel too narrow for the
        rows' spacing (its gamma against the median squared distance), or a given matrix
        without a weight off its diagonal."""
        if self.affinity in ("precomputed", "precomputed_nearest_neighbors") or callable(self.affinity):
            return (
                "the affinity joins no two rows (no weight off the diagonal), so no cluster can hold two rows; "
                "give an affinity with weights between similar rows."
            )
        if self.affinity != "rbf":
            return (
                f"the {self.affinity!r} affinity with gamma={self.gamma:g} joins no two rows (every weight between "
                "rows is 0); lower gamma or use affinity='nearest_neighbors'."
            )
        typical = median_squared_distance(X)
        return (
            f"the {self.affinity!r} affinity with gamma={self.gamma:g} joins no two rows: their median squared "
            f"distance is {typical:.3g}, and every weight between rows underflows to 0; lower gamma to about "
            f"{1.0 / max(typical, 1e-300):.3g} (1 / that distance) or use affinity='nearest_neighbors'."
        )

    def _all_alike(self, typical):
        """The rbf kernel too wide for the rows' spacing (``typical``, their median
        squared distance): every weight rounds to 1."""
        return (
            f"the 'rbf' affinity with gamma={self.gamma:g} finds every two rows alike: their median squared "
            f"distance is {typical:.3g}, and every weight between rows rounds to 1 (the clusters would be random); "
            f"raise gamma to about {1.0 / max(typical, 1e-300):.3g} (1 / that distance) or use "
            "affinity='nearest_neighbors'."
        )

    def _affinity(self, X):
        n = X.shape[0]
        if self.affinity == "precomputed":
            return check_graph(X, "SpectralClustering")
        if self.affinity == "precomputed_nearest_neighbors":
            C = precomputed_connectivity(X, self.n_neighbors)
            return ((C + C.T) * 0.5).tocsr()
        if callable(self.affinity) or self.affinity in KERNELS:  # dense n x n
            require_memory(
                n * n * 8, f"SpectralClustering(affinity={self.affinity!r}) on {n} samples", "use 'nearest_neighbors'"
            )
            X64 = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
            if self.affinity == "rbf":  # from centred distances, as before the other kernels came; in place
                K = sq_euclidean(X64, X64)
                np.maximum(K, 0.0, out=K)
                K *= -self.gamma
                return np.exp(K, out=K)
            return kernel_matrix(
                X64,
                kernel=self.affinity,
                gamma=self.gamma,
                degree=self.degree,
                coef0=self.coef0,
                kernel_params=self.kernel_params,
            )
        if self.affinity == "fuzzy":
            return check_graph(neighbor_graph(X, self.n_neighbors, "fuzzy"), "SpectralClustering")
        # scikit-learn's graph, components not joined: a component is a cluster in itself
        check_n_neighbors(self.n_neighbors, n, counts_self=True)
        k = self.n_neighbors
        C = sp.identity(n, format="csr")
        if k > 1:
            C = C + kneighbors_graph(X, k - 1, mode="connectivity")
        return ((C + C.T) * 0.5).tocsr()

    def fit(self, X, y=None):
        """Cluster ``X``.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or the affinity matrix with
            ``affinity='precomputed'``
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        if self.kernel_params and not callable(self.affinity):
            raise ValueError(
                f"kernel_params are the keywords of a callable affinity; the {self.affinity!r} affinity takes "
                f"none (got {self.kernel_params!r}): use gamma, degree and coef0, or pass a callable."
            )
        X = self._validate_input(X, reset=True, accept_sparse=True)
        n = X.shape[0]
        check_n_clusters(self.n_clusters, n)
        rng = check_random_state(self.random_state)
        if self.affinity != "precomputed":
            warn_constant_columns(X, "SpectralClustering")
        A = self._affinity(X)
        pieces = _warn_disconnected(A, self.affinity)
        if n > 1 and pieces == n:  # every row alone: no graph to cut
            raise ValueError(self._no_edges(X))
        if n > 1 and self.affinity == "rbf" and float(A.min()) == 1.0:  # every row like every other
            typical = median_squared_distance(X)
            if typical > 0:  # not copies of one row (said by the identical-rows warning)
                raise ValueError(self._all_alike(typical))
        self.affinity_matrix_ = A
        k = min(self.n_components or self.n_clusters, n - 1)
        maps = np.full((n, 1), 1.0 / np.sqrt(max(float(A.sum()) - float(A.diagonal().sum()), 1e-300)))
        if k > 1:
            tol = 0.0 if self.eigen_tol == "auto" else self.eigen_tol
            U, _ = laplacian_eigenmap(A, k - 1, rng, solver=SOLVERS[self.eigen_solver], tol=tol)
            maps = np.hstack([maps, U])
        self.embedding_ = maps
        if self.verbose:
            print(f"[SpectralClustering] Computing label assignment using {self.assign_labels}")
        if self.n_clusters == 1:
            self.labels_ = np.zeros(n, dtype=np.int64)
        elif self.assign_labels == "cluster_qr":
            self.labels_ = cluster_qr(maps[:, : self.n_clusters])
        elif self.assign_labels == "discretize":
            self.labels_ = discretize(maps[:, : self.n_clusters], rng)
        else:  # the constant first column changes no distance
            features = maps[:, 1:] if maps.shape[1] > 1 else maps
            km = KMeans(self.n_clusters, n_init=self.n_init, random_state=rng, verbose=int(self.verbose)).fit(features)
            self.labels_ = km.labels_.astype(np.int64)
        self._keep_copies_together(X)
        return self

    def _keep_copies_together(self, X):
        """With fewer distinct rows than clusters, each distinct row is a cluster, with
        scikit-learn's warning. The spectral coordinates cannot say so: the Laplacian's
        vectors that tell copies apart (eigenvalue 1) are among the bottom ``n_clusters``,
        and the labels split the copies of a row at random."""
        if self.affinity in ("precomputed", "precomputed_nearest_neighbors"):
            return  # a graph's nodes are not rows that could be copies
        copy_of = fewer_distinct_rows(X, self.n_clusters)
        if copy_of is not None:
            self.labels_ = copy_of.astype(np.int64)
            warn_found_fewer(int(copy_of.max()) + 1, self.n_clusters, "SpectralClustering")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.affinity in ("precomputed", "precomputed_nearest_neighbors")
        return tags


def _warn_disconnected(A, affinity):
    """Warn when the affinity graph is in pieces (scikit-learn's "not fully connected"):
    each component's indicator is then an eigenvector of its own, and components rather
    than the graph's weaker cuts decide the clusters. Returns the number of pieces."""
    if not sp.issparse(A) and np.count_nonzero(A) == A.size:  # a kernel without zeros: one piece
        return 1
    n_components, _ = connected_components(A, directed=False)
    if 1 < n_components < A.shape[0]:  # every row alone: no graph at all, an error (fit)
        warn_components(
            n_components,
            f"{affinity!r} affinity graph",
            "it is not fully connected, so spectral embedding may not work as expected: each component "
            "is a cluster or part of one, whatever its shape",
        )
    return n_components


def cluster_qr(maps):
    """Labels from spectral coordinates by column-pivoted QR (Damle, Minden & Ying
    2019): the k rows QR pivots on span the clusters; each point goes to the direction
    its row is most aligned with. Deterministic, no k-means.

    Parameters
    ----------
    maps : ndarray (n, k)
        Spectral coordinates, one column per cluster.

    Returns
    -------
    ndarray of int64 (n,)

    Examples
    --------
    >>> maps = np.array([[1.0, 0.1], [0.9, 0.0], [0.1, 1.0], [0.0, 0.8]])
    >>> cluster_qr(maps).tolist()
    [0, 0, 1, 1]
    """
    k = maps.shape[1]
    _, _, pivots = scipy.linalg.qr(maps.T, pivoting=True, mode="economic")
    left, _, right = np.linalg.svd(maps[pivots[:k]].T)
    return np.argmax(np.abs(maps @ (left @ right)), axis=1).astype(np.int64)
