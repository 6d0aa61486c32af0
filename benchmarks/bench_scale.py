"""Millions of rows: UMAP, t-SNE and KMeans on augmented Fashion-MNIST reduced to 50
dimensions (``_scale_data``: generated, never downloaded), against umap-learn, openTSNE
(FFT) and scikit-learn in the same run, the kNN graph alone, and the streaming PCA that
produces the scores.

Every fit runs in a fresh process (imports and numba caches loaded by a small warm-up
fit first, not timed) that loads the scores into memory, so its peak resident memory
(VmHWM: the data, the libraries and the fit) is what a user's process would need. Both
libraries get 2 threads; lowdim seeded, umap-learn unseeded (seeded, it runs on one
thread), openTSNE and scikit-learn seeded. A run past 2 hours is stopped and recorded.
Quality on a fixed sample of 10,000 rows: trustworthiness (k = 10) against their PCA-50
scores and 10-NN accuracy (80/20 split) of their embedding; for KMeans the inertia; for
the kNN graph (k = 15, ``NeighborGraph.build``'s default search) its recall on 1,000 rows
against exact neighbours.

Cases:
  pca     the 1,000,000 x 784 float32 file (3.1 GB) through lowdim's covariance PCA
          (memory-mapped, one pass to fit), its page cache dropped first; against
          reading the file alone from a dropped cache; memory beyond the page cache is
          the peak of the process's anonymous memory (RssAnon, sampled every 10 ms)
  500k    UMAP, t-SNE (750 iterations, openTSNE's schedule), KMeans (k = 100, one
          k-means++ start) at 500,000 rows, against the references
  1m      UMAP and t-SNE at 1,000,000 rows (lowdim only)
  5m      the kNN graph, UMAP, t-SNE and KMeans at 5,000,000 rows (lowdim only)
Run:  scripts/bench.sh scale [CASE ...] [--repeats N]   (--repeats: runs per fit, default 1)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _scale_data  # noqa: E402
from bench_pca import machine  # noqa: E402

THREADS = 2
TIMEOUT_S = 7200
SAMPLE = 10_000
RECALL_ROWS = 1_000  # rows whose approximate neighbours are checked against exact ones

FITS = {
    ("lowdim", "umap"): "from lowdim import UMAP; fit = lambda X, s: UMAP(random_state=s, n_jobs=2).fit_transform(X)",
    ("umap-learn", "umap"): "import umap; fit = lambda X, s: umap.UMAP(n_jobs=2).fit_transform(X)",
    ("lowdim", "tsne"): (
        "from lowdim import TSNE; fit = lambda X, s: TSNE(max_iter=750, random_state=s, n_jobs=2).fit_transform(X)"
    ),
    ("openTSNE", "tsne"): (
        "import openTSNE; fit = lambda X, s: np.asarray(openTSNE.TSNE(n_jobs=2, random_state=s).fit(X))"
    ),
    ("lowdim", "kmeans"): (
        "from lowdim import KMeans\n"
        "def fit(X, s):\n"
        "    m = KMeans(100, n_init=1, random_state=s).fit(X)\n"
        "    return np.array([m.inertia_])"
    ),
    ("lowdim", "knn"): (
        "from lowdim import NeighborGraph\n"
        "def fit(X, s):\n"
        "    g = NeighborGraph.build(X, 15)\n"
        f"    return g.indices[np.sort(np.random.default_rng(0).choice(len(X), {RECALL_ROWS}, replace=False))]"
    ),
    ("scikit-learn", "kmeans"): (
        "from sklearn.cluster import KMeans\n"
        "def fit(X, s):\n"
        "    m = KMeans(100, n_init=1, random_state=s).fit(X)\n"
        "    return np.array([m.inertia_])"
    ),
}

RUNNER = r"""
import json, os, sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
{fit}
path, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
X = np.load(path)
fit(X[:30_000], 0)  # warm-up: kernels compiled or loaded, large-data paths taken
start = time.perf_counter()
Y = fit(X, seed)
seconds = time.perf_counter() - start
np.save(out, np.asarray(Y))
peak = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "peak": peak}}))
"""


def run_fit(library, method, n, seed):
    """``(seconds, peak bytes, output)`` of one fit in a fresh process; None if it
    failed or ran past the limit (with the reason)."""
    z_path = _scale_data.paths(n)[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "Y.npy")
        script = RUNNER.format(fit=FITS[(library, method)])
        try:
            done = subprocess.run(
                [sys.executable, "-c", script, z_path, out, str(seed)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return None, f"stopped after {TIMEOUT_S / 3600:.0f} h"
        if done.returncode != 0:
            return None, f"failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
        result = json.loads(done.stdout.strip().splitlines()[-1])
        return (result["seconds"], result["peak"], np.load(out)), None


def quality(Z, y, Y):
    """Trustworthiness (k = 10) and 10-NN accuracy on the fixed 10,000-row sample."""
    from lowdim.metrics import knn_accuracy, trustworthiness

    rows = np.sort(np.random.default_rng(0).choice(len(Z), SAMPLE, replace=False))
    X, E = np.asarray(Z[rows], dtype=np.float64), np.asarray(Y[rows], dtype=np.float64)
    return trustworthiness(X, E, n_neighbors=10), knn_accuracy(E, y[rows], n_neighbors=10, random_state=0)


def recall(Z, found):
    """Recall of the neighbour lists ``found`` of the fixed ``RECALL_ROWS`` rows against
    their exact neighbours (scikit-learn's brute force), the row itself left out."""
    from sklearn.neighbors import NearestNeighbors

    rows = np.sort(np.random.default_rng(0).choice(len(Z), RECALL_ROWS, replace=False))
    k = found.shape[1]
    exact = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(Z).kneighbors(Z[rows], return_distance=False)
    truth = [e[e != r][:k] for e, r in zip(exact, rows)]
    return (float(np.mean([len(set(f) & set(t)) / k for f, t in zip(found, truth)])),)


def measure(library, method, n, repeats, Z, y):
    """Median seconds, peak bytes and quality of ``repeats`` runs (or the failure)."""
    runs = []
    for seed in range(repeats):
        result, failure = run_fit(library, method, n, seed)
        if failure:
            return {"library": library, "failure": failure}
        seconds, peak, Y = result
        q = (float(Y[0]),) if method == "kmeans" else recall(Z, Y) if method == "knn" else quality(Z, y, Y)
        runs.append((seconds, peak, q))
        print(f"  {library} {method} n={n}: {seconds:.0f} s, peak {peak / 2**30:.2f} GiB, quality {q}", flush=True)
    return {
        "library": library,
        "seconds": statistics.median(r[0] for r in runs),
        "peak_gib": max(r[1] for r in runs) / 2**30,
        "quality": tuple(statistics.median(r[2][i] for r in runs) for i in range(len(runs[0][2]))),
        "runs": [round(r[0], 1) for r in runs],
    }


def compared(method, n, reference, repeats):
    Z, y = _scale_data.pca50(n)
    results = []
    for library in ("lowdim", reference) if reference else ("lowdim",):
        results.append(measure(library, method, n, repeats, Z, y))
    return [{"method": method, "rows": n, **r} for r in results]


def case_500k(repeats):
    n = 500_000
    return [
        *compared("umap", n, "umap-learn", repeats),
        *compared("tsne", n, "openTSNE", repeats),
        *compared("kmeans", n, "scikit-learn", repeats),
    ]


def case_1m(repeats):
    return [*compared("umap", 1_000_000, None, repeats), *compared("tsne", 1_000_000, None, repeats)]


def case_5m(repeats):
    n = 5_000_000
    return [*(row for method in ("knn", "umap", "tsne", "kmeans") for row in compared(method, n, None, repeats))]


def _drop_cache(path):
    """Evict the file's pages from the page cache (clean pages: no privileges needed)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _read_alone(path, block=64 << 20):
    buf = bytearray(block)
    with open(path, "rb", buffering=0) as fh:
        while fh.readinto(buf):
            pass


PCA_RUN = r"""
import sys, threading, time, json
import numpy as np
from lowdim import PCA
def anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
X = np.load(sys.argv[1], mmap_mode="r")
PCA(50, solver="covariance").fit(np.asarray(X[:20000]))  # warm-up: BLAS threads, kernels
base, peak, done = anon(), [0], threading.Event()
def sample():
    while not done.wait(0.01):
        peak[0] = max(peak[0], anon() - base)
threading.Thread(target=sample, daemon=True).start()
start = time.perf_counter()
pca = PCA(50, solver="covariance").fit(X)
seconds = time.perf_counter() - start
done.set()
print(json.dumps({"seconds": seconds, "anon_peak": max(peak[0], anon() - base)}))
"""


def case_pca(repeats):
    x_path, _ = _scale_data.images(1_000_000)
    size = os.path.getsize(x_path)
    reads, fits, peaks = [], [], []
    for _ in range(repeats):
        _drop_cache(x_path)
        start = time.perf_counter()
        _read_alone(x_path)
        reads.append(time.perf_counter() - start)
        _drop_cache(x_path)
        out = subprocess.run([sys.executable, "-c", PCA_RUN, x_path], capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        fits.append(result["seconds"])
        peaks.append(result["anon_peak"])
        print(f"  read {reads[-1]:.1f} s, PCA {fits[-1]:.1f} s, anonymous peak {peaks[-1] / 2**20:.0f} MiB", flush=True)
    read, fit = statistics.median(reads), statistics.median(fits)
    return [
        {
            "method": "pca-stream",
            "rows": 1_000_000,
            "library": "lowdim",
            "seconds": fit,
            "read_seconds": read,
            "throughput": read / fit,
            "file_gb": size / 1e9,
            "peak_gib": max(peaks) / 2**30,
            "runs": [round(t, 1) for t in fits],
        }
    ]


CASES = {"pca": case_pca, "500k": case_500k, "1m": case_1m, "5m": case_5m}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"some of {', '.join(CASES)} (default: all)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--prepare", action="store_true", help="only write the data sets the cases need")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    cases = args.cases or list(CASES)
    if args.prepare:
        sizes = {"pca": [1_000_000], "500k": [500_000], "1m": [1_000_000], "5m": [5_000_000]}
        for n in sorted({n for c in cases for n in sizes[c]}):
            _scale_data.pca50(n)
        return
    print(machine())
    for name in cases:
        for row in CASES[name](args.repeats):
            print(json.dumps(row, default=str), flush=True)


if __name__ == "__main__":
    main()
