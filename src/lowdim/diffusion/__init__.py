"""Embeddings of a random walk on the neighbour graph: diffusion maps (the walk's slowest
modes) and PHATE (its potential distances, laid out by MDS), for data that change along
trajectories."""

from ._diffusion_map import DiffusionMap, alpha_normalize, diffusion_kernel
from ._phate import PHATE
from ._phate_steps import (
    decay_kernel,
    entropy_curve,
    knee_by_two_lines,
    landmark_operator,
    landmark_walk,
    potential,
    potential_layout,
    sgd_mds,
)

__all__ = [
    "DiffusionMap",
    "PHATE",
    "alpha_normalize",
    "decay_kernel",
    "diffusion_kernel",
    "entropy_curve",
    "knee_by_two_lines",
    "landmark_operator",
    "landmark_walk",
    "potential",
    "potential_layout",
    "sgd_mds",
]
