"""Where a sheet's table is, among what people put around and inside it for reading: a
title above it (often merged across it), notes below it ("Source: ..."), and a group's
name merged down the rows it covers. Read as plain cells, the title became the header
(and the real header a row of text that turned every column into categories), and a
merged group's name one cell followed by gaps."""

import numbers
import re

from .._messages import listed
from ._cell_text import is_number, number_or_gap

_MERGE = re.compile(rb'<(?:\w+:)?mergeCell\s[^>]*?\bref="([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)"')


def merged_ranges(xml):
    """The merged ranges of a worksheet's XML as 0-based ``(top, left, bottom, right)``.

    Examples
    --------
    >>> merged_ranges(b'<mergeCells count="1"><mergeCell ref="B2:C4"/></mergeCells>')
    [(1, 1, 3, 2)]
    """
    from openpyxl.utils import column_index_from_string

    def column(letters):
        return column_index_from_string(letters.decode()) - 1

    return [
        (int(top) - 1, column(left), int(bottom) - 1, column(right)) for left, top, right, bottom in _MERGE.findall(xml)
    ]


def table_rows(path, rows, merges, notes):
    """The sheet's ``rows`` (cells at their sheet positions) with the title rows above
    the table and the note rows below it emptied (``caption_rows``), and the merged
    ranges inside the table (below its first row, or across it: a group's name over
    its columns) holding their value in every cell; each said in ``notes``."""
    above, below = caption_rows(rows, _is_filled)
    for kind, found in (("title row(s) above", above), ("note row(s) below", below)):
        if found:
            notes.append(f"{path}: skipped the {kind} the table ({said_rows(rows, found, 'row', _is_filled)}).")
    first = next((i for i, row in enumerate(rows) if _count(row, _is_filled) >= 2), None)
    # below the table's first row, and across its first row (a group's name over its columns)
    inside = sorted(
        m for m in merges if first is not None and (first < m[0] or first == m[0] == m[2]) and m[0] not in below
    )
    width = max(map(len, rows), default=0)  # a range stated past the cells ends at them
    inside = [(top, left, min(bottom, len(rows) - 1), min(right, width - 1)) for top, left, bottom, right in inside]
    filled = [m for m in inside if _fill(rows, m)]
    if filled:
        names = [_range_name(m) for m in filled]
        notes.append(
            f"{path}: {len(filled)} merged cell range(s) inside the table read as their value in every cell "
            f"({listed(names, most=5)})."
        )
    return [[None] * len(row) if i in above or i in below else row for i, row in enumerate(rows)]


def caption_rows(rows, filled, *, fields=False):
    """``(above, below)``: the rows before a table's first row of two or more filled
    cells when, before an empty row or a header naming every column, each filled one
    among them holds one text cell (titles; a row of one name right above the rows is a
    header with unnamed columns, or R's header one name short), and the rows after its
    last such row when, after an empty row, each filled one holds one text cell (notes;
    a row of one text cell right under the table may be a row of gaps).
    Empty rows between them and the table are included; a table of one column has
    none (its first cell may be its header), and a caption's cell is in the table's
    first column or before it (a header of one name beside row names is none).
    ``filled(cell)``: whether a cell holds something; ``fields``: the rows are a text
    file's fields, and a line one field shorter than the rows is R's header, no title.

    Examples
    --------
    >>> rows = [["Survey 2024", ""], ["", ""], ["a", "b"], ["1", "2"], ["", ""], ["Source: us", ""]]
    >>> caption_rows(rows, str.strip)
    ([0, 1], [4, 5])
    >>> caption_rows([["Survey 2024", ""], ["a", "b"], ["1", "2"]], str.strip)  # above a whole header
    ([0], [])
    """
    # from each end to the table's first and last rows: the table's rows are not scanned
    first = next((i for i, row in enumerate(rows) if _count(row, filled) >= 2), None)
    if first is None:
        return [], []
    last = next(i for i in range(len(rows) - 1, first - 1, -1) if _count(rows[i], filled) >= 2)
    above, below = range(first), range(last + 1, len(rows))
    captions = [i for i in above if _count(rows[i], filled)]
    notes = [i for i in below if _count(rows[i], filled)]
    # in the table's first column: a one-column table's header beside its row names is none
    start = min(_first_at(rows[first], filled), _first_at(rows[last], filled))
    # and above a header (no number in the first row): R's header of one name above
    # rows of a row name and a number is a header one name short, not a title
    header = not any(_is_number(cell) for cell in rows[first] if filled(cell))
    # an empty row between, or a header naming every column the rows under it fill (a
    # row of one name right above is then no header of unnamed columns), and rows under
    # it: a header of one name has none
    apart = captions and (captions[-1] < first - 1 or _names_every_column(rows, first, last, filled))
    short = fields and any(len(rows[i]) == len(rows[first]) - 1 for i in captions)
    take_above = apart and last > first and header and not short
    take_above = take_above and all(_is_caption(rows[i], filled, start) for i in captions)
    take_below = notes and notes[0] > last + 1 and all(_is_caption(rows[i], filled, start) for i in notes)
    return list(above) if take_above else [], list(below) if take_below else []


def _names_every_column(rows, first, last, filled):
    """Whether the row ``first`` is a whole header: more than one cell, one over every
    column of numbers in the next rows (up to 20, to ``last``), which have some, and over
    every other column they fill but perhaps the first (row names under an empty
    corner, as pandas writes its index). Over rows of text only, a first row of text
    may be data as well."""
    named = {j for j, cell in enumerate(rows[first]) if filled(cell)}
    below = [rows[i] for i in range(first + 1, min(first + 21, last + 1))]
    used = {j for row in below for j, cell in enumerate(row) if filled(cell)}
    numeric = {j for row in below for j, cell in enumerate(row) if filled(cell) and _is_number(cell)}
    return len(named) > 1 and bool(numeric) and numeric <= named and used - named <= {min(used)}


def said_rows(rows, indices, word, filled):
    """The filled ones of ``indices`` for a note: 'line 1: 'Survey', ...'."""
    shown = [f"{word} {i + 1}: {_first(rows[i], filled)!r}" for i in indices if _count(rows[i], filled)]
    return listed(shown, most=3)


def _is_filled(cell):
    return cell is not None


def _count(row, filled):
    return sum(1 for cell in row if filled(cell))


def _first(row, filled):
    return next(cell for cell in row if filled(cell))


def _is_number(cell):
    """A number, typed (a sheet's) or as text."""
    if isinstance(cell, str):
        return is_number(cell)
    return isinstance(cell, numbers.Real) and not isinstance(cell, bool)


def _first_at(row, filled):
    return next(j for j, cell in enumerate(row) if filled(cell))


def _is_caption(row, filled, start):
    """One filled cell, in column ``start`` or before, of words (prose, as 'Source: ONS':
    a name or an id is one word) that are not a number (nor a '#' comment line)."""
    cell = _first(row, filled)
    return (
        _count(row, filled) == 1
        and _first_at(row, filled) <= start
        and isinstance(cell, str)
        and len(cell.split()) > 1
        and isinstance(cell, str)
        and not number_or_gap(cell)
        and not cell.lstrip().startswith("#")
    )


def _fill(rows, merge):
    """Give every cell of a merged range its first cell's value; whether it had one."""
    top, left, bottom, right = merge
    if top >= len(rows) or left >= len(rows[top]) or rows[top][left] is None:
        return False
    value = rows[top][left]
    for i in range(top, min(bottom, len(rows) - 1) + 1):
        rows[i].extend([None] * (right + 1 - len(rows[i])))
        rows[i][left : right + 1] = [value] * (right + 1 - left)
    return True


def _range_name(merge):
    from openpyxl.utils import get_column_letter

    top, left, bottom, right = merge
    return f"{get_column_letter(left + 1)}{top + 1}:{get_column_letter(right + 1)}{bottom + 1}"


def continued_header(names, second, below, kind, *, forward):
    """The column names joined with a second header row (groups above the names, or
    units under them: 'Size' over 'height', 'height' over 'cm'), when the first data
    row ``second`` is one: every filled cell of it text, one of them above a column of
    numbers (at least half the filled cells of the first rows ``below``), which no data
    row would be. None otherwise. ``kind(cell)``: 'gap', 'number' or another word for
    text; ``forward``: an empty cell of the upper row takes the name to its left (a CSV
    export keeps a merged group's name in its first cell only).

    Examples
    --------
    >>> def kind(cell):
    ...     return "gap" if not cell else "number" if cell[0].isdigit() else "text"
    >>> continued_header(["", "Size", "", "Colour"], ["id", "height", "width", "hue"], [["a", "1", "2", "red"]], kind,
    ...                  forward=True)
    ['id', 'Size height', 'Size width', 'Colour hue']
    """
    kinds = [kind(cell) for cell in second]
    if any(k == "number" for k in kinds) or all(k == "gap" for k in kinds):
        return None
    sample = below[:200]

    def numbers_below(j):
        found = [kind(row[j]) for row in sample if j < len(row)]
        filled = [k for k in found if k != "gap"]
        return bool(filled) and 2 * filled.count("number") >= len(filled)

    if not any(k != "gap" and numbers_below(j) for j, k in enumerate(kinds)):
        return None
    upper, last = [], ""
    for name in names:
        last = name if name or not forward else last
        upper.append(name or last)
    lower = ["" if k == "gap" else str(cell).strip() for cell, k in zip(second, kinds)]
    return [" ".join(part for part in (u, w) if part) for u, w in zip(upper, lower)]


def two_row_header_note(path, names):
    """The note of a header read from two rows, with the names made."""
    return f"{path}: the first two rows read as the header (groups or units with the names): {listed(names, most=6)}."
