"""Every command on real files, good and malformed, with exit codes, messages and the
files it writes: the real `lowdim` console script in a subprocess where the script is
what is tested (its entry point, exit codes, a fresh interpreter), and ``main`` (the
function the script calls) in this process elsewhere, saving about 3 s of imports a call."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from lowdim.datasets import load_builtin

LOWDIM = os.path.join(os.path.dirname(sys.executable), "lowdim")
FACE = os.path.join(os.path.dirname(__file__), "..", "src", "lowdim", "datasets", "data", "orl_faces", "s1", "1.pgm")


def lowdim(*argv, timeout=300):
    result = subprocess.run([LOWDIM, *map(str, argv)], capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def cli(capsys):
    """``run(*argv) -> (exit code, stdout, stderr)`` of ``main`` in this process."""
    from lowdim.cli.main import main

    def run(*argv):
        capsys.readouterr()
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def assert_png(path, min_side=200):
    image = np.asarray(Image.open(path).convert("L"), dtype=float)
    assert min(image.shape) >= min_side and image.std() > 5, f"{path} looks blank"


@pytest.fixture(scope="module")
def wine_csv(tmp_path_factory):
    X, y, names = load_builtin("wine")
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    with open(path, "w") as fh:
        fh.write(",".join(names) + ",cultivar\n")
        for row, label in zip(X, y):
            fh.write(",".join(f"{v:g}" for v in row) + f",c{label}\n")
    return path


def test_embed_plot_model_then_transform(wine_csv, tmp_path):
    out, plot, model = tmp_path / "z.csv", tmp_path / "z.png", tmp_path / "m.lowdim"
    code, text, err = lowdim(
        "embed",
        wine_csv,
        "-m",
        "umap",
        "--label-column",
        "cultivar",
        "--standardize",
        "--param",
        "n_neighbors=10",
        "-o",
        out,
        "--plot",
        plot,
        "--save-model",
        model,
    )
    assert code == 0, err
    assert "first row read as a header (14 columns)" in text and "embedded 178 x 13 into 2" in text
    lines = out.read_text().splitlines()
    assert lines[0] == "umap1,umap2,cultivar" and len(lines) == 179 and lines[1].endswith(",c0")
    assert_png(plot)
    code, _, err = lowdim(
        "transform",
        model,
        wine_csv,
        "--label-column",
        "cultivar",
        "-o",
        tmp_path / "again.parquet",
        "--json",
    )
    assert code == 0, err
    import pyarrow.parquet as pq

    again = pq.read_table(tmp_path / "again.parquet").to_pandas()
    assert again.shape == (178, 3) and list(again.columns) == ["umap1", "umap2", "cultivar"]


def test_embed_lda_needs_labels_and_params_are_checked(wine_csv, tmp_path, cli):
    code, _, err = cli("embed", wine_csv, "--exclude", "cultivar", "-m", "lda", "-o", tmp_path / "l.csv")
    assert code == 2 and "lda is supervised: name the label column with --label-column" in err
    code, _, err = cli("embed", "--dataset", "iris", "-m", "tsne", "--param", "perplexty=5", "-o", tmp_path / "t.csv")
    assert code == 2 and "tsne has no parameter 'perplexty'; did you mean 'perplexity'?" in err
    code, _, err = cli("embed", "--dataset", "iris", "-m", "tsne", "--param", "perplexity=-5", "-o", tmp_path / "t.csv")
    assert code == 2 and "perplexity" in err and "Traceback" not in err
    code, _, err = cli("embed", "--dataset", "iris", "-m", "umapp", "-o", tmp_path / "t.csv")
    assert code == 2 and "did you mean 'umap'" in err
    assert not (tmp_path / "t.csv").exists()


def test_every_registered_method_embeds_from_the_cli(tmp_path, capsys, cli):
    """The registry sweep runs in-process (the same main() the script calls) to keep the
    suite fast; the subprocess tests above and below cover the script itself."""
    from lowdim.cli.main import main
    from lowdim.methods import EMBEDDINGS

    code, listing, _ = cli("embed", "--list")
    assert code == 0 and all(name in listing for name in EMBEDDINGS)
    X, y, _ = load_builtin("iris")
    data = tmp_path / "iris.csv"
    np.savetxt(data, np.c_[X + 0.01 * np.arange(150)[:, None], y], delimiter=",", fmt="%.4f")
    for name, method in EMBEDDINGS.items():
        extra = ["--label-column", "5"] if method.supervised else ["--exclude", "5"]
        if method.columns == "categorical":  # it reads categories: the measurements as codes
            extra += [arg for j in range(1, 5) for arg in ("--categorical", str(j))]
        out = tmp_path / f"{name}.npy"
        code = main(["embed", str(data), "-m", name, "-o", str(out), "--quiet", *extra])
        assert code == 0, (name, capsys.readouterr().err)
        Z = np.load(out)
        assert Z.shape == (150, 2) and np.isfinite(Z).all(), name


@pytest.mark.parametrize(
    "content, args, message",
    [
        ("a,b\n1,2\n3\n", [], "line 3: expected 2 fields, got 1"),
        ("a;b\n1,5;2\n", ["--delimiter", ";"], "line 2, column 1: '1,5' is not a number; a decimal comma"),
        ("", [], "empty file, no data rows"),
        ("a,b\n", [], "header only, no data rows"),
        ("a,b\n1,2\n,4\n5,\n", [], "2 missing values ('a': 1, 'b': 1); pass --missing drop"),
        ("a,b\n1,2\n3,4\n", ["--label-column", "c"], "no column named 'c'; columns are a, b"),
    ],
)
def test_malformed_csv_exit_2_with_one_sentence(tmp_path, content, args, message, cli):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, _, err = cli("embed", path, "-m", "pca", "-o", tmp_path / "z.csv", *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_spreadsheet_and_whitespace_files_are_read_with_their_options(tmp_path, cli):
    rows = np.random.default_rng(0).normal(size=(30, 3))
    dot = tmp_path / "dot.csv"
    dot.write_text("a,b,c\n" + "\n".join(",".join(f"{v:.4f}" for v in row) for row in rows) + "\n")
    comma = tmp_path / "comma.csv"
    comma.write_text(dot.read_text().replace(",", ";").replace(".", ","))
    spaced = tmp_path / "spaced.data"
    spaced.write_text(dot.read_text().replace(",", "   "))
    outputs = {}
    for name, path, args in [
        ("dot", dot, []),
        ("comma", comma, ["--decimal", ","]),
        ("spaced", spaced, ["--delimiter", "whitespace"]),
    ]:
        code, _, err = cli("embed", path, "-m", "pca", "-o", tmp_path / f"{name}.npy", *args)
        assert code == 0, err
        outputs[name] = np.load(tmp_path / f"{name}.npy")
    np.testing.assert_array_equal(outputs["comma"], outputs["dot"])
    np.testing.assert_array_equal(outputs["spaced"], outputs["dot"])
    code, _, err = cli("embed", comma, "-m", "pca", "-o", tmp_path / "z.npy")
    assert code == 2 and "pass --decimal ','" in err


def test_missing_policies_and_headerless_csv(tmp_path, cli):
    path = tmp_path / "holes.csv"
    rows = np.random.default_rng(0).normal(size=(40, 4))
    text = "\n".join(
        ",".join("" if (i * 4 + j) % 23 == 5 else f"{v:.4f}" for j, v in enumerate(row)) for i, row in enumerate(rows)
    )
    path.write_text(text + "\n")
    code, out, err = cli("embed", path, "-m", "pca", "-o", tmp_path / "d.csv", "--missing", "drop")
    assert code == 0, err
    assert "read as data (no header)" in out and "dropped 7 rows with missing values" in out
    code, out, err = cli("embed", path, "-m", "ppca", "-o", tmp_path / "k.csv", "--missing", "keep")
    assert code == 0, err
    code, _, err = cli("embed", path, "-m", "tsne", "-o", tmp_path / "t.csv", "--missing", "keep")
    assert code == 2 and "tsne cannot use missing values" in err


def test_huge_declared_shape_and_existing_output(tmp_path, cli):
    path = tmp_path / "huge.npy"
    header = np.lib.format.header_data_from_array_1_0(np.zeros((2, 2)))
    header["shape"] = (10**9, 10**6)
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
    code, _, err = cli("info", path)
    assert code == 2 and "header declares shape (1000000000, 1000000)" in err
    keep = tmp_path / "keep.csv"
    keep.write_text("precious")
    code, _, err = cli("embed", "--dataset", "iris", "-o", keep)
    assert code == 2 and "exists; pass --overwrite" in err and keep.read_text() == "precious"


def test_cluster_select_and_info_json(tmp_path, wine_csv, cli):
    rng = np.random.default_rng(0)
    blobs = np.vstack([rng.normal(c, 1.0, (80, 4)) for c in (0, 8, 16)])
    np.save(tmp_path / "blobs.npy", blobs)
    code, out, err = cli(
        "cluster",
        tmp_path / "blobs.npy",
        "-m",
        "gmm",
        "--select",
        "bic",
        "--k-range",
        "1-6",
        "--param",
        "covariance_type='diag'",
        "--curve",
        tmp_path / "bic.png",
        "--plot",
        tmp_path / "c.png",
        "-o",
        tmp_path / "c.csv",
        "--json",
    )
    assert code == 0, err
    summary = json.loads(out)
    assert summary["n_clusters"] == 3 and sorted(summary["sizes"]) == [80, 80, 80]
    assert summary["selection"]["method"] == "bic" and len(summary["selection"]["scores"]) == 6
    assert_png(tmp_path / "bic.png")
    assert_png(tmp_path / "c.png")
    code, out, _ = cli("cluster", "--dataset", "iris", "-m", "kmedoids", "-k", "3", "--json")
    assert code == 0 and sum(json.loads(out)["sizes"]) == 150
    code, out, _ = cli("info", wine_csv, "--label-column", "cultivar", "--json")
    info = json.loads(out)
    assert (info["n_samples"], info["n_features"], info["n_classes"]) == (178, 13, 3)
    assert info["memory_bytes"]["mds"] > info["memory_bytes"]["pca"]


def test_pca_scree_marks_the_choice(tmp_path, cli):
    code, out, err = cli(
        "pca",
        "--dataset",
        "digits",
        "--variance",
        "0.8",
        "--scree",
        tmp_path / "s.png",
        "-o",
        tmp_path / "p.csv",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["n_components"] == 13
    assert_png(tmp_path / "s.png")


def test_compress_error_falls_with_k_and_denoise_improves_psnr(tmp_path, cli):
    code, out, err = cli(
        "compress",
        FACE,
        "--patch",
        "8",
        "-k",
        "16",
        "-o",
        tmp_path / "c.png",
        "--curve",
        tmp_path / "curve.png",
        "--json",
    )
    assert code == 0, err
    summary = json.loads(out)
    errors = summary["curve"]["relative_error"]
    assert all(a > b for a, b in zip(errors, errors[1:])) and summary["relative_error"] < 0.06
    assert summary["compression_ratio"] > 2.5
    assert_png(tmp_path / "curve.png")
    Image.open(FACE).convert("RGB").save(tmp_path / "face.jpg", quality=95)  # colour JPEG input
    code, out, err = cli("compress", tmp_path / "face.jpg", "--patch", "8", "-k", "16", "--json")
    assert code == 0, err
    assert json.loads(out)["relative_error"] < 0.08 and os.path.exists(tmp_path / "face_k16.png")
    assert Image.open(tmp_path / "face_k16.png").mode == "RGB"
    code, _, err = cli("compress", tmp_path / "face.jpg", "--patch", "8", "-k", "16")
    assert code == 2 and "exists; pass --overwrite" in err
    # -o elsewhere (the input's folder may be read-only, or hold an earlier curve): the curve goes beside it
    (tmp_path / "out").mkdir()
    code, _, err = cli("compress", tmp_path / "face.jpg", "--patch", "8", "-k", "4", "-o", tmp_path / "out" / "c.png")
    assert code == 0, err
    assert_png(tmp_path / "out" / "c_curve.png")
    (tmp_path / "broken.png").write_bytes(b"\x89PNG not really")
    code, _, err = cli("compress", tmp_path / "broken.png")
    assert code == 2 and "broken.png: not a readable image" in err
    face = np.asarray(Image.open(FACE), dtype=float) / 255
    noisy = np.clip(face + np.random.default_rng(0).normal(0, 0.08, face.shape), 0, 1)
    Image.fromarray((noisy * 255).round().astype(np.uint8)).save(tmp_path / "noisy.png")
    code, out, err = cli("denoise", tmp_path / "noisy.png", "-k", "10", "--reference", FACE, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["psnr_output"] > summary["psnr_input"] + 3
    assert os.path.exists(tmp_path / "noisy_denoised.png")


def test_a_16_bit_image_is_denoised_into_16_bits_and_a_dropped_alpha_is_said(tmp_path, cli):
    """A 16-bit microscopy image came back quantised to 256 levels without a word."""
    ramp = np.linspace(0.2, 0.8, 96 * 96).reshape(96, 96)
    noisy = ramp + np.random.default_rng(0).normal(0, 0.01, ramp.shape)
    Image.fromarray(np.rint(noisy * 65535).astype(np.uint16)).save(tmp_path / "deep.png")
    code, out, err = cli("denoise", tmp_path / "deep.png", "-k", "4", "-o", tmp_path / "clean.png")
    assert code == 0, err
    clean = Image.open(tmp_path / "clean.png")
    levels = np.unique(np.asarray(clean))
    assert clean.mode.startswith("I;16") and levels.size > 1000  # 8 bits hold 256 levels at most
    code, out, err = cli("denoise", tmp_path / "deep.png", "-k", "4", "-o", tmp_path / "clean.jpg")
    assert code == 0 and "deep.png has 16-bit pixels; " in out and "holds 8 (write .png or .tif" in out
    Image.fromarray(np.zeros((40, 40, 4), np.uint8), "RGBA").save(tmp_path / "clear.png")
    code, out, err = cli("compress", tmp_path / "clear.png", "--patch", "8", "-k", "2")
    assert code == 0 and "clear.png: its alpha channel is not part of the result" in out


def test_eigenfaces_of_one_persons_images_skips_recognition_and_says_why(tmp_path, capsys):
    """A flat folder is one person: a recognition score on it (1.000) would measure nothing."""
    from PIL import Image

    from lowdim.cli.main import main

    rng, faces = np.random.default_rng(0), tmp_path / "faces"
    faces.mkdir()
    for i in range(12):
        Image.fromarray(rng.integers(0, 255, (16, 12), dtype=np.uint8)).save(faces / f"face{i}.png")
    assert main(["eigenfaces", str(faces), "-k", "3", "-o", str(tmp_path / "ef"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["accuracy"] == {} and "single person (no sub-folders)" in summary["recognition_skipped"]
    assert main(["eigenfaces", str(faces), "-k", "3", "-o", str(tmp_path / "ef"), "--overwrite"]) == 0
    assert "recognition skipped: the images of" in capsys.readouterr().out
    for _ in range(2):  # figures written inside the input folder are not read as faces on the next run
        assert main(["eigenfaces", str(faces), "-k", "3", "-o", str(faces / "ef"), "--overwrite", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["n_images"] == 12


def test_eigenfaces_on_the_shipped_orl_faces(tmp_path, cli):
    code, out, err = cli("eigenfaces", "-k", "40", "-o", tmp_path / "ef", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["n_images"] == 400 and summary["image_shape"] == [112, 92]
    assert summary["accuracy"]["shared"] > 0.9 and summary["accuracy"]["per-class"] > 0.9
    for name in ("mean_face.png", "eigenfaces.png", "reconstructions.png"):
        assert_png(tmp_path / "ef" / name, min_side=100)


def test_demo_writes_report_and_figures_within_a_minute(tmp_path):
    import time

    start = time.perf_counter()
    code, out, err = lowdim("demo", "-o", tmp_path / "demo", "--json")
    seconds = time.perf_counter() - start
    assert code == 0, err
    summary = json.loads(out)
    assert seconds < 60
    for name in ("report.html", "scree.png", "pca.png", "tsne.png", "umap.png", "kmeans.png"):
        assert os.path.getsize(tmp_path / "demo" / name) > 10_000
    assert summary["methods"]["tsne"]["knn_accuracy"] > 0.95
    assert summary["methods"]["umap"]["trustworthiness"] > 0.95


def test_density_and_graph_clusterings_from_the_cli(tmp_path, capsys, cli):
    """In-process (the same main() the script calls): every clustering of the registry,
    those that find k themselves refusing -k, and clustering an embedding (--on)."""
    from lowdim.cli.main import main
    from lowdim.methods import CLUSTERINGS

    rng = np.random.default_rng(0)
    blobs = np.vstack([rng.normal(c, 0.5, (60, 3)) for c in (0, 6, 12)] + [rng.uniform(-3, 15, (12, 3))])
    np.save(tmp_path / "b.npy", blobs)
    np.savetxt(tmp_path / "codes.csv", np.round(blobs / 3), delimiter=",", fmt="%d", header="a,b,c", comments="")
    as_codes = ["--categorical", "a", "--categorical", "b", "--categorical", "c"]
    for name, method in CLUSTERINGS.items():
        size = ["-k", "3"] if method.size else ["--param", "min_cluster_size=20"] if name == "hdbscan" else []
        data = (
            [str(tmp_path / "codes.csv"), *as_codes] if method.columns == "categorical" else [str(tmp_path / "b.npy")]
        )
        code = main(["cluster", *data, "-m", name, *size, "-o", str(tmp_path / f"{name}.csv")])
        assert code == 0, (name, capsys.readouterr().err)
    capsys.readouterr()
    code = main(["cluster", str(tmp_path / "b.npy"), "-m", "hdbscan", "--param", "min_cluster_size=20", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["n_clusters"] == 3 and summary["noise"] > 0
    assert sum(summary["sizes"]) + summary["noise"] == 192
    code = main(["cluster", str(tmp_path / "b.npy"), "-m", "leiden", "--on", "umap", "--plot", str(tmp_path / "l.png")])
    captured = capsys.readouterr()
    assert code == 0 and "clustering the embedding" in captured.out
    assert_png(tmp_path / "l.png")
    code, _, err = cli("cluster", tmp_path / "b.npy", "-m", "hdbscan", "-k", "3")
    assert code == 2 and "finds the number of clusters itself" in err and "min_cluster_size=" in err
    code, _, err = cli("cluster", tmp_path / "b.npy", "-m", "dbscan", "-k", "3")  # its own knob, not hdbscan's
    assert code == 2 and "--param eps=" in err and "min_cluster_size" not in err
    from lowdim.cli._cluster import KNOBS
    from lowdim.methods import CLUSTERINGS

    assert set(KNOBS) == {name for name, method in CLUSTERINGS.items() if not method.size}
    np.save(tmp_path / "clean.npy", blobs[:180])  # G-means' clusters are Gaussian: no uniform noise
    code, out, err = cli("cluster", tmp_path / "clean.npy", "-m", "spectral", "--select", "gmeans", "--json")
    assert code == 0, err
    assert json.loads(out)["n_clusters"] == 3 and json.loads(out)["selection"]["method"] == "gmeans"


def test_the_pages_take_their_methods_with_m_as_embed_and_cluster_do():
    # 'lowdim explore data.h5ad -m umap' was refused as an unrecognized argument
    from lowdim.cli.main import build_parser

    for command in ("report", "explore", "demo"):
        args = build_parser().parse_args([command, "-m", "pca,umap", "-o", "out"])
        assert args.methods == build_parser().parse_args([command, "--methods", "pca,umap", "-o", "out"]).methods


def test_report_colours_the_embeddings_by_clusters(tmp_path, cli):
    code, out, err = cli(
        "report",
        "--dataset",
        "iris",
        "--methods",
        "pca,umap",
        "--cluster",
        "hdbscan",
        "--cluster-on",
        "umap",
        "--param",
        "hdbscan.min_cluster_size=15",
        "-o",
        tmp_path / "r.html",
        "--json",
    )
    assert code == 0, err
    clusters = json.loads(out)["clusters"]
    assert clusters["method"] == "hdbscan" and clusters["on"] == "umap"
    assert sum(clusters["sizes"]) + clusters["noise"] == 150
    page = (tmp_path / "r.html").read_text()
    assert "Clusters" in page and "noise (label -1)" in page and page.count("<img") >= 5
    code, _, err = cli("report", "--dataset", "iris", "--cluster-on", "umap", "-o", tmp_path / "s.html")
    assert code == 2 and "--cluster-on" in err


def test_report_and_map_of_a_four_row_table_adapt_and_say_so(tmp_path, cli):
    """UK food (4 countries): neighbour methods take what 4 rows allow, the page says
    which, and a value the user set is kept as given."""
    page = tmp_path / "uk.html"
    code, text, err = cli("report", "--dataset", "uk-food", "--methods", "pca,tsne,umap,isomap", "-o", page)
    assert code == 0, err
    html = page.read_text()
    for note in (
        "tsne: perplexity 30.0 -&gt; 1 for 4 rows",
        "umap: n_neighbors 15 -&gt; 3 for 4 rows",
        "isomap: n_neighbors 5 -&gt; 3 for 4 rows",
        "quality: 1 neighbours instead of 10 for 4 rows",
    ):
        assert note in html and note.replace("&gt;", ">") in text
    assert "Adapted to the data" in html and "pca:" not in html  # PCA has no neighbourhood
    code, _, err = cli(
        "report", "--dataset", "uk-food", "--methods", "tsne", "--param", "tsne.perplexity=2", "-o", page, "--overwrite"
    )
    assert code == 0, err
    assert "tsne: perplexity" not in page.read_text()
    code, text, err = cli("explore", "--dataset", "uk-food", "--methods", "pca,umap", "-o", tmp_path / "uk-map.html")
    assert code == 0 and "umap: n_neighbors 15 -> 3 for 4 rows" in text, err


def test_a_missing_optional_package_is_named_before_any_work(tmp_path, monkeypatch, capsys):
    """Leiden without leidenalg: exit 2 naming the package and the extra, before a
    single map is fitted (it once failed as an internal error after three maps)."""
    import sys

    import lowdim.report._build as build
    from lowdim.cli.main import main

    monkeypatch.setitem(sys.modules, "leidenalg", None)  # import leidenalg -> ImportError

    def no_fit(*args, **kwargs):
        raise AssertionError("a method was fitted before the missing package was found")

    monkeypatch.setattr(build, "run_method", no_fit)
    for argv in (
        ["report", "--dataset", "iris", "--methods", "pca,tsne,umap", "--cluster", "leiden", "-o", "r.html"],
        ["explore", "--dataset", "iris", "--methods", "pca,umap", "--cluster", "leiden", "-o", "m.html"],
        ["cluster", "--dataset", "iris", "-m", "louvain", "-o", "c.csv"],
    ):
        assert main([a if not a.endswith(("html", "csv")) else str(tmp_path / a) for a in argv]) == 2
        err = capsys.readouterr().err
        assert "needs the leidenalg package: pip install 'lowdim[graph]'" in err, err
    assert not list(tmp_path.iterdir())


def test_help_says_what_each_output_is_and_info_takes_none(capsys):
    from lowdim.cli.main import build_parser

    parser = build_parser()
    for command in ("report", "explore"):
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        assert "the HTML page to write (.html)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["info", "--dataset", "iris", "-o", "x.csv"])  # it prints; it would silently write nothing
    assert exit_.value.code == 2 and "unrecognized arguments: -o" in capsys.readouterr().err


def test_transform_takes_the_models_columns_by_name_and_says_what_it_leaves_out(cli, tmp_path):
    # a model's columns are found by name: another order gives the same rows, a column
    # the model never saw was left out without a word, a missing one is named
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * [1.0, 10.0, 100.0]
    header = ["a", "b", "c"]

    def table(name, columns, extra=False):
        path = tmp_path / name
        rows = [",".join(["id", *columns] + (["extra"] if extra else []))]
        for i, row in enumerate(X):
            values = [f"{row[header.index(c)]:.6f}" for c in columns] + (["1.5"] if extra else [])
            rows.append(",".join([f"r{i}", *values]))
        path.write_text("\n".join(rows) + "\n")
        return path

    model = tmp_path / "m.lowdim"
    code, _, err = cli(
        "embed",
        table("train.csv", header),
        "-m",
        "pca",
        "--standardize",
        "--save-model",
        model,
        "-o",
        tmp_path / "t.csv",
    )
    assert code == 0, err
    outputs = {}
    for name, columns, extra in [
        ("same.csv", header, False),
        ("swapped.csv", ["c", "a", "b"], False),
        ("more.csv", header, True),
    ]:
        code, out, err = cli("transform", model, table(name, columns, extra), "-o", tmp_path / f"out_{name}")
        assert code == 0, err
        outputs[name] = np.loadtxt(tmp_path / f"out_{name}", delimiter=",", skiprows=1, usecols=(1, 2))
        assert ("1 column(s) the model was not fitted on left out (extra)" in out) == extra
    np.testing.assert_array_equal(outputs["swapped.csv"], outputs["same.csv"])
    np.testing.assert_array_equal(outputs["more.csv"], outputs["same.csv"])
    code, _, err = cli("transform", model, table("fewer.csv", ["a", "b"]), "-o", tmp_path / "out_fewer.csv")
    assert code != 0 and "fitted on columns this table lacks (c)" in err
