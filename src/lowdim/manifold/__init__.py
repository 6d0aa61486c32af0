"""Manifold learning: MDS (SMACOF, non-metric, classical, landmark), Isomap, and the classical-MDS core (Torgerson and landmark MDS,
with out-of-sample placement) it shares with MDS."""

from ._classical import ClassicalModel, classical_mds, farthest_points, landmark_mds
from ._isomap import Isomap
from ._mds import MDS
from ._smacof import smacof
from ._spectral import SpectralEmbedding, laplacian_eigenmap

__all__ = ["ClassicalModel", "Isomap", "MDS", "SpectralEmbedding", "laplacian_eigenmap", "smacof", "classical_mds", "farthest_points", "landmark_mds"]
