"""A table's last row that holds its columns' totals (or means): what a report or a
spreadsheet adds under its rows ("Total", "All regions"). Read as a row it is a sample
far from every other (n times the mean), and it leads the first principal component
and every map; it is left out, and said."""

import collections
import re

import numpy as np

LARGEST = 1 << 20  # cells of the largest table looked at
_NAMES = {
    "sum": re.compile(r"\b(totals?|sum|overall|all|grand total)\b", re.IGNORECASE),
    "mean": re.compile(r"\b(mean|average|avg)\b", re.IGNORECASE),
}


def total_row(X, numeric, words):
    """Whether the last row of ``X`` is the sum (or the mean) of the rows above it: in
    every one of the ``numeric`` columns it fills, to 1e-6 of the column's scale over two
    or more columns; or, when one of its ``words`` (its row name, label, category
    cells) says 'Total' or 'Mean', to 0.5 % (totals of rounded cells) over one or more.
    Returns 'sum', 'mean' or None.

    Examples
    --------
    >>> X = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 5.0], [7.0, 35.0]])
    >>> total_row(X, [0, 1], []), total_row(X[:3], [0, 1], []), total_row(X[:, :1], [0], ["Total"])
    ('sum', None, 'sum')
    """
    if X.shape[0] < 4 or not len(numeric):
        return None
    above, last = X[:-1][:, numeric], X[-1, numeric]
    filled = ~np.isnan(last) & ~np.isnan(above).all(axis=0)
    if not filled.any():
        return None
    above, last = above[:, filled], last[filled]
    scale = np.nansum(np.abs(above), axis=0)
    for kind, value in (("sum", np.nansum(above, axis=0)), ("mean", np.nanmean(above, axis=0))):
        named = any(_NAMES[kind].search(str(word)) for word in words)
        close = np.abs(last - value) <= (5e-3 if named else 1e-6) * np.maximum(scale, 1e-300)
        if close.all() and (named or filled.sum() >= 2) and np.any(last != 0):
            return kind
    return None


def without_total_row(path, table_parts, kinds, levels, names):
    """``(X, labels, row_ids, note)`` with a last row of totals or means left out
    (``total_row``), the note saying so; the parts unchanged and no note otherwise.
    ``table_parts``: ``(X, labels, row_ids)``."""
    X, labels, row_ids = table_parts
    if X.shape[0] < 4 or X.size > LARGEST:  # a report's table is small; a large one is data
        return X, labels, row_ids, None
    kinds = kinds or ["numeric"] * X.shape[1]
    numeric = [j for j, kind in enumerate(kinds) if kind == "numeric"]
    words = [part[-1] for part in (labels, row_ids) if part is not None]
    repeated = {name for name, n in collections.Counter(names).items() if n > 1}  # levels are kept by name
    for j, kind in enumerate(kinds):  # a category cell of the last row ('All regions')
        found = None if kind == "numeric" or names[j] in repeated else levels.get(names[j])
        if found is not None and not np.isnan(X[-1, j]) and int(X[-1, j]) < len(found):
            words.append(found[int(X[-1, j])])
    kind = total_row(X, numeric, words)
    if kind is None:
        return X, labels, row_ids, None
    named = f" ({str(words[0])!r})" if words else ""
    note = (
        f"{path}: the last row{named} holds the {'totals' if kind == 'sum' else 'means'} of the columns over the "
        f"rows above it: left out ({X.shape[0] - 1} rows read); a {'sum' if kind == 'sum' else 'mean'} of the "
        "samples is not one, and would lead every component and map."
    )
    cut = slice(0, X.shape[0] - 1)
    return X[cut], None if labels is None else labels[cut], None if row_ids is None else row_ids[cut], note
