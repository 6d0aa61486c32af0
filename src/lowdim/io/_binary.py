"""Binary array files: NPY/NPZ and HDF5 (Parquet tables: ``_parquet``).

Each reader checks the size its header declares before allocating anything and turns
the libraries' own failures on malformed files into :class:`DataFileError`.
"""

import math
import os
import zipfile

import numpy as np

from .._memory import available_bytes
from .._warnings import warn_user
from ..exceptions import DataFileError


def _byte_limit(max_bytes):
    return int(0.8 * available_bytes()) if max_bytes is None else max_bytes


def _check_declared(path, shape, itemsize, max_bytes, *, file_bytes=None):
    """Refuse a declared shape larger than the limit (or than the file itself)."""
    if len(shape) != 2:
        raise DataFileError(f"{path}: expected a 2-D array (rows x features), the header says shape "
                            f"{tuple(shape)}; {_reshape_fix(shape)}.")  # fmt: skip
    if any(int(n) < 0 for n in shape):
        raise DataFileError(
            f"{path}: the header declares shape {tuple(shape)}, with a negative size; the file is corrupt "
            "(write it again)."
        )
    size = math.prod(int(n) for n in shape) * itemsize  # Python ints: 2**32 x 2**32 must not wrap to 0
    if file_bytes is not None and size > file_bytes:
        raise DataFileError(
            f"{path}: truncated: the header declares shape {tuple(shape)} ({size} bytes of data), "
            f"but the file holds only {file_bytes} bytes after it; the file is incomplete or "
            "corrupt (write it again)."
        )
    limit = _byte_limit(max_bytes)
    if size > limit:
        where = " (80 % of the available memory)" if max_bytes is None else ""
        raise DataFileError(
            f"{path}: the header declares shape {tuple(shape)} ({size / 1e9:.2f} GB), which "
            f"exceeds the limit of {limit / 1e9:.1f} GB{where}; subsample the data or use a chunked "
            "format."
        )


def _reshape_fix(shape):
    """How to save an array of ``shape`` (not 2-D) as a table."""
    if len(shape) == 1:
        return "save one value per row as x.reshape(-1, 1), or the values as one row as x.reshape(1, -1)"
    if len(shape) == 0:
        return "a single number is not a table"
    return f"save one row per item (an image, ...) as x.reshape({shape[0]}, -1)"


def _check_numeric(path, dtype):
    if dtype.hasobject or dtype.kind not in "biuf":
        raise DataFileError(f"{path}: dtype {dtype} is not numeric; save a float array.")


def _npy_header(fh, path):
    try:
        version = np.lib.format.read_magic(fh)
        reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f"unsupported .npy version {version}")
        return reader(fh, max_header_size=10000)
    except Exception as exc:  # noqa: BLE001 - numpy's header parser raises many types on bad bytes
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a valid .npy file ({exc}).") from None


def read_npy(path, *, max_bytes=None):
    """Memory-map a 2-D numeric ``.npy`` file after checking its header.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.npy"); np.save(p, np.ones((3, 2)))
    >>> read_npy(p).shape
    (3, 2)
    """
    with open(path, "rb") as fh:
        shape, fortran, dtype = _npy_header(fh, path)
        offset = fh.tell()
    _check_numeric(path, dtype)
    _check_declared(path, shape, dtype.itemsize, max_bytes, file_bytes=os.path.getsize(path) - offset)
    if 0 in shape:
        raise DataFileError(f"{path}: the array has shape {tuple(shape)}, no data.")
    return np.memmap(path, dtype=dtype, mode="r", shape=tuple(shape), offset=offset, order="F" if fortran else "C")


# the arrays scipy.sparse.save_npz writes: a compressed-row/column matrix, or coordinates
SPARSE_NPZ = ({"format", "shape", "data", "indices", "indptr"}, {"format", "shape", "data", "row", "col"})


def read_npz(path, *, key=None, max_bytes=None):
    """Read one 2-D array of an ``.npz`` archive (``key``; default: ``X``, else the first one,
    announced with a warning when the archive holds several). A sparse matrix saved by
    ``scipy.sparse.save_npz`` is read whole, as a dense array.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.npz"); np.savez(p, X=np.ones((3, 2)))
    >>> read_npz(p, key="X").shape
    (3, 2)
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = [n[:-4] for n in archive.namelist() if n.endswith(".npy")]
            if not members:
                raise DataFileError(f"{path}: the archive holds no arrays.")
            if key is None and any(parts <= set(members) for parts in SPARSE_NPZ):
                return _read_sparse_npz(path, archive, max_bytes)
            name = key or ("X" if "X" in members else members[0])
            if key is None and len(members) > 1:
                warn_user(
                    f"{path}: the archive holds {len(members)} arrays ({', '.join(members[:6])}); "
                    f"reading {name!r} (choose another with --key).",
                    UserWarning,
                )
            if name not in members:
                raise DataFileError(
                    f"{path}: no array named {name!r}; arrays are {', '.join(members)} (choose with --key)."
                )
            with archive.open(name + ".npy") as fh:
                shape, fortran, dtype = _npy_header(fh, path)
                _check_numeric(path, dtype)
                _check_declared(path, shape, dtype.itemsize, max_bytes)
                data = fh.read(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
    except Exception as exc:  # noqa: BLE001 - zipfile/zlib raise many types on corrupt archives
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a valid .npz archive ({type(exc).__name__}: {exc}).") from None
    count = int(np.prod(shape, dtype=np.int64))
    if len(data) != count * dtype.itemsize:
        raise DataFileError(f"{path}: array {name!r} is truncated ({len(data)} of {count * dtype.itemsize} bytes).")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _read_sparse_npz(path, archive, max_bytes):
    """A ``scipy.sparse.save_npz`` matrix as a dense array, refused before it is
    expanded when the dense array would not fit (the size from the ``shape`` array and
    the headers, the data not yet read)."""
    import scipy.sparse as sp

    with archive.open("data.npy") as fh:
        dtype = _npy_header(fh, path)[2]
    with archive.open("shape.npy") as fh:
        declared, _, shape_dtype = _npy_header(fh, path)
        if tuple(declared) != (2,) or shape_dtype.kind not in "iu":
            raise DataFileError(f"{path}: a sparse matrix's 'shape' must be two whole numbers; got {declared}.")
        shape = tuple(int(n) for n in np.frombuffer(fh.read(2 * shape_dtype.itemsize), dtype=shape_dtype))
    _check_numeric(path, dtype)
    _check_declared(path, shape, dtype.itemsize, max_bytes)
    return sp.load_npz(path).toarray()


def hdf5_key(path, fh, key):
    """The dataset of the open HDF5 file ``fh`` to read: ``key``, or its only dataset;
    refused with the datasets and their shapes otherwise (naming the only table of
    numbers among them, the usual X beside its labels)."""
    import h5py

    found = {}

    def collect(name, obj):  # returns None: visititems stops at the first value returned
        if isinstance(obj, h5py.Dataset):
            found[name] = obj

    fh.visititems(collect)
    if not found:
        raise DataFileError(f"{path}: an HDF5 file with no dataset in it; write the table as one (h5py: f['X'] = X).")
    shown = ", ".join(f"{name} {' x '.join(map(str, found[name].shape)) or 'scalar'}" for name in list(found)[:8])
    if key is None and len(found) != 1:
        tables = [name for name, data in found.items() if len(data.shape) == 2 and data.dtype.kind in "fiub"]
        hint = f" ({tables[0]!r} is the only table of numbers: --key {tables[0]})" if len(tables) == 1 else ""
        raise DataFileError(f"{path}: {len(found)} datasets ({shown}); choose one with --key{hint}.")
    key = key or next(iter(found))
    if key not in found:
        raise DataFileError(f"{path}: no dataset named {key!r}; datasets are {shown}.")
    return key


def read_hdf5(path, *, key=None, max_bytes=None):
    """Read a 2-D numeric dataset of an HDF5 file (``key``; default: the only dataset).

    Examples
    --------
    >>> import numpy as np, tempfile, os, h5py
    >>> p = os.path.join(tempfile.mkdtemp(), "a.h5")
    >>> with h5py.File(p, "w") as f: _ = f.create_dataset("X", data=np.ones((3, 2)))
    >>> read_hdf5(p).shape
    (3, 2)
    """
    import h5py

    try:
        with h5py.File(path, "r") as fh:
            dataset = fh[hdf5_key(path, fh, key)]
            _check_numeric(path, dataset.dtype)
            _check_declared(path, dataset.shape, dataset.dtype.itemsize, max_bytes)
            return dataset[()]
    except Exception as exc:  # noqa: BLE001 - h5py raises many types on corrupt files
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a readable HDF5 file ({type(exc).__name__}: {exc}).") from None
