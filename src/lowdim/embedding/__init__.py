"""Neighbour embeddings: t-SNE and SNE (affinities -> initialisation -> gradient
strategy -> optimiser, one module each), UMAP (and AlignedUMAP), PaCMAP and TriMap.

The stages are public, so a map can be built by hand or a fitted one continued::

    P, index, _ = neighbor_affinities(X, perplexity=30.0, n_neighbors=90)
    Y = initial_embedding("pca", X, P, 2, np.random.default_rng(0))
    objective = StudentObjective(P, BarnesHutRepulsion(0.5), dof=1.0)
    descend(Y, objective.gradient, objective.value, [Phase(250, 12.0, 0.5), Phase(750, 1.0, 0.8)],
            learning_rate=max(len(X) / 48.0, 50.0))
"""

from ._affinities import (
    affinities_from_neighbors,
    conditional_probabilities,
    joint_probabilities,
    neighbor_affinities,
)
from ._aligned_umap import AlignedUMAP
from ._base import KEEP_INDEX_UP_TO
from ._gradients import BarnesHutRepulsion, ExactRepulsion, FFTRepulsion, StudentObjective, kl_divergence
from ._initialization import initial_embedding
from ._optimizer import Phase, descend
from ._pacmap import PaCMAP
from ._sne import SNE, GaussianObjective
from ._sweep import graph_width, sweep
from ._trimap import TriMap
from ._tsne import TSNE
from ._umap import UMAP
from ._umap_graph import curve_parameters, fuzzy_graph

__all__ = [
    "AlignedUMAP",
    "KEEP_INDEX_UP_TO",
    "BarnesHutRepulsion",
    "ExactRepulsion",
    "FFTRepulsion",
    "GaussianObjective",
    "PaCMAP",
    "Phase",
    "SNE",
    "StudentObjective",
    "graph_width",
    "sweep",
    "TSNE",
    "TriMap",
    "UMAP",
    "affinities_from_neighbors",
    "conditional_probabilities",
    "curve_parameters",
    "descend",
    "fuzzy_graph",
    "initial_embedding",
    "joint_probabilities",
    "kl_divergence",
    "neighbor_affinities",
]
