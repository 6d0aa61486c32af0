"""Large CSV tables of numbers go through pyarrow's parser: every file it takes gives what
the general reader gives (values, names, labels, row names, notes), and every file it
cannot read exactly as that reader does is left to it (its notes and its errors)."""

import bz2
import gzip
import warnings

import numpy as np
import pytest

import lowdim.io._arrow_csv as arrow_csv
from lowdim.exceptions import DataFileError
from lowdim.io import read_table

N = 400
RNG = np.random.default_rng(0)
VALUES = RNG.normal(size=(N, 3)) * [1.0, 1e-7, 1e6]
GAPS = ["", "NA", "nan", "NULL", "None", "n/a", "Na", "NONE"]


def _numbers(row):
    return [repr(float(v)) if (row + j) % 37 else GAPS[(row + j) % len(GAPS)] for j, v in enumerate(VALUES[row])]


def _lines(header=("a", "b", "c"), first=None, label=None, quoted=False, newline="\n"):
    out = [] if header is None else [",".join(([first] if first is not None else []) + list(header))]
    for i in range(N):
        cells = _numbers(i)
        if quoted and i % 5 == 0:
            cells[0] = f'"{cells[0]}"'
        lead = [] if first is None else [f"{first_cell(first, i)}"]
        tail = [] if label is None else [label(i)]
        out.append(",".join(lead + cells + tail))
    return newline.join(out) + newline


def first_cell(kind, i):
    return {"": str(i), "sample": f"s{i}"}[kind]


# (file name, text or bytes, read_table options): files the fast path takes
TAKEN = {
    "header": ("t.csv", _lines(), {}),
    "no_header": ("t.csv", _lines(header=None), {}),
    "crlf_bom_quotes": ("t.csv", "\ufeff" + _lines(quoted=True, newline="\r\n"), {}),
    "pandas_index": ("t.csv", _lines(first=""), {}),
    "row_names": ("t.csv", _lines(first="sample"), {}),
    "labels": (
        "t.csv",
        _lines(header=("a", "b", "c", "y"), label=lambda i: ["u", "v", "?"][i % 3]),
        {"label_column": "y", "na_values": ["?"]},
    ),  # fmt: skip
    "index_and_exclude": ("t.csv", _lines(first="sample"), {"index_column": "sample", "exclude": ["b"]}),
    "tsv_gzip": ("t.tsv.gz", gzip.compress(_lines().replace(",", "\t").encode()), {}),
    "bzip2": ("t.csv.bz2", bz2.compress(_lines().encode()), {}),
    # text columns: categories (gaps and marks too) and dates, coded as the general reader codes them
    "categories": (
        "t.csv",
        _lines(header=("a", "b", "c", "kind"), label=lambda i: ["x", "y", "", "?"][i % 4]),
        {"na_values": ["?"]},
    ),  # fmt: skip
    # a text column whose first cell is a gap: read as numbers first, then again as text
    "categories_after_a_gap": (
        "t.csv",
        _lines(header=("a", "b", "c", "kind"), label=lambda i: "" if i < 3 else "xy"[i % 2]),
        {},
    ),
    # a typeset minus: read as text, then as the numbers the general reader makes of it
    "typeset_minus": ("t.csv", _lines().replace("-", "\u2212"), {}),
    "dates": ("t.csv", _lines(header=("a", "b", "c", "day"), label=lambda i: f"2024-01-{i % 28 + 1:02d}"), {}),
    "excluded_word_among_numbers": (
        "t.csv",
        _lines(header=("a", "b", "c", "n"), label=lambda i: "x" if i == 9 else str(i)),
        {"exclude": ["n"]},
    ),
    "unnamed_first_not_row_names": ("t.csv", _lines(first="").replace("\n1,", "\n0,", 1), {}),
}
# files it leaves to the general reader: (file name, text, options)
LEFT = {
    "blank_line": ("t.csv", _lines().replace("\n", "\n\n", 7), {}),
    "comment": ("t.csv", "# made by hand\n" + _lines(), {}),
    "separator_line": ("t.csv", "sep=,\n" + _lines(), {}),
    "r_write_table": (
        "t.csv",
        _lines(first="sample").split("\n", 1)[0].removeprefix("sample,")
        + "\n"
        + _lines(first="sample").split("\n", 1)[1],
        {},
    ),  # fmt: skip
    "trailing_separator": ("t.csv", _lines().replace("\n", ",\n"), {}),
    "multi_line_label": (
        "t.csv",
        _lines(header=("a", "b", "c", "y"), label=lambda i: '"two\nlines"' if i == 3 else "u"),
        {"label_column": "y"},
    ),  # fmt: skip
    "quoted_category": ("t.csv", _lines(header=("a", "b", "c", "size"), label=lambda i: '"5"" screen"'), {}),
    # a spreadsheet's export of a sheet with a title above the table and a note below it
    "title_line": ("t.csv", "Survey of things,,\n,,\n" + _lines(), {}),
    "source_note": ("t.csv", _lines(first="sample") + ",,,\nSource: the survey team,,,\n", {}),
    "units_row": ("t.csv", _lines().replace("\n", "\nmm,g,s\n", 1), {}),
    # fewer rows than columns: pyarrow's per-column work costs more than its parsing saves
    "wide": ("t.csv", "\n".join(",".join(str(i + j) for j in range(500)) for i in range(40)) + "\n", {}),
}
# files both readers refuse with the same message
REFUSED = {
    "infinite": ("t.csv", _lines().replace("\n", "\ninf,1,2\n", 1), "is infinite"),
    "ragged": ("t.csv", _lines().replace("\n", "\n1,2\n", 1), "expected 3 fields, got 2"),
    "word": ("t.csv", _lines() + "1,2,oops\n", "'oops' is not a number"),
    "latin1": ("t.csv", _lines().encode() + "1,2,3\ncaf\u00e9,1,2\n".encode("latin-1"), "not a utf-8 text file"),
    "latin1_header": ("t.csv", "caf\u00e9,b,c\n".encode("latin-1") + _lines(header=None).encode(), "not a utf-8"),
    "truncated_gzip": ("t.csv.gz", gzip.compress(_lines().encode())[:-40], "not a readable gzip file"),
}


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _both(monkeypatch, path, **options):
    """The table read with the fast path on every size, and by the general reader alone."""
    monkeypatch.setattr(arrow_csv, "ARROW_BYTES", 0)
    fast = read_table(path, missing="keep", **options)
    monkeypatch.setattr(arrow_csv, "ARROW_BYTES", float("inf"))
    return fast, read_table(path, missing="keep", **options)


def _same(a, b):
    np.testing.assert_array_equal(a.X, b.X)  # NaN where NaN, the same bits elsewhere
    assert a.feature_names == b.feature_names and a.notes == b.notes and a.kinds == b.kinds and a.levels == b.levels
    for x, y in ((a.labels, b.labels), (a.row_ids, b.row_ids)):
        assert (x is None and y is None) or (x.tolist() == y.tolist() and x.dtype == y.dtype)


def _served(monkeypatch, path, **options):
    monkeypatch.setattr(arrow_csv, "ARROW_BYTES", 0)
    layout = {"header": "auto", "delimiter": None, "encoding": "utf-8", "decimal": "."}
    roles = {"label_column": None, "exclude": (), "index_column": None, "na_values": (), **options}
    return arrow_csv.read_plain_table(path, **layout, **roles) is not None


@pytest.mark.parametrize("case", sorted(TAKEN))
def test_a_plain_table_of_numbers_is_read_by_pyarrow_as_the_general_reader_reads_it(tmp_path, monkeypatch, case):
    name, content, options = TAKEN[case]
    path = _write(tmp_path, name, content)
    assert _served(monkeypatch, path, **options)
    fast, general = _both(monkeypatch, path, **options)
    _same(fast, general)
    assert np.isnan(fast.X).sum() == np.isnan(general.X).sum() > 0  # the gaps, in every spelling


@pytest.mark.parametrize("case", sorted(LEFT))
def test_what_pyarrow_would_read_otherwise_is_left_to_the_general_reader(tmp_path, monkeypatch, case):
    name, content, options = LEFT[case]
    path = _write(tmp_path, name, content)
    assert not _served(monkeypatch, path, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the general reader's own notes and warnings
        fast, general = _both(monkeypatch, path, **options)
    _same(fast, general)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_the_general_reader_refuses_is_refused_with_its_message(tmp_path, monkeypatch, case):
    name, content, message = REFUSED[case]
    path = _write(tmp_path, name, content)
    errors = []
    for size in (0, float("inf")):
        monkeypatch.setattr(arrow_csv, "ARROW_BYTES", size)
        with pytest.raises(DataFileError, match=message) as caught:
            read_table(path, missing="keep")
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_repeated_column_names_are_warned_about_once(tmp_path, monkeypatch):
    path = _write(tmp_path, "t.csv", _lines(header=("a", "a", "c")))
    monkeypatch.setattr(arrow_csv, "ARROW_BYTES", 0)
    with pytest.warns(UserWarning, match="duplicate column name") as caught:
        read_table(path, missing="keep")
    assert len([w for w in caught if "duplicate" in str(w.message)]) == 1


def test_columns_whose_first_cell_is_a_gap_are_typed_in_the_same_read(tmp_path, monkeypatch):
    # each such text column cost a read of the whole file, found by pyarrow's conversion error
    rows = ["x,g,h,n,b"] + [
        ",".join(
            [
                str(i),
                "" if i == 0 else "ab"[i % 2],
                "" if i == 0 else f"t{i % 3}",
                "" if i < 2 else str(i / 4),
                "" if i == 0 else ["true", "false"][i % 2],
            ]
        )  # fmt: skip
        for i in range(N)
    ]
    path = _write(tmp_path, "g.csv", "\n".join(rows) + "\n")
    reads = []
    read = arrow_csv._read
    monkeypatch.setattr(arrow_csv, "_read", lambda *a, **k: reads.append(a) or read(*a, **k))
    assert _served(monkeypatch, path)
    assert len(reads) == 2  # the booleans, which pyarrow types as such, read again as text
    fast, general = _both(monkeypatch, path)
    _same(fast, general)
    assert fast.kinds == ["numeric", "categorical", "categorical", "numeric", "categorical"]


def test_a_first_column_of_gap_marks_is_not_read_as_row_names(tmp_path, monkeypatch):
    # the general reader took 'n/a', 'NA', 'null' for three row names; pyarrow's path for a column of gaps
    path = _write(tmp_path, "m.tsv", "n/a\tNaN\nNA\t.\nnull\tn/a\n")  # three distinct marks, three rows
    fast, general = _both(monkeypatch, path)
    _same(fast, general)
    assert general.row_ids is None and np.isnan(general.X[:, 0]).all()
