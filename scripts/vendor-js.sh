#!/usr/bin/env bash
# Rebuild the vendored WebGL scatter library of the interactive map (lowdim.plot.explore):
# regl-scatterplot and its dependencies from the npm registry, bundled by esbuild into one
# script that defines window.createScatterplot and window.createScatterplotRenderer, with
# the licences of every bundled package beside it. The output is committed, so installing
# or running lowdim never needs node; run this only to move to another version:
#   scripts/vendor-js.sh [VERSION]        (needs node and npm)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${1:-1.16.0}"
out="$root/src/lowdim/plot/assets"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "regl-scatterplot@$version" esbuild@0.25
cat > entry.js <<'JS'
import createScatterplot, { createRenderer } from "regl-scatterplot";
window.createScatterplot = createScatterplot;
window.createScatterplotRenderer = createRenderer;
JS
npx esbuild entry.js --bundle --minify --format=iife --target=es2020 --legal-comments=none \
    --banner:js="/* regl-scatterplot $version and its dependencies, bundled by lowdim's scripts/vendor-js.sh; licences in THIRD_PARTY_LICENSES.txt */" \
    --outfile="$out/regl-scatterplot.min.js"
{
    echo "Licences of the JavaScript packages bundled in regl-scatterplot.min.js"
    echo "(regl-scatterplot $version and its dependencies, from the npm registry)."
    for dir in $(npm ls --all --parseable --omit=dev | tail -n +2 | grep -v esbuild); do
        name="$(node -p "require('$dir/package.json').name + ' ' + require('$dir/package.json').version")"
        echo
        echo "=== $name ==="
        licence="$(ls "$dir" | grep -i -m1 '^licen[cs]e' || true)"
        if [ -n "$licence" ]; then cat "$dir/$licence"; else node -p "'License: ' + require('$dir/package.json').license"; fi
    done
} > "$out/THIRD_PARTY_LICENSES.txt"
echo "wrote $out/regl-scatterplot.min.js and THIRD_PARTY_LICENSES.txt"
