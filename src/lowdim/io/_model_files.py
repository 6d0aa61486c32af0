"""Safe model files: a JSON manifest plus ``.npy`` arrays in one zip, no pickle.

Layout of ``path`` (a zip archive):

- ``manifest.json``: format version, class name (must be in ``REGISTRY``), parameters,
  JSON-able fitted attributes, and for each array its dtype, shape and SHA-256;
- ``arrays/<name>.npy``: one array per fitted array attribute, read with
  ``allow_pickle=False``;
- ``arrays/params/<name>.npy``: a parameter given as a numeric array (a k-means start,
  SparseCoder's dictionary), listed under ``param_arrays``.

Loading imports nothing named by the file except classes of lowdim's registry and runs
no code from it.
"""

import contextlib
import hashlib
import io
import json
import lzma
import math
import numbers
import zipfile
import zlib
from importlib import import_module

import numpy as np
import scipy.sparse as sp

from .._exports import EXPORTS
from .._memory import available_bytes
from .._params import validate_params
from ..exceptions import UntrustedModelError
from ..neighbors import search_algorithm
from ._atomic import atomic_path
from ._fitted_schema import check_fitted
from ._fitted_table import FITTED
from ._model_check import check_usable

FORMAT_VERSION = 3  # 2: pipelines of registered steps and the input's column names; 3: array parameters
MAX_STEPS = 16  # a pipeline of lowdim steps is short; more is a hostile file
MAX_MANIFEST_BYTES = 1 << 20
MAX_MANIFEST_DEPTH = 16  # parameters and attributes are shallow; deeper is a hostile file
READ_CHUNK = 1 << 22  # arrays are decompressed and checksummed in pieces of 4 MiB
# deflate packs at most about 1,030:1, which only data of one repeated byte reaches;
# fitted arrays of floats never come close, a zip bomb does
MAX_COMPRESSION_RATIO = 500
BOMB_CHECK_FROM = 1 << 26  # a member, or a whole archive, under 64 MiB is not worth the question
MAX_DIMENSION = 1 << 40  # no array axis of a model is longer (a shape of 2^63 or 2^70 is hostile)
# string arrays are allowed only under these names (labels, column names); every other
# array must be numeric
STRING_ATTRIBUTES = ("classes_", "feature_names_in_")

# The classes a model file may name: the public estimators of lowdim's export table
# (lowdim/__init__.py), so a new method is savable once exported; a file names a class,
# which is looked up there and nowhere else.
ESTIMATOR_PACKAGES = (
    "lowdim.decomposition",
    "lowdim.manifold",
    "lowdim.embedding",
    "lowdim.diffusion",
    "lowdim.cluster",
    "lowdim.preprocessing",
    "lowdim.neural",
)
# AlignedUMAP: a sequence of maps, each a UMAP saved on its own
NOT_SAVED = ("AlignedUMAP",)


def _registry():
    return {
        name: module
        for name, module in EXPORTS.items()
        if module in ESTIMATOR_PACKAGES and name[:1].isupper() and name not in NOT_SAVED
    }


REGISTRY = _registry()  # class name -> the public package that exports it


def registered_class(name):
    """The estimator class a model file names, from lowdim's export table only."""
    return getattr(import_module(REGISTRY[name]), name)


_JSON_SCALARS = (str, bool, int, float, type(None))


def _is_jsonable(value, depth=0):
    """A JSON value (scalars, lists, dicts with string keys; floats other than NaN, an
    infinity written as the ``Infinity`` that Python's json reads, as OPTICS's default
    ``max_eps``), nested at most MAX_MANIFEST_DEPTH deep (parameters such as
    ``metric_params={'p': 3}`` are shallow)."""
    if depth > MAX_MANIFEST_DEPTH:
        return False
    if isinstance(value, _JSON_SCALARS):
        return not (isinstance(value, float) and np.isnan(value))
    if isinstance(value, (list, tuple)):
        return all(_is_jsonable(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_jsonable(v, depth + 1) for k, v in value.items())
    return False


SPARSE_PARTS = ("data", "indices", "indptr")


def _split_state(estimator):
    """Fitted attributes as (arrays, JSON values, sparse shapes); a sparse matrix is
    stored as the three arrays of its CSR form. A class's ``_resume_state()`` adds what
    continuing its training needs beyond its fitted attributes (PCA's running moments)."""
    arrays, plain, sparse = {}, {}, {}
    state = dict(vars(estimator))
    if hasattr(type(estimator), "_resume_state"):
        state.update(estimator._resume_state())
    for name, value in state.items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            sparse[name] = list(csr.shape)
            for part in SPARSE_PARTS:
                arrays[f"{name}csr_{part}_"] = getattr(csr, part)
            continue
        if isinstance(value, (np.ndarray, np.generic)):
            if np.asarray(value).dtype.kind == "O" and name != "feature_names_in_":
                raise TypeError(f"cannot save attribute {name!r}: object arrays are not allowed.")
            arrays[name] = value
        elif _is_jsonable(value):
            plain[name] = value
        else:
            raise TypeError(f"cannot save attribute {name!r} of type {type(value).__name__}.")
    return arrays, plain, sparse


# parameters that only feed fit (the model does not read them again): saved as None (a
# PrecomputedNeighbors index, as 'auto')
FIT_INPUTS = ("precomputed_knn",)


def save(estimator, path, *, overwrite=True, columns=None, categories=None, label_column=None):
    """Save a fitted lowdim estimator to ``path`` (JSON manifest + arrays, no pickle).

    Parameters
    ----------
    estimator : lowdim estimator, or scikit-learn ``Pipeline`` of lowdim estimators
        Each must be of a class in lowdim's registry. Parameters must be JSON values
        (a ``random_state`` Generator is saved as None, and so is a
        ``precomputed_knn`` graph: the fitted model does not read it again). A
        pipeline (``make_pipeline(StandardScaler(), PCA(5), UMAP())``) is saved whole
        and loads as a ``Pipeline``. A PCA built by ``partial_fit`` keeps its running
        moments too, so that the loaded model continues the stream.
    path : str or path-like
        Destination file (conventionally ``*.lowdim``); replaced if it exists, in one
        step once the new file is complete (an interrupted save keeps the old file).
    overwrite : bool, default=True
        False: refuse (``FileExistsError``) if ``path`` exists when the file is placed,
        even if another process created it meanwhile.
    columns : sequence of str, optional
        The names of the input columns the model was fitted on, in order (read back
        with :func:`saved_columns`; ``lowdim transform`` picks a new table's columns by
        them).
    categories : dict, optional
        For a model of a mixed table: ``{column: {'levels': [...], 'ordered': bool}}``
        for each category column (named in ``columns``), its categories in code order
        (read back with :func:`saved_columns`; ``lowdim transform`` codes a new file's
        categories by them, not by the new file's own levels).
    label_column : str, optional
        The training table's label column (read back with :func:`saved_columns`;
        ``lowdim transform`` carries a new file's column of that name into its output).

    Raises
    ------
    ValueError
        When the model's description (parameters, attribute lists, categories) is
        larger than ``load`` reads (1 MiB): nothing is written.

    Examples
    --------
    >>> import numpy as np, tempfile, os, lowdim
    >>> model = lowdim.PCA(2).fit(np.random.default_rng(0).normal(size=(20, 4)))
    >>> path = os.path.join(tempfile.mkdtemp(), "pca.lowdim")
    >>> lowdim.save(model, path)
    >>> lowdim.load(path).n_components_
    2
    """
    steps = _steps_of(estimator)
    if columns is not None:
        columns = [str(c) for c in columns]
        width = getattr(steps[0][1], "n_features_in_", None)
        if width is not None and len(columns) != width:
            raise ValueError(f"columns names {len(columns)} columns, but the model takes {width}.")
    if categories is not None:
        categories = _checked_categories(categories, columns, ValueError)
    pipeline = bool(steps[0][0])  # named steps: a Pipeline
    payload = {}
    parts = []
    for i, (name, step) in enumerate(steps):
        part, arrays = _step_manifest(step, prefix=f"{i}/" if pipeline else "")
        parts.append({"name": name, **part} if pipeline else part)
        payload.update(arrays)
    manifest = _whole_manifest(parts, pipeline, columns, categories, label_column)
    text = json.dumps(manifest, indent=1)
    _check_manifest_size(text, manifest, parts)
    with (
        atomic_path(path, overwrite=overwrite) as tmp,
        zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf,
    ):
        zf.writestr("manifest.json", text)
        for name, data in payload.items():
            zf.writestr(f"arrays/{name}.npy", data)


def _whole_manifest(parts, pipeline, columns, categories, label_column):
    """The file's manifest: the steps' sections (one, or a Pipeline's), the table's
    columns and categories, and the oldest format version that reads it."""
    # the oldest version that reads the file: older lowdim versions read what they can
    version = 3 if any(part.get("param_arrays") for part in parts) else 2 if pipeline or columns is not None else 1
    manifest = {"format": "lowdim-model", "format_version": version}
    if pipeline:
        manifest.update({"class": "Pipeline", "steps": parts})
    else:
        manifest.update(parts[0])
    if columns is not None:
        manifest["columns"] = columns
    if categories:
        manifest["categories"] = categories
    if label_column is not None:
        manifest["label_column"] = str(label_column)
    return manifest


def _check_manifest_size(text, manifest, parts):
    """Refuse, before anything is written, a manifest larger than ``load`` reads (a file
    that saves but never loads): name what fills it, mostly the category lists of a
    model of a table with many distinct values."""
    size = len(text.encode())
    if size <= MAX_MANIFEST_BYTES:
        return
    entries = {name: manifest[name] for name in ("columns", "categories") if name in manifest}
    for part in parts:
        entries.update({f"{part.get('prefix', '')}{name}": value for name, value in part["attributes"].items()})
    largest = max(entries, key=lambda name: len(json.dumps(entries[name])))
    held = entries[largest]
    count = sum(len(v) if isinstance(v, list) else 1 for v in held) if isinstance(held, list) else len(held)
    raise ValueError(
        f"cannot save this {manifest.get('class', 'model')}: its description takes {size / 2**20:.1f} MiB, more "
        f"than the {MAX_MANIFEST_BYTES / 2**20:g} MiB a model file may hold (mostly {largest}, of {count:,} "
        "entries). A model of so many categories cannot be saved: merge rare categories, or leave the columns "
        "of nearly unique values (identifiers, numbers read as categories) out."
    )


def _steps_of(estimator):
    """``[(name, step), ...]``: the steps of a scikit-learn ``Pipeline`` of lowdim
    estimators, or ``[("", estimator)]``."""
    from sklearn.pipeline import Pipeline

    if not isinstance(estimator, Pipeline):
        return [("", estimator)]
    steps = list(estimator.steps)
    if not steps or any(step in (None, "passthrough") for _, step in steps):
        raise TypeError("cannot save a pipeline with empty or 'passthrough' steps.")
    if len(steps) > MAX_STEPS:
        raise TypeError(f"cannot save a pipeline of {len(steps)} steps (at most {MAX_STEPS}).")
    return steps


def _step_manifest(estimator, prefix=""):
    """``(section, {member name: .npy bytes})`` of one estimator: its class,
    parameters, JSON attributes and arrays (stored under ``arrays/<prefix><name>``)."""
    cls = type(estimator).__name__
    if cls not in REGISTRY or registered_class(cls) is not type(estimator):
        raise TypeError(f"cannot save {cls}: only lowdim estimators ({', '.join(REGISTRY)}) can be saved.")
    if cls not in FITTED:  # a method added without its entry: its files could not be checked when loaded
        raise TypeError(
            f"cannot save {cls}: io/_fitted_table.py has no entry for it, so its model files could not be "
            f"checked when loaded; write the entry with: python tests/test_model_schema.py {cls}"
        )
    params, param_arrays = {}, {}
    for key, value in estimator.get_params(deep=False).items():
        if isinstance(value, np.random.Generator | np.random.RandomState) or key in FIT_INPUTS:
            value = None
        if key == "neighbors_algorithm":  # given neighbours fed fit only: new rows are searched with 'auto'
            value = search_algorithm(value)
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            param_arrays[key] = value
            continue
        if not _is_jsonable(value):
            raise TypeError(f"cannot save parameter {key}={value!r}: only JSON values and numeric arrays can be saved.")
        params[key] = value
    if hasattr(type(estimator), "_sync_fitted"):
        estimator._sync_fitted()
    arrays, plain, sparse = _split_state(estimator)
    section = {"class": cls, "params": params, "attributes": plain, "arrays": {}, "sparse": sparse}
    if prefix:
        section["prefix"] = prefix
    payload = {}
    for name, value in arrays.items():
        section["arrays"][name] = _packed(value, prefix + name, payload)
    if param_arrays:
        section["param_arrays"] = {
            key: _packed(value, f"{prefix}params/{key}", payload) for key, value in param_arrays.items()
        }
    return section, payload


def _packed(value, member, payload):
    """Store ``value`` as ``.npy`` bytes in ``payload[member]``; its manifest entry."""
    arr = np.asarray(value)
    stored = arr.astype(str) if arr.dtype.kind == "O" else arr
    buf = io.BytesIO()
    np.save(buf, stored, allow_pickle=False)
    payload[member] = buf.getvalue()
    return {
        "dtype": "object-str" if arr.dtype.kind == "O" else arr.dtype.str,
        "shape": list(arr.shape),
        "scalar": isinstance(value, np.generic),
        "sha256": hashlib.sha256(payload[member]).hexdigest(),
    }


def _read_manifest(zf):
    try:
        info = zf.getinfo("manifest.json")
    except KeyError:
        raise UntrustedModelError("not a lowdim model file: manifest.json is missing.") from None
    if info.file_size > MAX_MANIFEST_BYTES:
        raise UntrustedModelError(f"oversized manifest ({info.file_size} bytes > {MAX_MANIFEST_BYTES}).")
    try:
        with zf.open(info) as fh:
            text = fh.read(MAX_MANIFEST_BYTES + 1)
        if len(text) > MAX_MANIFEST_BYTES:
            raise UntrustedModelError(f"oversized manifest (more than {MAX_MANIFEST_BYTES} bytes).")
        manifest = json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise UntrustedModelError(f"corrupt manifest.json: {str(exc)[:200]}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "lowdim-model":
        raise UntrustedModelError("not a lowdim model file: manifest has no 'format': 'lowdim-model'.")
    version = manifest.get("format_version")
    if (
        not isinstance(version, numbers.Integral)
        or isinstance(version, bool)
        or version > FORMAT_VERSION
        or version < 1
    ):
        raise UntrustedModelError(
            f"unsupported format version {version} (this lowdim reads version {FORMAT_VERSION}); upgrade lowdim."
        )
    _check_schema(manifest)
    return manifest


def _checked_categories(categories, columns, error):
    """``categories`` as plain JSON (``{column: {'levels': [str], 'ordered': bool}}``),
    each a named column; anything else raises ``error``."""
    if not isinstance(categories, dict) or columns is None:
        raise error("categories must be a dict {column: {'levels': [...], 'ordered': bool}} beside the column names.")
    out = {}
    for name, spec in categories.items():
        levels = spec.get("levels") if isinstance(spec, dict) else None
        if name not in columns or not isinstance(levels, list) or not all(isinstance(v, str) for v in levels):
            raise error(f"categories[{name!r}] must name a model column and list its categories as text.")
        out[str(name)] = {"levels": levels, "ordered": bool(spec.get("ordered", False))}
    return out


def _fail_schema(what):
    raise UntrustedModelError(f"corrupt manifest: {what}.")


def _check_schema(manifest):
    """Every section of the manifest has the type the loader expects, before any is used:
    one estimator's section, or a pipeline's list of them; the column names a list of
    text."""
    columns = manifest.get("columns")
    if columns is not None and not (isinstance(columns, list) and all(isinstance(c, str) for c in columns)):
        _fail_schema("'columns' must be a list of column names")
    if "categories" in manifest:
        _checked_categories(manifest["categories"], columns, UntrustedModelError)
    if not isinstance(manifest.get("label_column", ""), str):
        _fail_schema("'label_column' must be a column name")
    if manifest.get("class") != "Pipeline":
        _check_section(manifest, "")
        return
    steps = manifest.get("steps")
    if not (isinstance(steps, list) and 1 <= len(steps) <= MAX_STEPS):
        _fail_schema(f"a pipeline needs 'steps', a list of 1 to {MAX_STEPS} estimators")
    names = [part.get("name") if isinstance(part, dict) else None for part in steps]
    if not all(isinstance(n, str) and n.isidentifier() for n in names) or len(set(names)) != len(names):
        _fail_schema("pipeline steps need distinct names")
    for i, part in enumerate(steps):
        _check_section(part, f"{i}/")


def _check_section(section, prefix):
    """One estimator's section: a class name, mappings of JSON parameters and
    attributes, array entries with shapes, its arrays under ``prefix``."""
    fail = _fail_schema
    if not isinstance(section.get("class"), str) or section.get("class") == "Pipeline":
        fail("'class' must be a class name")
    if section.get("prefix", "") != prefix:
        fail(f"arrays of this step belong under {prefix!r}")
    for key in ("params", "param_arrays", "attributes", "arrays", "sparse"):
        if not isinstance(section.get(key, {}), dict):
            fail(f"{key!r} must be a mapping")
    if not all(_is_jsonable(v) for v in section.get("params", {}).values()):
        fail(f"params must be JSON values nested at most {MAX_MANIFEST_DEPTH} deep")
    if not all(_is_jsonable(v) for v in section.get("attributes", {}).values()):
        fail(f"attributes must be JSON values nested at most {MAX_MANIFEST_DEPTH} deep")
    for name, meta in (*section.get("arrays", {}).items(), *section.get("param_arrays", {}).items()):
        shape = meta.get("shape") if isinstance(meta, dict) else None
        if not (
            isinstance(shape, list)
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_DIMENSION for v in shape)
            and len(shape) <= 8
        ):
            fail(f"array {name!r} needs a shape of at most 8 non-negative integers")
        if not (
            isinstance(meta.get("dtype"), str)
            and isinstance(meta.get("sha256"), str)
            and isinstance(meta.get("scalar", False), bool)
        ):
            fail(f"array {name!r} needs a dtype, a sha256 and a scalar flag")
    for name, shape in section.get("sparse", {}).items():
        if not (
            isinstance(shape, list)
            and len(shape) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_DIMENSION for v in shape)
        ):
            fail(f"sparse attribute {name!r} needs a shape of two non-negative integers")


def _array_limit():
    """The most bytes the arrays of one file may decompress to: half the available memory."""
    return available_bytes() // 2


def _read_array(zf, name, meta, budget, prefix=""):
    """One array, read against its manifest entry: the .npy header is parsed first and
    its size checked against the member's declared size and the remaining ``budget``
    before anything is allocated; then the data is decompressed into the array in
    pieces, hashed on the way (a corrupt or edited file never costs more memory than
    the array it claims to be). Returns (array, bytes used)."""
    member = f"arrays/{prefix}{name}.npy"
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise UntrustedModelError(f"array {name!r} listed in the manifest is missing.") from None
    digest = hashlib.sha256()
    with zf.open(info) as fh:
        header = _HashingReader(fh, digest)
        dtype, shape, fortran = _npy_header(header, name)
        if list(shape) != list(meta["shape"]):
            raise UntrustedModelError(
                f"inconsistent shape for array {name!r}: manifest says {meta['shape']}, data has {list(shape)}."
            )
        nbytes = math.prod(int(v) for v in shape) * dtype.itemsize  # Python ints: no overflow
        if info.file_size != header.count + nbytes:
            raise UntrustedModelError(
                f"array {name!r} declares {nbytes} bytes of data, but its member holds "
                f"{info.file_size - header.count}: the file is corrupt or was edited."
            )
        if nbytes > budget:
            raise UntrustedModelError(
                f"array {name!r} would need {nbytes} bytes, more than the {budget} bytes this "
                "file may use (half the available memory); the file is corrupt or hostile."
            )
        if info.file_size > BOMB_CHECK_FROM and info.file_size > MAX_COMPRESSION_RATIO * max(info.compress_size, 1):
            raise UntrustedModelError(
                f"array {name!r} unpacks {info.compress_size} bytes into {info.file_size}, a "
                "ratio no fitted model has: the file is a zip bomb or corrupt."
            )
        arr = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
        view = memoryview(arr.reshape(-1, order="A").view(np.uint8)) if nbytes else memoryview(b"")
        filled = 0
        while filled < nbytes:
            got = fh.readinto(view[filled : filled + READ_CHUNK])
            if not got:
                raise UntrustedModelError(f"array {name!r} is truncated.")
            digest.update(view[filled : filled + got])
            filled += got
        if fh.read(1):
            raise UntrustedModelError(f"array {name!r} has data beyond its declared size.")
    if digest.hexdigest() != meta["sha256"]:
        raise UntrustedModelError(f"wrong checksum for array {name!r}: the file is corrupt or was edited.")
    return _typed(arr, name, meta), nbytes


class _HashingReader:
    """A file-like wrapper that hashes and counts what the .npy header parser reads."""

    def __init__(self, fh, digest):
        self.fh, self.digest, self.count = fh, digest, 0

    def read(self, size=-1):
        data = self.fh.read(size)
        self.digest.update(data)
        self.count += len(data)
        return data


def _npy_header(reader, name):
    """(dtype, shape, fortran_order) from a .npy header, refusing object dtypes."""
    from numpy.lib import format as npy

    try:
        version = npy.read_magic(reader)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(reader, max_header_size=1 << 16)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = npy.read_array_header_2_0(reader, max_header_size=1 << 16)
        else:
            raise ValueError(f"unknown .npy version {version}")
    except Exception as exc:  # noqa: BLE001 - numpy's parser on hostile bytes: SyntaxError, TokenError, ...
        raise UntrustedModelError(f"array {name!r} has a corrupt .npy header: {str(exc)[:200]}") from None
    if dtype.hasobject or dtype.kind not in "biufcU" or dtype.fields is not None:
        raise UntrustedModelError(
            f"array {name!r} has dtype {dtype}, which lowdim never saves (no pickle, no objects)."
        )
    return dtype, shape, fortran


def _typed(arr, name, meta):
    """The array as saved: string arrays only for labels and names, the dtype the
    manifest declares, a 0-d array back to a scalar when it was one."""
    if meta["dtype"] == "object-str":
        if arr.dtype.kind != "U" or name not in STRING_ATTRIBUTES:
            raise UntrustedModelError(f"array {name!r} holds text where lowdim saves numbers.")
        return arr.astype(object)
    if arr.dtype.kind == "U" and name not in STRING_ATTRIBUTES:
        raise UntrustedModelError(f"array {name!r} holds text where lowdim saves numbers.")
    if arr.dtype.str != meta["dtype"]:
        raise UntrustedModelError(
            f"inconsistent dtype for array {name!r}: manifest says {meta['dtype']}, data has {arr.dtype.str}."
        )
    return arr[()] if meta.get("scalar") else arr


def _attribute_name(name):
    if not (isinstance(name, str) and name.isidentifier() and name.endswith("_") and not name.startswith("_")):
        raise UntrustedModelError(f"corrupt manifest: {name!r} is not a fitted-attribute name.")
    return name


def load(path):
    """Load an estimator saved with ``lowdim.save``.

    The file is checked before it is used: a zip archive whose members decompress
    correctly, a manifest of the expected schema, arrays whose headers, sizes and
    checksums agree with it (sizes checked before anything is allocated, at most half
    the available memory in all), only lowdim's classes, and fitted attributes that
    work together (the model is tried on two rows of zeros: its outputs must have the
    shapes its attributes declare).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        Of the saved class, with the saved parameters and fitted attributes.

    Raises
    ------
    UntrustedModelError
        Not a model file, corrupt or edited (bad CRC or checksum, truncated, sizes
        that disagree), unknown class, newer format version, an array that would need
        pickle, or attributes that do not make a working model of the class.

    Examples
    --------
    >>> import lowdim  # see lowdim.save for a round trip
    """
    with _opened(path) as fh:  # a missing or unreadable path is the caller's OSError, not the file's fault
        try:
            with zipfile.ZipFile(fh) as zf:
                _check_archive(zf, path)
                estimator, _ = _read_model(zf, path)
        except UntrustedModelError:
            raise
        except ARCHIVE_ERRORS as exc:
            raise UntrustedModelError(
                f"{path} is not a readable lowdim model file (corrupt zip archive: {type(exc).__name__}: "
                f"{str(exc)[:200]})."
            ) from None
    return estimator


def saved_columns(path, *, categories=False, label=False):
    """The input column names a model file was saved with (``save(..., columns=)``),
    or None; with ``categories``, also its category columns (``save(..., categories=)``);
    with ``label``, also its label column (``save(..., label_column=)``).

    Parameters
    ----------
    path : str or path-like
    categories : bool, default=False
        Also return ``{column: {'levels': [...], 'ordered': bool}}`` (empty for a
        model of numbers).
    label : bool, default=False
        Also return the label column's name, or None.

    Returns
    -------
    list of str or None, followed with ``categories`` by a dict and with ``label`` by
    a str or None (a tuple when either is asked for)

    Examples
    --------
    >>> import numpy as np, tempfile, os, lowdim
    >>> model = lowdim.PCA(1).fit(np.random.default_rng(0).normal(size=(20, 2)))
    >>> path = os.path.join(tempfile.mkdtemp(), "pca.lowdim")
    >>> lowdim.save(model, path, columns=["height", "weight"])
    >>> saved_columns(path)
    ['height', 'weight']
    """
    with _opened(path) as fh:
        try:
            with zipfile.ZipFile(fh) as zf:
                manifest = _read_manifest(zf)
                asked = [manifest.get("columns")]
                asked += [manifest.get("categories", {})] if categories else []
                asked += [manifest.get("label_column")] if label else []
                return tuple(asked) if len(asked) > 1 else asked[0]
        except UntrustedModelError:
            raise
        except ARCHIVE_ERRORS as exc:
            raise UntrustedModelError(f"{path} is not a readable lowdim model file ({type(exc).__name__}).") from None


def _opened(path):
    """``path`` opened for reading, or a file object given as it is (left open)."""
    if hasattr(path, "read"):
        return contextlib.nullcontext(path)
    return open(path, "rb")


# what reading a hostile archive can raise besides our own checks: bad zip structures,
# corrupt deflate/LZMA/BZIP2 streams, an encrypted member (RuntimeError), seeks past the
# end (OSError: EINVAL), sizes too large for the platform
ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    OSError,
    OverflowError,
    ValueError,
    MemoryError,
)


def _check_archive(zf, path):
    """One member per name (lowdim would read the last, unzip the first), and no more
    inflated bytes in all than a model's arrays could pack into the archive's size."""
    names = zf.namelist()
    if len(names) != len(set(names)):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise UntrustedModelError(f"{path} holds duplicate members ({', '.join(twice[:5])}): the file was edited.")
    inflated = sum(info.file_size for info in zf.infolist())
    packed = sum(info.compress_size for info in zf.infolist())
    if inflated > BOMB_CHECK_FROM and inflated > MAX_COMPRESSION_RATIO * max(packed, 1):
        raise UntrustedModelError(
            f"{path} unpacks {packed} bytes into {inflated}, a ratio no fitted model has: the file is a zip bomb."
        )


def _read_model(zf, path):
    """``(estimator or Pipeline, manifest)``, every step read, checked and tried."""
    manifest = _read_manifest(zf)
    budget = [_array_limit()]
    if manifest["class"] != "Pipeline":
        estimator = _read_step(zf, manifest, path, budget)
    else:
        from sklearn.pipeline import Pipeline

        steps = [(part["name"], _read_step(zf, part, path, budget)) for part in manifest["steps"]]
        estimator = Pipeline(steps)
        check_usable(estimator)  # the steps fit together: each takes what the one before gives
    columns = manifest.get("columns")
    width = getattr(estimator, "n_features_in_", None)
    if columns is not None and width is not None and len(columns) != width:
        raise UntrustedModelError(f"the manifest names {len(columns)} columns, but the model takes {width}.")
    return estimator, manifest


def _read_step(zf, section, path, budget):
    """One estimator from its manifest section (arrays under ``arrays/<prefix>``),
    its parameters validated before any array is read and the model tried on two
    rows; ``budget`` (a one-item list) is what the file's arrays may still use."""
    cls_name = section["class"]
    if cls_name not in REGISTRY:
        raise UntrustedModelError(
            f"untrusted type {cls_name!r} in {path}: only lowdim estimators ({', '.join(REGISTRY)}) can be loaded."
        )
    cls = registered_class(cls_name)
    prefix = section.get("prefix", "")
    params = dict(section.get("params", {}))
    for key, meta in section.get("param_arrays", {}).items():
        if not (isinstance(key, str) and key.isidentifier()) or key in params:
            raise UntrustedModelError(f"corrupt manifest: {key!r} is not an array parameter name.")
        params[key], used = _read_array(zf, f"params/{key}", meta, budget[0], prefix)
        budget[0] -= used
    try:
        estimator = cls(**params)
        if hasattr(cls, "_parameter_constraints"):
            validate_params(estimator)  # before any stored value can size a computation
    except (TypeError, ValueError) as exc:
        raise UntrustedModelError(f"parameters in the manifest do not fit {cls_name}: {str(exc)[:300]}") from None
    attributes = {_attribute_name(name): value for name, value in section.get("attributes", {}).items()}
    for name, meta in section.get("arrays", {}).items():
        value, used = _read_array(zf, _attribute_name(name), meta, budget[0], prefix)
        budget[0] -= used
        attributes[name] = value
    for name, value in attributes.items():
        try:
            setattr(estimator, name, value)
        except AttributeError:  # a read-only property of the class (Isomap.dist_matrix_)
            raise UntrustedModelError(f"{cls_name} has no settable attribute {name!r}: the file was edited.") from None
    check_fitted(estimator, attributes)
    for name, shape in section.get("sparse", {}).items():
        setattr(estimator, _attribute_name(name), _assemble_csr(estimator, name, shape))
    check_usable(estimator)
    return estimator


def _assemble_csr(estimator, name, shape):
    """The CSR matrix ``name`` from its three stored arrays, fully checked."""
    try:
        parts = [vars(estimator).pop(f"{name}csr_{part}_") for part in SPARSE_PARTS]
        matrix = sp.csr_matrix(tuple(parts), shape=tuple(int(v) for v in shape))
        matrix.check_format(full_check=True)
    except (KeyError, ValueError, TypeError) as exc:
        raise UntrustedModelError(f"corrupt sparse attribute {name!r}: {exc}") from None
    return matrix
