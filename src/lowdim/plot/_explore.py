"""``lowdim.plot.explore``: one self-contained HTML page in which a person pans, zooms,
hovers and selects among up to millions of points on several maps at once."""

import html
import os
from pathlib import Path

import numpy as np

from ._explore_data import Payload, auto_field, category_field, header_json, image_spec, label_field, to_ndc

ASSETS = Path(__file__).with_name("assets")
SCRIPTS = ("regl-scatterplot.min.js", "explore.js")


class InteractiveMap(str):
    """The page's HTML as a ``str`` that Jupyter shows inline; :meth:`save` writes it.

    Examples
    --------
    >>> import numpy as np
    >>> page = explore(np.random.default_rng(0).normal(size=(50, 2)))
    >>> page.startswith("<!DOCTYPE html>"), "lowdim-explorer" in page
    (True, True)
    """

    def _repr_html_(self):
        return (
            f'<iframe srcdoc="{html.escape(self, quote=True)}" style="width:100%;height:780px;border:0" '
            'title="lowdim map"></iframe>'
        )

    def save(self, path, *, overwrite=True):
        """Write the page to ``path`` (atomically: a reader never sees half a file).

        Returns
        -------
        str
            The path written.
        """
        from ..io import atomic_path

        with atomic_path(os.fspath(path), overwrite=overwrite) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write(self)
        return os.fspath(path)


def _named_maps(embeddings):
    if isinstance(embeddings, dict):
        maps = {str(k): v for k, v in embeddings.items()}
    elif isinstance(embeddings, list | tuple):
        maps = {f"map {j + 1}": Z for j, Z in enumerate(embeddings)}
    else:
        name = type(embeddings).__name__ if hasattr(embeddings, "embedding_") else "map"
        maps = {name: embeddings}
    if not maps:
        raise ValueError("explore needs at least one map: an (n, 2) array or a dict {name: array}.")
    sizes = {name: np.shape(getattr(Z, "embedding_", Z))[0] for name, Z in maps.items()}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{k}: {v}" for k, v in sizes.items())
        raise ValueError(f"every map needs the same rows to link selections; got {listed} rows.")
    return maps, next(iter(sizes.values()))


def _point_size(n):
    return 6 if n <= 5_000 else 4 if n <= 50_000 else 3 if n <= 300_000 else 2


def _fields(payload, n, labels, clusters, columns, label_name="label"):
    fields = []
    if labels is not None:
        fields.append(label_field(payload, labels, n, name=str(label_name)))
    if clusters is not None:
        clusters = np.asarray(clusters)
        if clusters.shape != (n,) or clusters.dtype.kind not in "iu" or (clusters.size and clusters.min() < -1):
            raise ValueError(
                f"clusters need one integer per row ({n}), -1 for noise; got shape {clusters.shape}, dtype "
                f"{clusters.dtype}" + (f", minimum {clusters.min()}." if clusters.size else ".")
            )
        fields.append(category_field(payload, "cluster", clusters))
    if columns is not None:
        if not hasattr(columns, "items"):
            raise TypeError(
                "columns must map names to one value per row, e.g. {'age': ages} or a pandas DataFrame; "
                f"got {type(columns).__name__}."
            )
        fields += [auto_field(payload, str(name), np.asarray(values), n) for name, values in columns.items()]
    return fields


def explorer_fragment(
    embeddings,
    labels=None,
    *,
    clusters=None,
    ids=None,
    columns=None,
    images=None,
    image_shape=None,
    point_size=None,
    max_image_bytes=64_000_000,
    random_state=0,
    label_name="label",
):
    """The interactive map as an HTML fragment (its data, style and scripts) to place in
    a larger page, such as the report; one per page.

    Parameters
    ----------
    embeddings, labels, clusters, ids, columns, images, image_shape, point_size, \
max_image_bytes, random_state, label_name
        As for :func:`explore`.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> fragment = explorer_fragment({"pca": np.eye(3)[:, :2]}, ["a", "b", "b"])
    >>> fragment.startswith("<style>"), '<div class="lowdim-explorer">' in fragment
    (True, True)
    """
    maps, n = _named_maps(embeddings)
    payload = Payload()
    header = {"n": int(n), "maps": [], "pointSize": point_size or _point_size(n)}
    for name, Z in maps.items():
        x, y = to_ndc(Z, name)
        header["maps"].append({"name": name, "x": payload.add(x), "y": payload.add(y)})
    header["fields"] = _fields(payload, n, labels, clusters, columns, label_name)
    header["colorBy"] = next((j for j, f in enumerate(header["fields"]) if f["kind"] != "text"), -1)
    if ids is not None:
        ids = np.asarray(ids)
        if ids.shape != (n,):
            raise ValueError(f"ids need one per row ({n}); got shape {ids.shape}.")
        header["ids"] = payload.add_text(ids)
    if images is not None:
        header["images"] = image_spec(payload, images, image_shape, n, max_image_bytes, random_state)
    blobs = "".join(
        f'<script type="application/octet-stream" data-blob="{k}">{v}</script>' for k, v in payload.encoded().items()
    )
    code = "".join(f"<script>{(ASSETS / name).read_text(encoding='utf-8')}</script>" for name in SCRIPTS)
    return (
        f"<style>{(ASSETS / 'explore.css').read_text(encoding='utf-8')}</style>"
        f'<div class="lowdim-explorer"><script type="application/json" class="lowdim-header">'
        f"{header_json(header)}</script>{blobs}</div>{code}"
    )


def explore(
    embeddings,
    labels=None,
    *,
    clusters=None,
    ids=None,
    columns=None,
    images=None,
    image_shape=None,
    title="lowdim map",
    point_size=None,
    max_image_bytes=64_000_000,
    random_state=0,
    label_name="label",
):
    """An interactive, self-contained HTML page of one or more 2-D maps of the same rows.

    The page draws every map with WebGL (regl-scatterplot, bundled in the page: it works
    offline) and links them: hover a point to see its row (id, label, cluster, columns and
    its image), lasso or box-select points in one map to light the same rows up in the
    others, download the selection's ids as CSV, colour by label, cluster or any column,
    and search a row id. Coordinates travel as binary float32, so a million points on
    three maps make a page of about 35 MB.

    Parameters
    ----------
    embeddings : array of shape (n, 2), dict of name -> array, or list of arrays
        The maps; fitted estimators with ``embedding_`` work too. Only the first two
        columns are drawn.
    labels : array-like of shape (n,), optional
        Class labels (categories; floats with many distinct values get a colour scale).
    clusters : array-like of int of shape (n,), optional
        Cluster labels, -1 for noise (drawn grey).
    ids : array-like of str of shape (n,), optional
        Row names: on hover, searchable, in the downloaded CSV (default: row numbers).
    columns : dict of name -> array-like of shape (n,), or pandas DataFrame, optional
        Shown on hover and offered for colouring (numbers on a scale, text as categories).
    images : array of shape (n, h, w), (n, h, w, 3) or rows (n, pixels), optional
        A thumbnail per row, on hover; rows need ``image_shape``, (h, w) or (h, w, 3).
    image_shape : tuple, optional
    title : str, default="lowdim map"
    point_size : float, optional
        Pixels; default shrinks from 6 to 2 as the number of points grows.
    max_image_bytes : int, default=64_000_000
        Thumbnails beyond this many bytes (a byte per pixel and channel) are left out: a
        random subset seeded by ``random_state`` is kept, with a warning. All 70,000
        Fashion-MNIST images fit (55 MB, about 30 MB compressed).
    random_state : int, default=0
    label_name : str, default="label"
        The labels' name in the legend, hover and colour menu ("cultivar").

    Returns
    -------
    InteractiveMap
        The HTML (a ``str``); shows inline in Jupyter, ``.save(path)`` writes it.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.datasets import load_digits
    >>> X, y = load_digits()
    >>> Z = np.random.default_rng(0).normal(size=(len(X), 2))  # any map: UMAP().fit_transform(X)
    >>> page = explore({"a map": Z}, labels=y, images=X, image_shape=(8, 8))
    >>> len(page) < 1_000_000  # page.save("digits.html") writes it; in Jupyter it shows inline
    True
    """
    body = explorer_fragment(
        embeddings,
        labels,
        clusters=clusters,
        ids=ids,
        columns=columns,
        images=images,
        image_shape=image_shape,
        point_size=point_size,
        max_image_bytes=max_image_bytes,
        random_state=random_state,
        label_name=label_name,
    )
    return InteractiveMap(_page(title, body))


def _page(title, body):
    """A whole HTML document around the map's fragment."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{html.escape(title)}</title></head><body class="lowdim-page">'
        f'<h1 class="lowdim-title">{html.escape(title)}</h1>{body}</body></html>\n'
    )
