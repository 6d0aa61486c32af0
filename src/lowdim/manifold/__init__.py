"""Manifold learning: MDS (SMACOF, non-metric, classical, landmark), Isomap, and the classical-MDS core (Torgerson and landmark MDS,
with out-of-sample placement) it shares with MDS."""

from ._classical import ClassicalModel, classical_mds, farthest_points, landmark_mds
from ._isomap import Isomap
from ._mds import MDS
from ._smacof import smacof

__all__ = ["ClassicalModel", "Isomap", "MDS", "smacof", "classical_mds", "farthest_points", "landmark_mds"]
