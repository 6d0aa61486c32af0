"""Data that stays on disk: Zarr stores, folders of Parquet files and HDF5 datasets as
dask arrays, and embeddings written back block by block.

Every reader returns a ``LazyTable`` whose ``X`` is a dask array with one task per
row block (a Parquet row group, an HDF5 or Zarr row range); the tasks open the file
themselves, so they run on any worker that sees the path. Nothing is read here but
metadata.
"""

import glob
import os
from dataclasses import dataclass

import numpy as np

from ..distributed import compute, iter_blocks
from ..exceptions import DataFileError
from ._binary import hdf5_key
from ._csv import write_csv_header, write_csv_rows
from ._parquet import numeric_columns, roles_metadata, with_stored_roles

BLOCK_BYTES = 128 << 20  # rows per block of an HDF5 dataset: about this many bytes


@dataclass
class LazyTable:
    """A dask array of features, their names and (Parquet only) a dask array of labels."""

    X: object
    feature_names: list
    labels: object = None
    source: str = ""


def lazy_format(path):
    """'zarr', 'parquet' (a file or a folder of them) or 'hdf5', from the path.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    str

    Raises
    ------
    DataFileError
        The path names none of the formats read lazily, with the formats that are.

    Examples
    --------
    >>> lazy_format("cells.zarr"), lazy_format("data.h5")
    ('zarr', 'hdf5')
    """
    p = str(path).rstrip("/")
    ext = os.path.splitext(p)[1].lower()
    if ext == ".zarr" or os.path.isfile(os.path.join(p, ".zarray")) or os.path.isfile(os.path.join(p, "zarr.json")):
        return "zarr"
    if ext == ".parquet" or (os.path.isdir(p) and glob.glob(os.path.join(p, "*.parquet"))):
        return "parquet"
    if ext in (".h5", ".hdf5", ".hdf"):
        return "hdf5"
    raise DataFileError(
        f"{path}: --dask reads a Zarr store (.zarr), a Parquet file or a folder of "
        ".parquet files, or an HDF5 file (.h5/.hdf5 with --key); convert other "
        "formats to one of these."
    )


def read_lazy(path, *, key=None, label_column=None, exclude=()):
    """Open ``path`` as a ``LazyTable``: its rows as a dask array, read block by block.

    Parameters
    ----------
    path : str or path-like
        A Zarr store, a Parquet file or folder of them, or an HDF5 file (see
        ``lazy_format``).
    key : str, optional
        The HDF5 dataset (or Zarr array in a group) to read.
    label_column : str, optional
        A Parquet column of labels, kept out of the data.
    exclude : sequence of str
        Parquet columns to leave out.

    Returns
    -------
    LazyTable

    Examples
    --------
    >>> import numpy as np, tempfile, os, h5py
    >>> p = os.path.join(tempfile.mkdtemp(), "a.h5")
    >>> with h5py.File(p, "w") as f: _ = f.create_dataset("X", data=np.ones((30, 2)))
    >>> t = read_lazy(p, key="X")
    >>> type(t.X).__name__, t.X.shape, float(t.X.sum().compute())
    ('Array', (30, 2), 60.0)
    """
    if not os.path.exists(path):
        raise DataFileError(f"{path}: no such file or folder.")
    fmt = lazy_format(path)
    if fmt != "parquet" and (label_column or exclude):
        raise DataFileError(
            f"{path}: --label-column and --exclude apply to Parquet columns; a {fmt} array has numbers only."
        )
    if fmt == "zarr":
        return _zarr(path, key)
    if fmt == "hdf5":
        return _hdf5(path, key)
    return _parquet(path, label_column, exclude)


def _numbered(d):
    return [f"x{j + 1}" for j in range(d)]


def _zarr(path, key):
    import dask.array as da

    try:
        X = da.from_zarr(path, component=key)
    except Exception as exc:  # noqa: BLE001 - zarr raises many types on bad stores
        raise DataFileError(
            f"{path}: not a readable Zarr array{f' at {key!r}' if key else ''} "
            f"({type(exc).__name__}: {exc}); name the array with --key."
        ) from None
    if X.ndim != 2 or X.dtype.kind not in "fiub":
        raise DataFileError(
            f"{path}: the Zarr array has shape {X.shape} and dtype {X.dtype}; a 2-D numeric array is needed."
        )
    return LazyTable(X, _numbered(X.shape[1]), None, f"Zarr store {path}")


def _hdf5_rows(path, key, start, stop):
    import h5py

    with h5py.File(path, "r") as fh:
        return fh[key][start:stop]


def _hdf5(path, key):
    import dask
    import dask.array as da
    import h5py

    with h5py.File(path, "r") as fh:
        key = hdf5_key(path, fh, key)
        shape, dtype, chunks = fh[key].shape, fh[key].dtype, fh[key].chunks
    if len(shape) != 2 or dtype.kind not in "fiub":
        raise DataFileError(
            f"{path}: dataset {key!r} has shape {shape} and dtype {dtype}; a 2-D numeric dataset is needed."
        )
    rows = max(1, BLOCK_BYTES // max(1, shape[1] * dtype.itemsize))
    if chunks:  # whole HDF5 chunks per block
        rows = max(chunks[0], rows // chunks[0] * chunks[0])
    read = dask.delayed(_hdf5_rows, pure=True)
    parts = [
        da.from_delayed(
            read(path, key, s, min(shape[0], s + rows)), (min(shape[0], s + rows) - s, shape[1]), dtype=dtype
        )
        for s in range(0, shape[0], rows)
    ]
    return LazyTable(da.concatenate(parts), _numbered(shape[1]), None, f"HDF5 dataset {key} of {path}")


def _parquet_group(path, group, label_column, exclude):
    import pyarrow.parquet as pq

    fh = pq.ParquetFile(path)
    X, _, labels = numeric_columns(path, fh.read_row_group(group), fh.schema_arrow.names, label_column, exclude)
    return X, labels


def _parquet(path, label_column, exclude):
    import dask
    import dask.array as da
    import pyarrow.parquet as pq

    files = sorted(glob.glob(os.path.join(path, "*.parquet"))) if os.path.isdir(path) else [path]
    pieces, names = [], None
    for f in files:
        try:
            fh = pq.ParquetFile(f)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types on corrupt files
            raise DataFileError(f"{f}: not a readable Parquet file ({type(exc).__name__}: {exc}).") from None
        these = list(fh.schema_arrow.names)
        if names is None:
            names = these
            label_column, ids, exclude = with_stored_roles(f, fh.schema_arrow, label_column, None, exclude, [])
            exclude += [] if ids is None or ids in exclude else [ids]  # out of core, row names are not kept
            kept = _feature_names(f, fh.schema_arrow, names, label_column, exclude)
        elif these != names:
            raise DataFileError(
                f"{f}: columns differ from those of {files[0]}; every file of the "
                "folder needs the same columns in the same order."
            )
        pieces += [(f, g, fh.metadata.row_group(g).num_rows) for g in range(fh.num_row_groups)]
    pieces = [p for p in pieces if p[2] > 0]
    if not pieces:
        raise DataFileError(f"{path}: no data rows.")
    read = dask.delayed(_parquet_group, pure=True, nout=2)
    parts = [read(f, g, label_column, exclude) for f, g, _ in pieces]
    X = da.concatenate(
        [da.from_delayed(p[0], (rows, len(kept)), dtype=np.float64) for p, (_, _, rows) in zip(parts, pieces)]
    )
    labels = None
    if label_column is not None:
        labels = da.concatenate(
            [da.from_delayed(p[1], (rows,), dtype=object) for p, (_, _, rows) in zip(parts, pieces)]
        )
    return LazyTable(X, kept, labels, f"{len(files)} Parquet file(s) in {path}")


def _feature_names(path, schema, names, label_column, exclude):
    """Names of the feature columns, checked (types, label, exclude) on one empty row."""
    import pyarrow as pa

    one_row = pa.table({n: pa.array([None], type=schema.field(n).type) for n in names})
    return numeric_columns(path, one_row.replace_schema_metadata(schema.metadata), names, label_column, exclude)[1]


WRITABLE_LAZY = (".csv", ".parquet", ".npy", ".zarr")


def write_blocks(path, Z, names, *, labels=None, label_name="label", progress=None):
    """Write the dask array ``Z`` (rows x columns) block by block, never whole in memory.

    ``.zarr`` is written by the workers in parallel; ``.npy`` (a memory map filled block
    by block; numbers only), ``.csv`` and ``.parquet`` (one row group per block) by the
    client as blocks arrive, the next computed while the current is written. Everything
    goes to a temporary name beside ``path`` that replaces ``path`` only once complete,
    so a failure (a worker lost for good, a full disk) leaves no partial file and any
    previous file as it was.

    Parameters
    ----------
    path : str
    Z : dask.array.Array of shape (n, len(names))
    names : list of str
    labels : dask array of shape (n,), optional
        Written as a last column (CSV, Parquet); must share Z's row chunks.
    label_name : str
    progress : callable, optional
        Called with the number of rows of each block written.

    Examples
    --------
    >>> import dask.array as da, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "z.csv")
    >>> write_blocks(p, da.ones((5, 2), chunks=2), ["a", "b"])
    >>> len(open(p).read().splitlines())
    6
    """
    ext = os.path.splitext(str(path).rstrip("/"))[1].lower()
    if ext not in WRITABLE_LAZY:
        raise DataFileError(
            f"{path}: cannot write {ext or 'a file without extension'!r} block by "
            f"block; use {', '.join(WRITABLE_LAZY)}."
        )
    if Z.numblocks[1] > 1:
        Z = Z.rechunk({1: -1})
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.{os.getpid()}.partial")
    try:
        _WRITERS[ext](tmp, Z, names, labels, label_name, progress or (lambda rows: None))
        _replace(tmp, path)
    finally:
        _remove(tmp)


def _replace(tmp, path):
    if os.path.isdir(path) and not os.path.islink(path):
        import shutil

        old = f"{tmp}.old"
        os.replace(path, old)
        os.replace(tmp, path)
        shutil.rmtree(old)
    else:
        os.replace(tmp, path)


def _remove(tmp):
    import shutil

    if os.path.isdir(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
    elif os.path.exists(tmp):
        os.remove(tmp)


def _blocks(Z, labels):
    if labels is not None and labels.chunks[0] != Z.chunks[0]:
        labels = labels.rechunk((Z.chunks[0],))
    return iter_blocks(Z, labels)


def _write_csv(tmp, Z, names, labels, label_name, progress):
    import csv

    with open(tmp, "w", newline="") as fh:
        writer = csv.writer(fh)
        write_csv_header(writer, names, None if labels is None else label_name)
        for block, lab in _blocks(Z, labels):
            write_csv_rows(writer, block, lab)
            progress(block.shape[0])


def _write_npy(tmp, Z, names, labels, label_name, progress):
    from numpy.lib.format import open_memmap

    out = open_memmap(tmp, mode="w+", dtype=Z.dtype, shape=Z.shape)
    start = 0
    for block, _ in _blocks(Z, None):
        out[start : start + block.shape[0]] = block
        start += block.shape[0]
        progress(block.shape[0])
    out.flush()
    del out


def _write_parquet(tmp, Z, names, labels, label_name, progress):
    import pyarrow as pa
    import pyarrow.parquet as pq

    fields = [pa.field(str(n), pa.from_numpy_dtype(Z.dtype)) for n in names]
    if labels is not None:
        fields.append(pa.field(str(label_name), pa.string()))
    schema = pa.schema(fields, metadata=roles_metadata(None if labels is None else label_name))
    with pq.ParquetWriter(tmp, schema) as writer:
        for block, lab in _blocks(Z, labels):
            columns = [block[:, j] for j in range(block.shape[1])]
            if lab is not None:
                columns.append(np.asarray(lab).astype(str))
            writer.write_table(pa.table(columns, schema=schema))
            progress(block.shape[0])


def _write_zarr(tmp, Z, names, labels, label_name, progress):
    compute(Z.to_zarr(tmp, compute=False))  # the workers write their blocks in parallel
    progress(Z.shape[0])


_WRITERS = {".csv": _write_csv, ".npy": _write_npy, ".parquet": _write_parquet, ".zarr": _write_zarr}
