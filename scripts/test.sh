#!/usr/bin/env bash
# The whole test suite (what CI runs). Installs what the tests need when it is missing:
# Debian's chromium + chromium-driver (the report's browser test) and dataset-fashion-mnist
# (the approximate-neighbour tests), .venv with the dev extras; then lints (ruff check and
# ruff format --check, configured in pyproject.toml), then runs pytest on two workers
# (docstring examples, and the site in headless Chromium) while it checks the built wheel
# in a fresh virtualenv (scripts/check-wheel.sh) and builds the documentation site with
# warnings as errors (scripts/docs.sh: the gallery examples run, two at a time); fails if
# any of the three fails. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS=0  # each phase's time is printed, so a slow CI run says where it went
bash "$root/scripts/debian-packages.sh" chromium chromium-driver dataset-fashion-mnist
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask,docs,graph,neural
echo "test.sh: packages and environment ready after ${SECONDS} s" >&2
cd "$root"
.venv/bin/ruff check src tests benchmarks examples docs/conf.py
.venv/bin/ruff format --check --quiet src tests benchmarks examples docs/conf.py
# the wheel check (its own virtualenv) and the documentation build run beside pytest, so
# that the cores the suite leaves idle (subprocesses starting, browsers, Dask clusters)
# run the gallery's examples; each computes on one thread, as each pytest worker does.
# The site's own tests wait for the build (LOWDIM_SITE_BUILD_STATUS: its exit status).
logs="$(mktemp -d)"
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$logs"' EXIT  # an interrupted run stops the builds too
export LOWDIM_SITE_BUILD_STATUS="$logs/docs.status"
(
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 bash "$root/scripts/check-wheel.sh" \
        > "$logs/wheel.log" 2>&1 && status=0 || status=$?
    echo "$status" > "$logs/wheel.status"
) &
(
    bash "$root/scripts/docs.sh" > "$logs/docs.log" 2>&1 && status=0 || status=$?
    echo "test.sh: documentation site built after ${SECONDS} s (exit status $status)" >> "$logs/docs.log"
    echo "$status" > "$logs/docs.status.part" && mv "$logs/docs.status.part" "$LOWDIM_SITE_BUILD_STATUS"
) &
# two pytest workers (pytest-xdist), each taking the next test when it is free
"$root/.venv/bin/python" -m pytest -q -n 2 --dist worksteal "$@" && tests=0 || tests=$?
echo "test.sh: pytest done after ${SECONDS} s" >&2
wait
cat "$logs/wheel.log" "$logs/docs.log" >&2
failed=0
[ "$tests" = 0 ] || { echo "test.sh: pytest failed (exit status $tests)" >&2; failed=1; }
[ "$(cat "$logs/wheel.status")" = 0 ] || { echo "test.sh: the wheel check failed (output above)" >&2; failed=1; }
[ "$(cat "$LOWDIM_SITE_BUILD_STATUS")" = 0 ] || { echo "test.sh: the documentation build failed (output above)" >&2; failed=1; }
exit "$failed"
