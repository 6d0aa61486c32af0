"""Parquet tables as the CSV reader reads text: numbers, categories (text and dictionary
columns; an ordered dictionary, as pandas writes an ordered ``Categorical``, as ranks),
dates as days since 1970-01-01, and the pandas index as row names, never as a feature."""

import json

import numpy as np

from .._messages import listed
from ..exceptions import DataFileError
from ._binary import _check_declared
from ._cell_text import category_note, date_note, distinct_text, row_names_note
from ._columns import column_index, column_indices, spec_names


def read_parquet(
    path,
    *,
    label_column=None,
    exclude=(),
    max_bytes=None,
    index_column=None,
    categorical=(),
    ordinal=None,
    na_values=(),
):
    """A Parquet file's columns as numbers, with their kinds and what was decided.

    Integer, float and decimal columns are numbers; boolean, text and dictionary columns
    are categories coded in sorted order (an ordered dictionary in its own order, as
    ranks), text also numbers or dates when every cell is one; date and timestamp
    columns are days since 1970-01-01 (UTC), durations seconds. The pandas index, when
    the file stores one, gives the row names; otherwise ``index_column``, or a first
    column of distinct text given no other role, as the CSV reader decides.

    Parameters
    ----------
    path : str
    label_column : str, optional
    exclude : sequence of str
    max_bytes : int, optional
    index_column : str, optional
    categorical : sequence of str
        Columns of numbers that are category codes.
    ordinal : dict, optional
        Column -> its categories in order, lowest first.
    na_values : sequence of str
        Texts that mark a gap in text columns.

    Returns
    -------
    X, names, labels, notes, row_ids, kinds, levels
        As :func:`lowdim.io.read_table`'s ``Table`` holds them, with 'date' among the
        kinds for a column of days since 1970-01-01.

    Examples
    --------
    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> p = os.path.join(tempfile.mkdtemp(), "a.parquet")
    >>> pq.write_table(pa.table({"a": [1.0, 2.0], "city": ["Lyon", "Nice"], "y": ["u", "v"]}), p)
    >>> X, names, y, notes, ids, kinds, levels = read_parquet(p, label_column="y")
    >>> X.tolist(), names, y.tolist(), kinds, levels
    ([[1.0, 0.0], [2.0, 1.0]], ['a', 'city'], ['u', 'v'], ['numeric', 'categorical'], {'city': ['Lyon', 'Nice']})
    """
    table, names = _open(path, max_bytes)
    roles = {"label_column": label_column, "exclude": exclude, "index_column": index_column}
    return read_arrow_columns(
        path, table, names, **roles, categorical=categorical, ordinal=ordinal, na_values=na_values
    )


def read_arrow_columns(
    path, table, names, *, label_column=None, exclude=(), index_column=None, categorical=(), ordinal=None, na_values=()
):
    """``read_parquet`` of a pyarrow Table already read (``names``: its columns' names,
    as the file gives them); ``notes`` gains what was decided. The Excel reader's
    sheets come here as Arrow columns.

    Examples
    --------
    >>> import pyarrow as pa
    >>> X, names, y, notes, ids, kinds, levels = read_arrow_columns("f", pa.table({"a": [1.0], "b": ["u"]}), ["a", "b"])
    >>> X.tolist(), kinds
    ([[1.0, 0.0]], ['numeric', 'categorical'])
    """
    if table.num_rows == 0:
        raise DataFileError(f"{path}: no data rows.")
    notes = []
    roles = with_stored_roles(path, table.schema, label_column, index_column, exclude, notes)
    label_column, index_column, exclude = roles
    drop = column_indices(exclude, names, path)
    label_idx = None if label_column is None else column_index(label_column, names, path)
    forced = {column_index(s, names, path) for s in categorical}
    orders = {column_index(s, names, path): list(order) for s, order in (ordinal or {}).items()}
    given = drop | forced | set(orders) | {label_idx}
    stored = [names.index(n) for n in pandas_index_columns(table.schema)]  # never features
    id_columns = _row_name_columns(path, table, names, index_column, stored, given, notes)
    if label_idx is not None and label_idx in id_columns:
        raise DataFileError(f"{path}: column {names[label_idx]!r} cannot be both the labels and the row names.")
    keep = [j for j in range(len(names)) if j not in drop | {label_idx} | set(id_columns) | set(stored)]
    if not keep:
        raise DataFileError(f"{path}: no feature columns left after --exclude, --label-column and the row names.")
    X = np.empty((table.num_rows, len(keep)))
    kinds, levels = [], {}
    for k, j in enumerate(keep):
        column = table.column(j)
        X[:, k], kind, found = _coded(path, column, names[j], orders.get(j), j in forced, notes, na_values)
        kinds.append(kind)
        if found is not None:
            levels[names[j]] = found
    labels = None if label_idx is None else _text(table.column(label_idx))
    row_ids = _ids(table, id_columns)
    return X, [names[j] for j in keep], labels, notes, row_ids, kinds, levels


def with_stored_roles(path, schema, label_column, index_column, exclude, notes):
    """The label and row-name columns and the columns to leave out: as given, else as the
    lowdim that wrote the file recorded them (announced in ``notes``); labels it recorded
    are never a feature, also when another column is named the labels."""
    label, ids = stored_roles(schema)
    exclude = [str(s) for s in exclude]
    named = spec_names(exclude)
    if label is not None and label not in named:
        if label_column is None:
            notes.append(
                f"{path}: column {label!r} read as the labels, as lowdim wrote them (--exclude {label} drops them)."
            )
            label_column = label
        elif str(label_column) != label:
            notes.append(f"{path}: column {label!r} (labels lowdim wrote) left out of the features.")
            exclude.append(label)
    if index_column is None and ids is not None and ids not in named:
        index_column = ids
    return label_column, index_column, exclude


def _open(path, max_bytes):
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path)
        names = list(meta.schema_arrow.names)
        _check_declared(path, (meta.metadata.num_rows, len(names)), 8, max_bytes)
        return meta.read(), names
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types on corrupt files
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a readable Parquet file ({type(exc).__name__}: {exc}).") from None


ROLES_KEY = b"lowdim"  # schema metadata of the Parquet files lowdim writes: which column is what


def roles_metadata(label_name=None, id_name=None):
    """Schema metadata recording the label and row-name columns of a table lowdim
    writes, so that reading it back keeps them out of the features.

    Examples
    --------
    >>> roles_metadata("species", None)
    {b'lowdim': b'{"label_column": "species"}'}
    """
    roles = {"label_column": label_name, "id_column": id_name}
    return {ROLES_KEY: json.dumps({k: str(v) for k, v in roles.items() if v is not None}).encode()}


def stored_roles(schema):
    """``(label column, id column)`` names a lowdim-written file records (each None when
    absent, or when the metadata names no column of the file).

    Examples
    --------
    >>> import pyarrow as pa
    >>> stored_roles(pa.schema([("y", pa.string())], metadata=roles_metadata("y")))
    ('y', None)
    """
    stored = (schema.metadata or {}).get(ROLES_KEY)
    try:
        roles = json.loads(stored) if stored else {}
        found = [roles.get(k) for k in ("label_column", "id_column")]
    except (ValueError, AttributeError):  # metadata from elsewhere, or damaged: no roles known
        return None, None
    return tuple(name if isinstance(name, str) and name in schema.names else None for name in found)


def pandas_index_columns(schema):
    """Names of the columns a pandas DataFrame's index was stored in (none for a range
    index, which pandas keeps as metadata only).

    Examples
    --------
    >>> import pyarrow as pa
    >>> pandas_index_columns(pa.schema([("x", pa.float64())]))
    []
    """
    stored = (schema.metadata or {}).get(b"pandas")
    try:
        index = json.loads(stored)["index_columns"] if stored else []
    except (ValueError, KeyError, TypeError):  # metadata written by something else: no index known
        return []
    return [name for name in index if isinstance(name, str) and name in schema.names]


def _row_name_columns(path, table, names, index_column, stored, given, notes):
    """Column numbers of the row names: ``index_column``, the pandas index (``stored``),
    or a first column of distinct text given no other role (``given``)."""
    if index_column is not None:
        idx = column_index(index_column, names, path)
        left = [names[j] for j in stored if j != idx]
        but = f" (the pandas index {listed(left)} is left out too)" if left else ""
        notes.append(f"{path}: column {names[idx]!r} read as row names{but}.")
        return [idx]
    if stored:
        shown = ", ".join(repr(names[j]) for j in stored)
        notes.append(f"{path}: {shown} (the pandas index) read as row names, not as features.")
        return stored
    if len(names) < 2 or len(names) < 2 or 0 in given or not _is_text(table.column(0).type):
        return stored
    if distinct_text(_text(table.column(0)).tolist()):
        notes.append(row_names_note(path, names[0]))
        return [0]
    return []


def _dictionary_cells(column):
    """A dictionary (category) column's cells as objects, None for a gap: its dictionary's
    values taken by index, each converted once (a Python object a row cost 0.25 s per
    200,000 rows).

    Examples
    --------
    >>> import pyarrow as pa
    >>> _dictionary_cells(pa.chunked_array([pa.array(["a", None, "b", "a"]).dictionary_encode()])).tolist()
    ['a', None, 'b', 'a']
    >>> full = pa.DictionaryArray.from_arrays(pa.array([127, None], pa.int8()), pa.array([str(i) for i in range(128)]))
    >>> _dictionary_cells(pa.chunked_array([full])).tolist()
    ['127', None]
    """
    import pyarrow as pa

    parts = []
    for chunk in column.chunks:
        values = np.asarray([*chunk.dictionary.to_pylist(), None], dtype=object)
        # a gap indexes the None after the values (past the indices' own type: 128 in int8)
        where = chunk.indices.cast(pa.int64()).fill_null(len(chunk.dictionary))
        parts.append(values[where.to_numpy(zero_copy_only=False)])
    return np.concatenate(parts) if parts else np.empty(0, dtype=object)


def _ids(table, columns):
    """The row names from their columns (several, as a pandas MultiIndex stores them: joined by '/')."""
    if not columns:
        return None
    parts = [_text(table.column(j)) for j in columns]
    return parts[0] if len(parts) == 1 else np.array(["/".join(cells) for cells in zip(*parts)])


def _text(column):
    return np.array(["" if v is None else str(v) for v in column.to_pylist()])


def _is_text(kind):
    import pyarrow.types as t

    return t.is_string(kind) or t.is_large_string(kind) or t.is_dictionary(kind)


def _coded(path, column, name, order, forced, notes, na_values=()):
    """``(values, kind, levels)`` of one column, with a note for categories, dates and durations."""
    import pyarrow.types as t

    from ..preprocessing import code_column

    cells, hint, stored_order = _cells(path, column, name)
    if na_values and cells.dtype == object:  # the file's own marks for a gap, among text cells
        marks = {str(v).strip() for v in na_values}
        cells = np.array([None if isinstance(c, str) and c.strip() in marks else c for c in cells], dtype=object)
    coded = code_column(cells, name, hint=hint, order=order or stored_order, forced=forced)
    if coded.kind in ("categorical", "ordinal"):
        notes.append(category_note(path, name, coded.kind, coded.levels, coded.values))
    elif coded.kind == "date":
        notes.append(date_note(path, name, coded.values))
    elif hint is None:
        notes.append(f"{path}: column {name!r} stores numbers as text; read as numbers.")
    elif t.is_duration(column.type):
        notes.append(f"{path}: column {name!r} holds durations; read as seconds.")
    return coded.values, coded.kind, coded.levels


def _cells(path, column, name):
    """``(cells, kind hint, stored order)`` of an Arrow column, or an error for types
    that hold no value per cell a method could use."""
    import pyarrow as pa
    import pyarrow.types as t

    kind = column.type
    if t.is_dictionary(kind):
        if kind.ordered:
            order = column.unify_dictionaries().chunk(0).dictionary.to_pylist() if column.num_chunks else []
            return _dictionary_cells(column), "ordinal", [str(v) for v in order]
        return _dictionary_cells(column), "categorical", None
    if t.is_boolean(kind):  # yes/no: two categories, as a CSV column of True/False and a pandas bool column
        return np.asarray(column.to_pylist(), dtype=object), "categorical", None
    if t.is_integer(kind) or t.is_floating(kind) or t.is_decimal(kind) or t.is_null(kind):
        # safe=False: integers beyond 2^53 round to the nearest float64, as numpy's and pandas' casts do
        return column.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False), "numeric", None
    if t.is_timestamp(kind) or t.is_date(kind):
        moments = column.cast(pa.timestamp("us", tz=getattr(kind, "tz", None)))
        return moments.to_numpy(zero_copy_only=False), "date", None
    if t.is_duration(kind):
        micros = column.cast(pa.duration("us")).cast(pa.int64()).to_numpy(zero_copy_only=False)
        return np.asarray(micros, dtype=np.float64) / 1e6, "numeric", None
    if t.is_string(kind) or t.is_large_string(kind):
        return np.asarray(column.to_pylist(), dtype=object), None, None
    raise DataFileError(
        f"{path}: column {name!r} has type {kind}, which holds no number, category or date per row; "
        "exclude it with --exclude or name it with --label-column."
    )


def numeric_columns(path, table, names, label_column, exclude):
    """``(X, names, labels)`` of a table whose feature columns must all be numbers (the
    out-of-core reader's row groups), the pandas index left out.

    Examples
    --------
    >>> import pyarrow as pa
    >>> X, names, y = numeric_columns("f", pa.table({"a": [1.0], "y": ["u"]}), ["a", "y"], "y", [])
    >>> X.tolist(), names, y.tolist()
    ([[1.0]], ['a'], ['u'])
    """
    drop = column_indices(exclude, names, path)
    drop |= {names.index(n) for n in pandas_index_columns(table.schema)}
    label_idx = None if label_column is None else column_index(label_column, names, path)
    labels = None if label_idx is None else _text(table.column(label_idx))
    keep = [j for j in range(len(names)) if j not in drop and j != label_idx]
    columns = []
    for j in keep:
        cells, hint, _ = _cells(path, table.column(j), names[j])
        if hint != "numeric":
            raise DataFileError(
                f"{path}: column {names[j]!r} has type {table.column(j).type}, not a number (read out of core, "
                "every column must be one); exclude it with --exclude or name it with --label-column."
            )
        columns.append(cells)
    if not columns:
        raise DataFileError(f"{path}: no numeric columns left after --exclude and --label-column.")
    if table.num_rows == 0:
        raise DataFileError(f"{path}: no data rows.")
    return np.column_stack(columns), [names[j] for j in keep], labels
