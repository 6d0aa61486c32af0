"""Laplacian eigenmaps (Belkin & Niyogi): the bottom eigenvectors of the normalised
graph Laplacian of a neighbour or rbf affinity."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator

from .._estimator import EmbeddingMixin, ValidatedInputMixin
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import CALLABLE, NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_affinities, check_precomputed, check_sample_count, warn_constant_features
from .._warnings import warn_user
from ..linalg import (
    column_moments,
    flip_signs,
    smallest_eigh,
    sq_euclidean,
    top_eigh,
)
from ..neighbors import (
    ALGORITHMS,
    INDEX_METRICS,
    PRECOMPUTED_KNN,
    ExactIndex,
    KNNIndex,
    StoredDistances,
    check_n_neighbors,
    given_neighbors,
    join_components,
    kneighbors_graph,
    knn_csr,
    knn_given,
    make_index,
    precomputed_connectivity,
)

DENSE_BELOW = 1000  # 'auto' uses LAPACK on the dense matrix below this many samples
LANCZOS_PRODUCTS = 600  # matrix-vector products tried before the sparse LU (_sparse_bottom)
EIGEN_TOL_AUTO = 1e-10  # eigen_tol='auto': Ritz residuals below 1e-10 (eigenvalues to ~1e-20)
LARGE_DEFAULT_GRAPH = 10**8  # neighbour pairs above which scikit-learn's default n_neighbors is warned of
LU_BELOW = 20_000  # above, no sparse LU: its fill-in on a kNN graph of high intrinsic
# dimension grows out of bounds (minutes on all 70,000 Fashion-MNIST images); Lanczos goes on instead


def knn_affinity(
    X, n_neighbors, algorithm="auto", precomputed=False, given=None, metric="euclidean", metric_params=None
):
    """Symmetric kNN connectivity ``(A + A^T) / 2`` where, as in scikit-learn, each
    point counts itself among its ``n_neighbors`` (a unit self-loop and n_neighbors - 1
    others, found here in ``metric`` or ``given`` as ``(distances, indices)``);
    components joined by their shortest edges in the same metric (with a warning), the
    joining edges given weight 1. With ``precomputed``, ``X`` holds the distances
    (dense, or sparse with each row's candidate neighbours stored).

    Examples
    --------
    >>> knn_affinity(np.array([[0.0], [1.0], [3.0]]), 2).toarray().tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    n = X.shape[0]
    A = sp.identity(n, format="csr")
    index = None
    if precomputed:  # the k smallest entries of each row, as scikit-learn (self included if it is among them)
        index = StoredDistances() if sp.issparse(X) else ExactIndex("precomputed").build(X)
        A = precomputed_connectivity(X, n_neighbors)
    elif n_neighbors > 1:
        index = make_index(algorithm if given is None else "exact", metric, n, metric_params, sparse=sp.issparse(X))
        if given is None:
            A = A + kneighbors_graph(X, n_neighbors - 1, mode="connectivity", index=index)
        else:
            A = A + knn_csr(*given, mode="connectivity")
            if sp.issparse(X) or metric != "euclidean":  # joined through the index; dense Euclidean rows by BLAS
                index.build(X)
        index = index if sp.issparse(X) or metric != "euclidean" else None
    S = ((A + A.T) * 0.5).tocsr()
    return join_components(S, X, name="SpectralEmbedding neighbour graph", index=index, edge_weight=1.0).tocsr()


def default_n_neighbors(n_samples):
    """scikit-learn's default ``max(n_samples // 10, 1)``, with a warning where it makes
    more than ``LARGE_DEFAULT_GRAPH`` neighbour pairs: it grows with the square of the
    rows (100,000 rows: 10,000 neighbours each, 10^9 pairs),
    while a map needs a few dozen.

    Parameters
    ----------
    n_samples : int

    Returns
    -------
    int

    Examples
    --------
    >>> default_n_neighbors(1000)
    100
    """
    k = max(n_samples // 10, 1)
    if n_samples * k > LARGE_DEFAULT_GRAPH:
        warn_user(
            f"SpectralEmbedding: n_neighbors defaults to n_samples // 10 = {k:,} (scikit-learn's default), a graph "
            f"of {n_samples * k:,} neighbour pairs whose search and eigenvectors take minutes to hours and "
            "gigabytes (lowdim info prints the memory); pass n_neighbors (15 to 50 make a map of this many points)."
        )
    return k


def check_nontrivial_components(n_components, n_samples):
    """Raise unless ``n_components`` eigenvectors remain after the constant one.

    Parameters
    ----------
    n_components : int
        Eigenvectors wanted beside the constant one.
    n_samples : int

    Examples
    --------
    >>> check_nontrivial_components(2, 3)
    """
    if n_components > n_samples - 1:
        raise ValueError(
            f"n_components={n_components} must be at most n_samples={n_samples} minus one "
            f"({n_samples - 1}: the constant eigenvector is dropped); lower n_components."
        )


def laplacian_eigenmap(
    A, n_components, rng, solver="auto", tol=0.0, bounded=False, on_product=None, keep_diagonal=False
):
    """Bottom non-trivial eigenvectors of ``I - D^-1/2 A D^-1/2`` (the diagonal of ``A``
    ignored unless ``keep_diagonal``), divided by ``sqrt(degree)``; computed as the top
    eigenvectors of ``D^-1/2 A D^-1/2``. ``tol`` is the sparse solvers' relative accuracy
    (0: machine precision; 'auto': 1e-10; a starting layout needs far less).

    Parameters
    ----------
    A : ndarray or sparse matrix (n, n)
        Symmetric affinities.
    n_components : int
    rng : numpy.random.Generator
    solver : {'auto', 'dense', 'lobpcg', 'amg', 'arpack'}, default='auto'
    tol : float or 'auto', default=0.0
    bounded : bool, default=False
        Above ``LU_BELOW`` points, give up (``scipy.sparse.linalg.ArpackNoConvergence``)
        when Lanczos has not converged within its budget of products, instead of
        running on (a graph of weakly joined parts has nearly equal eigenvalues, which
        Lanczos separates slowly): for a starting layout, which has alternatives.
    on_product : callable, optional
        ``on_product(done, most)`` after each sparse product of the Lanczos path (a
        progress bar's tick): products so far, and the most the solver will take
        (None where it is not bounded).
    keep_diagonal : bool, default=False
        Keep self-loops in the walk (a diffusion map's kernel, ``k(x, x) = 1``).

    Returns
    -------
    embedding : ndarray (n, n_components)
    eigenvalues : ndarray (n_components,) of the normalised Laplacian

    Examples
    --------
    >>> import numpy as np
    >>> A = np.ones((5, 5)) - np.eye(5)
    >>> A[0, 1] = A[1, 0] = 5.0
    >>> Y, eigenvalues = laplacian_eigenmap(A, 1, np.random.default_rng(0))
    >>> Y.shape
    (5, 1)
    """
    n = A.shape[0]
    tol = EIGEN_TOL_AUTO if tol == "auto" else tol
    M, scale = _normalized_affinity(A, keep_diagonal)
    k = n_components + 1
    if solver in ITERATIVE and 5 * k < n:
        found = ITERATIVE[solver](M, k, rng, tol)
        if found is not None:
            lam, U = found
            (Ut,) = flip_signs(U[:, 1:k].T)
            return Ut.T * scale[:, None], lam[1:k]
        solver = "auto"  # not converged: the Lanczos path below
    if solver in ("dense", "lobpcg") or (solver == "auto" and n < DENSE_BELOW) or k >= n:
        dense = M.toarray() if sp.issparse(M) else M
        w, U = top_eigh(dense, min(k, n))
        lam = 1.0 - w
    elif sp.issparse(M):
        lam, U = _sparse_bottom(M, k, rng, tol, bounded, on_product)
    else:  # a dense kernel's bottom is clustered (rbf: gaps of 1e-5): plain Lanczos takes 1e5 products
        L = np.negative(M, out=M)
        L[np.diag_indices(n)] += 1.0
        lam, U = smallest_eigh(L, k, rng=rng, solver="arpack", tol=tol, max_iter=None)
    (Ut,) = flip_signs(U[:, 1:k].T)
    return Ut.T * scale[:, None], lam[1:k]


def _normalized_affinity(A, keep_diagonal=False):
    """``(D^-1/2 A D^-1/2, D^-1/2)`` with the diagonal of ``A`` (self-loops) left out, as
    in scipy's normalised Laplacian, unless ``keep_diagonal``. A sparse ``A`` keeps its
    structure: the result shares its index arrays and adds only one float64 value per
    edge (on millions of points the graph is gigabytes)."""
    if not sp.issparse(A):  # one copy, scaled in place: n x n passes dominate a dense kernel's fit
        M = np.array(A, dtype=np.float64)
        if not keep_diagonal:
            M[np.diag_indices(M.shape[0])] = 0.0
        scale = 1.0 / np.sqrt(np.maximum(M.sum(axis=1), np.finfo(np.float64).tiny))
        M *= scale[:, None]
        M *= scale[None, :]
        return M, scale
    A = sp.csr_matrix(A)
    from .._kernels.normalized_graph import normalized_values

    values, scale = normalized_values(A.indptr, A.indices, A.data, keep_diagonal)
    return sp.csr_matrix((values, A.indices, A.indptr), shape=A.shape), scale


def _symmetric(A):
    """A user's affinity, averaged with its transpose when it is not symmetric (with
    scikit-learn's warning): the eigensolvers read one triangle of a symmetric matrix."""
    gap = abs(A - A.T)
    worst = (gap.max() if gap.nnz else 0.0) if sp.issparse(A) else gap.max()
    if worst > 1e-10 * abs(A).max():
        warn_user("Array is not symmetric, and will be converted to symmetric by average with its transpose.")
        return ((A + A.T) / 2).tocsr() if sp.issparse(A) else (A + A.T) / 2
    return A


AMG_SHIFT = 1e-5  # added to the Laplacian so that the multigrid hierarchy sees a definite matrix


def check_amg(solver):
    """Refuse ``solver='amg'`` before any work when pyamg is missing (scikit-learn's
    sentence kept: code matches it)."""
    if solver != "amg":
        return
    try:
        import pyamg  # noqa: F401
    except ImportError:
        raise ValueError(
            "The eigen_solver was set to 'amg', but pyamg is not available. pip install 'lowdim[amg]', or use "
            "eigen_solver='lobpcg' (the same iteration without the multigrid preconditioner)."
        ) from None


def _amg_bottom(M, k, rng, tol):
    """Bottom ``k`` eigenpairs of the normalised Laplacian ``I - M`` by LOBPCG with
    pyamg's smoothed-aggregation preconditioner (for large sparse graphs), or None when
    it has not converged."""
    import warnings

    from pyamg import smoothed_aggregation_solver

    n = M.shape[0]
    L = (sp.identity(n, format="csr") * (1.0 + AMG_SHIFT) - sp.csr_matrix(M)).tocsr()
    preconditioner = smoothed_aggregation_solver(L).aspreconditioner()
    X0 = rng.uniform(-1, 1, size=(n, k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is detected from the residuals below
        w, U = spla.lobpcg(L, X0, M=preconditioner, largest=False, tol=max(tol, 1e-10), maxiter=2000)
    order = np.argsort(w)
    w, U = w[order], U[:, order]
    residual = np.linalg.norm(L @ U - U * w, axis=0)
    if not np.all(residual <= 1e-5 * max(1.0, float(np.abs(w).max()))):
        return None
    return np.maximum(w - AMG_SHIFT, 0.0), U


def _lobpcg_top(M, k, rng, tol):
    """Top ``k`` eigenpairs of ``M`` by LOBPCG as ``(1 - w, U)``, or None when it has not
    converged (the caller then falls back to Lanczos)."""
    import warnings

    X0 = rng.uniform(-1, 1, size=(M.shape[0], k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is detected from the residuals below
        w, U = spla.lobpcg(M, X0, largest=True, tol=max(tol, 1e-10), maxiter=2000)
    order = np.argsort(w)[::-1]
    w, U = w[order], U[:, order]
    residual = np.linalg.norm(M @ U - U * w, axis=0)
    if not np.all(residual <= 1e-5 * max(1.0, float(np.abs(w).max()))):
        return None
    return 1.0 - w, U


# the block solvers: (1 - eigenvalue, vectors) of the k largest of M, or None if not converged
ITERATIVE = {"lobpcg": _lobpcg_top, "amg": _amg_bottom}


def _counted(M, on_product, most):
    """``M``, or an operator that calls ``on_product(done, most)`` after each product."""
    if on_product is None:
        return M
    done = [0]

    def product(v):
        out = M @ v
        done[0] += 1
        on_product(done[0], most)
        return out

    return LinearOperator(M.shape, matvec=product, matmat=product, dtype=M.dtype)


def _sparse_bottom(M, k, rng, tol=0.0, bounded=False, on_product=None):
    """Bottom ``k`` eigenpairs of ``I - M``: plain Lanczos on ``M`` within a budget of
    LANCZOS_PRODUCTS products, then shift-invert on a sparse LU of ``I - M`` (up to
    LU_BELOW points; beyond, Lanczos without the budget). Neither wins everywhere
    (BENCHMARKS.md, Design choices: spectral): the LU fills in on graphs of high intrinsic dimension, while a
    low-dimensional manifold (a Swiss roll) factorises quickly but needs many products."""
    n = M.shape[0]
    ncv = min(n, max(2 * k + 1, 20))
    budget = max(1, LANCZOS_PRODUCTS // (ncv - k))
    # ARPACK's first pass builds ncv vectors, each restart ncv - k more
    counted = _counted(M, on_product, ncv + budget * (ncv - k) if bounded and n > LU_BELOW else None)
    try:
        return _top_as_bottom(counted, k, rng, ncv, tol, budget)
    except spla.ArpackNoConvergence:
        if n > LU_BELOW:
            if bounded:
                raise
            return _top_as_bottom(counted, k, rng, min(n, 2 * ncv), tol, None)
        return smallest_eigh(sp.identity(n, format="csr") - M, k, rng=rng, solver="arpack", tol=tol, max_iter=None)


def _top_as_bottom(M, k, rng, ncv, tol, max_restarts):
    """Lanczos for the top ``k`` eigenpairs of ``M``, returned as ``(1 - w, U)``."""
    w, U = spla.eigsh(M, k=k, which="LA", v0=rng.uniform(-1, 1, M.shape[0]), ncv=ncv, tol=tol, maxiter=max_restarts)
    order = np.argsort(w)[::-1]
    return 1.0 - w[order], U[:, order]


class SpectralEmbedding(GowerTableMixin, EmbeddingMixin, ValidatedInputMixin, BaseEstimator):
    """Laplacian eigenmaps, a drop-in for ``sklearn.manifold.SpectralEmbedding``.

    Sparse input (scipy.sparse) is used without densifying it: neighbours and rbf
    affinities from sparse products.

    Parameters
    ----------
    n_components : int, default=2
    affinity : {'nearest_neighbors', 'rbf', 'precomputed', 'precomputed_nearest_neighbors'} or callable
        'precomputed': X is the affinity matrix; 'precomputed_nearest_neighbors': X
        holds distances (dense, or sparse with each row's candidate neighbours
        stored) from which each point's ``n_neighbors`` nearest are connected; a
        callable is called as ``affinity(X)`` and returns the affinity matrix.
    gamma : float, optional
        rbf width (default ``1 / n_features``).
    random_state : None, int or Generator
        Start vector of the sparse eigensolver.
    eigen_solver : {'auto', 'arpack', 'lobpcg', 'amg', 'dense'}, default='auto'
        'arpack' is Lanczos on the normalised sparse affinity, then (if it has not
        converged within 600 products) shift-invert Lanczos on a sparse LU of the
        Laplacian; on a dense affinity, shift-invert Lanczos on LAPACK's LU of the
        Laplacian. 'lobpcg': scipy's LOBPCG on the normalised affinity (dense LAPACK
        for small problems, Lanczos if it does not converge). 'amg': LOBPCG on the Laplacian preconditioned by pyamg's
        smoothed-aggregation multigrid (the ``amg`` extra; for large sparse graphs).
        'auto' is dense LAPACK below 1000 samples.
    n_neighbors : int, optional
        Default ``max(n_samples // 10, 1)``, scikit-learn's, which grows with the rows:
        above 10^8 neighbour pairs (about 31,600 rows) a warning says so.
    metric : str, default='euclidean'
        Distance of the 'nearest_neighbors' affinity: any metric of
        ``lowdim.neighbors.make_index`` ('euclidean', 'cosine', 'manhattan', ...), or
        'gower' for a mixed table (category codes, NaN gaps: ``lowdim.mixed_codes``).
    metric_params : dict, optional
        Keyword arguments of the metric ('categorical', 'ordinal', 'weights' for 'gower').
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        kNN index: 'auto' is approximate (HNSW) from 20,000 points on when faiss is
        installed (``lowdim[ann]``), exact blocked BLAS otherwise.
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    eigen_tol : 'auto' or float >= 0, default='auto'
        Relative residual at which the sparse eigensolver stops (0: machine precision).
        'auto' is 1e-10: eigenvalues then agree with the exact ones to about 1e-20 and
        eigenvectors to 1e-10 over the gap to the next eigenvalue, for a third less
        time than 0 (scikit-learn's 'auto' is 0 with ARPACK).
    n_jobs : int, optional
        Accepted for compatibility; the neighbour search uses lowdim's thread pools.
    precomputed_knn : NeighborGraph or tuple, optional
        With ``affinity='nearest_neighbors'``: each point's nearest neighbours, found
        once for many fits (a Euclidean ``lowdim.neighbors.NeighborGraph``, or
        umap-learn's ``(indices, distances)``, the point itself first); its first
        ``n_neighbors - 1`` columns join each point, and the search is skipped.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    affinity_matrix_ : sparse or dense (n_samples, n_samples)
        In X's dtype (float32 stays float32).
    n_neighbors_ : int
        Neighbours per point of the kNN affinities (resolved from ``n_neighbors``).
    eigenvalues_ : ndarray (n_components,)
        Of the normalised Laplacian, increasing.
    n_features_in_ : int
        Number of features seen in ``fit``.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import SpectralEmbedding
    >>> X = np.random.default_rng(0).normal(size=(100, 5))
    >>> SpectralEmbedding(n_components=2, random_state=0).fit_transform(X).shape
    (100, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "affinity": [Options({"nearest_neighbors", "rbf", "precomputed", "precomputed_nearest_neighbors"}), CALLABLE],
        "gamma": [NONE, Interval(float, 0, None, closed="neither")],
        "random_state": [RANDOM_STATE],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "amg", "dense"})],
        "n_neighbors": [NONE, Interval(int, 1, None, closed="left")],
        "metric": [Options(set(INDEX_METRICS) - {"precomputed"})],
        "metric_params": [NONE, InstanceOf(dict)],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "eigen_tol": [Options({"auto"}), Interval(float, 0, None, closed="left")],
        "n_jobs": [NONE, Interval(int, None, None)],
        "precomputed_knn": PRECOMPUTED_KNN,
    }

    def __init__(
        self,
        n_components=2,
        *,
        affinity="nearest_neighbors",
        gamma=None,
        random_state=None,
        eigen_solver="auto",
        eigen_tol="auto",
        n_neighbors=None,
        n_jobs=None,
        neighbors_algorithm="auto",
        precomputed_knn=None,
        metric="euclidean",
        metric_params=None,
    ):
        self.n_components = n_components
        self.affinity = affinity
        self.gamma = gamma
        self.random_state = random_state
        self.eigen_solver = eigen_solver
        self.n_neighbors = n_neighbors
        self.neighbors_algorithm = neighbors_algorithm
        self.precomputed_knn = precomputed_knn
        self.eigen_tol = eigen_tol
        self.n_jobs = n_jobs
        self.metric = metric
        self.metric_params = metric_params

    def _resolved_n_neighbors(self, n):
        """``n_neighbors``, or its default for ``n`` rows, kept as ``n_neighbors_``."""
        self.n_neighbors_ = self.n_neighbors if self.n_neighbors is not None else default_n_neighbors(n)
        return self.n_neighbors_

    def _affinity(self, X):
        n = X.shape[0]
        if callable(self.affinity):
            A = self.affinity(X)
            if A.shape != (n, n):
                raise ValueError(f"the affinity callable returned shape {A.shape}; expected ({n}, {n}).")
            return A
        if self.metric != "euclidean" and self.affinity != "nearest_neighbors":
            raise ValueError(
                f"metric={self.metric!r} is the distance of affinity='nearest_neighbors'; got "
                f"affinity={self.affinity!r}: leave metric='euclidean' or use the nearest-neighbour affinity."
            )
        if knn_given(self.precomputed_knn) and self.affinity != "nearest_neighbors":
            raise ValueError(
                f"precomputed_knn gives the neighbours of affinity='nearest_neighbors'; got affinity={self.affinity!r}."
            )
        if self.affinity.startswith("precomputed"):
            if self.affinity == "precomputed":
                if X.shape[0] != X.shape[1]:
                    raise ValueError(f"affinity='precomputed' needs a square matrix; X has shape {X.shape}.")
                return X.copy()
            check_precomputed(X, parameter="affinity='precomputed_nearest_neighbors'")
            k = self._resolved_n_neighbors(n)
            check_n_neighbors(k, n)
            return knn_affinity(X, k, precomputed=True).astype(X.dtype)
        if self.metric != "gower":
            warn_constant_features(column_moments(X)[1], "SpectralEmbedding", "every sample is the same point", X=X)
        if self.affinity == "rbf":
            require_memory(8 * n * n, f"rbf affinity on {n} samples (n x n)", "use affinity='nearest_neighbors'")
            gamma = self.gamma if self.gamma is not None else 1.0 / X.shape[1]
            if sp.issparse(X):
                sq = make_index("exact", "sqeuclidean", n, sparse=True).build(X).pairwise(X)
            else:
                X64 = np.asarray(X, dtype=np.float64)
                Xc = X64 - X64.mean(axis=0)
                sq = sq_euclidean(Xc, Xc)
            return np.exp(-gamma * sq).astype(X.dtype)
        k = self._resolved_n_neighbors(n)
        check_n_neighbors(k, n)
        # float32 rows stay float32: the exact index certifies its float32 search
        # each point counts itself among its k: a given graph's first k - 1 columns
        given = (
            None
            if k == 1
            else given_neighbors(
                X,
                k - 1,
                precomputed_knn=self.precomputed_knn,
                metric=self.metric,
                name="SpectralEmbedding",
                algorithm=self.neighbors_algorithm,
            )
        )
        A = knn_affinity(X, k, self.neighbors_algorithm, False, given, self.metric, self._distance_params())
        return A.astype(X.dtype)

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
        check_amg(self.eigen_solver)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        n = X.shape[0]
        check_sample_count(n, "SpectralEmbedding")
        check_nontrivial_components(self.n_components, n)
        self.affinity_matrix_ = self._affinity(X)
        A = self.affinity_matrix_
        A = A.astype(np.float64) if sp.issparse(A) else np.asarray(A, dtype=np.float64)
        if callable(self.affinity) or self.affinity == "precomputed":
            A = _symmetric(check_affinities(A, "SpectralEmbedding"))
        Y, self.eigenvalues_ = laplacian_eigenmap(
            A, self.n_components, check_random_state(self.random_state), self.eigen_solver, self.eigen_tol
        )
        self.embedding_ = Y.astype(X.dtype)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.affinity in ("precomputed", "precomputed_nearest_neighbors")
        return tags
