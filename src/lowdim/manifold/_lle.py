"""Locally linear embedding and its relatives: standard LLE (Roweis & Saul, 2000),
Hessian eigenmaps, modified LLE and LTSA, over one neighbour search and one sparse
bottom-eigenvector solve."""

import warnings

import numpy as np

from .._params import RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import warn_constant_features
from ..decomposition._mixins import ComponentTransformer
from ..linalg import column_moments, flip_signs, smallest_eigh
from ..neighbors import ALGORITHMS, ExactIndex, check_n_neighbors, nearest_neighbors
from ._local_fits import BLOCK_BUILDERS, assemble, barycenter_weights
from ._spectral import check_nontrivial_components


def _min_neighbors(method, d):
    """The fewest neighbours each method can fit with ``d`` output dimensions."""
    return {"standard": 1, "hessian": d * (d + 3) // 2 + 1, "modified": d + 1, "ltsa": d + 1}[method]


NULL_RELATIVE = 1e-9  # an eigenvalue this small against M's largest diagonal entry is zero


def warn_degenerate_bottom(w, M, method):
    """Warn when the eigenvalue after the ones kept (``w[-1]``) is zero to rounding too:
    then the kept eigenvectors are one arbitrary basis of a larger null space, and the
    embedding can change with the smallest perturbation of the data or the arithmetic.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_degenerate_bottom(np.array([0.0, 1e-17, 2e-17]), np.eye(3), "hessian")
    >>> "arbitrary" in str(caught[0].message)
    True
    """
    scale = float(np.max(np.abs(M.diagonal())))
    if w[-1] <= NULL_RELATIVE * scale:
        warnings.warn(
            f"LocallyLinearEmbedding(method={method!r}): {len(w)} or more eigenvalues of the "
            f"alignment matrix are zero to rounding ({len(w)}th: {w[-1] / scale:.1e} of its "
            f"largest diagonal entry), more than the {len(w) - 1} the embedding uses: it is one "
            "arbitrary choice among equally good ones and may change with any perturbation. "
            "The local fits leave more directions free than the embedding has, as they do "
            "when the data are far from a manifold of n_components dimensions; "
            "method='modified' or 'standard' are less prone to it.", UserWarning, stacklevel=3)


class LocallyLinearEmbedding(ComponentTransformer):
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
    modified_tol : float, default=1e-12
        Floor of the local eigenvalues in 'modified', relative to the largest.
    random_state : None, int or Generator
        ARPACK start vector.
    neighbors_algorithm : {'auto', 'exact', 'approximate'}, default='auto'
        kNN index: 'auto' is approximate (HNSW) from 20,000 points on when faiss is
        installed (``lowdim[ann]``), exact blocked BLAS otherwise.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    reconstruction_error_ : float
        Sum of the kept eigenvalues of the quadratic form.
    eigenvalues_ : ndarray (n_components,)

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import LocallyLinearEmbedding
    >>> t = np.linspace(0, 3, 300)
    >>> X = np.c_[np.cos(t), np.sin(t), np.random.default_rng(0).uniform(0, 1, 300)]
    >>> LocallyLinearEmbedding(n_neighbors=10, random_state=0).fit_transform(X).shape
    (300, 2)
    """

    _components_limit = "samples"
    _parameter_constraints = {
        "n_neighbors": [Interval(int, 1, None, closed="left")],
        "n_components": [Interval(int, 1, None, closed="left")],
        "reg": [Interval(float, 0, None, closed="left")],
        "eigen_solver": [Options({"auto", "arpack", "dense"})],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "method": [Options(set(BLOCK_BUILDERS))],
        "modified_tol": [Interval(float, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "neighbors_algorithm": [Options(set(ALGORITHMS))],
    }

    def __init__(self, *, n_neighbors=5, n_components=2, reg=1e-3, eigen_solver="auto", tol=1e-6,
                 max_iter=100, method="standard", modified_tol=1e-12, random_state=None,
                 neighbors_algorithm="auto"):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.reg = reg
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.method = method
        self.modified_tol = modified_tol
        self.random_state = random_state
        self.neighbors_algorithm = neighbors_algorithm

    def _check_sizes(self, n):
        check_n_neighbors(self.n_neighbors, n)
        need = _min_neighbors(self.method, self.n_components)
        if self.n_neighbors < need:
            raise ValueError(f"method={self.method!r} with n_components={self.n_components} needs "
                             f"n_neighbors >= {need}; got n_neighbors={self.n_neighbors}. Raise n_neighbors "
                             "or lower n_components.")
        check_nontrivial_components(self.n_components, n)

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
        X = self._validate_input(X, reset=True)
        n, d = X.shape[0], self.n_components
        self._check_sizes(n)
        warn_constant_features(column_moments(X)[1], "LocallyLinearEmbedding", "every sample is the same point")
        X64 = np.ascontiguousarray(X, dtype=np.float64)
        _, idx = nearest_neighbors(X64, self.n_neighbors, algorithm=self.neighbors_algorithm)
        groups, blocks = BLOCK_BUILDERS[self.method](X64, idx, d, self.reg, self.modified_tol)
        M = assemble(groups, blocks, n)
        extra = 1 if n > d + 2 else 0  # one more eigenpair tells whether the choice is determined
        w, V = smallest_eigh(M, d + 1 + extra, rng=check_random_state(self.random_state), solver=self.eigen_solver,
                             tol=self.tol, max_iter=self.max_iter)
        if extra:
            warn_degenerate_bottom(w, M, self.method)
            w, V = w[:d + 1], V[:, :d + 1]
        (Vt,) = flip_signs(V[:, 1:].T)
        self.eigenvalues_ = w[1:]
        self.reconstruction_error_ = float(np.sum(w[1:]))
        self.embedding_ = Vt.T.astype(X.dtype)
        self.X_fit_ = X
        self.n_components_ = d
        return self

    def fit_transform(self, X, y=None):
        """Fit, then return ``embedding_``."""
        return self.fit(X).embedding_

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
