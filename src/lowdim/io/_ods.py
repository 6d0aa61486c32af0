"""OpenDocument spreadsheets (``.ods``: LibreOffice's and OpenOffice's own format), read
by pandas through odfpy (the ``io`` extra) as rows of typed cells, then as an Excel
sheet is read (``_excel.sheet_table``): the same layout rules, header, row names,
categories, dates and notes. The file stores every formula's computed value."""

import warnings

from ..exceptions import DataFileError
from ._excel import _check_unpacked_size, sheet_table, sheet_title


def read_ods_sheet(path, *, key=None, header="auto", max_bytes=None, na_values=()):
    """One sheet of an OpenDocument spreadsheet as ``read_excel_sheet`` returns one:
    ``(table, names, notes, row_ids)``, its merged ranges read from the file's XML
    (pandas gives a merge's value in its first cell only).

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
            merges = merged_ranges(path, title)
    except DataFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - odfpy, its XML parser and zipfile raise many types
        raise DataFileError(f"{path}: not a readable OpenDocument spreadsheet ({type(exc).__name__}: {exc}).") from None
    cells = [[_value(cell, pd) for cell in row] for row in frame.astype(object).to_numpy().tolist()]
    return sheet_table(path, cells, title, merges, notes, header=header, na_values=na_values)


def merged_ranges(path, title):
    """The merged ranges of sheet ``title`` as ``_sheet_layout.merged_ranges`` gives an
    Excel sheet's, 0-based ``(top, left, bottom, right)``: a cell spanning rows or
    columns, counted through the repeated rows and cells the format stores once.

    Examples
    --------
    >>> import os, tempfile
    >>> from odf.opendocument import OpenDocumentSpreadsheet
    >>> from odf.table import CoveredTableCell, Table, TableCell, TableRow
    >>> doc, sheet, row = OpenDocumentSpreadsheet(), Table(name="s"), TableRow()
    >>> row.addElement(TableCell(numbercolumnsrepeated=2))
    >>> row.addElement(TableCell(numberrowsspanned=2, numbercolumnsspanned=3))
    >>> sheet.addElement(row)
    >>> doc.spreadsheet.addElement(sheet)
    >>> p = os.path.join(tempfile.mkdtemp(), "t.ods")
    >>> doc.save(p)
    >>> merged_ranges(p, "s")
    [(0, 2, 1, 4)]
    """
    import io
    import zipfile
    from xml.etree.ElementTree import iterparse

    ns = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
    table, cells, row_tag = f"{ns}table", (f"{ns}table-cell", f"{ns}covered-table-cell"), f"{ns}table-row"
    merges, inside, row, column = [], False, 0, 0
    with zipfile.ZipFile(path) as book:
        content = book.read("content.xml")  # its size checked before pandas read it
    if b"-spanned=" not in content:
        return merges  # most sheets: no second parse
    for event, element in iterparse(io.BytesIO(content), events=("start", "end")):
        if element.tag == table:
            if event == "end" and inside:
                break
            inside = event == "start" and element.get(f"{ns}name") == title
        elif element.tag == row_tag and event == "end":
            row += int(element.get(f"{ns}number-rows-repeated", 1)) if inside else 0
            element.clear()  # memory stays one row's
        elif element.tag == row_tag:
            column = 0
        elif inside and event == "start" and element.tag in cells:
            spans = [int(element.get(f"{ns}number-{kind}-spanned", 1)) for kind in ("rows", "columns")]
            if spans != [1, 1]:
                merges.append((row, column, row + spans[0] - 1, column + spans[1] - 1))
            column += int(element.get(f"{ns}number-columns-repeated", 1))
    return merges


def _value(cell, pd):
    """A cell as openpyxl gives one: None when empty, Python numbers and dates."""
    if cell is None or cell is pd.NaT or (isinstance(cell, float) and cell != cell):
        return None
    if hasattr(cell, "to_pydatetime"):
        return cell.to_pydatetime()
    return cell.item() if hasattr(cell, "item") else cell
