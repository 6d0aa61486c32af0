"""``TruncatedSVD``: the top singular triplets of the data as given (no centring), for
sparse term counts and other data whose zeros must stay zeros (latent semantic analysis).

The solvers are PCA's: randomized subspace iteration (``linalg.randomized_svd``, fused
passes over row blocks, sparse products on lowdim's threads) or ARPACK's Lanczos on the
Gram operator ``X^T X``, both on a ``CenteredData`` operator with a zero mean, so sparse
input is never densified.
"""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer
from .._params import RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._threads import blas_limit
from .._validation import check_n_components, warn_constant_features
from ..linalg import CenteredData, column_moments, flip_signs, randomized_svd
from ._n_components import explained_shares


class TruncatedSVD(ComponentTransformer):
    """Truncated singular value decomposition of uncentred data (LSA).

    Unlike PCA, the data are not centred, so sparse matrices (term counts, tf-idf) are
    decomposed without being densified. The result is scikit-learn's ``TruncatedSVD``
    with its parameter and attribute names.

    Parameters
    ----------
    n_components : int, default=2
        Number of singular triplets; below ``n_features``.
    algorithm : {'randomized', 'arpack'}, default='randomized'
        'randomized': subspace iteration with ``n_iter`` power iterations (Halko et al.);
        'arpack': Lanczos to tolerance ``tol`` (0 = machine precision).
    n_iter : int, default=5
        Power iterations of the randomized solver.
    n_oversamples : int, default=10
        Extra basis vectors of the randomized solver.
    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}, default='auto'
        Kept for compatibility: lowdim re-orthonormalises by QR after every product.
    random_state : None, int or Generator
        Seeds the start vectors.
    tol : float, default=0.0
        Tolerance of the 'arpack' solver.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Right singular vectors, the largest entry of each positive.
    singular_values_ : ndarray of shape (n_components,)
        Norms of the columns of ``transform(X)``, descending.
    explained_variance_ : ndarray of shape (n_components,)
        Variance (ddof=0) of each column of ``transform(X)``.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the total variance of X.
    n_components_ : int
    n_iter_ : int
        Products with X (or X^T) the solver made.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from lowdim.decomposition import TruncatedSVD
    >>> X = sp.random(200, 50, density=0.1, random_state=0, format="csr")
    >>> TruncatedSVD(n_components=3, random_state=0).fit_transform(X).shape
    (200, 3)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "algorithm": [Options({"randomized", "arpack"})],
        "n_iter": [Interval(int, 0, None, closed="left")],
        "n_oversamples": [Interval(int, 1, None, closed="left")],
        "power_iteration_normalizer": [Options({"auto", "QR", "LU", "none"})],
        "random_state": [RANDOM_STATE],
        "tol": [Interval(float, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=2,
        *,
        algorithm="randomized",
        n_iter=5,
        n_oversamples=10,
        power_iteration_normalizer="auto",
        random_state=None,
        tol=0.0,
    ):
        self.n_components = n_components
        self.algorithm = algorithm
        self.n_iter = n_iter
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state
        self.tol = tol

    def fit(self, X, y=None):
        """Fit the decomposition on ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return its coordinates ``X @ components_.T``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True, min_features=2)
        k = self._check_rank(X.shape)
        op = CenteredData(X, np.zeros(X.shape[1]))
        rng = check_random_state(self.random_state)
        # sparse products run on lowdim's threads: idle BLAS threads would spin on their cores
        with blas_limit(1 if sp.issparse(X) else None):
            if self.algorithm == "randomized":
                Vt = randomized_svd(op, k, n_oversamples=self.n_oversamples, n_iter=self.n_iter, rng=rng)[1]
            else:
                Vt = op.top_components(k, rng=rng, tol=self.tol)[1].T.astype(X.dtype)
        self.n_iter_ = op.n_products
        Vt = flip_signs(Vt)[0]
        Z = op.matmat(Vt.T)
        # the triplets in the order of the norms they reach (the solvers' estimates of
        # the singular values can differ from them in the last digits)
        norms = np.sqrt(np.einsum("ij,ij->j", Z, Z, dtype=np.float64))
        order = np.argsort(-norms, kind="stable")
        self.components_, Z = Vt[order], Z[:, order]
        self.singular_values_ = norms[order]
        self.n_components_ = k
        self._set_variances(X, Z)
        return Z

    def _check_rank(self, shape):
        n, d = shape
        check_n_components(self.n_components, n, d, "TruncatedSVD")
        if self.algorithm == "arpack" and self.n_components >= d:
            raise ValueError(
                f"n_components={self.n_components} must be below n_features={d} for TruncatedSVD(algorithm="
                "'arpack') (Lanczos finds fewer eigenpairs than the dimension); lower n_components or use "
                "algorithm='randomized'."
            )
        return self.n_components

    def _set_variances(self, X, Z):
        n, variances = X.shape[0], column_moments(X)[1]
        warn_constant_features(variances, "TruncatedSVD", "the components hold the rows' common value", X=X)
        total = variances.sum() * (n - 1) / n
        self.explained_variance_ = column_moments(Z)[1] * (n - 1) / n
        self.explained_variance_ratio_ = explained_shares(self.explained_variance_, total)

    def transform(self, X):
        """Coordinates of new rows: ``X @ components_.T``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False, accept_sparse=True)
        Z = X @ self.components_.T.astype(X.dtype, copy=False)
        return np.asarray(Z)

    def inverse_transform(self, X):
        """Rows back in the feature space: ``X @ components_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        Z = self._validate_codes(X)
        return Z @ self.components_.astype(Z.dtype, copy=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
