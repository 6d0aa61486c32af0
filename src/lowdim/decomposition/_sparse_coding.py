"""Sparse codes against a fixed dictionary: ``sparse_encode`` and ``SparseCoder``.

Every algorithm works from the dictionary's Gram matrix ``G = D D^T`` and the rows'
correlations ``C = X D^T`` (the kernels in ``_kernels/sparse_coding``), so a row costs
the same whatever its number of features once C is formed (one BLAS product).
"""

import numpy as np

from .._estimator import ComponentTransformer
from .._params import ARRAY_LIKE, BOOLEAN, NONE, Interval, Options, validate_params
from .._validation import check_array

ALGORITHMS = ("lasso_lars", "lasso_cd", "lars", "omp", "threshold")


def default_nonzero(n_features, n_components):
    """Atoms per row for 'lars' and 'omp' when not given: a tenth of the features (at
    least 1, at most the atoms), as scikit-learn."""
    return int(min(max(n_features / 10, 1), n_components))


def sparse_encode(
    X,
    dictionary,
    *,
    gram=None,
    cov=None,
    algorithm="lasso_lars",
    n_nonzero_coefs=None,
    alpha=None,
    copy_cov=True,
    init=None,
    max_iter=1000,
    n_jobs=None,
    check_input=True,
    verbose=0,
    positive=False,
):
    """Sparse codes ``c`` of each row ``x`` of X with ``x ~ c D``.

    'lasso_lars' and 'lasso_cd' minimise ``0.5 ||x - c D||^2 + alpha ||c||_1`` (by
    least-angle regression or coordinate descent; the same minimiser), 'lars' and 'omp'
    use ``n_nonzero_coefs`` atoms (least-angle regression, orthogonal matching pursuit),
    'threshold' soft-thresholds ``x D^T`` at ``alpha``. A drop-in for
    ``sklearn.decomposition.sparse_encode``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    dictionary : array-like of shape (n_components, n_features)
        The atoms as rows (unit norm for the usual meaning of ``alpha``).
    gram : array-like of shape (n_components, n_components), optional
        ``D D^T``, if already computed.
    cov : array-like of shape (n_components, n_samples), optional
        ``D X^T``, if already computed.
    algorithm : {'lasso_lars', 'lasso_cd', 'lars', 'omp', 'threshold'}
    n_nonzero_coefs : int, optional
        Atoms per row for 'lars' and 'omp' (default: a tenth of the features).
    alpha : float, optional
        The L1 penalty ('lasso_lars', 'lasso_cd') or the threshold ('threshold');
        default 1.
    copy_cov : bool
        Accepted for scikit-learn's signature: ``cov`` is never modified.
    init : array-like of shape (n_samples, n_components), optional
        A warm start for 'lasso_cd'.
    max_iter : int, default=1000
        Sweeps of 'lasso_cd'.
    n_jobs : None
        Accepted for scikit-learn's signature; the kernels use numba's threads.
    check_input : bool
    verbose : int
    positive : bool
        Non-negative codes ('lasso_lars', 'lasso_cd', 'threshold').

    Returns
    -------
    ndarray of shape (n_samples, n_components), float64

    Examples
    --------
    >>> import numpy as np
    >>> D = np.eye(3)
    >>> sparse_encode(np.array([[3.0, 0.5, -2.0]]), D, algorithm="lasso_cd", alpha=1.0).tolist()
    [[2.0, 0.0, -1.0]]
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r} is not one of {', '.join(ALGORITHMS)}.")
    check_positive_coding(algorithm, positive, "algorithm", "positive")
    X, D = _checked(X, dictionary, check_input)
    G = D @ D.T if gram is None else np.asarray(gram, dtype=np.float64)
    C = X @ D.T if cov is None else np.ascontiguousarray(np.asarray(cov, dtype=np.float64).T)
    alpha = 1.0 if alpha is None else float(alpha)
    nonzero = default_nonzero(X.shape[1], D.shape[0]) if n_nonzero_coefs is None else int(n_nonzero_coefs)
    return encode_from_products(G, C, algorithm, alpha, nonzero, positive, max_iter, init)


def check_positive_coding(algorithm, positive, algorithm_name="transform_algorithm", positive_name="positive_code"):
    """Refuse non-negative codes by an algorithm that has no non-negative form (OMP and
    LARS pick atoms by correlation of either sign).

    Examples
    --------
    >>> check_positive_coding("lasso_cd", True)
    >>> check_positive_coding("omp", False)
    """
    if positive and algorithm in ("lars", "omp"):
        raise ValueError(
            f"Positive constraint not supported for '{algorithm}' coding method: {positive_name}=True needs "
            f"{algorithm_name}='lasso_lars', 'lasso_cd' or 'threshold' (or {positive_name}=False)."
        )


def _checked(X, dictionary, check_input):
    """X and the dictionary as float64 arrays with the same number of features."""
    if check_input:
        X = check_array(X, estimator_name="sparse_encode")
        dictionary = check_array(dictionary, estimator_name="sparse_encode")
    X, D = np.asarray(X, dtype=np.float64), np.asarray(dictionary, dtype=np.float64)
    if D.shape[1] != X.shape[1]:
        raise ValueError(
            f"the dictionary has {D.shape[1]} features and X has {X.shape[1]}; atoms are the dictionary's rows."
        )
    return X, D


def encode_from_products(G, C, algorithm, alpha, n_nonzero, positive, max_iter=1000, init=None, budget=None):
    """The codes from ``G = D D^T`` and ``C = X D^T`` (float64), by ``algorithm``; LARS
    by numpy while ``budget`` (a ``CodingBudget``, the fit's; default: this call's own)
    says the numba kernel would not pay for its compilation."""
    from .._kernels import sparse_coding as kernels
    from ._batched_lars import CodingBudget, batched_lars

    C = np.ascontiguousarray(C, dtype=np.float64)
    G = np.ascontiguousarray(G, dtype=np.float64)
    if algorithm == "threshold":
        codes = np.sign(C) * np.maximum(np.abs(C) - alpha, 0.0)
        return np.maximum(codes, 0.0) if positive else codes
    codes = np.zeros_like(C)
    if algorithm == "lasso_cd":
        if init is not None:
            codes[:] = init
        kernels.lasso_cd(G, C, alpha, positive, max_iter, 1e-6, codes)
    elif algorithm == "omp":
        kernels.omp(G, C, n_nonzero, codes)
    elif (budget or CodingBudget()).take(*C.shape):
        codes = batched_lars(G, C, alpha, n_nonzero, algorithm == "lasso_lars", positive)
    else:
        kernels.lars(G, C, alpha, n_nonzero, algorithm == "lasso_lars", positive, codes)
    return codes


class SparseCodingTransform:
    """``transform`` and ``inverse_transform`` by a dictionary (``_atoms()``) and the
    ``transform_*`` parameters, shared by the coder and the dictionary learners."""

    def _code(self, X, D):
        """The codes of checked rows X against D, with the transform parameters."""
        codes = sparse_encode(
            X,
            D,
            algorithm=self.transform_algorithm,
            n_nonzero_coefs=self.transform_n_nonzero_coefs,
            alpha=self._transform_alpha(),
            max_iter=self.transform_max_iter,
            positive=self.positive_code,
            check_input=False,
        )
        if self.split_sign:
            codes = np.hstack([np.maximum(codes, 0.0), np.maximum(-codes, 0.0)])
        return codes.astype(X.dtype if X.dtype == np.float32 else np.float64, copy=False)

    def _transform_alpha(self):
        return self.transform_alpha

    def _check_coding(self):
        """At fit, not at the first transform: a model that could not code a row."""
        check_positive_coding(self.transform_algorithm, self.positive_code)

    def transform(self, X):
        """Sparse codes of X's rows against the dictionary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components) (twice as many with ``split_sign``)
        """
        X = self._validate_input(X, reset=False)
        return self._code(X, np.asarray(self._atoms(), dtype=np.float64))

    def inverse_transform(self, X):
        """``codes D``: the rows the codes stand for.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        given = check_array(X, estimator_name=type(self).__name__)
        if given.shape[1] != self._n_features_out:
            raise ValueError(
                f"X has {given.shape[1]} columns, but {type(self).__name__} codes rows with "
                f"{self._n_features_out}; pass transform's output."
            )
        codes = given.astype(np.float64, copy=False)
        D = np.asarray(self._atoms(), dtype=np.float64)
        if self.split_sign:
            codes = codes[:, : D.shape[0]] - codes[:, D.shape[0] :]
        return (codes @ D).astype(np.result_type(given.dtype, np.float32), copy=False)

    @property
    def _n_features_out(self):
        k = np.shape(self._atoms())[0]
        return 2 * k if self.split_sign else k


class SparseCoder(SparseCodingTransform, ComponentTransformer):
    """Sparse codes of new rows against a fixed dictionary: a drop-in for
    ``sklearn.decomposition.SparseCoder``.

    ``transform`` codes each row ``x`` as ``c`` with ``x ~ c D`` (see ``sparse_encode``
    for the algorithms). Nothing is learnt: ``fit`` only checks the data against the
    dictionary, and ``transform`` works unfitted.

    Parameters
    ----------
    dictionary : ndarray of shape (n_components, n_features)
        The atoms as rows.
    transform_algorithm : {'lasso_lars', 'lasso_cd', 'lars', 'omp', 'threshold'}, default='omp'
    transform_n_nonzero_coefs : int, optional
        Atoms per row for 'lars' and 'omp' (default: a tenth of the features).
    transform_alpha : float, optional
        L1 penalty or threshold (default 1).
    split_sign : bool, default=False
        Return ``[max(c, 0), max(-c, 0)]`` side by side (2 n_components columns), for
        models that need non-negative features.
    n_jobs : None
        Accepted for scikit-learn's signature.
    positive_code : bool, default=False
    transform_max_iter : int, default=1000

    Attributes
    ----------
    n_components_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import SparseCoder
    >>> coder = SparseCoder(np.eye(4), transform_algorithm="omp", transform_n_nonzero_coefs=1)
    >>> coder.transform(np.array([[0.1, 3.0, 0.2, 0.0]])).tolist()
    [[0.0, 3.0, 0.0, 0.0]]
    """

    _parameter_constraints = {
        "dictionary": [ARRAY_LIKE],
        "transform_algorithm": [Options(set(ALGORITHMS))],
        "transform_n_nonzero_coefs": [NONE, Interval(int, 1, None, closed="left")],
        "transform_alpha": [NONE, Interval(float, 0, None, closed="left")],
        "split_sign": [BOOLEAN],
        "n_jobs": [NONE, Interval(int, None, None)],
        "positive_code": [BOOLEAN],
        "transform_max_iter": [Interval(int, 0, None, closed="left")],
    }

    def __init__(
        self,
        dictionary,
        *,
        transform_algorithm="omp",
        transform_n_nonzero_coefs=None,
        transform_alpha=None,
        split_sign=False,
        n_jobs=None,
        positive_code=False,
        transform_max_iter=1000,
    ):
        self.dictionary = dictionary
        self.transform_algorithm = transform_algorithm
        self.transform_n_nonzero_coefs = transform_n_nonzero_coefs
        self.transform_alpha = transform_alpha
        self.split_sign = split_sign
        self.n_jobs = n_jobs
        self.positive_code = positive_code
        self.transform_max_iter = transform_max_iter

    def _atoms(self):
        return self.dictionary

    def fit(self, X, y=None):
        """Check X against the dictionary (nothing is learnt).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_coding()
        X = self._validate_input(X, reset=True)
        atoms = np.asarray(self.dictionary)
        if atoms.ndim != 2 or atoms.shape[1] != X.shape[1]:
            raise ValueError(
                f"the dictionary has shape {atoms.shape}; X has {X.shape[1]} features, so it needs "
                f"(n_components, {X.shape[1]})."
            )
        self.n_components_ = atoms.shape[0]
        return self

    def transform(self, X):
        """Sparse codes of X's rows (the coder needs no fit).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components) (twice as many with ``split_sign``)
        """
        if not hasattr(self, "n_components_"):
            self.fit(X)
        return super().transform(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        return tags
