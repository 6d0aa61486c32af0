"""Outputs appear whole or not at all, clashing or impossible outputs are refused before
any work, and a closed pipe ends the command quietly."""

import os
import subprocess
import sys

import numpy as np
import pytest

from lowdim.cli.main import main
from lowdim.io._atomic import atomic_path
from lowdim.io._writers import write_table


def _leftovers(folder):
    return [f for f in os.listdir(folder) if ".partial" in f]


def test_interrupted_write_keeps_the_previous_file(tmp_path, monkeypatch):
    target = tmp_path / "z.csv"
    write_table(target, np.ones((5, 2)), ["a", "b"])
    before = target.read_bytes()

    def interrupted(path, *args, **kwargs):
        with open(path, "w") as fh:
            fh.write("a,b\n1,")
        raise KeyboardInterrupt

    monkeypatch.setattr("lowdim.io._writers.write_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_table(target, np.zeros((500, 2)), ["a", "b"], overwrite=True)
    assert target.read_bytes() == before and not _leftovers(tmp_path)


def test_killed_writer_leaves_the_previous_output_whole(tmp_path):
    target = tmp_path / "big.csv"
    target.write_text("previous\n" * 5001)
    code = (
        f"import os, signal\nfrom lowdim.io._atomic import atomic_path\n"
        f"with atomic_path({str(target)!r}, overwrite=True) as tmp:\n"
        f"    open(tmp, 'w').write('partial\\n' * 173)\n"
        f"    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == -9
    assert target.read_text() == "previous\n" * 5001


def test_second_writer_of_the_same_file_fails_clearly(tmp_path):
    target = tmp_path / "z.npy"
    with pytest.raises(FileExistsError, match="another run wrote it meanwhile"):
        with atomic_path(target, overwrite=False) as tmp:
            np.save(tmp, np.zeros(3))
            np.save(target, np.ones(3))  # the other run finishes first
    np.testing.assert_array_equal(np.load(target), np.ones(3))  # its file stays whole
    assert not _leftovers(tmp_path)
    with atomic_path(target, overwrite=True) as tmp:  # with overwrite the last complete write wins
        np.save(tmp, np.full(3, 2.0))
    np.testing.assert_array_equal(np.load(target), np.full(3, 2.0))


def _run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            ["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/x.npy", "--save-model", "{d}/x.npy"],
            "named for two outputs",
        ),
        (
            ["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/p.png", "--plot", "{d}/p.png"],
            "named for two outputs",
        ),
        (["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/out.txt"], "cannot write this format"),
        (["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/out.npy.gz"], "cannot write this format"),
        (
            ["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/z.csv", "--plot", "{d}/x.csv"],
            "cannot draw a figure in this format",
        ),
        (["report", "--dataset", "iris", "--methods", "pca", "-o", "{d}/report.txt"], "name it \\*.html"),
        (["embed", "--dataset", "iris", "-m", "pca", "-o", "{d}/file/z.csv"], "cannot create the folder"),
    ],
)
def test_impossible_outputs_are_refused_before_any_work(tmp_path, capsys, monkeypatch, argv, words):
    (tmp_path / "file").write_text("a file where a folder is needed")

    def no_work(*args, **kwargs):
        raise AssertionError("the data was loaded before the outputs were checked")

    from lowdim.cli.main import build_parser

    build_parser()  # imports every command first: one imported under the patch would keep no_work for good

    import sys

    for name, module in list(sys.modules.items()):  # every command, wherever it imported the readers from
        if name.startswith("lowdim.cli."):
            for reader in ("read_data", "load_data"):
                if hasattr(module, reader):
                    monkeypatch.setattr(module, reader, no_work)
    code, err = _run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert code == 2
    assert __import__("re").search(words, err), err


def test_closed_pipe_ends_quietly():
    reader = subprocess.Popen(
        [sys.executable, "-m", "lowdim.cli.main", "info", "--dataset", "digits"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    reader.stdout.close()  # the reader is gone before anything is written (as `head` after its lines)
    err = reader.stderr.read()
    reader.wait(timeout=120)
    assert reader.returncode == 0 and b"Broken pipe" not in err and b"error" not in err


def _iris_csv(tmp_path):
    from sklearn.datasets import load_iris

    path = tmp_path / "in.csv"
    write_table(path, load_iris().data, ["a", "b", "c", "d"])
    return path


@pytest.mark.parametrize("option", ["-o", "--save-model"])
def test_an_output_naming_the_input_is_refused_even_with_overwrite(tmp_path, capsys, option):
    source = _iris_csv(tmp_path)
    before = source.read_bytes()
    (tmp_path / "link.csv").symlink_to(source)
    for target in (source, tmp_path / "link.csv"):
        code, err = _run(capsys, "embed", str(source), "-m", "pca", option, str(target), "--overwrite")
        assert code == 2 and "is the input file" in err, err
    assert source.read_bytes() == before


def test_a_folder_or_device_is_never_replaced_by_a_file(tmp_path, capsys):
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "null.csv").symlink_to(os.devnull)
    for target in ("folder.csv", "null.csv"):
        code, err = _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", str(tmp_path / target), "--overwrite")
        assert code == 2 and "not a regular file" in err, err
    assert (tmp_path / "folder.csv").is_dir() and os.path.realpath(tmp_path / "null.csv") == os.devnull
    with pytest.raises(ValueError, match="not a regular file"):
        with atomic_path(tmp_path / "null.csv", overwrite=True) as tmp:
            np.save(tmp, np.zeros(3))


def test_a_folder_that_takes_no_files_is_refused_before_any_work(capsys):
    code, err = _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", "/proc/lowdim-out.csv")
    assert code == 2 and "does not take new files" in err, err


def test_a_file_written_meanwhile_by_another_run_is_kept(tmp_path, capsys, monkeypatch):
    from lowdim.decomposition import PCA

    target = tmp_path / "z.csv"
    fit = PCA.fit_transform

    def other_run_writes_first(self, *args, **kwargs):
        target.write_text("the other run's table\n")
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(PCA, "fit_transform", other_run_writes_first)
    code, err = _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", str(target))
    assert code == 2 and "exists" in err, err
    assert target.read_text() == "the other run's table\n" and not _leftovers(tmp_path)


def test_partial_files_of_killed_runs_are_removed_by_the_next_write(tmp_path):
    dead = tmp_path / f".z.{2**22 + 7}-abc.partial.csv"  # above Linux's largest pid: no such process
    alive = tmp_path / f".z.{os.getpid()}-abc.partial.csv"  # a write of this process under way
    dead.write_text("half")
    alive.write_text("half")
    write_table(tmp_path / "z.csv", np.ones((2, 2)), ["a", "b"])
    assert not dead.exists() and alive.exists()


def test_closed_standard_output_runs_as_usual(tmp_path):
    target = tmp_path / "z.csv"
    command = f"exec {sys.executable} -m lowdim.cli.main embed --dataset iris -m pca -o {target} >&-"
    done = subprocess.run(["sh", "-c", command], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"internal error" not in done.stderr and target.exists()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["embed", "--dataset", "iris", "-m", "pca", "-k", "0", "-o", "{d}/z.csv"], "at least 1"),
        (["embed", "--dataset", "iris", "-m", "umap", "--pca", "0", "-o", "{d}/z.csv"], "at least 1"),
        (["cluster", "--dataset", "iris", "-m", "kmeans", "-k", "0", "-o", "{d}/z.csv"], "at least 1"),
    ],
)
def test_counts_below_one_are_refused(tmp_path, capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        main([a.format(d=tmp_path) for a in argv])
    assert exit_.value.code == 2 and words in capsys.readouterr().err


def test_an_infinite_parameter_is_refused_with_its_name(tmp_path, capsys):
    code, err = _run(
        capsys, "embed", "--dataset", "iris", "-m", "tsne", "--param", "perplexity=1e999", "-o", str(tmp_path / "z.csv")
    )
    assert code == 2 and "perplexity must be a finite number" in err, err


def test_a_plot_written_meanwhile_by_another_run_is_kept(tmp_path, capsys, monkeypatch):
    from lowdim.decomposition import PCA

    target = tmp_path / "z.png"
    fit = PCA.fit_transform

    def other_run_writes_first(self, *args, **kwargs):
        target.write_bytes(b"the other run's figure")
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(PCA, "fit_transform", other_run_writes_first)
    code, err = _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "--plot", str(target))
    assert code == 2 and "exists" in err, err
    assert target.read_bytes() == b"the other run's figure" and not _leftovers(tmp_path)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["embed", "-m", "tsne", "--param", "perplexity=abc"], "--param perplexity='abc' is refused"),
        (["embed", "-m", "pca", "-k", str(10**20)], f"-k {10**20} is more than pca can make of 150 x 4"),
        (["cluster", "-m", "kmeans", "-k", str(10**20)], f"-k {10**20} is more than kmeans can make"),
        (["embed", "-m", "pca", "--delimiter", ""], "--delimiter '' is not a field separator"),
        (["embed", "-m", "pca", "--delimiter", ";;"], "--delimiter ';;' is not a field separator"),
    ],
)
def test_parameters_are_refused_by_name(tmp_path, capsys, argv, words):
    """Each bad value is named as the user typed it, never a size no machine has or a
    conversion error without the parameter."""
    from sklearn.datasets import load_iris

    data = tmp_path / "iris.csv"
    np.savetxt(data, load_iris().data, delimiter=",", header="a,b,c,d", comments="")
    code, err = _run(capsys, *argv[:1], str(data), *argv[1:], "-o", str(tmp_path / "z.csv"))
    assert code == 2 and words in err, err


def test_cli_writes_compressed_tsv_that_reads_back(tmp_path, capsys):
    from lowdim.io import read_table

    out, plain = tmp_path / "map.tsv.gz", tmp_path / "map.csv"
    assert _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", str(out))[0] == 0
    assert _run(capsys, "embed", "--dataset", "iris", "-m", "pca", "-o", str(plain))[0] == 0
    packed, text = read_table(str(out), label_column="species"), read_table(str(plain), label_column="species")
    np.testing.assert_array_equal(packed.X, text.X)
    assert packed.feature_names == text.feature_names and packed.labels.tolist() == text.labels.tolist()
