"""Classical manifold learning against scikit-learn, in the same run (issue 5).

Fashion-MNIST projected to 50 PCA dimensions (float32): Isomap, SpectralEmbedding and LLE
on n = 5,000 (n_neighbors = 10; Hessian LLE 12), SMACOF MDS on n = 2,000; both libraries with the same
parameters, with trustworthiness (k = 10) and held-out kNN accuracy of each embedding.
Same protocol as bench_pca.py: alternating runs after a warm-up, 0.3 s pause, medians.
Run:  .venv/bin/python benchmarks/bench_manifold.py [CASE ...] [--repeats 3]
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare, row, run_cli  # noqa: E402

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
    text = (f"trustworthiness(10) lowdim {t[0]:.4f} vs sklearn {t[1]:.4f}; kNN accuracy "
            f"{a[0]:.4f} vs {a[1]:.4f}")
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
    return [_case("SpectralEmbedding n=5000, k=10", SpectralEmbedding(n_neighbors=10, random_state=0),
                  SkSpectral(n_neighbors=10, random_state=0), X, y, 0.5, repeats)]


def case_mds(repeats):
    from sklearn.manifold import MDS as SkMDS

    from lowdim.manifold import MDS

    X, y = fashion_pca50(2000)
    return [_case("SMACOF MDS n=2000", MDS(random_state=0), SkMDS(random_state=0, init="classical_mds"),
                  X, y, 0.5, repeats)]


def case_lle(repeats):
    from sklearn.manifold import LocallyLinearEmbedding as SkLLE

    from lowdim.manifold import LocallyLinearEmbedding

    X, y = fashion_pca50(5000)
    # scikit-learn's Hessian LLE stops with 'Factor is exactly singular' under ARPACK here
    # (shift-invert at exactly 0); its dense solver is the one that runs (the 17.5 s)
    return [_case(f"LLE {method} n=5000, k={k}" + (" (sklearn dense)" if solver == "dense" else ""),
                  LocallyLinearEmbedding(n_neighbors=k, method=method, random_state=0),
                  SkLLE(n_neighbors=k, method=method, eigen_solver=solver, random_state=0), X, y, target, repeats)
            for method, k, solver, target in (("standard", 10, "auto", 1.0), ("hessian", 12, "dense", 0.2))]


CASES = {"isomap": case_isomap, "spectral": case_spectral, "mds": case_mds, "lle": case_lle}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
