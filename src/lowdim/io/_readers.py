"""One entry point for data files: format by extension, columns, missing-value policy."""

import os
from dataclasses import dataclass, field

import numpy as np

from .._messages import listed
from .._warnings import warn_user
from ..exceptions import DataFileError
from . import _binary, _csv
from ._anndata import read_h5ad
from ._arrow_csv import read_plain_table
from ._columns import column_indices
from ._excel import read_excel_sheet
from ._ods import read_ods_sheet
from ._parquet import read_arrow_columns, read_parquet
from ._statistical import read_statistical_file
from ._text_files import COMPRESSIONS, split_compression
from ._total_rows import without_total_row

FORMATS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".data": "csv",  # UCI's repository: comma- or space-separated text
    ".dat": "csv",
    ".npy": "npy",
    ".npz": "npz",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".h5": "hdf5",
    ".hdf5": "hdf5",
    ".hdf": "hdf5",
    ".h5ad": "h5ad",
    ".xlsx": "excel",
    ".xlsm": "excel",
    ".xls": "xls",
    ".ods": "ods",
    ".dta": "stata",
    ".sav": "spss",
    ".zsav": "spss",
}
MISSING_POLICIES = ("error", "drop", "impute", "keep")
TABLES = ("csv", "parquet", "excel", "ods", "stata", "spss")  # formats of named columns of several kinds


@dataclass
class Table:
    """A numeric data matrix read from a file, with its column names and labels.

    Attributes
    ----------
    X : ndarray of shape (n_rows, n_features)
    feature_names : list of str
    labels : ndarray of str or None
    notes : list of str
        What the reader decided on the user's behalf (header, row names, dropped rows, ...).
    row_ids : ndarray of str or None
        Row names (CSV/TSV: an index column, given or detected).
    kinds : list of str or None
        'numeric', 'categorical' or 'ordinal' per column of ``X`` (None: all numeric);
        categories are coded 0, 1, ... and ordered ones by rank, NaN for a gap.
    levels : dict
        Column name -> its categories in code order.
    dates : list of str
        Columns read as dates: numbers of days since 1970-01-01 (UTC), 'numeric' among
        the kinds.

    Examples
    --------
    >>> import os, tempfile
    >>> from lowdim.io import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write(",a,b\\nx,1,2\\ny,3,4\\n")
    >>> table = read_table(path)
    >>> table.X.tolist(), table.feature_names, table.row_ids.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], ['a', 'b'], ['x', 'y'])
    """

    X: np.ndarray
    feature_names: list
    labels: object = None
    notes: list = field(default_factory=list)
    row_ids: object = None
    kinds: object = None
    levels: dict = field(default_factory=dict)
    dates: list = field(default_factory=list)

    @classmethod
    def with_dates(cls, X, names, labels, notes, row_ids, kinds, levels):
        """A table from a reader whose ``kinds`` say 'date' for columns of days: those
        are numbers, and listed in ``dates``."""
        dates = [n for n, k in zip(names, kinds) if k == "date"]
        kinds = ["numeric" if k == "date" else k for k in kinds]
        return cls(X, names, labels, notes, row_ids, kinds, levels, dates)

    @property
    def mixed(self):
        """True when some column holds categories (coded) rather than numbers."""
        return self.kinds is not None and any(k != "numeric" for k in self.kinds)


# names that tables give their class labels: read as a feature, the answer joins the data
# ('y' is not one of them: beside 'x' it is a coordinate)
LABEL_NAMES = ("label", "labels", "target", "class")


def file_format(path):
    """The reader a path's extension selects.

    Parameters
    ----------
    path : str

    Returns
    -------
    str
        'csv', 'npy', 'npz', 'parquet', 'hdf5', 'h5ad', 'excel' (.xlsx, .xlsm), 'ods', 'stata'
        (.dta), 'spss' (.sav, .zsav) or 'xls' (refused on reading).

    Examples
    --------
    >>> file_format("data/cells.h5ad"), file_format("x.TSV"), file_format("counts.csv.gz")
    ('h5ad', 'csv', 'csv')
    """
    base, compression = split_compression(path)
    ext = os.path.splitext(base)[1].lower()
    if ext not in FORMATS:
        raise DataFileError(
            f"{path}: unknown file type {ext or '(no extension)'!r}; use one of "
            f"{', '.join(sorted(FORMATS))} (text formats also compressed: "
            f"{', '.join(sorted(COMPRESSIONS))})."
        )
    if compression and FORMATS[ext] != "csv":
        raise DataFileError(
            f"{path}: {compression}-compressed {ext} files are not read (only CSV/TSV text is "
            "read compressed); decompress it first."
        )
    return FORMATS[ext]


def _read_any(
    path,
    fmt,
    *,
    header,
    delimiter,
    label_column,
    exclude,
    key,
    max_bytes,
    index_column=None,
    encoding="utf-8",
    anndata_matrix=None,
    categories=None,
    na_values=(),
    decimal=".",
):
    """A ``Table`` from any supported format (``categories``: CSV and Parquet only, the
    ``categorical`` and ``ordinal`` columns; ``na_values``: CSV and Parquet text;
    ``decimal``: CSV only)."""
    if decimal != "." and fmt != "csv":
        raise DataFileError(
            f"{path}: --decimal reads the numbers of CSV/TSV text; a {fmt} file stores numbers, not text: drop the "
            "option."
        )
    if na_values and fmt not in TABLES:
        raise DataFileError(
            f"{path}: --na-values marks the gaps among text cells of CSV/TSV, Parquet, spreadsheet, Stata and SPSS "
            f"files; a {fmt} file holds numbers, with NaN for a gap: drop the option."
        )
    if fmt == "xls":
        raise DataFileError(
            f"{path}: an Excel 97-2003 workbook (.xls); save it as .xlsx (Excel: File > Save As) or export the sheet "
            "as CSV."
        )
    if fmt == "csv":
        layout = {"header": header, "delimiter": delimiter, "encoding": encoding, "decimal": decimal}
        roles = {"label_column": label_column, "exclude": exclude, "index_column": index_column}
        numbers = None if any((categories or {}).values()) else read_plain_table(path, **layout, **roles,
                                                                                   na_values=na_values)  # fmt: skip
        table = numbers or _csv.read_csv_table(path, **layout, **roles, na_values=na_values, **(categories or {}))
        return Table.with_dates(*table)
    if fmt == "parquet":
        columns = {"label_column": label_column, "exclude": exclude, "index_column": index_column}
        parquet = read_parquet(path, **columns, max_bytes=max_bytes, na_values=na_values, **(categories or {}))
        return Table.with_dates(*parquet)
    if fmt in ("excel", "ods", "stata", "spss"):
        if fmt in ("excel", "ods"):
            read = read_excel_sheet if fmt == "excel" else read_ods_sheet
            sheet, names, notes, ids = read(path, key=key, header=header, max_bytes=max_bytes, na_values=na_values)
        else:
            (sheet, names, notes), ids = read_statistical_file(path, fmt, max_bytes=max_bytes), None
        columns = {"label_column": label_column, "exclude": exclude, "index_column": index_column}
        X, names, labels, more, row_ids, *rest = read_arrow_columns(
            path, sheet, names, **columns, na_values=na_values, **(categories or {})
        )
        return Table.with_dates(X, names, labels, notes + more, ids if row_ids is None else row_ids, *rest)
    if any((categories or {}).values()):
        raise DataFileError(
            f"{path}: --categorical and --ordinal read named columns of CSV/TSV, Parquet, spreadsheet, Stata and SPSS "
            f"files; a {fmt} file has none."
        )
    if index_column is not None:
        raise DataFileError(
            f"{path}: --index-column reads row names from CSV/TSV, Parquet, spreadsheet, Stata and SPSS files; a {fmt} "
            "file has none."
        )
    if fmt == "h5ad":
        return Table(
            *_read_h5ad(path, label_column=label_column, exclude=exclude, max_bytes=max_bytes, **(anndata_matrix or {}))
        )
    return Table(
        *_read_columns(path, fmt, label_column=label_column, exclude=exclude, key=key, max_bytes=max_bytes), None
    )


def _read_h5ad(path, *, label_column, exclude, max_bytes, **matrix):
    X, names, labels, row_ids, what = read_h5ad(path, label_column=label_column, max_bytes=max_bytes, **matrix)
    X, names = _drop_columns(path, X, names, exclude)
    return X, names, labels, [f"{path}: read {what}: {X.shape[0]} rows x {X.shape[1]} columns."], row_ids


def _read_columns(path, fmt, *, label_column, exclude, key, max_bytes):
    """``(X, names, labels, notes)`` from the binary array formats."""
    notes = []
    if label_column is not None:
        raise DataFileError(
            f"{path}: a {fmt} array has no named columns; --label-column works with CSV, Parquet and .h5ad files."
        )
    reader = {"npy": _binary.read_npy, "npz": _binary.read_npz, "hdf5": _binary.read_hdf5}[fmt]
    X = reader(path, max_bytes=max_bytes) if fmt == "npy" else reader(path, key=key, max_bytes=max_bytes)
    names = [f"x{j + 1}" for j in range(X.shape[1])]
    return (*_drop_columns(path, X, names, exclude), None, notes)


def _drop_columns(path, X, names, exclude):
    drop = column_indices(exclude, names, path)
    if not drop:
        return X, names
    keep = [j for j in range(X.shape[1]) if j not in drop]
    if not keep:
        raise DataFileError(f"{path}: no columns left after --exclude.")
    return X[:, keep], [names[j] for j in keep]


def apply_missing_policy(path, X, names, labels, missing, kinds=None):
    """Apply the missing-value policy to NaN cells; returns ``(X, labels, note)``.

    'error' raises with the count per column, 'drop' removes incomplete rows, 'impute'
    fills with the column mean, 'keep' leaves NaN for methods that marginalise it.

    Parameters
    ----------
    path : str
        Named in messages.
    X : ndarray (n, d)
    names : list of str
        Column names (named in messages).
    labels : ndarray (n,) or None
    missing : {'error', 'drop', 'impute', 'keep'}
    kinds : list of str, optional
        Per column; 'impute' fills a categorical or ordinal column with its most
        frequent code instead of the mean.

    Returns
    -------
    X : ndarray
    labels : ndarray or None
        The rows kept.
    note : str or None
        What was done, to show the user.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan], [3.0, 4.0]])
    >>> apply_missing_policy("f.csv", X, ["a", "b"], None, "impute")[0].tolist()
    [[1.0, 4.0], [3.0, 4.0]]
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing={missing!r} is not a policy; choose from {', '.join(MISSING_POLICIES)}.")
    if X.dtype.kind != "f" or missing == "keep":
        return X, labels, None
    holes = np.isnan(X)
    if not holes.any():
        return X, labels, None
    counts = holes.sum(axis=0)
    empty = _empty_columns(holes, names)
    if missing == "error":
        worst = np.flatnonzero(counts)
        listed = ", ".join(f"{names[j]!r}: {counts[j]}" for j in worst[:5])
        raise DataFileError(
            f"{path}: {int(counts.sum())} missing values ({listed}"
            f"{', ...' if worst.size > 5 else ''}); {empty + '; ' if empty else ''}pass --missing drop, impute or "
            "keep (for ppca, factor-analysis and gmm, which model them)."
        )
    if missing == "drop":
        complete = ~holes.any(axis=1)
        if not complete.any():
            why = f", as {empty}" if empty else ""
            raise DataFileError(f"{path}: every row has a missing value{why}; --missing drop leaves no data.")
        note = f"{path}: dropped {int((~complete).sum())} rows with missing values."
        return X[complete], None if labels is None else labels[complete], note
    fill = np.nanmean(np.where(holes.all(axis=0), 0.0, X), axis=0)
    for j, kind in enumerate(kinds or ()):
        codes = X[~holes[:, j], j].astype(np.int64)
        if kind != "numeric" and codes.size:
            fill[j] = np.bincount(codes).argmax()
    X = np.where(holes, fill, X)
    mixed = any(k != "numeric" for k in kinds or ())
    how = "column means (the most frequent category for categories)" if mixed else "column means"
    made_up = f"; {empty}: filled with 0, a constant that carries nothing" if empty else ""
    return X, labels, f"{path}: imputed {int(counts.sum())} missing values with {how}{made_up}."


def _empty_columns(holes, names):
    """The columns that hold no value at all (no policy for gaps makes data of them),
    said with the option that leaves them out, or ''.

    Examples
    --------
    >>> _empty_columns(np.array([[False, True], [False, True]]), ["a", "b"])
    "column 'b' holds no value at all (--exclude b leaves it out)"
    """
    empty = [str(names[j]) for j in np.flatnonzero(holes.all(axis=0))]
    if not empty:
        return ""
    shown = listed([repr(n) for n in empty], most=5)
    if len(empty) == 1:
        return f"column {shown} holds no value at all (--exclude {empty[0]} leaves it out)"
    return f"{len(empty)} columns ({shown}) hold no value at all (--exclude {','.join(empty)} leaves them out)"


def read_table(
    path,
    *,
    header="auto",
    delimiter=None,
    label_column=None,
    exclude=(),
    key=None,
    missing="error",
    max_bytes=None,
    index_column=None,
    transpose=False,
    encoding="utf-8",
    layer=None,
    use_raw=False,
    obsm=None,
    mask_var=None,
    categorical=(),
    ordinal=None,
    na_values=(),
    decimal=".",
):
    """Read a numeric table from CSV/TSV, NPY/NPZ, Parquet, HDF5, AnnData ``.h5ad``, a
    spreadsheet (Excel ``.xlsx`` by openpyxl, OpenDocument ``.ods`` by odfpy: one sheet),
    or a Stata ``.dta`` or SPSS ``.sav`` file (pandas, pyreadstat); the readers beyond
    CSV and NPY are the ``io`` extra's.

    Parameters
    ----------
    path : str
    header : {'auto', 'yes', 'no'}
        CSV and spreadsheets; 'auto': the first row is a header when a cell is text that is
        not a number (noted).
    delimiter : str, optional
        CSV only: one character, or 'whitespace' for runs of spaces and tabs (UCI's
        ``.data`` files, aligned columns); default comma, tab for ``.tsv``, ';' with
        ``decimal=','``.
    label_column : str, optional
        Name or 1-based number of the column holding labels (CSV, Parquet, spreadsheets,
        Stata, SPSS, obs of .h5ad).
    exclude : sequence of str
        Columns (names or 1-based numbers) to leave out.
    key : str, optional
        Array of an NPZ archive, dataset path in an HDF5 file, or sheet of a spreadsheet
        (default its first).
    missing : {'error', 'drop', 'impute', 'keep'}
    max_bytes : int, optional
        Refuse files declaring more (default: 80 % of the available memory).
    index_column : str, optional
        CSV, Parquet, spreadsheets, Stata, SPSS: the column (name or number) of row
        names; default: a first column under an empty header field holding distinct text
        or whole numbers (R's row numbers), a named first column of distinct text, or a
        Parquet file's stored pandas index.
    encoding : str, default='utf-8'
        CSV only: the text encoding ('latin-1', 'cp1252', ... for older files).
    transpose : bool
        Samples are the file's columns (genes x cells, foods x countries): the column
        names become row ids, the row ids (or ``row1``, ...) feature names; not with
        ``label_column``.
    layer, use_raw, obsm : optional
        .h5ad only: read ``layers[layer]``, ``raw.X`` (with its own feature names) or a
        stored embedding (``obsm='X_pca'``) instead of ``X``; obs names are the row ids.
    mask_var : str, optional
        .h5ad only: a boolean ``adata.var`` column (``'highly_variable'``); the genes it
        marks are read, the others never made dense (scanpy's ``mask_var``).
    categorical, ordinal : sequence of str, dict, optional
        CSV and Parquet: columns of numbers that are category codes (text columns are
        categories anyway, ISO 8601 dates days since 1970-01-01); column -> its
        categories in order, lowest first, read as ranks.
    na_values : sequence of str, optional
        CSV and Parquet text: cells that mark a gap in this file (UCI's ``'?'``), besides
        the ones always read as gaps (empty, NA, NaN, NULL, None, N/A).
    decimal : {'.', ','}, default='.'
        CSV only: the decimal mark. ',' reads the numbers spreadsheets write where the
        comma is the decimal mark (``1,5``, ``1.234,5``), with ';' between fields unless
        ``delimiter`` says otherwise.

    Returns
    -------
    Table

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(p, "w").write("a,b,y\\n1,2,u\\n3,4,v\\n")
    >>> t = read_table(p, label_column="y")
    >>> t.X.shape, t.feature_names, t.labels.tolist()
    ((2, 2), ['a', 'b'], ['u', 'v'])
    """
    fmt = file_format(_existing_file(path))
    anndata_matrix = {"layer": layer, "use_raw": use_raw, "obsm": obsm, "mask_var": mask_var}
    _check_options(path, fmt, anndata_matrix, transpose, label_column)
    categories = {"categorical": list(categorical), "ordinal": dict(ordinal or {})}
    options = {"header": header, "delimiter": delimiter, "label_column": label_column, "exclude": list(exclude)}
    options.update(key=key, max_bytes=max_bytes, index_column=index_column, encoding=encoding, na_values=na_values)
    options.update(decimal=decimal)
    table = _read_any(path, fmt, **options, anndata_matrix=anndata_matrix, categories=categories)
    return _shaped(path, fmt, table, transpose, missing)


def _existing_file(path):
    if not os.path.exists(path):
        raise DataFileError(f"{path}: no such file.")
    if os.path.isdir(path):
        raise DataFileError(f"{path}: is a folder, not a data file.")
    return path


def _shaped(path, fmt, table, transpose, missing):
    """The table as read, turned round (``transpose``) and with the missing-value policy
    applied, the notes saying what was done."""
    X, names, labels, notes, row_ids = table.X, table.feature_names, table.labels, table.notes, table.row_ids
    kinds = table.kinds
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise DataFileError(f"{path}: the table has shape {X.shape}; no data rows.")
    if fmt in TABLES:
        X, labels, row_ids, total = without_total_row(path, (X, labels, row_ids), kinds, table.levels, names)
        notes = notes + ([total] if total else [])
    if transpose:
        if table.mixed:
            raise DataFileError(f"{path}: --transpose turns columns into samples; this table has category columns.")
        X, names, row_ids = transposed(X, names, row_ids)
        notes.append(f"{path}: transposed: {X.shape[0]} samples (the file's columns) x {X.shape[1]} features.")
    elif fmt == "csv":
        notes.extend(_lookstransposed(path, X))
    if missing == "drop" and row_ids is not None and X.dtype.kind == "f":
        row_ids = row_ids[~np.isnan(X).any(axis=1)]  # the rows the policy keeps
    if table.mixed and missing == "error" and np.isnan(X).any():  # Gower's distance skips gaps pair by pair
        notes.append(
            f"{path}: {int(np.isnan(X).sum())} empty cells kept as missing values (Gower's distance and "
            "k-prototypes compare the cells two rows both have; FAMD and MCA read a gap as its column's mean or "
            "a category 'missing'); --missing drop removes their rows."
        )
        missing = "keep"
        notes.extend(_sparse_rows(path, X))
    X, labels, note = apply_missing_policy(path, X, names, labels, missing, kinds)
    warn_label_column(path, labels)
    if labels is None and (named := [n for n in names if str(n).lower() in LABEL_NAMES]):
        warn_user(
            f"{path}: column {named[0]!r} is read as a feature; if it holds class labels (lowdim writes them as "
            "'label', scikit-learn's frames as 'target', UCI files as 'class'), pass --label-column "
            f"{named[0]} (label_column={named[0]!r}) to keep them out of the data.",
            UserWarning,
        )
    dates = [] if transpose else table.dates  # turned round, the dates are a row, not a column
    return Table(X, names, labels, notes + ([note] if note else []), row_ids, kinds, table.levels, dates)


def _sparse_rows(path, X):
    """A note naming the rows of a mixed table that have values in under half their
    columns: their distances rest on those few columns (equal to every row that agrees there)."""
    filled = (~np.isnan(X)).sum(axis=1)
    few = np.flatnonzero(2 * filled < X.shape[1])
    if not few.size:
        return []
    shown = ", ".join(str(i + 1) for i in few[:5]) + (", ..." if few.size > 5 else "")
    return [
        f"{path}: {few.size} row(s) (data rows {shown}) have values in under half the columns; they are compared "
        "on those alone, so they sit with every row that agrees there (--missing drop removes them)."
    ]


def _check_options(path, fmt, anndata_matrix, transpose, label_column):
    """Refuse options that do not apply to this file or to each other."""
    given = [f"--{k.replace('_', '-')}" for k, v in anndata_matrix.items() if v not in (None, False)]
    if given and fmt != "h5ad":
        raise DataFileError(
            f"{path}: {', '.join(given)} choose a matrix inside an AnnData .h5ad file; a {fmt} "
            "file has one matrix, so drop the option."
        )
    refuse_transposed_labels(path, transpose, label_column)


def refuse_transposed_labels(source, transpose, label_column):
    """Refuse a label column of a table that is to be transposed (its columns become the
    samples), for a file or a built-in dataset.

    Parameters
    ----------
    source : str
        What the table is (a file's path, ``--dataset uk-food``), for the message.
    transpose : bool
    label_column : str, int or None

    Raises
    ------
    DataFileError
        Both given.

    Examples
    --------
    >>> refuse_transposed_labels("t.csv", True, None)  # nothing to refuse
    """
    if transpose and label_column is not None:
        raise DataFileError(
            f"{source}: --label-column names a column, but --transpose makes the columns the "
            "samples; label the samples in a row of their own after transposing, or drop one "
            "of the two options."
        )


def warn_label_column(path, labels):
    """A label column with one class, or a different value in every row, is no class
    label (scores against it would read 1 or 0 for nothing): warn.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_label_column("f.csv", np.array(["a", "a", "a"]))
    >>> "single class" in str(caught[0].message)
    True
    """

    if labels is None or len(labels) < 2:
        return
    classes = len(np.unique(labels))
    if classes == 1:
        warn_user(
            f"{path}: the label column holds a single class ({labels[0]!r}); it is not a class label, "
            "and scores against it mean nothing.",
            UserWarning,
        )
    elif classes == len(labels):
        warn_user(
            f"{path}: the label column holds a different value in every row; it looks like row names "
            "(--index-column) or a measurement, not a class label.",
            UserWarning,
        )


# rows whose typical sizes spread by a factor of e^0.7 (2x, as a standard deviation of
# their logs) while the columns agree within a quarter of that: each row is a variable
# with its own unit, each column a sample (UK food as published: 1.0 against 0.06;
# iris, wine, digits, breast cancer the other way round)
ROW_SCALE_SPREAD = 0.7
COLUMN_SCALE_SHARE = 0.25


def _lookstransposed(path, X):
    """A note suggesting --transpose when the rows look like variables: their typical
    sizes differ by factors (grams of cheese and of potatoes; counts of two genes) while
    the columns' agree (countries; cells). A table of samples has it the other way round."""
    sample = np.abs(np.asarray(X[:2000], dtype=np.float64))
    if sample.shape[0] < 3 or sample.shape[1] < 3 or not np.isfinite(sample).all():
        return []
    rows, columns = np.log(sample.mean(axis=1) + 1e-300), np.log(sample.mean(axis=0) + 1e-300)
    if not (np.isfinite(rows).all() and np.isfinite(columns).all()) or sample.min(initial=0) < 0:
        return []
    spread_rows, spread_columns = rows.std(), columns.std()
    if spread_rows > ROW_SCALE_SPREAD and spread_columns < COLUMN_SCALE_SHARE * spread_rows:
        return [
            f"{path}: the rows look like variables and the columns like samples (each row has its own "
            f"scale, the columns share one); if each column is a sample (foods x countries, genes x "
            "cells), pass --transpose."
        ]
    return []


def transposed(X, names, row_ids):
    """Columns as samples: the data transposed, the old row ids (or ``row1``, ...) as
    feature names and the old column names as row ids (``--transpose``).

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_columns)
    names : sequence of str
        The column names.
    row_ids : sequence or None
        The row ids, if the table had them.

    Returns
    -------
    X_t : ndarray of shape (n_columns, n_rows)
    features : list of str
    ids : ndarray of str

    Examples
    --------
    >>> X_t, features, ids = transposed(np.arange(6.0).reshape(2, 3), ["a", "b", "c"], None)
    >>> X_t.shape, features, ids.tolist()
    ((3, 2), ['row1', 'row2'], ['a', 'b', 'c'])
    """
    features = list(row_ids) if row_ids is not None else [f"row{i + 1}" for i in range(X.shape[0])]
    return np.ascontiguousarray(X.T), [str(f) for f in features], np.asarray(names, dtype=str)
