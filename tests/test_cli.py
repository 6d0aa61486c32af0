"""The lowdim command line: outputs, announced header handling, errors and exit codes."""

import json
import re

import numpy as np
import pytest

import lowdim
from lowdim.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pca_on_builtin_digits_writes_table_projection_and_scree(tmp_path, capsys):
    out, scree = tmp_path / "z.csv", tmp_path / "scree.png"
    code, text, _ = run(
        capsys,
        "pca",
        "--dataset",
        "digits",
        "--variance",
        "0.9",
        "-o",
        str(out),
        "--scree",
        str(scree),
        "--embedding-dims",
        "2",
    )
    assert code == 0
    assert "kept 21 components" in text and "cumulative" in text
    Z = np.loadtxt(out, delimiter=",", skiprows=1)
    assert Z.shape == (1797, 3)  # PC1, PC2 and the digit label
    assert out.read_text().splitlines()[0] == "PC1,PC2,digit"
    assert scree.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_csv_header_is_announced_and_labels_excluded(tmp_path, capsys):
    path = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    rows = ["a,b,c,label"] + [
        f"{x:.4f},{y:.4f},{z:.4f},{'cat' if i % 2 else 'dog'}" for i, (x, y, z) in enumerate(rng.normal(size=(30, 3)))
    ]
    path.write_text("\n".join(rows) + "\n")
    code, text, _ = run(capsys, "pca", str(path), "-k", "2", "--label-column", "label")
    assert code == 0 and "first row read as a header (4 columns)" in text
    headerless = tmp_path / "h.csv"
    headerless.write_text("\n".join(rows[1:6]).replace(",cat", "").replace(",dog", "") + "\n")
    code, text, _ = run(capsys, "pca", str(headerless), "-k", "1")
    assert code == 0 and "read as data (no header)" in text and "5 x 3" in text


@pytest.mark.parametrize(
    "content, message",
    [
        ("a,b\n1,2\n3\n", "line 3: expected 2 fields, got 1"),
        ("a,b\n1,2\n3,x\n", "line 3, column 2: 'x' is not a number"),
        ("a,b\n1,2\n3,\n", "1 missing values ('b': 1); pass --missing drop, impute or keep"),
        ("a,b\n", "header only, no data rows"),
        ("", "empty file"),
        ("a;b\n1.5;2\n", "every line is one field, with another separator in each. The file looks ';'-separated"),
        ("a;b\n1,5;2\n--delimiter=;", "line 2, column 1: '1,5' is not a number; a decimal comma"),
        ('a,b\n"1,234.5",2\n', "thousands separators"),
        # numbers written for reading: an error naming the cell, never row names or categories
        ("a,b\n12%,1\n15%,2\n", "line 2, column 1: '12%' is not a number; percent signs are not read"),
        ('a,b\n"$1,200",1\n$900,2\n', "'$1,200' is not a number; currency signs are not read"),
        ("a,b\n(12),1\n(3),2\n", "'(12)' is not a number; negatives in parentheses are not read"),
        ("a,b\n1 234,1\n2 345,2\n", "'1 234' is not a number; thousands separators"),
        # a Fortran program's output: a different text in every row was read as row names
        ("a,b\n1.0D+00,2.0D-01\n3.0D+00,4.0D-01\n", "'1.0D+00' is not a number; a Fortran exponent"),
    ],
)
def test_bad_csv_gets_one_clear_sentence_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    content, _, option = content.partition("--")
    path.write_text(content)
    code, _, err = run(capsys, "pca", str(path), "-k", "1", *(["--" + option] if option else []))
    assert code == 2 and message in err and "Traceback" not in err


def test_npy_header_declaring_huge_shape_is_refused_before_allocating(tmp_path, capsys):
    path = tmp_path / "huge.npy"
    header = np.lib.format.header_data_from_array_1_0(np.zeros((2, 2)))
    header["shape"] = (10**9, 10**6)
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        fh.write(b"\x00" * 64)
    code, _, err = run(capsys, "pca", str(path), "-k", "1")
    assert code == 2 and "header declares shape (1000000000, 1000000)" in err


def test_existing_output_is_kept_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "z.csv"
    out.write_text("precious")
    code, _, err = run(capsys, "pca", "--dataset", "iris", "-k", "2", "-o", str(out))
    assert code == 2 and "exists; pass --overwrite" in err and out.read_text() == "precious"
    code, _, _ = run(capsys, "pca", "--dataset", "iris", "-k", "2", "-o", str(out), "--overwrite")
    assert code == 0 and out.read_text().startswith("PC1,PC2")


def test_json_summary_and_select_mle(capsys):
    code, text, _ = run(capsys, "pca", "--dataset", "wine", "--standardize", "--select", "mle", "--json")
    summary = json.loads(text)
    assert code == 0 and summary["command"] == "pca" and summary["n_components"] >= 1
    assert abs(sum(summary["explained_variance_ratio"])) <= 1.0


def test_usage_errors(capsys, tmp_path):
    assert run(capsys, "pca", str(tmp_path / "missing.csv"))[0] == 2
    code, _, err = run(capsys, "pca", "--dataset", "iris", "-k", "9")
    assert code == 2 and "n_components=9" in err
    assert main([]) == 2


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["embed", "--k", "3"], "did you mean -k/--n-components or --key?"),  # was read as --key 3, silently
        (["cluster", "--k", "3"], "did you mean -k/--n-clusters, --key or --k-range?"),
        (["embed", "--stand"], "did you mean --standardize?"),  # an abbreviation is named, not guessed
        (["pca", "--sed", "1"], "did you mean --seed?"),
        (["embed", "--colour", "x"], "see lowdim embed --help."),
    ],
)
def test_an_unknown_or_abbreviated_option_is_an_error_naming_what_it_may_mean(capsys, tmp_path, argv, hint):
    out = tmp_path / "out.csv"
    with pytest.raises(SystemExit) as done:
        main([*argv, "--dataset", "iris", "-o", str(out)])
    err = capsys.readouterr().err
    assert done.value.code == 2 and f"unrecognized option {argv[1]}; {hint}" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["embed", "--dataset", "iris", "-m", "pca"],
        ["pca", "--dataset", "iris", "-k", "2"],
        ["cluster", "--dataset", "iris", "-k", "3"],
    ],
)
def test_minus_as_the_output_writes_the_table_as_csv_to_standard_output_and_messages_to_stderr(tmp_path, capsys, argv):
    code, text, err = run(capsys, *argv, "-o", "-")
    assert code == 0
    same = tmp_path / "same.csv"  # the file the same run writes
    assert run(capsys, *argv, "-o", str(same))[0] == 0
    # nothing but the table on stdout: the file's text, lines ending as a pipe's (\n, not the file's \r\n)
    assert "\r" not in text and text == same.read_bytes().decode().replace("\r\n", "\n")
    assert "wrote standard output" in err and not (tmp_path / "-").exists()


def test_minus_as_the_input_reads_the_table_piped_in_and_names_it_stdin(tmp_path, capsys, monkeypatch):
    import io

    table = "a,b,c\n" + "".join(f"{i},{i % 7},{(i * i) % 11}\n" for i in range(40))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(table.encode())))
    code, text, err = run(capsys, "pca", "-", "-k", "2", "-o", "-")
    (tmp_path / "t.csv").write_text(table)
    assert code == 0 and run(capsys, "pca", str(tmp_path / "t.csv"), "-k", "2", "-o", "-")[1] == text
    assert "<stdin>: first row read as a header (3 columns)." in err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a,b\n1,2\n3,x\n")))
    code, _, err = run(capsys, "pca", "-", "-k", "1", "-o", "-")
    assert code == 2 and "<stdin>, line 3, column 2: 'x' is not a number" in err and "lowdim-stdin" not in err


def test_a_built_in_datasets_labels_are_its_classes_under_their_own_name(tmp_path, capsys):
    # they were the codes 0, 1, 2 under 'label': a legend of breast cancer said 0 and 1
    for dataset, header, first in (("iris", "species", "setosa"), ("breast_cancer", "diagnosis", "malignant")):
        out = tmp_path / f"{dataset}.csv"
        assert run(capsys, "embed", "--dataset", dataset, "-o", str(out))[0] == 0
        lines = out.read_text().splitlines()
        assert lines[0] == f"pca1,pca2,{header}" and lines[1].endswith(f",{first}")


def test_exclude_and_label_column_name_a_built_in_datasets_columns_as_a_files(tmp_path, capsys):
    # both were ignored with --dataset: the columns stayed in (an unknown one too), and
    # --label-column sex wrote the penguins' species under the header 'sex'
    out = tmp_path / "p.csv"
    code, text, err = run(
        capsys, "embed", "--dataset", "penguins", "-m", "famd", "--label-column", "sex", "-o", str(out)
    )
    assert code == 0, err
    assert "--dataset penguins: labels from column 'sex', in place of the dataset's species." in text
    assert "embedded 344 x 6 into 2" in text
    sexes = [line.rsplit(",", 1)[1] for line in out.read_text().splitlines()[1:]]
    assert set(sexes) == {"male", "female", ""}  # a gap is no class
    code, text, _ = run(
        capsys, "embed", "--dataset", "iris", "--exclude", "sepal width (cm)", "-o", str(tmp_path / "i.csv")
    )
    assert code == 0 and "left out sepal width (cm)." in text and "embedded 150 x 3 into 2" in text
    code, _, err = run(capsys, "embed", "--dataset", "iris", "--exclude", "sepals", "-o", str(tmp_path / "x.csv"))
    assert code == 2 and "--dataset iris: no column named 'sepals'; columns are sepal length (cm)" in err
    code, _, err = run(capsys, "embed", "--dataset", "uk-food", "--transpose", "--label-column", "1", "-o", "-")
    assert code == 2 and "--dataset uk-food: --label-column names a column, but --transpose makes" in err
    assert not (tmp_path / "x.csv").exists()


def test_transform_to_standard_output_and_what_it_cannot_take(tmp_path, capsys):
    model = tmp_path / "m.lowdim"
    assert run(capsys, "embed", "--dataset", "iris", "-m", "pca", "--save-model", str(model))[0] == 0
    code, text, _ = run(capsys, "transform", str(model), "--dataset", "iris", "-o", "-")
    assert code == 0 and text.splitlines()[0] == "pca1,pca2,species" and len(text.splitlines()) == 151
    code, text, err = run(capsys, "pca", "--dataset", "iris", "-k", "2", "-o", "-", "--json")
    assert code == 2 and text == "" and "--json would print too" in err
    code, _, err = run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", "x.csv", "--save-model", "-")
    assert code == 2 and "takes the table of results only" in err


def test_a_folder_or_missing_file_given_as_the_model_is_named_as_such(capsys, tmp_path):
    out = str(tmp_path / "t.csv")
    code, _, err = run(capsys, "transform", str(tmp_path), "--dataset", "iris", "-o", out)
    assert code == 2 and "is a folder, not a model file" in err
    code, _, err = run(capsys, "transform", str(tmp_path / "m.lowdim"), "--dataset", "iris", "-o", out)
    assert code == 2 and "no such model file" in err


def test_version_is_the_package_version(capsys):
    import lowdim

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"lowdim {lowdim.__version__}"


def test_uk_food_builtin_dataset_is_one_command(tmp_path, capsys):
    out = tmp_path / "uk.csv"
    code, text, _ = run(capsys, "pca", "--dataset", "uk-food", "-k", "2", "-o", str(out))
    assert code == 0 and "4 countries x 17 food groups" in text
    lines = out.read_text().splitlines()
    assert lines[0] == "id,PC1,PC2" and [line.split(",")[0] for line in lines[1:]] == [
        "England",
        "Wales",
        "Scotland",
        "N.Ireland",
    ]
    pc1 = np.array([float(line.split(",")[1]) for line in lines[1:]])
    assert np.argmax(np.abs(pc1)) == 3  # Northern Ireland stands apart on PC1


@pytest.mark.parametrize(
    "method, option",
    [("tsne", "--param perplexity=VALUE"), ("isomap", "--param n_neighbors=VALUE"), ("pca", "-k N")],
)
def test_a_parameter_the_method_asks_to_change_is_named_as_the_option_that_sets_it(tmp_path, capsys, method, option):
    """The estimator says "lower perplexity"; a command-line user sets it with --param (or -k)."""
    path = tmp_path / "three.csv"
    path.write_text("a\n1\n2\n4\n")
    assert main(["embed", str(path), "-m", method, "-o", str(tmp_path / "e.csv")]) == 2
    err = capsys.readouterr().err
    assert f"On the command line: {option}." in err and err.count("error:") == 1


@pytest.mark.parametrize(
    "argv, option",
    [
        # explore's -k is the number of clusters and its --param takes METHOD.NAME
        (["explore", "--methods", "trimap"], "--param trimap.n_inliers=VALUE"),
        (["cluster", "--on", "pca"], "another --on method than pca (the map is 2-D)"),
    ],
)
def test_the_option_named_is_one_this_command_has(tmp_path, capsys, argv, option):
    # the fix said "-k N" (the number of clusters there) and "--param perplexity=VALUE",
    # which explore refuses and cluster gives to the clustering
    path = tmp_path / "three.csv"
    path.write_text("a,b\n1,2\n2,3\n4,1\n" if argv[0] == "explore" else "a\n1\n2\n4\n")
    output = str(tmp_path / ("e.html" if argv[0] == "explore" else "c.csv"))
    assert main([argv[0], str(path), *argv[1:], "-o", output]) == 2
    err = capsys.readouterr().err
    assert f"On the command line: {option}." in err and "-k N" not in err


def test_method_names_are_taken_as_users_write_them(tmp_path, capsys):
    """UMAP, t-SNE, KMeans, kernel_pca: the registry's names whatever the case, separators or class name."""
    out = tmp_path / "m.csv"
    assert main(["embed", "--dataset", "iris", "-m", "UMAP", "-o", str(out), "--quiet"]) == 0
    assert out.read_text().splitlines()[0].startswith("umap1,umap2")
    assert main(["embed", "--dataset", "iris", "-m", "kernel_pca", "-o", str(out), "--quiet", "--overwrite"]) == 0
    assert out.read_text().splitlines()[0].startswith("kernel-pca1")
    clusters = tmp_path / "c.csv"
    argv = ["cluster", "--dataset", "iris", "-m", "KMeans", "-k", "3", "--on", "t-SNE", "-o", str(clusters), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["method"] == "kmeans" and summary["on"] == "tsne"
    assert main(["embed", "--dataset", "iris", "-m", "Umapp", "-o", str(out), "--overwrite"]) == 2
    assert "unknown method 'Umapp'; did you mean" in capsys.readouterr().err


def test_the_command_line_starts_without_loading_the_registry_and_its_help_lists_every_clustering():
    """Building the parser for every command must not import scipy and the estimators
    (``lowdim --version`` took 1.3 s instead of 0.1 s when it did); the clustering
    names written out for the help are the registry's."""
    import subprocess
    import sys

    from lowdim.cli._cluster import CLUSTERING_NAMES
    from lowdim.methods import CLUSTERINGS

    assert list(CLUSTERING_NAMES) == list(CLUSTERINGS)
    code = (
        "import sys\nfrom lowdim.cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('scipy', 'sklearn', 'lowdim.methods') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_cluster_summary_counts_the_clusters_that_hold_rows(tmp_path, capsys):
    # two distinct rows, eight components asked for: "8 clusters ... sizes [10, 0, 0, 0, 0, 0, 0, 10]" before
    path = tmp_path / "copies.csv"
    path.write_text("a,b\n" + "0.3,0.7\n1.1,2.9\n" * 10)
    assert main(["cluster", str(path), "-m", "gmm", "-k", "8", "-o", str(tmp_path / "c.csv")]) == 0
    out = capsys.readouterr().out
    assert "gmm: 2 clusters of 20 rows" in out and "sizes [10, 10]; 6 of the 8 asked for hold no row" in out
    assert main(["cluster", str(path), "-m", "dbscan", "-o", str(tmp_path / "d.csv")]) == 0
    assert re.search(r"dbscan: 2 clusters of 20 rows in [\d.]+ s; sizes \[10, 10\]\n", capsys.readouterr().out)


def test_rows_without_a_label_are_no_class_of_their_own(tmp_path, capsys):
    # a label column with gaps: '' was a class for the scores against the labels and for LDA
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (30, 3)), rng.normal(5, 0.3, (30, 3))])
    kinds = ["u"] * 30 + ["v"] * 30
    for i in (0, 7, 31, 44):
        kinds[i] = ""
    path = tmp_path / "gaps.csv"
    path.write_text("a,b,c,kind\n" + "".join(f"{r[0]},{r[1]},{r[2]},{k}\n" for r, k in zip(X, kinds)))
    args = ["--label-column", "kind", "-o", str(tmp_path / "c.csv")]
    assert main(["cluster", str(path), "-m", "kmeans", "-k", "2", *args]) == 0
    out = capsys.readouterr().out
    assert "agreement with the labels (the 56 rows that have one): ARI 1.000, NMI 1.000" in out
    model = tmp_path / "lda.lowdim"
    argv = [
        "embed",
        str(path),
        "-m",
        "lda",
        "-k",
        "1",
        "--save-model",
        str(model),
        *args[:2],
        "-o",
        str(tmp_path / "e.csv"),
    ]
    assert main(argv) == 0
    assert lowdim.load(model).classes_.tolist() == ["u", "v"]
    assert len((tmp_path / "e.csv").read_text().splitlines()) == 61  # every row placed, labelled or not


@pytest.mark.parametrize("command", ["report", "explore"])
def test_a_table_of_one_column_is_refused_by_the_commands_that_map_it(tmp_path, capsys, command):
    # PCA failed with "lower n_components", an option neither command has
    path = tmp_path / "one.csv"
    path.write_text("height\n" + "\n".join(str(v) for v in range(1, 41)) + "\n")
    assert main([command, str(path), "-o", str(tmp_path / "page.html")]) == 2
    err = capsys.readouterr().err
    assert "the table to map has 1 column ('height')" in err and "nothing to reduce" in err
    assert not (tmp_path / "page.html").exists()


def test_a_column_that_holds_nearly_all_the_variance_is_named_with_standardize(tmp_path, capsys):
    # the wine table unscaled: proline (sd 314) holds 99.8 % of the variance, so PCA's first
    # component and every distance are proline's alone, which the user saw only in the picture
    from sklearn.datasets import load_wine

    wine = load_wine()
    path = tmp_path / "wine.csv"
    lines = [",".join(wine.feature_names)] + [",".join(map(str, row)) for row in wine.data]
    path.write_text("\n".join(lines) + "\n")
    said = "column 'proline' holds 99.77 % of the rows' variance (sd 314, the other columns' median sd"
    code, said_out, _ = run(capsys, "pca", str(path), "-o", str(tmp_path / "z.csv"))
    assert code == 0 and said in said_out and "--standardize gives every column the same weight" in said_out
    code, said_out, _ = run(capsys, "pca", str(path), "--standardize", "-o", str(tmp_path / "s.csv"))
    assert code == 0 and "of the rows' variance" not in said_out
    code, said_out, _ = run(capsys, "embed", "--dataset", "digits", "-m", "pca", "-o", str(tmp_path / "d.csv"))
    assert code == 0 and "of the rows' variance" not in said_out  # pixels of one scale: nothing to say
