"""Random projections (Johnson-Lindenstrauss): a random matrix that keeps pairwise
distances within ``1 +- eps`` with high probability, whatever the data.

``GaussianRandomProjection`` draws its entries from N(0, 1/k); ``SparseRandomProjection``
(Achlioptas 2001; Li, Hastie & Church 2006) keeps a fraction ``density`` of them, each
``+-1 / sqrt(density k)``: each row's count of nonzeros is binomial, their columns a
sample without replacement; products with dense data run on lowdim's threads.
"""

import numpy as np
import scipy.sparse as sp

from .._estimator import ComponentTransformer
from .._params import BOOLEAN, RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._threads import worker_pool
from .._warnings import warn_user
from ..linalg import dense_times_sparse_t, matmul


def johnson_lindenstrauss_min_dim(n_samples, *, eps=0.1):
    """The number of components that keeps every pairwise distance of ``n_samples``
    points within a factor ``1 +- eps`` with high probability (Dasgupta & Gupta 2003):
    ``4 log(n) / (eps^2 / 2 - eps^3 / 3)``.

    Parameters
    ----------
    n_samples : int or array-like of int
    eps : float or array-like of float in (0, 1)

    Returns
    -------
    int or ndarray of int

    Examples
    --------
    >>> johnson_lindenstrauss_min_dim(1_000_000, eps=0.5)
    663
    """
    eps, n = np.asarray(eps, dtype=np.float64), np.asarray(n_samples)
    if np.any((eps <= 0.0) | (eps >= 1.0)):
        raise ValueError(f"eps must be in (0, 1) for the Johnson-Lindenstrauss bound; got eps={eps}.")
    if np.any(n <= 0):
        raise ValueError(f"n_samples must be positive; got n_samples={n_samples}.")
    k = (4.0 * np.log(n) / (eps**2 / 2.0 - eps**3 / 3.0)).astype(np.int64)
    return int(k) if k.ndim == 0 else k


class _RandomProjection(ComponentTransformer):
    """What both projections share: the target dimension, ``transform`` and the inverse."""

    def fit(self, X, y=None):
        """Draw the projection matrix for the shape of ``X`` (only its shape is used).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        n, d = X.shape
        self.n_components_ = self._target_dimension(n, d)
        rng = check_random_state(self.random_state)
        self.components_ = self._draw(self.n_components_, d, rng, X.dtype)
        if self.compute_inverse_components:
            self.inverse_components_ = self._inverse()
        return self

    def _target_dimension(self, n, d):
        if self.n_components != "auto":
            if self.n_components > d:
                warn_user(
                    f"n_components={self.n_components} is larger than n_features={d}: the projection adds "
                    "dimensions instead of removing them; lower n_components."
                )
            return int(self.n_components)
        k = johnson_lindenstrauss_min_dim(n, eps=self.eps)
        if k > d:
            raise ValueError(
                f"eps={self.eps} and n_samples={n} lead to a target dimension of {k}, which is larger than the "
                f"original space with n_features={d}; raise eps or pass n_components."
            )
        return max(k, 1)

    def _inverse(self):
        C = self.components_.toarray() if sp.issparse(self.components_) else self.components_
        return np.linalg.pinv(C.astype(np.float64)).astype(C.dtype)

    def _project(self, X):
        C = self.components_.astype(X.dtype, copy=False)
        if sp.issparse(C) and not sp.issparse(X):  # dense data: row blocks on lowdim's threads
            return dense_times_sparse_t(X, C)
        if sp.issparse(X) or sp.issparse(C):
            return X @ C.T
        return matmul(X, np.ascontiguousarray(C.T))

    def transform(self, X):
        """Project rows: ``X @ components_.T``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray or sparse matrix of shape (n_samples, n_components)
            Sparse only for sparse X with a sparse projection and ``dense_output=False``.
        """
        X = self._validate_input(X, reset=False, accept_sparse=True)
        Z = self._project(X)
        if sp.issparse(Z) and getattr(self, "dense_output", True):
            return Z.toarray()
        return Z

    def inverse_transform(self, X):
        """Rows back in the feature space through the pseudo-inverse of the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            The least-squares preimage of minimum norm.
        """
        Z = self._validate_codes(X.toarray() if sp.issparse(X) else X)
        inverse = self.inverse_components_ if self.compute_inverse_components else self._inverse()
        return Z @ inverse.T.astype(Z.dtype, copy=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


_CONSTRAINTS = {
    "n_components": [Options({"auto"}), Interval(int, 1, None, closed="left")],
    "eps": [Interval(float, 0, 1, closed="neither")],
    "compute_inverse_components": [BOOLEAN],
    "random_state": [RANDOM_STATE],
}


class GaussianRandomProjection(_RandomProjection):
    """Project onto ``n_components`` random Gaussian directions.

    Parameters
    ----------
    n_components : int or 'auto', default='auto'
        'auto': ``johnson_lindenstrauss_min_dim(n_samples, eps=eps)``.
    eps : float in (0, 1), default=0.1
        Distortion allowed by the 'auto' dimension.
    compute_inverse_components : bool, default=False
        Keep the pseudo-inverse for ``inverse_transform``.
    random_state : None, int or Generator

    Attributes
    ----------
    n_components_ : int
    components_ : ndarray of shape (n_components, n_features)
        Entries from ``N(0, 1 / n_components_)``, in the float type of the data.
    inverse_components_ : ndarray of shape (n_features, n_components)
        Only with ``compute_inverse_components``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.decomposition import GaussianRandomProjection
    >>> X = np.random.default_rng(0).normal(size=(50, 1000))
    >>> GaussianRandomProjection(n_components=20, random_state=0).fit_transform(X).shape
    (50, 20)
    """

    _parameter_constraints = _CONSTRAINTS

    def __init__(self, n_components="auto", *, eps=0.1, compute_inverse_components=False, random_state=None):
        self.n_components = n_components
        self.eps = eps
        self.compute_inverse_components = compute_inverse_components
        self.random_state = random_state

    @staticmethod
    def _draw(k, d, rng, dtype):
        # drawn in float64 whatever the data, so float32 and float64 fits share the matrix;
        # in a fixed number of row blocks, each from its own generator spawned from ``rng``
        # and scaled into the output in the data's type, on lowdim's threads: the same
        # matrix for a seed whatever the number of cores, and no float64 copy of it all
        out = np.empty((k, d), dtype=dtype)
        cuts = np.linspace(0, k, min(k, DRAW_BLOCKS) + 1).astype(int)
        streams = rng.spawn(len(cuts) - 1)

        def block(b):
            rows = out[cuts[b] : cuts[b + 1]]
            np.multiply(streams[b].standard_normal(rows.shape), 1.0 / np.sqrt(k), out=rows, casting="same_kind")

        list(worker_pool("random-projection").map(block, range(len(cuts) - 1)))
        return out


DRAW_BLOCKS = 16  # row blocks of the Gaussian matrix, each drawn from its own stream


def _sparse_density(density, d):
    return float(1.0 / np.sqrt(d) if density == "auto" else density)


class SparseRandomProjection(_RandomProjection):
    """Project with a sparse random matrix (Achlioptas; Li, Hastie & Church's very sparse
    projections): as faithful to distances as the Gaussian one, far cheaper to apply.

    Parameters
    ----------
    n_components : int or 'auto', default='auto'
    density : float in (0, 1] or 'auto', default='auto'
        Fraction of nonzero entries; 'auto' is ``1 / sqrt(n_features)``.
    eps : float in (0, 1), default=0.1
    dense_output : bool, default=False
        Return dense coordinates even for sparse input.
    compute_inverse_components : bool, default=False
    random_state : None, int or Generator

    Attributes
    ----------
    n_components_ : int
    components_ : scipy.sparse CSR matrix of shape (n_components, n_features)
        Entries 0 or ``+-1 / sqrt(density_ n_components_)``.
    density_ : float
    inverse_components_ : ndarray of shape (n_features, n_components)
        Only with ``compute_inverse_components``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.decomposition import SparseRandomProjection
    >>> X = np.random.default_rng(0).normal(size=(50, 1000))
    >>> p = SparseRandomProjection(n_components=20, random_state=0).fit(X)
    >>> p.transform(X).shape, round(p.density_, 4)
    ((50, 20), 0.0316)
    """

    _parameter_constraints = {
        **_CONSTRAINTS,
        "density": [Options({"auto"}), Interval(float, 0, 1, closed="right")],
        "dense_output": [BOOLEAN],
    }

    def __init__(
        self,
        n_components="auto",
        *,
        density="auto",
        eps=0.1,
        dense_output=False,
        compute_inverse_components=False,
        random_state=None,
    ):
        self.n_components = n_components
        self.density = density
        self.eps = eps
        self.dense_output = dense_output
        self.compute_inverse_components = compute_inverse_components
        self.random_state = random_state

    def _draw(self, k, d, rng, dtype):
        self.density_ = density = _sparse_density(self.density, d)
        value = 1.0 / np.sqrt(density * k)
        if density == 1.0:
            return sp.csr_matrix(np.where(rng.random((k, d)) < 0.5, -value, value).astype(dtype))
        counts = rng.binomial(d, density, size=k)
        indptr = np.concatenate(([0], np.cumsum(counts)))
        rows = [np.sort(rng.choice(d, size=int(c), replace=False, shuffle=False)) for c in counts]
        indices = np.concatenate(rows) if k else np.zeros(0, np.int64)
        data = np.where(rng.random(len(indices)) < 0.5, -value, value).astype(dtype)
        return sp.csr_matrix((data, indices, indptr), shape=(k, d))
