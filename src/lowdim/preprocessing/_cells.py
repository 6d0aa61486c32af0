"""Cells of a table as text, and which of them are gaps: the one reading every column
kind (categories, dates) starts from."""

import numpy as np

# the texts spreadsheets, R and pandas write for an empty cell (compared in lower case)
MISSING_TEXT = ("", "na", "nan", "n/a", "null", "none")


def cell_texts(cells):
    """The cells as stripped text, and which are gaps (None, NaN, '', 'NA', NaT, ...):
    vectorised, as a column can hold millions of cells.

    Examples
    --------
    >>> text, gaps = cell_texts([" a", None, "NA", 2])
    >>> text.tolist(), gaps.tolist()
    (['a', 'None', 'NA', '2'], [False, True, True, False])
    """
    text = np.char.strip(np.asarray(cells, dtype=object).astype(str))
    gaps = np.isin(np.char.lower(text), [*MISSING_TEXT, "<na>", "nat"])
    return text, gaps
