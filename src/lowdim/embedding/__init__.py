"""Neighbour embeddings: t-SNE and SNE (affinities -> initialisation -> gradient
strategy -> optimiser, one module each), and UMAP."""

from ._affinities import conditional_probabilities, joint_probabilities, neighbor_affinities
from ._gradients import BarnesHutRepulsion, ExactRepulsion, FFTRepulsion, StudentObjective, kl_divergence
from ._optimizer import Phase, descend
from ._sne import SNE, GaussianObjective
from ._tsne import TSNE
from ._umap import UMAP

__all__ = [
    "BarnesHutRepulsion",
    "ExactRepulsion",
    "FFTRepulsion",
    "GaussianObjective",
    "Phase",
    "SNE",
    "StudentObjective",
    "TSNE",
    "UMAP",
    "conditional_probabilities",
    "descend",
    "joint_probabilities",
    "kl_divergence",
    "neighbor_affinities",
]
