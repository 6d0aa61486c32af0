"""Writers for embeddings and tables: CSV (formula-safe), Parquet, NPY by extension."""

import os
import sys

import numpy as np

from ..exceptions import DataFileError
from ._atomic import atomic_path
from ._csv import write_csv
from ._excel import write_excel_sheet
from ._parquet import roles_metadata
from ._text_files import COMPRESSIONS, split_compression

WRITABLE = (".csv", ".tsv", ".parquet", ".npy", ".h5ad", ".xlsx")
STDOUT = "-"  # the output path that means standard output (a CSV table)
TEXT_DELIMITERS = {".csv": ",", ".tsv": "\t"}  # text tables, which may also end in a COMPRESSIONS suffix


def table_format(path):
    """``(extension, compression)`` of an output table's path: ``extension`` one of
    ``WRITABLE`` or None when lowdim cannot write it; ``compression`` a value of
    ``COMPRESSIONS`` (only after ``.csv`` or ``.tsv``) or None.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    extension : str or None
    compression : str or None

    Examples
    --------
    >>> table_format("map.tsv.gz"), table_format("map.parquet"), table_format("map.ods"), table_format("-")
    (('.tsv', 'gzip'), ('.parquet', None), (None, None), ('.csv', None))
    """
    if path == STDOUT:
        return ".csv", None
    base, compression = split_compression(path)
    ext = os.path.splitext(base)[1].lower()
    if ext not in WRITABLE or (compression and ext not in TEXT_DELIMITERS):
        return None, None
    return ext, compression


def unwritable_message(path):
    """Why ``path`` cannot be written, and the extensions that can.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str

    Examples
    --------
    >>> unwritable_message("map.ods").split(";")[0]
    'map.ods: cannot write this format'
    """
    text = ", ".join(f"{e}[{'|'.join(COMPRESSIONS)}]" if e in TEXT_DELIMITERS else e for e in WRITABLE)
    return f"{path}: cannot write this format; name the output *{text.replace(', ', ', *')}."


def write_table(path, array, names, *, labels=None, label_name="label", overwrite=False, row_ids=None, id_name="id"):
    """Write a numeric array with column names (and optional labels) to ``path``.

    The format follows the extension: ``.csv`` (text cells that spreadsheets would run
    as formulas are prefixed with an apostrophe), ``.parquet`` (labels in a column named
    ``label_name``; the file records which columns are labels and row names, and
    :func:`read_table` reads them as such), ``.npy`` (numbers only; labels are not written) or ``.h5ad`` (an
    AnnData: the array in ``obsm['X_<name>']`` named after the columns, as scanpy keeps
    embeddings, labels in ``obs``; ``write_h5ad`` adds to a copy of an input file). An existing file is
    replaced only with ``overwrite=True``; the file appears whole or not at all
    (``atomic_path``). ``row_ids`` (the input's row names) become the first column,
    ``id_name``, of CSV and Parquet output. ``path='-'`` writes CSV to standard output.

    Parameters
    ----------
    path : str or os.PathLike
        ``.csv``, ``.tsv`` (each possibly compressed: ``.csv.gz``, ...), ``.parquet``,
        ``.npy``, ``.h5ad`` or ``.xlsx`` (one sheet); ``'-'``: CSV on standard output.
    array : ndarray (n, d)
    names : list of str
        Column names.
    labels : array-like (n,), optional
        Written as a last column named ``label_name`` (not in ``.npy``).
    label_name : str, default='label'
    overwrite : bool, default=False
        Replace an existing file (otherwise it is an error).
    row_ids : array-like (n,), optional
        Written as a first column named ``id_name``.
    id_name : str, default='id'

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "z.csv")
    >>> write_table(p, np.eye(2), ["z1", "z2"], labels=["a", "b"])
    >>> open(p).readline().strip()
    'z1,z2,label'
    """
    ext, compression = table_format(path)
    if ext is None:
        raise DataFileError(unwritable_message(path))
    if path == STDOUT:
        write_csv(sys.stdout, np.asarray(array), names, labels=labels, label_name=label_name, row_ids=row_ids,
                  id_name=id_name)  # fmt: skip
        return
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass --overwrite to replace it.")
    array = np.asarray(array)
    if ext == ".h5ad":
        from ._anndata import write_h5ad

        stem = str(names[0]).rstrip("0123456789").lower() if names else "lowdim"
        key = "X_" + {"pc": "pca", "": "lowdim"}.get(stem, stem)
        write_h5ad(path, key, array, row_ids=row_ids, labels=labels, label_name=label_name, overwrite=overwrite)
        return
    with atomic_path(path, overwrite=overwrite) as tmp:
        if ext in TEXT_DELIMITERS:
            write_csv(tmp, array, names, labels=labels, label_name=label_name, row_ids=row_ids, id_name=id_name,
                      delimiter=TEXT_DELIMITERS[ext], compression=compression)  # fmt: skip
        elif ext == ".npy":
            np.save(tmp, array, allow_pickle=False)
        elif ext == ".xlsx":
            write_excel_sheet(tmp, array, names, labels=labels, label_name=label_name, row_ids=row_ids, id_name=id_name)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            columns = {} if row_ids is None else {str(id_name): np.asarray(row_ids).astype(str)}
            columns.update({str(n): array[:, j] for j, n in enumerate(names)})
            if labels is not None:
                columns[str(label_name)] = np.asarray(labels).astype(str)
            metadata = roles_metadata(None if labels is None else label_name, None if row_ids is None else id_name)
            pq.write_table(pa.table(columns).replace_schema_metadata(metadata), tmp)
