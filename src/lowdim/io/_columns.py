"""Which column of a table is what: a column named or numbered by the user, and the
roles of a table's columns (features, labels, row names), decided the same way for
every reader of text tables (``_csv``, ``_arrow_csv``)."""

from .._messages import listed
from ..exceptions import DataFileError
from ._cell_text import distinct_text, is_number, row_names_note


def column_index(spec, names, path):
    """0-based index of a column given by name or 1-based number.

    Parameters
    ----------
    spec : str or int
        The column's name, or its number counted from 1 (``--label-column 3``).
    names : list of str
        The table's column names.
    path : str
        What the table is (a file's path, ``--dataset iris``), for the messages.

    Returns
    -------
    int

    Raises
    ------
    DataFileError
        No such column, or a name that several columns share.

    Examples
    --------
    >>> column_index("2", ["a", "b"], "f.csv"), column_index("a", ["a", "b"], "f.csv")
    (1, 0)
    """
    spec = str(spec)
    if spec.isdigit():
        idx = int(spec) - 1
        if not 0 <= idx < len(names):
            raise DataFileError(f"{path}: column {spec} does not exist (the file has {len(names)} columns).")
        return idx
    if spec not in names:
        raise DataFileError(f"{path}: no column named {spec!r}; columns are {listed(names)}.")
    if names.count(spec) > 1:
        numbers = [str(j + 1) for j, n in enumerate(names) if n == spec]
        raise DataFileError(
            f"{path}: column name {spec!r} is ambiguous (columns {', '.join(numbers)}); name the column by its number."
        )
    return names.index(spec)


def spec_names(specs):
    """The column names ``specs`` may give (``--exclude`` values), each spec as it is
    and, split at its commas, as the list ``column_indices`` may read it.

    Parameters
    ----------
    specs : iterable of str or int

    Returns
    -------
    set of str

    Examples
    --------
    >>> sorted(spec_names(["id,batch", "3"]))
    ['3', 'batch', 'id', 'id,batch']
    """
    given = [str(s) for s in specs]
    return set(given) | {part.strip() for s in given for part in s.split(",")}


def column_indices(specs, names, path):
    """0-based indices of the columns ``specs`` give (names or 1-based numbers), each
    spec a column's name or a comma-separated list of columns (as ``--columns`` takes
    them): ``--exclude id,batch``.

    Parameters
    ----------
    specs : iterable of str or int
    names : list of str
        The table's column names.
    path : str
        What the table is, for the messages (as ``column_index``).

    Returns
    -------
    set of int

    Examples
    --------
    >>> sorted(column_indices(["a,c", "2"], ["a", "b", "c"], "f.csv"))
    [0, 1, 2]
    >>> sorted(column_indices(["x,y"], ["x,y", "x", "y"], "f.csv"))  # a name with a comma first
    [0]
    """
    found = set()
    for spec in specs:
        spec = str(spec)
        parts = [spec] if spec in names else [p.strip() for p in spec.split(",")]
        found.update(column_index(p, names, path) for p in parts)
    return found


def table_roles(path, names, column, lines, notes, *, label_column, exclude, index_column, dropped=(), given=()):
    """``(kept columns, label column, row-name column)`` (0-based; None: none) of a
    table with column ``names``: ``column(j)`` gives the text cells of column ``j``
    (read only to find row names, ``_row_name_column``); ``dropped`` are columns left
    out already, ``given`` the columns declared categorical or ordinal (names or
    numbers, which are not row names). Notes of what was decided go to ``notes``."""
    drop = column_indices(exclude, names, path) | set(dropped)
    label_idx = None if label_column is None else column_index(label_column, names, path)
    given = {column_index(s, names, path) for s in given} | drop | {label_idx}
    index_idx = _row_name_column(path, names, column, lines, index_column, notes, given)
    if label_idx is not None and label_idx == index_idx:
        raise DataFileError(
            f"{path}: column {names[label_idx] or label_idx + 1!r} cannot be both the labels and the row names."
        )
    keep = [j for j in range(len(names)) if j not in drop and j != label_idx and j != index_idx]
    if not keep:
        raise DataFileError(f"{path}: no feature columns left after --exclude, --label-column and the row names.")
    return keep, label_idx, index_idx


def _row_name_column(path, names, column, lines, index_column, notes, given=()):
    """The 0-based column of row names: the one asked for, or a first column under an
    empty header field (or a header one name short) of distinct text cells or distinct
    whole numbers (R's row numbers), or a named first column of distinct text cells that
    the user gave no other role (``given``: column numbers); None otherwise.
    ``column(j)``: the text cells of column ``j``."""
    if index_column is not None:
        idx = column_index(index_column, names, path)
        ids = [cell.strip() for cell in column(idx)]
        if len(set(ids)) != len(ids):
            seen = {}
            for line, cell in enumerate(ids):
                if cell in seen:
                    raise DataFileError(
                        f"{path}: row name {cell!r} appears twice in column {names[idx] or idx + 1} "
                        f"(lines {lines[seen[cell]]} and {lines[line]}); row names must be unique."
                    )
                seen[cell] = line
        notes.append(f"{path}: column {names[idx] or idx + 1!r} read as row names.")
        return idx
    if names and names[0] == "" and len(names) > 1:
        cells = [cell.strip() for cell in column(0)]
        if len(set(cells)) != len(cells):
            return None
        if not all(is_number(c) for c in cells):
            notes.append(
                f"{path}: first column (no header name) read as row names, as R and pandas write them; "
                "pass --index-column to choose another."
            )
            return 0
        if all(c.lstrip("-").isdigit() for c in cells):  # R's row numbers 1..n, or any unique integers
            notes.append(
                f"{path}: first column (no header name, a distinct whole number in every row) read as row "
                "names, as R's write.csv and pandas' to_csv and to_excel write row numbers; it is not used as a "
                "feature."
            )
            return 0
    if len(names) > 1 and 0 not in given and distinct_text(column(0)):
        notes.append(row_names_note(path, names[0]))
        return 0
    return None
