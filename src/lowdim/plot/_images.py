"""Image grids: components as images, reconstructions at several k."""

import numpy as np

from ._figure import axes, finish


def _as_images(images, image_shape):
    images = np.asarray(getattr(images, "components_", images), dtype=float)
    if image_shape is not None:
        images = images.reshape((-1, *image_shape))
    if images.ndim != 3:
        raise ValueError(f"image_grid needs (n, H, W) images or flat rows with image_shape; got shape {images.shape}.")
    return images


def mosaic(images, n_cols, *, pad=2, normalize=True):
    """Tile (n, H, W) images into one array, each scaled to [0, 1] separately.

    Examples
    --------
    >>> import numpy as np
    >>> mosaic(np.ones((5, 2, 3)), 3, pad=1).shape
    (5, 11)
    """
    n, h, w = images.shape
    n_rows = -(-n // n_cols)
    out = np.ones((n_rows * (h + pad) - pad, n_cols * (w + pad) - pad))
    for i, image in enumerate(images):
        if normalize:
            lo, hi = image.min(), image.max()
            image = (image - lo) / (hi - lo) if hi > lo else np.zeros_like(image)
        r, c = divmod(i, n_cols)
        out[r * (h + pad) : r * (h + pad) + h, c * (w + pad) : c * (w + pad) + w] = image
    return out


def image_grid(
    images,
    image_shape=None,
    path=None,
    *,
    titles=None,
    n_cols=None,
    ax=None,
    title=None,
    normalize=True,
    cmap="gray",
    overwrite=True,
):
    """Show images (or a fitted estimator's ``components_`` as images) in one grid.

    Parameters
    ----------
    images : array-like of shape (n, H, W) or (n, H * W), or estimator with ``components_``
    image_shape : (H, W), optional
        Needed when the images are flat rows.
    path : str, optional
    titles : list of str, optional
        One caption per image, written above it.
    n_cols : int, optional
        Default: about square.
    ax : matplotlib Axes, optional
    title : str, optional
    normalize : bool, default=True
        Scale each image to its own range (components have arbitrary sign and scale);
        False draws pixel values in [0, 1] as they are.
    cmap : str, default='gray'
    overwrite : bool, default=True
        Replace an existing file at ``path``; False refuses it (``FileExistsError``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> ax = image_grid(np.random.default_rng(0).random((6, 64)), (8, 8), titles=list("abcdef"))
    """
    images = _as_images(images, image_shape)
    n, h, w = images.shape
    n_cols = n_cols or int(np.ceil(np.sqrt(n)))
    pad = max(1, h // 16)
    fig, ax = axes(
        ax, (min(1.3 * n_cols + 0.5, 14), min(1.3 * -(-n // n_cols) * h / w + 0.6, 14)), headless=path is not None
    )
    ax.imshow(mosaic(images, n_cols, pad=pad, normalize=normalize), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    for i, caption in enumerate(titles or []):
        r, c = divmod(i, n_cols)
        ax.text(
            c * (w + pad) + w / 2,
            r * (h + pad) + 1,
            caption,
            ha="center",
            va="top",
            fontsize=7,
            color="yellow",
            bbox={"facecolor": "black", "alpha": 0.4, "pad": 1, "lw": 0},
        )
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    finish(fig, path, overwrite)
    return ax
