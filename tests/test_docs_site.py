"""The documentation site: it builds without a warning (scripts/docs.sh, run by
scripts/test.sh before the suite), every page loads in headless Chromium without a
console error, no internal link or image is broken, every public name has its API page,
search finds what a user types, and every code block of the user guide runs."""

import functools
import html.parser
import importlib
import inspect
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse

import pytest
from test_docstrings import MODULES

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "docs" / "_build" / "html"


@pytest.fixture(scope="module")
def site():
    """The built site; built here (as scripts/docs.sh does) when the test runs alone."""
    if not (SITE / "index.html").exists():
        subprocess.run(
            [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", ".", str(SITE)],
            cwd=ROOT / "docs",
            check=True,
        )
    return SITE


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name) and tag in ("a", "img", "link", "script"):
                self.targets.append(attrs[name])


def _pages(site):
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def test_no_broken_internal_link_or_image(site):
    broken = []
    exists = functools.cache(os.path.exists)  # every page links the same navigation
    for page in _pages(site):
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        for target in parser.targets:
            parts = urllib.parse.urlsplit(target)
            if parts.scheme or parts.netloc or not parts.path:  # external, or an anchor on the page
                continue
            if not exists(os.path.normpath(os.path.join(page.parent, urllib.parse.unquote(parts.path)))):
                broken.append(f"{page.relative_to(site)} -> {target}")
    assert not broken, broken[:20]


API_SAMPLE = 16  # one API page in this many is loaded: autosummary writes them all from one template


def test_every_written_page_and_a_sample_of_api_pages_load_without_console_errors(site, chromium):
    pages = _pages(site)
    api = [p for p in pages if "generated" in p.parts]
    failures = []
    for page in [p for p in pages if "generated" not in p.parts] + api[::API_SAMPLE]:
        chromium.get(page.as_uri())
        title = chromium.title
        errors = [e["message"] for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        if not title or errors:
            failures.append((str(page.relative_to(site)), title, errors[:2]))
    assert not failures, failures[:10]


def test_gallery_pages_show_their_figures(site, chromium):
    examples = sorted((site / "auto_examples").glob("plot_*.html"))
    assert len(examples) >= 10
    for page in examples:
        chromium.get(page.as_uri())
        sizes = chromium.execute_script(
            "return Array.from(document.querySelectorAll('img.sphx-glr-single-img, img.sphx-glr-multi-img'))"
            ".map(i => [i.complete, i.naturalWidth]);"
        )
        assert sizes and all(done and width > 100 for done, width in sizes), page.name


def test_search_finds_perplexity(site, chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get((site / "search.html").as_uri() + "?q=perplexity")
    WebDriverWait(chromium, 30).until(  # the summary line appears when the search is done
        lambda d: "found" in " ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#search-results p")).lower()
    )
    hits = [a.get_attribute("href") for a in chromium.find_elements(By.CSS_SELECTOR, "#search-results li a")]
    assert any("neighbor_embeddings" in h or "TSNE" in h for h in hits), hits[:10]


def test_api_reference_lists_every_public_name():
    listed = set(re.findall(r"^   (\w+)$", (ROOT / "docs" / "api.rst").read_text(), flags=re.M))
    missing = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and name not in listed:
                missing.append(f"{module_name}.{name}")
    assert not missing, missing


def _guide_pages():
    """Each guide page's Python code blocks, in order (a page runs as one script)."""
    for page in sorted((ROOT / "docs" / "guide").glob("*.rst")):
        blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", page.read_text())
        if blocks:
            yield pytest.param(["\n".join(line[3:] for line in b.splitlines()) for b in blocks], id=page.stem)


@pytest.mark.parametrize("blocks", list(_guide_pages()))
def test_guide_code_blocks_run(blocks, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__guide__"}
    for code in blocks:
        exec(compile(code, "<guide>", "exec"), namespace)
    printed = capsys.readouterr().out
    # every page shows its reader a result, and no result is undefined
    assert printed.strip() and "nan" not in printed.lower().split()
