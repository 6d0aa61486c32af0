"""Stata (.dta) and SPSS (.sav) files read as the same table in CSV reads: value labels
as categories, each format's missing codes as gaps, dates as dates; damaged files and
files too large refused by name."""

import numpy as np
import pandas as pd
import pyreadstat
import pytest

from lowdim.cli.main import main
from lowdim.exceptions import DataFileError
from lowdim.io import read_table

N = 60
RNG = np.random.default_rng(0)
AGE = RNG.normal(45, 12, N).round()
REGION = RNG.integers(1, 4, N)
NAMES = {1: "North", 2: "South", 3: "East"}
DAYS = pd.date_range("2021-01-01", periods=N, freq="D")


def _csv(path, age):
    """The table as its CSV export would hold it: the labels' text, empty cells for gaps."""
    frame = pd.DataFrame({"age": age, "region": [NAMES[r] for r in REGION], "visit": DAYS.strftime("%Y-%m-%d")})
    frame.to_csv(path, index=False)
    return read_table(str(path), missing="keep")


def _same(read, text):
    np.testing.assert_array_equal(read.X, text.X)  # NaN where NaN, the same numbers, codes and days
    assert read.feature_names == text.feature_names == ["age", "region", "visit"]
    assert read.kinds == text.kinds and read.levels == text.levels


def test_a_stata_file_reads_as_its_csv_export(tmp_path):
    age = AGE.copy()
    age[::7] = np.nan  # Stata's missing value '.'
    frame = pd.DataFrame({"age": age, "region": REGION, "visit": DAYS})
    frame.to_stata(tmp_path / "t.dta", write_index=False, convert_dates={"visit": "td"}, value_labels={"region": NAMES})
    read = read_table(str(tmp_path / "t.dta"), missing="keep")
    _same(read, _csv(tmp_path / "t.csv", age))
    said = " ".join(read.notes)
    assert (
        "Stata file, 60 rows x 3 columns" in said and "1 column(s) of value labels read as categories (region)" in said
    )
    # a column of codes whose labels name no order is not ranked, unless told
    ranked = read_table(str(tmp_path / "t.dta"), ordinal={"region": ["North", "South", "East"]}, missing="keep")
    np.testing.assert_array_equal(ranked.X[:, 1], REGION - 1)


def test_an_spss_file_reads_as_its_csv_export_with_its_missing_codes_as_gaps(tmp_path):
    age = AGE.copy()
    age[::5] = 99  # SPSS's user-missing code ('refused'), declared in the file
    frame = pd.DataFrame({"age": age, "region": REGION.astype(float), "visit": DAYS})
    labels = {"region": {float(k): v for k, v in NAMES.items()}}
    pyreadstat.write_sav(frame, tmp_path / "t.sav", variable_value_labels=labels, missing_ranges={"age": [99]})
    read = read_table(str(tmp_path / "t.sav"), missing="keep")
    _same(read, _csv(tmp_path / "t.csv", np.where(age == 99, np.nan, age)))
    assert np.isnan(read.X[:, 0]).sum() == 12


def test_the_command_line_maps_a_survey_coloured_by_a_labelled_column(tmp_path):
    frame = pd.DataFrame({"age": AGE, "score": RNG.normal(size=N), "region": REGION})
    frame.to_stata(tmp_path / "s.dta", write_index=False, value_labels={"region": NAMES})
    out = tmp_path / "map.csv"
    assert main(["embed", str(tmp_path / "s.dta"), "-m", "pca", "--label-column", "region", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "pca1,pca2,region" and len(lines) == N + 1
    assert {line.rsplit(",", 1)[1] for line in lines[1:]} == set(NAMES.values())


def test_a_stata_file_whose_labels_name_two_codes_keeps_its_codes_and_says_so(tmp_path):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [1, 2, 1, 2]})
    frame.to_stata(tmp_path / "d.dta", write_index=False, value_labels={"g": {1: "same", 2: "same"}})
    read = read_table(str(tmp_path / "d.dta"))
    assert read.X.tolist() == [[1, 1], [2, 2], [3, 1], [4, 2]] and read.kinds == ["numeric", "numeric"]
    assert any("a value label stands for two codes in some column" in note for note in read.notes)


def test_damaged_renamed_and_oversized_files_are_refused_by_name(tmp_path):
    frame = pd.DataFrame({"age": AGE, "region": REGION})
    frame.to_stata(tmp_path / "t.dta", write_index=False, value_labels={"region": NAMES})
    pyreadstat.write_sav(frame.astype(float), tmp_path / "t.sav")
    for name, kind in (("t.dta", "Stata"), ("t.sav", "SPSS")):
        data = (tmp_path / name).read_bytes()
        cut = tmp_path / f"cut_{name}"
        cut.write_bytes(data[: len(data) // 2])
        with pytest.raises(DataFileError, match=f"cut_{name}: not a readable {kind} file"):
            read_table(str(cut))
        renamed = tmp_path / f"{name}.csv"
        renamed.write_bytes(data)
        with pytest.raises(DataFileError, match=f"it is an? {kind} data file, not text: read it by a name ending in"):
            read_table(str(renamed))
    with pytest.raises(DataFileError, match="needs more than the memory allowed"):
        read_table(str(tmp_path / "t.dta"), max_bytes=100)
