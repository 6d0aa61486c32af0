"""One neighbour graph, many maps: a sweep of five settings with ``lowdim.sweep``,
timed against a single fit that searches its own neighbours, on raw Fashion-MNIST
images (784-D float32, where the search is the costly step).

'umap': UMAP n_neighbors in (5, 10, 15, 30, 50) on all 70,000 images, one graph of 49
neighbours (its build included in the sweep's time), against one UMAP(n_neighbors=15)
fit; also five independent fits, and umap-learn's own sweep (its nearest_neighbors
once, then five fits with precomputed_knn), all with 2 threads. 'tsne': t-SNE
perplexity in (10, 20, 30, 40, 50) on the first 20,000 images, one graph of 151
neighbours, against one TSNE(perplexity=30) fit, and five independent fits.
Two sweeps each: independent maps from the shared graph (warm_start=False), and maps
warm-started from the one before (warm_start=True), whose ratio to the single fit is
the row's. Quality: each warm map against the independent fit of its value
(trustworthiness with k = 10 on 5,000 sampled points, 10-NN accuracy on an 80/20
split); the row is met when no warm map falls more than 0.005 below its fit.
Runs alternate, 0.3 s pause, medians; a warm-up on 25,000 rows compiles both libraries'
large-data paths first.
Run:  scripts/bench.sh graph [CASE ...] [--repeats 3]
"""

import os
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_embed import THREADS, _quality  # noqa: E402
from bench_pca import row, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)
UMAP_VALUES = (5, 10, 15, 30, 50)
PERPLEXITIES = (10.0, 20.0, 30.0, 40.0, 50.0)
TSNE_ROWS = 20_000  # five t-SNE fits of all 70,000 raw images take 5 minutes a repeat


def _sweep(template, param, values, X, warm):
    """The five maps of ``lowdim.sweep``."""
    from lowdim import sweep

    return [m.embedding_ for m in sweep(template, param, values, X, warm_start=warm)]


def _median_runs(calls, repeats):
    """Alternate the named callables ``repeats`` times: their times and last outputs."""
    times, outputs = {name: [] for name in calls}, {}
    for _ in range(repeats):
        for name, call in calls.items():
            t, outputs[name] = timed(call)
            times[name].append(t)
            print(f"  {name}: {t:.2f} s", flush=True)
    return times, outputs


def _row(label, times, outputs, X, y, reference_note):
    warm, cold, single, five = (statistics.median(times[k]) for k in ("warm sweep", "sweep", "single", "five"))
    q_warm = np.array([_quality(X, y, Y) for Y in outputs["warm sweep"]])
    q_five = np.array([_quality(X, y, Y) for Y in outputs["five"]])
    gap = q_warm - q_five  # per map: (trustworthiness, accuracy), warm minus independent
    worst = gap.min(axis=0)
    text = (
        f"independent maps from one graph {cold:.1f} s = {cold / single:.2f}x one fit, {cold / five:.2f}x five fits "
        f"({five:.1f} s); warm maps vs their independent fits: trustworthiness(10) "
        + ", ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(q_warm[:, 0], q_five[:, 0]))
        + "; 10-NN accuracy "
        + ", ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(q_warm[:, 1], q_five[:, 1]))
        + f" (worst gap {worst[0]:+.4f}, {worst[1]:+.4f})"
        + reference_note
    )
    ok = bool(np.all(worst >= -0.005))
    return row(label, warm, single, text, 1.5, ok, (times["warm sweep"], times["single"]))


def case_umap(repeats):
    import umap
    from umap.umap_ import nearest_neighbors

    from lowdim import UMAP
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()

    def make(k):
        return UMAP(n_neighbors=k, random_state=0, n_jobs=THREADS)

    def theirs():
        knn = nearest_neighbors(X, max(UMAP_VALUES), "euclidean", {}, False, None, n_jobs=THREADS)
        given = lambda k: (knn[0][:, :k], knn[1][:, :k])  # noqa: E731
        return [
            umap.UMAP(n_neighbors=k, precomputed_knn=given(k), n_jobs=THREADS).fit_transform(X) for k in UMAP_VALUES
        ]

    UMAP(random_state=0, n_epochs=20).fit(X[:25000])
    umap.UMAP(n_jobs=THREADS, n_epochs=20).fit(X[:25000])
    calls = {
        "warm sweep": lambda: _sweep(make(15), "n_neighbors", UMAP_VALUES, X, True),
        "sweep": lambda: _sweep(make(15), "n_neighbors", UMAP_VALUES, X, False),
        "single": lambda: make(15).fit_transform(X),
        "five": lambda: [make(k).fit_transform(X) for k in UMAP_VALUES],
        "umap-learn sweep": theirs,
    }
    times, outputs = _median_runs(calls, repeats)
    ref, ours = statistics.median(times["umap-learn sweep"]), statistics.median(times["sweep"])
    note = f"; umap-learn's sweep from its own graph {ref:.1f} s (lowdim's independent maps {ours / ref:.2f}x)"
    return [_row("UMAP n_neighbors sweep, n=70000 (784-D), warm-started", times, outputs, X, y, note)]


def case_tsne(repeats):
    from lowdim import TSNE
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()
    X, y = X[:TSNE_ROWS], y[:TSNE_ROWS]

    def make(p):
        return TSNE(perplexity=p, random_state=0)

    TSNE(random_state=0, max_iter=300).fit(X[:25000])
    calls = {
        "warm sweep": lambda: _sweep(make(30.0), "perplexity", PERPLEXITIES, X, True),
        "sweep": lambda: _sweep(make(30.0), "perplexity", PERPLEXITIES, X, False),
        "single": lambda: make(30.0).fit_transform(X),
        "five": lambda: [make(p).fit_transform(X) for p in PERPLEXITIES],
    }
    times, outputs = _median_runs(calls, repeats)
    return [_row(f"t-SNE perplexity sweep, n={TSNE_ROWS} (784-D), warm-started", times, outputs, X, y, "")]


CASES = {"umap": case_umap, "tsne": case_tsne}


def main(argv=None):
    np.seterr(all="ignore")
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
