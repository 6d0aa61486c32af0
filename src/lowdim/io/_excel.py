"""Excel workbooks (.xlsx, .xlsm) read by openpyxl (the ``io`` extra), one sheet as a
table: its typed cells become Arrow columns (numbers, booleans, dates, durations, text)
that the Parquet reader's code turns into numbers, categories and dates, with its row
names, label column and notes. A cell a formula fills is read by the value Excel saved
with it; a formula no program ever computed (a file written by a script) has none, and
is refused rather than read as a gap (found in the sheet's XML, not by a second read)."""

import datetime
import math
import numbers
import re
import warnings
import zipfile

import numpy as np

from .._messages import listed
from ..exceptions import DataFileError
from ..preprocessing import as_numbers
from ._binary import _byte_limit
from ._cell_text import cell_text, number_hint, number_or_gap
from ._columns import _row_name_column
from ._csv import _warn_duplicate_names, cell_kind
from ._sheet_layout import continued_header, merged_ranges, table_rows, two_row_header_note

# what a formula shows when it fails: no value, as a gap (Excel's own words, in a note)
ERROR_CODES = ("#N/A", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#GETTING_DATA", "#SPILL!", "#CALC!")
_INSTALL = "reading an Excel workbook needs openpyxl: pip install 'lowdim[io]' (or save the sheet as CSV)"


def read_excel_sheet(path, *, key=None, header="auto", max_bytes=None, na_values=()):
    """One sheet of a workbook as ``(table, names, notes, row_ids)``: a pyarrow Table of
    its columns (empty rows and columns at its edges left out), what was decided, and
    the row names of a first column under an empty header cell (None: none).

    Parameters
    ----------
    path : str
    key : str, optional
        The sheet's name; default the first sheet.
    header : {'auto', 'yes', 'no'}
        'auto': the first row names the columns when one of its cells is text that is
        not a number (as the CSV reader decides).
    max_bytes : int, optional
        The largest uncompressed workbook read (default: 80 % of the available memory).
    na_values : sequence of str
        The sheet's own marks for a gap (read as gaps by ``read_arrow_columns``; here not
        taken for words among numbers).

    Returns
    -------
    table : pyarrow.Table
    names : list of str
    notes : list of str
    row_ids : ndarray of str or None

    Examples
    --------
    >>> import os, tempfile, openpyxl
    >>> book = openpyxl.Workbook()
    >>> for row in (["size", "colour"], [1.5, "red"], [2, "blue"]):
    ...     book.active.append(row)
    >>> p = os.path.join(tempfile.mkdtemp(), "t.xlsx")
    >>> book.save(p)
    >>> table, names, notes, row_ids = read_excel_sheet(p)
    >>> names, table.column(0).to_pylist(), table.column(1).to_pylist()
    (['size', 'colour'], [1.5, 2.0], ['red', 'blue'])
    """
    try:
        import openpyxl
    except ImportError:
        raise DataFileError(f"{path}: {_INSTALL}.") from None
    _check_unpacked_size(path, max_bytes)
    with warnings.catch_warnings():  # openpyxl's words on styles and extensions it drops: not the values'
        warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
        try:
            book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except Exception as exc:  # noqa: BLE001 - zipfile, lxml and openpyxl raise many types
            raise DataFileError(f"{path}: not a readable Excel workbook ({type(exc).__name__}: {exc}).") from None
        try:
            title, notes = sheet_title(path, book.sheetnames, key)
            sheet = book[title]
            sheet.reset_dimensions()  # the extent a file states may be wrong (writers that say "A1"): read every cell
            cells = [list(row) for row in sheet.iter_rows(values_only=True)]
        finally:
            book.close()
    merges = _refuse_uncomputed_formulas(path, title)
    return sheet_table(path, cells, title, merges, notes, header=header, na_values=na_values)


def sheet_table(path, cells, title, merges, notes, *, header="auto", na_values=()):
    """``read_excel_sheet``'s result from a sheet's typed ``cells`` (rows of values at
    their sheet positions, None for an empty cell) and its ``merges`` (``merged_ranges``):
    its layout found (``table_rows``), its header, row names and columns read.

    Examples
    --------
    >>> table, names, notes, ids = sheet_table("f.ods", [[None, "a"], ["r1", 1.5], ["r2", 2.0]], "s", [], [])
    >>> names, table.column(0).to_pylist(), ids.tolist()
    (['a'], [1.5, 2.0], ['r1', 'r2'])
    """
    rows, top, left = _trimmed_rows(table_rows(path, cells, merges, notes))
    if not rows:
        raise DataFileError(f"{path}: sheet {title!r} holds no cells.")
    if top or left:
        notes.append(f"{path}: the table starts at {_cell_name(top, left)} (the rows and columns before it skipped).")
    rows, numbers = _without_empty_rows(path, rows, top, notes)
    names, data = _header(path, rows, header, notes)
    numbers = numbers[len(rows) - len(data) :]
    if not data:
        raise DataFileError(f"{path}: sheet {title!r} has a header and no data rows.")
    names, data, row_ids, left = _unnamed_row_names(path, names, data, notes, left)
    names = [name or f"x{j + 1}" for j, name in enumerate(names)]
    _warn_duplicate_names(path, names)
    place = {"rows": numbers, "left": left, "marks": {str(v).strip() for v in na_values}}
    return _arrow_table(path, names, data, notes, place), names, notes, row_ids


def _unnamed_row_names(path, names, data, notes, left):
    """``(names, data, row ids or None, first column)``: a first column under an empty
    header cell of distinct text or distinct whole numbers taken out as the row names
    (pandas' ``to_excel`` writes its index so, row numbers 0..n-1 by default), as the
    CSV reader takes them (``_row_name_column``, which says so in ``notes``)."""
    if not names or names[0] or len(names) < 2:
        return names, data, None, left
    ids = ["" if row[0] is None else cell_text(row[0]) for row in data]
    if _row_name_column(path, names, lambda j: ids, [], None, notes) != 0:
        return names, data, None, left
    return names[1:], [row[1:] for row in data], np.array(ids), left + 1


def _check_unpacked_size(path, max_bytes, kind="Excel workbook", fix="save it again as .xlsx"):
    """Refuse a workbook whose parts unpack to more than the limit (a zip bomb), or that
    is no zip archive (``kind``, ``fix``: what it should be, and the fix)."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        with open(path, "rb") as fh:
            if fh.read(4) == b"\xd0\xcf\x11\xe0":  # an OLE container: Excel encrypts .xlsx files in one
                raise DataFileError(
                    f"{path}: a password-protected workbook (or an .xls file renamed); open it in Excel or "
                    "LibreOffice and save it as .xlsx without a password."
                ) from None
        raise DataFileError(f"{path}: not a readable {kind} ({exc}); {fix}.") from None
    if unpacked > _byte_limit(max_bytes):
        raise DataFileError(
            f"{path}: the workbook unpacks to {unpacked / 2**30:.1f} GiB, more than the memory allowed; "
            "save the sheet as CSV or Parquet."
        )


def sheet_title(path, titles, key):
    """The sheet named ``key`` (the first of ``titles`` by default), and a note when
    there are others.

    Examples
    --------
    >>> sheet_title("f.xlsx", ["a", "b"], None)[0], sheet_title("f.xlsx", ["a", "b"], "b")
    ('a', ('b', []))
    """
    if not titles:
        raise DataFileError(f"{path}: the workbook has no sheet.")
    if key is None:
        notes = [f"{path}: read sheet {titles[0]!r} (of {', '.join(map(repr, titles))}); --key names another."]
        return titles[0], notes if len(titles) > 1 else []
    if key not in titles:
        raise DataFileError(f"{path}: no sheet named {key!r}; its sheets are {', '.join(map(repr, titles))}.")
    return key, []


def _trimmed_rows(rows):
    """``(rows, top, left)``: the sheet's rows without the empty rows and columns around
    its table (formatting leaves them at the bottom and right, titles' spacing at the
    top and left), and how many were cut above and before it (empty rows inside it:
    ``_without_empty_rows``)."""
    filled = [i for i, row in enumerate(rows) if any(cell is not None for cell in row)]
    if not filled:
        return [], 0, 0
    rows = rows[filled[0] : filled[-1] + 1]
    used = [j for row in rows for j, cell in enumerate(row) if cell is not None]
    left, width = min(used), max(used) + 1
    return [row[left:width] + [None] * (width - len(row)) for row in rows], filled[0], left


def _without_empty_rows(path, rows, top, notes):
    """The rows but the empty ones inside a table of several columns, said by their row
    numbers (as the CSV reader skips blank lines; in a table of one column an empty row
    is a gap), and the sheet's number of each row kept."""
    if len(rows[0]) < 2:
        return rows, [top + i + 1 for i in range(len(rows))]
    empty = [i for i, row in enumerate(rows) if all(cell is None for cell in row)]
    if empty:
        notes.append(
            f"{path}: skipped {len(empty)} empty row(s) inside the table (row {listed([top + i + 1 for i in empty])})."
        )
    kept = [i for i, row in enumerate(rows) if any(cell is not None for cell in row)]
    return [rows[i] for i in kept], [top + i + 1 for i in kept]


def _cell_name(row, column):
    """A cell's name in the sheet from its 0-based position ("B3").

    Examples
    --------
    >>> _cell_name(2, 1), _cell_name(0, 27)
    ('B3', 'AB1')
    """
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(column + 1)}{row + 1}"


def _header(path, rows, header, notes):
    """``(names, data rows)``: the first row names the columns when told so, or with
    'auto' when one of its cells is text that is not a number ('' for an empty cell)."""
    first = rows[0]
    text = [isinstance(cell, str) and not number_or_gap(cell) for cell in first]
    if header == "yes" or (header == "auto" and any(text)):
        names = ["" if cell is None else str(cell).strip() for cell in first]
        notes.append(f"{path}: first row read as a header ({len(names)} column{'s' * (len(names) > 1)}).")
        joined = continued_header(names, rows[1], rows[2:], _cell_kind, forward=False) if len(rows) > 2 else None
        if joined is not None:
            names, rows = joined, rows[1:]
            notes.append(two_row_header_note(path, names))
        return names, rows[1:]
    notes.append(
        f"{path}: first row holds no text, read as data (no header); use --header yes if it is one."
        if header == "auto"
        else f"{path}: read without a header."
    )
    return [f"x{j + 1}" for j in range(len(first))], rows


_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
_CELL_OPEN = re.compile(rb"<(?:\w+:)?c\s[^<>]*>")
_CELL_CLOSE = re.compile(rb"</(?:\w+:)?c>")
_VALUE = re.compile(rb"<(?:\w+:)?v>[^<]")


def _refuse_uncomputed_formulas(path, title):
    """A formula no spreadsheet computed has no value in the file, and reads as an empty
    cell (a whole column of them as no column at all): find such cells in the sheet's
    XML and refuse them, naming the first. The XML is scanned for formulas in C; only
    the cells of the formulas found are looked at. Returns the sheet's merged ranges
    (``merged_ranges``), from the same read of its XML (none when the workbook does not
    say which part is the sheet: another sheet's would fill the wrong cells)."""
    cells, merges = [], []
    with zipfile.ZipFile(path) as archive:
        parts = _sheet_parts(archive, title)
        for part in parts:
            xml = archive.read(part)
            cells += _uncomputed_cells(xml)
            merges += merged_ranges(xml) if len(parts) == 1 else []
    if cells:
        raise DataFileError(
            f"{path}: {len(cells)} cell(s) of sheet {title!r} hold a formula with no saved value (the first: "
            f"{cells[0]}), as in a workbook a program wrote and no spreadsheet computed; open and save it in Excel "
            "or LibreOffice, which store the values, or export the sheet as CSV."
        )
    return merges


def _uncomputed_cells(data):
    """The references of the formula cells without a saved value in a worksheet's XML: no
    ``<v>`` with text, and not a text result (``t="str"``, which may be empty) or an error.

    Examples
    --------
    >>> xml = b'<c r="A1"><f>B1*2</f><v>4</v></c><c r="A2"><f>B2*2</f><v /></c><c r="A3" t="str"><f>""</f><v></v></c>'
    >>> _uncomputed_cells(xml)
    ['A2']
    """
    found = []
    for formula in _FORMULA.finditer(data):
        opened = list(_CELL_OPEN.finditer(data, max(0, formula.start() - 1024), formula.start()))
        closed = _CELL_CLOSE.search(data, formula.end())
        if not opened or closed is None:
            continue
        tag, content = opened[-1].group(), data[formula.start() : closed.start()]
        if _VALUE.search(content) or re.search(rb'\bt="(?:str|e)"', tag):
            continue
        where = re.search(rb'\br="([A-Z]+[0-9]+)"', tag)
        found.append(where.group(1).decode() if where else "a cell")
    return found


def _sheet_parts(archive, title):
    """The worksheet's part in the workbook's archive (from workbook.xml and its
    relationships; element names compared without their namespaces, which strict OOXML
    changes); every worksheet's when the workbook does not say where it is in the usual
    way (a cell of another sheet may then be named: never a gap read silently)."""
    from xml.etree import ElementTree

    def local(name):
        return name.rsplit("}", 1)[-1]

    try:
        book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
        sheet = next(e for e in book.iter() if local(e.tag) == "sheet" and e.get("name") == title)
        rid = next(v for k, v in sheet.attrib.items() if local(k) == "id")
        target = next(e.get("Target") for e in rels.iter() if local(e.tag) == "Relationship" and e.get("Id") == rid)
        part = target.lstrip("/") if target.startswith("/") else "xl/" + target
        archive.getinfo(part)
        return [part]
    except (KeyError, StopIteration, AttributeError, ElementTree.ParseError):
        return [n for n in archive.namelist() if n.startswith("xl/worksheets/") and n.endswith(".xml")]


def _arrow_table(path, names, rows, notes, place):
    """The rows' columns as typed Arrow arrays (``_column``), Excel's error codes gaps;
    a few words among numbers refused by their cell (``place``: the rows' numbers in
    the sheet, its first column, the gap marks given), as the CSV reader refuses them."""
    import pyarrow as pa

    columns = []
    for j, name in enumerate(names):
        cells = [row[j] for row in rows]
        errors = [cell for cell in cells if isinstance(cell, str) and cell.strip() in ERROR_CODES]
        if errors:
            cells = [None if isinstance(cell, str) and cell.strip() in ERROR_CODES else cell for cell in cells]
            notes.append(
                f"{path}: column {name!r}: {len(errors)} cell(s) hold a formula's error ({errors[0].strip()}), "
                "read as missing values."
            )
        cells, kinds = _numbers_among_text(path, name, cells, _kinds(cells), place, j)
        columns.append(_column(cells, kinds))
    return pa.table(columns, names=[f"c{j}" for j in range(len(names))])


def _numbers_among_text(path, name, cells, kinds, place, j):
    """A column of numbers with text cells that are gaps (``NA``, a mark given) or
    numbers typed as text, as numbers (None for a gap); with a few words in it (at most
    half its filled cells, the CSV reader's rule: a typo, or an unnamed gap mark)
    refused, naming the first word's cell, where read as text it became one category a
    number. Other columns as they are. Returns the cells and their kinds (``_kinds``)."""
    if kinds != {"number", "text"}:
        return cells, kinds
    words = [i for i, cell in enumerate(cells) if isinstance(cell, str) and not _number_or_mark(cell, place["marks"])]
    if not words:
        text = [None if c is None or (isinstance(c, str) and c.strip() in place["marks"]) else c for c in cells]
        numbers = as_numbers([c if isinstance(c, str) else repr(float(c)) for c in text if c is not None])
        if numbers is not None:
            filled = iter(numbers.tolist())
            return [None if c is None else next(filled) for c in text], {"number"}
    if words and 2 * len(words) <= sum(cell is not None for cell in cells):
        text = cells[words[0]].strip()
        raise DataFileError(
            f"{path}, cell {_cell_name(place['rows'][words[0]] - 1, place['left'] + j)} (column {name!r}): "
            f"{text!r} is not a number; {number_hint(text)}"
        )
    return cells, kinds


def _number_or_mark(text, marks):
    return number_or_gap(text) or text.strip() in marks


def _column(cells, kinds):
    """One column's cells as an Arrow array of their common type (``kinds``: its cells'
    ``_kinds``): float64 numbers, booleans, timestamps (a date is its midnight),
    durations, or text (a column of several types is text, each cell as it reads, for
    the reader to decide)."""
    import pyarrow as pa

    if kinds == {"number"}:
        return pa.array([None if cell is None else float(cell) for cell in cells], type=pa.float64())
    if kinds == {"bool"}:
        return pa.array(cells, type=pa.bool_())
    if kinds <= {"date", "datetime"} and kinds:
        moments = [_midnight(cell) if isinstance(cell, datetime.date) else cell for cell in cells]
        return pa.array(moments, type=pa.timestamp("us"))
    if kinds == {"duration"}:
        return pa.array(cells, type=pa.duration("us"))
    return pa.array([None if cell is None else cell_text(cell) for cell in cells], type=pa.string())


_TYPE_KINDS = {int: "number", str: "text", bool: "bool", datetime.datetime: "datetime", datetime.date: "date"}
_TYPE_KINDS[datetime.timedelta] = "duration"


def _kinds(cells):
    """The kinds of a column's filled cells (``_kind``), by their types: a column holds
    a few types and many cells."""
    kinds = set()
    for kind in {type(cell) for cell in cells}:
        if kind is float:  # an infinite or NaN value reads as text
            kinds |= {"number" if math.isfinite(c) else "text" for c in cells if type(c) is float}
        elif kind in _TYPE_KINDS:
            kinds.add(_TYPE_KINDS[kind])
        elif kind is not type(None):
            kinds |= {_kind(cell) for cell in cells if type(cell) is kind}
    return kinds


def _cell_kind(cell):
    """'gap', 'number' or another word: what a cell holds (``continued_header``)."""
    if cell is None:
        return "gap"
    return cell_kind(cell) if isinstance(cell, str) else ("number" if _kind(cell) == "number" else "other")


def _kind(cell):
    if isinstance(cell, bool):
        return "bool"
    if isinstance(cell, numbers.Real):
        return "number" if math.isfinite(cell) else "text"
    if isinstance(cell, datetime.datetime):
        return "datetime"
    if isinstance(cell, datetime.date):
        return "date"
    if isinstance(cell, datetime.timedelta):
        return "duration"
    return "text"


def _midnight(day):
    return day if isinstance(day, datetime.datetime) else datetime.datetime(day.year, day.month, day.day)


EXCEL_ROWS, EXCEL_COLUMNS = 1_048_576, 16_384  # a sheet's size, header row included


def write_excel_sheet(path, array, names, *, labels=None, label_name="label", row_ids=None, id_name="id"):
    """A table as one sheet ('lowdim') of a new workbook: a header row, then the row
    ids, the numbers (a NaN as an empty cell) and the labels. Text is stored as text,
    never as a formula, whatever its first character.

    Parameters
    ----------
    path : str
    array : ndarray (n, d)
    names : list of str
    labels, row_ids : array-like (n,), optional
    label_name, id_name : str

    Examples
    --------
    >>> import os, tempfile, numpy as np, openpyxl
    >>> p = os.path.join(tempfile.mkdtemp(), "m.xlsx")
    >>> write_excel_sheet(p, np.array([[1.5, np.nan]]), ["z1", "z2"], labels=["=SUM(A1)"])
    >>> [c.value for c in openpyxl.load_workbook(p).active[2]]
    [1.5, None, '=SUM(A1)']
    """
    try:
        import openpyxl
        from openpyxl.cell import WriteOnlyCell
    except ImportError:
        raise DataFileError(f"{path}: writing an Excel workbook needs openpyxl: pip install 'lowdim[io]'.") from None
    n, d = array.shape
    width = d + (labels is not None) + (row_ids is not None)
    if n + 1 > EXCEL_ROWS or width > EXCEL_COLUMNS:
        raise DataFileError(
            f"{path}: a table of {n:,} rows x {width:,} columns does not fit an Excel sheet ({EXCEL_ROWS - 1:,} "
            f"rows and {EXCEL_COLUMNS:,} columns at most); write .csv or .parquet."
        )
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("lowdim")

    def text(value):
        cell = WriteOnlyCell(sheet, value=str(value))
        cell.data_type = "s"  # openpyxl reads a leading '=' as a formula
        return cell

    head = [str(id_name)] * (row_ids is not None) + [str(v) for v in names] + [str(label_name)] * (labels is not None)
    sheet.append([text(v) for v in head])
    for i in range(n):
        cells = [None if np.isnan(v) else float(v) for v in array[i]]
        sheet.append([*([text(row_ids[i])] if row_ids is not None else []), *cells,
                      *([text(labels[i])] if labels is not None else [])])  # fmt: skip
    book.save(path)
