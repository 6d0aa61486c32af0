"""Cutting an image into square patches and putting it back together."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _channels(image):
    image = np.asarray(image, dtype=float)
    if image.ndim not in (2, 3):
        raise ValueError(f"an image must be (H, W) or (H, W, C); got shape {image.shape}.")
    return image if image.ndim == 3 else image[:, :, None]


def patch_grid(image, patch, stride):
    """Patches of ``patch x patch`` pixels every ``stride`` pixels, as rows.

    The image is padded by reflection so that the patches cover it completely.

    Parameters
    ----------
    image : ndarray (H, W) or (H, W, C)
    patch : int
        Side of the square patches.
    stride : int
        Pixels between patch corners (``patch``: no overlap).

    Returns
    -------
    rows : ndarray of shape (n_patches, patch * patch * C)
    layout : tuple
        What :func:`assemble_patches` needs to rebuild the image.

    Examples
    --------
    >>> import numpy as np
    >>> rows, layout = patch_grid(np.arange(36.0).reshape(6, 6), 3, 3)
    >>> rows.shape
    (4, 9)
    """
    image = _channels(image)
    h, w, c = image.shape
    if not 1 <= patch <= min(h, w):
        raise ValueError(f"patch={patch} must be between 1 and the image's smaller side {min(h, w)}.")
    if not 1 <= stride <= patch:
        raise ValueError(f"stride={stride} must be between 1 and patch={patch}.")
    ph = (-(h - patch)) % stride
    pw = (-(w - patch)) % stride
    padded = np.pad(image, ((0, ph), (0, pw), (0, 0)), mode="reflect" if min(h, w) > 1 else "edge")
    windows = sliding_window_view(padded, (patch, patch), axis=(0, 1))[::stride, ::stride]
    gh, gw = windows.shape[:2]
    rows = np.ascontiguousarray(windows.transpose(0, 1, 3, 4, 2)).reshape(gh * gw, -1)
    return rows, (h, w, c, patch, stride, gh, gw)


def assemble_patches(rows, layout):
    """Rebuild the image from patch rows, averaging where patches overlap.

    Parameters
    ----------
    rows : ndarray (n_patches, patch * patch * C)
    layout : tuple
        As returned by ``patch_grid``.

    Returns
    -------
    ndarray
        The image (H, W) or (H, W, C).

    Examples
    --------
    >>> import numpy as np
    >>> image = np.random.default_rng(0).random((7, 5))
    >>> rows, layout = patch_grid(image, 3, 2)
    >>> bool(np.allclose(assemble_patches(rows, layout), image))
    True
    """
    h, w, c, patch, stride, gh, gw = layout
    blocks = np.asarray(rows).reshape(gh, gw, patch, patch, c)
    total = np.zeros(((gh - 1) * stride + patch, (gw - 1) * stride + patch, c))
    count = np.zeros(total.shape[:2] + (1,))
    for di in range(patch):
        for dj in range(patch):
            total[di : di + gh * stride : stride, dj : dj + gw * stride : stride] += blocks[:, :, di, dj]
            count[di : di + gh * stride : stride, dj : dj + gw * stride : stride] += 1
    image = (total / count)[:h, :w]
    return image[:, :, 0] if c == 1 else image
