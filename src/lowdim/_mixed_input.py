"""Tables of categories and numbers as estimator input: checked as scikit-learn checks
arrays, coded by ``preprocessing.mixed_codes``, the feature count and names kept."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._validation import check_features
from .preprocessing import mixed_codes


class MixedInputMixin:
    """Mixed tables in: checked as scikit-learn checks arrays (shape, sparse, complex,
    infinity), coded by ``mixed_codes`` (levels kept for new rows), with the feature count
    and names recorded or checked."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a gap is a category of its own, or a number's mean
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _codes(self, X, *, reset, categorical=()):
        if not reset:
            check_is_fitted(self)
        name = type(self).__name__
        table = _as_table(X, name)
        if not reset:  # before coding: a new table's columns are coded by name, then read by position
            check_features(self, X, table, reset=False)
        codes = mixed_codes(table, categorical=categorical, levels=None if reset else self._levels())
        numeric = [j for j, k in enumerate(codes.kinds) if k == "numeric"]
        if np.isinf(codes.X[:, numeric]).any():
            raise ValueError(
                f"Input X contains infinity; {name} reads numbers, categories and gaps (NaN), not infinity."
            )
        if reset:
            check_features(self, X, codes.X, reset=True)
        return codes

    def _levels(self):
        return {name: list(levels) for name, levels in zip(self.column_names_, self.categories_) if levels is not None}


def _as_table(X, name):
    """A DataFrame as it is, anything else as a 2-D array, refused as scikit-learn's
    check_array refuses it (sparse, complex, not 2-D, empty, a single row)."""
    if sp.issparse(X):
        raise TypeError(
            f"{name} reads a table of categories and numbers; sparse input is not supported: pass a dense array "
            "or a DataFrame (X.toarray())."
        )
    if not (hasattr(X, "columns") and hasattr(X, "dtypes")):
        X = np.asarray(X)
        if X.dtype.kind == "c":
            raise ValueError("Complex data not supported.")
        if X.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got {X.ndim}D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it contains a "
                "single sample."
            )
    n, d = X.shape
    if n == 0 or d == 0:
        what = "sample(s)" if n == 0 else "feature(s)"
        raise ValueError(
            f"Found array with {n if n == 0 else d} {what} (shape={X.shape}) while a minimum of 1 is "
            f"required by {name}."
        )
    return X
