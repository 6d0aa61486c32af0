"""Neural encoders (the ``neural`` extra: JAX): the autoencoder, PCA's encoder/decoder
picture with networks for f and g, and parametric UMAP and t-SNE, maps that are networks.

The networks are data: layer widths, an activation and one flat float32 vector of
weights, so model files hold them as arrays, with no code.
"""

from ._autoencoder import AutoEncoder
from ._mlp import ACTIVATIONS, forward, initial_weights, layers, n_weights
from ._parametric_tsne import ParametricTSNE
from ._parametric_umap import ParametricUMAP

__all__ = [
    "ACTIVATIONS",
    "AutoEncoder",
    "forward",
    "initial_weights",
    "layers",
    "n_weights",
    "ParametricTSNE",
    "ParametricUMAP",
]
