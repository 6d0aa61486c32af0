"""Input handling shared by every lowdim estimator (transformers and clusterers)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._validation import check_array, check_features


class ValidatedInputMixin:
    """``_validate_input``: one call that checks ``X`` and its feature count/names."""

    def _validate_input(self, X, *, reset, check_fitted=None, **check_kwargs):
        """Validate ``X`` (``check_array`` options as keywords) and record (``reset``) or
        check its feature count and names; later calls need a fitted model."""
        if check_fitted is None:
            check_fitted = not reset
        if check_fitted:
            check_is_fitted(self)
        X_checked = check_array(X, estimator_name=type(self).__name__, **check_kwargs)
        check_features(self, X, X_checked, reset=reset)
        return X_checked


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
