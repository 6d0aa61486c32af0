"""Manifold learning. So far the classical-MDS core (Torgerson and landmark MDS, with
out-of-sample placement) that the MDS and Isomap estimators will build on."""

from ._classical import ClassicalModel, classical_mds, farthest_points, landmark_mds

__all__ = ["ClassicalModel", "classical_mds", "farthest_points", "landmark_mds"]
