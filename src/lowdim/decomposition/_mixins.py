"""Behaviour shared by lowdim's transformers."""

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin


class ComponentTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """A transformer with ``n_components_`` outputs (named ``<class>0``, ...) that keeps
    float32 input in float32 (scikit-learn tags say so)."""

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


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
