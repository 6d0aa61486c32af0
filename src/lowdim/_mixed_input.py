"""Tables of categories and numbers as estimator input: checked as scikit-learn checks
arrays, coded by ``preprocessing.mixed_codes``, the feature count and names kept; for the
methods of categories (``MixedInputMixin``) and for those that compare rows by Gower's
distance (``GowerTableMixin``)."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._estimator import has_text_columns, refuse_text
from ._validation import _check_magnitude, check_features
from .preprocessing import gower_params, mixed_codes

KINDS = ("numeric", "categorical", "ordinal")


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
        codes = mixed_codes(table, categorical=categorical, levels=None if reset else _fitted_levels(self))
        numbers = codes.X[:, [j for j, k in enumerate(codes.kinds) if k == "numeric"]]
        if np.isinf(numbers).any():
            raise ValueError(
                f"Input X contains infinity; {name} reads numbers, categories and gaps (NaN), not infinity."
            )
        if not np.isnan(numbers).all():  # numbers that overflow when squared would make every variance inf
            _check_magnitude(numbers, np.nanmin(numbers), np.nanmax(numbers), "X")
        if reset:
            check_features(self, X, codes.X, reset=True)
        return codes


def _fitted_levels(estimator):
    """Column name -> the levels its categories were coded by in ``fit``."""
    return {
        name: list(levels) for name, levels in zip(estimator.column_names_, estimator.categories_) if levels is not None
    }


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


class GowerTableMixin:
    """A table for ``metric='gower'`` as it is: a DataFrame with text, category, boolean or
    date columns (or an array of text) is coded by ``mixed_codes`` in ``fit``, which keeps
    ``column_names_``, ``kinds_`` and ``categories_``; new tables get the fit's codes; the
    categorical and ordinal columns join the metric's parameters (``_distance_params``).
    An array of numbers is read as codes, at fit and after."""

    def _gower_numbers(self, X, *, reset):
        name = self._shown_name
        if reset:
            for attribute in ("column_names_", "kinds_", "categories_"):
                self.__dict__.pop(attribute, None)
            if not has_text_columns(X):
                return X
            codes = mixed_codes(_as_table(X, name))
            self.column_names_, self.kinds_ = codes.names, codes.kinds
            self.categories_ = [codes.levels.get(column) for column in codes.names]
            return codes.X
        if "kinds_" not in self.__dict__:
            refuse_text(
                X,
                f"{name}(metric='gower') was fitted on numbers (codes)",
                "code new rows by the fit's levels (lowdim.mixed_codes(df, levels=codes.levels).X), or fit the model "
                "on the table itself",
            )
            return X
        _check_coding(self)  # a model file's coding, before anything reads it
        if not (has_text_columns(X) or hasattr(X, "columns")):
            return X  # numbers: the codes themselves
        table = _as_table(X, name)
        check_features(self, X, table, reset=False)  # before coding: columns are coded by name
        ordered = {
            c: levels for c, k, levels in zip(self.column_names_, self.kinds_, self.categories_) if k == "ordinal"
        }
        codes = mixed_codes(table, levels=_fitted_levels(self), ordinal=ordered, names=self.column_names_)
        text = [c for c, fitted, now in zip(codes.names, self.kinds_, codes.kinds) if fitted == "numeric" != now]
        if text:
            raise ValueError(
                f"{name}: column {text[0]!r} held numbers in fit but holds text now ({len(text)} such column(s)); "
                "pass the values as numbers (pd.to_numeric)."
            )
        return codes.X

    def _distance_params(self):
        """The metric's parameters as this model uses them: ``metric_params`` (UMAP:
        ``metric_kwds``) with the categorical and ordinal columns of a table coded in
        ``fit`` added."""
        params = self.metric_kwds if hasattr(self, "metric_kwds") else self.metric_params
        kinds = self.__dict__.get("kinds_")
        if kinds is None:
            return params
        given, coded = dict(params or {}), gower_params(kinds)
        text = [j for j in given.get("ordinal") or () if j in coded["categorical"]]
        if text:
            raise ValueError(
                f"metric_params['ordinal'] lists column {text[0]} ({self.column_names_[text[0]]!r}), which holds text: "
                "its order is unknown; make it an ordered category (pd.Categorical(values, categories=[lowest, ..., "
                "highest], ordered=True)) or pass codes from lowdim.mixed_codes(df, ordinal={...})."
            )
        for key in ("categorical", "ordinal"):
            given[key] = coded[key] + [j for j in given.get(key) or () if j not in coded[key]]
        return given


def _check_coding(estimator):
    """The coding a model file brings: one name, kind and level list per column, the
    levels (text) exactly where the kind is a category."""
    names, kinds, levels = estimator.column_names_, estimator.kinds_, estimator.categories_
    n = estimator.n_features_in_
    ok = all(isinstance(v, list) and len(v) == n for v in (names, kinds, levels))
    ok = ok and all(isinstance(c, str) for c in names) and all(k in KINDS for k in kinds)
    ok = ok and all(
        (level is None) if kind == "numeric" else isinstance(level, list) and all(isinstance(v, str) for v in level)
        for kind, level in zip(kinds, levels)
    )
    if not ok:
        raise ValueError(
            f"{type(estimator).__name__}: column_names_, kinds_ and categories_ do not describe {n} columns "
            "(a name, 'numeric', 'categorical' or 'ordinal', and the categories' levels as text)."
        )
