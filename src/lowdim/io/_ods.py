"""OpenDocument spreadsheets (``.ods``: LibreOffice's and OpenOffice's own format), read
by pandas through odfpy (the ``io`` extra) as rows of typed cells, then as an Excel
sheet is read (``_excel.sheet_table``): the same layout rules, header, row names,
categories, dates and notes. The file stores every formula's computed value."""

import warnings

from ..exceptions import DataFileError
from ._excel import _check_unpacked_size, sheet_table, sheet_title


def read_ods_sheet(path, *, key=None, header="auto", max_bytes=None, na_values=()):
    """One sheet of an OpenDocument spreadsheet as ``read_excel_sheet`` returns one:
    ``(table, names, notes, row_ids)``. Merged cells hold their value in their first
    cell only (odfpy does not say which cells a merge covers).

    Parameters
    ----------
    path : str
    key, header, max_bytes, na_values
        As ``read_excel_sheet``'s.

    Returns
    -------
    tuple
        As ``read_excel_sheet``'s.

    Examples
    --------
    >>> import os, tempfile, pandas as pd
    >>> p = os.path.join(tempfile.mkdtemp(), "t.ods")
    >>> pd.DataFrame({"size": [1.5, 2.0], "colour": ["red", "blue"]}).to_excel(p, index=False, engine="odf")
    >>> table, names, notes, ids = read_ods_sheet(p)
    >>> names, table.column(0).to_pylist(), table.column(1).to_pylist()
    (['size', 'colour'], [1.5, 2.0], ['red', 'blue'])
    """
    try:
        import odf  # noqa: F401 - pandas' reader of the format
        import pandas as pd
    except ImportError:
        raise DataFileError(
            f"{path}: reading an OpenDocument spreadsheet needs odfpy: pip install 'lowdim[io]' (or save it as .xlsx "
            "or CSV)."
        ) from None
    _check_unpacked_size(path, max_bytes, "OpenDocument spreadsheet", "save it again as .ods")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = pd.ExcelFile(path, engine="odf")
            title, notes = sheet_title(path, book.sheet_names, key)
            frame = book.parse(title, header=None)
    except DataFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - odfpy, its XML parser and zipfile raise many types
        raise DataFileError(f"{path}: not a readable OpenDocument spreadsheet ({type(exc).__name__}: {exc}).") from None
    cells = [[_value(cell, pd) for cell in row] for row in frame.astype(object).to_numpy().tolist()]
    return sheet_table(path, cells, title, [], notes, header=header, na_values=na_values)


def _value(cell, pd):
    """A cell as openpyxl gives one: None when empty, Python numbers and dates."""
    if cell is None or cell is pd.NaT or (isinstance(cell, float) and cell != cell):
        return None
    if hasattr(cell, "to_pydatetime"):
        return cell.to_pydatetime()
    return cell.item() if hasattr(cell, "item") else cell
