"""Diffusion maps (Coifman & Lafon 2006): coordinates from the top eigenvectors of a
random walk on a Gaussian kernel of the neighbour graph, each scaled by its eigenvalue
to the power of the diffusion time."""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer, EmbeddingMixin
from .._mixed_input import GowerTableMixin
from .._params import NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_sample_count, warn_constant_features
from ..linalg import column_moments
from ..manifold import check_nontrivial_components, laplacian_eigenmap
from ..neighbors import (
    ALGORITHMS,
    INDEX_METRICS,
    PRECOMPUTED_KNN,
    KNNIndex,
    check_n_neighbors,
    find_neighbors,
    join_components,
    make_index,
    positive_scales,
    warn_duplicates,
)

REVERSE_REACH = 20  # transform looks this many times n_neighbors deep for rows that would link to a new one
PLACED_PER_BLOCK = 1 << 20  # candidate pairs per block of new rows (tens of MB)
RADIUS_ROUNDING = 1e-5  # a row at another's radius is its last neighbour, whichever search measured it (float32)


def kernel_values(dist, rows_scale, cols_scale, bandwidth):
    """Gaussian kernel ``exp(-d^2 / (s_i s_j))`` of the local scales (Zelnik-Manor &
    Perona), or ``exp(-d^2 / bandwidth)`` with a fixed bandwidth.

    Parameters
    ----------
    dist : ndarray
        Distances between the rows ``i`` and ``j``.
    rows_scale, cols_scale : ndarray, same shape as ``dist``
        ``s_i`` and ``s_j`` (ignored with a fixed bandwidth).
    bandwidth : 'adaptive' or float

    Returns
    -------
    ndarray, same shape as ``dist``

    Examples
    --------
    >>> kernel_values(np.array([0.0, 1.0]), np.ones(2), np.ones(2), 2.0).round(4).tolist()
    [1.0, 0.6065]
    """
    d2 = np.square(np.asarray(dist, dtype=np.float64))
    if bandwidth == "adaptive":
        return np.exp(-d2 / np.maximum(rows_scale * cols_scale, np.finfo(np.float64).tiny))
    return np.exp(-d2 / bandwidth)


def diffusion_kernel(dist, idx, bandwidth):
    """The symmetric kernel matrix of a neighbour graph: each row itself (``k = 1``)
    and its neighbours, the pattern made symmetric (the kernel of a pair is the same
    from either end). A row's local scale is its distance to its last neighbour.

    Parameters
    ----------
    dist, idx : ndarray (n, k)
        Each row's nearest other rows, nearest first.
    bandwidth : 'adaptive' or float

    Returns
    -------
    K : scipy.sparse.csr_matrix (n, n)
    scales : ndarray (n,)

    Examples
    --------
    >>> K, s = diffusion_kernel(np.array([[1.0], [1.0], [2.0]]), np.array([[1], [0], [1]]), "adaptive")
    >>> K.toarray().round(3).tolist()
    [[1.0, 0.368, 0.0], [0.368, 1.0, 0.135], [0.0, 0.135, 1.0]]
    """
    n, k = idx.shape
    scales = positive_scales(dist[:, -1])  # a row with k copies would reach no other row
    rows = np.repeat(np.arange(n), k)
    cols = np.asarray(idx, dtype=np.int64).ravel()
    values = kernel_values(dist.ravel(), scales[rows], scales[cols], bandwidth)
    one_way = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    K = one_way.maximum(one_way.T) + sp.identity(n, format="csr")
    return K.tocsr(), scales


def alpha_normalize(K, alpha):
    """``K_ij / (q_i q_j)^alpha`` with ``q`` the kernel's row sums: alpha = 0 keeps the
    density's pull (the normalised graph Laplacian), 1/2 gives a Fokker-Planck diffusion,
    1 removes the sampling density (the Laplace-Beltrami operator of the manifold).

    Parameters
    ----------
    K : scipy.sparse matrix (n, n)
    alpha : float

    Returns
    -------
    K_alpha : scipy.sparse.csr_matrix (n, n)
    q : ndarray (n,)

    Examples
    --------
    >>> Ka, q = alpha_normalize(sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 3.0]])), 1.0)
    >>> Ka.toarray().round(3).tolist(), q.tolist()
    ([[0.25, 0.125], [0.125, 0.188]], [2.0, 4.0])
    """
    q = np.asarray(K.sum(axis=1)).ravel()
    inv = q**-alpha
    return sp.csr_matrix(sp.diags(inv) @ K @ sp.diags(inv)), q


def _powered(eigenvalues, t):
    """``lambda^t``, keeping the sign of a negative eigenvalue for any time."""
    return np.sign(eigenvalues) * np.abs(eigenvalues) ** t


class DiffusionMap(GowerTableMixin, EmbeddingMixin, ComponentTransformer):
    """Diffusion map (Coifman & Lafon 2006): the coordinates of a random walk on the
    neighbour graph.

    A Gaussian kernel joins each point to itself and its ``n_neighbors - 1`` nearest
    points (``exp(-d^2 / (s_i s_j))`` with ``s_i`` the distance to the farthest of them,
    or a fixed ``bandwidth``); ``alpha`` divides out the sampling density; the rows,
    normalised, are the walk's transition matrix ``P``. Its top non-trivial eigenvectors
    ``psi_k`` scaled by ``lambda_k^t`` are the coordinates: the Euclidean distance between
    two points' coordinates is their diffusion distance after ``t`` steps (over the
    components kept). A larger ``t`` blurs small-scale structure; ``t=0`` gives the
    eigenvectors themselves.

    ``transform`` places new points by the Nystrom extension: their kernel to the
    training points, normalised as in the fit, averages the training coordinates and
    divides by ``lambda_k``; with every training point a neighbour it returns
    ``embedding_`` for the training rows.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=15
        Points of each kernel row, the point itself included.
    alpha : float in [0, 1], default=1.0
        Density normalisation: 0 the classical normalised graph Laplacian, 0.5
        Fokker-Planck, 1 the Laplace-Beltrami operator (geometry without density).
    t : float >= 0, default=1
        Diffusion time.
    bandwidth : 'adaptive' or float > 0, default='adaptive'
        'adaptive': each point's scale is the distance to its farthest kernel neighbour
        (an anisotropic kernel that widens where points are sparse); a float is a fixed
        ``epsilon`` in ``exp(-d^2 / epsilon)``.
    metric : str, default='euclidean'
        Any metric of ``lowdim.neighbors.make_index``; 'gower' for a mixed table (a
        DataFrame with text, category, boolean or date columns is coded as
        ``mixed_codes`` codes it; gaps are skipped pair by pair).
    metric_params : dict, optional
        The metric's keywords ('categorical', 'ordinal', 'weights' for 'gower').
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
    precomputed_knn : NeighborGraph or tuple, optional
        Each point's nearest neighbours found once for many fits; the search is skipped.
    eigen_solver : {'auto', 'arpack', 'lobpcg', 'dense'}, default='auto'
    eigen_tol : 'auto' or float >= 0, default='auto'
    random_state : None, int or Generator
        Start vector of the sparse eigensolver.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    eigenvalues_ : ndarray (n_components,)
        Of the transition matrix, decreasing (the trivial 1 left out).
    eigenvectors_ : ndarray (n_samples, n_components)
        The right eigenvectors ``psi``, normalised in the walk's stationary measure.
    affinity_matrix_ : scipy.sparse.csr_matrix (n_samples, n_samples)
        The kernel before the density normalisation.
    degrees_ : ndarray (n_samples,)
        The kernel's row sums ``q`` (the density estimate ``alpha`` divides out).
    scales_ : ndarray (n_samples,)
        Each point's local scale (with ``bandwidth='adaptive'``).
    X_fit_ : ndarray (n_samples, n_features)
        The training rows, for ``transform`` (with 'gower': their codes, NaN for gaps).
    n_components_ : int
    n_features_in_ : int
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns: each column's name, kind and levels; new tables are
        coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.diffusion import DiffusionMap
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> DiffusionMap(n_components=2, random_state=0).fit_transform(X).shape
    (200, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "n_neighbors": [Interval(int, 2, None, closed="left")],
        "alpha": [Interval(float, 0, 1, closed="both")],
        "t": [Interval(float, 0, None, closed="left")],
        "bandwidth": [Options({"adaptive"}), Interval(float, 0, None, closed="neither")],
        "metric": [Options(set(INDEX_METRICS) - {"precomputed"})],
        "metric_params": [NONE, InstanceOf(dict)],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "precomputed_knn": PRECOMPUTED_KNN,
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "eigen_tol": [Options({"auto"}), Interval(float, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
    }
    fit_transform = EmbeddingMixin.fit_transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=15,
        alpha=1.0,
        t=1,
        bandwidth="adaptive",
        metric="euclidean",
        metric_params=None,
        neighbors_algorithm="auto",
        precomputed_knn=None,
        eigen_solver="auto",
        eigen_tol="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.t = t
        self.bandwidth = bandwidth
        self.metric = metric
        self.metric_params = metric_params
        self.neighbors_algorithm = neighbors_algorithm
        self.precomputed_knn = precomputed_knn
        self.eigen_solver = eigen_solver
        self.eigen_tol = eigen_tol
        self.random_state = random_state

    def _neighbours(self, X, k):
        """Each row's ``k`` nearest other rows and the index they came from (None when
        given)."""
        distances, indices, index = find_neighbors(
            X,
            k,
            algorithm=self.neighbors_algorithm,
            metric=self.metric,
            metric_params=self._distance_params(),
            precomputed_knn=self.precomputed_knn,
            name="DiffusionMap",
        )
        return (distances, indices), index

    def fit(self, X, y=None):
        """Compute the diffusion coordinates.

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
        check_sample_count(n, "DiffusionMap")
        check_nontrivial_components(self.n_components, n)
        check_n_neighbors(self.n_neighbors, n, counts_self=True)
        if self.metric != "gower":  # Gower's distance scales each column by its own range
            warn_constant_features(column_moments(X)[1], "DiffusionMap", "every sample is the same point", X=X)
        (dist, idx), index = self._neighbours(X, self.n_neighbors - 1)
        warn_duplicates(dist, self._shown_name, self._uses_gower)
        K, self.scales_ = diffusion_kernel(dist, idx, self.bandwidth)
        weakest = float(K.data.min())  # components joined as weakly as the weakest pair of the graph
        K = join_components(K, X, name="DiffusionMap neighbour graph", index=index, edge_weight=weakest).tocsr()
        self.affinity_matrix_ = K
        K_alpha, self.degrees_ = alpha_normalize(K, self.alpha)
        rng = check_random_state(self.random_state)
        psi, lam = laplacian_eigenmap(
            K_alpha, self.n_components, rng, self.eigen_solver, self.eigen_tol, keep_diagonal=True
        )
        self.eigenvalues_ = 1.0 - lam
        self.eigenvectors_ = psi
        self.embedding_ = (psi * _powered(self.eigenvalues_, self.t)).astype(X.dtype)
        self.X_fit_ = np.array(X)  # a copy: the caller may reuse the training array
        self.n_components_ = self.n_components
        return self

    def transform(self, X):
        """Place new points by the Nystrom extension of the eigenvectors.

        Parameters
        ----------
        X : array-like (n_samples, n_features)

        Returns
        -------
        ndarray (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False)
        fit = self.X_fit_
        index = make_index("exact", self.metric, fit.shape[0], self._distance_params()).build(fit)
        depth = min(REVERSE_REACH * min(self.n_neighbors, fit.shape[0]), fit.shape[0])
        step = max(1, PLACED_PER_BLOCK // depth)  # rows per block: the candidates' arrays stay small
        psi = np.vstack([self._nystrom(index, X[i : i + step]) for i in range(0, X.shape[0], step)])
        return (psi * _powered(self.eigenvalues_, self.t)).astype(X.dtype)

    def _nystrom(self, index, X):
        """The eigenvectors extended to the rows ``X``, through their kernel to the
        training rows they are linked to."""
        k = min(self.n_neighbors, self.X_fit_.shape[0])
        dist, idx = index.query(X, min(REVERSE_REACH * k, self.X_fit_.shape[0]))
        scale = positive_scales(dist[:, k - 1], reference=self.scales_)[:, None]
        # the kernel of fit is symmetric: a row is linked to its k nearest and to every
        # row that would count it among its own (within that row's radius); a training
        # row is placed where fit put it
        linked = (np.arange(dist.shape[1]) < k)[None, :] | (dist <= self.scales_[idx] * (1 + RADIUS_ROUNDING))
        kern = np.where(linked, kernel_values(dist, scale, self.scales_[idx], self.bandwidth), 0.0)
        q = kern.sum(axis=1, keepdims=True)
        kern = kern / (q**self.alpha * self.degrees_[idx] ** self.alpha)
        walk = kern / kern.sum(axis=1, keepdims=True)
        return np.einsum("rk,rkc->rc", walk, self.eigenvectors_[idx]) / self.eigenvalues_
