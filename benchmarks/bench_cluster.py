"""Clustering benchmarks against scikit-learn, in the same run (issue 4).

Fashion-MNIST projected to 50 PCA dimensions (float32): KMeans k = 10 and k = 100, KMeans
k = 10 on the raw 70,000 x 784 images, GaussianMixture full and diag with k = 10, all with
the same initial centres / responsibilities for both libraries; KMedoids 'pam' k = 10 on
10,000 points (time and objective only). Same protocol as bench_pca.py: alternating
runs after a warm-up, 0.3 s pause before each, medians.
Run:  .venv/bin/python benchmarks/bench_cluster.py [CASE ...] [--repeats 3]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare, machine, row  # noqa: E402

import _data  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)


def fashion_pca50():
    from lowdim import PCA

    X = _data.fashion_mnist(np.float32)
    return PCA(50, random_state=0).fit_transform(X)


def _kmeans_case(X, k, label, repeats, target=0.8):
    from sklearn.cluster import KMeans as SkKMeans

    from lowdim import KMeans

    init = X[np.random.default_rng(0).choice(X.shape[0], k, replace=False)]
    r = compare(lambda: KMeans(k, init=init, n_init=1).fit(X),
                lambda: SkKMeans(k, init=init, n_init=1).fit(X), repeats)
    ours, ref = r[2], r[3]
    gap = ours.inertia_ / ref.inertia_ - 1
    acc = (f"inertia lowdim {ours.inertia_:.6g} ({ours.algorithm_}, {ours.n_iter_} it) vs sklearn "
           f"{ref.inertia_:.6g} ({ref.n_iter_} it): {gap:+.2e}")
    return row(label, r[0], r[1], acc, target, gap <= 1e-3, r[4:])


def case_kmeans(repeats):
    X = fashion_pca50()
    return [_kmeans_case(X, 10, "KMeans k=10, Fashion-MNIST PCA-50 float32", repeats),
            _kmeans_case(X, 100, "KMeans k=100, Fashion-MNIST PCA-50 float32", repeats)]


def case_kmeans_raw(repeats):
    X = _data.fashion_mnist(np.float32)
    return [_kmeans_case(X, 10, "KMeans k=10, Fashion-MNIST raw 70000 x 784 float32", repeats)]


CASES = {"kmeans": case_kmeans, "kmeans-raw": case_kmeans_raw}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("cases", nargs="*", metavar="CASE", help="some of the cases (default all)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine())
    for name in args.cases or list(CASES):
        for r in CASES[name](args.repeats):
            print(f"| {r['case']} | {r['lowdim_s']:.3f} | {r['reference_s']:.3f} | {r['ratio']:.3f} | "
                  f"{r['target']} | {'yes' if r['met'] else 'NO'} | {r['accuracy']} | "
                  f"{r['runs_lowdim']} / {r['runs_reference']} |", flush=True)


if __name__ == "__main__":
    main()
