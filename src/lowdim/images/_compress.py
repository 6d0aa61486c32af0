"""Image compression by PCA of the patch space."""

from dataclasses import dataclass

import numpy as np

from ..decomposition import PCA
from ._patches import assemble_patches, patch_grid


@dataclass
class PatchCompression:
    """The result of :func:`compress_image`.

    Attributes
    ----------
    reconstruction : ndarray, the image rebuilt from ``n_components`` per patch
    n_components : int
    relative_error : float
        ``||image - reconstruction|| / ||image||`` (Frobenius).
    compression_ratio : float
        Numbers in the image over numbers stored (patch weights, components, mean).
    curve : dict
        ``{'k': [...], 'relative_error': [...]}`` for every k tried.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.images import compress_image
    >>> image = np.add.outer(np.arange(48.0), np.arange(48.0)) / 96
    >>> result = compress_image(image, patch=8, n_components=4)
    >>> result.reconstruction.shape, result.n_components
    ((48, 48), 4)
    """

    reconstruction: np.ndarray
    n_components: int
    relative_error: float
    compression_ratio: float
    curve: dict


def compress_image(image, *, patch=12, n_components=16, ks=None, random_state=0):
    """Compress an image by keeping ``n_components`` principal components of its patches.

    The image is cut into non-overlapping ``patch x patch`` blocks (colour channels
    together); PCA of the blocks gives a basis, each block is stored as its weights.
    One PCA serves every k of the error curve (reconstructions from its leading
    components).

    Parameters
    ----------
    image : ndarray (H, W) or (H, W, C), values in [0, 1]
    patch : int, default=12
    n_components : int, default=16
    ks : sequence of int, optional
        The k of the error curve; default powers of two up to the patch dimension.
    random_state : int

    Returns
    -------
    PatchCompression

    Examples
    --------
    >>> import numpy as np
    >>> y, x = np.mgrid[0:48, 0:48] / 48
    >>> result = compress_image(np.sin(6 * x) * np.cos(4 * y), patch=8, n_components=6)
    >>> result.relative_error < 0.05, result.compression_ratio > 1
    (True, True)
    """
    rows, layout = patch_grid(image, patch, patch)
    limit = min(rows.shape)
    if not 1 <= n_components <= limit:
        raise ValueError(
            f"n_components={n_components} must be between 1 and {limit} (patches: "
            f"{rows.shape[0]}, pixels per patch: {rows.shape[1]})."
        )
    ks = sorted({k for k in (ks or [2**i for i in range(12)]) if 1 <= k <= limit} | {n_components})
    pca = PCA(n_components=max(ks), random_state=random_state).fit(rows)
    weights = pca.transform(rows)
    norm = np.linalg.norm(rows)
    errors, best = [], None
    for k in ks:
        approx = weights[:, :k] @ pca.components_[:k] + pca.mean_
        errors.append(float(np.linalg.norm(rows - approx) / norm) if norm > 0 else 0.0)
        if k == n_components:
            best = approx
    stored = rows.shape[0] * n_components + n_components * rows.shape[1] + rows.shape[1]
    reconstruction = assemble_patches(best, layout)
    return PatchCompression(
        np.clip(reconstruction, 0.0, 1.0),
        n_components,
        errors[ks.index(n_components)],
        float(np.asarray(image).size / stored),
        {"k": ks, "relative_error": errors},
    )


def denoise_image(image, *, n_components=15, patch=8, stride=None, random_state=0):
    """Denoise an image by projecting its overlapping patches on their leading components.

    Noise spreads over all patch dimensions while the image's structure lives in a few;
    keeping ``n_components`` and averaging the overlapping reconstructions removes most
    of the noise.

    Parameters
    ----------
    image : ndarray (H, W) or (H, W, C), values in [0, 1]
    n_components : int, default=15
    patch : int, default=8
    stride : int, optional
        Default 1 (every patch position) up to one megapixel, 2 above.
    random_state : int

    Returns
    -------
    ndarray like ``image``

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y, x = np.mgrid[0:64, 0:64] / 64
    >>> clean = 0.5 + 0.4 * np.sin(6 * x) * np.cos(4 * y)
    >>> noisy = clean + rng.normal(0, 0.1, clean.shape)
    >>> err = lambda im: float(np.sqrt(np.mean((im - clean) ** 2)))
    >>> err(denoise_image(noisy, n_components=4)) < err(noisy) / 2
    True
    """
    image = np.asarray(image, dtype=float)
    stride = stride or (1 if image.shape[0] * image.shape[1] <= 1_000_000 else 2)
    rows, layout = patch_grid(image, patch, stride)
    limit = min(rows.shape)
    if not 1 <= n_components <= limit:
        raise ValueError(f"n_components={n_components} must be between 1 and {limit} (pixels per patch).")
    pca = PCA(n_components=n_components, random_state=random_state).fit(rows)
    cleaned = pca.inverse_transform(pca.transform(rows))
    return np.clip(assemble_patches(cleaned, layout), 0.0, 1.0)
