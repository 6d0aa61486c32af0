#!/usr/bin/env bash
# The whole test suite (what CI runs). Installs what the tests need when it is missing:
# Debian's chromium + chromium-driver (the report's browser test) and dataset-fashion-mnist
# (the approximate-neighbour tests), .venv with the dev extras; then lints (ruff check and
# ruff format --check, configured in pyproject.toml), checks the built wheel in a fresh
# virtualenv (scripts/check-wheel.sh) while it builds the documentation site with warnings
# as errors (scripts/docs.sh: the gallery examples run, two at a time), and runs pytest on
# two workers (docstring examples, and the site in headless Chromium). Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS=0  # each phase's time is printed, so a slow CI run says where it went
bash "$root/scripts/debian-packages.sh" chromium chromium-driver dataset-fashion-mnist
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask,docs,graph,neural
echo "test.sh: packages and environment ready after ${SECONDS} s" >&2
cd "$root"
.venv/bin/ruff check src tests benchmarks examples docs/conf.py
.venv/bin/ruff format --check --quiet src tests benchmarks examples docs/conf.py
# the wheel check (its own virtualenv) runs beside the documentation build, whose two
# example processes compute on a core each: it computes on one thread too
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 bash "$root/scripts/check-wheel.sh" &
wheel_check=$!
bash "$root/scripts/docs.sh"
wait "$wheel_check"
echo "test.sh: lint, documentation site and wheel check done after ${SECONDS} s" >&2
# two pytest workers (pytest-xdist), each taking the next test when it is free
exec "$root/.venv/bin/python" -m pytest -q -n 2 --dist worksteal "$@"
