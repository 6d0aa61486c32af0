"""Stata (``.dta``) and SPSS (``.sav``, ``.zsav``) data files: the tables of survey and
health research. Their columns carry value labels (stored codes that stand for
categories: 1 = 'North') and their own missing values (Stata's ``.a``-``.z``, SPSS's
user-missing codes such as 99 = 'refused'). Read by pandas (Stata) and pyreadstat
(SPSS, the ``io`` extra) into a frame whose labelled columns are categories and whose
missing codes are gaps, then as a Parquet file's columns are (``read_arrow_columns``):
the same kinds, options and notes."""

import os
import warnings

from .._messages import listed
from ..exceptions import DataFileError
from ._binary import _byte_limit
from ._cell_text import cell_text

KINDS = {"stata": "Stata", "spss": "SPSS"}


def read_statistical_file(path, fmt, *, max_bytes=None):
    """A Stata or SPSS file as ``(table, names, notes)``: a pyarrow Table of its columns,
    value-labelled columns as categories (not ranks: neither format says whether the
    codes' order means anything; ``ordinal`` says it does), missing codes as gaps, dates
    as dates.

    Parameters
    ----------
    path : str
    fmt : {'stata', 'spss'}
    max_bytes : int, optional
        The largest file read (default: 80 % of the available memory, the file taken to
        need three times its size).

    Returns
    -------
    table : pyarrow.Table
    names : list of str
    notes : list of str

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> p = os.path.join(tempfile.mkdtemp(), "t.dta")
    >>> frame = pd.DataFrame({"age": [31.0, 47.0], "region": [1, 2]})
    >>> frame.to_stata(p, write_index=False, value_labels={"region": {1: "North", 2: "South"}})
    >>> table, names, notes = read_statistical_file(p, "stata")
    >>> names, table.column("region").to_pylist()
    (['age', 'region'], ['North', 'South'])
    """
    size = os.path.getsize(path)
    if 3 * size > _byte_limit(max_bytes):
        raise DataFileError(
            f"{path}: a {size / 2**30:.1f} GiB {KINDS[fmt]} file needs more than the memory allowed; "
            "export the columns you need, or save it as Parquet."
        )
    frame, notes = (_stata_frame if fmt == "stata" else _spss_frame)(path)
    return _arrow_table(path, frame, fmt, notes)


def _stata_frame(path):
    import pandas as pd

    options = {"convert_dates": True, "convert_missing": False, "order_categoricals": False}
    with warnings.catch_warnings():  # pandas' words on labels it cannot apply: said in the note instead
        warnings.simplefilter("ignore")
        try:
            return pd.read_stata(path, convert_categoricals=True, **options), []
        except ValueError as exc:
            if "value label" not in str(exc).lower():
                raise _unreadable(path, "stata", exc) from None
            # one code with two labels: the columns stay codes
            frame = _read(path, "stata", lambda: pd.read_stata(path, convert_categoricals=False, **options))
            note = (
                f"{path}: a value label stands for two codes in some column, which cannot be one category: every "
                "column is read as its stored codes (--categorical NAME reads a column of codes as categories)."
            )
            return frame, [note]
        except Exception as exc:  # noqa: BLE001 - struct, unicode and pandas errors of a damaged file
            raise _unreadable(path, "stata", exc) from None


def _spss_frame(path):
    try:
        import pyreadstat
    except ImportError:
        raise DataFileError(
            f"{path}: reading an SPSS file needs pyreadstat: pip install 'lowdim[io]' (or save it as CSV)."
        ) from None
    options = {"apply_value_formats": True, "formats_as_category": True, "dates_as_pandas_datetime": True}
    frame, _ = _read(path, "spss", lambda: pyreadstat.read_sav(path, user_missing=False, **options))
    return frame, []


def _read(path, fmt, read):
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - the readers raise many types for a damaged file
        raise _unreadable(path, fmt, exc) from None


def _unreadable(path, fmt, exc):
    return DataFileError(f"{path}: not a readable {KINDS[fmt]} file ({type(exc).__name__}: {exc}).")


def _arrow_table(path, frame, fmt, notes):
    """The frame's columns as Arrow columns; a labelled column's categories as text (a
    code without a label keeps its number, as text)."""
    import pandas as pd
    import pyarrow as pa

    labelled = []
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            labelled.append(str(name))
            frame[name] = column.cat.rename_categories([cell_text(c) for c in column.cat.categories])
    names = [str(name) for name in frame.columns]
    frame.columns = names
    notes.append(f"{path}: {KINDS[fmt]} file, {frame.shape[0]} rows x {frame.shape[1]} columns.")
    if labelled:
        notes.append(
            f"{path}: {len(labelled)} column(s) of value labels read as categories ({listed(labelled)}); "
            "--ordinal NAME=... reads one as ranks."
        )
    return pa.Table.from_pandas(frame, preserve_index=False), names, notes
