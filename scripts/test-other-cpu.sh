#!/usr/bin/env bash
# The test suite as another CPU runs it: OpenBLAS's kernels for CORE (default Haswell:
# AVX2 and FMA, as AMD Zen 2/3 and Intel machines without AVX-512 use) and numba code
# for the same CPU, with their own numba cache. Results that pass on this machine's
# AVX-512 kernels but differ in the last bits elsewhere (a tolerance fitted to one CPU,
# a choice made by rounding) fail here. Arguments go to pytest.
# Usage: scripts/test-other-cpu.sh [--core Sandybridge] [PYTEST ARGS ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
core=Haswell
if [[ "${1:-}" == "--core" ]]; then core="$2"; shift 2; fi
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask,docs,graph,neural
cd "$root"
cpu="$(echo "$core" | tr '[:upper:]' '[:lower:]')"
export OPENBLAS_CORETYPE="$core" NUMBA_CPU_NAME="$cpu" NUMBA_CACHE_DIR="${TMPDIR:-/tmp}/lowdim-numba-$cpu"
exec "$root/.venv/bin/python" -m pytest -q -n 2 --dist worksteal -p no:cacheprovider "$@"
