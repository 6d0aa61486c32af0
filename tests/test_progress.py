"""Progress without a terminal: whole lines in a log, never carriage-return fragments."""

import os
import subprocess
import sys

import lowdim._progress as progress


def test_a_logged_run_writes_whole_lines(tmp_path):
    command = [os.path.join(os.path.dirname(sys.executable), "lowdim"), "embed", "--dataset", "digits"]
    done = subprocess.run(
        command + ["-m", "umap", "-o", str(tmp_path / "map.csv")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr  # no redraws, no terminal codes
    lines = done.stderr.splitlines()
    assert "UMAP layout: done 500/500 epoch" in done.stderr
    assert all(line.startswith(("UMAP", "kNN", "lowdim embed: warning")) for line in lines), lines


def test_a_long_stage_writes_a_line_now_and_then(monkeypatch, capsys):
    monkeypatch.setattr(progress, "_interactive", lambda: False)
    monkeypatch.setattr(progress, "LINE_EVERY", 0.0)  # every update is "a while"
    with progress.progress_bar(total=3, desc="stage", unit="row") as bar:
        for _ in range(3):
            bar.update()
    lines = capsys.readouterr().err.splitlines()
    assert lines[:3] == [line for line in lines[:3] if line.startswith("stage: ")]
    assert [line.split(" in ")[0] for line in lines] == [
        "stage: 1/3 row",
        "stage: 2/3 row",
        "stage: 3/3 row",
        "stage: done 3/3 row",
    ]
    assert list(progress.progress_bar(range(2), desc="quiet", disable=True)) == [0, 1]


def test_a_timer_without_a_count_says_done_in_its_time(monkeypatch, capsys):
    monkeypatch.setattr(progress, "_interactive", lambda: False)
    with progress.progress_bar(desc="fit", unit="it"):
        pass
    assert capsys.readouterr().err.startswith("fit: done in ")


def test_work_stopped_by_an_error_is_not_said_done(tmp_path):
    """An image smaller than the patch: the error came after a line saying the work was
    done ('compress: done in 0.0 s'), which it was not."""
    import numpy as np
    from PIL import Image

    Image.fromarray(np.zeros((5, 5), dtype=np.uint8)).save(tmp_path / "tiny.png")
    command = [os.path.join(os.path.dirname(sys.executable), "lowdim"), "compress", str(tmp_path / "tiny.png")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "patch=12 must be between 1 and the image's smaller side 5" in done.stderr
    assert " done" not in done.stderr
