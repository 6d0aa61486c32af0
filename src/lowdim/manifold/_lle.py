"""Locally linear embedding and its relatives: standard LLE (Roweis & Saul, 2000),
Hessian eigenmaps, modified LLE and LTSA, over one neighbour search and one sparse
bottom-eigenvector solve."""

import numpy as np

from .._estimator import ComponentTransformer, EmbeddingMixin
from .._params import NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import warn_constant_features
from .._warnings import warn_user
from ..decomposition import principal_scores
from ..linalg import ShiftInverse, column_moments, flip_signs, nearest_null_vectors, smallest_eigh, unique_rows
from ..neighbors import (
    ALGORITHMS,
    PRECOMPUTED_KNN,
    ExactIndex,
    KNNIndex,
    check_n_neighbors,
    find_neighbors,
    knn_given,
    warn_duplicates,
)
from ._local_fits import BLOCK_BUILDERS, assemble, barycenter_weights
from ._spectral import check_nontrivial_components


def _min_neighbors(method, d):
    """The fewest neighbours each method can fit with ``d`` output dimensions."""
    return {"standard": 1, "hessian": d * (d + 3) // 2 + 1, "modified": d + 1, "ltsa": d + 1}[method]


NULL_RELATIVE = 1e-9  # an eigenvalue this small against M's largest diagonal entry is zero


def null_beyond_kept(w, M):
    """Whether the eigenvalue after the ones kept (``w[-1]``) is zero to rounding too:
    then the null space has more dimensions than the embedding, and its eigenvectors are
    an arbitrary basis that any perturbation of the data or the arithmetic can turn.

    Examples
    --------
    >>> null_beyond_kept(np.array([0.0, 1e-17, 2e-17]), np.eye(3))
    True
    >>> null_beyond_kept(np.array([0.0, 1e-17, 2e-3]), np.eye(3))
    False
    """
    return bool(w[-1] <= NULL_RELATIVE * float(np.max(np.abs(M.diagonal()))))


def nearest_principal_minimizers(M, X, V, d, rng, inverse=None):
    """The embedding used when the null space of ``M`` is larger than ``d + 1``: of all
    exact minimisers, the ones closest to the data's first ``d`` principal-component
    scores (:func:`~lowdim.linalg.nearest_null_vectors`), centred and orthonormalised by
    their own principal axes. Where the null space is exactly the constant plus ``d``
    directions, this spans the same space as the eigenvectors; where it is larger, it
    replaces an arbitrary basis by a reproducible choice that follows the data.

    Parameters
    ----------
    M : sparse (n, n)
        Positive semi-definite quadratic form.
    X : ndarray (n, n_features)
    V : ndarray (n, m)
        Null vectors of ``M`` from the eigensolver, ``m >= d + 1``. Should the scores
        have fewer than ``d`` directions in the null space (beyond the constant), the
        embedding is completed from these.
    d : int
    rng : numpy.random.Generator
    inverse : ShiftInverse, optional
        Of ``M``, to reuse the eigensolver's factorisation.

    Returns
    -------
    eigenvalues : ndarray (d,)
        Rayleigh quotients of the columns (zero to rounding).
    embedding : ndarray (n, d)
        Orthonormal columns, orthogonal to the constant vector.

    Examples
    --------
    Three separate pairs of points: the null space of their graph Laplacian holds every
    function constant on each pair, and the choice closest to the positions is their
    pair means:

    >>> import numpy as np, scipy.sparse as sp
    >>> M = sp.block_diag([np.array([[1.0, -1.0], [-1.0, 1.0]])] * 3).tocsr()
    >>> X = np.arange(6.0)[:, None]
    >>> V = np.linalg.eigh(M.toarray())[1][:, :3]
    >>> w, Y = nearest_principal_minimizers(M, X, V, 1, np.random.default_rng(0))
    >>> np.round(np.abs(Y.ravel()), 6), bool(abs(w[0]) < 1e-9)
    (array([0.5, 0.5, 0. , 0. , 0.5, 0.5]), True)
    """
    U = _centered_orthonormal(nearest_null_vectors(M, principal_scores(X, d, rng), inverse))
    if U.shape[1] < d:  # complete from the null vectors, without U's directions
        rest = _centered_orthonormal(V - U @ (U.T @ V))
        U = np.c_[U, rest[:, : d - U.shape[1]]]
    return np.einsum("ij,ij->j", U, M @ U), U


def bottom_without_constant(M, V, d):
    """The ``d`` bottom eigenpairs of ``M`` beyond the constant vector, from ``V``, its
    ``d + 1`` bottom eigenvectors: the constant taken out of their span and the rest
    re-solved there (Rayleigh-Ritz). Where the bottom eigenvalues are distinct this is
    ``V[:, 1:]``; where they tie at zero with the constant's (a null space of exactly
    ``d + 1`` dimensions), the eigensolver's vectors are any basis of it, the constant
    mixed into every one, and dropping the first lost part of the embedding.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> M = sp.csr_matrix(np.diag([0.0, 0.0, 1.0]))  # null space: the first two axes
    >>> V = np.eye(3)[:, :2]  # a basis of it in which the constant (1, 1, 1) is mixed
    >>> w, U = bottom_without_constant(M, V, 1)
    >>> np.round(np.abs(U.ravel()) * np.sqrt(2), 6).tolist(), bool(abs(w[0]) < 1e-12)
    ([1.0, 1.0, 0.0], True)
    """
    B = V - V.mean(axis=0)  # the constant's component removed from every column
    Q, s, _ = np.linalg.svd(B, full_matrices=False)
    Q = Q[:, :d]  # the span minus the constant: d directions
    w, R = np.linalg.eigh(Q.T @ (M @ Q))
    return w, Q @ R


def _centered_orthonormal(Y, rtol=1e-8):
    """Orthonormal basis of the centred columns' span, by their principal axes
    (directions with singular values below ``rtol`` of the largest are left out)."""
    U, s, _ = np.linalg.svd(Y - Y.mean(axis=0), full_matrices=False)
    return U[:, : int(np.sum(s > rtol * s[0])) if s.size and s[0] > 0 else 0]


def warn_null_beyond_kept(w, M, method):
    """Say that the embedding is a tie-break among equally exact minimisers, and why."""
    scale = float(np.max(np.abs(M.diagonal())))
    warn_user(
        f"LocallyLinearEmbedding(method={method!r}): {len(w)} or more eigenvalues of the "
        f"alignment matrix are zero to rounding ({len(w)}th: {w[-1] / scale:.1e} of its "
        f"largest diagonal entry), more than the {len(w) - 1} the embedding uses, so the "
        "method alone does not determine the embedding; lowdim returns the exact minimisers "
        "closest to the data's leading principal components. The local fits leave more "
        "directions free than the embedding has, as they do when the data are far from a "
        f"manifold of {len(w) - 2} dimensions; more neighbours, method='modified' or "
        "'standard' are less prone to it.",
        UserWarning,
    )


class LocallyLinearEmbedding(EmbeddingMixin, ComponentTransformer):
    """Locally linear embedding, a drop-in for ``sklearn.manifold.LocallyLinearEmbedding``.

    Every point is fitted from its neighbours; the fits of all neighbourhoods add up to a
    sparse quadratic form whose bottom eigenvectors (after the constant one) are the
    embedding. Methods:

    - 'standard': regularised barycentric weights summing to one;
    - 'hessian': Hessian eigenmaps (Donoho & Grimes), which keep holes and
      non-convex parameter domains; needs ``n_neighbors > n_components (n_components + 3) / 2``;
    - 'modified': several weight vectors per neighbourhood (Zhang & Wang), stable for
      larger ``n_neighbors``;
    - 'ltsa': local tangent space alignment (Zhang & Zha).

    Parameters
    ----------
    n_neighbors : int, default=5
    n_components : int, default=2
    reg : float, default=1e-3
        Regularisation of the local Gram matrices, relative to their trace.
    eigen_solver : {'auto', 'arpack', 'dense'}, default='auto'
        'arpack' is shift-invert Lanczos on the sparse form; 'auto' picks it from 200
        samples on (and fewer than 10 eigenvectors), dense LAPACK otherwise.
    tol : float, default=1e-6
        ARPACK accuracy.
    max_iter : int, default=100
        ARPACK restarts.
    method : {'standard', 'hessian', 'modified', 'ltsa'}, default='standard'
    hessian_tol : float, default=1e-4
        'hessian': a quadratic column of a neighbourhood's local basis whose new
        direction is below this fraction of the largest counts as dependent and is
        left out of that neighbourhood's Hessian estimator. (scikit-learn uses the same
        number to guard a normalisation its Gram-Schmidt needs; lowdim's QR needs none.)
    modified_tol : float, default=1e-12
        Floor of the local eigenvalues in 'modified', relative to the largest.
    random_state : None, int or Generator
        ARPACK start vector.
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        kNN index: 'auto' is approximate (HNSW) from 20,000 points on when faiss is
        installed (``lowdim[ann]``), exact blocked BLAS otherwise.
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    n_jobs : int, optional
        Accepted for compatibility; lowdim's neighbour search uses its own thread pool.
    precomputed_knn : NeighborGraph or tuple, optional
        Each point's nearest neighbours, found once for many fits (a Euclidean
        ``lowdim.neighbors.NeighborGraph``, or umap-learn's ``(indices, distances)``,
        the point itself first); the local fits use its first ``n_neighbors`` and the
        search of ``fit`` is skipped.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    reconstruction_error_ : float
        Sum of the kept eigenvalues of the quadratic form.
    eigenvalues_ : ndarray (n_components,)
    n_features_in_ : int
        Number of features seen in ``fit``.
    X_fit_ : ndarray (n_samples, n_features)
        The training data, kept for ``transform``.
    n_components_ : int
        Dimension of the embedding.

    Notes
    -----
    When the quadratic form has more null directions than ``n_components + 1`` (Hessian
    eigenmaps and LTSA on data far from a manifold of ``n_components`` dimensions, where
    points in few neighbourhoods are left free), every basis of the null space is an exact
    minimiser and its eigenvectors are an arbitrary one. lowdim then returns the exact
    minimisers closest to the data's first ``n_components`` principal-component scores,
    orthonormalised, and warns. This choice is reproducible and permutation-equivariant;
    scikit-learn returns whatever basis LAPACK or ARPACK produce.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import LocallyLinearEmbedding
    >>> t = np.linspace(0, 3, 300)
    >>> X = np.c_[np.cos(t), np.sin(t), np.random.default_rng(0).uniform(0, 1, 300)]
    >>> LocallyLinearEmbedding(n_neighbors=10, random_state=0).fit_transform(X).shape
    (300, 2)
    """

    _parameter_constraints = {
        "n_neighbors": [Interval(int, 1, None, closed="left")],
        "n_components": [Interval(int, 1, None, closed="left")],
        "reg": [Interval(float, 0, None, closed="left")],
        "eigen_solver": [Options({"auto", "arpack", "dense"})],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "method": [Options(set(BLOCK_BUILDERS))],
        "modified_tol": [Interval(float, 0, None, closed="left")],
        "hessian_tol": [Interval(float, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "neighbors_algorithm": [Options(set(ALGORITHMS)), InstanceOf(KNNIndex)],
        "n_jobs": [NONE, Interval(int, None, None)],
        "precomputed_knn": PRECOMPUTED_KNN,
    }
    fit_transform = EmbeddingMixin.fit_transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        *,
        n_neighbors=5,
        n_components=2,
        reg=1e-3,
        eigen_solver="auto",
        tol=1e-6,
        max_iter=100,
        method="standard",
        hessian_tol=1e-4,
        modified_tol=1e-12,
        neighbors_algorithm="auto",
        random_state=None,
        n_jobs=None,
        precomputed_knn=None,
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.reg = reg
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.method = method
        self.modified_tol = modified_tol
        self.hessian_tol = hessian_tol
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.neighbors_algorithm = neighbors_algorithm
        self.precomputed_knn = precomputed_knn

    def _check_sizes(self, n):
        check_n_neighbors(self.n_neighbors, n)
        need = _min_neighbors(self.method, self.n_components)
        if self.n_neighbors < need:
            raise ValueError(
                f"method={self.method!r} with n_components={self.n_components} needs "
                f"n_neighbors >= {need}; got n_neighbors={self.n_neighbors}. Raise n_neighbors "
                "or lower n_components."
            )
        check_nontrivial_components(self.n_components, n)

    def _neighbours(self, X):
        """``(rows to fit, their neighbours' distances and indices, the distinct row each
        row is)``. Copies of a row make a neighbourhood of one point, whose local fit is
        undetermined (LTSA and Hessian eigenmaps spread such copies over the map): when
        the search finds a row at distance 0, the embedding is fitted on the distinct
        rows (searched again) and each copy takes its row's coordinates. The rows as
        they are (and None) without copies, or with given neighbours, which name the
        rows as given."""
        search = {"algorithm": self.neighbors_algorithm, "name": "LocallyLinearEmbedding"}
        dist, idx, _ = find_neighbors(X, self.n_neighbors, precomputed_knn=self.precomputed_knn, **search)
        if knn_given(self.precomputed_knn) or np.min(dist[:, 0]) > 0:
            warn_duplicates(dist, self._shown_name)  # given neighbours: the copies stay
            return X, dist, idx, None
        distinct, copy_of = self._distinct_rows(X)
        if copy_of is None:  # rows the search puts at distance 0 that differ in the last bits
            warn_duplicates(dist, self._shown_name)
            return X, dist, idx, None
        dist, idx, _ = find_neighbors(distinct, self.n_neighbors, **search)
        return distinct, dist, idx, copy_of

    def _distinct_rows(self, X):
        """``(distinct rows, the distinct row each row is)`` with a warning that counts the
        copies (``(X, None)`` when there are none). Too few distinct rows for
        ``n_neighbors`` are refused: every neighbourhood would hold copies, which LLE
        and its kin spread over the map."""
        distinct, _, inverse = unique_rows(X, in_order=True)
        m = distinct.shape[0]
        if m == X.shape[0]:
            return X, None
        if m == 1:
            raise ValueError(f"{self._shown_name}: every row of X is identical; there is no geometry to embed.")
        if m <= max(self.n_neighbors, self.n_components + 1):
            raise ValueError(
                f"{self._shown_name}: X has {m} distinct rows (the other {X.shape[0] - m} are copies of them), too few "
                f"for n_neighbors={self.n_neighbors} and n_components={self.n_components}: a neighbourhood of copies "
                f"has no local geometry. Give more than {max(self.n_neighbors, self.n_components + 1)} distinct rows, "
                "or lower n_neighbors (and n_components) below their number."
            )
        n_copied = int(np.count_nonzero(np.bincount(inverse)[inverse] > 1))
        warn_user(
            f"{self._shown_name}: {n_copied} samples have a duplicate (another row at distance 0); they get the "
            f"same coordinates (the embedding is fitted on the {m} distinct rows).",
            UserWarning,
        )
        return distinct, inverse

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
        # an own copy: the model keeps the training rows (and indexes built on them) for transform
        X = np.array(self._validate_input(X, reset=True), copy=True)
        n, d = X.shape[0], self.n_components
        self._check_sizes(n)
        warn_constant_features(column_moments(X)[1], "LocallyLinearEmbedding", "every sample is the same point", X=X)
        X64, dist, idx, copy_of = self._neighbours(np.ascontiguousarray(X, dtype=np.float64))
        idx = idx.astype(np.int64)  # one type for the local fits, whichever way the neighbours came
        tol = self.hessian_tol if self.method == "hessian" else self.modified_tol
        groups, blocks = BLOCK_BUILDERS[self.method](X64, idx, d, self.reg, tol)
        M = assemble(groups, blocks, X64.shape[0])
        rng = check_random_state(self.random_state)
        extra = 1 if X64.shape[0] > d + 2 else 0  # one more eigenpair tells whether the choice is determined
        inverse = ShiftInverse(M)  # factorised at most once, for both solves
        w, V = smallest_eigh(
            M, d + 1 + extra, rng=rng, solver=self.eigen_solver, tol=self.tol, max_iter=self.max_iter, inverse=inverse
        )
        if extra and null_beyond_kept(w, M):
            warn_null_beyond_kept(w, M, self.method)
            w, V = nearest_principal_minimizers(M, X64, V, d, rng, inverse)
        else:
            w, V = bottom_without_constant(M, V[:, : d + 1], d)
        (Vt,) = flip_signs(V.T if copy_of is None else V[copy_of].T)
        self.eigenvalues_ = w
        self.reconstruction_error_ = float(np.sum(w))
        self.embedding_ = Vt.T.astype(X.dtype)
        self.X_fit_ = X
        self.n_components_ = d
        return self

    def transform(self, X):
        """Embed new points: each is rebuilt from its ``n_neighbors`` nearest training
        points by regularised barycentric weights, and the same weights combine their
        embeddings (for every method).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False)
        X64 = np.ascontiguousarray(X, dtype=np.float64)
        ref = np.ascontiguousarray(self.X_fit_, dtype=np.float64)
        _, idx = ExactIndex().build(ref).query(X64, self.n_neighbors)
        W = barycenter_weights(X64, ref, idx, self.reg)
        return np.einsum("mk,mkc->mc", W, self.embedding_[idx].astype(np.float64)).astype(X.dtype)
