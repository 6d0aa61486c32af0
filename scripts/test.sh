#!/usr/bin/env bash
# The whole test suite. Creates .venv with the dev extras on first use and installs
# Debian's chromium + chromium-driver for the report's browser test; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
fi
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask
cd "$root"
exec "$root/.venv/bin/python" -m pytest -q "$@"
