"""Standardisation with the training data's statistics, as a fitted step."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import ValidatedInputMixin
from .._params import BOOLEAN, validate_params
from .._validation import check_array, warn_constant_features
from ..linalg import column_moments, feature_scale, scaled_stored_entries


class StandardScaler(ValidatedInputMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Centre each feature and scale it to unit variance, with the statistics of the
    training data (scikit-learn's ``StandardScaler`` semantics: population variance,
    a constant feature keeps scale 1).

    Moments are accumulated in float64 whatever the input dtype, so float32 data far
    from the origin keeps its precision. Missing values (NaN) are left out of the
    statistics and stay NaN. A sparse matrix is scaled without centring
    (``with_mean=False``, as scikit-learn's: subtracting the means would fill it) and
    comes back as a CSR matrix with the same stored entries. Unlike scikit-learn's
    scaler it can be saved with
    ``lowdim.save`` (alone or as a step of a pipeline), which is how ``lowdim embed
    --standardize --save-model`` keeps the scaling for ``lowdim transform``.

    Parameters
    ----------
    with_mean : bool, default=True
        Subtract the mean (refused for sparse input: pass False).
    with_std : bool, default=True
        Divide by the standard deviation.

    Attributes
    ----------
    mean_ : ndarray (n_features,), float64
    var_ : ndarray (n_features,), float64
        Population variance (ddof=0).
    scale_ : ndarray (n_features,), float64
        Standard deviation, 1 where it is 0.
    n_samples_seen_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.preprocessing import StandardScaler
    >>> Z = StandardScaler().fit_transform(np.array([[1.0, 10.0], [3.0, 30.0]]))
    >>> Z.tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    """

    _parameter_constraints = {"with_mean": [BOOLEAN], "with_std": [BOOLEAN]}

    def __init__(self, with_mean=True, with_std=True):
        self.with_mean = with_mean
        self.with_std = with_std

    def fit(self, X, y=None):
        """Compute the mean and standard deviation of every feature.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True, allow_nan=True, accept_sparse=True)
        self._check_sparse(X)
        n = X.shape[0]
        self.mean_, self.var_ = column_moments(X, ddof=0, skip_nan=True)
        self.mean_ = np.nan_to_num(self.mean_)  # an all-NaN column: nothing to centre or scale
        self.var_ = np.nan_to_num(self.var_)
        warn_constant_features(self.var_, "StandardScaler", "every feature is scaled by 1", X=X)
        self.scale_ = feature_scale(self.var_)
        self.n_samples_seen_ = int(n)
        return self

    def transform(self, X):
        """Standardise ``X`` with the fitted statistics.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features), in X's float dtype (CSR for sparse X)
        """
        X = self._validate_input(X, reset=False, allow_nan=True, accept_sparse=True)
        self._check_sparse(X)
        if sp.issparse(X):
            return self._scale_stored(X, np.divide)
        out = X.astype(np.float64)
        if self.with_mean:
            out -= self.mean_
        if self.with_std:
            out /= self.scale_
        return out.astype(X.dtype, copy=False)

    def inverse_transform(self, X):
        """Undo ``transform``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        Z = check_array(X, estimator_name="StandardScaler", allow_nan=True, accept_sparse=True)
        if Z.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Z.shape[1]} features, but StandardScaler was fitted with {self.n_features_in_}.")
        self._check_sparse(Z)
        if sp.issparse(Z):
            return self._scale_stored(Z, np.multiply)
        out = Z.astype(np.float64)
        if self.with_std:
            out *= self.scale_
        if self.with_mean:
            out += self.mean_
        return out.astype(Z.dtype, copy=False)

    def _check_sparse(self, X):
        """Refuse to centre a sparse matrix: its zeros would all become values."""
        if sp.issparse(X) and self.with_mean:
            raise ValueError(
                f"StandardScaler cannot centre a sparse matrix ({X.shape[0]} x {X.shape[1]}, {X.nnz} stored "
                "entries): subtracting the means would fill it. Pass with_mean=False to scale only, or X.toarray() "
                "if it fits in memory."
            )

    def _scale_stored(self, X, operation):
        """``operation`` (divide: scale; multiply: undo) of X's stored entries by their
        columns' scales; a CSR matrix of X's dtype with its stored entries."""
        if not self.with_std:
            return sp.csr_matrix(X, copy=True)
        return scaled_stored_entries(X, self.scale_, divide=operation is np.divide)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = not self.with_mean
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
