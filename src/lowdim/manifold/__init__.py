"""Manifold learning: MDS (SMACOF, non-metric, classical, landmark), Isomap, LLE
(standard, Hessian, modified, LTSA), Laplacian eigenmaps, maximum variance unfolding, and
the classical-MDS core (Torgerson and landmark MDS, with out-of-sample placement) they
share."""

from ._classical import ClassicalModel, classical_mds, farthest_points, landmark_mds
from ._isomap import Isomap
from ._lle import LocallyLinearEmbedding
from ._mds import MDS
from ._mvu import MaximumVarianceUnfolding
from ._smacof import smacof
from ._spectral import SpectralEmbedding, check_nontrivial_components, laplacian_eigenmap

__all__ = [
    "ClassicalModel",
    "Isomap",
    "LocallyLinearEmbedding",
    "MDS",
    "MaximumVarianceUnfolding",
    "SpectralEmbedding",
    "check_nontrivial_components",
    "classical_mds",
    "farthest_points",
    "landmark_mds",
    "laplacian_eigenmap",
    "smacof",
]
