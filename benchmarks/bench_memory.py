"""Memory models against measured peaks: for each method, the working memory its fit
needs beyond the data (``lowdim.methods.memory_estimate``, which ``lowdim info`` prints
and the CLI checks before a run) next to the peak measured during the fit
(``lowdim._memory.peak_during``: the kernel's resident high-water mark, reset before the
fit, minus what was resident before), at 100,000 and 1,000,000 rows of 50 float32 columns (a rank-10 signal
plus noise). Each fit runs in a fresh process after a small warm-up fit (kernels
compiled, BLAS started). t-SNE, UMAP and PaCMAP run fewer iterations than by default:
their peak is the neighbour graph's (or pairs') and the gradient's, which every
iteration reuses; the neural encoders train for one or two epochs (each step reads one
batch, so memory does not grow with the epochs).
Target: prediction within 30 % of the measured peak.
Run:  scripts/bench.sh memory [CASE ...]   (cases: the method names below)
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import machine  # noqa: E402

METHODS = {
    "pca": {},
    "kmeans": {},
    "minibatch-kmeans": {},
    "gmm": {},
    "umap": {"n_epochs": 20},
    "tsne": {"max_iter": 260},
    "pacmap": {"num_iters": [5, 5, 10]},
    # training reads a batch at a time: a few epochs reach the steady state of many
    "autoencoder": {"max_iter": 2},
    "parametric-umap": {"n_epochs": 1},
    "parametric-tsne": {"n_epochs": 1},
}
ROWS = (100_000, 1_000_000)
D = 50

SCRIPT = r"""
import json, sys, warnings
import numpy as np
warnings.filterwarnings("ignore")
from lowdim._memory import peak_during
from lowdim.methods import CLUSTERINGS, make_estimator
name, n, d, params = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
rng = np.random.default_rng(0)
X = (rng.normal(size=(n, 10)) @ rng.normal(size=(10, d)) + rng.normal(size=(n, d))).astype(np.float32)
table = CLUSTERINGS if name in CLUSTERINGS else None
def fit(rows):
    return make_estimator(name, n_components=2, params=params, seed=0, table=table).fit(rows)
def compiled():
    # kernels compiled so far (numba counts a signature missing from its disk cache), read
    # off lowdim's modules: importing numba here would take its runtime out of the peak
    return sum(sum(getattr(v, "_cache_misses", {}).values()) for m in list(sys.modules.values())
               if m is not None and m.__name__.startswith("lowdim") for v in list(vars(m).values()))
THRESHOLDS = {  # module: sizes below which a path needs no kernel, read at each call
    "lowdim._kernels.symmetric_graph": ("SCIPY_EDGES",),  # scipy below
    "lowdim._kernels.components": ("SCIPY_EDGES",),
    "lowdim.embedding._smooth_knn_small": ("SMALL_FUZZY",),  # numpy below
    "lowdim.neighbors._exact": ("SMALL_PAIRS", "SMALL_TERMS"),
    "lowdim.neighbors._choose": ("APPROXIMATE_FROM",),  # the exact index below
    "lowdim.embedding._gradients": ("TREE_UP_TO",),  # the tree's repulsion up to
}
def kernel_paths(value):
    # a neighbour embedding's warm-up compiles the kernels its large graph takes, else the
    # fit runs twice (one warm-up only: a second leaves the allocator's heap otherwise);
    # other methods' thread pools start in the measured fit, as in a user's first large fit
    import importlib
    saved = []
    if name not in ("umap", "tsne", "pacmap", "parametric-umap", "parametric-tsne"):
        return saved
    for module in THRESHOLDS:
        importlib.import_module(module)
    for m in [m for m in list(sys.modules.values()) if m is not None and m.__name__.startswith("lowdim")]:
        for key in set(vars(m)) & {key for keys in THRESHOLDS.values() for key in keys}:
            saved.append((m, key, getattr(m, key)))
            setattr(m, key, value)
    return saved
saved = kernel_paths(0)
fit(X[:600])
for m, key, old in saved:
    setattr(m, key, old)
before = compiled()
peak = peak_during(lambda: fit(X))[1]
print(json.dumps([peak, compiled() - before]))
"""


def measure(name, n, params, d=D):
    """Peak working memory in bytes of ``name``'s fit on n x d float32 rows, in a fresh
    process (tests/test_memory_models.py uses it too). A fit that compiled a kernel (one
    that only data of this size reach, such as PCA's moments above ``SMALL_MOMENTS``
    entries, on a clean checkout) counted the compiler's memory as its own: it runs
    again, from the numba cache the first run filled."""
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, name, str(n), str(d), json.dumps(params)],
            capture_output=True,
            text=True,
            check=True,
        )
        peak, compiled = json.loads(out.stdout.strip().splitlines()[-1])
        if not compiled:
            break
    return peak


def main(argv=None):
    from lowdim.methods import memory_estimate

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("cases", nargs="*", metavar="METHOD", help=f"some of {', '.join(METHODS)} (default: all)")
    args = parser.parse_args(argv)
    print(machine())
    print("| method | rows | predicted MiB | measured MiB | error |")
    for name in args.cases or list(METHODS):
        for n in ROWS:
            peak = measure(name, n, METHODS[name])
            predicted = memory_estimate(name, n, D, 2, METHODS[name], itemsize=4)
            error = predicted / peak - 1
            print(f"| {name} | {n:,} | {predicted / 2**20:.0f} | {peak / 2**20:.0f} | {error:+.0%} |", flush=True)


if __name__ == "__main__":
    main()
