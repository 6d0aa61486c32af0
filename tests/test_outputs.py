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

    monkeypatch.setattr("lowdim.cli._common.load_data", no_work)
    monkeypatch.setattr("lowdim.cli._embed.load_data", no_work, raising=False)
    monkeypatch.setattr("lowdim.cli._report.load_data", no_work, raising=False)
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
