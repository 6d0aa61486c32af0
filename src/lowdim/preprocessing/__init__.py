"""Preprocessing steps that travel with a model: a fitted scaler applies the training
data's statistics to new data (``lowdim transform`` reads it from the model file)."""

from ._scaler import StandardScaler

__all__ = ["StandardScaler"]
