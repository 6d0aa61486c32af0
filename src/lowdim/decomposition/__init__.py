"""Linear decompositions: PCA (named solvers, streaming, sparse) and helpers."""

from ._incremental import IncrementalPCA
from ._n_components import ComponentSelection, select_n_components
from ._pca import PCA
from ._pca_solvers import choose_solver

__all__ = ["PCA", "IncrementalPCA", "ComponentSelection", "select_n_components", "choose_solver"]
