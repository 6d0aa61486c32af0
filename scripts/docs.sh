#!/usr/bin/env bash
# Build the documentation site into docs/_build/html (Sphinx, numpydoc, sphinx-gallery,
# pydata-sphinx-theme: the docs extra), with warnings as errors; the gallery examples
# run during the build. Creates .venv and installs what the examples need (Debian's
# dataset-fashion-mnist, and chromium for the interactive map's screenshot) on first use;
# safe to run again. Open docs/_build/html/index.html.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/debian-packages.sh" dataset-fashion-mnist chromium chromium-driver
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask,docs,graph,neural
cd "$root/docs"
rm -rf generated auto_examples _build/html
# -j 2: pages are read and written by two processes once the gallery has run (10 s of 140)
exec "$root/.venv/bin/python" -m sphinx -W --keep-going -q -j 2 -b html . _build/html "$@"
