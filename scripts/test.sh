#!/usr/bin/env bash
# The whole test suite (what CI runs). Installs what the tests need when it is missing:
# Debian's chromium + chromium-driver (the report's browser test) and dataset-fashion-mnist
# (the approximate-neighbour tests), .venv with the dev extras; then lints (ruff check and
# ruff format --check, configured in pyproject.toml), checks the built wheel in a fresh
# virtualenv (scripts/check-wheel.sh) and runs pytest. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/debian-packages.sh" chromium chromium-driver dataset-fashion-mnist
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask
cd "$root"
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check --quiet src tests benchmarks
bash "$root/scripts/check-wheel.sh"
exec "$root/.venv/bin/python" -m pytest -q "$@"
