#!/usr/bin/env bash
# The whole test suite. Creates .venv with the dev extras on first use; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/env.sh" dev,plot,io,ann
cd "$root"
exec "$root/.venv/bin/python" -m pytest -q "$@"
