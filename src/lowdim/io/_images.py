"""Images through Pillow (PNG, JPEG, PGM, ...): single files and one-folder-per-class sets."""

import os

import numpy as np

from ..exceptions import DataFileError
from ._atomic import atomic_path

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pgm", ".pnm", ".ppm", ".bmp", ".tif", ".tiff", ".gif")
MAX_PIXELS = 100_000_000


def read_image(path, *, grey=False):
    """An image as floats in [0, 1]: (H, W) grey or (H, W, 3) colour.

    A 16-bit grey image (microscopy, medical scans) keeps its depth: 65,535 is 1.0. A
    palette image (GIF, 8-bit PNG) is colour when its palette is.

    Parameters
    ----------
    path : str or path-like
        A PNG, JPEG, PGM, ... file that Pillow reads (at most ``MAX_PIXELS`` pixels).
    grey : bool, default=False
        Convert a colour image to grey.

    Returns
    -------
    ndarray of shape (H, W) or (H, W, 3)

    Raises
    ------
    DataFileError
        The file is missing, too large or not an image.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from PIL import Image
    >>> p = os.path.join(tempfile.mkdtemp(), "a.png")
    >>> Image.fromarray(np.full((4, 5), 255, np.uint8)).save(p)
    >>> read_image(p).shape, float(read_image(p).max())
    ((4, 5), 1.0)
    """
    from PIL import Image, UnidentifiedImageError

    if not os.path.isfile(path):
        raise DataFileError(f"{path}: no such image file.")
    try:
        with Image.open(path) as image:
            if image.width * image.height > MAX_PIXELS:
                raise DataFileError(
                    f"{path}: {image.width} x {image.height} pixels exceeds the limit "
                    f"of {MAX_PIXELS:,}; downscale the image first."
                )
            if image.mode.startswith(("I", "F")):  # 16- and 32-bit grey: Pillow's 'L' would clip them at 255
                return _deep_grey(np.asarray(image, dtype=np.float64), image.mode)
            pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
            # grey when asked for, for grey modes, and for a palette whose colours are all grey
            red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
            palette_grey = image.mode in ("P", "PA") and np.array_equal(red, green) and np.array_equal(red, blue)
            if grey or image.mode in ("1", "L", "LA") or palette_grey:
                pixels = np.asarray(image.convert("L"), dtype=np.float64)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a readable image ({exc}).") from None
    return pixels / 255.0


def _deep_grey(values, mode):
    """A 16-bit (or 32-bit integer, or float) grey image in [0, 1]: 16-bit by its full
    range, wider integers by 65,535 when they fit, floats as they are when in [0, 1];
    anything else stretched from its minimum to its maximum."""
    top = 65535.0 if mode.startswith("I;16") or (mode == "I" and values.min() >= 0 and values.max() <= 65535) else None
    if top is None and mode == "F" and values.min() >= 0 and values.max() <= 1:
        top = 1.0
    if top is not None:
        return values / top
    low, span = values.min(), np.ptp(values)
    return (values - low) / span if span > 0 else np.zeros_like(values)


DEEP_FORMATS = (".png", ".tif", ".tiff")  # the formats Pillow writes 16-bit grey in


def image_depth(path):
    """What ``read_image`` reads of ``path`` beyond 8-bit RGB: ``(bits, alpha)``, 16 for a
    16-bit (or deeper) grey image, and whether an alpha channel is left out.

    Parameters
    ----------
    path : str or path-like
        An image file Pillow reads.

    Returns
    -------
    bits : int
        16 or 8.
    alpha : bool

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from PIL import Image
    >>> p = os.path.join(tempfile.mkdtemp(), "a.png")
    >>> Image.fromarray(np.zeros((4, 5), np.uint16)).save(p)
    >>> image_depth(p)
    (16, False)
    """
    from PIL import Image

    with Image.open(path) as image:
        return (16 if image.mode.startswith(("I", "F")) else 8), image.mode in ("RGBA", "LA", "PA", "La", "RGBa")


def write_image(path, pixels, overwrite=True, *, bits=8):
    """Write floats in [0, 1] (clipped) as an 8-bit or 16-bit image, atomically.

    Parameters
    ----------
    path : str or path-like
        Where to write; the extension chooses the format (.png, .jpg, ...).
    pixels : array-like of shape (H, W) or (H, W, 3)
        Values in [0, 1]; others are clipped.
    overwrite : bool, default=True
        False: refuse a file that exists when it is written.
    bits : {8, 16}, default=8
        16 keeps a 16-bit grey image's depth (.png and .tif; colour and other formats
        hold 8 bits, and are refused at 16).

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.png"); write_image(p, np.zeros((3, 3)))
    """
    from PIL import Image

    pixels = np.asarray(pixels)
    if bits == 16 and (pixels.ndim != 2 or not str(path).lower().endswith(DEEP_FORMATS)):
        raise ValueError(
            f"{path}: 16-bit images are written as grey .png or .tif; got a {pixels.shape} image for that name."
        )
    top = 65535.0 if bits == 16 else 255.0
    data = np.clip(np.rint(pixels * top), 0, top).astype(np.uint16 if bits == 16 else np.uint8)
    with atomic_path(path, overwrite=overwrite) as tmp:
        Image.fromarray(data).save(tmp)


def read_image_folder(folder, *, grey=True, skip=()):
    """All images under ``folder``: ``(images, labels)``, one label per sub-folder.

    Images directly in ``folder`` get the label ``''``. All images must share a size.

    Parameters
    ----------
    folder : str or os.PathLike
    grey : bool, default=True
        Convert colour images to grey.
    skip : sequence of str or os.PathLike
        Folders inside ``folder`` whose images are not read (a command's own output
        folder, written there by an earlier run).

    Returns
    -------
    images : ndarray of shape (n_images, H, W) (or (n, H, W, 3) in colour)
    labels : ndarray of str

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> root = tempfile.mkdtemp(); os.mkdir(os.path.join(root, "s1"))
    >>> write_image(os.path.join(root, "s1", "1.png"), np.zeros((4, 3)))
    >>> images, labels = read_image_folder(root)
    >>> images.shape, labels.tolist()
    ((1, 4, 3), ['s1'])
    """
    if not os.path.isdir(folder):
        raise DataFileError(f"{folder}: not a folder of images.")
    skipped = {os.path.realpath(s) for s in skip}
    paths = sorted(
        (
            os.path.join(d, f)
            for d, _, files in os.walk(folder)
            if not any(os.path.realpath(d) == s or os.path.realpath(d).startswith(s + os.sep) for s in skipped)
            for f in files
            if f.lower().endswith(IMAGE_EXTENSIONS)
        ),
        key=_natural_key,
    )
    if not paths:
        raise DataFileError(f"{folder}: no image files ({', '.join(IMAGE_EXTENSIONS)}).")
    images = [read_image(p, grey=grey) for p in paths]
    shapes = {im.shape for im in images}
    if len(shapes) > 1:
        first = images[0].shape
        odd, shape = next((p, im.shape) for p, im in zip(paths, images) if im.shape != first)
        raise DataFileError(f"{odd}: size {shape} differs from {paths[0]}'s {first}; all images must have one size.")
    labels = [os.path.relpath(os.path.dirname(p), folder) for p in paths]
    return np.stack(images), np.array(["" if lab == "." else lab for lab in labels])


def _natural_key(path):
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]
