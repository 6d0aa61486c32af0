"""lowdim on Dask against dask-ml, on a local cluster of this machine.

The data: 2,000,000 x 500 float32 (4 GB) generated block by block (50,000 rows per
block, seeded by the block's index) and never persisted, so every pass over the data
regenerates it, as reading from disk would: 10 well-separated clusters (centres
2.5 N(0, 1)), a rank-20 signal with scales 6 .. 2, unit noise (see ``_block``). The
cluster: ``LocalCluster`` with 2 worker
processes x 1 thread (the machine's 2 cores), shared by both libraries, started once.

Cases (same settings for both, median of --repeats alternating runs after a warm-up
on a small array that compiles numba kernels in the workers):
- pca-exact: lowdim PCA(50) ('auto' -> one-pass covariance) vs dask-ml PCA(50,
  svd_solver='full') (TSQR); accuracy: eigenvalues against each other.
- pca-randomized: both randomized with iterated_power=2, run i with random_state=i;
  accuracy: median over the runs of the top-50 eigenvalues' largest relative error
  against the exact ones; dask-ml's default (iterated_power=0) reported.
  pca-randomized-q3: the same with lowdim at q=3 (one pass more), dask-ml at q=2.
- kmeans: KMeans(10, init='k-means||', max_iter=300) for both (dask-ml:
  oversampling_factor=2, its default), the same stopping rule (see case_kmeans);
  accuracy: inertia.

Run:  scripts/bench.sh dask [CASE ...] [--repeats 3] [--rows N]
"""

import argparse
import gc
import os
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare as _compare  # noqa: E402
from bench_pca import machine, rel_diff, row, timed  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)
ROWS, COLS, BLOCK = 2_000_000, 500, 50_000


def _block(block_id=None, block_info=None, cols=COLS):
    """One block: 10 well-separated clusters (centres 2.5 N(0, 1)) plus a rank-20
    signal (scales 6 .. 2) plus unit noise. The noise rows are windows of a pool of
    4,000,000 standard normals drawn for the block, which keeps generation (repeated on
    every pass, for both libraries alike) at about the cost of reading the block."""
    from numpy.lib.stride_tricks import sliding_window_view

    rng = np.random.default_rng(1000 + block_id[0])
    base = np.random.default_rng(7)  # the same centres and signal basis in every block
    centers = base.standard_normal((10, cols), dtype=np.float32) * np.float32(2.5)
    basis = base.standard_normal((20, cols), dtype=np.float32) / np.float32(np.sqrt(cols))
    scales = np.linspace(6, 2, 20, dtype=np.float32)
    n = block_info[None]["chunk-shape"][0]
    pool = rng.standard_normal(4_000_000, dtype=np.float32)
    X = sliding_window_view(pool, cols)[rng.integers(0, pool.size - cols, size=n)]
    X += centers[rng.integers(0, 10, size=n)]
    X += (rng.standard_normal((n, 20), dtype=np.float32) * scales) @ basis
    return X


def generated(rows=ROWS, block=BLOCK):
    """The benchmark array: ``rows`` x 500 float32, generated block by block."""
    import dask.array as da

    return da.map_blocks(_block, dtype=np.float32, chunks=((block,) * (rows // block), (COLS,)))


def compare(ours, theirs, repeats):
    """bench_pca's alternating protocol; the warm-up is ``warm_up`` below, on a small
    array, since one untimed run here would take minutes."""
    gc.collect()
    return _compare(ours, theirs, repeats, warm_up=False, show=True)


def case_pca_exact(X, repeats):
    from dask_ml.decomposition import PCA as DmlPCA

    from lowdim import PCA

    r = compare(lambda: PCA(50).fit(X), lambda: DmlPCA(50, svd_solver="full").fit(X), repeats)
    ours, ref = r[2], r[3]
    gap = rel_diff(ours.explained_variance_, ref.explained_variance_)
    acc = f"solver '{ours.solver_}' vs TSQR: top-50 eigenvalues max rel diff {gap:.1e}"
    return row(f"PCA(50) exact, {X.shape[0]} x {X.shape[1]} float32", r[0], r[1], acc, 0.7, gap < 1e-3, r[4:])


def case_pca_randomized(X, repeats, exact, q_ours=2, q_ref=2):
    """Run i of each library uses random_state=i; accuracy is the median over the runs
    of the largest relative error of the top-50 eigenvalues (components 31-50 sit on the
    flat noise floor, where both solvers err by a few percent at q = 2)."""
    from dask_ml.decomposition import PCA as DmlPCA

    from lowdim import PCA

    seeds = {"lowdim": iter(range(repeats)), "dask-ml": iter(range(repeats))}
    errors = {"lowdim": [], "dask-ml": []}

    def run(name, make):
        model = make(next(seeds[name])).fit(X)
        errors[name].append(rel_diff(model.explained_variance_, exact))
        return model

    r = compare(
        lambda: run("lowdim", lambda s: PCA(50, solver="randomized", iterated_power=q_ours, random_state=s)),
        lambda: run("dask-ml", lambda s: DmlPCA(50, svd_solver="randomized", iterated_power=q_ref, random_state=s)),
        repeats,
    )
    err_ours, err_ref = statistics.median(errors["lowdim"]), statistics.median(errors["dask-ml"])
    default = DmlPCA(50, svd_solver="randomized", random_state=0).fit(X)
    err_default = rel_diff(default.explained_variance_, exact)
    acc = (
        f"top-50 eigenvalue max rel error, median over seeds 0-{repeats - 1}: lowdim {err_ours:.1e} "
        f"{[f'{e:.1e}' for e in errors['lowdim']]}, dask-ml {err_ref:.1e} "
        f"{[f'{e:.1e}' for e in errors['dask-ml']]} (dask-ml default iterated_power=0: {err_default:.1e})"
    )
    q = f"q={q_ours}" if q_ours == q_ref else f"lowdim q={q_ours}, dask-ml q={q_ref}"
    return row(
        f"PCA(50) randomized {q}, {X.shape[0]} x {X.shape[1]} float32", r[0], r[1], acc, 0.7, err_ours <= err_ref, r[4:]
    )


def squared_inertia(X, centers):
    """Sum over the rows of the squared distance to the nearest centre (float64)."""
    C = np.asarray(centers, dtype=np.float64)

    def block(b):
        b = b.astype(np.float64)
        d = (b**2).sum(1)[:, None] - 2 * b @ C.T + (C**2).sum(1)[None, :]
        return np.array([np.maximum(d.min(axis=1), 0).sum()])

    return float(X.map_blocks(block, dtype=np.float64, chunks=((1,) * X.numblocks[0],), drop_axis=1).sum().compute())


def case_kmeans(X, repeats, mean_variance):
    """dask-ml stops when the squared centre shift is below ``tol`` (absolute); lowdim,
    like scikit-learn, below ``tol`` times the mean feature variance: dask-ml gets
    1e-4 times that variance, the same stopping rule."""
    from dask_ml.cluster import KMeans as DmlKMeans

    from lowdim import KMeans

    r = compare(
        lambda: KMeans(10, init="k-means||", tol=1e-4, random_state=0).fit(X),
        lambda: DmlKMeans(10, init="k-means||", tol=1e-4 * mean_variance, random_state=0).fit(X),
        repeats,
    )
    ours, ref = r[2], r[3]
    # dask-ml's inertia_ sums plain (not squared) distances when its last shift exceeds
    # 1e-7: both sets of centres are scored here by the same pass instead
    mine, theirs = squared_inertia(X, ours.cluster_centers_), squared_inertia(X, ref.cluster_centers_)
    gap = mine / theirs - 1
    acc = (
        f"inertia (sum of squared distances, recomputed for both) lowdim {mine:.6g} ({ours.algorithm_}, "
        f"{ours.n_iter_} it; its inertia_ {ours.inertia_:.6g}) vs dask-ml {theirs:.6g} ({ref.n_iter_} it; "
        f"its inertia_ {ref.inertia_:.6g}): {gap:+.2e}"
    )
    return row(f"KMeans k=10, {X.shape[0]} x {X.shape[1]} float32", r[0], r[1], acc, 0.7, gap <= 1e-3, r[4:])


def warm_up():
    """Compile lowdim's numba kernels and import dask-ml in the workers (small array)."""
    from dask_ml.cluster import KMeans as DmlKMeans
    from dask_ml.decomposition import PCA as DmlPCA

    from lowdim import PCA, KMeans

    small = generated(20_000, 5_000)
    for fit in (
        lambda: PCA(5).fit(small),
        lambda: PCA(5, solver="randomized", random_state=0).fit(small),
        lambda: KMeans(10, init="k-means||", random_state=0).fit(small),
        lambda: DmlPCA(5, svd_solver="full").fit(small),
        lambda: DmlKMeans(10, tol=1e-3, random_state=0).fit(small),
    ):
        seconds, _ = timed(fit)
        print(f"  warm-up {seconds:.1f} s", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "cases", nargs="*", choices=[[], "pca-exact", "pca-randomized", "pca-randomized-q3", "kmeans"], default=[]
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=ROWS)
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster

    print(machine())
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="10GiB"
        ) as cluster,
        Client(cluster) as client,
    ):
        import dask
        import dask_ml

        print(
            f"dask {dask.__version__}, dask-ml {dask_ml.__version__}, "
            f"{len(client.scheduler_info()['workers'])} workers x 1 thread",
            flush=True,
        )
        warm_up()
        X = generated(args.rows)
        cases = args.cases or ["pca-exact", "pca-randomized", "kmeans"]
        rows = []
        from lowdim import PCA

        reference = PCA(50, solver="covariance").fit(X)
        exact, mean_variance = reference.explained_variance_, reference.total_variance_ / X.shape[1]
        for name in cases:
            if name == "pca-exact":
                rows.append(case_pca_exact(X, args.repeats))
            elif name == "pca-randomized":
                rows.append(case_pca_randomized(X, args.repeats, exact))
            elif name == "pca-randomized-q3":  # lowdim at q=3 against dask-ml's q=2 accuracy
                rows.append(case_pca_randomized(X, args.repeats, exact, q_ours=3))
            else:
                rows.append(case_kmeans(X, args.repeats, mean_variance))
            r = rows[-1]
            print(
                f"| {r['case']} | {r['lowdim_s']:.3f} | {r['reference_s']:.3f} | {r['ratio']:.3f} | "
                f"{r['target']} | {'yes' if r['met'] else 'NO'} | {r['accuracy']} | {r['runs_lowdim']} / "
                f"{r['runs_reference']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
