"""Linear latent-variable models against scikit-learn, in the same run (issue 3).

Only the cases whose lowdim estimator exists are here so far: FactorAnalysis (and
ProbabilisticPCA, which scikit-learn lacks, for the record). Same protocol as
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


CASES = {"fa": case_factor_analysis}


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
