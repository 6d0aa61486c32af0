"""Disconnected data: UMAP of well-separated groups (whose neighbour graph falls apart
into components) against umap-learn, in the same run.

Every run is a fresh process that warms up on the first 25,000 rows (kernels compiled or
loaded, large-data paths taken: both libraries), then times one fit; its peak resident
memory (VmHWM) is read at the end. Runs alternate lowdim / umap-learn; medians.
Both libraries: defaults, 2 threads (umap-learn unseeded: seeded, it runs on one thread).

'blobs-100k', 'blobs-1m': two Gaussian blobs in 20 dimensions (``X[:n//2] += 3``, the
issue's reproduction), and lowdim on one connected blob of the same size (the target:
disconnected within 1.3x of connected). 'clusters-300k': 300,000 x 200 float32 rows from
30 Gaussian clusters through the command line, ``lowdim embed x.npy -m umap --pca 50``
(wall time of the whole command and its peak memory), against scikit-learn's PCA(50) +
umap-learn in one process. 'many-clusters': 1,000 clusters of 100 points in 20
dimensions; 'outliers': the same with 1 % uniform outliers. Quality of every map: 10-NN
accuracy of the cluster labels (80/20 split; outliers left out) and the share of points
with a point of another cluster among their 10 nearest in the map ("mixed").
Run:  scripts/bench.sh disconnected [CASE ...] [--repeats 3]
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import run_cli  # noqa: E402

THREADS = 2
FITS = {
    "lowdim": "from lowdim import UMAP\ndef fit(X, s):\n    return UMAP(random_state=s, n_jobs=2).fit_transform(X)\n",
    "umap-learn": "import umap\ndef fit(X, s):\n    return umap.UMAP(n_jobs=2).fit_transform(X)\n",
    "umap-learn+pca": (
        "import umap\nfrom sklearn.decomposition import PCA\n"
        "def fit(X, s):\n    return umap.UMAP(n_jobs=2).fit_transform(PCA(50, random_state=s).fit_transform(X))\n"
    ),
}
RUNNER = """
import json, sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
{fit}
path, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
X = np.load(path)
fit(X[:25_000], 0)
start = time.perf_counter()
Y = fit(X, seed)
seconds = time.perf_counter() - start
np.save(out, np.asarray(Y))
peak = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "peak": peak}}))
"""


def two_blobs(n, connected=False, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20)).astype(np.float32)
    y = np.r_[np.ones(n // 2, dtype=int), np.zeros(n - n // 2, dtype=int)]
    if not connected:
        X[: n // 2] += 3
    return X, y


def clusters(n_clusters, size, dim, spread, outliers=0.0, seed=0):
    """``n_clusters`` Gaussian clusters of ``size`` points (unit variance) with centres
    drawn uniformly in [-spread, spread]^dim, and a share of uniform outliers (label -1)."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-spread, spread, size=(n_clusters, dim))
    y = np.repeat(np.arange(n_clusters), size)
    X = (centres[y] + rng.normal(size=(y.size, dim))).astype(np.float32)
    n_out = int(outliers * y.size)
    X = np.r_[X, rng.uniform(-spread, spread, size=(n_out, dim)).astype(np.float32)]
    return X, np.r_[y, np.full(n_out, -1)]


def quality(Y, y):
    """(10-NN accuracy of the labels, share of points with another cluster among their
    10 nearest in the map), over the clustered points."""
    from scipy.spatial import cKDTree

    from lowdim.metrics import knn_accuracy

    keep = y >= 0
    Y, y = np.asarray(Y[keep], dtype=np.float64), y[keep]
    accuracy = knn_accuracy(Y, y, n_neighbors=10, test_size=0.2, random_state=0)
    _, idx = cKDTree(Y).query(Y, 11)
    mixed = float(np.mean((y[idx[:, 1:]] != y[:, None]).any(axis=1)))
    return accuracy, mixed


def run_fit(library, path, seed):
    """``(seconds, peak bytes, embedding)`` of one warmed-up fit in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "Y.npy")
        script = RUNNER.format(fit=FITS[library])
        done = subprocess.run([sys.executable, "-c", script, path, out, str(seed)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
        return result["seconds"], result["peak"], np.load(out)


def run_cli_embed(path, seed):
    """``(seconds, peak bytes, embedding)`` of ``lowdim embed PATH -m umap --pca 50``:
    the whole command's wall time and peak resident memory (GNU time)."""
    import time

    lowdim = os.path.join(os.path.dirname(sys.executable), "lowdim")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "Y.npy")
        command = [lowdim, "embed", path, "-m", "umap", "--pca", "50", "--seed", str(seed), "-o", out]
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        peak = int(done.stderr.strip().splitlines()[-1]) * 1024
        joined = re.search(r"has (\d+) connected components", done.stderr)
        print(f"  lowdim's graph: {joined.group(1) if joined else 1} components", flush=True)
        return seconds, peak, np.load(out)


def _measure(label, runs, X, y):
    """Print each run, return medians: seconds, peak GiB, accuracy, mixed."""
    times, peaks, accs, mixes = [], [], [], []
    for seconds, peak, Y in runs:
        acc, mixed = quality(Y, y)
        print(
            f"  {label}: {seconds:.1f} s, peak {peak / 2**30:.2f} GiB, 10-NN {acc:.4f}, mixed {mixed:.4f}", flush=True
        )
        times.append(seconds), peaks.append(peak / 2**30), accs.append(acc), mixes.append(mixed)
    return times, max(peaks), statistics.median(accs), statistics.median(mixes)


def _row(case, ours, theirs, target, extra=""):
    t_o, p_o, a_o, m_o = ours
    t_t, p_t, a_t, m_t = theirs
    ratio = statistics.median(t_o) / statistics.median(t_t)
    accurate = a_o >= a_t - 1e-9
    text = (
        f"10-NN accuracy {a_o:.4f} vs {a_t:.4f}; mixed {m_o:.4f} vs {m_t:.4f}; peak {p_o:.2f} vs {p_t:.2f} GiB{extra}"
    )
    return {
        "case": case,
        "lowdim_s": round(statistics.median(t_o), 2),
        "reference_s": round(statistics.median(t_t), 2),
        "ratio": round(ratio, 3),
        "target": f"<= {target}x",
        "accuracy": text,
        "met": bool(ratio <= target and accurate),
        "runs_lowdim": [round(t, 2) for t in t_o],
        "runs_reference": [round(t, 2) for t in t_t],
    }


def _compare(case, X, y, repeats, connected=None, cli=False):
    """Alternate lowdim (and lowdim on ``connected`` data) with umap-learn."""
    with tempfile.TemporaryDirectory() as tmp:
        path, path_c = os.path.join(tmp, "X.npy"), os.path.join(tmp, "C.npy")
        np.save(path, X)
        if connected is not None:
            np.save(path_c, connected)
        ours, conn, theirs = [], [], []
        for seed in range(repeats):
            ours.append(run_cli_embed(path, seed) if cli else run_fit("lowdim", path, seed))
            if connected is not None:
                conn.append(run_fit("lowdim", path_c, seed))
            theirs.append(run_fit("umap-learn+pca" if cli else "umap-learn", path, seed))
    ours = _measure("lowdim", ours, X, y)
    theirs = _measure("umap-learn", theirs, X, y)
    extra = ""
    if conn:
        t_c = statistics.median(r[0] for r in conn)
        ratio = statistics.median(ours[0]) / t_c
        extra = f"; connected table of the same size {t_c:.1f} s (disconnected / connected {ratio:.2f}x)"
    return [_row(case, ours, theirs, 0.5, extra)]


def case_blobs_100k(repeats):
    X, y = two_blobs(100_000)
    return _compare("two blobs, 100,000 x 20", X, y, repeats, connected=two_blobs(100_000, connected=True)[0])


def case_blobs_1m(repeats):
    X, y = two_blobs(1_000_000)
    return _compare("two blobs, 1,000,000 x 20", X, y, 1, connected=two_blobs(1_000_000, connected=True)[0])


def case_clusters_300k(repeats):
    X, y = clusters(30, 10_000, 200, 1.5)
    return _compare("30 clusters, 300,000 x 200, `embed --pca 50`", X, y, repeats, cli=True)


def case_many_clusters(repeats):
    X, y = clusters(1000, 100, 20, 100.0)
    return _compare("1,000 clusters of 100, 20-D", X, y, repeats)


def case_outliers(repeats):
    X, y = clusters(1000, 100, 20, 100.0, outliers=0.01)
    return _compare("1,000 clusters of 100 + 1 % uniform outliers", X, y, repeats)


CASES = {
    "blobs-100k": case_blobs_100k,
    "many-clusters": case_many_clusters,
    "outliers": case_outliers,
    "clusters-300k": case_clusters_300k,
    "blobs-1m": case_blobs_1m,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
