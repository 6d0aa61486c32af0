"""Safe model files: a JSON manifest plus ``.npy`` arrays in one zip, no pickle.

Layout of ``path`` (a zip archive):

- ``manifest.json``: format version, class name (must be in ``REGISTRY``), parameters,
  JSON-able fitted attributes, and for each array its dtype, shape and SHA-256;
- ``arrays/<name>.npy``: one array per fitted array attribute, read with
  ``allow_pickle=False``.

Loading imports nothing named by the file except classes of lowdim's registry and runs
no code from it.
"""

import hashlib
import io
import json
import numbers
import zipfile
from importlib import import_module

import numpy as np
import scipy.sparse as sp

from ..exceptions import UntrustedModelError

FORMAT_VERSION = 1
MAX_MANIFEST_BYTES = 1 << 20
MAX_ARRAY_BYTES = 1 << 34

# class name in files -> defining module (only lowdim estimators may be loaded)
REGISTRY = {
    "PCA": "lowdim.decomposition._pca",
    "IncrementalPCA": "lowdim.decomposition._incremental",
    "ProbabilisticPCA": "lowdim.decomposition._ppca",
    "FactorAnalysis": "lowdim.decomposition._factor_analysis",
    "FastICA": "lowdim.decomposition._fastica",
    "KernelPCA": "lowdim.decomposition._kernel_pca",
    "NMF": "lowdim.decomposition._nmf",
    "MatrixFactorization": "lowdim.decomposition._nmf",
    "LinearDiscriminantAnalysis": "lowdim.decomposition._lda",
    "KMeans": "lowdim.cluster._kmeans",
    "MiniBatchKMeans": "lowdim.cluster._minibatch",
    "KMedoids": "lowdim.cluster._kmedoids",
    "GaussianMixture": "lowdim.cluster._gaussian_mixture",
    "Isomap": "lowdim.manifold._isomap",
    "LocallyLinearEmbedding": "lowdim.manifold._lle",
    "MDS": "lowdim.manifold._mds",
    "MaximumVarianceUnfolding": "lowdim.manifold._mvu",
    "SpectralEmbedding": "lowdim.manifold._spectral",
    "TSNE": "lowdim.embedding._tsne",
    "SNE": "lowdim.embedding._sne",
    "UMAP": "lowdim.embedding._umap",
}

_JSON_SCALARS = (str, bool, int, float, type(None))


def _is_jsonable(value, depth=0):
    """A JSON value (scalars, lists, dicts with string keys; finite floats), nested at
    most 16 deep (parameters such as ``metric_params={'p': 3}`` are shallow)."""
    if depth > 16:
        return False
    if isinstance(value, _JSON_SCALARS):
        return not (isinstance(value, float) and not np.isfinite(value))
    if isinstance(value, (list, tuple)):
        return all(_is_jsonable(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_jsonable(v, depth + 1) for k, v in value.items())
    return False


SPARSE_PARTS = ("data", "indices", "indptr")


def _split_state(estimator):
    """Fitted attributes as (arrays, JSON values, sparse shapes); a sparse matrix is
    stored as the three arrays of its CSR form."""
    arrays, plain, sparse = {}, {}, {}
    for name, value in vars(estimator).items():
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


def save(estimator, path):
    """Save a fitted lowdim estimator to ``path`` (JSON manifest + arrays, no pickle).

    Parameters
    ----------
    estimator : lowdim estimator
        Must be of a class in lowdim's registry. Parameters must be JSON values
        (a ``random_state`` Generator is saved as None).
    path : str or path-like
        Destination file (conventionally ``*.lowdim``); replaced if it exists.

    Examples
    --------
    >>> import numpy as np, tempfile, os, lowdim
    >>> model = lowdim.PCA(2).fit(np.random.default_rng(0).normal(size=(20, 4)))
    >>> path = os.path.join(tempfile.mkdtemp(), "pca.lowdim")
    >>> lowdim.save(model, path)
    >>> lowdim.load(path).n_components_
    2
    """
    cls = type(estimator).__name__
    if REGISTRY.get(cls) != type(estimator).__module__:
        raise TypeError(f"cannot save {cls}: only lowdim estimators ({', '.join(REGISTRY)}) can be saved.")
    params = {}
    for key, value in estimator.get_params(deep=False).items():
        if isinstance(value, np.random.Generator | np.random.RandomState):
            value = None
        if not _is_jsonable(value):
            raise TypeError(f"cannot save parameter {key}={value!r}: only JSON values can be saved.")
        params[key] = value
    if hasattr(type(estimator), "_sync_fitted"):
        estimator._sync_fitted()
    arrays, plain, sparse = _split_state(estimator)
    manifest = {"format": "lowdim-model", "format_version": FORMAT_VERSION, "class": cls,
                "params": params, "attributes": plain, "arrays": {}, "sparse": sparse}
    payload = {}
    for name, value in arrays.items():
        arr = np.asarray(value)
        stored = arr.astype(str) if arr.dtype.kind == "O" else arr
        buf = io.BytesIO()
        np.save(buf, stored, allow_pickle=False)
        payload[name] = buf.getvalue()
        manifest["arrays"][name] = {
            "dtype": "object-str" if arr.dtype.kind == "O" else arr.dtype.str,
            "shape": list(arr.shape),
            "scalar": isinstance(value, np.generic),
            "sha256": hashlib.sha256(payload[name]).hexdigest(),
        }
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest, indent=1))
        for name, data in payload.items():
            zf.writestr(f"arrays/{name}.npy", data)


def _read_manifest(zf):
    try:
        info = zf.getinfo("manifest.json")
    except KeyError:
        raise UntrustedModelError("not a lowdim model file: manifest.json is missing.") from None
    if info.file_size > MAX_MANIFEST_BYTES:
        raise UntrustedModelError(f"oversized manifest ({info.file_size} bytes > {MAX_MANIFEST_BYTES}).")
    try:
        manifest = json.loads(zf.read(info).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UntrustedModelError(f"corrupt manifest.json: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "lowdim-model":
        raise UntrustedModelError("not a lowdim model file: manifest has no 'format': 'lowdim-model'.")
    version = manifest.get("format_version")
    if not isinstance(version, numbers.Integral) or version > FORMAT_VERSION or version < 1:
        raise UntrustedModelError(f"unsupported format version {version} (this lowdim reads "
                                  f"version {FORMAT_VERSION}); upgrade lowdim.")
    return manifest


def _read_array(zf, name, meta):
    member = f"arrays/{name}.npy"
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise UntrustedModelError(f"array {name!r} listed in the manifest is missing.") from None
    if info.file_size > MAX_ARRAY_BYTES:
        raise UntrustedModelError(f"array {name!r} is oversized ({info.file_size} bytes).")
    data = zf.read(info)
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise UntrustedModelError(f"wrong checksum for array {name!r}: the file is corrupt or was edited.")
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise UntrustedModelError(f"array {name!r} cannot be read without pickle: {exc}") from None
    if list(arr.shape) != list(meta.get("shape", [])):
        raise UntrustedModelError(f"inconsistent shape for array {name!r}: manifest says "
                                  f"{meta.get('shape')}, data has {list(arr.shape)}.")
    if meta.get("dtype") == "object-str":
        return arr.astype(object)
    if arr.dtype.str != meta.get("dtype"):
        raise UntrustedModelError(f"inconsistent dtype for array {name!r}.")
    return arr[()] if meta.get("scalar") else arr


def _attribute_name(name):
    if not (isinstance(name, str) and name.isidentifier() and name.endswith("_")
            and not name.startswith("_")):
        raise UntrustedModelError(f"corrupt manifest: {name!r} is not a fitted-attribute name.")
    return name


def load(path):
    """Load an estimator saved with ``lowdim.save``.

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
        Unknown class, newer format version, bad checksum, inconsistent shapes, or an
        array that would need pickle.

    Examples
    --------
    >>> import lowdim  # see lowdim.save for a round trip
    """
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise UntrustedModelError(f"{path} is not a lowdim model file (not a zip archive).") from None
    with zf:
        manifest = _read_manifest(zf)
        cls_name = manifest.get("class")
        if cls_name not in REGISTRY:
            raise UntrustedModelError(f"untrusted type {cls_name!r} in {path}: only lowdim "
                                      f"estimators ({', '.join(REGISTRY)}) can be loaded.")
        cls = getattr(import_module(REGISTRY[cls_name]), cls_name)
        params = manifest.get("params", {})
        if not isinstance(params, dict) or not all(_is_jsonable(v) for v in params.values()):
            raise UntrustedModelError("corrupt manifest: params must be a dict of JSON values.")
        try:
            estimator = cls(**params)
        except TypeError as exc:
            raise UntrustedModelError(f"parameters in the manifest do not fit {cls_name}: {exc}") from None
        for name, value in manifest.get("attributes", {}).items():
            setattr(estimator, _attribute_name(name), value)
        for name, meta in manifest.get("arrays", {}).items():
            setattr(estimator, _attribute_name(name), _read_array(zf, name, meta))
    for name, shape in manifest.get("sparse", {}).items():
        setattr(estimator, _attribute_name(name), _assemble_csr(estimator, name, shape))
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
