"""What the interactive map carries: coordinates, fields and thumbnails packed as binary
arrays (base64 in the page), described by one JSON header the page's script reads."""

import base64
import json
import zlib

import numpy as np

from .._warnings import warn_user
from ._categories import MISSING, categories

# tab10, then the light halves of tab20; beyond 20 categories colours come from golden-angle hues
PALETTE = (
    "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf "
    "#aec7e8 #ffbb78 #98df8a #ff9896 #c5b0d5 #c49c94 #f7b6d2 #c7c7c7 #dbdb8d #9edae5"
).split()
NOISE_COLOR = "#c8c8c8"
MISSING_COLOR = "#737373"  # darker than noise: a row without a label, not an outlier
MAX_CATEGORIES = 4096  # a text column with more distinct values is hover text, not a colouring
CONTINUOUS_MIN_DISTINCT = 64  # float labels with more distinct values are coloured as a scale


def category_colors(k):
    """``k`` distinct hex colours: the first 20 as matplotlib's tab10/tab20."""
    colors = list(PALETTE[:k])
    for j in range(len(colors), k):
        hue = (j * 137.508) % 360
        colors.append(_hsl_hex(hue, 0.55 + 0.2 * (j % 2), 0.45 + 0.1 * (j % 3)))
    return colors


def _hsl_hex(h, s, l):
    c = (1 - abs(2 * l - 1)) * s
    x = c * (1 - abs((h / 60) % 2 - 1))
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h // 60) % 6]
    m = l - c / 2
    return "#" + "".join(f"{round(255 * (v + m)):02x}" for v in (r, g, b))


class Payload:
    """Binary blobs under short keys plus the JSON header that names them."""

    def __init__(self):
        self.blobs = {}

    def add(self, array, *, deflate=False):
        """Store a contiguous little-endian array, zlib-compressed with ``deflate`` (the
        page inflates it with the browser's DecompressionStream); returns its spec."""
        array = np.ascontiguousarray(array)
        key = f"b{len(self.blobs)}"
        raw = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        self.blobs[key] = zlib.compress(raw, 6) if deflate else raw
        return {"blob": key, "dtype": array.dtype.name, "deflate": deflate}

    def add_text(self, strings):
        """Strings joined by newlines (a newline inside one becomes a space), UTF-8."""
        text = "\n".join(str(s).replace("\n", " ") for s in strings)
        key = f"b{len(self.blobs)}"
        self.blobs[key] = text.encode("utf-8")
        return {"blob": key, "dtype": "text", "deflate": False}

    def encoded(self):
        """``{key: base64 text}``."""
        return {k: base64.b64encode(v).decode("ascii") for k, v in self.blobs.items()}

    def nbytes(self):
        return sum(len(v) for v in self.blobs.values())


def to_ndc(Z, name):
    """The first two columns centred and scaled into [-0.95, 0.95] with the aspect kept,
    as float32 x and y (the WebGL scatter draws normalised device coordinates)."""
    Z = np.asarray(getattr(Z, "embedding_", Z))
    if Z.ndim != 2 or Z.shape[1] < 2:
        raise ValueError(f"map {name!r} needs an (n, 2) array of coordinates; got shape {Z.shape}.")
    xy = np.asarray(Z[:, :2], dtype=np.float64)
    bad = ~np.isfinite(xy).all(axis=1)
    if bad.any():
        raise ValueError(
            f"map {name!r} has {int(bad.sum())} rows with NaN or infinite coordinates (first: row "
            f"{int(np.argmax(bad))}); drop those rows from every argument, or refit the embedding."
        )
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    half = max(float((hi - lo).max()) / 2, 1e-300)
    xy = (xy - (lo + hi) / 2) * (0.95 / half)
    return xy[:, 0].astype(np.float32), xy[:, 1].astype(np.float32)


def category_field(payload, name, values):
    """A categorical field: codes (uint8/uint16/int32), names and colours; -1 among
    numeric values is a clusterer's noise (grey, named 'noise'), a missing label (NaN,
    None, an empty cell) is named 'missing' (dark grey)."""
    names, codes, noise = categories(values)
    missing = bool(np.any(codes == MISSING))
    dtype = np.uint8 if names.size < 254 else np.uint16 if names.size < 65534 else np.int32
    # noise, then a missing label, are the last categories on the page, so every code is a valid colour index
    codes = np.where(codes == -1, names.size, np.where(codes == MISSING, names.size + noise, codes)).astype(dtype)
    field = {"name": name, "kind": "category", **payload.add(codes), "categories": names.tolist()}
    field["colors"] = category_colors(names.size) + [NOISE_COLOR] * noise + [MISSING_COLOR] * missing
    field["categories"] += ["noise"] * noise + ["missing"] * missing
    field["counts"] = np.bincount(codes, minlength=len(field["categories"])).tolist()
    return field


def number_field(payload, name, values, date=False):
    """A continuous field as float32 with its range (NaN kept: the page shows 'missing');
    ``date``: the values are days since 1970-01-01, shown as dates, sent as days since
    the earliest (``origin``) so that float32 keeps the time of day (days since 1970
    in float32 would step by minutes)."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    origin = float(finite.min()) if date and finite.size else 0.0
    values = (values - origin).astype(np.float32)
    lo, hi = (float(finite.min()) - origin, float(finite.max()) - origin) if finite.size else (0.0, 0.0)
    field = {"name": name, "kind": "number", **payload.add(values), "min": lo, "max": hi}
    return {**field, "date": True, "origin": origin} if date else field


def auto_field(payload, name, values, n):
    """A column as a number field, a category field or hover text, by its content."""
    values = np.asarray(values)
    if values.ndim != 1 or values.shape[0] != n:
        raise ValueError(f"column {name!r} needs one value per row ({n}); got shape {values.shape}.")
    if values.dtype.kind == "M":  # dates and times: a scale, shown as dates
        from ..preprocessing import as_days

        return number_field(payload, name, as_days(values), date=True)
    if values.dtype.kind in "iub" and np.unique(values).size <= MAX_CATEGORIES:
        return category_field(payload, name, values)
    if values.dtype.kind in "iuf":
        return number_field(payload, name, values)
    if np.unique(values.astype(str)).size <= MAX_CATEGORIES:
        return category_field(payload, name, values)
    return {"name": name, "kind": "text", **payload.add_text(values)}


def label_field(payload, labels, n, name="label"):
    """Labels are categories, unless they are floats with many distinct values (a
    measurement, coloured on a scale)."""
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels need one value per row ({n}); got shape {labels.shape}.")
    if labels.dtype.kind == "f" and np.unique(labels).size > CONTINUOUS_MIN_DISTINCT:
        return number_field(payload, name, labels)
    return category_field(payload, name, labels)


def image_spec(payload, images, image_shape, n, max_bytes, seed):
    """Thumbnails as uint8 rows (grey or RGB); a seeded random subset when all of them
    would pass ``max_bytes`` (with a warning naming the figure to raise)."""
    images = np.asarray(images)
    if images.shape[0] != n:
        raise ValueError(f"images need one image per row ({n}); got {images.shape[0]}.")
    shape = tuple(image_shape) if image_shape is not None else images.shape[1:]
    if len(shape) not in (2, 3) or (len(shape) == 3 and shape[2] not in (1, 3)):
        raise ValueError(
            f"image_shape must be (height, width) or (height, width, 3); got {shape}. Pass image_shape= for "
            "images stored as rows."
        )
    if int(np.prod(shape)) != int(np.prod(images.shape[1:])):
        raise ValueError(
            f"image_shape {shape} holds {int(np.prod(shape))} values but each image has "
            f"{int(np.prod(images.shape[1:]))}; check height and width."
        )
    per_image = int(np.prod(shape))
    rows = np.arange(n)
    if n * per_image > max_bytes:
        keep = max(int(max_bytes // per_image), 0)
        rows = np.sort(np.random.default_rng(seed).choice(n, size=keep, replace=False))
        warn_user(
            f"thumbnails for {keep:,} of {n:,} rows ({per_image:,} bytes each) fit in max_image_bytes="
            f"{max_bytes:,}; raise it to show an image for every row (the page grows by that much)."
        )
    pixels = images[rows].reshape(rows.size, -1)
    if pixels.dtype != np.uint8:
        pixels = np.nan_to_num(pixels.astype(np.float32))
        lo, hi = (float(pixels.min()), float(pixels.max())) if pixels.size else (0.0, 1.0)
        pixels = np.round((pixels - lo) * (255 / max(hi - lo, 1e-12))).astype(np.uint8)
    spec = {"height": int(shape[0]), "width": int(shape[1]), "channels": int(shape[2]) if len(shape) == 3 else 1}
    spec["pixels"] = payload.add(pixels, deflate=True)  # images compress (Fashion-MNIST to about half)
    spec["rows"] = None if rows.size == n else payload.add(rows.astype(np.int32))
    return spec


# inside <script>, "<!--<script>" switches the HTML parser to a state where "</script>"
# no longer ends the element: escaping <, > and & (still valid JSON) leaves no markup
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def header_json(header):
    """The header as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&``
    (escaped as ``\\u003c`` ...), whatever the labels and column names hold.

    Examples
    --------
    >>> header_json({"label": "<!--<script>"})
    '{"label":"\\\\u003c!--\\\\u003cscript\\\\u003e"}'
    """
    return json.dumps(header, separators=(",", ":")).translate(_SCRIPT_SAFE)
