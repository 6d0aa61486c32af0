"""One neighbour graph, many maps: a sweep of five settings reusing one NeighborGraph,
timed against a single fit that searches its own neighbours, on all 70,000 raw
Fashion-MNIST images (784-D float32, where the search is the costly step).

'umap': UMAP n_neighbors in (5, 10, 15, 30, 50) from one graph of 49 neighbours (its
build included in the sweep's time) against one UMAP(n_neighbors=15) fit; also five
independent fits, and umap-learn's own sweep (its nearest_neighbors once, then five
fits with precomputed_knn), all with 2 threads. 'tsne': t-SNE perplexity in (10, 20,
30, 40, 50) from one graph of 151 neighbours against one TSNE(perplexity=30) fit, and
five independent fits. Quality of the sweep's middle map and of the single fit:
trustworthiness (k = 10, 5,000 sampled points) and 10-NN accuracy (80/20 split).
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


def _sweep(make, values, X, k):
    """The maps of ``make(value, graph)`` for every value, from one graph of ``k`` neighbours."""
    from lowdim.neighbors import NeighborGraph

    graph = NeighborGraph.build(X, k)
    return [make(v, graph).fit_transform(X) for v in values]


def _median_runs(calls, repeats):
    """Alternate the named callables ``repeats`` times: their times and last outputs."""
    times, outputs = {name: [] for name in calls}, {}
    for _ in range(repeats):
        for name, call in calls.items():
            t, outputs[name] = timed(call)
            times[name].append(t)
            print(f"  {name}: {t:.2f} s", flush=True)
    return times, outputs


def _row(label, times, outputs, X, y, middle, reference_note):
    sweep, single, five = (statistics.median(times[k]) for k in ("sweep", "single", "five"))
    (ts, acs), (t1, ac1) = _quality(X, y, outputs["sweep"][middle]), _quality(X, y, outputs["single"])
    text = (
        f"sweep of 5 {sweep:.1f} s = {sweep / five:.2f}x five independent fits ({five:.1f} s); "
        f"middle map trustworthiness(10) {ts:.4f} vs single fit {t1:.4f}, 10-NN accuracy {acs:.4f} vs {ac1:.4f}"
        + reference_note
    )
    ok = ts >= t1 - 0.005 and acs >= ac1 - 0.005
    return row(label, sweep, single, text, 1.5, ok, (times["sweep"], times["single"]))


def case_umap(repeats):
    import umap
    from umap.umap_ import nearest_neighbors

    from lowdim import UMAP
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()

    def make(k, graph=None):
        return UMAP(n_neighbors=k, random_state=0, n_jobs=THREADS, precomputed_knn=graph)

    def theirs():
        knn = nearest_neighbors(X, max(UMAP_VALUES), "euclidean", {}, False, None, n_jobs=THREADS)
        given = lambda k: (knn[0][:, :k], knn[1][:, :k])  # noqa: E731
        return [
            umap.UMAP(n_neighbors=k, precomputed_knn=given(k), n_jobs=THREADS).fit_transform(X) for k in UMAP_VALUES
        ]

    UMAP(random_state=0, n_epochs=20).fit(X[:25000])
    umap.UMAP(n_jobs=THREADS, n_epochs=20).fit(X[:25000])
    calls = {
        "sweep": lambda: _sweep(make, UMAP_VALUES, X, max(UMAP_VALUES) - 1),
        "single": lambda: make(15).fit_transform(X),
        "five": lambda: [make(k).fit_transform(X) for k in UMAP_VALUES],
        "umap-learn sweep": theirs,
    }
    times, outputs = _median_runs(calls, repeats)
    ref, ours = statistics.median(times["umap-learn sweep"]), statistics.median(times["sweep"])
    note = f"; umap-learn's sweep from its own graph {ref:.1f} s (lowdim's sweep {ours / ref:.2f}x)"
    return [_row("UMAP n_neighbors sweep, n=70000 (784-D)", times, outputs, X, y, 2, note)]


def case_tsne(repeats):
    from lowdim import TSNE
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()
    X, y = X[:TSNE_ROWS], y[:TSNE_ROWS]

    def make(p, graph=None):
        return TSNE(perplexity=p, random_state=0, precomputed_knn=graph)

    TSNE(random_state=0, max_iter=300).fit(X[:25000])
    calls = {
        "sweep": lambda: _sweep(make, PERPLEXITIES, X, int(3 * max(PERPLEXITIES) + 1)),
        "single": lambda: make(30.0).fit_transform(X),
        "five": lambda: [make(p).fit_transform(X) for p in PERPLEXITIES],
    }
    times, outputs = _median_runs(calls, repeats)
    return [_row(f"t-SNE perplexity sweep, n={TSNE_ROWS} (784-D)", times, outputs, X, y, 2, "")]


CASES = {"umap": case_umap, "tsne": case_tsne}


def main(argv=None):
    np.seterr(all="ignore")
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
