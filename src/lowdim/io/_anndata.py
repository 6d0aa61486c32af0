"""AnnData ``.h5ad`` files read with h5py from their documented on-disk layout.

``X`` may be a dense dataset or a CSR/CSC group (``data``, ``indices``, ``indptr`` and a
``shape`` attribute); labels come from an ``obs`` column, plain or categorical (``codes``
and ``categories``). The anndata package is not needed.
"""

import numpy as np
import scipy.sparse as sp

from ..exceptions import DataFileError
from ._binary import _check_declared, _check_numeric


def _text(values):
    return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in values])


def _obs_column(path, obs, name):
    if name not in obs:
        columns = [k for k in obs.keys() if not k.startswith("_")]
        raise DataFileError(f"{path}: obs has no column {name!r}; columns are {', '.join(columns[:10])}.")
    column = obs[name]
    if hasattr(column, "keys") and "codes" in column:
        codes = column["codes"][()]
        categories = _text(column["categories"][()])
        return np.where(codes >= 0, categories[np.maximum(codes, 0)], "")
    return _text(column[()])


def _matrix(path, node, max_bytes):
    if not hasattr(node, "keys"):
        _check_numeric(path, node.dtype)
        _check_declared(path, node.shape, node.dtype.itemsize, max_bytes)
        return np.asarray(node[()])
    encoding = node.attrs.get("encoding-type", b"")
    encoding = encoding.decode() if isinstance(encoding, bytes) else str(encoding)
    shape = tuple(int(s) for s in node.attrs.get("shape", node.attrs.get("h5sparse_shape", ())))
    if encoding not in ("csr_matrix", "csc_matrix") or len(shape) != 2:
        raise DataFileError(f"{path}: X is stored as {encoding or 'an unknown group'}; only dense, "
                            "CSR and CSC matrices are read.")
    _check_numeric(path, node["data"].dtype)
    _check_declared(path, shape, 8, max_bytes)
    kind = sp.csr_matrix if encoding == "csr_matrix" else sp.csc_matrix
    try:
        matrix = kind((node["data"][()], node["indices"][()], node["indptr"][()]), shape=shape)
    except ValueError as exc:
        raise DataFileError(f"{path}: X's sparse arrays are inconsistent ({exc}).") from None
    return matrix.toarray()


def read_h5ad(path, *, label_column=None, max_bytes=None):
    """``(X, feature_names, labels)`` of an AnnData file.

    Examples
    --------
    >>> import numpy as np, tempfile, os, h5py
    >>> p = os.path.join(tempfile.mkdtemp(), "a.h5ad")
    >>> with h5py.File(p, "w") as f:
    ...     _ = f.create_dataset("X", data=np.ones((3, 2)))
    ...     _ = f.create_dataset("obs/cell", data=np.array([b"a", b"b", b"a"]))
    >>> X, names, y = read_h5ad(p, label_column="cell")
    >>> X.shape, y.tolist()
    ((3, 2), ['a', 'b', 'a'])
    """
    import h5py

    try:
        with h5py.File(path, "r") as fh:
            if "X" not in fh:
                raise DataFileError(f"{path}: no X matrix; is this an AnnData file?")
            X = _matrix(path, fh["X"], max_bytes)
            names = _feature_names(fh, X.shape[1])
            labels = None if label_column is None else _obs_column(path, fh.get("obs", {}), label_column)
    except Exception as exc:  # noqa: BLE001 - h5py raises many types on corrupt files
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a readable .h5ad file ({exc}).") from None
    return X, names, labels


def _feature_names(fh, width):
    var = fh.get("var")
    index = None
    if var is not None and hasattr(var, "attrs"):
        key = var.attrs.get("_index", "_index")
        key = key.decode() if isinstance(key, bytes) else key
        if key in var and not hasattr(var[key], "keys"):
            index = _text(var[key][()])
    if index is None or len(index) != width:
        return [f"x{j + 1}" for j in range(width)]
    return index.tolist()
