"""The classic image applications of PCA: patch compression, denoising and eigenfaces."""

from ._compress import PatchCompression, compress_image, denoise_image
from ._eigenfaces import EigenfaceClassifier, split_per_class
from ._patches import assemble_patches, patch_grid

__all__ = [
    "EigenfaceClassifier",
    "PatchCompression",
    "assemble_patches",
    "compress_image",
    "denoise_image",
    "patch_grid",
    "split_per_class",
]
