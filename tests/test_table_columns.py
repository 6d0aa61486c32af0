"""Tables as users save them: Parquet files from pandas (an index, categories, ordered
categories, booleans, dates, gaps) and CSV files with dates read the way the CSV reader
reads text, so the same table means the same numbers whichever format carries it."""

import json
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import lowdim
from lowdim.cli.main import main
from lowdim.exceptions import DataFileError
from lowdim.io import read_lazy, read_table
from lowdim.preprocessing import mixed_codes

DAY = 86400.0


def _people(n=12):
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 10, n).round(1),
            "city": rng.choice(["Lyon", "Nice", "Paris"], n),
            "member": rng.random(n) < 0.5,
            "joined": pd.date_range("2020-01-01", periods=n, freq="37h"),
        }
    )


def test_a_pandas_index_is_row_names_never_a_feature(tmp_path):
    """A filtered frame keeps its row numbers as an index, which pandas stores as a
    column: read as a feature, it would add the row order to every distance."""
    frame = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) ** 2})
    kept = frame[frame.a % 3 == 0]  # index 0, 3, 6, 9
    kept.to_parquet(tmp_path / "kept.parquet")
    table = read_table(str(tmp_path / "kept.parquet"))
    assert table.feature_names == ["a", "b"] and table.X.shape == (4, 2)
    assert table.row_ids.tolist() == ["0", "3", "6", "9"]
    assert any("pandas index" in note for note in table.notes)
    lazy = read_lazy(str(tmp_path / "kept.parquet"))  # the out-of-core reader leaves it out as well
    assert lazy.feature_names == ["a", "b"] and lazy.X.shape == (4, 2)
    frame.set_index(pd.Index([f"r{i}" for i in range(10)], name="sample")).to_parquet(tmp_path / "named.parquet")
    named = read_table(str(tmp_path / "named.parquet"))
    assert named.feature_names == ["a", "b"] and named.row_ids[0] == "r0"


def test_parquet_and_csv_read_the_same_mixed_table_to_the_same_numbers(tmp_path):
    people = _people()
    people.loc[[2, 5], "city"] = None
    people.loc[4, "age"] = np.nan
    people.to_parquet(tmp_path / "people.parquet", index=False)
    people.to_csv(tmp_path / "people.csv", index=False)
    from_parquet = read_table(str(tmp_path / "people.parquet"))
    from_csv = read_table(str(tmp_path / "people.csv"))
    assert from_parquet.kinds == from_csv.kinds == ["numeric", "categorical", "categorical", "numeric"]
    assert from_parquet.levels == from_csv.levels == {"city": ["Lyon", "Nice", "Paris"], "member": ["False", "True"]}
    np.testing.assert_array_equal(from_parquet.X, from_csv.X)
    # dates are days since 1970-01-01: 2020-01-01 is day 18262, the rows 37 hours apart
    np.testing.assert_allclose(from_csv.X[:, 3], 18262 + np.arange(12) * 37 / 24, rtol=0, atol=1e-6)
    assert any("'joined' read as dates" in note for note in from_parquet.notes + from_csv.notes)


def test_parquet_ordered_categories_keep_their_order_and_options_apply(tmp_path):
    frame = pd.DataFrame(
        {
            "size": pd.Categorical(["M", "S", "L", "M"], categories=["S", "M", "L"], ordered=True),
            "region": [3, 1, 3, 2],
            "grade": ["low", "high", "mid", "low"],
            "x": [0.5, 1.5, 2.5, 3.5],
        },
        index=pd.Index(["a", "b", "c", "d"], name="id"),
    )
    frame.to_parquet(tmp_path / "f.parquet")
    table = read_table(str(tmp_path / "f.parquet"), categorical=["region"], ordinal={"grade": ["low", "mid", "high"]})
    assert table.kinds == ["ordinal", "categorical", "ordinal", "numeric"]
    assert table.X[:, 0].tolist() == [1, 0, 2, 1]  # the file's order S < M < L, not the alphabet's
    assert table.levels["region"] == ["1", "2", "3"] and table.X[:, 2].tolist() == [0, 2, 1, 0]
    assert table.row_ids.tolist() == ["a", "b", "c", "d"]
    by_column = read_table(str(tmp_path / "f.parquet"), index_column="x")
    assert by_column.row_ids.tolist() == ["0.5", "1.5", "2.5", "3.5"] and "x" not in by_column.feature_names


def test_parquet_columns_without_a_value_per_row_are_refused_by_name(tmp_path):
    pq.write_table(pa.table({"a": [1.0, 2.0], "tags": [[1, 2], [3]]}), tmp_path / "nested.parquet")
    with pytest.raises(DataFileError, match="column 'tags' has type list<.*int64>.*--exclude"):
        read_table(str(tmp_path / "nested.parquet"))
    assert read_table(str(tmp_path / "nested.parquet"), exclude=["tags"]).X.tolist() == [[1.0], [2.0]]


def test_parquet_integers_beyond_float_precision_are_read_as_the_nearest_floats(tmp_path):
    # pyarrow's safe cast refused them with its own words ("Integer value ... not in range")
    big = np.array([2**62 + 1, 2**53 + 1, 7], dtype=np.uint64)
    columns = {"a": [1.0, 2.0, 3.0], "big": big, "signed": -big.astype(np.int64)}
    pq.write_table(pa.table(columns), tmp_path / "b.parquet")
    table = read_table(str(tmp_path / "b.parquet"))
    np.testing.assert_array_equal(table.X[:, 1], big.astype(np.float64))  # numpy's rounding, to the nearest
    np.testing.assert_array_equal(table.X[:, 2], -big.astype(np.int64).astype(np.float64))


def test_parquet_durations_are_read_as_seconds_and_said_so(tmp_path):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "took": pd.to_timedelta([1.5, 60, 3600], unit="s")})
    frame.to_parquet(tmp_path / "t.parquet")
    table = read_table(str(tmp_path / "t.parquet"))
    assert table.X[:, 1].tolist() == [1.5, 60.0, 3600.0]
    assert any("column 'took' holds durations; read as seconds" in note for note in table.notes)


def test_csv_dates_are_days_unless_declared_categories(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("when,x,note\n2021-03-01,1,a\n2021-03-02T12:00,2,b\n,3,2021-01-01\n2021-03-01 06:00+06:00,4,a\n")
    table = read_table(str(path))
    np.testing.assert_allclose(table.X[:, 0], [18687.0, 18688.5, np.nan, 18687.0], rtol=0, atol=1e-9)
    assert table.kinds == ["numeric", "numeric", "categorical"]  # a word among dates: categories
    declared = read_table(str(path), categorical=["when"])
    assert declared.kinds[0] == "categorical" and len(declared.levels["when"]) == 3
    # a local date format (first of March or third of January?) is never guessed at
    (tmp_path / "local.csv").write_text("when,x,name\n01/03/2021,1,ann\n02/03/2021,2,bob\n01/03/2021,3,cy\n")
    local = read_table(str(tmp_path / "local.csv"))
    assert local.kinds == ["categorical", "numeric", "categorical"]
    said = " ".join(local.notes)
    assert "look like dates in a local format: written as ISO 8601" in said  # what to do instead
    assert "'name' read as categories (3 levels: ann, bob, cy); a different text in every row" in said


def test_mixed_codes_reads_datetime_columns_as_days():
    frame = pd.DataFrame(
        {"t": pd.to_datetime(["1970-01-02", None]), "z": pd.to_datetime(["1970-01-02"] * 2).tz_localize("Etc/GMT-12")}
    )
    codes = mixed_codes(frame)
    assert codes.kinds == ["numeric", "numeric"] and codes.levels == {}
    np.testing.assert_allclose(codes.X, [[1.0, 0.5], [np.nan, 0.5]])  # noon of day 0 in UTC


def test_cli_maps_a_mixed_parquet_file_and_transforms_a_new_one(tmp_path):
    people = _people(40)
    people.to_parquet(tmp_path / "train.parquet")
    model, out = tmp_path / "m.lowdim", tmp_path / "map.csv"
    common = ["--seed", "0", "--save-model", str(model), "-o", str(out)]
    assert main(["embed", str(tmp_path / "train.parquet"), "-m", "famd", *common]) == 0
    people.iloc[::-1].to_parquet(tmp_path / "new.parquet")  # the same rows, reversed
    again = tmp_path / "again.csv"
    assert main(["transform", str(model), str(tmp_path / "new.parquet"), "-o", str(again)]) == 0
    first, second = (pd.read_csv(f).filter(like="famd").to_numpy() for f in (out, again))
    assert first.shape == (40, 2)
    np.testing.assert_allclose(second[::-1], first, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("make", [lambda: lowdim.PCA(1), lambda: lowdim.UMAP(n_neighbors=2)])
def test_a_dataframe_of_categories_or_dates_is_refused_with_the_way_to_read_it(make):
    people = _people(6)
    with pytest.raises(ValueError, match=r"'Nice' \(type str\) at row 0, column 1 \('city'\).*mixed_codes"):
        make().fit(people[["age", "city"]])
    with pytest.raises(TypeError, match=r"column 1 \('joined'\).*as_days"):
        make().fit(people[["age", "joined"]])
    cells = np.array([[1.0, 2.0], [3.0, None], [5.0, 6.0]], dtype=object)
    cells[1, 1] = {"a": 1}  # neither a number nor a category
    with pytest.raises(
        TypeError, match=r"value \{'a': 1\} \(type dict\) at row 1, column 1 \(.*convert it to a number"
    ):
        make().fit(cells)
    # numpy's text and a DataFrame's numpy column names quoted as Python writes them (not np.str_('Nice'))
    with pytest.raises(ValueError, match=r"non-numeric dtype <U\d+ \(first value 'Nice' if any\)"):
        make().fit(people[["city", "city"]].to_numpy().astype(str))
    named = people[["age", "city"]].set_axis(np.array(["age", "city"], dtype=object).astype(str), axis=1)
    with pytest.raises(ValueError, match=r"column 1 \('city'\)"):
        make().fit(named)


def test_a_gap_of_a_nullable_pandas_column_is_a_gap_not_a_non_number():
    """pandas' Int64/Float64/boolean columns mark a gap with pd.NA: a method that takes gaps
    fits, the others name the gap (they called it a non-numeric value to convert)."""
    frame = pd.DataFrame(
        {
            "count": pd.array([1, 2, None, 4, 5, 6, 7, 9], dtype="Int64"),
            "ok": pd.array([True, False, True, None, False, True, True, False], dtype="boolean"),
            "size": [1.0, 2, 3, 4, 5, 7, 6, 8],
        }
    )
    model = lowdim.ProbabilisticPCA(1, random_state=0).fit(frame)
    assert np.isfinite(model.components_).all() and model.feature_names_in_.tolist() == ["count", "ok", "size"]
    # the gap is named by its column: PCA finds it from its sums, the others by scanning
    for model in (lowdim.PCA(1), lowdim.IncrementalPCA(1), lowdim.KMeans(2, random_state=0), lowdim.FastICA(1)):
        with pytest.raises(ValueError, match=r"contains NaN at row 2, column 0 \('count'\) \(2 non-finite"):
            model.fit(frame)
    full = frame.dropna()
    np.testing.assert_allclose(lowdim.PCA(1).fit(full).mean_, full.to_numpy(dtype=float).mean(axis=0), rtol=1e-12)


def test_a_table_lowdim_wrote_reads_back_with_its_labels_and_row_names_apart(tmp_path):
    """A map written with labels and row ids, read again to cluster it: the labels are no
    feature (numbers such as iris's 0, 1, 2 would enter every distance unannounced)."""
    from lowdim.io import write_table

    Y, labels = np.arange(8.0).reshape(4, 2), np.array([0, 1, 1, 0])
    write_table(tmp_path / "map.parquet", Y, ["umap1", "umap2"], labels=labels, row_ids=["a", "b", "c", "d"])
    table = read_table(str(tmp_path / "map.parquet"))
    assert table.feature_names == ["umap1", "umap2"] and table.labels.tolist() == ["0", "1", "1", "0"]
    assert table.row_ids.tolist() == ["a", "b", "c", "d"]
    lazy = read_lazy(str(tmp_path / "map.parquet"))
    assert lazy.feature_names == ["umap1", "umap2"] and lazy.labels.compute().tolist() == ["0", "1", "1", "0"]
    assert read_table(str(tmp_path / "map.parquet"), exclude=["label"]).labels is None
    other = read_table(str(tmp_path / "map.parquet"), label_column="umap2")  # the recorded labels stay out
    assert other.feature_names == ["umap1"] and other.labels.tolist() == ["1.0", "3.0", "5.0", "7.0"]
    write_table(tmp_path / "map.csv", Y, ["umap1", "umap2"], labels=labels)  # a CSV file records no roles
    with pytest.warns(UserWarning, match="column 'label' is read as a feature.*--label-column label"):
        assert read_table(str(tmp_path / "map.csv")).feature_names == ["umap1", "umap2", "label"]


def test_a_typeset_minus_sign_is_read_as_a_minus(tmp_path):
    """Tables copied from web pages and PDFs write negatives with U+2212: a number, not a category."""
    (tmp_path / "t.csv").write_text("x,y\n\u22125,1.5\n2,\u22120.25\n", encoding="utf-8")
    table = read_table(str(tmp_path / "t.csv"))
    assert table.kinds == ["numeric", "numeric"] and table.X.tolist() == [[-5.0, 1.5], [2.0, -0.25]]


def test_a_files_own_mark_for_a_gap_is_named_and_read_with_na_values(tmp_path):
    """UCI's files write '?' for a missing value: in a column of numbers it stops the reader
    with the option to pass, in a column of categories it is named in the note."""
    path = tmp_path / "uci.csv"
    path.write_text("size,nuclei,shape\n5,1,round\n3,?,?\n4,10,flat\n2,NULL,round\n")
    with pytest.raises(DataFileError, match=r"line 3, column 2: '\?' is not a number; .*--na-values '\?'"):
        read_table(str(path))
    (tmp_path / "cat.csv").write_text("size,shape\n5,round\n3,?\n4,flat\n")
    assert "'?' looks like a mark for a missing value: --na-values '?'" in " ".join(
        read_table(str(tmp_path / "cat.csv")).notes
    )
    table = read_table(str(path), na_values=["?"])
    assert table.kinds == ["numeric", "numeric", "categorical"] and table.levels["shape"] == ["flat", "round"]
    np.testing.assert_array_equal(np.isnan(table.X), [[0, 0, 0], [0, 1, 1], [0, 0, 0], [0, 1, 0]])  # NULL a gap too
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "grade": ["a", "?", "b"]})
    frame.to_parquet(tmp_path / "uci.parquet")
    assert np.isnan(read_table(str(tmp_path / "uci.parquet"), na_values=["?"]).X[1, 1])
    with pytest.raises(DataFileError, match="--na-values marks the gaps among text cells"):
        np.save(tmp_path / "x.npy", np.ones((3, 2)))
        read_table(str(tmp_path / "x.npy"), na_values=["?"])


def test_explore_shows_a_files_dates_as_dates(tmp_path):
    from test_explore import unpack

    people = _people(30)
    people.to_csv(tmp_path / "people.csv", index=False)
    out = tmp_path / "map.html"
    code = main(
        ["explore", str(tmp_path / "people.csv"), "--methods", "umap", "--columns", "joined,age", "-o", str(out)]
    )
    assert code == 0
    header, blob = unpack(out.read_text())
    fields = {f["name"]: f for f in header["fields"]}
    assert fields["joined"]["date"] and fields["joined"]["origin"] == 18262.0 and "date" not in fields["age"]
    np.testing.assert_allclose(blob(fields["joined"])[:3], [0, 37 / 24, 74 / 24], rtol=1e-6)


def test_info_counts_the_columns_by_kind(tmp_path, capsys):
    _people(10).to_parquet(tmp_path / "people.parquet")
    assert main(["info", str(tmp_path / "people.parquet")]) == 0
    assert "10 rows x 4 columns: 1 of numbers, 2 of categories (city, member), 1 of dates (joined)" in (
        capsys.readouterr().out
    )
    assert main(["info", str(tmp_path / "people.parquet"), "--json"]) == 0
    columns = json.loads(capsys.readouterr().out)["columns"]
    assert columns == {"numeric": ["age"], "categorical": ["city", "member"], "ordinal": [], "date": ["joined"]}


def test_info_says_which_methods_refuse_a_mixed_tables_columns_as_their_fits_do(tmp_path, capsys):
    assert main(["info", "--dataset", "penguins", "--json"]) == 0
    refusing = json.loads(capsys.readouterr().out)["refuse_categories"]
    assert refusing["pca"] == refusing["kmeans"] == "numbers: refuses the category columns"
    assert refusing["mca"] == refusing["kmodes"] == "categories: refuses the number columns"
    assert not {"famd", "kprototypes", "umap", "phate", "kmedoids", "agglomerative"} & set(refusing)
    # what info says is what a fit does
    for command, name in [("embed", "trimap"), ("embed", "mca"), ("cluster", "gmm"), ("embed", "phate")]:
        out = tmp_path / f"{name}.csv"
        k = ["-k", "3"] if command == "cluster" else []
        assert main([command, "--dataset", "penguins", "-m", name, *k, "-o", str(out), "--quiet"]) == (
            2 if name in refusing else 0
        )
    capsys.readouterr()
    assert main(["info", "--dataset", "iris", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["refuse_categories"] == {}


def test_new_rows_of_a_category_column_stay_categories_whatever_they_look_like():
    """Fitted on a text column, a model codes new rows of it by its levels even when those
    rows happen to be all numbers or all dates (read as a quantity, 3 would be a code)."""
    fitted = mixed_codes([["a", 1.0], ["2020-01-02", 2.0], ["3", 3.0]])
    assert fitted.kinds == ["categorical", "numeric"]
    for new in ([["3", 1.0], ["2020-01-02", 2.0]], [["2020-01-02", 1.0]], [["3", 1.0]]):
        codes = mixed_codes(new, levels=fitted.levels)
        assert codes.kinds[0] == "categorical"
        assert codes.X[:, 0].tolist() == [fitted.levels["x0"].index(row[0]) for row in new]


@pytest.mark.parametrize("name", ["target", "Class", "labels"])
def test_a_column_named_as_class_labels_read_as_a_feature_is_named_with_the_fix(tmp_path, name):
    """``load_wine(as_frame=True).frame.to_csv(path)`` writes the classes as 'target', UCI
    files as 'class': read as a feature, the answer joins the data (it separates the
    classes by construction), so the reader says so once, with the option that keeps it out."""
    path = tmp_path / "t.csv"
    path.write_text(f"a,b,{name}\n1.0,2.0,0\n2.0,1.0,1\n3.0,0.5,1\n")
    with pytest.warns(UserWarning, match=f"column '{name}' is read as a feature.*--label-column {name}") as seen:
        assert read_table(str(path)).feature_names == ["a", "b", name]
    assert len([w for w in seen if "is read as a feature" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_table(str(path), label_column=name).labels.tolist() == ["0", "1", "1"]
        assert read_table(str(path), exclude=[name]).feature_names == ["a", "b"]
        (tmp_path / "points.csv").write_text("x,y\n1.0,2.0\n2.0,1.0\n")  # coordinates, not an answer
        assert read_table(str(tmp_path / "points.csv")).feature_names == ["x", "y"]
