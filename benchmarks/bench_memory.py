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
fit(X[:600])
print(json.dumps(peak_during(lambda: fit(X))[1]))
"""


def measure(name, n, params, d=D):
    """Peak working memory in bytes of ``name``'s fit on n x d float32 rows, in a fresh
    process (tests/test_memory_models.py uses it too). An identical run first fills the
    numba cache: a kernel that only data of this size reach (PCA's moments above
    ``SMALL_MOMENTS`` entries) would otherwise be compiled during the measured fit, on a
    clean checkout, and the compiler's memory counted as the fit's."""
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, name, str(n), str(d), json.dumps(params)],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


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
