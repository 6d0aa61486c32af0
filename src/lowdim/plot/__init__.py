"""Figures from fitted estimators (matplotlib is imported on first use)."""

from ._scree import scree_plot

__all__ = ["scree_plot"]
