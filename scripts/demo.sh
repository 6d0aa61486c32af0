#!/usr/bin/env bash
# The main job on built-in data: PCA of scikit-learn's digits (1797 x 64). Prints the
# explained-variance table, writes out/digits_scree.png and out/digits_pca_2d.csv.
# Creates .venv on first use; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/env.sh" plot
mkdir -p "$root/out"
"$root/.venv/bin/lowdim" pca --dataset digits --variance 0.9 --overwrite \
    --scree "$root/out/digits_scree.png" \
    -o "$root/out/digits_pca_2d.csv" --embedding-dims 2
