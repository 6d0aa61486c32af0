"""Large plain CSV/TSV tables read by pyarrow's parser (the ``io`` extra).

The general reader (``_csv.read_csv_table``) holds every cell as a Python string: a
million rows of 20 numbers took 17 s and 2.2 GB, and 5 million rows of 50 would not fit
in 24 GiB. pyarrow's parser reads the same files on both cores, numbers straight into
float64 columns. It serves a file only when it reads exactly what the general reader
would: one line a row (no blank line, comment, separator declaration or multi-line
cell: the file's line count says so), a header as wide as the rows, more rows than
columns, no infinity, no quote, NUL or line break left in a text cell. Its text columns
(categories, dates, labels, row names) are decided and coded by the general reader's
own functions (``text_kind``, ``coded_column``, ``table_roles``). Anything else returns
None and the general reader reads the file, with its notes and its errors naming the
line. The results are the same (tests/test_io_arrow_csv.py reads files both ways).
"""

import csv
import itertools
import os
import re

import numpy as np

from ..exceptions import DataFileError
from ..preprocessing import MISSING_TEXT
from ._cell_text import is_number, number_or_gap
from ._columns import column_index, column_indices, table_roles
from ._csv import (
    SEPARATORS,
    _declared_separator,
    _delimiter,
    _layout_notes,
    _names_a_column,
    _warn_duplicate_names,
    coded_column,
    pandas_default_names,
    text_kind,
)
from ._text_files import _decompression_errors, open_text, split_compression

RETYPED = 8  # columns found to hold text after their first row, read again as text, at most
ARROW_BYTES = 1 << 22  # smaller files: the general reader takes a fraction of a second
ARROW_COMPRESSIONS = (None, "gzip", "bzip2", "zstandard")  # those pyarrow's streams decompress
UTF8 = ("utf-8", "utf8")


def _case_variants(word):
    """Every spelling of ``word`` in upper and lower case letters (pyarrow's gap marks
    are matched exactly; the general reader compares them in lower case)."""
    return {"".join(chars) for chars in itertools.product(*({c.lower(), c.upper()} for c in word))}


GAP_TEXT = sorted(set().union(*(_case_variants(word) for word in MISSING_TEXT)))


def _first_rows(path, delimiter):
    """The first two lines of the file, split as the general reader splits them (None:
    fewer lines, a first line that declares its separator, or a file of fewer rows than
    columns by the length of its second line: pyarrow's columns cost more than its rows
    save there)."""
    with open_text(path) as fh:  # a line longer than any header (16 M characters) is cut: widths then differ
        lines = [fh.readline(1 << 24), fh.readline(1 << 24)]
    if not lines[1].strip() or _declared_separator(lines[0]) is not None:
        return None
    rows = list(csv.reader(lines, delimiter=delimiter, skipinitialspace=True))
    if os.path.getsize(path) < len(lines[1]) * len(rows[1]):
        return None
    return rows


def _layout(path, header, delimiter):
    """``(names or None, width, first data row)`` of a plain table whose first lines
    allow the fast path, else None."""
    rows = _first_rows(path, delimiter)
    if rows is None or len(rows) != 2 or len(rows[0]) < 2 or len(rows[0]) != len(rows[1]):
        return None
    first = rows[0]
    if first[0].lstrip().startswith("#"):
        return None
    has_header = header == "yes" or (header == "auto" and (_names_a_column(first) or pandas_default_names(first)))
    names = [c.strip() for c in first] if has_header else None
    if names is not None and not all(names[1:]):
        return None  # unnamed columns: the general reader drops or names them
    return names, len(first), rows[int(has_header)]


def _line_count(path):
    """Lines in the (decompressed) file: newlines, and a last line without one."""
    import pyarrow as pa

    count, last = 0, b"\n"
    with pa.input_stream(path, compression="detect") as stream:
        while chunk := stream.read(1 << 24):
            count, last = count + chunk.count(b"\n"), chunk[-1:]
    return count + (last != b"\n")


def _read(path, width, skip, delimiter, text_columns, skipped, gaps, unsure=()):
    """The file's columns ``c0 ...`` but ``skipped``: text for ``text_columns``, typed by
    pyarrow for ``unsure`` (a gap in the first row says nothing), float64 for the others."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"c{j}" for j in range(width)]
    types = {n: pa.string() if j in text_columns else pa.float64() for j, n in enumerate(names) if j not in unsure}
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=names, skip_rows=skip),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types=types,
            include_columns=[n for j, n in enumerate(names) if j not in skipped],
            null_values=gaps,
            strings_can_be_null=False,
        ),
    )


def _read_retyped(path, width, skip, delimiter, text_columns, skipped, gaps, unsure=frozenset()):
    """``_read``, again with a column read as text (and added to ``text_columns``) when a
    word in it stopped the numbers, a few times at most; None after that. A word among
    numbers raises from the last try (the general reader names it). The ``unsure``
    columns are typed by pyarrow in the same read: text joins ``text_columns``, numbers
    become float64, anything else (booleans, times) is read again as text."""
    import pyarrow as pa

    for _ in range(RETYPED):
        guessed = set(unsure) - text_columns - skipped
        try:
            table = _read(path, width, skip, delimiter, text_columns, skipped, gaps, guessed)
        except pa.ArrowInvalid as exc:
            found = re.match(r"In CSV column #(\d+): CSV conversion error to \w+", str(exc))
            if found is None or int(found.group(1)) in text_columns:
                raise
            text_columns.add(int(found.group(1)))
            continue
        kinds = {j: table.column(f"c{j}").type for j in guessed}
        text_columns |= {j for j, kind in kinds.items() if pa.types.is_string(kind) or pa.types.is_large_string(kind)}
        numbers = {j for j, kind in kinds.items() if pa.types.is_floating(kind) or pa.types.is_integer(kind)
                   or pa.types.is_null(kind)}  # fmt: skip
        if set(kinds) - text_columns - numbers:
            text_columns |= set(kinds) - numbers
            continue
        for j in numbers:
            at = table.schema.get_field_index(f"c{j}")
            table = table.set_column(at, f"c{j}", table.column(at).cast(pa.float64()))
        return table
    return None


def _text_cells(column, marks):
    """A text column's cells as the general reader holds them (a cell that is one of
    ``marks`` emptied), or None when a cell holds what it reads otherwise: a quote
    (after a space before the opening quote), a NUL byte or a line break."""
    import pyarrow.compute as pc

    for odd in ('"', "\x00", "\n", "\r"):
        if pc.any(pc.match_substring(column, odd)).as_py():
            return None
    if len(column) and pc.max(pc.utf8_length(column)).as_py() > csv.field_size_limit():
        return None  # the csv module refuses it, with its line
    return ["" if cell.strip() in marks else cell for cell in column.to_pylist()]


def read_plain_table(path, *, header, delimiter, encoding, decimal, label_column, exclude, index_column, na_values):
    """``read_csv_table``'s result for a large plain table, or None when the general
    reader must read the file (see the module's description).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv"); _ = open(p, "w").write("a,b\\n1,2\\n")
    >>> read_plain_table(p, header="auto", delimiter=None, encoding="utf-8", decimal=".", label_column=None,
    ...                    exclude=(), index_column=None, na_values=()) is None  # small: the general reader
    True
    """
    base, compression = split_compression(path)
    delimiter = _delimiter(delimiter, base, decimal) if decimal == "." else None
    if (
        delimiter not in SEPARATORS
        or encoding.lower().replace("_", "-") not in UTF8
        or compression not in ARROW_COMPRESSIONS
        or os.path.getsize(path) < ARROW_BYTES
    ):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        layout = _layout(path, header, delimiter)
    except (UnicodeError, csv.Error, *_decompression_errors()):
        return None  # the general reader says what is wrong, and where
    if layout is None:
        return None
    try:
        return _plain_table(path, *layout, header, delimiter, label_column, exclude, index_column, na_values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError):
        return None  # a ragged row, bytes that are not UTF-8, a truncated stream: the general reader says
    except DataFileError:  # the general reader warns of repeated names before its errors too
        if layout[0] is not None:
            _warn_duplicate_names(path, layout[0])
        raise


def _plain_table(path, names, width, row, header, delimiter, label_column, exclude, index_column, na_values):
    """The table of a file ``_layout`` passed (``row``: its first data row), or None."""
    has_header, marks = names is not None, {str(v).strip() for v in na_values}
    notes = _layout_notes(path, names, header, width, [], [])
    named = names or [f"x{j + 1}" for j in range(width)]
    text = {column_index(c, named, path) for c in (label_column, index_column) if c is not None}
    # a first data row's text (categories, dates) or an unnamed first column (row names): read as text
    text |= {j for j, cell in enumerate(row) if not (number_or_gap(cell) or cell.strip() in marks)}
    text |= {0} if named[0] == "" else set()
    skipped = column_indices(exclude, named, path) - text
    unsure = {j for j, cell in enumerate(row) if j not in text and not is_number(cell)}  # a gap: pyarrow decides
    table = _read_retyped(path, width, int(has_header), delimiter, text, skipped, GAP_TEXT + sorted(marks), unsure)
    if table is None or table.num_rows + has_header != _line_count(path) or _one_cell_last(table):
        return None  # blank lines, a cell over several lines, or a note under the table
    cells = {j: _text_cells(table.column(f"c{j}"), marks) for j in text}
    if any(c is None for c in cells.values()):
        return None
    lines = np.arange(1 + has_header, table.num_rows + 1 + has_header)  # one line a row (counted above)
    # a column read as numbers holds no row names (distinct text): it reads as no cells
    keep, label_idx, index_idx = table_roles(
        path, named, lambda j: cells.get(j, []), lines, notes, label_column=label_column, exclude=exclude,
        index_column=index_column,
    )  # fmt: skip
    coded = _coded(path, named, table, keep, cells, width, notes)
    if coded is None:
        return None
    X, kinds, levels = coded
    if has_header:
        _warn_duplicate_names(path, names)
    labels = None if label_idx is None else np.array([c.strip() for c in cells[label_idx]])
    row_ids = None if index_idx is None else np.array([c.strip() for c in cells[index_idx]])
    return X, [named[j] for j in keep], labels, notes, row_ids, kinds, levels


def _one_cell_last(table):
    """Whether the last row holds one cell: perhaps a note under the table (a source, a
    footnote), which the general reader tells from a row of gaps (``caption_rows``)."""
    last = table.slice(table.num_rows - 1).to_pylist()
    cells = last[0].values() if last else ()
    return sum(v is not None and (not isinstance(v, str) or bool(v.strip())) for v in cells) == 1


def _coded(path, names, table, keep, cells, width, notes):
    """``(X, kinds, levels)`` of the kept columns, as the general reader codes them (the
    text ones by ``text_kind`` and ``coded_column``, their notes added to ``notes``), or
    None where it would stop: a column of numbers with a word in it, an infinite cell."""
    X, kinds, levels, added = np.empty((table.num_rows, len(keep))), [], {}, []
    for k, j in enumerate(keep):
        kind, numbers = ("numeric", table.column(f"c{j}").to_numpy()) if j not in cells else text_kind(cells[j], width)
        if kind == "numeric" and numbers is None:
            return None  # a typo among numbers: the general reader names its line
        if kind == "numeric":
            X[:, k] = numbers  # gaps (nulls) as NaN
        else:
            X[:, k], found, note = coded_column(path, names[j], kind, cells[j])
            added.append(note)
            if found is not None:
                levels[names[j]] = found
        kinds.append(kind)
    if np.isinf(X).any():
        return None  # the general reader names the first infinite cell
    notes.extend(added)
    return X, kinds, levels
