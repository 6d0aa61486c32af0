"""The measurements behind lowdim's internal choices: each case times the way lowdim
does something against the alternative it replaced, in the same run, and its row is
what the code's comments point to ("Design choices" in BENCHMARKS.md).

Cases:
  gram       X^T X as one-BLAS-thread row blocks in lowdim's workers (``gram_of_columns``)
             vs numpy's threaded product; Fashion-MNIST 70,000 x 784, float32 and float64
  sums       column sums of float32 data grouped by 32 rows (``column_sums(grouped=True)``)
             vs exact float64 accumulation
  eigh       top 50 eigenpairs of Fashion-MNIST's 784 x 784 covariance: float32 subspace
             refined in float64 (``top_eigh(precision=float32)``) vs float64 LAPACK
  rcm        t-SNE's attraction pass over 70,000 points (PCA-50) in reverse Cuthill-McKee
             order of the affinity graph vs the data's own order
  threads    entering and leaving a BLAS limit: lowdim's ``blas_limit`` vs
             threadpoolctl's ``threadpool_limits`` (per call)
  spectral   bottom eigenvectors of a 5,000-point kNN graph's normalised Laplacian:
             lowdim's rule (Lanczos within a budget, then a sparse LU) vs each alone,
             on Fashion-MNIST PCA-50 and on a Swiss roll
  paths      all-pairs geodesics on 5,000-point kNN graphs: deferring half of the rows
             (``shortest_paths`` on every node) vs a Dijkstra from every node
  omp        numba's OpenMP threads sleeping between kernels (OMP_WAIT_POLICY=PASSIVE,
             lowdim's default) vs spinning, GaussianMixture 'full' and KMeans 'hamerly'
             on Fashion-MNIST PCA-50 (separate processes, cached kernels)
Same protocol as bench_pca.py: alternating runs after a warm-up, medians.
Run:  scripts/bench.sh choices [CASE ...] [--repeats 5]
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_pca import compare, rel_diff, row, run_cli  # noqa: E402


def case_gram(repeats):
    from lowdim.linalg._blas import gram_of_columns

    rows = []
    for dtype in (np.float32, np.float64):
        X = _data.fashion_mnist(dtype)
        r = compare(lambda X=X: gram_of_columns(X), lambda X=X: (X.T @ X).astype(np.float64), repeats)
        err = rel_diff(r[2].diagonal(), r[3].diagonal())
        rows.append(
            row(
                f"gram: X^T X, 70,000 x 784 {np.dtype(dtype).name}, one-thread blocks vs threaded BLAS",
                r[0],
                r[1],
                f"diagonals agree to {err:.1e}",
                1.0,
                err < 1e-4,
                r[4:],
            )
        )
    return rows


def case_sums(repeats):
    from lowdim.linalg._blas import column_sums

    X = _data.fashion_mnist(np.float32)
    r = compare(lambda: column_sums(X, grouped=True), lambda: X.sum(axis=0, dtype=np.float64), max(repeats, 5))
    err = rel_diff(r[2], r[3])
    return [
        row(
            "sums: column sums, 70,000 x 784 float32, grouped vs float64",
            r[0],
            r[1],
            f"relative difference {err:.1e}",
            1.0,
            err < 1e-6,
            r[4:],
        )
    ]


def case_eigh(repeats):
    from lowdim.linalg import top_eigh

    C = np.cov(_data.fashion_mnist(np.float32).T)
    r = compare(
        lambda: top_eigh(C, 50, precision=np.float32), lambda: top_eigh(C, 50, precision=np.float64), max(repeats, 5)
    )
    err = rel_diff(r[2][0], r[3][0])
    return [
        row(
            "eigh: top 50 of 784 x 784, float32 subspace refined vs float64 LAPACK",
            r[0],
            r[1],
            f"eigenvalues agree to {err:.1e}",
            1.0,
            err < 1e-6,
            r[4:],
        )
    ]


def case_rcm(repeats):
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    from lowdim import PCA
    from lowdim.embedding import neighbor_affinities
    from lowdim.embedding._gradients import attraction

    X = PCA(50, random_state=0).fit_transform(_data.fashion_mnist(np.float32)).astype(np.float64)
    P, _, _ = neighbor_affinities(X, 30.0, 91)
    Y = np.random.default_rng(0).normal(size=(X.shape[0], 2))
    order = reverse_cuthill_mckee(P, symmetric_mode=True)
    P_rcm = P[order][:, order].tocsr()
    P_rcm.sort_indices()
    Y_rcm = np.ascontiguousarray(Y[order])

    def passes(P, Y):
        for _ in range(10):
            A = attraction(P, Y, 1.0)
        return A

    r = compare(lambda: passes(P_rcm, Y_rcm), lambda: passes(P, Y), repeats)
    err = rel_diff(r[2], r[3][order])
    return [
        row(
            "rcm: 10 attraction passes, 70,000 points, RCM order vs data order",
            r[0],
            r[1],
            f"forces agree to {err:.1e}",
            1.0,
            err < 1e-10,
            r[4:],
        )
    ]


def case_threads(repeats):
    from threadpoolctl import threadpool_limits

    from lowdim._threads import blas_limit

    def ours():
        for _ in range(100):
            with blas_limit(1):
                pass

    def theirs():
        for _ in range(100):
            with threadpool_limits(1, user_api="blas"):
                pass

    r = compare(ours, theirs, max(repeats, 5))
    return [
        row(
            "threads: 100 BLAS limits entered and left, blas_limit vs threadpool_limits",
            r[0],
            r[1],
            "-",
            1.0,
            True,
            r[4:],
        )
    ]


def _laplacian(X, k=10):
    from lowdim.neighbors import kneighbors_graph

    A = kneighbors_graph(X, k, mode="connectivity")
    A = A.maximum(A.T).tocsr()
    scale = 1.0 / np.sqrt(np.asarray(A.sum(axis=1)).ravel())
    import scipy.sparse as sp

    return (sp.diags(scale) @ A @ sp.diags(scale)).tocsr()


def case_spectral(repeats):
    import scipy.sparse as sp
    from sklearn.datasets import make_swiss_roll

    from lowdim import PCA
    from lowdim.linalg import smallest_eigh
    from lowdim.manifold._spectral import _sparse_bottom, _top_as_bottom

    k, rows = 3, []
    data = {
        "Fashion-MNIST PCA-50": PCA(50, random_state=0).fit_transform(_data.fashion_mnist(np.float32)[:5000]),
        "Swiss roll": make_swiss_roll(5000, random_state=0)[0],
    }
    for name, X in data.items():
        M = _laplacian(np.asarray(X, dtype=np.float64))
        n = M.shape[0]

        def ours(M=M):
            return _sparse_bottom(M, k, np.random.default_rng(0))

        alternatives = {
            "Lanczos alone": lambda M=M: _top_as_bottom(M, k, np.random.default_rng(0), 20, 0.0, None),
            "sparse LU alone": lambda M=M, n=n: smallest_eigh(
                sp.identity(n, format="csr") - M,
                k,
                rng=np.random.default_rng(0),
                solver="arpack",
                tol=0.0,
                max_iter=None,
            ),
        }
        for alt, theirs in alternatives.items():
            r = compare(ours, theirs, repeats)
            err = float(np.max(np.abs(np.sort(r[2][0]) - np.sort(r[3][0]))))
            rows.append(
                row(
                    f"spectral: {name}, 5,000 points, lowdim's rule vs {alt}",
                    r[0],
                    r[1],
                    f"eigenvalues agree to {err:.1e}",
                    1.0,
                    err < 1e-8,
                    r[4:],
                )
            )
    return rows


def case_paths(repeats):
    from sklearn.datasets import make_swiss_roll

    from lowdim import PCA
    from lowdim.neighbors import kneighbors_graph, shortest_paths

    data = {
        "Fashion-MNIST PCA-50": PCA(50, random_state=0).fit_transform(_data.fashion_mnist(np.float32)[:5000]),
        "Swiss roll": make_swiss_roll(5000, random_state=0)[0],
    }
    rows = []
    for name, X in data.items():
        G = kneighbors_graph(np.asarray(X, dtype=np.float64), 10)
        G = G.maximum(G.T).tocsr()
        n = G.shape[0]
        halves = (np.arange(n // 2), np.arange(n // 2, n))  # not all nodes at once: no deferral

        r = compare(
            lambda G=G, n=n: shortest_paths(G, np.arange(n)),
            lambda G=G, halves=halves: np.vstack([shortest_paths(G, h) for h in halves]),
            repeats,
        )
        err = float(np.max(np.abs(r[2] - r[3])))
        rows.append(
            row(
                f"paths: all pairs, {name} 5,000-point kNN graph, deferred rows vs Dijkstra from every node",
                r[0],
                r[1],
                f"distances agree to {err:.1e}",
                1.0,
                err < 1e-9,
                r[4:],
            )
        )
    return rows


_OMP_SCRIPT = """
import sys, time
sys.path.insert(0, {bench!r})
import numpy as np, _data
from lowdim import PCA, GaussianMixture, KMeans
X = PCA(50, random_state=0).fit_transform(_data.fashion_mnist(np.float32)[:20000])
fits = {{"gmm": lambda: GaussianMixture(10, covariance_type="full", max_iter=20, tol=0, random_state=0).fit(X),
        "kmeans": lambda: KMeans(10, algorithm="hamerly", n_init=1, max_iter=100, tol=0, random_state=0).fit(X)}}
fit = fits[{which!r}]
fit()
start = time.perf_counter(); fit(); print(time.perf_counter() - start)
"""


def _omp_run(policy, which):
    env = {**os.environ, "OMP_WAIT_POLICY": policy}
    code = _OMP_SCRIPT.format(bench=os.path.dirname(os.path.abspath(__file__)), which=which)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def case_omp(repeats):
    rows = []
    for which, label in (
        ("gmm", "GaussianMixture full k=10, 20 iterations"),
        ("kmeans", "KMeans hamerly k=10, 100 iterations"),
    ):
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(_omp_run("PASSIVE", which))
            theirs.append(_omp_run("ACTIVE", which))
        rows.append(
            row(
                f"omp: {label}, 20,000 x 50, OpenMP threads sleeping vs spinning",
                float(np.median(ours)),
                float(np.median(theirs)),
                "-",
                1.0,
                True,
                (ours, theirs),
            )
        )
    return rows


CASES = {
    "gram": case_gram,
    "sums": case_sums,
    "eigh": case_eigh,
    "rcm": case_rcm,
    "threads": case_threads,
    "spectral": case_spectral,
    "paths": case_paths,
    "omp": case_omp,
}


if __name__ == "__main__":
    run_cli(CASES, __doc__)
