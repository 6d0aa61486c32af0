"""Behaviour shared by lowdim's transformers."""

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import DensityScoreMixin, ValidatedInputMixin  # noqa: F401 (re-exported)
from .._validation import check_array


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
