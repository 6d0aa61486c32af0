#!/usr/bin/env bash
# Build the sdist and the wheel (python -m build, wheel built from the sdist) and fail on
# any build warning; then install the wheel with the plot extra into a fresh virtualenv
# outside the source tree and use lowdim from there (every module imported, the bundled
# datasets, a report with its interactive map, a figure), so that a file missing from the
# package (modules, data, templates, scripts) is caught. Needs .venv (scripts/env.sh dev).
# Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
env -u PYTHONDONTWRITEBYTECODE "$root/.venv/bin/python" -m build --outdir "$work/dist" "$root" > "$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2; echo "wheel check: python -m build failed" >&2; exit 1; }
# file lists (copying/adding ... _warnings.py) are not warnings
if grep -vE "^(copying|adding|creating|removing|writing) " "$work/build.log" | grep -iE "warning|deprecat" >&2; then
    echo "wheel check: python -m build printed the warnings above" >&2
    exit 1
fi
wheel="$(ls "$work"/dist/lowdim-*.whl)"
python3 -m venv "$work/venv"
# installed by uv (scripts/env.sh puts it in .venv), which unpacks the plot extra's wheels in
# parallel, beside the documentation build; what is checked is the wheel's content
"$root/.venv/bin/python" -m uv pip install --quiet --python "$work/venv/bin/python" "$wheel[plot]"
cd "$work"   # away from src/, so only the installed package can be imported
version="$("$work/venv/bin/python" -c "import lowdim; print(lowdim.__version__)")"
[ "$("$work/venv/bin/lowdim" --version)" = "lowdim $version" ] || {
    echo "wheel check: 'lowdim --version' does not say lowdim $version" >&2; exit 1; }
"$work/venv/bin/python" -c "
import lowdim
assert lowdim.__file__.startswith('$work/venv/'), lowdim.__file__
images, person = lowdim.load_orl_faces()
assert images.shape == (400, 112, 92), images.shape
X, countries, foods = lowdim.load_uk_food()
assert X.shape == (4, 17), X.shape
"
# every module of the package imports (a module left out of the wheel fails here; a missing
# optional dependency, such as anndata or jax outside the plot extra, does not)
"$work/venv/bin/python" -c "
import importlib, pkgutil, lowdim
for module in pkgutil.walk_packages(lowdim.__path__, 'lowdim.'):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as exc:
        if (exc.name or '').startswith('lowdim'):
            raise
"
# the report's template and the interactive map's scripts, and a figure, from the wheel
"$work/venv/bin/lowdim" report --dataset digits --methods pca --quiet -o "$work/report.html"
"$work/venv/bin/lowdim" pca --dataset digits -k 2 --quiet -o "$work/pca.csv" --scree "$work/scree.png"
for f in report.html scree.png pca.csv; do
    [ -s "$work/$f" ] || { echo "wheel check: lowdim wrote no $f" >&2; exit 1; }
done
grep -q "regl-scatterplot" "$work/report.html" || {
    echo "wheel check: the report has no interactive map (plot/assets missing from the wheel?)" >&2; exit 1; }
echo "wheel check: $(basename "$wheel") installs and runs outside the source tree (lowdim $version)"
