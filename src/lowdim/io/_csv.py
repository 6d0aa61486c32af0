"""CSV/TSV text tables: header handling, column selection, numbers with line numbers.

Errors name the file, line, column and value, and say which option handles the case.
Empty cells are read as NaN; the caller applies the missing-value policy.
"""

import collections
import contextlib
import csv
import gc
import itertools
import re

import numpy as np

from .._messages import listed
from .._warnings import warn_user
from ..exceptions import DataFileError
from ..preprocessing import MISSING_TEXT, as_numbers  # gaps: read as the category coder reads them
from ._cell_text import (
    UNICODE_MINUS,
    category_note,
    date_note,
    is_number,
    misread_number,
    number_hint,
    number_or_gap,
)
from ._columns import column_index, table_roles
from ._sheet_layout import caption_rows, continued_header, said_rows, two_row_header_note
from ._text_files import (
    _decompression_errors,
    _encoding_hint,
    create_text,
    open_text,
    split_compression,
    utf16_marked,
)

WHITESPACE = "whitespace"  # the separator of runs of spaces and tabs (UCI's .data files, aligned columns)
SEPARATORS = (",", ";", "\t", "|")  # the field separators files use


def _delimiter(given, base, decimal="."):
    """The one-character field separator, or WHITESPACE: the given one ('tab' or a
    literal backslash-t mean a tab), else tab for .tsv, ';' with decimal commas (as
    spreadsheets write them where the comma is the decimal mark) and comma otherwise."""
    if given is None:
        return "\t" if base.lower().endswith(".tsv") else (";" if decimal == "," else ",")
    if given == WHITESPACE:
        return WHITESPACE
    text = "\t" if given in ("tab", "\\t") else given
    if len(text) != 1 or text in '\r\n"':
        raise DataFileError(
            f"--delimiter {given!r} is not a field separator; give one character such as ',', ';', '|' or tab, "
            f"or {WHITESPACE!r} for runs of spaces and tabs."
        )
    if text == decimal:
        raise DataFileError(
            f"--delimiter {given!r} is also the decimal mark (--decimal {decimal!r}): the fields of a file with "
            "decimal commas are separated by another character, most often ';' (the default with --decimal ',')."
        )
    return text


# a number written with a decimal comma, optionally with dots between thousands: 1,5  -0,25  1.234,5  6,02e23
_DECIMAL_COMMA = re.compile(r"\s*([-+\u2212]?)(\d{1,3}(?:\.\d{3})+|\d*),(\d+)([eE][-+]?\d+)?\s*")


def _decimal_commas(rows):
    """``rows`` with every cell that is a number written with a decimal comma rewritten
    with a dot (its thousands dots dropped); other cells as they are."""

    def cell(text):
        match = _DECIMAL_COMMA.fullmatch(text) if "," in text else None
        if match is None:
            return text
        sign, whole, fraction, exponent = match.groups()
        return f"{sign}{whole.replace('.', '') or '0'}.{fraction}{exponent or ''}"

    return [[cell(text) for text in row] for row in rows]


def _csv_reader(fh, delimiter):
    """csv.reader over ``fh``; WHITESPACE splits at runs of spaces and tabs (quotes kept)."""
    if delimiter == WHITESPACE:
        lines = (line.strip().replace("\t", " ") for line in fh)
        return csv.reader(lines, delimiter=" ", skipinitialspace=True)
    # a space after the separator starts no field: '1.5, "Smith, J"' is two fields, as a person wrote them
    return csv.reader(fh, delimiter=delimiter, skipinitialspace=True)


def _cell_value(path, text, line, column):
    text = text.strip()
    if text.lower() in MISSING_TEXT:
        return np.nan
    try:
        value = float(text.replace(UNICODE_MINUS, "-"))
    except ValueError:
        if "\n" in text:
            raise DataFileError(
                f"{path}, line {line}, column {column}: a quoted cell runs over several lines "
                f'({text[:30]!r}...): a quote (") is probably opened and never closed there.'
            ) from None
        raise DataFileError(
            f"{path}, line {line}, column {column}: {text!r} is not a number; {number_hint(text)}"
        ) from None
    return value


def _parse_rows(path, rows, columns, lines, parsed):
    """Numbers of ``columns`` (0-based) of text ``rows`` (from the file's ``lines``);
    empty cells become NaN, an infinite cell is an error naming its line and column.
    ``parsed``: column -> its numbers, for the columns ``as_numbers`` converted whole
    (``_column_kinds``); the others hold a cell it refused, and are read cell by cell."""
    values = np.empty((len(rows), len(columns)))
    cell_by_cell = [k for k, j in enumerate(columns) if j not in parsed]
    for k, j in enumerate(columns):
        if j in parsed:
            values[:, k] = parsed[j]
    for i, row in enumerate(rows):  # by rows: the first bad cell named is the first in the file
        for k in cell_by_cell:
            values[i, k] = _cell_value(path, row[columns[k]], lines[i], columns[k] + 1)
    infinite = np.argwhere(np.isinf(values))
    if infinite.size:
        i, k = (int(v) for v in infinite[0])
        raise DataFileError(
            f"{path}, line {lines[i]}, column {columns[k] + 1}: {rows[i][columns[k]].strip()!r} "
            f"is infinite ({len(infinite)} infinite cell(s) in all); infinity is not a missing value "
            "(--missing handles empty and NaN cells): replace it with a finite number, or empty "
            "the cell to treat it as missing."
        )
    return values


def _check_widths(path, rows, width, lines, delimiter=","):
    for i, row in enumerate(rows):
        if len(row) != width:
            raise DataFileError(
                f"{path}, line {lines[i]}: expected {width} fields, got {len(row)}." + _layout_hint(rows, delimiter)
            )


def _layout_hint(rows, delimiter):
    """What the field-count mismatch probably means: another separator (with decimal
    commas), or a quote that was opened and never closed."""
    if any("\n" in cell for row in rows[:200] for cell in row):
        return (
            ' A quoted cell runs over several lines: a quote (") is probably opened and never closed; '
            "check the line above."
        )
    sample = [(" " if delimiter == WHITESPACE else delimiter).join(row) for row in rows[:50]]
    for other, name in ((";", "';'"), ("\t", "tab"), ("|", "'|'")):
        if other != delimiter and sample and all(line.count(other) == sample[0].count(other) > 0 for line in sample):
            if other == ";" and any(re.search(r"\d,\d", line) for line in sample):
                return (
                    " The file looks ';'-separated with decimal commas (1,5): pass --decimal ',' (';' is then the "
                    "delimiter)."
                )
            return f" The file looks {name}-separated: pass --delimiter {name if other != chr(9) else 'tab'}."
    words = [line.split() for line in sample]
    numbers = any(all(is_number(word) for word in line) for line in words[1:])  # not a column of names
    if delimiter != WHITESPACE and numbers and all(len(line) == len(words[0]) > 1 for line in words):
        return f" The file looks separated by spaces: pass --delimiter {WHITESPACE}."
    return ""


def read_csv(path, *, header="auto", delimiter=None, encoding="utf-8", decimal="."):
    """Read a CSV/TSV file as text rows.

    Parameters
    ----------
    path : str
        A .csv / .tsv / .txt file, or one compressed by gzip (.gz), bzip2 (.bz2), xz
        (.xz) or zstandard (.zst), read as a stream.
    header : {'auto', 'yes', 'no'}
        'auto' treats the first row as a header when any of its cells is not a
        number (the caller announces the decision).
    delimiter : str, optional
        One character, or 'whitespace' for runs of spaces and tabs. Default: tab for
        ``.tsv`` files (compressed or not), ';' with ``decimal=','``, else comma.
    encoding : str, default='utf-8'
        The text encoding (a UTF-8 byte-order mark is skipped); e.g. 'latin-1' or
        'cp1252' for files from older spreadsheets.
    decimal : {'.', ','}, default='.'
        The decimal mark: with ',' a cell such as ``1,5`` or ``1.234,5`` is the number
        1.5 or 1234.5 (a cell written with a dot is read as it is).

    Returns
    -------
    names : list of str or None
    rows : list of list of str
        The data rows as text, all of the same width (checked).
    lines : ndarray of int
        The file's line number of each data row.
    skipped : list of str
        What was skipped and where: blank lines inside a table of several columns (in
        a table of one column, a blank line is a gap) and comment lines before the
        table (starting with '#'; a '#' header just above the numbers is kept).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv"); _ = open(p, "w").write("a,b\\n1,2\\n")
    >>> read_csv(p)[0]
    ['a', 'b']
    """
    base, kind = split_compression(path)
    if decimal not in (".", ","):
        raise DataFileError(f"--decimal {decimal!r} is not a decimal mark; give '.' or ','.")
    given, delimiter = delimiter, _delimiter(delimiter, base, decimal)
    rows, delimiter, declared = _text_rows(path, kind, encoding, given, delimiter)
    rows, lines, skipped = _checked_rows(path, rows, delimiter, decimal)
    if declared is not None:
        used = "tab" if delimiter == "\t" else repr(delimiter)
        how = f"fields read as {used}-separated" + (" (--delimiter)" if given is not None else "")
        skipped.insert(0, f"line 1, {declared.strip()!r} (a spreadsheet's separator line): {how}")
    has_header = header == "yes" or (header == "auto" and (_names_a_column(rows[0]) or pandas_default_names(rows[0])))
    names = [c.strip() for c in rows[0]] if has_header else None
    data, lines = (rows[1:], lines[1:]) if has_header else (rows, lines)
    if not data:
        raise DataFileError(f"{path}: header only, no data rows.")
    if names and all(len(row) == len(names) + 1 for row in data):
        names = [""] + names  # R's write.table: no header field above the row names
    _check_widths(path, data, len(names) if names else len(data[0]), lines, delimiter)
    if names:
        _warn_duplicate_names(path, names)
    return names, data, lines, skipped


def _text_rows(path, kind, encoding, given, delimiter):
    """The file's rows as text, the delimiter they were split by (``delimiter``, or the
    one a first line ``sep=;`` declares when none was ``given``) and that line (None
    without one; it comes back as an empty row, so that rows keep their line numbers)."""
    reader, declared = None, None
    try:
        utf8 = encoding.lower().replace("_", "-") in ("utf-8", "utf8")
        with open_text(path, "utf-16" if utf16_marked(path) else "utf-8-sig" if utf8 else encoding) as fh:
            first = fh.readline()
            declared = first if _declared_separator(first) is not None else None
            if declared is not None and given is None:
                delimiter = _declared_separator(first)
            reader = _csv_reader(fh if declared is not None else itertools.chain([first], fh), delimiter)
            rows = ([[]] if declared is not None else []) + list(reader)
    except UnicodeDecodeError as exc:
        raise DataFileError(
            f"{path}: not a {encoding} text file (byte {exc.start}: {exc.object[exc.start : exc.start + 1]!r})"
            f"{_encoding_hint(path)}"
        ) from None
    except LookupError:
        raise DataFileError(
            f"{path}: unknown text encoding {encoding!r}; use a name such as utf-8, latin-1 or cp1252."
        ) from None
    except csv.Error as exc:
        where = f", line {reader.line_num + (declared is not None)}" if reader is not None else ""
        raise DataFileError(f"{path}{where}: malformed CSV ({exc}).") from None
    except _decompression_errors() as exc:
        raise DataFileError(f"{path}: not a readable {kind} file ({str(exc)[:200]}).") from None
    return rows, delimiter, declared


def _declared_separator(line):
    """The field separator a first line ``sep=;`` declares (Excel writes and reads it;
    quoted or not), or None.

    Examples
    --------
    >>> _declared_separator("sep=;\\n"), _declared_separator('"sep=|"\\r\\n'), _declared_separator("a,b\\n")
    (';', '|', None)
    """
    match = re.fullmatch(r'"?sep=(.)"?', line.strip("\r\n"), flags=re.IGNORECASE)
    return match.group(1) if match and match.group(1) not in '"\r\n' else None


def _names_a_column(row):
    """Whether a first row is a header: some cell is neither a number nor a gap (a first
    data row may have gaps, and a trailing separator leaves an empty cell).

    Examples
    --------
    >>> _names_a_column(["1", "", "NA"]), _names_a_column(["1", "size"])
    (False, True)
    """
    return not all(number_or_gap(c) for c in row)


def pandas_default_names(row):
    """Whether a first row is the column names pandas gives a frame made from an array
    (0, 1, ..., d-1, as ``to_csv`` writes them; an empty first field above a written
    index): a header, not a row of data.

    Examples
    --------
    >>> pandas_default_names(["", "0", "1", "2"]), pandas_default_names(["0", "1", "3"])
    (True, False)
    """
    cells = [c.strip() for c in row]
    cells = cells[1:] if cells[:1] == [""] else cells
    return len(cells) > 1 and cells == [str(j) for j in range(len(cells))]


def _checked_rows(path, rows, delimiter, decimal):
    """The text rows read, with their line numbers and what was skipped (see
    ``_without_blank_lines``, ``_without_comments``), decimal commas read; refused when a line holds a NUL
    byte, when there is none, or when every line is one field with another separator in
    each (a file read with the wrong delimiter)."""
    for number, row in enumerate(rows, start=1):
        if "\x00" in "".join(row):  # one scan a row, not a generator step a cell
            hint = _encoding_hint(path) if number == 1 else "; this is not a text file, or it is corrupt."
            raise DataFileError(f"{path}, line {number}: a NUL byte{hint}")
    rows, captions = _without_captions(rows, delimiter)
    rows, lines, blank = _without_blank_lines(rows)
    rows, lines, comments = _without_comments(rows, lines)
    if not rows:
        raise DataFileError(f"{path}: empty file, no data rows.")
    skipped = captions + ([f"{len(blank)} blank line(s) inside the table (line {listed(blank)})"] if blank else [])
    if comments:
        skipped.append(f"{len(comments)} comment line(s) before the table (line {listed(comments)}, starting with '#')")
    if decimal == ",":
        rows = _decimal_commas(rows)
    if all(len(row) == 1 for row in rows) and (hint := _layout_hint(rows, delimiter)):
        raise DataFileError(f"{path}: every line is one field, with another separator in each.{hint}")
    return rows, lines, skipped


def _without_captions(rows, delimiter=","):
    """``(rows, what was skipped)``: the title lines above the table and the note lines
    below it (``caption_rows``; a spreadsheet's CSV export of a sheet laid out for
    reading) made blank, so that they go with the blank lines at the ends. Nothing is
    skipped when one holds another separator: a header of one field then says the
    delimiter is wrong.

    Examples
    --------
    >>> rows, skipped = _without_captions([["Survey 2024", ""], [], ["a", "b"], ["1", "2"], [], ["Source: us"]])
    >>> rows, skipped[0]
    ([[], [], ['a', 'b'], ['1', '2'], [], []], "the title line(s) above the table (line 1: 'Survey 2024')")
    """
    above, below = caption_rows(rows, str.strip, fields=True)
    others = [c for c in SEPARATORS if c != delimiter]
    if any(c in cell for i in (*above, *below) for cell in rows[i] for c in others):
        return rows, []
    skipped = [
        f"the {kind} the table ({said_rows(rows, found, 'line', str.strip)})"
        for kind, found in (("title line(s) above", above), ("note line(s) below", below))
        if found
    ]
    drop = set(above) | set(below)
    return ([[] if i in drop else row for i, row in enumerate(rows)] if drop else rows), skipped


def _without_comments(rows, lines):
    """``(rows, line numbers, comment lines skipped)``: the lines before the table that
    start with '#', except the last when it is the header of a table whose first other
    line is data (its width; a '#' header as in BED and VCF files).

    Examples
    --------
    >>> _without_comments([["# made by x"], ["# in mm", " 2026"], ["a", "b"], ["1", "2"]], np.arange(1, 5))
    ([['a', 'b'], ['1', '2']], array([3, 4]), [1, 2])
    >>> _without_comments([["#chrom", "start"], ["1", "2"]], np.array([1, 2]))[2]
    []
    """
    leading = 0
    while leading < len(rows) and rows[leading] and rows[leading][0].lstrip().startswith("#"):
        leading += 1
    if leading in (0, len(rows)):
        return rows, lines, []
    first = rows[leading]
    if not _names_a_column(first) and len(rows[leading - 1]) == len(first):
        leading -= 1  # the '#' line just above numbers, as wide as they are: the header
    return rows[leading:], lines[leading:], [int(line) for line in lines[:leading]]


def _without_blank_lines(rows):
    """``(rows, line numbers, blank lines skipped)``: blank lines at the ends are dropped;
    inside a table of several columns they are skipped (as pandas skips them), while in
    a table of one column a blank line is a gap (an empty cell).

    Examples
    --------
    >>> _without_blank_lines([["a", "b"], [], ["1", "2"], ["  "], ["3", "4"], []])
    ([['a', 'b'], ['1', '2'], ['3', '4']], array([1, 3, 5]), [2, 4])
    >>> _without_blank_lines([["a"], [], ["1"]])[0]
    [['a'], [''], ['1']]
    """
    lines = np.arange(1, len(rows) + 1)
    filled = [i for i, row in enumerate(rows) if len(row) > 1 or (row and row[0].strip())]
    if not filled:
        return [], lines[:0], []
    first, last = filled[0], filled[-1]
    if len(filled) == last + 1 - first:  # no blank line inside: the common case, no copy
        return rows[first : last + 1], lines[first : last + 1], []
    if max(len(row) for row in rows) == 1:
        return [row or [""] for row in rows[first : last + 1]], lines[first : last + 1], []
    blank = sorted(set(range(first, last + 1)) - set(filled))
    return [rows[i] for i in filled], lines[filled], [int(lines[i]) for i in blank]


def _warn_duplicate_names(path, names):

    seen = {}
    for j, name in enumerate(names):
        seen.setdefault(name, []).append(j + 1)
    repeated = {n: cols for n, cols in seen.items() if n and len(cols) > 1}
    if repeated:
        listed = "; ".join(f"{n!r} (columns {', '.join(map(str, cols))})" for n, cols in list(repeated.items())[:5])
        warn_user(f"{path}: duplicate column names: {listed}; name such columns by number.", UserWarning)


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector paused while a file's cells are read: they are millions of
    strings in lists, which every collection walks (0.2 s of 1.3 for 200 x 20,000 cells),
    and they hold no cycle."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_collector_paused()
def read_csv_table(
    path,
    *,
    header="auto",
    delimiter=None,
    label_column=None,
    exclude=(),
    index_column=None,
    encoding="utf-8",
    categorical=(),
    ordinal=None,
    na_values=(),
    decimal=".",
):
    """Feature columns, their names, the label column, the row names and what was decided.

    A column of text (most of its filled cells not numbers) is read as categories, coded
    0, 1, ... in sorted order (announced with its number of levels); ``categorical``
    (names or numbers) reads numbers that are codes the same way; ``ordinal`` maps a
    column to its categories in order, read as ranks. Gaps stay NaN in every kind.

    Cells that are one of ``na_values`` (a file's own mark for a gap, such as UCI's
    '?') are gaps, as empty, NA, NaN, NULL, None and N/A cells always are.

    Row names come from ``index_column`` (name or 1-based number), or are detected: a
    first column of distinct text cells under an empty header field (R's write.csv,
    pandas' to_csv with an index) or under no header field at all (R's write.table,
    whose header has one field fewer than the rows).

    Returns
    -------
    X : ndarray of shape (n_rows, n_kept), NaN where a cell is empty
    names : list of str
    labels : ndarray of str or None
    notes : list of str
        What was decided: whether the first row is a header, which column holds row
        names, which columns are categories.
    row_ids : ndarray of str or None
    kinds : list of str
        'numeric', 'categorical', 'ordinal' or 'date' (days since 1970-01-01) per kept column.
    levels : dict
        Column name -> its categories in code order (categorical and ordinal columns).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(p, "w").write(",a,b,y\\nr1,1,2,u\\nr2,3,,v\\n")
    >>> X, names, y, _, ids, kinds, levels = read_csv_table(p, label_column="y")
    >>> X.tolist(), names, y.tolist(), ids.tolist(), kinds
    ([[1.0, 2.0], [3.0, nan]], ['a', 'b'], ['u', 'v'], ['r1', 'r2'], ['numeric', 'numeric'])
    """
    names, rows, lines, skipped = read_csv(path, header=header, delimiter=delimiter, encoding=encoding, decimal=decimal)
    rows = blank_markers(rows, na_values)
    joined = (
        None if names is None or len(rows) < 2 else continued_header(names, rows[0], rows[1:], cell_kind, forward=True)
    )
    if joined is not None:
        names, rows, lines = joined, rows[1:], lines[1:]
    width = len(rows[0])
    empty = _empty_unnamed_columns(names, rows)
    notes = _layout_notes(path, names, header, width, skipped, empty)
    if joined is not None:
        notes.insert(1, two_row_header_note(path, names))
    names = names or [f"x{j + 1}" for j in range(width)]
    by_column = list(zip(*rows))  # the cells of each column, transposed at once
    roles = {"label_column": label_column, "exclude": exclude, "index_column": index_column}
    keep, label_idx, index_idx = table_roles(
        path, names, by_column.__getitem__, lines, notes, **roles, dropped=empty, given=[*categorical, *(ordinal or {})]
    )
    labels = None if label_idx is None else np.array([row[label_idx].strip() for row in rows])
    row_ids = None if index_idx is None else np.array([row[index_idx].strip() for row in rows])
    kinds, parsed = _column_kinds(path, names, by_column.__getitem__, keep, categorical, ordinal)
    X, levels = _coded_columns(path, names, rows, keep, kinds, ordinal, lines, notes, parsed)
    return X, [names[j] for j in keep], labels, notes, row_ids, [kinds[j] for j in keep], levels


def cell_kind(cell):
    """'gap', 'number' or 'text': what a text cell holds (``continued_header``).

    Examples
    --------
    >>> cell_kind(" NA "), cell_kind("1e3"), cell_kind("cm")
    ('gap', 'number', 'text')
    """
    text = cell.strip()
    if text.lower() in MISSING_TEXT:
        return "gap"
    return "number" if is_number(text) else "text"


def blank_markers(rows, na_values):
    """``rows`` with the cells that are one of ``na_values`` (the file's own marks for a
    gap, such as '?') emptied, so that every reader sees a gap there.

    Examples
    --------
    >>> blank_markers([["1", "?"], ["?", "2"]], ["?"])
    [['1', ''], ['', '2']]
    """
    marks = {str(v).strip() for v in na_values}
    if not marks:
        return rows
    return [["" if c.strip() in marks else c for c in row] for row in rows]


def _column_kinds(path, names, column, keep, categorical, ordinal):
    """Column number -> 'numeric', 'categorical', 'ordinal' or 'date' (``column(j)``: the
    cells of column ``j``): as declared, else as ``text_kind`` finds. Also column number
    -> its numbers, for the columns whose every cell is one (converted once, for
    ``_parse_rows``)."""
    kinds = {column_index(s, names, path): "categorical" for s in categorical}
    kinds.update({column_index(s, names, path): "ordinal" for s in (ordinal or {})})
    pending = [j for j in keep if j not in kinds]
    parsed = dict(zip(pending, columns_as_numbers([column(j) for j in pending]) or ()))
    kinds.update({j: "numeric" for j in parsed})
    for j in keep:
        if j in kinds:
            continue
        kinds[j], numbers = text_kind(column(j), len(names))
        if numbers is not None:
            parsed[j] = numbers
    return kinds, parsed


def columns_as_numbers(columns):
    """Each column's ``as_numbers`` when every cell of every column is a number or a gap,
    converted in one pass (a wide table's thousands of short columns cost a conversion
    each otherwise: 1 s of 2 for 200 x 20,000); None otherwise, or for a single column.

    Examples
    --------
    >>> [c.tolist() for c in columns_as_numbers([("1", ""), ("2.5", "3")])], columns_as_numbers([("1",), ("x",)])
    ([[1.0, nan], [2.5, 3.0]], None)
    """
    if len(columns) < 2 or not all(number_or_gap(c[0]) for c in columns):
        return None  # one column, or one whose first cell is text already: by columns
    values = as_numbers(list(itertools.chain.from_iterable(columns)))
    return None if values is None else list(values.reshape(len(columns), -1))


def text_kind(cells, width):
    """``(kind, numbers)`` of a column's text ``cells`` in a table of ``width`` columns:
    'numeric' with its numbers when every cell is one or a gap (the common case,
    converted whole); else 'categorical' when over half of the filled cells are not
    numbers (a few stray words in a column of numbers are typos, 'numeric' with numbers
    None: the number parser names them with their line), 'date' when every filled cell
    is an ISO 8601 date.

    Examples
    --------
    >>> text_kind(["1", "", "2"], 2)[0], text_kind(["a", "b", "1"], 2), text_kind(["1", "2", "x"], 2)
    ('numeric', ('categorical', None), ('numeric', None))
    """
    from ..preprocessing import as_days

    # each distinct text once: a column of categories holds a few thousand times fewer
    tally = collections.Counter(cells)
    if as_numbers(list(tally)) is not None:  # a cell at a time: every cell converts iff every distinct one does
        numbers = as_numbers(cells)
        if numbers is not None:
            return "numeric", numbers
    filled = collections.Counter()
    for cell, count in tally.items():
        if (text := cell.strip()).lower() not in MISSING_TEXT:
            filled[text] += count
    words = [c for c in filled if not is_number(c)]
    n_words, n_filled = sum(filled[c] for c in words), sum(filled.values())
    # numbers written another way, or a quote never closed: left to the parser, which names the cell
    misread = any(_swallowed_rows(c, width) or misread_number(c) for c in words[:200])
    if not (n_filled and 2 * n_words > n_filled and not misread):
        return "numeric", None
    return ("date" if n_words == n_filled and as_days(list(filled)) is not None else "categorical"), None


def _swallowed_rows(cell, width):
    """Whether a cell holds lines that look like rows of the table (fields split by a
    separator, one of them a number): what a quote opened and never closed swallows. A
    note written over several lines in a quoted text cell (RFC 4180; a spreadsheet's
    export) has none. In a table of one column any line break is taken for one.

    Examples
    --------
    >>> _swallowed_rows("line one\\nline two, and more", 2), _swallowed_rows("x,2\\n3,4,5\\n6,y", 3)
    (False, True)
    """
    inner = cell.split("\n")[1:]
    if width == 1:
        return bool(inner)
    return any(
        any(is_number(field) for field in line.split(sep)) for line in inner for sep in SEPARATORS if sep in line
    )


def _layout_notes(path, names, header, width, skipped, empty):
    """What the reader decided of the file's layout: the header (``names`` None: none),
    the lines skipped, the empty unnamed columns dropped."""
    if names is None:
        notes = [
            f"{path}: first row holds only numbers (or gaps), read as data (no header); use --header yes if it is one."
            if header == "auto"
            else f"{path}: read without a header."
        ]
    elif header == "auto" and pandas_default_names(names):
        notes = [
            f"{path}: first row ({', '.join(n for n in names if n)}) read as a header: the column names pandas gives "
            "a frame made from an array (to_csv writes them); use --header no if it is data."
        ]
    else:
        notes = [f"{path}: first row read as a header ({width} column{'s' * (width > 1)})."]
    notes += [f"{path}: skipped {what}." for what in skipped]
    if empty:
        notes.append(
            f"{path}: column(s) {listed([j + 1 for j in empty])} have no name and no value (a separator at the end "
            "of each line): dropped."
        )
    return notes


def _empty_unnamed_columns(names, rows):
    """Columns with no header field (or no header) and no value in any row: what a
    separator at the end of every line leaves (a spreadsheet's export)."""
    return [j for j in range(len(rows[0])) if not (names and names[j]) and not any(row[j].strip() for row in rows)]


def _coded_columns(path, names, rows, keep, kinds, ordinal, lines, notes, parsed):
    """The kept columns as numbers (category codes and ranks for the categorical and
    ordinal ones), the categories of each, and a note per categorical column
    (``parsed``: as ``_parse_rows``'s)."""
    X = np.empty((len(rows), len(keep)))
    numeric = [k for k, j in enumerate(keep) if kinds[j] == "numeric"]
    if numeric:
        X[:, numeric] = _parse_rows(path, rows, [keep[k] for k in numeric], lines, parsed)
    orders = {column_index(s, names, path): order for s, order in (ordinal or {}).items()}
    levels = {}
    for k, j in enumerate(keep):
        if kinds[j] != "numeric":
            X[:, k], found, note = coded_column(path, names[j], kinds[j], [row[j] for row in rows], orders.get(j))
            notes.append(note)
            if found is not None:
                levels[names[j]] = found
    return X, levels


def coded_column(path, name, kind, cells, order=None):
    """``(values, categories or None, note)`` of a 'date', 'categorical' or 'ordinal'
    column's text ``cells``: days since 1970-01-01, or codes in the categories' order
    (``order``: an ordinal column's, lowest first); gaps NaN.

    Examples
    --------
    >>> values, found, _ = coded_column("f.csv", "size", "categorical", ["b", "a", ""])
    >>> values.tolist(), found
    ([1.0, 0.0, nan], ['a', 'b'])
    """
    from ..preprocessing import as_days, code_categories

    if kind == "date":
        values = as_days(cells)
        return values, None, date_note(path, name, values)
    values, found = code_categories(cells, name, order=order)
    return values, found, category_note(path, name, kind, found, values)


def _safe_text(cell):
    text = str(cell)
    risky = text[:1] in ("=", "+", "-", "@", "\t", "\r") and not is_number(text)
    return "'" + text if risky else text


def write_csv(
    path, array, names, *, labels=None, label_name="label", row_ids=None, id_name="id", delimiter=",", compression=None
):
    """Write a numeric array (and optional label column) as CSV with a header to ``path``
    (or a text stream); with ``row_ids``, they come first, in a column named ``id_name``.

    Text cells (header, labels) that a spreadsheet would run as a formula are written
    with a leading apostrophe. ``delimiter='\\t'`` writes TSV; ``compression`` (a value
    of ``COMPRESSIONS``) compresses the text. The caller checks for an existing file first.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "o.csv")
    >>> write_csv(p, np.eye(2), ["a", "=b"], labels=["x", "@y"])
    >>> open(p).read().splitlines()[:2]
    ["a,'=b,label", '1.0,0.0,x']
    """
    if hasattr(path, "write"):  # a stream the caller owns (standard output): lines end as a pipe's do
        _write_csv_table(path, array, names, labels, label_name, row_ids, id_name, delimiter, "\n")
        return
    with create_text(path, compression) as fh:
        _write_csv_table(fh, array, names, labels, label_name, row_ids, id_name, delimiter)


def _write_csv_table(fh, array, names, labels, label_name, row_ids, id_name, delimiter, line_end="\r\n"):
    writer = csv.writer(fh, delimiter=delimiter, lineterminator=line_end)
    write_csv_header(writer, names if row_ids is None else [id_name, *names], None if labels is None else label_name)
    write_csv_rows(writer, array, labels, row_ids)


def write_csv_header(writer, names, label_name=None):
    """The header row (formula-safe), with the label column when ``label_name`` is set."""
    writer.writerow([_safe_text(n) for n in names] + ([] if label_name is None else [_safe_text(label_name)]))


def write_csv_rows(writer, array, labels=None, row_ids=None):
    """Rows of numbers, each preceded by its (formula-safe) id and followed by its label
    when those are given; called once per block to write a large table in pieces.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_csv_rows(csv.writer(out), np.ones((1, 2)), ["+x"])
    >>> out.getvalue().strip()
    "1.0,1.0,'+x"
    """
    rows = np.asarray(array).tolist()
    if row_ids is not None:
        rows = [[_safe_text(i), *row] for i, row in zip(row_ids, rows)]
    if labels is None:
        writer.writerows(rows)
        return
    writer.writerows(row + [_safe_text(label)] for row, label in zip(rows, labels))
