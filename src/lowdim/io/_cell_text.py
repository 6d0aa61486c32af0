"""What a text cell is, and what reading a column made of it: numbers (also with a
typeset minus), numbers written for reading (12%, $1,200: named, never guessed at), marks
for a gap, ids; and the notes that say what a column was read as. The CSV and Parquet
readers share them."""

import datetime
import re

import numpy as np

from .._messages import listed
from ..preprocessing import MISSING_TEXT

# cells that often mark a gap in files that do not write one of those (UCI's '?'): named in hints
GAP_MARKERS = ("?", "-", "--", ".", "n.a.", "#n/a", "missing", "unknown", "not available")

# the minus sign of typeset text (web tables, PDF copies): a number, unambiguously
UNICODE_MINUS = "\u2212"


def cell_text(cell):
    """A typed cell (a spreadsheet's, a labelled column's category) as the text a CSV
    export would hold: a whole float as an integer, a date in ISO 8601.

    Examples
    --------
    >>> import datetime
    >>> cell_text(3.0), cell_text(2.5), cell_text(datetime.date(2024, 1, 2)), cell_text(" a ")
    ('3', '2.5', '2024-01-02', 'a')
    """
    if isinstance(cell, float) and cell.is_integer() and abs(cell) < 2**53:
        return str(int(cell))
    if isinstance(cell, (datetime.date, datetime.time)):
        return cell.isoformat()
    return str(cell).strip()


def is_number(text):
    try:
        float(text.replace(UNICODE_MINUS, "-"))
        return True
    except ValueError:
        return False


def number_or_gap(text):
    """Whether a text cell is a number or a gap mark (empty, NA, NaN, NULL, None, N/A,
    in any case, spaces around).

    Examples
    --------
    >>> number_or_gap("1.5"), number_or_gap(" n/a "), number_or_gap("red")
    (True, True, False)
    """
    return is_number(text) or text.strip().lower() in MISSING_TEXT


# numbers written for reading, not for reading in: (pattern, what to do), first match wins
_WRITTEN_NUMBERS = (
    (
        r"[-+]?\d{1,3}([, \u00a0\u202f]\d{3})+(\.\d+)?",
        "thousands separators are not read; remove them (1,234.5 -> 1234.5).",
    ),
    (r"[-+]?\d+,\d+", "a decimal comma: pass --decimal ',' (decimal=',') to read 1,5 as 1.5."),
    (r"[-+]?\d+(\.\d+)?\s?%", "percent signs are not read; remove them (12% -> 12, or 0.12 as a fraction)."),
    (r"[$€£¥]\s?[-+]?[\d.,]+|[-+]?[\d.,]+\s?[$€£¥]", "currency signs are not read; remove them ($1,200 -> 1200)."),
    (r"\(\d[\d.,]*\)", "negatives in parentheses are not read; write them with a minus sign ((12) -> -12)."),
    (r"[-+]?(\d+\.?\d*|\.\d+)[dD][-+]\d+", "a Fortran exponent (1.5D+02) is not read; write it with E (1.5E+02)."),
)


def misread_number(text):
    """Why a cell that is no number probably holds one (thousands separators, a decimal
    comma, a percent or currency sign, parentheses for a negative, another delimiter), or
    None (3G and 4K are categories as often as numbers: not guessed at).

    Examples
    --------
    >>> misread_number("12%"), misread_number("Paris")
    ('percent signs are not read; remove them (12% -> 12, or 0.12 as a fraction).', None)
    """
    for pattern, fix in _WRITTEN_NUMBERS:
        if re.fullmatch(pattern, text):
            return fix
    if any(sep in text for sep in ";\t|"):
        return "the file may use another delimiter; pass it with --delimiter."
    return None


def number_hint(text):
    if text.lower() in GAP_MARKERS:
        return f"if it marks a missing value, pass --na-values '{text}' (na_values=[{text!r}])."
    return misread_number(text) or (
        "exclude the column with --exclude, name it with --label-column, or read it as categories with --categorical."
    )


# a date written day and month first or month and day first (01/03/2020, 1.3.20): not read as one
_LOCAL_DATE = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-](\d{2}|\d{4})")


def category_note(path, name, kind, levels, codes=None):
    """What reading a column as categories (``kind`` 'categorical') or ranks ('ordinal')
    did; with the column's ``codes``, what is odd about it: a different text in every
    row, or dates in a local format.

    Examples
    --------
    >>> category_note("f.csv", "size", "ordinal", ["S", "M", "L"])
    "f.csv: column 'size' read as ordered categories, read as ranks (3 levels: S, M, L)."
    >>> category_note("f.csv", "day", "categorical", ["01/03/2020", "02/03/2020"]).split("; ")[1]
    'the levels look like dates in a local format: written as ISO 8601 (2020-03-01) they are read as dates.'
    """
    what = "ordered categories, read as ranks" if kind == "ordinal" else "categories"
    note = f"{path}: column {name!r} read as {what} ({len(levels)} levels: {listed(levels, 5)})"
    filled = None if codes is None else int(np.count_nonzero(~np.isnan(codes)))
    if kind == "categorical" and levels and all(_LOCAL_DATE.fullmatch(str(v)) for v in levels):
        return (
            f"{note}; the levels look like dates in a local format: written as ISO 8601 (2020-03-01) they are "
            "read as dates."
        )
    marks = [v for v in levels if str(v).strip().lower() in GAP_MARKERS]
    if marks:
        return f"{note}; {marks[0]!r} looks like a mark for a missing value: --na-values '{marks[0]}' reads it as one."
    if kind == "categorical" and filled is not None and filled > 2 and len(levels) == filled:
        return (
            f"{note}; a different text in every row says nothing of which rows are alike (--exclude {name} drops it)."
        )
    return note + "."


def date_note(path, name, days):
    """What reading a column as dates did, with the span of its dates: days, or
    minutes in UTC (as the days count) where the values hold times of day, so that
    local times with a zone (00:00+01:00) are not shown as the day before.

    Examples
    --------
    >>> date_note("f.csv", "day", np.array([18262.0, np.nan, 18264.0])).split("; ")[0]
    "f.csv: column 'day' read as dates, as days since 1970-01-01 (2020-01-01 to 2020-01-03)"
    >>> date_note("f.csv", "at", np.array([18261.5, 18263.25])).split("; ")[0]
    "f.csv: column 'at' read as dates, as days since 1970-01-01 (2019-12-31T12:00 to 2020-01-02T06:00 UTC)"
    """
    ends = np.array([np.nanmin(days), np.nanmax(days)])
    if np.all(ends == np.floor(ends)):
        span = " to ".join(str(np.datetime64(int(d), "D")) for d in ends)
    else:
        span = " to ".join(str(np.datetime64(int(np.round(d * 1440)), "m")) for d in ends) + " UTC"
    return (
        f"{path}: column {name!r} read as dates, as days since 1970-01-01 ({span}); --categorical {name} reads them "
        "as categories."
    )


def distinct_text(cells):
    """Whether ``cells`` are all filled (no gap, nor a gap's mark such as NA), all
    different and none a number (a column of ids).

    Examples
    --------
    >>> distinct_text(["Wales", "Scotland"]), distinct_text(["a", "a"]), distinct_text(["1", "2"])
    (True, False, False)
    >>> distinct_text(["n/a", "NA", "null"])  # three marks of a gap, not three names
    False
    """
    cells = [str(c).strip() if c is not None else "" for c in cells]
    numbers = any(is_number(c) or misread_number(c) for c in cells)  # 12%, $1,200: data, not names
    filled = all(c and c.lower() not in MISSING_TEXT for c in cells)
    return len(cells) > 1 and filled and len(set(cells)) == len(cells) and not numbers


def row_names_note(path, name):
    """What reading a named column of ids as row names did, and how to keep it a category."""
    return (
        f"{path}: column {name!r} (a different text in every row) read as row names: as categories, "
        f"a level per row would say nothing of which rows are alike; --categorical {name} keeps it as one."
    )
