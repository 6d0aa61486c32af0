"""Preprocessing steps that travel with a model: a fitted scaler applies the training
data's statistics to new data (``lowdim transform`` reads it from the model file); mixed
tables (categories, ordered categories, gaps) coded as numbers for Gower's distance."""

from ._cells import MISSING_TEXT
from ._dates import as_days
from ._mixed import CodedColumn, MixedCodes, as_numbers, code_categories, code_column, gower_params, mixed_codes
from ._scaler import StandardScaler

__all__ = [
    "MISSING_TEXT",
    "CodedColumn",
    "MixedCodes",
    "StandardScaler",
    "as_days",
    "as_numbers",
    "code_categories",
    "code_column",
    "gower_params",
    "mixed_codes",
]
