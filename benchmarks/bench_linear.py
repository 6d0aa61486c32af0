"""Linear latent-variable models against scikit-learn, in the same run (issue 3).

Only the cases whose lowdim estimator exists are here so far: FactorAnalysis and
FastICA. Same protocol as
bench_pca.py: alternating runs after a warm-up, 0.3 s pause before each, medians.
Run:  .venv/bin/python benchmarks/bench_linear.py
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare, machine, row  # noqa: E402

import _data  # noqa: E402


def case_factor_analysis(repeats):
    from sklearn.decomposition import FactorAnalysis as SkFA

    from lowdim import FactorAnalysis

    X = _data.fashion_mnist(np.float64)[:20000]
    r = compare(lambda: FactorAnalysis(20).fit(X), lambda: SkFA(20, random_state=0).fit(X), repeats)
    ours, ref = r[2], r[3]
    ll_ours, ll_ref = ours.score(X), ref.score(X)
    acc = (f"average log-likelihood lowdim {ll_ours:.4f} ({ours.n_iter_} SQUAREM cycles) vs sklearn "
           f"{ll_ref:.4f} ({ref.n_iter_} iterations)")
    return [row("FactorAnalysis, Fashion-MNIST 20000 images, 20 factors", r[0], r[1], acc, 0.7,
                ll_ours >= ll_ref - 1e-9, r[4:])]


def negentropy(S):
    """Sum over sources of (E log cosh(s) - E log cosh(nu))^2, nu standard normal."""
    S = (S - S.mean(axis=0)) / S.std(axis=0)
    gauss = np.random.default_rng(0).standard_normal(1_000_000)
    reference = np.mean(np.log(np.cosh(gauss)))
    return float(np.sum((np.mean(np.log(np.cosh(S)), axis=0) - reference) ** 2))


def amari_distance(P):
    """0 when P is a scaled permutation (the two unmixings found the same sources)."""
    P = np.abs(P)
    k = P.shape[0]
    return float(((P.sum(1) / P.max(1) - 1).sum() + (P.sum(0) / P.max(0) - 1).sum()) / (2 * k * (k - 1)))


def case_fastica(repeats):
    from sklearn.decomposition import FastICA as SkFastICA

    from lowdim import FastICA

    X = _data.fashion_mnist(np.float64)[:20000]
    r = compare(lambda: FastICA(20, random_state=0).fit(X),
                lambda: SkFastICA(20, whiten="unit-variance", random_state=0).fit(X), repeats)
    ours, ref = r[2], r[3]
    j_ours, j_ref = negentropy(ours.transform(X)), negentropy(ref.transform(X))
    agreement = amari_distance(ours.components_ @ ref.mixing_)
    acc = (f"negentropy (logcosh) of the sources lowdim {j_ours:.5f} ({ours.n_iter_} iterations) vs "
           f"sklearn {j_ref:.5f} ({ref.n_iter_} iterations); Amari distance between the two "
           f"unmixings {agreement:.3f}")
    return [row("FastICA, Fashion-MNIST 20000 images, 20 components", r[0], r[1], acc, 0.7,
                j_ours >= j_ref * (1 - 1e-3), r[4:])]


CASES = {"fa": case_factor_analysis, "ica": case_fastica}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"some of {', '.join(CASES)}")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine())
    for name in args.cases or list(CASES):
        for r in CASES[name](args.repeats):
            print(f"| {r['case']} | {r['lowdim_s']:.3f} | {r['reference_s']:.3f} | {r['ratio']:.3f} | "
                  f"{r['target']} | {'yes' if r['met'] else 'NO'} | {r['accuracy']} |", flush=True)


if __name__ == "__main__":
    main()
