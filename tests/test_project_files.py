"""The project stands alone: no file points outside the repository, and the files that
ship or document it speak of the project, not of how it was built."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKED = [
    "README.md",
    "BENCHMARKS.md",
    "CHANGELOG.md",
    "pyproject.toml",
    ".ci",
    "scripts",
    "src",
    "tests",
    "benchmarks",
    "docs",
    "examples",
]
GENERATED = ("egg-info", "__pycache__", "docs/_build", "docs/generated", "docs/auto_examples")
PATTERNS = {
    "a path outside the repository": re.compile(r"\.\./shared"),
    "a work-log reference": re.compile(r"\(issues? \d+|\bissue #?\d+\b|\bsession\b", re.IGNORECASE),
}


def _text_files():
    for name in CHECKED:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if any(part in str(file) for part in GENERATED) or file.suffix in {".pgm", ".npy", ".png"}:
                continue
            yield file


def test_no_file_points_outside_the_project_or_tells_its_history():
    found = []
    this = pathlib.Path(__file__).resolve()
    for file in _text_files():
        if file == this:
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        for what, pattern in PATTERNS.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{file.relative_to(ROOT)}:{line}: {what} ({match.group(0)!r})")
    assert not found, "\n".join(found)


def test_the_documents_the_readme_links_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert {"docs/reliability.md", "docs/design.md", "CHANGELOG.md", "BENCHMARKS.md"} <= set(links)
    for link in links:
        if "://" not in link:
            assert (ROOT / link).exists(), link


def test_bundled_data_is_declared_as_package_data():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = ROOT / "src" / "lowdim" / "datasets" / "data"
    for folder in ("orl_faces", "uk_food"):
        assert (data / folder).is_dir() and f"datasets/data/{folder}/" in pyproject
