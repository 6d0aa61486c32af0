"""First call against warm call: how long numba's compilation makes a new user wait.

Per method, two fresh processes share one empty numba cache folder (NUMBA_CACHE_DIR):
the first compiles every kernel the method calls ("cold"), the second loads them from
that cache ("warm"). Each times one fit on the first 10,000 rows of Fashion-MNIST
(PCA-50 scores for the neighbour methods, as users run them), after importing lowdim
and reading the data. Imports are timed apart. 'readme' runs the README's ten lines as
a script (whole process). Target: cold within 2x of warm per method; the README's ten
lines under 20 s cold. Medians of alternating runs.
Run:  scripts/bench.sh coldstart [CASE ...] [--repeats 3]
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FITS = {
    "pca": "lowdim.PCA(50).fit(X)",
    "kernelpca": "lowdim.KernelPCA(2, kernel='rbf').fit(Z)",
    "kmeans": "lowdim.KMeans(10, random_state=0).fit(Z)",
    "bisecting": "lowdim.BisectingKMeans(10, random_state=0).fit(Z)",
    "gmm": "lowdim.GaussianMixture(10, random_state=0).fit(Z)",
    "kmedoids": "lowdim.KMedoids(10, random_state=0).fit(Z[:3000])",  # its n x n matrix: a small table's method
    "umap": "lowdim.UMAP(random_state=0).fit_transform(Z)",
    "densmap": "lowdim.UMAP(densmap=True, random_state=0).fit_transform(Z)",
    "tsne": "lowdim.TSNE(random_state=0).fit_transform(Z)",
    "pacmap": "lowdim.PaCMAP(random_state=0).fit_transform(Z)",
    "trimap": "lowdim.TriMap(random_state=0).fit_transform(Z)",
    "hdbscan": "lowdim.HDBSCAN(min_cluster_size=50).fit(Z)",
    "leiden": "lowdim.Leiden(random_state=0).fit(Z)",
    "dbscan": "lowdim.DBSCAN(eps=3.0, min_samples=10).fit(Z)",
    "optics": "lowdim.OPTICS().fit(Z)",
    "agglomerative": "lowdim.AgglomerativeClustering(10).fit(Z)",
    "isomap": "lowdim.Isomap().fit_transform(Z)",
    "spectral": "lowdim.SpectralEmbedding(random_state=0).fit_transform(Z)",
    "sparsepca": "lowdim.SparsePCA(10, random_state=0).fit(Z)",
    "dictionary": "lowdim.MiniBatchDictionaryLearning(20, random_state=0).fit(Z)",
}
RUNNER = """
import json, time, warnings
warnings.filterwarnings("ignore")
start = time.perf_counter()
import lowdim
import numpy as np
imported = time.perf_counter() - start
from lowdim.datasets._fashion_mnist import load_fashion_mnist
X = np.ascontiguousarray(load_fashion_mnist(dtype=np.float32)[0][:10_000])
Z = np.load({scores!r})
start = time.perf_counter()
{fit}
print(json.dumps({{"seconds": time.perf_counter() - start, "import": imported}}))
"""


def _readme_script():
    """The README's ten lines (its first python block), as a script."""
    text = open(os.path.join(ROOT, "README.md")).read()
    return re.search(r"```python\n(.*?)```", text, re.S)[1]


def _run(code, cache):
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "OPENBLAS_NUM_THREADS": "2", "NUMBA_NUM_THREADS": "2"}
    start = time.perf_counter()
    done = subprocess.run(  # in the cache folder: the README's lines write a model file
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=3600, cwd=cache
    )
    wall = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return {**(json.loads(lines[-1]) if lines else {}), "wall": wall}


def _scores(folder):
    """PCA-50 scores of the 10,000 rows, computed once (outside the timed processes)."""
    import numpy as np

    from lowdim import PCA
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    path = os.path.join(folder, "scores.npy")
    X = load_fashion_mnist(dtype=np.float32)[0][:10_000]
    np.save(path, PCA(50, random_state=0).fit_transform(X))
    return path


def case(name, repeats, scores):
    code = _readme_script() if name == "readme" else RUNNER.format(scores=scores, fit=FITS[name])
    key = "wall" if name == "readme" else "seconds"
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(_run(code, cache)[key])
            warm.append(_run(code, cache)[key])
    c, w = statistics.median(cold), statistics.median(warm)
    return {"case": name, "cold_s": round(c, 2), "warm_s": round(w, 2), "ratio": round(c / w, 2)}


def main(argv):
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 3
    names = [a for a in argv if not a.startswith("--") and not a.isdigit()] or [*FITS, "readme"]
    print(f"# {os.uname().nodename}, {time.strftime('%Y-%m-%d')}, repeats {repeats}, 2 threads", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        scores = _scores(folder)
        for name in names:
            print(json.dumps(case(name, repeats, scores)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
