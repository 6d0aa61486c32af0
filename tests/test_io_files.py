"""Data files: every format reads back what was written, bad files get documented
errors only (fuzzing), missing-value policies, declared sizes checked before loading."""

import bz2
import gzip
import lzma
import os
import re
import warnings
import zlib

import anndata
import h5py
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lowdim.io import DataFileError, read_lazy, read_table, write_table

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3))
LABELS = np.array(["a", "b"] * 10)
FUZZ_SEED = int(os.environ.get("LOWDIM_FUZZ_SEED", "0"))  # vary it to fuzz further by hand


@pytest.mark.parametrize(
    "ext", [".csv", ".tsv", ".csv.gz", ".tsv.gz", ".csv.bz2", ".tsv.xz", ".csv.zst", ".parquet", ".npy"]
)
def test_written_tables_read_back_in_every_format(tmp_path, ext):
    path = tmp_path / f"z{ext}"
    ids = None if ext == ".npy" else [f"r{i}" for i in range(len(X))]
    write_table(path, X, ["u", "v", "w"], labels=None if ext == ".npy" else LABELS, row_ids=ids)
    table = read_table(str(path), label_column=None if ext == ".npy" else "label")
    np.testing.assert_allclose(table.X, X, rtol=1e-15)
    if ext != ".npy":
        assert table.feature_names == ["u", "v", "w"] and table.labels.tolist() == LABELS.tolist()
        assert table.row_ids.tolist() == ids
    if ext.startswith(".tsv"):  # tab-separated, compressed as named
        opener = {".tsv": open, ".tsv.gz": gzip.open, ".tsv.xz": lzma.open, ".tsv.bz2": bz2.open}[ext]
        with opener(path, "rt") as fh:
            assert fh.readline() == "id\tu\tv\tw\tlabel\n"
    with pytest.raises(FileExistsError, match="--overwrite"):
        write_table(path, X, ["u", "v", "w"])


@pytest.mark.parametrize("name", ["z.ods", "z.xlsx.gz", "z.parquet.gz", "z.h5ad.gz", "z", "z.gz"])
def test_unwritable_table_names_are_refused_with_the_writable_ones(tmp_path, name):
    with pytest.raises(DataFileError, match=r"cannot write this format; name the output \*\.csv\[\.gz"):
        write_table(tmp_path / name, X, ["u", "v", "w"])
    assert os.listdir(tmp_path) == []


def test_csv_output_is_formula_safe(tmp_path):
    path = tmp_path / "z.csv"
    write_table(path, X[:2, :1], ["=cmd"], labels=["@SUM(A1)", "-3"])
    lines = path.read_text().splitlines()
    assert lines[0] == "'=cmd,label" and lines[1].endswith(",'@SUM(A1)") and lines[2].endswith(",-3")


def test_npz_and_hdf5_keys(tmp_path):
    np.savez(tmp_path / "a.npz", first=X, second=X * 2)
    np.testing.assert_array_equal(read_table(str(tmp_path / "a.npz"), key="second").X, X * 2)
    with pytest.raises(DataFileError, match="no array named 'third'; arrays are first, second"):
        read_table(str(tmp_path / "a.npz"), key="third")
    with h5py.File(tmp_path / "a.h5", "w") as fh:
        fh["group/X"] = X
        fh["other"] = X[:, :1]
    with pytest.raises(DataFileError, match="2 datasets .* choose one with --key"):
        read_table(str(tmp_path / "a.h5"))
    h5py.File(tmp_path / "empty.h5", "w").close()  # was "0 datasets (); choose one with --key"
    for key in (None, "X"):
        with pytest.raises(DataFileError, match="empty.h5: an HDF5 file with no dataset in it; write the table"):
            read_table(str(tmp_path / "empty.h5"), key=key)
    np.testing.assert_array_equal(read_table(str(tmp_path / "a.h5"), key="group/X").X, X)
    with h5py.File(tmp_path / "xy.h5", "w") as fh:  # the usual layout: the table and its labels
        fh["X"], fh["y"] = X, np.arange(len(X))
    for read in (read_table, read_lazy):  # the in-memory and the out-of-core readers say the same
        message = r"2 datasets \(X \d+ x \d+, y \d+\); choose one with --key \('X' is the only table"
        with pytest.raises(DataFileError, match=message):
            read(str(tmp_path / "xy.h5"))


def test_missing_value_policies(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("a,b,c\n1,2,3\n4,,6\n7,8,\n,11,12\n13,14,15\n")
    with pytest.raises(DataFileError, match=r"3 missing values \('a': 1, 'b': 1, 'c': 1\); pass --missing"):
        read_table(str(path))
    dropped = read_table(str(path), missing="drop")
    assert dropped.X.tolist() == [[1, 2, 3], [13, 14, 15]] and "dropped 3 rows" in dropped.notes[-1]
    imputed = read_table(str(path), missing="impute").X
    assert imputed[1, 1] == pytest.approx((2 + 8 + 11 + 14) / 4) and not np.isnan(imputed).any()
    assert np.isnan(read_table(str(path), missing="keep").X).sum() == 3


def test_a_column_with_no_value_at_all_is_named_with_the_option_that_leaves_it_out(tmp_path):
    # an empty column made --missing drop say only "every row has a missing value", and
    # --missing impute fill it with 0 without a word
    path = tmp_path / "e.csv"
    path.write_text("a,b,c\n1,,3\n4,,6\n7,,9\n")
    fix = "column 'b' holds no value at all (--exclude b leaves it out)"
    with pytest.raises(DataFileError, match=re.escape(f"3 missing values ('b': 3); {fix}; pass --missing")):
        read_table(str(path))
    with pytest.raises(DataFileError, match=re.escape(f"every row has a missing value, as {fix}; --missing drop")):
        read_table(str(path), missing="drop")
    imputed = read_table(str(path), missing="impute")
    assert f"{fix}: filled with 0, a constant that carries nothing" in imputed.notes[-1]
    assert read_table(str(path), exclude=["b"]).X.tolist() == [[1, 3], [4, 6], [7, 9]]


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx", ".npy"])
def test_exclude_takes_a_comma_separated_list_as_columns_does(tmp_path, suffix):
    # "--exclude id,batch" was one column named 'id,batch', refused as missing
    import pandas as pd

    frame = pd.DataFrame({"a": [1.0, 4.0, 7.0], "b": [2.0, 5.0, 8.0], "c": [3.0, 6.0, 9.0], "d": [0.5, 0.1, 0.2]})
    path = tmp_path / f"t{suffix}"
    if suffix == ".npy":
        np.save(path, frame.to_numpy())
        specs, kept = ["1,3"], [[2.0, 0.5], [5.0, 0.1], [8.0, 0.2]]
    else:
        getattr(frame, {".csv": "to_csv", ".parquet": "to_parquet", ".xlsx": "to_excel"}[suffix])(path, index=False)
        specs, kept = ["b,d"], [[1.0, 3.0], [4.0, 6.0], [7.0, 9.0]]
    assert read_table(str(path), exclude=specs).X.tolist() == kept
    with pytest.raises(DataFileError, match="no column named 'x'"):
        read_table(str(path), exclude=["b,x"] if suffix != ".npy" else ["1,x"])


def test_a_column_named_with_a_comma_is_excluded_by_its_name(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('"a,b",a,b\n1,2,3\n4,5,6\n7,8,9\n')
    assert read_table(str(path), exclude=["a,b"]).X.tolist() == [[2, 3], [5, 6], [8, 9]]


def _huge_header(path, shape):
    header = np.lib.format.header_data_from_array_1_0(np.zeros((2, 2)))
    header["shape"] = shape
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        fh.write(b"\x00" * 64)


def test_declared_huge_shapes_refused_before_allocation(tmp_path):
    _huge_header(tmp_path / "huge.npy", (10**9, 10**6))
    with pytest.raises(DataFileError, match=r"header declares shape \(1000000000, 1000000\)"):
        read_table(str(tmp_path / "huge.npy"))
    with h5py.File(tmp_path / "huge.h5", "w") as fh:  # chunked: tiny file, huge declared shape
        fh.create_dataset("X", shape=(10**8, 10**5), dtype="f8", chunks=(1, 10))
    with pytest.raises(DataFileError, match="header declares shape"):
        read_table(str(tmp_path / "huge.h5"))
    pq.write_table(pa.table({"a": np.zeros(1000)}), tmp_path / "t.parquet")
    with pytest.raises(DataFileError, match="exceeds the limit"):
        read_table(str(tmp_path / "t.parquet"), max_bytes=1000)


def _valid_files(folder):
    files = {}
    for ext in (".csv", ".parquet", ".npy"):
        files[ext] = folder / f"ok{ext}"
        write_table(files[ext], X, ["u", "v", "w"])
    np.savez(folder / "ok.npz", X=X)
    with h5py.File(folder / "ok.h5", "w") as fh:
        fh["X"] = X
    anndata.AnnData(X).write_h5ad(folder / "ok.h5ad")
    files.update({".npz": folder / "ok.npz", ".h5": folder / "ok.h5", ".h5ad": folder / "ok.h5ad"})
    return files


@pytest.mark.parametrize("ext", [".csv", ".parquet", ".npy", ".npz", ".h5", ".h5ad"])
def test_fuzzed_files_raise_only_documented_errors(tmp_path, ext):
    rng = np.random.default_rng(zlib.crc32(ext.encode()) + FUZZ_SEED)
    valid = _valid_files(tmp_path)[ext].read_bytes()
    for trial in range(40):
        if trial < 15:
            data = rng.integers(0, 256, rng.integers(0, 400)).astype(np.uint8).tobytes()
        elif trial < 28:
            data = valid[: rng.integers(0, len(valid))]
        else:
            flipped = bytearray(valid)
            for pos in rng.integers(0, len(valid), 8):
                flipped[pos] = rng.integers(0, 256)
            data = bytes(flipped)
        path = tmp_path / f"fuzz{trial}{ext}"
        path.write_bytes(data)
        try:
            table = read_table(str(path))
        except DataFileError as exc:
            assert str(path) in str(exc)
        else:
            assert table.X.ndim == 2 and table.X.shape[0] >= 1


def test_unknown_extension_and_folders(tmp_path):
    with pytest.raises(DataFileError, match="unknown file type '.numbers'"):
        (tmp_path / "a.numbers").write_bytes(b"x")
        read_table(str(tmp_path / "a.numbers"))
    with pytest.raises(DataFileError, match="no such file"):
        read_table(str(tmp_path / "absent.csv"))
    os.mkdir(tmp_path / "dir.csv")
    with pytest.raises(DataFileError, match="is a folder"):
        read_table(str(tmp_path / "dir.csv"))


def test_infinite_csv_cell_is_named_by_file_line_and_column(tmp_path):
    from lowdim.exceptions import DataFileError
    from lowdim.io import read_table

    path = tmp_path / "inf.csv"
    path.write_text("a,b\n1,2\n3,inf\n5,-Infinity\n")
    for policy in ("error", "impute", "drop"):
        with pytest.raises(DataFileError, match=r"inf.csv, line 3, column 2: 'inf' is infinite \(2 infinite cell"):
            read_table(str(path), missing=policy)
    with pytest.raises(DataFileError, match="infinity is not a missing value"):
        read_table(str(path))


@pytest.mark.parametrize("arrow", [False, True])
def test_csv_columns_converted_whole_read_as_cell_by_cell(tmp_path, monkeypatch, arrow):
    # numbers are converted a column at a time (gaps marked first; pyarrow's parser on
    # large tables), cells one by one only where a column has something else: the
    # values of the cell-by-cell reading, every gap mark NaN, a typeset minus read, a
    # column of words a category
    import lowdim.preprocessing._mixed as mixed
    from lowdim.io import read_table
    from lowdim.io._csv import _cell_value

    pytest.importorskip("pyarrow") if arrow else None
    monkeypatch.setattr(mixed, "ARROW_CELLS", 0 if arrow else 1 << 62)
    through_arrow, original = [], mixed._arrow_numbers
    monkeypatch.setattr(mixed, "_arrow_numbers", lambda cells: through_arrow.append(1) or original(cells))

    rng = np.random.default_rng(0)
    marks = ["", " ", "NA", "n/a", " nan ", "NULL", "None"]
    numbers = [f"{v:.6g}" for v in rng.normal(size=40) * 10.0 ** rng.integers(-300, 300, 40)]
    gappy = [rng.choice(marks) if rng.random() < 0.3 else f"{v:.17g}" for v in rng.normal(size=40)]
    minus = [f"\u2212{abs(v):.3f}" if k % 3 == 0 else f"{v:.3f}" for k, v in enumerate(rng.normal(size=40))]
    words = [str(rng.choice(["red", "blue"])) for _ in range(40)]
    lines = ["a,b,c,d"] + [",".join(cells) for cells in zip(numbers, gappy, minus, words)]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = read_table(str(tmp_path / "t.csv"), missing="keep")
    expected = [[_cell_value("t.csv", c, 0, 0) for c in column] for column in (numbers, gappy, minus)]
    np.testing.assert_array_equal(table.X[:, :3], np.array(expected).T)
    assert table.kinds == ["numeric", "numeric", "numeric", "categorical"]
    assert bool(through_arrow) == arrow
    # a table of numbers and gaps only is converted in one pass for all its columns: the same values
    import lowdim.io._csv as csv_reader

    whole, convert = [], csv_reader.columns_as_numbers
    monkeypatch.setattr(csv_reader, "columns_as_numbers", lambda cols: whole.append(convert(cols)) or whole[-1])
    (tmp_path / "n.csv").write_text("\n".join(line.rsplit(",", 1)[0] for line in lines) + "\n", encoding="utf-8")
    np.testing.assert_array_equal(read_table(str(tmp_path / "n.csv"), missing="keep").X, np.array(expected).T)
    assert whole and whole[-1] is not None


def test_csv_first_bad_cell_named_is_the_first_in_the_file(tmp_path):
    # columns are converted one by one, but the cell named is the first by line, whatever
    # its column: column 2 goes wrong on line 3, column 1 on line 4
    from lowdim.exceptions import DataFileError
    from lowdim.io import read_table

    (tmp_path / "bad.csv").write_text("a,b\n1,2\n3,x\ny,4\n5,6\n6,7\n")
    with pytest.raises(DataFileError, match="line 3, column 2: 'x' is not a number"):
        read_table(str(tmp_path / "bad.csv"))


@pytest.mark.parametrize("name", ["PCA", "KMeans", "TSNE", "GaussianMixture", "UMAP", "Isomap"])
def test_tiny_data_is_an_underflow_error_not_identical_rows(name):
    import lowdim

    X = np.random.default_rng(0).normal(size=(60, 3)) * 1e-300
    with pytest.raises(ValueError, match="underflow"):
        getattr(lowdim, name)(2).fit(X)
    mixed = np.random.default_rng(0).normal(size=(60, 3))
    mixed[:, 1] *= 1e-300  # one column too small to square, the others ordinary
    with pytest.raises(ValueError, match="column 1 varies"):
        lowdim.PCA(2).fit(mixed)


@pytest.mark.parametrize("suffix", [".csv.gz", ".tsv.gz", ".csv.bz2", ".csv.xz", ".csv.zst"])
def test_compressed_text_is_read_as_a_stream(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    import zstandard

    sep = "\t" if ".tsv" in suffix else ","
    text = sep.join(["a", "b", "label"]) + "\n" + "".join(f"{i}{sep}{i * 0.5}{sep}c{i % 2}\n" for i in range(20))
    path = tmp_path / f"data{suffix}"
    data = text.encode()
    packed = {
        ".gz": gzip.compress,
        ".bz2": bz2.compress,
        ".xz": lzma.compress,
        ".zst": zstandard.ZstdCompressor().compress,
    }[os.path.splitext(suffix)[1]](data)
    path.write_bytes(packed)
    table = read_table(str(path), label_column="label")
    np.testing.assert_allclose(table.X, [[i, i * 0.5] for i in range(20)])
    assert table.feature_names == ["a", "b"] and table.labels[:2].tolist() == ["c0", "c1"]
    assert not any(name.startswith("data") for name in os.listdir(tmp_path) if name != path.name)


def test_broken_compressed_file_and_compressed_binary_are_clear_errors(tmp_path):
    path = tmp_path / "broken.csv.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00not really gzip")
    with pytest.raises(DataFileError, match="not a readable gzip file"):
        read_table(str(path))
    import gzip

    packed_npy = tmp_path / "x.npy.gz"
    packed_npy.write_bytes(gzip.compress(b"\x93NUMPY"))
    with pytest.raises(DataFileError, match="only CSV/TSV text is read compressed"):
        read_table(str(packed_npy))


def _uk_food_csv(path, *, transposed, r_style="write.csv"):
    """The UK food table as R writes it: countries x foods, or foods x countries."""
    from lowdim.datasets import load_uk_food

    X, countries, foods = load_uk_food()
    rows, cols, values = (foods, list(countries), X.T) if transposed else (list(countries), foods, X)
    header = ([""] if r_style == "write.csv" else []) + [f'"{c}"' for c in cols]
    lines = [",".join(header)] + [",".join([f'"{r}"'] + [f"{v:g}" for v in row]) for r, row in zip(rows, values)]
    path.write_text("\n".join(lines) + "\n")
    return X, countries, foods


@pytest.mark.parametrize("r_style", ["write.csv", "write.table"])
def test_row_names_are_detected_and_kept(tmp_path, r_style):
    path = tmp_path / "food.csv"
    X, countries, foods = _uk_food_csv(path, transposed=False, r_style=r_style)
    table = read_table(str(path))
    np.testing.assert_array_equal(table.X, X)
    assert table.feature_names == foods and table.row_ids.tolist() == list(countries)
    assert any("row names" in note for note in table.notes)


@pytest.mark.parametrize("short_header", [True, False])
def test_r_row_numbers_under_a_short_header_are_row_names_not_a_feature(tmp_path, short_header):
    """olive.csv as R writes it: a header one name short (or an empty first name) over
    a first column of row numbers 1..n, which must not become a feature."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    path = tmp_path / "olive.csv"
    head = "palmitic,oleic,linoleic" if short_header else ",palmitic,oleic,linoleic"
    path.write_text(
        head + "\n" + "".join(f"{i + 1}," + ",".join(f"{v:.6f}" for v in row) + "\n" for i, row in enumerate(X))
    )
    table = read_table(str(path))
    assert table.feature_names == ["palmitic", "oleic", "linoleic"]
    np.testing.assert_allclose(table.X, X, atol=1e-6)
    assert table.row_ids.tolist() == [str(i + 1) for i in range(12)]
    assert any("row numbers" in note for note in table.notes)
    repeated = tmp_path / "repeated.csv"  # the same integer twice: a measurement, kept as a feature
    repeated.write_text(",a,b\n1,2,3\n1,5,6\n2,8,9\n")
    assert read_table(str(repeated)).X.shape == (3, 3)


@pytest.mark.parametrize("index", [True, False])
def test_pandas_default_column_names_are_a_header_not_a_row(tmp_path, index):
    """``pd.DataFrame(array).to_csv(path)``, the commonest way an array becomes a CSV:
    its header is the default names 0..d-1 (with an empty field above the index when
    the index is written). Read as data, the header became a row of 0, 1, 2, ...
    (and the index's empty field a gap, the index a feature)."""
    import pandas as pd

    X = np.random.default_rng(0).normal(size=(20, 4))
    path = tmp_path / "frame.csv"
    pd.DataFrame(X).to_csv(path, index=index)
    table = read_table(str(path))
    np.testing.assert_allclose(table.X, X)
    assert table.feature_names == ["0", "1", "2", "3"]
    assert any("pandas" in note and "--header no" in note for note in table.notes)
    if index:
        assert table.row_ids.tolist() == [str(i) for i in range(20)]
    data = tmp_path / "data.csv"  # numbers that are not 0..d-1 in order stay data
    data.write_text("0,1,3\n4,5,6\n")
    assert read_table(str(data)).X.shape == (2, 3)
    asked = tmp_path / "asked.csv"  # --header no keeps such a first row as data
    asked.write_text("0,1,2\n4,5,6\n")
    assert read_table(str(asked), header="no").X.tolist() == [[0.0, 1.0, 2.0], [4.0, 5.0, 6.0]]


def test_a_named_first_column_of_distinct_text_is_row_names_not_a_category(tmp_path):
    """A table as a spreadsheet saves it ('country', then numbers): a category with a level
    per row says nothing of which rows are alike, so its cells are the row ids."""
    path = tmp_path / "food.csv"
    path.write_text("country,cheese,fish\nEngland,105,147\nWales,103,160\nScotland,103,122\nN.Ireland,66,93\n")
    table = read_table(str(path))
    assert table.row_ids.tolist() == ["England", "Wales", "Scotland", "N.Ireland"]
    assert table.feature_names == ["cheese", "fish"] and table.X[0].tolist() == [105.0, 147.0]
    assert any("'country' (a different text in every row) read as row names" in note for note in table.notes)
    kept = read_table(str(path), categorical=["country"])  # the user's word keeps it a feature
    assert kept.row_ids is None and kept.feature_names[0] == "country" and kept.kinds[0] == "categorical"
    with pytest.warns(UserWarning, match="looks like row names"):  # the user's word still goes
        labelled = read_table(str(path), label_column="country")
    assert labelled.row_ids is None and labelled.labels[0] == "England"
    shared = tmp_path / "islands.csv"  # a level shared by rows: a category, as before
    shared.write_text("island,mass\nDream,3.1\nBiscoe,4.2\nDream,3.3\n")
    assert read_table(str(shared)).kinds == ["categorical", "numeric"]


@pytest.mark.parametrize("loader", ["load_iris", "load_wine", "load_digits", "load_breast_cancer"])
def test_a_table_that_looks_transposed_suggests_transpose(tmp_path, loader):
    """Foods x countries (each row a variable of its own scale, the columns alike) gets a
    note naming --transpose; samples x features tables never do, either way round."""
    import sklearn.datasets

    food = tmp_path / "food.csv"
    _uk_food_csv(food, transposed=True, r_style="write.csv")
    assert any("pass --transpose" in note for note in read_table(str(food)).notes)
    assert not any("pass --transpose" in note for note in read_table(str(food), transpose=True).notes)
    _uk_food_csv(food, transposed=False, r_style="write.csv")
    assert not any("--transpose" in note for note in read_table(str(food)).notes)
    X = getattr(sklearn.datasets, loader)().data
    plain, flipped = tmp_path / "plain.csv", tmp_path / "flipped.csv"
    np.savetxt(plain, X, delimiter=",")
    np.savetxt(flipped, X.T, delimiter=",")
    assert not any("--transpose" in note for note in read_table(str(plain)).notes)
    if loader != "load_iris":  # iris's four measurements share one scale (cm): no telling
        assert any("pass --transpose" in note for note in read_table(str(flipped)).notes)


def test_foods_by_countries_is_one_transposed_command(tmp_path, capsys):
    from lowdim.cli.main import main

    path, out = tmp_path / "foods_x_countries.csv", tmp_path / "pca.csv"
    X, countries, foods = _uk_food_csv(path, transposed=True)
    table = read_table(str(path), transpose=True)
    np.testing.assert_array_equal(table.X, X)
    assert table.row_ids.tolist() == list(countries) and table.feature_names == foods
    assert main(["pca", str(path), "--transpose", "-k", "2", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "id,PC1,PC2"
    ids = [line.split(",")[0] for line in lines[1:]]
    pc1 = np.array([float(line.split(",")[1]) for line in lines[1:]])
    assert ids == list(countries)
    # Northern Ireland alone at one end of the first component
    ni = ids.index("N.Ireland")
    assert np.all(np.sign(np.delete(pc1, ni)) == -np.sign(pc1[ni]))


def test_index_column_and_missing_rows_keep_ids_aligned(tmp_path):
    path = tmp_path / "cells.csv"
    path.write_text("x,cell,y\n1,c1,2\n,c2,3\n5,c3,6\n")
    table = read_table(str(path), index_column="cell", missing="drop")
    assert table.row_ids.tolist() == ["c1", "c3"] and table.X.tolist() == [[1.0, 2.0], [5.0, 6.0]]
    path.write_text("x,cell\n1,c1\n2,c1\n")
    with pytest.raises(DataFileError, match="row name 'c1' appears twice"):
        read_table(str(path), index_column="cell")
    with pytest.raises(DataFileError, match="--label-column names a column, but --transpose"):
        read_table(str(path), label_column="x", transpose=True)
    np.save(tmp_path / "a.npy", np.eye(3))
    with pytest.raises(DataFileError, match="--index-column reads row names from CSV/TSV"):
        read_table(str(tmp_path / "a.npy"), index_column="1")


def test_row_ids_are_written_to_csv_and_parquet(tmp_path):
    for name in ("z.csv", "z.parquet"):
        write_table(tmp_path / name, np.eye(2), ["a", "b"], labels=["u", "v"], row_ids=["=r1", "r2"])
    assert (tmp_path / "z.csv").read_text().splitlines() == ["id,a,b,label", "'=r1,1.0,0.0,u", "r2,0.0,1.0,v"]
    assert pq.read_table(tmp_path / "z.parquet").column_names == ["id", "a", "b", "label"]


def test_common_file_mistakes_name_their_fix(tmp_path):
    import gzip
    import warnings

    semicolons = tmp_path / "eu.csv"
    semicolons.write_text("a;b;c\n1,5;2,0;3\n4,5;5,5;6\n")
    with pytest.raises(DataFileError, match="looks ';'-separated with decimal commas .*: pass --decimal ','"):
        read_table(str(semicolons))
    assert read_table(str(semicolons), decimal=",").X.tolist() == [[1.5, 2.0, 3.0], [4.5, 5.5, 6.0]]
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,x\nCaf\xe9,1\nTh\xe9,2\n".encode("latin-1"))
    with pytest.raises(DataFileError, match="pass --encoding cp1252"):
        read_table(str(latin), label_column="name")
    assert read_table(str(latin), label_column="name", encoding="latin-1").labels.tolist() == ["Café", "Thé"]
    nul = tmp_path / "nul.csv"
    nul.write_bytes(b"a,b\n1,2\n3,\x004\n")
    with pytest.raises(DataFileError, match="line 3: a NUL byte"):
        read_table(str(nul))
    quote = tmp_path / "quote.csv"
    quote.write_text('a,b\n1,"2\n3,4\n5,6\n')
    with pytest.raises(DataFileError, match="opened and never closed"):
        read_table(str(quote))
    # a quote never closed that swallows whole rows and leaves every row as wide as the header
    quote.write_text('a,b,c\n1,"x,2\n3,y",7\n8,z,9\n')
    with pytest.raises(DataFileError, match="opened and never closed"):
        read_table(str(quote))
    # a space after each separator, as people type: the quotes still hold the comma in a
    # name (they were read as text and split it, and the header one short made the
    # first column row names, every column shifted by one)
    spaced = tmp_path / "spaced.csv"
    spaced.write_text('a, b, name\n1.5, "2.0", "Smith, J"\n2.5, "3.0", "Doe, A"\n')
    table = read_table(str(spaced), label_column="name")
    assert table.X.tolist() == [[1.5, 2.0], [2.5, 3.0]] and table.labels.tolist() == ["Smith, J", "Doe, A"]
    # Excel's first line naming the separator
    declared = tmp_path / "declared.csv"
    declared.write_text("sep=;\na;b\n1;2\n3;4\n")
    table = read_table(str(declared))
    assert table.X.tolist() == [[1, 2], [3, 4]] and any("separator line" in note for note in table.notes)
    declared.write_text("sep=;\na;b\n1;x\n3;4\n")
    with pytest.raises(DataFileError, match="line 3, column 2"):  # lines counted from the file's first
        read_table(str(declared))
    # a note written over lines in a quoted text cell (RFC 4180; pandas and spreadsheets
    # write them) is one category, not a quote left open
    notes = tmp_path / "notes.csv"
    notes.write_text('x,note\n1,ok\n2,"two\nlines, with a comma"\n3,ok\n4,"two\nlines, with a comma"\n')
    table = read_table(str(notes))
    assert table.X.tolist() == [[1, 0], [2, 1], [3, 0], [4, 1]]
    assert table.levels["note"] == ["ok", "two\nlines, with a comma"]
    assert all("\n" not in note for note in table.notes)  # a message stays one line
    dup = tmp_path / "dup.csv"
    dup.write_text("x,y,x\n1,2,3\n4,5,6\n")
    with pytest.warns(UserWarning, match=r"duplicate column names: 'x' \(columns 1, 3\)"):
        read_table(str(dup))
    with pytest.raises(DataFileError, match="column name 'x' is ambiguous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_table(str(dup), label_column="x")
    many = tmp_path / "many.npz"
    np.savez(many, X=np.ones((3, 2)), extra=np.zeros((2, 2)))
    with pytest.warns(UserWarning, match="holds 2 arrays.*reading 'X'"):
        read_table(str(many))
    labelled = tmp_path / "labels.csv"
    labelled.write_text("a,y\n1,u\n2,u\n3,u\n")
    with pytest.warns(UserWarning, match="single class"):
        read_table(str(labelled), label_column="y")
    labelled.write_text("a,y\n1,u\n2,v\n3,w\n")
    with pytest.warns(UserWarning, match="different value in every row"):
        read_table(str(labelled), label_column="y")
    short = tmp_path / "short.npy"
    short.write_bytes(_npy_bytes(np.ones((100, 10)))[:500])
    with pytest.raises(DataFileError, match="truncated: the header declares shape"):
        read_table(str(short))
    del gzip


def _npy_bytes(array):
    import io

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


@pytest.mark.parametrize(
    "shape, words",
    [
        ((-3, 2), "shape (-3, 2), with a negative size"),
        ((10**20, 2), "shape (100000000000000000000, 2)"),
        ((2**32, 2**32), "shape (4294967296, 4294967296) (147573952589676412928 bytes"),  # wraps to 0 in int64
    ],
)
def test_impossible_npy_shapes_are_named_with_the_file(tmp_path, shape, words):
    path = tmp_path / "odd.npy"
    _huge_header(path, shape)
    with pytest.raises(DataFileError) as error:
        read_table(str(path))
    assert str(path) in str(error.value) and words in str(error.value)


@pytest.mark.parametrize(
    "array, fix, shape",
    [
        (np.arange(20.0), "x.reshape(-1, 1)", (-1, 1)),  # a column of values, saved flat
        (np.zeros((5, 4, 3)), "x.reshape(5, -1)", (5, -1)),  # images, one per row
    ],
)
def test_an_array_that_is_not_a_table_is_refused_with_the_reshape_that_makes_one(tmp_path, array, fix, shape):
    path = tmp_path / "values.npy"
    np.save(path, array)
    with pytest.raises(DataFileError, match="expected a 2-D array") as error:
        read_table(str(path))
    assert fix in str(error.value)
    np.save(path, array.reshape(shape))  # the fix it names reads
    assert read_table(str(path)).X.shape[0] == array.shape[0]


@pytest.mark.parametrize("layout", ["csr", "csc", "coo"])
def test_a_sparse_matrix_saved_by_scipy_is_read_as_its_matrix(tmp_path, layout):
    """scipy.sparse.save_npz writes data/indices/indptr/format/shape: the matrix, not its
    'indices' array read as the data."""
    import scipy.sparse as sp

    matrix = sp.random(40, 7, density=0.3, format=layout, random_state=0, dtype=np.float32)
    path = tmp_path / "counts.npz"
    sp.save_npz(path, matrix)
    table = read_table(str(path))
    assert table.X.shape == (40, 7)
    np.testing.assert_array_equal(table.X, matrix.toarray())
    with pytest.raises(DataFileError, match="expected a 2-D array"):  # --key still reads that one array
        read_table(str(path), key="data")


def test_a_sparse_archive_declaring_a_huge_matrix_is_refused_before_expanding(tmp_path):
    path = tmp_path / "huge.npz"
    np.savez(path, format=np.array("csr"), shape=np.array([10**7, 10**6]), data=np.ones(1),
             indices=np.zeros(1, dtype=np.int32), indptr=np.zeros(10**7 + 1, dtype=np.int32))  # fmt: skip
    with pytest.raises(DataFileError, match=r"shape \(10000000, 1000000\).*exceeds the limit"):
        read_table(str(path))


def test_a_binary_file_named_csv_is_named_by_its_first_bytes(tmp_path):
    # a workbook saved (or downloaded) as .csv was "not a utf-8 text file ... pass --encoding cp1252"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1.0, 2.0]}), tmp_path / "p.parquet")
    np.save(tmp_path / "a.npy", np.eye(2))
    made = {"p.parquet": "a Parquet file, not text: read it by a name ending in .parquet",
            "a.npy": "a NumPy array, not text: read it by a name ending in .npy"}  # fmt: skip
    for name, message in made.items():
        renamed = tmp_path / f"{name}.csv"
        renamed.write_bytes((tmp_path / name).read_bytes())
        with pytest.raises(DataFileError, match=f"by its first bytes it is {re.escape(message)}"):
            read_table(str(renamed))
    (tmp_path / "book.csv").write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00\x21\x00\x86\xff")
    with pytest.raises(DataFileError, match=r"zip archive \(an Excel workbook is one\).*ending in .xlsx"):
        read_table(str(tmp_path / "book.csv"))


def test_utf16_field_limit_and_delimiter_messages(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_bytes("a,b\n1,2\n3,4\n".encode("utf-16"))  # Excel's "Unicode text": its byte-order mark says so
    assert read_table(str(wide)).X.tolist() == [[1, 2], [3, 4]] == read_table(str(wide), encoding="utf-16").X.tolist()
    tabs16 = tmp_path / "tabs16.tsv.gz"
    tabs16.write_bytes(gzip.compress("a\tb\n1\t2\n3\t4\n".encode("utf-16-be")))  # no mark
    with pytest.raises(DataFileError, match="looks like UTF-16 text without a byte-order mark: pass --encoding utf-16"):
        read_table(str(tabs16))
    assert read_table(str(tabs16), encoding="utf-16-be").X.tolist() == [[1, 2], [3, 4]]
    program = tmp_path / "program.csv"  # NULs on both sides of the byte pairs: binary, not UTF-16
    program.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    with pytest.raises(DataFileError, match="holds NUL bytes, as binary files do"):
        read_table(str(program))
    long = tmp_path / "long.csv"
    long.write_text("a,b\n1,2\n3," + "9" * 200_000 + "\n")
    with pytest.raises(DataFileError, match=r"long.csv, line 3: malformed CSV \(field larger than field limit"):
        read_table(str(long))
    tabs = tmp_path / "t.csv"
    tabs.write_text("a\tb\n1\t2\n")
    assert read_table(str(tabs), delimiter="tab").X.tolist() == [[1, 2]]
    for bad in ("", ";;", "\n"):
        with pytest.raises(DataFileError, match="is not a field separator; give one character"):
            read_table(str(tabs), delimiter=bad)


def test_decimal_commas_are_read_as_spreadsheets_write_them(tmp_path):
    """Spreadsheets where the comma is the decimal mark write '1,5' between ';'."""
    eu = tmp_path / "eu.csv"
    eu.write_text('name;x;y;z\n"Smith, J";1,5;-0,25;1.234,5\nLee;2;6,02e2;−1,0\nRoe;,5;7.5;3\n')
    table = read_table(str(eu), decimal=",", index_column="name")
    assert table.X.tolist() == [[1.5, -0.25, 1234.5], [2.0, 602.0, -1.0], [0.5, 7.5, 3.0]]
    assert table.row_ids.tolist() == ["Smith, J", "Lee", "Roe"]  # a text cell's comma is left alone
    semicolons_named = tmp_path / "eu2.csv"
    semicolons_named.write_text("a|b\n1,5|2\n")
    assert read_table(str(semicolons_named), decimal=",", delimiter="|").X.tolist() == [[1.5, 2.0]]
    with pytest.raises(DataFileError, match="--delimiter ',' is also the decimal mark"):
        read_table(str(eu), decimal=",", delimiter=",")
    with pytest.raises(DataFileError, match="--decimal ';' is not a decimal mark"):
        read_table(str(eu), decimal=";")
    np.save(tmp_path / "a.npy", np.eye(2))
    with pytest.raises(DataFileError, match="--decimal reads the numbers of CSV/TSV text; a npy file"):
        read_table(str(tmp_path / "a.npy"), decimal=",")


def test_whitespace_separated_files_are_read_and_recognised(tmp_path):
    aligned = tmp_path / "auto.data"  # UCI's layout: aligned columns, a quoted name with spaces
    aligned.write_text('18.0   8   307.0\t"chevrolet chevelle"\n  15.0  8   350.0   "buick skylark"\n')
    table = read_table(str(aligned), delimiter="whitespace", header="no", index_column="x4")
    assert table.X.tolist() == [[18.0, 8.0, 307.0], [15.0, 8.0, 350.0]]
    assert table.row_ids.tolist() == ["chevrolet chevelle", "buick skylark"]
    spaced = tmp_path / "spaced.txt"
    spaced.write_text("a b c\n1 2 3\n4 5 6\n")
    with pytest.raises(DataFileError, match="every line is one field.*pass --delimiter whitespace"):
        read_table(str(spaced))  # it was one column of categories such as '1 2 3'
    names = tmp_path / "names.csv"
    names.write_text("name\nJohn Smith\nMary Jones\n")  # one column of text with spaces: read, not refused
    assert read_table(str(names), categorical=["name"]).X.shape == (2, 1)


def test_images_keep_their_depth_and_their_colour(tmp_path):
    """A 16-bit grey image (microscopy, scans) was clipped at 255 of 65,535 by the 8-bit
    conversion; a colour palette image (GIF, 8-bit PNG) was read as grey."""
    from PIL import Image

    from lowdim.io import read_image

    ramp = np.linspace(0, 65535, 64 * 32).reshape(64, 32).astype(np.uint16)
    Image.fromarray(ramp).save(tmp_path / "deep.png")
    deep = read_image(str(tmp_path / "deep.png"))
    np.testing.assert_allclose(deep, ramp / 65535.0, rtol=0, atol=1e-12)  # the whole range, every level
    colours = np.zeros((8, 8, 3), np.uint8)
    colours[:4, :, 0], colours[4:, :, 2] = 255, 255  # red over blue
    Image.fromarray(colours).convert("P").save(tmp_path / "palette.png")
    read = read_image(str(tmp_path / "palette.png"))
    assert read.shape == (8, 8, 3) and read[0, 0].tolist() == [1.0, 0.0, 0.0] and read[7, 7].tolist() == [0.0, 0.0, 1.0]
    assert read_image(str(tmp_path / "palette.png"), grey=True).shape == (8, 8)
    Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8)).convert("P").save(tmp_path / "grey_palette.png")
    assert read_image(str(tmp_path / "grey_palette.png")).tolist() == (np.arange(64).reshape(8, 8) / 255).tolist()


def test_blank_lines_inside_a_table_are_skipped_and_later_lines_keep_their_numbers(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("\na,b\n1,2\n\n3,4\n   \n5,6\n\n")
    table = read_table(str(path))
    assert table.X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert any("skipped 2 blank line(s) inside the table (line 4, 6)" in note for note in table.notes)
    path.write_text("a,b\n1,2\n\n3,4\n5,oops\n")
    with pytest.raises(DataFileError, match=r"line 5, column 2: 'oops' is not a number"):
        read_table(str(path))
    path.write_text("a\n1\n\n3\n")  # one column: a blank line is a gap
    assert np.isnan(read_table(str(path), missing="keep").X[1, 0])


def test_a_separator_at_the_end_of_each_line_adds_no_column(tmp_path):
    path = tmp_path / "trailing.csv"
    path.write_text("a,b,\n1,2,\n3,4,\n")
    table = read_table(str(path))
    assert table.feature_names == ["a", "b"] and table.X.tolist() == [[1, 2], [3, 4]]
    assert any("column(s) 3 have no name and no value" in note for note in table.notes)
    path.write_text("1,2,\n3,4,\n")  # no header: the empty last cell does not make the first row one
    assert read_table(str(path)).X.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("gap", ["", "NA", "nan"])
def test_a_first_data_row_with_a_gap_is_data_not_a_header(tmp_path, gap):
    path = tmp_path / "gap.csv"
    path.write_text(f"1,{gap},3\n4,5,6\n")
    table = read_table(str(path), missing="keep")
    assert table.X.shape == (2, 3) and np.isnan(table.X[0, 1]) and table.X[1].tolist() == [4, 5, 6]


def test_comment_lines_before_the_table_are_skipped_and_a_hash_header_kept(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("# exported by a logger\n# on 2026-01-01, in mm\nsize,mass\n1,2\n3,x\n")
    with pytest.raises(DataFileError, match=r"line 5, column 2: 'x' is not a number"):  # the file's own lines
        read_table(str(path))
    path.write_text("# exported by a logger\n# on 2026-01-01, in mm\nsize,mass\n1,2\n3,4\n")
    table = read_table(str(path))
    assert table.feature_names == ["size", "mass"] and table.X.tolist() == [[1, 2], [3, 4]]
    assert any("skipped 2 comment line(s) before the table (line 1, 2" in note for note in table.notes)
    path.write_text("# one comment\n#chrom,start\n1,2\n3,4\n")  # BED's and VCF's '#' header
    table = read_table(str(path))
    assert table.feature_names == ["#chrom", "start"] and table.X.tolist() == [[1, 2], [3, 4]]


def test_a_last_row_of_column_totals_or_means_is_left_out_and_said(tmp_path):
    # a report's "Total" row read as a sample stands n times the mean away and leads PCA
    rows = [["North", 120, 10], ["South", 80, 7], ["East", 95, 9], ["West", 60, 5]]
    body = "region,sales,staff\n" + "".join(f"{r},{s},{t}\n" for r, s, t in rows)
    (tmp_path / "t.csv").write_text(body + "Total,355,31\n")
    table = read_table(str(tmp_path / "t.csv"))
    assert table.X.tolist() == [[s, t] for _, s, t in rows] and table.row_ids.tolist() == [
        "North",
        "South",
        "East",
        "West",
    ]
    assert any("the last row ('Total') holds the totals of the columns" in note for note in table.notes)
    (tmp_path / "m.csv").write_text(body + "Average,88.8,7.8\n")  # means rounded as a report shows them
    assert read_table(str(tmp_path / "m.csv")).X.shape == (4, 2)
    # unnamed, a row is a total only when every column adds up exactly, over two or more
    (tmp_path / "s.csv").write_text("a,b\n1,2\n3,4\n5,6\n9,12\n")
    assert read_table(str(tmp_path / "s.csv")).X.shape == (3, 2)
    for last in ("9,12.5", "9,"):
        (tmp_path / "k.csv").write_text(f"a,b\n1,2\n3,4\n5,6\n{last}\n")
        assert read_table(str(tmp_path / "k.csv"), missing="keep").X.shape == (4, 2)
    (tmp_path / "one.csv").write_text("a\n1\n2\n3\n6\n")  # one column: a coincidence is too likely
    assert read_table(str(tmp_path / "one.csv")).X.shape == (4, 1)
    # Parquet and labels alike: the label of the row says it
    import pandas as pd

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 6.0], "y": ["a", "b", "a", "all"]})
    frame.to_parquet(tmp_path / "t.parquet")
    read = read_table(str(tmp_path / "t.parquet"), label_column="y")
    assert read.X[:, 0].tolist() == [1.0, 2.0, 3.0] and read.labels.tolist() == ["a", "b", "a"]


def test_r_write_table_of_one_column_keeps_its_header_one_name_short(tmp_path):
    # a header of one name above rows of a row name and a number is R's header one short,
    # not a title above the table
    (tmp_path / "r.csv").write_text('"a"\n"r1",1.5\n"r2",2\n"r3",4\n')
    table = read_table(str(tmp_path / "r.csv"))
    assert table.feature_names == ["a"] and table.row_ids.tolist() == ["r1", "r2", "r3"]
    assert table.X[:, 0].tolist() == [1.5, 2.0, 4.0]


def test_the_total_row_check_reads_tables_with_repeated_or_empty_names(tmp_path):
    # categories are kept by name: two columns of one name had the other's levels looked up
    # (the last row's code 3 of one column was looked up among the 2 levels of the other)
    lines = [",c0,,c1,", "s0,-25,big,-9,blue", "s1,19,red,29,blue", "s2,36,blue,32,red", "s3,-16,green,51,blue"]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the repeated (empty) names' warning
        assert read_table(str(tmp_path / "t.csv")).X.shape == (4, 4)


def test_reading_a_csv_leaves_the_cycle_collector_as_it_found_it(tmp_path):
    # the reader pauses Python's collector while it holds the cells (a wide table's reading
    # spent a sixth of its time in collections); it must come back on, and stay off if off
    import gc

    (tmp_path / "t.csv").write_text("a,b\n1,2\n3,4\n")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n3\n")
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            read_table(str(tmp_path / "t.csv"))
            assert gc.isenabled() is enabled
            with pytest.raises(DataFileError, match="expected 2 fields"):
                read_table(str(tmp_path / "bad.csv"))
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def _random_cell(rng, kind):
    """A cell of a random table's column of ``kind`` (a gap written NA: an empty cell alone on
    its line is a blank line)."""
    if rng.random() < 0.08:
        return "NA"
    if kind == "num":
        return repr(round(rng.uniform(-100, 100), 2))
    if kind == "int":
        return str(rng.randint(0, 20))
    if kind == "cat":
        return rng.choice(["red", "blue", "big small"])
    if kind == "date":
        return f"2021-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    return "".join(rng.choice("abcdefgh") for _ in range(5))


def test_random_plain_tables_meet_none_of_the_layout_rules(tmp_path):
    # titles, notes, two-row headers and total rows are found by narrow rules: a plain
    # table (header or none, row names of R or pandas, gaps, words, dates, a blank line)
    # keeps every row and never gets one of their notes
    import random

    said = ("title", "note line", "note row", "first two rows", "totals of the columns", "means of the columns")
    for seed in range(200):
        rng = random.Random(seed)
        kinds = [rng.choice(["num", "int", "cat", "date", "word"]) for _ in range(rng.randint(1, 5))]
        n, ids = rng.randint(2, 10), rng.choice([None, "", "id"])  # no header; R/pandas row names; named ids
        head = [] if ids is None else [",".join([ids, *(f"c{j}" for j in range(len(kinds)))])]
        rows = [
            ",".join(([f"s{i}"] if ids is not None else []) + [_random_cell(rng, k) for k in kinds]) for i in range(n)
        ]
        lines = head + rows
        if rng.random() < 0.2:
            lines.insert(rng.randint(len(head) + 1, len(lines)), "")
        (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = read_table(str(tmp_path / "t.csv"), missing="keep", header="no" if ids is None else "yes")
        except DataFileError:
            continue  # a table the reader refuses (a word among numbers): refused before the rules too
        assert table.X.shape[0] == n, (seed, lines)
        assert not any(word in note for note in table.notes for word in said), (seed, lines, table.notes)
