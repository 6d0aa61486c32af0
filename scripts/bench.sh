#!/usr/bin/env bash
# Run one benchmark script with what it needs: Debian's dataset-fashion-mnist and .venv
# with the reference libraries (the bench extra). Usage:
#   scripts/bench.sh pca [CASE ...] [--repeats N]     # benchmarks/bench_pca.py
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:?usage: scripts/bench.sh pca|linear|cluster|density|manifold|embed|disconnected|graph|defaults|dask|choices|memory|scale|explore|coldstart|peer|mixed|singlecell|neural|awkward [args]}"
shift
script="$root/benchmarks/bench_$name.py"
[ -f "$script" ] || { echo "no benchmark $script" >&2; exit 2; }
bash "$root/scripts/debian-packages.sh" dataset-fashion-mnist
bash "$root/scripts/env.sh" dev,plot,io,ann,sdp,dask,bench,graph,neural
exec "$root/.venv/bin/python" "$script" "$@"
