"""PCA benchmarks against scikit-learn, in the same run.

Each case alternates lowdim and the reference ``--repeats`` times (after one untimed
warm-up of each, so numba's on-disk cache and BLAS threads are loaded; 0.3 s pause
before every timed run so neither library inherits the other's spinning threads) and reports
the medians and their ratio, the accuracy figure the target is stated with, and
whether the target is met. Run:  scripts/bench.sh pca
(needs the ``bench`` extra and ``apt-get install -y dataset-fashion-mnist``).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402

warnings.filterwarnings("ignore", message=".*zero variance.*")


PAUSE_S = 0.3  # between timed runs: idle BLAS threads of the previous run stop spinning


def timed(fn):
    time.sleep(PAUSE_S)
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def compare(ours, theirs, repeats, *, warm_up=True, show=False):
    """Alternate the two callables; return (median ours, median theirs, last outputs,
    all times). ``warm_up``: one untimed run of each first; ``show``: print each run."""
    if warm_up:
        timed(ours), timed(theirs)
    t_ours, t_theirs, out_ours, out_theirs = [], [], None, None
    for _ in range(repeats):
        t, out_ours = timed(ours)
        t_ours.append(t)
        t, out_theirs = timed(theirs)
        t_theirs.append(t)
        if show:
            print(f"  run: lowdim {t_ours[-1]:.2f} s, reference {t_theirs[-1]:.2f} s", flush=True)
    return statistics.median(t_ours), statistics.median(t_theirs), out_ours, out_theirs, t_ours, t_theirs


def row(case, t_ours, t_ref, accuracy, target_ratio, accurate, runs):
    ratio = t_ours / t_ref
    met = ratio <= target_ratio and accurate
    return {
        "case": case,
        "lowdim_s": round(t_ours, 3),
        "reference_s": round(t_ref, 3),
        "ratio": round(ratio, 3),
        "target": f"<= {target_ratio}x",
        "accuracy": accuracy,
        "met": bool(met),
        "runs_lowdim": [round(t, 3) for t in runs[0]],
        "runs_reference": [round(t, 3) for t in runs[1]],
    }


def rel_diff(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.abs(b)))


def case_fashion(repeats):
    from sklearn.decomposition import PCA as SkPCA

    from lowdim import PCA

    rows = []
    X64 = _data.fashion_mnist(np.float64)
    exact = SkPCA(50, svd_solver="covariance_eigh").fit(X64).explained_variance_
    for dtype, tol in ((np.float32, 1e-4), (np.float64, 1e-8)):
        X = X64.astype(dtype)
        r = compare(lambda X=X: PCA(50).fit(X), lambda X=X: SkPCA(50, svd_solver="covariance_eigh").fit(X), repeats)
        ours, ref = r[2], r[3]
        err_ours, err_ref = rel_diff(ours.explained_variance_, exact), rel_diff(ref.explained_variance_, exact)
        err_vs_ref = rel_diff(ours.explained_variance_, ref.explained_variance_)
        acc = (
            f"solver_={ours.solver_}; eigenvalues vs float64 reference: lowdim {err_ours:.1e}, "
            f"sklearn {err_ref:.1e}; lowdim vs sklearn {err_vs_ref:.1e} (tol {tol:g})"
        )
        rows.append(
            row(
                f"1. Fashion-MNIST 70000x784 k=50 {np.dtype(dtype).name}, auto vs covariance_eigh",
                r[0],
                r[1],
                acc,
                1.0,
                err_ours <= tol,
                r[4:],
            )
        )
    return rows


def case_streaming(repeats):
    from sklearn.decomposition import IncrementalPCA as SkIncremental

    from lowdim import PCA

    X = _data.fashion_mnist(np.float32)
    chunks = [X[i : i + 5000] for i in range(0, X.shape[0], 5000)]

    def ours():
        pca = PCA(50)
        for chunk in chunks:
            pca.partial_fit(chunk)
        pca.components_  # noqa: B018 - forces the (deferred) decomposition
        return pca

    r = compare(ours, lambda: SkIncremental(50, batch_size=5000).fit(X), repeats)
    batch = PCA(50, solver="covariance").fit(X)
    err = rel_diff(r[2].explained_variance_, batch.explained_variance_)
    overlap = np.abs(r[2].components_ @ batch.components_.T).diagonal().min()
    acc = f"vs batch fit: eigenvalues {err:.1e} rel, min |cos| between components {overlap:.6f}"
    return [
        row(
            "2. Fashion-MNIST streamed in 5000-row chunks, partial_fit vs IncrementalPCA",
            r[0],
            r[1],
            acc,
            1 / 20,
            err <= 1e-5,
            r[4:],
        )
    ]


def case_streaming_wide(repeats):
    """IncrementalPCA of a wide table (more columns than rows): the ORL faces at every
    other pixel, 400 x 5,152, 20 components, each library's default batches (one)."""
    from sklearn.decomposition import IncrementalPCA as SkIncremental

    from lowdim import PCA, IncrementalPCA, load_orl_faces

    faces = load_orl_faces()[0]
    X = faces.reshape(len(faces), -1)[:, ::2].astype(np.float64)
    r = compare(lambda: IncrementalPCA(20).fit(X), lambda: SkIncremental(20).fit(X), repeats)
    batch = PCA(20, solver="svd").fit(X)
    err = rel_diff(r[2].explained_variance_, batch.explained_variance_)
    theirs = rel_diff(r[3].explained_variance_, batch.explained_variance_)
    acc = f"vs the SVD: eigenvalues {err:.1e} rel (scikit-learn {theirs:.1e})"
    name = "IncrementalPCA(20), ORL faces 400 x 5,152 (every other pixel), default batches"
    return [row(name, r[0], r[1], acc, 1.0, err <= 1e-8, r[4:])]


def case_wide(repeats):
    from sklearn.decomposition import PCA as SkPCA

    from lowdim import PCA

    X = _data.wide_gaussian()
    r = compare(lambda: PCA(50).fit(X), lambda: SkPCA(50).fit(X), repeats)
    ours, ref = r[2], r[3]
    acc = (
        f"solver_={ours.solver_}; captured variance lowdim {ours.explained_variance_.sum():.2f} vs "
        f"sklearn ({ref._fit_svd_solver}) {ref.explained_variance_.sum():.2f}"
    )
    good = ours.explained_variance_.sum() >= ref.explained_variance_.sum() * (1 - 1e-6)
    return [row("3. wide 2000x50000 float32 Gaussian k=50, auto vs auto", r[0], r[1], acc, 0.7, good, r[4:])]


def case_tall(repeats):
    from sklearn.decomposition import PCA as SkPCA

    from lowdim import PCA

    X = _data.tall_low_rank()
    rows = []
    # scikit-learn's best: time each of its solvers once, keep the fastest
    ref_times = {}
    for solver in ("covariance_eigh", "randomized"):
        ref_times[solver] = timed(lambda solver=solver: SkPCA(20, svd_solver=solver, random_state=0).fit(X))[0]
    best = min(ref_times, key=ref_times.get)
    for solver in ("randomized", "covariance"):
        r = compare(
            lambda solver=solver: PCA(20, solver=solver, random_state=0).fit(X),
            lambda: SkPCA(20, svd_solver=best, random_state=0).fit(X),
            repeats,
        )
        ours, ref = r[2], r[3]
        captured, captured_ref = ours.explained_variance_.sum(), ref.explained_variance_.sum()
        acc = f"captured variance {captured:.4f} vs {captured_ref:.4f}; sklearn single runs " + ", ".join(
            f"{k} {v:.2f} s" for k, v in ref_times.items()
        )
        rows.append(
            row(
                f"4. tall 200000x2000 float32 rank-20 k=20, lowdim {solver} vs sklearn's best ({best})",
                r[0],
                r[1],
                acc,
                0.5,
                captured >= captured_ref * (1 - 1e-6),
                r[4:],
            )
        )
    return rows


_SPARSE_PEAK = """
import sys, numpy as np
sys.path.insert(0, {bench!r})
import _data
from lowdim import PCA
S = _data.sparse_counts()
PCA(20, random_state=0).fit(S[:2000])  # load numba caches and modules first
def rss(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss('VmRSS')
open('/proc/self/clear_refs', 'w').write('5')  # reset the peak (VmHWM)
PCA(20, random_state=0).fit(S)
print(rss('VmHWM'), before)
"""


def case_sparse_wide(repeats):
    """Sparse term-like rows, fewer than their columns (10,000 x 50,000, 1 M entries),
    20 components: Lanczos on the rows' side against scikit-learn's ARPACK."""
    from sklearn.decomposition import PCA as SkPCA

    from lowdim import PCA

    S = _data.sparse_counts(n=10_000, d=50_000, nnz=1_000_000)
    r = compare(
        lambda: PCA(20, random_state=0).fit(S), lambda: SkPCA(20, svd_solver="arpack", random_state=0).fit(S), repeats
    )
    err = rel_diff(r[2].explained_variance_, r[3].explained_variance_)
    acc = f"solver_={r[2].solver_}; eigenvalues vs arpack {err:.1e}"
    name = "sparse CSR 10,000 x 50,000 (1 M non-zeros), k=20, centred, `auto` (Lanczos on the rows' side)"
    return [row(name, r[0], r[1], acc, 1.0, err <= 1e-8, r[4:])]


def case_sparse(repeats):
    from sklearn.decomposition import PCA as SkPCA

    from lowdim import PCA

    S = _data.sparse_counts()
    r = compare(
        lambda: PCA(20, random_state=0).fit(S), lambda: SkPCA(20, svd_solver="arpack", random_state=0).fit(S), repeats
    )
    ours, ref = r[2], r[3]
    out = subprocess.run(
        [sys.executable, "-c", _SPARSE_PEAK.format(bench=os.path.dirname(__file__))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    peak, before = float(out[-2]), float(out[-1])
    err = rel_diff(ours.explained_variance_, ref.explained_variance_)
    acc = (
        f"solver_={ours.solver_}, {S.nnz} non-zeros; eigenvalues vs arpack {err:.1e}; peak RSS during "
        f"fit {peak:.0f} MB (process, incl. {before:.0f} MB before the fit)"
    )
    return [
        row(
            "5. sparse CSR 100000x50000 k=20 centered, auto vs arpack",
            r[0],
            r[1],
            acc,
            1.0,
            err <= 1e-8 and peak < 1024,
            r[4:],
        )
    ]


def case_import(repeats):
    code = "import time; t = time.perf_counter(); import lowdim; print(time.perf_counter() - t)"
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(max(5, repeats))
    ]
    t = statistics.median(times)
    return [
        {
            "case": "6. import lowdim",
            "lowdim_s": round(t, 3),
            "reference_s": None,
            "ratio": None,
            "target": "< 0.5 s",
            "accuracy": "",
            "met": t < 0.5,
            "runs_lowdim": [round(x, 3) for x in times],
            "runs_reference": [],
        }
    ]


CASES = {
    "fashion": case_fashion,
    "streaming": case_streaming,
    "streaming-wide": case_streaming_wide,
    "wide": case_wide,
    "tall": case_tall,
    "sparse": case_sparse,
    "sparse-wide": case_sparse_wide,
    "import": case_import,
}


def machine():
    import numpy
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    blas = {(i["internal_api"], i.get("architecture")) for i in threadpool_info()}
    cpu = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
        platform.processor(),
    )
    return (
        f"{datetime.date.today()} | {cpu}, {os.cpu_count()} cores | Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, scipy {scipy.__version__}, scikit-learn {sklearn.__version__} | "
        f"BLAS {sorted(blas)}"
    )


def run_cli(cases, description, argv=None):
    """The command line every benchmark script shares: pick cases, repeat, print the
    markdown rows (with the individual runs), optionally write them as JSON."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"some of {', '.join(cases)} (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases) - set(cases))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(cases)}")
    print(machine())
    rows = []
    for name in args.cases or list(cases):
        for r in cases[name](args.repeats):
            rows.append(r)
            ratio = "" if r["ratio"] is None else f"{r['ratio']:.3f}"
            ref = "" if r["reference_s"] is None else f"{r['reference_s']:.3f}"
            print(
                f"| {r['case']} | {r['lowdim_s']:.3f} | {ref} | {ratio} | {r['target']} | "
                f"{'yes' if r['met'] else 'NO'} | {r['accuracy']} | {r['runs_lowdim']} / "
                f"{r['runs_reference']} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
