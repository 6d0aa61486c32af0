"""Manifold learning: Isomap, and the classical-MDS core (Torgerson and landmark MDS,
with out-of-sample placement) it shares with MDS."""

from ._classical import ClassicalModel, classical_mds, farthest_points, landmark_mds
from ._isomap import Isomap

__all__ = ["ClassicalModel", "Isomap", "classical_mds", "farthest_points", "landmark_mds"]
