"""What lowdim's estimators share: input validation, the density score, the transformer
base with ``n_components_`` outputs, and ``fit_transform`` for the embeddings."""

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import check_array, check_features

METRIC_PARAMETERS = ("metric", "distance", "knn_dist")  # PaCMAP names its metric 'distance', PHATE 'knn_dist'


def metric_parameter(params):
    """The name of an estimator's metric parameter among its ``get_params()``, or None.

    Examples
    --------
    >>> metric_parameter({"knn": 5, "knn_dist": "gower"}), metric_parameter({"n_components": 2})
    ('knn_dist', None)
    """
    return next((name for name in METRIC_PARAMETERS if name in params), None)


def has_text_columns(X):
    """True for a table whose columns are not all numbers: a DataFrame with text, category,
    boolean or date columns, or an array (or list of rows) of text or objects."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(X, "columns"):
        return any(getattr(d, "kind", "O") not in "iuf" for d in dtypes)
    dtype = getattr(X, "dtype", None)  # arrays of any library, sparse matrices: their own dtype
    return (dtype if dtype is not None else np.asarray(X).dtype).kind in "OUS"


def refuse_text(X, what, fix=None):
    """Refuse a table with text columns where numbers are read, naming the columns;
    ``what`` says what was expected, ``fix`` what to do (default: code the table)."""
    if has_text_columns(X):
        dtypes = getattr(X, "dtypes", [])
        columns = [str(c) for c, d in zip(getattr(X, "columns", []), dtypes) if getattr(d, "kind", "O") not in "iuf"]
        found = f"columns {', '.join(columns[:5])} hold" if columns else "X holds"
        raise TypeError(f"{what}, but {found} text or categories; {fix or FIX_TEXT}.")


FIX_TEXT = (
    "code it first: codes = lowdim.mixed_codes(df), then pass codes.X with metric_params (UMAP: metric_kwds) = "
    "codes.metric_params"
)


class ValidatedInputMixin:
    """``_validate_input``: one call that checks ``X`` and its feature count/names."""

    @property
    def _shown_name(self):
        """The name this estimator's messages give: its class's, or, when it builds a part
        of another estimator's fit (``_part_of``, e.g. ParametricUMAP's graph), that one's."""
        return getattr(self, "_part_of", None) or type(self).__name__

    @property
    def _uses_gower(self):
        """Whether the estimator compares rows by Gower's distance (its metric parameter, by
        any of the names ``METRIC_PARAMETERS``, is 'gower')."""
        return any(getattr(self, name, None) == "gower" for name in METRIC_PARAMETERS)

    def _validate_input(self, X, *, reset, check_fitted=None, validate=check_array, **check_kwargs):
        """Validate ``X`` (``validate``: ``check_array``, or ``convert_array`` for a fit
        that proves the data finite from its own sums; their options as keywords) and
        record (``reset``) or check its feature count and names; later calls need a
        fitted model."""
        if check_fitted is None:
            check_fitted = not reset
        if check_fitted:
            check_is_fitted(self)
        numbers = X
        # Gower's distance skips missing cells pair by pair
        if self._uses_gower:
            check_kwargs["allow_nan"] = True
            numbers = self._gower_numbers(X, reset=reset)
        X_checked = validate(numbers, estimator_name=self._shown_name, **check_kwargs)
        check_features(self, X, X_checked, reset=reset)
        return X_checked

    def _gower_numbers(self, X, *, reset):
        """``X`` as numbers for Gower's distance: here as given (a table with text columns
        is refused with the fix); estimators that code tables (``GowerTableMixin``) code it."""
        refuse_text(X, f"{self._shown_name}(metric='gower') reads numbers")
        return X


class DensityScoreMixin:
    """``score`` as the mean of ``score_samples`` (a log-likelihood per sample)."""

    def score(self, X, y=None):
        """Average log-likelihood of the samples under the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        float
        """
        return float(np.mean(self.score_samples(X)))


class ComponentTransformer(ValidatedInputMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """A transformer with ``n_components_`` outputs (named ``<class>0``, ...) that keeps
    float32 input in float32 (scikit-learn tags say so)."""

    @property
    def _n_features_out(self):
        return self.n_components_

    def _validate_codes(self, Z):
        """Validate the input of ``inverse_transform``: one column per component."""
        check_is_fitted(self)
        Z = check_array(Z, estimator_name=type(self).__name__)
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"X has {Z.shape[1]} columns, but {type(self).__name__} has "
                f"{self.n_components_} components; pass transform's output."
            )
        return Z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class EmbeddingMixin:
    """``fit_transform`` for the estimators whose fit computes ``embedding_``."""

    def fit_transform(self, X, y=None):
        """Fit the model on ``X`` and return the embedding of its rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data (or distances / affinities, as the estimator's ``fit`` takes them).
        y : array-like of shape (n_samples,), optional
            Ignored, except by UMAP's supervised fit (-1 marks an unknown label).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``embedding_``.
        """
        return self.fit(X, y).embedding_
