"""Labels as ordered categories, the same for the PNG scatter and the interactive map."""

import re

import numpy as np

from .._validation import missing_labels


def _is_float(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _natural_key(text):
    """'person 10' after 'person 9': runs of digits compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part]


MISSING = -2  # the code of a missing label (None, NaN, an empty cell), beside -1: noise


def categories(labels):
    """``(names, codes, noise)``: the distinct labels as text, in numeric order when every
    one is a number (else natural text order: 'person 9' before 'person 10'), each row's
    code into ``names``, and whether -1 among numeric labels was taken as a clusterer's
    noise (code -1, not in ``names``). A missing label (NaN, None, an empty cell) has
    code ``MISSING`` (-2), not in ``names`` either: no category named '' or 'nan'.

    Examples
    --------
    >>> names, codes, noise = categories([2, -1, 10, 2])
    >>> names.tolist(), codes.tolist(), noise
    (['2', '10'], [0, -1, 1, 0], True)
    >>> categories(["person 10", "person 9"])[0].tolist()
    ['person 9', 'person 10']
    >>> [part.tolist() for part in categories(["b", None, "a"])[:2]]
    [['a', 'b'], [1, -2, 0]]
    """
    values = np.asarray(labels).reshape(-1)
    missing = missing_labels(values)
    if missing.any():
        names, codes, noise = categories(values[~missing])
        full = np.full(values.size, MISSING, dtype=codes.dtype)
        full[~missing] = codes
        return names, full, noise
    names, codes = np.unique(values.astype(str), return_inverse=True)
    codes = codes.reshape(-1)
    numeric = names.size > 0 and all(_is_float(n) for n in names)
    key = (lambda j: float(names[j])) if numeric else (lambda j: _natural_key(names[j]))
    order = np.array(sorted(range(names.size), key=key), dtype=np.intp)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    names, codes = names[order], rank[codes]
    noise = bool(numeric and names[0] in ("-1", "-1.0"))
    if noise:
        names, codes = names[1:], codes - 1
    return names, codes, noise
