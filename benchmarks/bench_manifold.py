"""Classical manifold learning against scikit-learn, in the same run.

Fashion-MNIST projected to 50 PCA dimensions (float32): Isomap, SpectralEmbedding and LLE
on n = 5,000 (n_neighbors = 10; Hessian LLE 12), SMACOF MDS on n = 2,000; both libraries
with the same parameters, with trustworthiness (k = 10) and held-out kNN accuracy of each
embedding. 'full': landmark Isomap / MDS on all 70,000 points (time, peak memory).
'diffusion': DiffusionMap on all 70,000 points against scanpy's diffusion map; 'phate':
PHATE on all 70,000 against the phate package.
'knn': exact and approximate kNN graphs of the 70,000 x 784 images (time, recall).
'mvu': exact maximum variance unfolding of a few hundred points (against cvxpy + Clarabel
at 100 points, the largest it handles in reasonable time).
Same protocol as bench_pca.py: alternating runs after a warm-up, 0.3 s pause, medians.
Run:  scripts/bench.sh manifold [CASE ...] [--repeats 3]
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare, row, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)


def fashion_pca50(n):
    from lowdim import PCA
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()
    Z = PCA(50, random_state=0).fit_transform(X)
    return Z[:n], y[:n]


def _quality(X, y, Y_ours, Y_ref):
    from lowdim.metrics import knn_accuracy, trustworthiness

    t = [trustworthiness(X, Y, n_neighbors=10) for Y in (Y_ours, Y_ref)]
    a = [knn_accuracy(Y, y, random_state=0) for Y in (Y_ours, Y_ref)]
    text = f"trustworthiness(10) lowdim {t[0]:.4f} vs sklearn {t[1]:.4f}; kNN accuracy {a[0]:.4f} vs {a[1]:.4f}"
    return text, t[0] >= t[1] - 0.01 and a[0] >= a[1] - 0.01


def _case(label, ours, theirs, X, y, target, repeats):
    r = compare(lambda: ours.fit_transform(X), lambda: theirs.fit_transform(X), repeats)
    text, ok = _quality(X, y, r[2], r[3])
    return row(label, r[0], r[1], text, target, ok, r[4:])


def case_isomap(repeats):
    from sklearn.manifold import Isomap as SkIsomap

    from lowdim.manifold import Isomap

    X, y = fashion_pca50(5000)
    return [_case("Isomap n=5000, k=10", Isomap(n_neighbors=10), SkIsomap(n_neighbors=10), X, y, 0.5, repeats)]


def case_spectral(repeats):
    from sklearn.manifold import SpectralEmbedding as SkSpectral

    from lowdim.manifold import SpectralEmbedding

    X, y = fashion_pca50(5000)
    return [
        _case(
            "SpectralEmbedding n=5000, k=10",
            SpectralEmbedding(n_neighbors=10, random_state=0),
            SkSpectral(n_neighbors=10, random_state=0),
            X,
            y,
            0.5,
            repeats,
        )
    ]


def case_mds(repeats):
    from sklearn.manifold import MDS as SkMDS

    from lowdim.manifold import MDS

    X, y = fashion_pca50(2000)
    return [
        _case("SMACOF MDS n=2000", MDS(random_state=0), SkMDS(random_state=0, init="classical_mds"), X, y, 0.5, repeats)
    ]


def case_lle(repeats):
    from sklearn.manifold import LocallyLinearEmbedding as SkLLE

    from lowdim.manifold import LocallyLinearEmbedding

    X, y = fashion_pca50(5000)
    # scikit-learn's Hessian LLE stops with 'Factor is exactly singular' under ARPACK here
    # (shift-invert at exactly 0); its dense solver is the one that runs
    return [
        _case(
            f"LLE {method} n=5000, k={k}" + (" (sklearn dense)" if solver == "dense" else ""),
            LocallyLinearEmbedding(n_neighbors=k, method=method, random_state=0),
            SkLLE(n_neighbors=k, method=method, eigen_solver=solver, random_state=0),
            X,
            y,
            target,
            repeats,
        )
        for method, k, solver, target in (("standard", 10, "auto", 1.0), ("hessian", 12, "dense", 0.2))
    ]


_FULL_RUN = """
import json, sys, time
sys.path.insert(0, {bench!r})
from bench_manifold import fashion_pca50
from lowdim.manifold import Isomap, MDS
from lowdim.metrics import trustworthiness
X, y = fashion_pca50(70000)
def rss(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss('VmRSS')
open('/proc/self/clear_refs', 'w').write('5')  # reset the peak (VmHWM)
est = {estimator}
t = time.perf_counter()
Y = est.fit_transform(X)
seconds = time.perf_counter() - t
peak = rss('VmHWM')
trust = trustworthiness(X, Y, n_neighbors=10, max_queries=5000, random_state=0)
print(json.dumps([seconds, peak, before, trust]))
"""


def _full_run(estimator):
    """One fit on all 70,000 points in a fresh process: seconds, peak RSS (MB) during
    the fit, RSS before it, trustworthiness on 5,000 sampled queries."""
    import json
    import subprocess

    code = _FULL_RUN.format(bench=os.path.dirname(os.path.abspath(__file__)), estimator=estimator)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def case_full(repeats):
    """Landmark Isomap and landmark MDS on all 70,000 images (scikit-learn's Isomap needs
    a 39 GB geodesic matrix here, so there is no reference run)."""
    rows = []
    for label, estimator in (
        ("landmark Isomap n=70000, k=10, 500 landmarks", "Isomap(n_neighbors=10, n_landmarks=500, random_state=0)"),
        ("landmark MDS n=70000, 500 landmarks", "MDS(n_landmarks=500, solver='classical', random_state=0)"),
    ):
        runs = [_full_run(estimator) for _ in range(repeats)]
        seconds = [r[0] for r in runs]
        peak = max(r[1] for r in runs)
        t = sorted(seconds)[len(seconds) // 2]
        acc = (
            f"peak RSS during fit {peak / 1024:.2f} GB (process, incl. {runs[0][2] / 1024:.2f} GB before); "
            f"trustworthiness(10) on 5000 sampled queries {runs[0][3]:.4f}"
        )
        rows.append(
            {
                "case": label,
                "lowdim_s": round(t, 3),
                "reference_s": None,
                "ratio": None,
                "target": "< 60 s, < 8 GB",
                "accuracy": acc,
                "met": t < 60 and peak < 8 * 1024,
                "runs_lowdim": [round(x, 3) for x in seconds],
                "runs_reference": [],
            }
        )
    return rows


def _mvu_row(label, X, repeats, reference=None):
    """Exact MVU (5 neighbours) by lowdim's interior-point method, optionally against
    the same program through cvxpy + Clarabel (no anchor library has MVU)."""
    import statistics

    from lowdim.manifold import MaximumVarianceUnfolding

    def fit(solver):
        return MaximumVarianceUnfolding(n_neighbors=5, n_landmarks=None, solver=solver).fit(X)

    if reference:
        r = compare(lambda: fit("auto"), lambda: fit(reference), repeats)
        ours, ref, runs = r[2], r[3], r[4:]
        t_ours, t_ref = r[0], r[1]
    else:
        times, ours = [], None
        for _ in range(repeats):
            t, ours = timed(lambda: fit("auto"))
            times.append(t)
        t_ours, t_ref, ref, runs = statistics.median(times), None, None, (times, [])
    total = [None if e is None else float(np.sum(e.eigenvalues_) / e.variance_fraction_) for e in (ours, ref)]
    acc = f"lowdim {ours.solver_status_}, distance error {ours.distance_error_:.1e}, variance {total[0]:.6g}"
    if ref is not None:
        acc += f"; cvxpy {ref.solver_status_}, distance error {ref.distance_error_:.1e}, variance {total[1]:.6g}"
    return {
        "case": label,
        "lowdim_s": round(t_ours, 3),
        "reference_s": None if t_ref is None else round(t_ref, 3),
        "ratio": None if t_ref is None else round(t_ours / t_ref, 3),
        "target": "a few hundred points",
        "accuracy": acc,
        "met": ours.distance_error_ < 1e-3,
        "runs_lowdim": [round(t, 3) for t in runs[0]],
        "runs_reference": [round(t, 3) for t in runs[1]],
    }


def case_mvu(repeats):
    """Exact maximum variance unfolding: Fashion-MNIST PCA-50 images (the program has
    an interior) at 100 points against Clarabel and at 300 / 500 alone (Clarabel's cost
    grows as n^4: 114 s at 120); a 3-D Swiss roll, whose program has no interior."""
    from lowdim.datasets import make_swiss_roll

    X, _ = fashion_pca50(500)
    X = X.astype(np.float64)
    rows = [_mvu_row("exact MVU, Fashion PCA-50, n=100, k=5 (vs cvxpy + Clarabel)", X[:100], repeats, "clarabel")]
    rows += [_mvu_row(f"exact MVU, Fashion PCA-50, n={n}, k=5", X[:n], repeats) for n in (300, 500)]
    roll = make_swiss_roll(300, random_state=0)[0]
    rows.append(_mvu_row("exact MVU, Swiss roll (3-D), n=300, k=5", roll, repeats))
    return rows


def _recall(found, truth):
    return float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth)]))


def case_knn(repeats):
    """kNN graph (k = 15) of the 70,000 x 784 images: exact (lowdim blocked BLAS vs
    scikit-learn brute force, one run each: about three minutes apiece) and approximate
    (lowdim's HNSW vs pynndescent, umap-learn's backend; recall against the exact graph)."""
    import time

    import pynndescent
    from sklearn.neighbors import NearestNeighbors

    from lowdim.datasets._fashion_mnist import load_fashion_mnist
    from lowdim.neighbors import ExactIndex, HNSWIndex

    X = load_fashion_mnist()[0].astype(np.float32)
    t = time.perf_counter()
    _, exact = ExactIndex().build(X).query(X, 15, exclude_self=True)
    t_exact = time.perf_counter() - t
    t = time.perf_counter()
    _, ref = NearestNeighbors(n_neighbors=15, algorithm="brute").fit(X).kneighbors()
    t_ref = time.perf_counter() - t
    agree = _recall(exact, ref)
    rows = [
        {
            "case": "exact kNN graph 70000x784, k=15 (1 run)",
            "lowdim_s": round(t_exact, 3),
            "reference_s": round(t_ref, 3),
            "ratio": round(t_exact / t_ref, 3),
            "target": "recorded",
            "accuracy": f"neighbour sets equal to scikit-learn's: {agree:.5f}",
            "met": agree > 0.999,
            "runs_lowdim": [round(t_exact, 3)],
            "runs_reference": [round(t_ref, 3)],
        }
    ]
    ours, theirs, rec = [], [], []
    pynndescent.NNDescent(X[:2000], n_neighbors=16, random_state=0)  # compile its numba code first
    for _ in range(repeats):
        t = time.perf_counter()
        _, approx = HNSWIndex().build(X).query(X, 15, exclude_self=True)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        nnd = pynndescent.NNDescent(X, n_neighbors=16, random_state=0, n_jobs=2).neighbor_graph[0]
        theirs.append(time.perf_counter() - t)
        rec = [_recall(approx, exact), _recall(nnd[:, 1:], exact)]
    t_o, t_t = sorted(ours)[len(ours) // 2], sorted(theirs)[len(theirs) // 2]
    rows.append(
        {
            "case": "approximate kNN graph 70000x784, k=15: HNSW (faiss) vs pynndescent",
            "lowdim_s": round(t_o, 3),
            "reference_s": round(t_t, 3),
            "ratio": round(t_o / t_t, 3),
            "target": "recall >= 0.95",
            "accuracy": f"recall lowdim {rec[0]:.4f} vs pynndescent {rec[1]:.4f}",
            "met": rec[0] >= 0.95,
            "runs_lowdim": [round(x, 3) for x in ours],
            "runs_reference": [round(x, 3) for x in theirs],
        }
    )
    return rows


def _with_a_noisy_copy(X, y, seed=0):
    """``X`` and a copy of it moved by isotropic Gaussian noise whose length is about half
    the median distance of a row to its nearest other row (labels repeated)."""
    from lowdim.neighbors import ExactIndex

    rng = np.random.default_rng(seed)
    probe = rng.choice(X.shape[0], 1000, replace=False)
    nearest = ExactIndex().build(X).query(X[probe], 2)[0][:, 1]
    scale = 0.5 * np.median(nearest) / np.sqrt(X.shape[1])
    noisy = X + rng.normal(scale=scale, size=X.shape).astype(X.dtype)
    return np.vstack([X, noisy]), np.concatenate([y, y])


def case_diffusion(repeats):
    """DiffusionMap against scanpy's diffusion map (``pp.neighbors`` with the Gaussian
    kernel, then ``tl.diffmap``: the only maintained Python diffusion map), all 70,000
    Fashion-MNIST PCA-50 rows, 15 neighbours, 10 non-trivial components (scanpy counts
    the trivial one: n_comps=11), density normalised (alpha=1) on both, on the 70,000
    Fashion-MNIST PCA-50 rows and a copy of them each moved by isotropic Gaussian noise
    of half the median nearest-neighbour distance (140,000 rows: scanpy takes over 10 s;
    on the 70,000 alone about 8). Quality: held-out kNN accuracy of the 10 coordinates
    and the eigenvalues of the walk."""
    import anndata
    import scanpy as sc

    from lowdim import DiffusionMap
    from lowdim.metrics import knn_accuracy

    X, y = _with_a_noisy_copy(*fashion_pca50(70_000))

    def scanpy_diffmap():
        adata = anndata.AnnData(np.asarray(X, dtype=np.float32))
        sc.pp.neighbors(adata, n_neighbors=15, use_rep="X", method="gauss", random_state=0)
        sc.tl.diffmap(adata, n_comps=11, random_state=0)
        return adata.obsm["X_diffmap"][:, 1:], adata.uns["diffmap_evals"][1:]

    def ours():
        model = DiffusionMap(10, n_neighbors=15, random_state=0).fit(X)
        return model.embedding_, model.eigenvalues_

    t_ours, t_ref, (Y, w), (Y_ref, w_ref), *runs = compare(ours, scanpy_diffmap, repeats)
    a = [knn_accuracy(Z, y, random_state=0) for Z in (Y, Y_ref)]
    text = (
        f"kNN accuracy (10 coordinates) lowdim {a[0]:.4f} vs scanpy {a[1]:.4f}; eigenvalues "
        f"{w[0]:.4f}..{w[-1]:.4f} vs {w_ref[0]:.4f}..{w_ref[-1]:.4f}"
    )
    case = f"DiffusionMap, {X.shape[0]:,} x 50 (PCA-50 and a noisy copy), k=15, 10 components"
    return [row(case, t_ours, t_ref, text, 0.7, a[0] >= a[1] - 0.01, runs)]


def case_phate(repeats):
    """PHATE against the phate package with the same defaults (knn=5, decay=40, 2,000
    landmarks, t='auto', metric MDS by SGD), all 70,000 Fashion-MNIST PCA-50 rows, seed 0
    timed. Quality: trustworthiness (k = 10) on 5,000 random rows of each map, and the t
    each chose."""
    import phate

    from lowdim import PHATE
    from lowdim.metrics import trustworthiness

    X, _ = fashion_pca50(70_000)
    rows = np.random.default_rng(0).choice(X.shape[0], 5_000, replace=False)

    def theirs():
        model = phate.PHATE(random_state=0, verbose=0, n_jobs=2)
        return model.fit_transform(X), model.optimal_t

    def ours():
        model = PHATE(random_state=0).fit(X)
        return model.embedding_, model.t_

    t_ours, t_ref, (Y, t), (Y_ref, t_theirs), *runs = compare(ours, theirs, repeats)
    tw = [trustworthiness(X[rows], Z[rows], n_neighbors=10) for Z in (Y, Y_ref)]
    text = f"trustworthiness(10) lowdim {tw[0]:.4f} vs phate {tw[1]:.4f}; t {t} vs {t_theirs}"
    return [row("PHATE, 70,000 x 50, 2,000 landmarks", t_ours, t_ref, text, 0.7, tw[0] >= tw[1] - 0.005, runs)]


def case_radius(repeats):
    """The radius graph (distances, no self-loops) against scikit-learn's: 1,000,000
    Gaussian points in 3-D (k-d tree) and 100,000 in 20-D (tiles of products)."""
    from sklearn.neighbors import radius_neighbors_graph as reference

    from lowdim.neighbors import radius_neighbors_graph

    rng = np.random.default_rng(0)
    rows = []
    for n, d, radius in ((1_000_000, 3, 0.04), (100_000, 20, 3.5)):
        X = rng.normal(size=(n, d))
        t_ours, t_ref, ours, theirs, *runs = compare(
            lambda X=X, r=radius: radius_neighbors_graph(X, r),
            lambda X=X, r=radius: reference(X, r, mode="distance"),
            repeats,
        )
        same = ours.nnz == theirs.nnz and abs(ours - theirs).max() < 1e-9
        accuracy = f"{ours.nnz:,} edges; {'equal' if same else 'DIFFERENT'} to scikit-learn's"
        rows.append(row(f"radius graph, {n:,} x {d}, radius {radius}", t_ours, t_ref, accuracy, 0.7, same, runs))
    return rows


CASES = {
    "radius": case_radius,
    "isomap": case_isomap,
    "diffusion": case_diffusion,
    "phate": case_phate,
    "spectral": case_spectral,
    "mds": case_mds,
    "lle": case_lle,
    "full": case_full,
    "knn": case_knn,
    "mvu": case_mvu,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
