"""Readers and writers for numeric tables (CSV, NPY) used by the CLI.

Errors name the file, line, column and value, and say which option handles the case.
"""

import csv
import os
import re

import numpy as np

MAX_BYTES_DEFAULT = 8 << 30


class DataFileError(ValueError):
    """A data file cannot be read as a numeric table; the message says where and why.

    Examples
    --------
    >>> issubclass(DataFileError, ValueError)
    True
    """


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _number_hint(text):
    if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", text):
        return "thousands separators are not read; remove them (1,234.5 -> 1234.5)."
    if re.fullmatch(r"[-+]?\d+,\d+", text):
        return "a decimal comma is not read; write decimals with a dot (1,5 -> 1.5)."
    if any(sep in text for sep in ";\t|"):
        return "the file may use another delimiter; pass it with --delimiter."
    return "exclude the column with --exclude or name it with --label-column."


def _parse_csv_rows(path, rows, first_line):
    width = len(rows[0])
    values = np.empty((len(rows), width))
    for i, row in enumerate(rows):
        line = first_line + i
        if len(row) != width:
            raise DataFileError(f"{path}, line {line}: expected {width} fields, got {len(row)}.")
        for j, cell in enumerate(row):
            text = cell.strip()
            if text == "":
                raise DataFileError(f"{path}, line {line}, column {j + 1}: missing value; fill or "
                                    "drop incomplete rows before running lowdim.")
            try:
                values[i, j] = float(text)
            except ValueError:
                raise DataFileError(f"{path}, line {line}, column {j + 1}: {text!r} is not a "
                                    f"number; {_number_hint(text)}") from None
    return values


def read_csv(path, *, header="auto", delimiter=None):
    """Read a numeric CSV/TSV file.

    Parameters
    ----------
    path : str
    header : {'auto', 'yes', 'no'}
        'auto' treats the first row as a header when any of its cells is not a
        number (the caller announces the decision).
    delimiter : str, optional
        Default: tab for ``.tsv`` files, else comma.

    Returns
    -------
    names : list of str or None
    cells : list of list of str
        The data rows as text (columns are converted by ``select_columns``).
    first_line : int
        Line number of the first data row.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv"); _ = open(p, "w").write("a,b\\n1,2\\n")
    >>> read_csv(p)[0]
    ['a', 'b']
    """
    delimiter = delimiter or ("\t" if str(path).endswith(".tsv") else ",")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = [row for row in csv.reader(fh, delimiter=delimiter)]
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    if not rows:
        raise DataFileError(f"{path}: empty file, no data rows.")
    has_header = header == "yes" or (header == "auto" and not all(_is_number(c) for c in rows[0]))
    names = [c.strip() for c in rows[0]] if has_header else None
    data = rows[1:] if has_header else rows
    if not data:
        raise DataFileError(f"{path}: header only, no data rows.")
    return names, data, 2 if has_header else 1


def _npy_header(path):
    with open(path, "rb") as fh:
        try:
            version = np.lib.format.read_magic(fh)
            reader = {(1, 0): np.lib.format.read_array_header_1_0,
                      (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if reader is None:
                raise ValueError(f"unsupported .npy version {version}")
            return reader(fh)
        except ValueError as exc:
            raise DataFileError(f"{path}: not a valid .npy file ({exc}).") from None


def read_npy(path, *, max_bytes=MAX_BYTES_DEFAULT):
    """Memory-map a 2-D numeric ``.npy`` file after checking its header.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.npy"); np.save(p, np.ones((3, 2)))
    >>> read_npy(p).shape
    (3, 2)
    """
    shape, _, dtype = _npy_header(path)
    if dtype.hasobject or dtype.kind not in "biuf":
        raise DataFileError(f"{path}: dtype {dtype} is not numeric; save a float array.")
    if len(shape) != 2:
        raise DataFileError(f"{path}: expected a 2-D array, the header says shape {shape}.")
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size > max_bytes or size > os.path.getsize(path):
        raise DataFileError(f"{path}: header declares shape {shape} ({size / 1e9:.2f} GB) but the "
                            f"file has {os.path.getsize(path)} bytes or the size exceeds the "
                            f"limit of {max_bytes / 1e9:.1f} GB.")
    return np.load(path, mmap_mode="r", allow_pickle=False)


def write_csv(path, array, names, *, overwrite=False):
    """Write a numeric array as CSV with a header; refuse to replace a file unless asked.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "o.csv"); write_csv(p, np.eye(2), ["a", "b"])
    """
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass --overwrite to replace it.")
    safe = [("'" + n) if n[:1] in "=+-@" else n for n in names]
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(safe)
        writer.writerows(np.asarray(array).tolist())
