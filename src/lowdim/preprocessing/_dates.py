"""Dates and times as numbers: days since 1970-01-01 (UTC), so that a date column is a
quantity (its differences are durations) rather than a category with a level per day."""

import re
from datetime import UTC, datetime

import numpy as np

from ._cells import cell_texts

# a date written the ISO 8601 way (2020-03-01, 2020-03-01T14:30, 2020-03-01 14:30:00+01:00):
# the year first, so 01/03/2020 (first of March or third of January?) is never guessed at
_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}")
SECONDS_PER_DAY = 86400.0


def as_days(cells):
    """Days since 1970-01-01 UTC of date cells, NaN for gaps; None when a filled cell is
    not a date.

    Dates are numpy ``datetime64`` values, ``date`` / ``datetime`` objects (pandas'
    ``Timestamp`` among them) or ISO 8601 text (``2020-03-01``, ``2020-03-01T14:30``,
    ``2020-03-01 14:30:00+01:00``). Times without a zone are taken as UTC; times with
    one are converted to it. A column without any filled cell is not taken for dates.

    Parameters
    ----------
    cells : sequence

    Returns
    -------
    ndarray of float64 or None

    Examples
    --------
    >>> as_days(["1970-01-02", "", "1970-01-01T12:00"]).tolist()
    [1.0, nan, 0.5]
    >>> as_days(["2020-01-01", "soon"]) is None
    True
    """
    array = cells if isinstance(cells, np.ndarray) else np.asarray(cells, dtype=object)
    if array.dtype.kind == "M":
        return _datetime64_days(array)
    text, gaps = cell_texts(array)
    filled = text[~gaps]
    if not filled.size or not _ISO_START.match(str(filled[0])):  # a column of words: no sort of all its cells
        return None
    found, where = np.unique(filled, return_inverse=True)
    days = np.empty(found.size)
    for i, t in enumerate(found.tolist()):
        day = _iso_days(t)
        if day is None:  # a column of words stops at its first one
            return None
        days[i] = day
    out = np.full(text.shape[0], np.nan)
    out[~gaps] = days[where]
    return out


def _datetime64_days(array):
    seconds = array.astype("datetime64[us]").astype(np.int64) / 1e6
    return np.where(np.isnat(array), np.nan, seconds / SECONDS_PER_DAY)


def _iso_days(text):
    """Days since 1970-01-01 UTC of one ISO 8601 date or time, or None."""
    if not _ISO_START.match(text):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp() / SECONDS_PER_DAY
