"""Excel workbooks read as the CSV export of the same sheet reads: the same numbers,
categories, dates, row names and labels; formulas by their saved values, a formula no
program computed refused; hostile workbooks refused by name."""

import datetime
import re
import warnings
import zipfile

import numpy as np
import openpyxl
import pytest

from lowdim.cli.main import main
from lowdim.exceptions import DataFileError
from lowdim.io import read_table

ROWS = [
    ["name", "height", "city", "joined", "member", "score", "kind"],
    *[
        [
            f"p{i}",
            150.0 + 3.5 * i,
            ["Paris", "Lyon", "Nice"][i % 3],
            datetime.date(2021, 3, 1 + i),
            i % 2 == 0,
            None if i % 4 == 0 else 0.25 * i,
            "ab"[i % 2],
        ]  # fmt: skip
        for i in range(12)
    ],
]


def _workbook(path, rows, title="data", at="A1"):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    top, left = openpyxl.utils.cell.coordinate_to_tuple(at)
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            sheet.cell(top + i, left + j, value)
    book.save(path)
    return str(path)


def _csv_cell(value):
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, datetime.date) else str(value)


def test_a_sheet_reads_as_its_csv_export(tmp_path):
    book = _workbook(tmp_path / "t.xlsx", ROWS)
    (tmp_path / "t.csv").write_text("\n".join(",".join(_csv_cell(v) for v in row) for row in ROWS) + "\n")
    sheet = read_table(book, label_column="kind", missing="keep")
    text = read_table(str(tmp_path / "t.csv"), label_column="kind", missing="keep")
    np.testing.assert_array_equal(sheet.X, text.X)  # NaN where NaN, the same numbers, codes and days
    assert sheet.feature_names == text.feature_names == ["height", "city", "joined", "member", "score"]
    assert sheet.kinds == text.kinds and sheet.levels == text.levels
    assert sheet.labels.tolist() == text.labels.tolist() and sheet.row_ids.tolist() == text.row_ids.tolist()
    assert any("column 'joined' read as dates" in note for note in sheet.notes)


def test_the_first_sheet_unless_another_is_named(tmp_path):
    path = tmp_path / "t.xlsx"
    book = openpyxl.Workbook()
    book.active.title = "first"
    for row in ([1, 2], [3, 4]):
        book.active.append(row)
    book.create_sheet("second").append(["a", "b"])
    book["second"].append([5, 6])
    book.save(path)
    table = read_table(str(path))
    assert table.X.tolist() == [[1.0, 2.0], [3.0, 4.0]] and table.feature_names == ["x1", "x2"]
    assert any("read sheet 'first' (of 'first', 'second'); --key names another" in n for n in table.notes)
    assert read_table(str(path), key="second").X.tolist() == [[5.0, 6.0]]
    with pytest.raises(DataFileError, match="no sheet named 'third'; its sheets are 'first', 'second'"):
        read_table(str(path), key="third")


def test_a_table_below_a_title_and_formulas_by_their_saved_values(tmp_path):
    rows = [["x", "y"], [1, 2], [3, None], [5, "#DIV/0!"]]
    table = read_table(_workbook(tmp_path / "t.xlsx", rows, at="C3"), missing="keep")
    assert table.feature_names == ["x", "y"]
    np.testing.assert_array_equal(table.X, [[1, 2], [3, np.nan], [5, np.nan]])
    assert any("the table starts at C3" in n for n in table.notes)
    assert any("column 'y': 1 cell(s) hold a formula's error (#DIV/0!)" in n for n in table.notes)


def test_a_title_right_above_the_header_is_skipped_not_read_as_the_header(tmp_path):
    # most report sheets put the title in A1 and the header in A2; read as the header, the
    # title named one column and the real header turned into a data row (a two-row header
    # 'Quarterly sales region', or in a CSV export a line 'expected 1 fields')
    table = [["", "sales", "cost"], *[[f"r{i}", 100.0 + i, 50.0 - i] for i in range(5)]]  # pandas' index corner
    plain = read_table(_workbook(tmp_path / "plain.xlsx", table))
    for merged in (False, True):
        book = openpyxl.Workbook()
        sheet = book.active
        sheet["A1"] = "Quarterly sales by region"
        if merged:
            sheet.merge_cells("A1:C1")
        for i, row in enumerate(table):
            for j, value in enumerate(row):
                sheet.cell(2 + i, 1 + j, value or None)
        book.save(tmp_path / "t.xlsx")
        read = read_table(str(tmp_path / "t.xlsx"))
        np.testing.assert_array_equal(read.X, plain.X)
        assert read.feature_names == plain.feature_names == ["sales", "cost"]
        assert read.row_ids.tolist() == plain.row_ids.tolist()
        assert "skipped the title row(s) above the table (row 1: 'Quarterly sales by region')" in " ".join(read.notes)
    lines = [",".join(map(str, row)) for row in table]
    for title in (["Quarterly sales by region"], ["Quarterly sales by region,,", "All figures in thousands,,"]):
        (tmp_path / "t.csv").write_text("\n".join(title + lines) + "\n")
        read = read_table(str(tmp_path / "t.csv"))
        np.testing.assert_array_equal(read.X, plain.X)
        assert read.feature_names == ["sales", "cost"]
        assert "skipped the title line(s) above the table (line 1: 'Quarterly sales by region'" in " ".join(read.notes)
    # not a title: one name over a column of numbers (a header of unnamed columns), a row of
    # text over rows of text only (it may be data), R's header one name short
    for text, rows in (
        ("total sales\n1,2\n3,4\n", 2),
        ("big one,\nred,blue\nred,green\n", 3),
        ("two words\nr1,5\nr2,6\n", 2),
    ):
        (tmp_path / "n.csv").write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read = read_table(str(tmp_path / "n.csv"), missing="keep", header="no" if "big" in text else "auto")
        assert read.X.shape[0] == rows and not any("skipped the title" in note for note in read.notes), text


def test_empty_rows_inside_a_table_are_skipped_and_said_as_the_csv_readers_blank_lines(tmp_path):
    rows = [["x", "y"], [1, 2], [None, None], [3, 4], [None, None], [5, 6]]
    table = read_table(_workbook(tmp_path / "t.xlsx", rows, at="A2"))
    assert table.X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert any("skipped 2 empty row(s) inside the table (row 4, 6)" in note for note in table.notes)
    one = read_table(_workbook(tmp_path / "one.xlsx", [["x"], [1], [None], [3]]), missing="keep")
    np.testing.assert_array_equal(one.X[:, 0], [1, np.nan, 3])  # a column's empty cell is a gap


def test_a_title_above_notes_below_and_merged_group_names_read_as_a_reader_sees_them(tmp_path):
    # a sheet laid out for reading: the title merged across the table, a group's name merged
    # down its rows, a source note after an empty row; read as cells, the title was the
    # header, the real header a data row (every column categories), the groups gaps
    table = [["site", "height", "species"], *[["North" if i < 3 else "South", 10.0 + i, "oak"] for i in range(6)]]
    plain = read_table(_workbook(tmp_path / "plain.xlsx", table))
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"], sheet["A11"], sheet["A12"] = "Field survey 2024", "Source: the survey team", "* provisional"
    sheet.merge_cells("A1:C1")
    for i, row in enumerate(table):
        for j, value in enumerate(row):
            if j or i in (0, 1, 4):  # the group names only in the first cell of their merged range
                sheet.cell(3 + i, 1 + j, value)
    sheet.merge_cells("A4:A6")
    sheet.merge_cells("A7:A9")
    book.save(tmp_path / "laid.xlsx")
    read = read_table(str(tmp_path / "laid.xlsx"), missing="keep")
    np.testing.assert_array_equal(read.X, plain.X)
    assert read.feature_names == plain.feature_names and read.levels == plain.levels
    said = " ".join(read.notes)
    assert "skipped the title row(s) above the table (row 1: 'Field survey 2024')" in said
    assert "skipped the note row(s) below the table (row 11: 'Source: the survey team', row 12" in said
    assert "2 merged cell range(s) inside the table read as their value in every cell (A4:A6, A7:A9)" in said
    # the sheet's CSV export (every line as wide as the sheet, merged cells in their first) reads the same
    export = [["Field survey 2024", "", ""], ["", "", ""]]
    export += [[str(v) if j or i in (0, 1, 4) else "" for j, v in enumerate(row)] for i, row in enumerate(table)]
    export += [["", "", ""], ["Source: the survey team", "", ""], ["* provisional", "", ""]]
    (tmp_path / "laid.csv").write_text("\n".join(",".join(row) for row in export) + "\n")
    text = read_table(str(tmp_path / "laid.csv"), missing="keep")
    assert text.feature_names == plain.feature_names and text.X.shape == plain.X.shape
    assert "skipped the title line(s) above the table (line 1: 'Field survey 2024')" in " ".join(text.notes)
    assert "skipped the note line(s) below the table (line 11: 'Source: the survey team', line 12" in " ".join(
        text.notes
    )
    # a row of one text cell right under the table is a row of gaps, a number above it data
    rows = [["x", "y"], ["b", 2], ["b", 3], ["a", None]]
    gaps = read_table(_workbook(tmp_path / "g.xlsx", rows), missing="keep").X[:, 1]
    np.testing.assert_array_equal(gaps, [2, 3, np.nan])
    below = read_table(_workbook(tmp_path / "n.xlsx", [[5], [None], [1, 2], [3, 4]]), header="no", missing="keep")
    assert below.X.shape == (3, 2)


def test_a_sheet_whose_file_states_a_wrong_extent_is_read_whole(tmp_path):
    # some writers state the sheet's extent as "A1" or too small; openpyxl's fast reading
    # trusted it and cut the table (rows and columns lost without a word)
    rows = [["a", "b", "c"], *[[i, 2 * i, 3 * i] for i in range(5)]]
    path = _workbook(tmp_path / "t.xlsx", rows)
    whole = read_table(path)
    for stated in (b"A1", b"A1:B3"):
        wrong = tmp_path / f"wrong{len(stated)}.xlsx"
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(wrong, "w") as target:
            for item in source.infolist():
                data = source.read(item.filename)
                if item.filename.startswith("xl/worksheets/"):
                    data = re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="' + stated + b'"', data)
                target.writestr(item, data)
        read = read_table(str(wrong))
        np.testing.assert_array_equal(read.X, whole.X)
        assert read.feature_names == ["a", "b", "c"]


def test_a_formula_no_spreadsheet_computed_is_refused_not_read_as_a_gap(tmp_path):
    # openpyxl (as any script) writes formulas without their values; read as values, they were empty
    path = _workbook(tmp_path / "t.xlsx", [["x", "y"], [1, 2], [3, "=A3*2"]], at="B2")
    with pytest.raises(
        DataFileError, match=r"1 cell\(s\) of sheet 'data' hold a formula with no saved value \(the first: C4\)"
    ):
        read_table(path, missing="keep")
    # a whole column of them read as no column at all
    path = _workbook(tmp_path / "c.xlsx", [["x", "y"], [1, "=A2*2"], [3, "=A3*2"]])
    with pytest.raises(DataFileError, match=r"2 cell\(s\) .* \(the first: B2\)"):
        read_table(path, missing="keep")


def test_mixed_cells_in_a_column_read_as_its_text_would(tmp_path):
    rows = [["n", "m"], [1, "NA"], [2.5, 4], [3, 5]]
    table = read_table(_workbook(tmp_path / "t.xlsx", rows), missing="keep")
    np.testing.assert_array_equal(table.X, [[1, np.nan], [2.5, 4], [3, 5]])


def test_a_word_among_numbers_is_refused_by_its_cell_as_in_the_csv_export(tmp_path):
    # a column of typed numbers with one word was read as text: one category a number
    rows = [["height", "width"], *[[10.0 + i, "unknown" if i == 5 else 5.0 + i] for i in range(30)]]
    path = _workbook(tmp_path / "t.xlsx", rows, at="B2")
    with pytest.raises(DataFileError, match=r"cell C8 \(column 'width'\): 'unknown' is not a number; .*--na-values"):
        read_table(path)
    (tmp_path / "t.csv").write_text("\n".join(",".join(map(str, row)) for row in rows) + "\n")
    with pytest.raises(DataFileError, match="'unknown' is not a number"):
        read_table(str(tmp_path / "t.csv"))
    # named as a gap, it is one, and the column numbers (not numbers stored as text)
    marked = read_table(path, na_values=["unknown"], missing="keep")
    assert marked.kinds == ["numeric", "numeric"] and np.isnan(marked.X[5, 1]) and marked.X[6, 1] == 11.0
    assert not any("stores numbers as text" in note for note in marked.notes)
    # more words than numbers: categories, as in CSV
    mostly = [["k", "v"], *[[i, "x" if i % 3 else 1.0] for i in range(9)]]
    assert read_table(_workbook(tmp_path / "m.xlsx", mostly)).kinds == ["numeric", "categorical"]


def test_a_header_of_two_rows_names_each_column_by_both(tmp_path):
    # groups merged over their columns above the names, or units under them: the second row
    # was a data row of words among numbers (refused, or every column categories)
    book = openpyxl.Workbook()
    sheet = book.active
    for row in ([None, "Size", None, "Colour"], ["id", "height", "width", "hue"]):
        sheet.append(row)
    for i in range(6):
        sheet.append([f"p{i}", 1.5 + i, 2.0 * i, "red" if i % 2 else "blue"])
    sheet.merge_cells("B1:C1")
    book.save(tmp_path / "groups.xlsx")
    read = read_table(str(tmp_path / "groups.xlsx"))
    assert read.feature_names == ["Size height", "Size width", "Colour hue"] and read.row_ids.tolist()[0] == "p0"
    np.testing.assert_array_equal(read.X[:, :2], [[1.5 + i, 2.0 * i] for i in range(6)])
    assert any("the first two rows read as the header" in note for note in read.notes)
    # its CSV export (the merged name in its first cell only) reads alike
    lines = [
        ",Size,,Colour",
        "id,height,width,hue",
        *(f"p{i},{1.5 + i},{2.0 * i},{'red' if i % 2 else 'blue'}" for i in range(6)),
    ]
    (tmp_path / "groups.csv").write_text("\n".join(lines) + "\n")
    text = read_table(str(tmp_path / "groups.csv"))
    assert text.feature_names == read.feature_names
    np.testing.assert_array_equal(text.X, read.X)
    units = read_table(_workbook(tmp_path / "units.xlsx", [["height", "mass"], ["cm", "kg"], [170, 60.5], [180, None]]),
                       missing="keep")  # fmt: skip
    assert units.feature_names == ["height cm", "mass kg"] and units.X.shape == (2, 2)
    # a first data row of words above columns of words is data
    words = read_table(_workbook(tmp_path / "w.xlsx", [["a", "b"], ["x", "y"], ["x", "z"], ["u", "z"]]))
    assert words.X.shape == (3, 2) and words.feature_names == ["a", "b"]


def test_pandas_to_excel_index_reads_as_row_names_not_a_feature(tmp_path):
    # pandas writes its index, row numbers by default, under an empty header cell: read
    # as a feature, the row numbers led the first component
    import pandas as pd

    frame = pd.DataFrame({"a": [0.5, 1.5, 2.0, 3.5], "b": [1.0, 0.0, 2.0, 1.0]})
    frame.to_excel(tmp_path / "numbers.xlsx")
    read = read_table(str(tmp_path / "numbers.xlsx"))
    assert read.feature_names == ["a", "b"] and read.row_ids.tolist() == ["0", "1", "2", "3"]
    np.testing.assert_array_equal(read.X, frame.to_numpy())
    assert any("first column (no header name, a distinct whole number in every row) read as row names" in n
               for n in read.notes)  # fmt: skip
    frame.index = ["w", "x", "y", "z"]
    frame.to_excel(tmp_path / "names.xlsx")
    named = read_table(str(tmp_path / "names.xlsx"))
    assert named.row_ids.tolist() == ["w", "x", "y", "z"] and named.feature_names == ["a", "b"]
    # the CSV export of the same frame reads alike
    frame.to_csv(tmp_path / "names.csv")
    np.testing.assert_array_equal(read_table(str(tmp_path / "names.csv")).X, named.X)
    # one column beside its row names: its header of one name is no title above the table
    for name in ("one.xlsx", "one.csv"):
        getattr(frame[["a"]], "to_excel" if name.endswith("xlsx") else "to_csv")(tmp_path / name)
        one = read_table(str(tmp_path / name))
        assert one.feature_names == ["a"] and one.row_ids.tolist() == ["w", "x", "y", "z"], name
        assert one.X[:, 0].tolist() == frame["a"].tolist()


def test_hostile_and_wrong_workbooks_are_refused_by_name(tmp_path, monkeypatch):
    (tmp_path / "old.xls").write_bytes(b"\xd0\xcf\x11\xe0 not read")
    with pytest.raises(DataFileError, match=r"old.xls: an Excel 97-2003 workbook \(.xls\); save it as .xlsx"):
        read_table(str(tmp_path / "old.xls"))
    (tmp_path / "locked.xlsx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    with pytest.raises(DataFileError, match="locked.xlsx: a password-protected workbook .*without a password"):
        read_table(str(tmp_path / "locked.xlsx"))
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(DataFileError, match="broken.xlsx: not a readable Excel workbook"):
        read_table(str(tmp_path / "broken.xlsx"))
    with zipfile.ZipFile(tmp_path / "bomb.xlsx", "w", zipfile.ZIP_DEFLATED) as archive:  # 64 MB of zeros
        archive.writestr("xl/worksheets/sheet1.xml", b"\0" * (1 << 26))
    with pytest.raises(DataFileError, match="bomb.xlsx: the workbook unpacks to 0.1 GiB, more than the memory"):
        read_table(str(tmp_path / "bomb.xlsx"), max_bytes=1 << 20)
    with pytest.raises(DataFileError, match="sheet 'data' holds no cells"):
        read_table(_workbook(tmp_path / "empty.xlsx", []))
    with pytest.raises(DataFileError, match="sheet 'data' has a header and no data rows"):
        read_table(_workbook(tmp_path / "header.xlsx", [["a", "b"]]))
    monkeypatch.setitem(__import__("sys").modules, "openpyxl", None)
    with pytest.raises(DataFileError, match=r"needs openpyxl: pip install 'lowdim\[io\]'"):
        read_table(_workbook(tmp_path / "t.xlsx", ROWS))


def test_the_command_line_embeds_a_sheet(tmp_path, capsys):
    book = _workbook(tmp_path / "t.xlsx", ROWS)
    out = tmp_path / "out.csv"
    assert main(["embed", book, "-m", "famd", "--label-column", "kind", "--key", "data", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("id,famd1,famd2") and len(lines) == 13 and lines[1].startswith("p0,")


def test_formulas_are_checked_in_the_sheets_xml_not_by_a_second_read(tmp_path, monkeypatch):
    # a second read with openpyxl doubled the time of every sheet with a gap and a formula
    loads = []
    load = openpyxl.load_workbook
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: loads.append(k) or load(*a, **k))
    path = _workbook(tmp_path / "formula.xlsx", [["x", "y"], [1, None], [2, "=A2+1"]])
    with pytest.raises(DataFileError, match="formula with no saved value"):
        read_table(path, missing="keep")
    assert len(loads) == 1


def test_formula_cells_with_saved_values_text_results_and_errors_are_computed():
    from lowdim.io._excel import _uncomputed_cells

    xml = (
        b'<row r="2"><c r="A2"><f>B2*2</f><v>4</v></c><c r="B2" t="str"><f>IF(C2,"x","")</f><v></v></c>'
        b'<c r="C2" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="D2"><f t="shared" si="0"/><v>5</v></c>'
        b'<x:c r="E2"><x:f>A2</x:f><x:v /></x:c><c r="F2" s="1"/><c r="G2"><f>A2</f></c></row>'
    )
    assert _uncomputed_cells(xml) == ["E2", "G2"]


def test_a_map_written_as_a_workbook_reads_back(tmp_path):
    from lowdim.io import write_table

    path = tmp_path / "map.xlsx"
    Y = np.array([[0.5, -1.25], [np.nan, 3.0], [2.0, 4.0]])
    ids, labels = ["=HYPERLINK(1)", "b", "c"], ["+x", "@y", "+x"]  # text stays text, never a formula
    write_table(path, Y, ["umap1", "umap2"], labels=labels, row_ids=ids, id_name="sample")
    back = read_table(str(path), label_column="label", index_column="sample", missing="keep")
    np.testing.assert_array_equal(back.X, Y)
    assert back.feature_names == ["umap1", "umap2"] and back.labels.tolist() == labels
    assert back.row_ids.tolist() == ids
    with pytest.raises(FileExistsError, match="--overwrite"):
        write_table(path, Y, ["umap1", "umap2"])
    from lowdim.io._excel import write_excel_sheet

    with pytest.raises(DataFileError, match="does not fit an Excel sheet"):
        write_excel_sheet(str(tmp_path / "wide.xlsx"), np.zeros((1, 16_385)), [f"x{j}" for j in range(16_385)])


def test_the_command_line_writes_a_workbook_as_it_writes_csv(tmp_path):
    for name in ("map.xlsx", "map.csv"):
        assert main(["embed", "--dataset", "wine", "-m", "pca", "-o", str(tmp_path / name)]) == 0
    sheet, text = (read_table(str(tmp_path / name), label_column="cultivar") for name in ("map.xlsx", "map.csv"))
    np.testing.assert_allclose(sheet.X, text.X, rtol=1e-15)  # CSV's text holds the shortest repr: the same double
    assert sheet.feature_names == text.feature_names and sheet.labels.tolist() == text.labels.tolist()


def test_a_sheet_the_workbook_does_not_locate_is_looked_for_in_every_worksheet(tmp_path):
    from lowdim.io._excel import _sheet_parts

    path = tmp_path / "odd.xlsx"
    with zipfile.ZipFile(path, "w") as archive:  # no workbook.xml: never skip the check, look everywhere
        archive.writestr("xl/worksheets/sheet1.xml", b"<worksheet/>")
        archive.writestr("xl/worksheets/sheet2.xml", b"<worksheet/>")
    with zipfile.ZipFile(path) as archive:
        assert _sheet_parts(archive, "data") == ["xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"]


def test_an_opendocument_sheet_reads_as_the_same_sheet_saved_as_xlsx(tmp_path):
    # LibreOffice's own format, through the same layout, header and column rules
    import pandas as pd

    frame = pd.DataFrame(ROWS[1:], columns=ROWS[0])
    for name, engine in (("t.ods", "odf"), ("t.xlsx", "openpyxl")):
        with pd.ExcelWriter(tmp_path / name, engine=engine) as writer:
            frame.to_excel(writer, sheet_name="data", index=False, startrow=2, startcol=1)
            frame.head(2).to_excel(writer, sheet_name="more", index=False)
    ods, xlsx = (read_table(str(tmp_path / n), label_column="kind", missing="keep") for n in ("t.ods", "t.xlsx"))
    np.testing.assert_array_equal(ods.X, xlsx.X)
    assert ods.feature_names == xlsx.feature_names and ods.kinds == xlsx.kinds and ods.levels == xlsx.levels
    assert ods.labels.tolist() == xlsx.labels.tolist() and ods.row_ids.tolist() == xlsx.row_ids.tolist()
    assert any("the table starts at B3" in note for note in ods.notes)
    assert read_table(str(tmp_path / "t.ods"), key="more").X.shape[0] == 2
    (tmp_path / "bad.ods").write_text("not a spreadsheet")
    with pytest.raises(DataFileError, match="bad.ods: not a readable OpenDocument spreadsheet"):
        read_table(str(tmp_path / "bad.ods"))
    with pytest.raises(DataFileError, match="no sheet named 'x'; its sheets are 'data', 'more'"):
        read_table(str(tmp_path / "t.ods"), key="x")


def _ods(path, rows):
    """An OpenDocument sheet of ``rows`` of ``(value, rows spanned, columns spanned)``
    cells, a covered cell under a merge written as None."""
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import CoveredTableCell, Table, TableCell, TableRow
    from odf.text import P

    doc, sheet = OpenDocumentSpreadsheet(), Table(name="data")
    for cells in rows:
        row = TableRow()
        for cell in cells:
            if cell is None:
                row.addElement(CoveredTableCell())
                continue
            value, down, across = cell if isinstance(cell, tuple) else (cell, 1, 1)
            number = isinstance(value, float)
            kind = {"valuetype": "float", "value": value} if number else {"valuetype": "string"}
            spans = {"numberrowsspanned": down, "numbercolumnsspanned": across} if (down, across) != (1, 1) else {}
            element = TableCell(**kind, **spans)
            element.addElement(P(text=str(value)))
            row.addElement(element)
        sheet.addElement(row)
    doc.spreadsheet.addElement(sheet)
    doc.save(str(path))
    return str(path)


def test_an_opendocument_sheets_merged_cells_read_as_an_excel_sheets(tmp_path):
    # pandas gives a merged range's value in its first cell only: a group's name merged down
    # its rows was one category and gaps; the ranges are read from the file's XML
    table = [["site", "height", "species"], *[["North" if i < 3 else "South", 10.0 + i, "oak"] for i in range(6)]]
    plain = read_table(_workbook(tmp_path / "plain.xlsx", table))
    rows = [[("Field survey 2024", 1, 3), None, None], []]
    rows += [table[0]] + [[(row[0], 3, 1) if i % 3 == 0 else None, *row[1:]] for i, row in enumerate(table[1:])]
    read = read_table(_ods(tmp_path / "t.ods", rows), missing="keep")
    np.testing.assert_array_equal(read.X, plain.X)
    assert read.feature_names == plain.feature_names and read.levels == plain.levels
    said = " ".join(read.notes)
    assert "skipped the title row(s) above the table (row 1: 'Field survey 2024')" in said
    assert "2 merged cell range(s) inside the table read as their value in every cell (A4:A6, A7:A9)" in said
    # a range stated far past the cells is filled up to them (not a billion cells); a span
    # that is no number is refused by name
    rows[4][2] = ("oak", 1, 10**9)
    assert read_table(_ods(tmp_path / "wide.ods", rows), missing="keep").X.shape == plain.X.shape
    path = _ods(tmp_path / "bad.ods", rows)
    with zipfile.ZipFile(path) as book:
        parts = {name: book.read(name) for name in book.namelist()}
    parts["content.xml"] = parts["content.xml"].replace(b'number-rows-spanned="3"', b'number-rows-spanned="x"', 1)
    with zipfile.ZipFile(path, "w") as book:
        for name, data in parts.items():
            book.writestr(name, data)
    with pytest.raises(DataFileError, match="bad.ods: not a readable OpenDocument spreadsheet"):
        read_table(path)
