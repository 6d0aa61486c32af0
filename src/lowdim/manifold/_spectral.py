"""Laplacian eigenmaps (Belkin & Niyogi): the bottom eigenvectors of the normalised
graph Laplacian of a neighbour or rbf affinity."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.linalg import aslinearoperator
from sklearn.base import BaseEstimator

from .._estimator import ValidatedInputMixin
from .._memory import require_memory
from .._params import NONE, RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import warn_constant_features
from ..linalg import (
    column_moments,
    flip_signs,
    lanczos_eigh,
    smallest_eigh,
    sq_euclidean,
    top_eigh,
)
from ..neighbors import ALGORITHMS, check_n_neighbors, join_components, kneighbors_graph

DENSE_BELOW = 1000  # 'auto' uses LAPACK on the dense matrix below this many samples
LANCZOS_PRODUCTS = 600  # matrix-vector products tried before the sparse LU (_sparse_bottom)
EIGEN_TOL_AUTO = 1e-10  # eigen_tol='auto': Ritz residuals below 1e-10 (eigenvalues to ~1e-20)
LU_BELOW = 20_000  # above, no sparse LU: its fill-in on a kNN graph of high intrinsic
# dimension grows out of bounds (70,000 Fashion-MNIST images: 173 s); Lanczos goes on instead


def knn_affinity(X, n_neighbors, algorithm="auto"):
    """Symmetric kNN connectivity ``(A + A^T) / 2`` where, as in scikit-learn, each
    point counts itself among its ``n_neighbors`` (a unit self-loop and n_neighbors - 1
    others); components joined by their shortest edges (with a warning), the joining
    edges given weight 1.

    Examples
    --------
    >>> knn_affinity(np.array([[0.0], [1.0], [3.0]]), 2).toarray().tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    n = X.shape[0]
    A = sp.identity(n, format="csr")
    if n_neighbors > 1:
        A = A + kneighbors_graph(X, n_neighbors - 1, mode="connectivity", algorithm=algorithm)
    S = ((A + A.T) * 0.5).tocsr()
    joined = join_components(S, X, name="SpectralEmbedding neighbour graph")
    bridge = (joined - S).tocsr()
    bridge.data[:] = 1.0
    return (S + bridge).tocsr()


def check_nontrivial_components(n_components, n_samples):
    """Raise unless ``n_components`` eigenvectors remain after the constant one.

    Examples
    --------
    >>> check_nontrivial_components(2, 3)
    """
    if n_components > n_samples - 1:
        raise ValueError(f"n_components={n_components} must be at most n_samples={n_samples} minus one "
                         f"({n_samples - 1}: the constant eigenvector is dropped); lower n_components.")


def laplacian_eigenmap(A, n_components, rng, solver="auto", tol=0.0):
    """Bottom non-trivial eigenvectors of ``I - D^-1/2 A D^-1/2`` (the diagonal of ``A``
    ignored), divided by ``sqrt(degree)``; computed as the top eigenvectors of
    ``D^-1/2 A D^-1/2``. ``tol`` is the sparse solvers' relative accuracy (0: machine
    precision; a starting layout needs far less).

    Returns
    -------
    embedding : ndarray (n, n_components)
    eigenvalues : ndarray (n_components,) of the normalised Laplacian
    """
    n = A.shape[0]
    # self-loops (the diagonal) do not count, as in scipy's normalised Laplacian
    if sp.issparse(A):
        A = (A - sp.diags(A.diagonal())).tocsr()
    else:
        A = A - np.diag(np.diag(A))
    degree = np.asarray(A.sum(axis=1)).ravel()
    scale = 1.0 / np.sqrt(np.maximum(degree, np.finfo(np.float64).tiny))
    if sp.issparse(A):
        M = sp.diags(scale) @ A @ sp.diags(scale)
    else:
        M = scale[:, None] * A * scale[None, :]
    k = n_components + 1
    if solver == "dense" or (solver == "auto" and n < DENSE_BELOW) or k >= n:
        dense = M.toarray() if sp.issparse(M) else M
        w, U = top_eigh(dense, min(k, n))
        lam = 1.0 - w
    elif sp.issparse(M):
        lam, U = _sparse_bottom(M, k, rng, tol)
    else:
        w, U = lanczos_eigh(aslinearoperator(M), k, rng=rng, tol=tol)
        lam = 1.0 - w
    (Ut,) = flip_signs(U[:, 1:k].T)
    return Ut.T * scale[:, None], lam[1:k]


def _sparse_bottom(M, k, rng, tol=0.0):
    """Bottom ``k`` eigenpairs of ``I - M``: plain Lanczos on ``M`` within a budget of
    LANCZOS_PRODUCTS products, then shift-invert on a sparse LU of ``I - M`` (up to
    LU_BELOW points; beyond, Lanczos without the budget). Neither wins everywhere: the
    LU fills in on graphs of high intrinsic dimension (Fashion-MNIST PCA-50, 5,000
    points: 0.18 s against Lanczos's 0.08 s; 10-D blobs: 0.34 s against 0.03 s; all
    70,000 raw images: 173 s), while a low-dimensional manifold (Swiss roll) factorises
    in 0.05 s but needs 1,300 products."""
    n = M.shape[0]
    ncv = min(n, max(2 * k + 1, 20))
    budget = max(1, LANCZOS_PRODUCTS // (ncv - k))
    try:
        return _top_as_bottom(M, k, rng, ncv, tol, budget)
    except spla.ArpackNoConvergence:
        if n > LU_BELOW:
            return _top_as_bottom(M, k, rng, min(n, 2 * ncv), tol, None)
        return smallest_eigh(sp.identity(n, format="csr") - M, k, rng=rng, solver="arpack", tol=tol,
                             max_iter=None)


def _top_as_bottom(M, k, rng, ncv, tol, max_restarts):
    """Lanczos for the top ``k`` eigenpairs of ``M``, returned as ``(1 - w, U)``."""
    w, U = spla.eigsh(M, k=k, which="LA", v0=rng.uniform(-1, 1, M.shape[0]), ncv=ncv, tol=tol,
                      maxiter=max_restarts)
    order = np.argsort(w)[::-1]
    return 1.0 - w[order], U[:, order]


class SpectralEmbedding(ValidatedInputMixin, BaseEstimator):
    """Laplacian eigenmaps, a drop-in for ``sklearn.manifold.SpectralEmbedding``.

    Parameters
    ----------
    n_components : int, default=2
    affinity : {'nearest_neighbors', 'rbf', 'precomputed'}, default='nearest_neighbors'
    gamma : float, optional
        rbf width (default ``1 / n_features``).
    random_state : None, int or Generator
        Start vector of the sparse eigensolver.
    eigen_solver : {'auto', 'arpack', 'dense'}, default='auto'
        'arpack' is Lanczos on the normalised sparse affinity, then (if it has not
        converged within 600 products) shift-invert Lanczos on a sparse LU of the
        Laplacian; plain Lanczos on a dense affinity. 'auto' is dense LAPACK below
        1000 samples.
    n_neighbors : int, optional
        Default ``max(n_samples // 10, 1)``.
    neighbors_algorithm : {'auto', 'exact', 'approximate'}, default='auto'
        kNN index: 'auto' is approximate (HNSW) from 20,000 points on when faiss is
        installed (``lowdim[ann]``), exact blocked BLAS otherwise.
    eigen_tol : 'auto' or float >= 0, default='auto'
        Relative residual at which the sparse eigensolver stops (0: machine precision).
        'auto' is 1e-10: eigenvalues then agree with the exact ones to about 1e-20 and
        eigenvectors to 1e-10 over the gap to the next eigenvalue, for a third less
        time than 0 (scikit-learn's 'auto' is 0 with ARPACK).

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    affinity_matrix_ : sparse or dense (n_samples, n_samples)
    eigenvalues_ : ndarray (n_components,)
        Of the normalised Laplacian, increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import SpectralEmbedding
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> SpectralEmbedding(n_components=2, random_state=0).fit_transform(X).shape
    (100, 2)
    """

    _components_limit = "samples"
    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "affinity": [Options({"nearest_neighbors", "rbf", "precomputed"})],
        "gamma": [NONE, Interval(float, 0, None, closed="neither")],
        "random_state": [RANDOM_STATE],
        "eigen_solver": [Options({"auto", "arpack", "dense"})],
        "n_neighbors": [NONE, Interval(int, 1, None, closed="left")],
        "neighbors_algorithm": [Options(set(ALGORITHMS))],
        "eigen_tol": [Options({"auto"}), Interval(float, 0, None, closed="left")],
    }

    def __init__(self, n_components=2, *, affinity="nearest_neighbors", gamma=None, random_state=None,
                 eigen_solver="auto", n_neighbors=None, neighbors_algorithm="auto", eigen_tol="auto"):
        self.n_components = n_components
        self.affinity = affinity
        self.gamma = gamma
        self.random_state = random_state
        self.eigen_solver = eigen_solver
        self.n_neighbors = n_neighbors
        self.neighbors_algorithm = neighbors_algorithm
        self.eigen_tol = eigen_tol

    def _affinity(self, X):
        n = X.shape[0]
        if self.affinity == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"affinity='precomputed' needs a square matrix; X has shape {X.shape}.")
            return X.astype(np.float64)
        warn_constant_features(column_moments(X)[1], "SpectralEmbedding", "every sample is the same point")
        if self.affinity == "rbf":
            require_memory(8 * n * n, f"rbf affinity on {n} samples (n x n)", "use affinity='nearest_neighbors'")
            gamma = self.gamma if self.gamma is not None else 1.0 / X.shape[1]
            X64 = np.asarray(X, dtype=np.float64)
            Xc = X64 - X64.mean(axis=0)
            return np.exp(-gamma * sq_euclidean(Xc, Xc))
        k = self.n_neighbors if self.n_neighbors is not None else max(n // 10, 1)
        check_n_neighbors(k, n)
        # float32 rows stay float32: the exact index certifies its float32 search
        return knn_affinity(X, k, self.neighbors_algorithm)

    def fit(self, X, y=None):
        """Compute the embedding.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or an affinity matrix if precomputed
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"SpectralEmbedding needs at least 2 samples; got {n} sample.")
        check_nontrivial_components(self.n_components, n)
        self.affinity_matrix_ = self._affinity(X)
        tol = EIGEN_TOL_AUTO if self.eigen_tol == "auto" else self.eigen_tol
        Y, self.eigenvalues_ = laplacian_eigenmap(self.affinity_matrix_, self.n_components,
                                                  check_random_state(self.random_state), self.eigen_solver, tol)
        self.embedding_ = Y.astype(X.dtype)
        return self

    def fit_transform(self, X, y=None):
        """Fit, then return ``embedding_``."""
        return self.fit(X).embedding_
