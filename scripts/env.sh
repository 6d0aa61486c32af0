#!/usr/bin/env bash
# Create (or reuse) the project's virtualenv in .venv and install lowdim with the
# extras given as arguments (packages from PyPI, installed by uv). Idempotent:
# reinstalls only when pyproject.toml or the extras change. Usage: scripts/env.sh dev,plot
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
extras="${1:-plot}"
venv="$root/.venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
stamp="$venv/.lowdim-installed-$(echo "$extras" | tr ',' '-')"
want="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
# uv (from PyPI, through pip) fetches and unpacks the extras' ~150 wheels in parallel:
# pip, one at a time, took most of a clean CI run's environment phase
"$venv/bin/python" -m uv --version > /dev/null 2>&1 || "$venv/bin/python" -m pip install --quiet uv
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$venv/bin/python" -m uv pip install --quiet --python "$venv/bin/python" -e "$root[$extras]"
    echo "$want" > "$stamp"
fi
