"""Writers for embeddings and tables: CSV (formula-safe), Parquet, NPY by extension."""

import os

import numpy as np

from ..exceptions import DataFileError
from ._atomic import atomic_path
from ._csv import write_csv
from ._parquet import roles_metadata

WRITABLE = (".csv", ".parquet", ".npy", ".h5ad")


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
    ``id_name``, of CSV and Parquet output.

    Parameters
    ----------
    path : str or os.PathLike
        ``.csv``, ``.tsv``, ``.parquet``, ``.npy`` or ``.h5ad``.
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
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in WRITABLE:
        raise DataFileError(f"{path}: cannot write {ext or 'a file without extension'!r}; use {', '.join(WRITABLE)}.")
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
        if ext == ".csv":
            write_csv(tmp, array, names, labels=labels, label_name=label_name, row_ids=row_ids, id_name=id_name)
        elif ext == ".npy":
            np.save(tmp, array, allow_pickle=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            columns = {} if row_ids is None else {str(id_name): np.asarray(row_ids).astype(str)}
            columns.update({str(n): array[:, j] for j, n in enumerate(names)})
            if labels is not None:
                columns[str(label_name)] = np.asarray(labels).astype(str)
            metadata = roles_metadata(None if labels is None else label_name, None if row_ids is None else id_name)
            pq.write_table(pa.table(columns).replace_schema_metadata(metadata), tmp)
