"""Tables of mixed columns (numbers, categories, ordered categories, gaps) as numbers:
category codes, ranks and NaN, with the column description Gower's distance takes."""

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._messages import shown
from ._cells import MISSING_TEXT, cell_texts
from ._dates import as_days

ARROW_CELLS = 1 << 14  # text columns this long convert through pyarrow (the io extra), when installed


@dataclass
class MixedCodes:
    """A mixed table coded as numbers, and what each column is.

    Attributes
    ----------
    X : ndarray of float64 (n_rows, n_columns)
        Numbers as they are, category codes (0, 1, ... in the order of ``levels``),
        ranks for ordered categories; NaN for a missing cell.
    names : list of str
    kinds : list of str
        'numeric', 'categorical' or 'ordinal' per column.
    levels : dict
        Column name -> the categories, in code order.

    Examples
    --------
    >>> codes = mixed_codes([["a", 1.0], ["b", None], ["a", 3.0]])
    >>> codes.X.tolist(), codes.kinds, codes.metric_params
    ([[0.0, 1.0], [1.0, nan], [0.0, 3.0]], ['categorical', 'numeric'], {'categorical': [0], 'ordinal': []})
    """

    X: np.ndarray
    names: list
    kinds: list
    levels: dict = field(default_factory=dict)

    @property
    def metric_params(self):
        """``metric_params`` for ``metric='gower'``: the categorical and ordinal columns."""
        return gower_params(self.kinds)


def gower_params(kinds):
    """``metric_params`` of ``metric='gower'`` for columns of the given kinds.

    Parameters
    ----------
    kinds : sequence of {'numeric', 'categorical', 'ordinal'}

    Returns
    -------
    dict
        'categorical' and 'ordinal': the column numbers of each kind.

    Examples
    --------
    >>> gower_params(["categorical", "numeric", "ordinal"])
    {'categorical': [0], 'ordinal': [2]}
    """
    return {
        "categorical": [j for j, k in enumerate(kinds) if k == "categorical"],
        "ordinal": [j for j, k in enumerate(kinds) if k == "ordinal"],
    }


def is_missing(cell):
    """True for None, NaN and the texts spreadsheets write for a gap ('', 'NA', 'null', ...).

    Parameters
    ----------
    cell : object

    Returns
    -------
    bool

    Examples
    --------
    >>> is_missing("NA"), is_missing(float("nan")), is_missing("0")
    (True, True, False)
    """
    if cell is None:
        return True
    if isinstance(cell, str):
        return cell.strip().lower() in MISSING_TEXT
    try:
        return bool(np.isnan(cell))
    except (TypeError, ValueError):
        return False


def as_numbers(cells):
    """The cells as float64 (NaN for gaps), or None when one is not a number.

    Parameters
    ----------
    cells : sequence

    Returns
    -------
    ndarray of float64 or None

    Examples
    --------
    >>> as_numbers(["1", "", "2.5"]).tolist(), as_numbers(["1", "x"])
    ([1.0, nan, 2.5], None)
    """
    text = isinstance(cells, (list, tuple)) and len(cells) >= ARROW_CELLS and isinstance(cells[0], str)
    if text and (values := _arrow_numbers(cells)) is not None:  # before an object array of them is made
        return values
    array = np.asarray(cells, dtype=object) if not isinstance(cells, np.ndarray) else cells
    if array.dtype.kind in "iuf":
        return array.astype(np.float64, copy=False)  # the callers copy it into their table
    if array.dtype.kind == "m":  # durations in seconds, as the Parquet reader reads them (NaT: NaN)
        return array / np.timedelta64(1, "s")
    if (
        not text
        and len(cells) >= ARROW_CELLS
        and isinstance(array[0], str)
        and (values := _arrow_numbers(cells)) is not None
    ):
        return values
    if array.dtype.kind != "b" and not any(isinstance(c, (bool, np.bool_)) for c in array[:1]):
        try:  # every cell a number (or NaN): one conversion, no loop
            return np.asarray(array, dtype=np.float64)
        except (TypeError, ValueError):
            pass
    out = np.empty(len(cells))
    for i, cell in enumerate(cells):
        if is_missing(cell):
            out[i] = np.nan
            continue
        if isinstance(cell, (bool, np.bool_)):
            return None
        try:
            out[i] = float(cell.replace("\u2212", "-") if isinstance(cell, str) else cell)  # a typeset minus
        except (TypeError, ValueError):
            return None
    return out


def _arrow_numbers(cells):
    """``as_numbers`` of text cells by pyarrow, or None without it or where it refuses a
    cell (the loop in Python decides those): its parser takes 4 times less than Python's
    float and gives the same values (both round correctly), and its string functions
    mark the gaps without a loop in Python. It trims less than Python's ``strip`` (no
    separator controls), so it never reads a cell Python's float would refuse."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        text = pa.array(cells if isinstance(cells, list) else list(cells), type=pa.string())  # a tuple: 3x slower
    except (TypeError, ValueError):  # pyarrow's ArrowTypeError / ArrowInvalid: not all text
        return None
    return arrow_text_numbers(text)


def arrow_text_numbers(text):
    """``as_numbers`` of a pyarrow string array (or chunked array): float64, NaN for
    gaps, or None where a cell is not a number (see ``_arrow_numbers``).

    Examples
    --------
    >>> import pyarrow as pa
    >>> arrow_text_numbers(pa.array(["1", " NA ", "2.5"])).tolist(), arrow_text_numbers(pa.array(["x"]))
    ([1.0, nan, 2.5], None)
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    try:  # a column of plain numbers, the common case
        return text.cast(pa.float64()).to_numpy(zero_copy_only=False)
    except ValueError:
        pass
    text = pc.utf8_trim_whitespace(text)
    gaps = pc.is_in(pc.utf8_lower(text), value_set=pa.array(sorted(MISSING_TEXT)))
    try:
        numbers = pc.if_else(gaps, pa.scalar(None, pa.string()), text).cast(pa.float64())
    except ValueError:
        return None
    return numbers.to_numpy(zero_copy_only=False)  # gaps (nulls) as NaN


def code_categories(cells, name, order=None, known=None):
    """Codes of category cells (NaN for gaps) and the categories in code order.

    Parameters
    ----------
    cells : sequence
        Text (or any values; compared by their text).
    name : str
        The column, named in messages.
    order : sequence of str, optional
        The ordered categories, lowest first: every cell must be one of them.
    known : sequence of str, optional
        The categories of a fitted model: a new category gets a code after them (it
        differs from all of them).

    Returns
    -------
    codes : ndarray of float64
    levels : list of str

    Examples
    --------
    >>> code_categories(["mid", "low", None], "size", order=["low", "mid", "high"])
    (array([ 1.,  0., nan]), ['low', 'mid', 'high'])
    """
    distinct, where = _distinct(cells)
    text, gaps = cell_texts(distinct)
    present = np.unique(text[~gaps]).tolist()  # sorted
    if order is not None:
        levels = [str(v) for v in order]
        stray = [t for t in present if t not in levels]
        if stray:
            raise ValueError(
                f"column {name!r}: {shown(stray[0])} is not among the ordered categories {levels} "
                f"({len(stray)} such value(s)); list every category in the order."
            )
    else:
        levels = list(known) if known is not None else present
        levels += [t for t in present if t not in set(levels)]
    code = {v: float(i) for i, v in enumerate(levels)}
    codes = np.array([np.nan if gap else code[v] for v, gap in zip(text.tolist(), gaps.tolist())])
    return codes[where] if len(where) else np.full(0, np.nan), levels


def _distinct(cells):
    """``(distinct cells, index of each cell among them)``: a column holds few categories
    and many rows, and its text is made once a category. Cells are the same when of one
    type and equal (1 and 1.0, True and 1 read as different text)."""
    first = {}
    try:
        where = np.fromiter(
            (first.setdefault((type(c), c), len(first)) for c in cells), dtype=np.intp, count=len(cells)
        )
    except TypeError:  # an unhashable cell: each on its own
        return list(cells), np.arange(len(cells))
    return [c for _, c in first], where


def _columns_of(data, names=None):
    """(names, list of column cell arrays, pandas dtypes or None) of a DataFrame, a 2-D
    array or a list of rows (named ``names``, else x0, x1, ...)."""
    if hasattr(data, "columns") and hasattr(data, "dtypes"):
        names = [str(c) for c in data.columns]
        return names, [data[c] for c in data.columns], list(data.dtypes)
    array = np.asarray(data, dtype=object)
    if array.ndim != 2:
        raise ValueError(f"a mixed table must be 2-D (rows x columns); got shape {array.shape}.")
    if names is not None and len(names) != array.shape[1]:
        raise ValueError(f"{len(names)} names given for a table of {array.shape[1]} columns.")
    names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(array.shape[1])]
    return names, [array[:, j] for j in range(array.shape[1])], None


def _select(spec, names):
    """Column positions of names or 0-based numbers."""
    out = []
    for s in spec:
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            if not 0 <= s < len(names):
                raise ValueError(f"column {s} does not exist (the table has {len(names)} columns).")
            out.append(int(s))
        elif str(s) in names:
            out.append(names.index(str(s)))
        else:
            raise ValueError(f"no column named {s!r}; columns are {names[:10]}.")
    return out


def _pandas_kind(dtype):
    """'ordinal', 'categorical', 'numeric' or None (decide from the cells) for a pandas dtype."""
    kind = getattr(dtype, "kind", "O")
    if str(dtype) == "category":
        return "ordinal" if dtype.ordered else "categorical"
    if kind == "b" or str(dtype) == "boolean":
        return "categorical"
    if kind in "iufm":  # numbers, and durations (in seconds)
        return "numeric"
    if kind == "M" or str(dtype).startswith("datetime64"):
        return "date"
    return None


class CodedColumn(NamedTuple):
    """One column as numbers: ``values``, its ``kind`` ('numeric', 'date' for days
    since 1970-01-01, 'categorical' or 'ordinal') and, for categories, its ``levels``."""

    values: np.ndarray
    kind: str
    levels: list | None = None


def code_column(cells, name, *, hint=None, order=None, known=None, forced=False):
    """One column of a mixed table as numbers, deciding its kind from ``hint`` or its cells.

    Numbers stay numbers, dates (``datetime64``, date objects, ISO 8601 text) become
    days since 1970-01-01, anything else categories coded in sorted order (``order``:
    ordered categories as ranks; ``known``: a fitted model's levels first, and the
    column categories whatever its cells look like; ``forced``: numbers that are codes).

    Parameters
    ----------
    cells : sequence
    name : str
        Named in messages.
    hint : {'numeric', 'date', 'categorical', 'ordinal'}, optional
        The kind the column's type declares (a pandas or Arrow dtype); None: from the cells.
    order, known : sequence of str, optional
    forced : bool, default=False

    Returns
    -------
    CodedColumn
        Its ``values`` may share memory with ``cells`` when those are float64 numbers
        already (copy before writing to them).

    Examples
    --------
    >>> code_column(["2020-01-02", None], "day").kind, code_column(["b", "a"], "x").levels
    ('date', ['a', 'b'])
    """
    # a fitted model's levels (``known``) say the column was categories: new rows that happen to
    # be all numbers, or all dates, are still coded as categories, not read as a quantity
    if forced or hint in ("categorical", "ordinal") or order is not None or known is not None:
        if known is not None and not forced and as_numbers(cells) is not None:
            # numbers coded by a fit's levels: 1.0 (an int column with a gap) is the fit's category 1
            cells, known = _code_texts(cells), [str(v) for v in _code_texts(np.asarray(known, dtype=object))]
        values, levels = code_categories(_code_texts(cells) if forced else cells, name, order=order, known=known)
        return CodedColumn(values, "ordinal" if order is not None else "categorical", levels)
    values = None if hint == "date" else as_numbers(np.asarray(cells) if hint == "numeric" else list(cells))
    if values is not None:
        return CodedColumn(values, "numeric")
    days = as_days(np.asarray(cells) if hint == "date" else cells)
    if days is not None:
        return CodedColumn(days, "date")
    values, levels = code_categories(cells, name, known=known)
    return CodedColumn(values, "categorical", levels)


def mixed_codes(data, *, categorical=(), ordinal=None, levels=None, names=None):
    """Code a table of mixed columns as numbers for ``metric='gower'`` and the mixed-data
    methods.

    Numeric columns stay numbers; dates (datetime columns, ISO 8601 text such as
    ``2020-03-01``) become days since 1970-01-01, a quantity like any other; text,
    boolean and pandas 'category' columns become category codes (an ordered pandas
    category, or a column given in ``ordinal``, becomes ranks); gaps (None, NaN, '',
    'NA') become NaN.

    Parameters
    ----------
    data : DataFrame, 2-D array or list of rows
    categorical : sequence of str or int, or 'all', optional
        Columns of numbers that are codes (a region number, a zip code): compared as
        categories ('all': every column).
    ordinal : dict, optional
        Column -> its categories in order, lowest first (``{'size': ['S', 'M', 'L']}``).
    levels : dict, optional
        The ``levels`` of the codes a model was fitted on: new data get the same codes.
    names : sequence of str, optional
        Column names of an array or list of rows (default x0, x1, ...; a DataFrame's own).

    Returns
    -------
    MixedCodes
        ``X``, ``names``, ``kinds``, ``levels`` and ``metric_params`` for
        ``metric='gower'``.

    Examples
    --------
    >>> rows = [["Adelie", 39.1, "male"], ["Gentoo", 46.1, None], ["Adelie", 36.7, "female"]]
    >>> codes = mixed_codes(rows)
    >>> codes.kinds, codes.levels["x0"], codes.X[:, 0].tolist()
    (['categorical', 'numeric', 'categorical'], ['Adelie', 'Gentoo'], [0.0, 1.0, 0.0])
    """
    names, columns, dtypes = _columns_of(data, names)
    forced = (
        set(range(len(names)))
        if isinstance(categorical, str) and categorical == "all"
        else set(_select(categorical, names))
    )
    ordered = {names[j]: order for j, order in zip(_select(list(ordinal or {}), names), (ordinal or {}).values())}
    levels = dict(levels or {})
    X = np.empty((len(columns[0]) if columns else 0, len(columns)))
    kinds, found = [], {}
    for j, (name, cells) in enumerate(zip(names, columns)):
        kind = _pandas_kind(dtypes[j]) if dtypes is not None else None
        order = ordered.get(name)
        if order is None and kind == "ordinal":
            order = [str(c) for c in cells.cat.categories]
        column = code_column(cells, name, hint=kind, order=order, known=levels.get(name), forced=j in forced)
        X[:, j] = column.values
        kinds.append("numeric" if column.kind == "date" else column.kind)
        if column.levels is not None:
            found[name] = column.levels
    return MixedCodes(X, names, kinds, found)


def _code_texts(cells):
    """Numeric codes as text without a trailing '.0' (region 3.0 and 3 are one category);
    cells that are no numbers as they are."""
    numbers = as_numbers(cells)
    if numbers is None:
        return cells
    # whole numbers within int64's range: beyond it the cast would make them all one code
    whole = (np.abs(numbers) < 2.0**63) & (numbers == np.round(numbers))
    text = np.where(whole, np.char.mod("%d", np.where(whole, numbers, 0).astype(np.int64)), numbers.astype(str))
    return np.where(np.isnan(numbers), None, text.astype(object))
