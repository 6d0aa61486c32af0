"""End to end: `lowdim report` writes one page that headless Chromium renders with every
image loaded, the interactive map drawn, and no console errors."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest


def lowdim_command():
    return [os.path.join(os.path.dirname(sys.executable), "lowdim")]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 6, (4, 12))
    X = np.vstack([c + rng.normal(size=(60, 12)) for c in centers])
    labels = np.repeat(["alpha", "beta", "gamma", "=delta"], 60)
    with open(folder / "data.csv", "w") as fh:
        fh.write(",".join(f"f{j}" for j in range(12)) + ",kind\n")
        for row, label in zip(X, labels):
            fh.write(",".join(f"{v:.5f}" for v in row) + f",{label}\n")
    out = folder / "report.html"
    result = subprocess.run(
        lowdim_command()
        + [
            "report",
            str(folder / "data.csv"),
            "--methods",
            "pca,tsne,umap",
            "--label-column",
            "kind",
            "-o",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return out, result.stdout


def test_report_json_names_every_method_with_its_quality(report):
    import json

    _, stdout = report
    summary = json.loads(stdout)
    assert set(summary["methods"]) == {"pca", "tsne", "umap"}
    for scores in summary["methods"].values():
        assert 0.5 < scores["trustworthiness"] <= 1 and 0.9 < scores["knn_accuracy"] <= 1
    assert summary["summary"]["classes"] == {"=delta": 60, "alpha": 60, "beta": 60, "gamma": 60}


def test_report_is_self_contained(report):
    path, _ = report
    page = path.read_text()
    # scree, three embeddings (printed) and the Q_NX curves
    assert page.count('<img src="data:image/png;base64,') == 5
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing fetched from a network
    assert page.count('class="lowdim-explorer"') == 1
    for heading in ("Data", "Principal components", "Embeddings", "Quality"):
        assert f"<h2>{heading}</h2>" in page


def test_report_renders_in_headless_chromium(report, chromium):
    path, _ = report
    chromium.get(path.as_uri())
    images = chromium.execute_script(
        "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight]);"
    )
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script(
            "return !!(window.lowdimExplorers[0] && window.lowdimExplorers[0].timing.firstFrame)"
        )
    )
    maps = chromium.execute_script("return window.lowdimExplorers[0].maps.map(m => m.spec.name.split(' ')[0])")
    errors = [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    rows = chromium.execute_script("return document.querySelectorAll('table')[1].rows.length;")
    chromium.save_screenshot(str(path.with_suffix(".png")))
    assert len(images) == 5 and all(done and w > 100 and h > 100 for done, w, h in images)
    assert errors == []
    assert maps == ["pca", "tsne", "umap"]
    assert rows == 4  # the quality table: header + one row per method


HOSTILE = "<!--<script> &amp;"  # unclosed: inside a <script> it would swallow the page
SCRIPT = "</script><script>window.pwned=1</script>"  # would end the JSON block and run


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory):
    """A report and a map whose labels and column names carry markup that would end the
    page's JSON block or open a comment, were it not escaped."""
    folder = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(1)
    X = np.vstack([c + rng.normal(size=(40, 3)) for c in (0.0, 8.0)])
    with open(folder / "data.csv", "w") as fh:
        fh.write(f'a,"{SCRIPT}",c,kind\n')
        for i, row in enumerate(X):
            fh.write(",".join(f"{v:.5f}" for v in row) + (f',"{HOSTILE}"\n' if i < 40 else ",plain\n"))
    pages = {}
    for command in ("report", "explore"):
        out = folder / f"{command}.html"
        argv = [command, str(folder / "data.csv"), "--methods", "pca", "--label-column", "kind", "-o", str(out)]
        result = subprocess.run(lowdim_command() + argv, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        pages[command] = out
    return pages


@pytest.mark.parametrize("command", ["report", "explore"])
def test_markup_in_labels_and_column_names_is_shown_as_text(hostile_pages, chromium, command):
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get(hostile_pages[command].as_uri())
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script(
            "return !!(window.lowdimExplorers[0] && window.lowdimExplorers[0].timing.firstFrame)"
        )
    )
    errors = [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    ex = "window.lowdimExplorers[0]"
    legend = chromium.execute_script(f"return {ex}.legend.innerText")
    text = chromium.execute_script("return document.body.innerText")
    assert errors == []
    assert chromium.execute_script("return window.pwned === undefined")  # no script of the data ran
    assert HOSTILE in legend and "plain" in legend  # the label, as typed, beside the other class
    assert chromium.execute_script(f"return {ex}.maps.length") == 1
    if command == "report":  # the report's own sections survive the markup before them
        assert "Quality" in text and "Principal components" in text
