"""Neighbour graphs: a kNN index interface (``build`` / ``query``) with an exact
blocked-BLAS backend, kNN and radius graphs, symmetrisation, component joining."""

from ._exact import ExactIndex, check_n_neighbors, nearest_neighbors
from ._graphs import join_components, kneighbors_graph, radius_neighbors_graph, symmetrize

__all__ = ["ExactIndex", "check_n_neighbors", "join_components", "kneighbors_graph", "nearest_neighbors",
           "radius_neighbors_graph", "symmetrize"]
