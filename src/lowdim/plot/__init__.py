"""Figures from fitted estimators or arrays (matplotlib is imported on first use).

Every function accepts an ``ax`` to draw into and returns the axes; with ``path`` the
figure is written (format by extension) and closed.
"""

from ._curves import error_curve, selection_curve
from ._images import image_grid
from ._scatter import embedding_scatter
from ._scree import scree_plot

__all__ = ["embedding_scatter", "error_curve", "image_grid", "scree_plot", "selection_curve"]
