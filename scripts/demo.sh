#!/usr/bin/env bash
# The main job on built-in data: `lowdim demo` on scikit-learn's digits (1797 x 64):
# PCA, t-SNE, UMAP and k-means, written to out/demo/ (report.html, scree.png, one PNG per
# method, kmeans.png). Creates .venv on first use; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/env.sh" plot
"$root/.venv/bin/lowdim" demo -o "$root/out/demo" --overwrite "$@"
