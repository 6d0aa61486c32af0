"""Figures from fitted estimators or arrays (matplotlib is imported on first use), and
the interactive map (:func:`explore`, an HTML page; no matplotlib).

Every function accepts an ``ax`` to draw into and returns the axes; with ``path`` the
figure is written (format by extension) and closed.
"""

from ._curves import error_curve, selection_curve, stability_curve
from ._explore import InteractiveMap, explore, explorer_fragment
from ._images import image_grid
from ._scatter import embedding_scatter
from ._scree import scree_plot

__all__ = [
    "InteractiveMap",
    "embedding_scatter",
    "error_curve",
    "explore",
    "explorer_fragment",
    "image_grid",
    "scree_plot",
    "selection_curve",
    "stability_curve",
]
