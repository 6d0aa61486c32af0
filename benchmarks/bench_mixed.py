"""Mixed tables: Gower's kNN graph against the ``gower`` package (PyPI), and the map of
the penguins by Gower's distance beside one-hot coding.

'gower': 10,000 rows x 20 columns (10 numbers; 10 categories of 3 to 50 levels), no
gaps; lowdim's 15-NN graph (``NeighborGraph.build(metric='gower')``, exact, in row
blocks) against ``gower.gower_matrix`` (the full n x n matrix, float32) followed by the
15 smallest per row. Accuracy: the largest difference of the 15 sorted neighbour
distances per row (float32 rounding in the reference) and the share of neighbour sets
that agree (ties at equal distance may be broken differently). Target <= 0.1x.
'gaps': the same table with 5 % of the cells empty, lowdim alone (the reference has no
pairwise renormalisation of weights), against its own time without gaps.
'penguins': leave-one-out 10-NN accuracy of the species on UMAP maps (5 seeds, median):
Gower's distance on the table as read, against one-hot categories + standardised numbers
(gaps imputed by the mean) with Euclidean distance. Target >= 0.95.
'ca', 'mca', 'famd': against ``prince`` on 100,000 rows, 5 components: CA of a 100,000 x 10
table of counts, MCA of the 10 categorical columns (3 to 50 levels), FAMD of all 20.
prince timed with its defaults (a randomized SVD); accuracy: the largest relative
difference of the eigenvalues from prince's with its exact engine (engine='scipy', a full
SVD, untimed), and from its default. Target <= 0.5x.
'kprototypes': against ``kmodes.KPrototypes`` on 100,000 rows (the 10 numbers standardised,
10 categories), 5 clusters, the same gamma, 2 starts each (lowdim k-means++, kmodes
'Cao'), one thread for kmodes' own loop. Accuracy: the costs (lowdim's no worse).
Target <= 0.1x.
'million': 1,000,000 rows of the same kind: UMAP by Gower's distance (approximate index)
against UMAP of the 10 numeric columns alone, one run each. Target <= 2x.
Runs alternate, 0.3 s pause, medians.
Run:  scripts/bench.sh mixed [CASE ...] [--repeats 3]
"""

import os
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import compare, row, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore")
N_ROWS, K = 10_000, 15


def mixed_table(n, seed=0, gaps=0.0, groups=False):
    """n x 20: 10 numbers of varied scales, 10 categories of 3 to 50 levels, related by
    5 hidden groups so that neighbours mean something (returned with ``groups``)."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 5, n)
    numbers = rng.normal(size=(n, 10)) + group[:, None] * rng.normal(size=10) * 0.8
    numbers *= np.logspace(0, 3, 10)
    levels = np.linspace(3, 50, 10).astype(int)
    cats = np.column_stack(
        [np.where(rng.random(n) < 0.6, (group * 7 + j) % L, rng.integers(0, L, n)) for j, L in enumerate(levels)]
    ).astype(float)
    X = np.column_stack([numbers, cats])
    if gaps:
        X[rng.random(X.shape) < gaps] = np.nan
    return (X, list(range(10, 20)), group) if groups else (X, list(range(10, 20)))


def _lowdim_graph(X, categorical):
    from lowdim import NeighborGraph

    return NeighborGraph.build(X, K, metric="gower", metric_params={"categorical": categorical})


def _reference_graph(X, categorical):
    import gower
    import pandas as pd

    frame = pd.DataFrame(X).astype({j: "int64" for j in categorical}).astype({j: str for j in categorical})
    D = gower.gower_matrix(frame)
    np.fill_diagonal(D, np.inf)
    idx = np.argpartition(D, K, axis=1)[:, :K]
    return np.sort(np.take_along_axis(D, idx, axis=1), axis=1), idx


def case_gower(repeats):
    X, categorical = mixed_table(N_ROWS)
    t_ours, t_ref, ours, (ref_dist, ref_idx), *runs = compare(
        lambda: _lowdim_graph(X, categorical), lambda: _reference_graph(X, categorical), repeats
    )
    gap = float(np.abs(np.sort(ours.distances, axis=1) - ref_dist).max())
    same = float(np.mean([set(a) == set(b) for a, b in zip(ours.indices.tolist(), ref_idx.tolist())]))
    accuracy = f"max distance diff {gap:.1e}, equal neighbour sets {100 * same:.1f} %"
    return [row(f"Gower 15-NN graph, {N_ROWS} x 20 mixed", t_ours, t_ref, accuracy, 0.1, gap < 1e-5, runs)]


def case_gaps(repeats):
    full, categorical = mixed_table(N_ROWS)
    holed, _ = mixed_table(N_ROWS, gaps=0.05)
    t_gaps, t_full, *_, runs_a, runs_b = compare(
        lambda: _lowdim_graph(holed, categorical), lambda: _lowdim_graph(full, categorical), repeats
    )
    out = row(
        f"Gower 15-NN graph, 5 % gaps vs none (lowdim), {N_ROWS} x 20", t_gaps, t_full, "-", 1.3, True, (runs_a, runs_b)
    )
    return [out]


def _loo_accuracy(Y, y, k=10):
    from lowdim.neighbors import nearest_neighbors

    _, idx = nearest_neighbors(Y, k)
    votes = y[idx]
    return float(np.mean([max(sorted(set(v)), key=list(v).count) == t for v, t in zip(votes.tolist(), y)]))


def case_penguins(repeats):
    import lowdim

    table, species = lowdim.load_penguins()
    X = table.X
    numeric = [j for j, k in enumerate(table.kinds) if k == "numeric"]
    num = np.where(np.isnan(X[:, numeric]), np.nanmean(X[:, numeric], axis=0), X[:, numeric])
    one_hot = [
        (X[:, j][:, None] == np.arange(len(table.levels[table.names[j]]))).astype(float)
        for j, k in enumerate(table.kinds)
        if k != "numeric"
    ]
    Z = lowdim.StandardScaler().fit_transform(np.column_stack([num, *one_hot]))
    gower_acc, onehot_acc = [], []
    for seed in range(5):
        umap = lowdim.UMAP(metric="gower", metric_kwds=table.metric_params, random_state=seed)
        gower_acc.append(_loo_accuracy(umap.fit_transform(X), species))
        onehot_acc.append(_loo_accuracy(lowdim.UMAP(random_state=seed).fit_transform(Z), species))
    g, o = statistics.median(gower_acc), statistics.median(onehot_acc)
    return [
        {
            "case": "penguins: UMAP 10-NN accuracy (leave-one-out), Gower vs one-hot + standardised",
            "lowdim_s": g,
            "reference_s": o,
            "ratio": None,
            "target": ">= 0.95",
            "accuracy": f"Gower {g:.3f}, one-hot {o:.3f}",
            "met": g >= 0.95,
            "runs_lowdim": gower_acc,
            "runs_reference": onehot_acc,
        }
    ]


FACTORIAL_ROWS = 100_000


def _frame(X, categorical):
    """The table as prince reads it: categories as text columns, numbers as floats."""
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    for j in categorical:
        frame[f"c{j}"] = "L" + frame[f"c{j}"].astype(int).astype(str)
    return frame


def _factorial(kind, repeats):
    import prince

    import lowdim

    X, categorical = mixed_table(FACTORIAL_ROWS, seed=1)
    if kind == "ca":
        data = np.random.default_rng(2).poisson(np.exp(X[:, :10] / X[:, :10].std(axis=0))).astype(float)
        data[:, 0] += 1  # every row has counts
        ours, theirs = lowdim.CA(n_components=5), prince.CA(n_components=5, random_state=0)
        ref_data = __import__("pandas").DataFrame(data)
    elif kind == "mca":
        data = _frame(X[:, categorical], range(10))
        ours, theirs, ref_data = lowdim.MCA(n_components=5), prince.MCA(n_components=5, random_state=0), data
    else:
        data = _frame(X, categorical)
        ours, theirs, ref_data = lowdim.FAMD(n_components=5), prince.FAMD(n_components=5, random_state=0), data
    t_ours, t_ref, a, b, *runs = compare(lambda: ours.fit(data), lambda: theirs.fit(ref_data), repeats)
    exact = type(theirs)(n_components=5, engine="scipy", random_state=0).fit(ref_data)  # full SVD, untimed

    def gap(ref):
        return float(np.max(np.abs(a.eigenvalues_ - np.asarray(ref.eigenvalues_)) / a.eigenvalues_))

    label = {"ca": "CA, 100,000 x 10 counts", "mca": "MCA, 100,000 x 10 categories", "famd": "FAMD, 100,000 x 20"}
    accuracy = f"eigenvalues max rel diff {gap(exact):.1e} (prince, full SVD), {gap(b):.1e} (its default)"
    return [row(label[kind], t_ours, t_ref, accuracy, 0.5, gap(exact) < 1e-6, runs)]


def case_kprototypes(repeats):
    from kmodes.kprototypes import KPrototypes as Reference

    from lowdim import KPrototypes

    X, categorical = mixed_table(FACTORIAL_ROWS, seed=3)
    X[:, :10] = (X[:, :10] - X[:, :10].mean(axis=0)) / X[:, :10].std(axis=0)
    gamma = 0.5
    ours = KPrototypes(5, gamma=gamma, n_init=2, categorical=categorical, random_state=0)
    theirs = Reference(5, gamma=gamma, n_init=2, init="Cao", random_state=0, n_jobs=1)
    t_ours, t_ref, a, b, *runs = compare(
        lambda: ours.fit(X), lambda: theirs.fit(X, categorical=categorical), repeats, warm_up=False
    )
    accuracy = f"cost lowdim {a.cost_:.6g}, kmodes {b.cost_:.6g}"
    return [row("KPrototypes, 100,000 x 20, k=5", t_ours, t_ref, accuracy, 0.1, a.cost_ <= b.cost_ * 1.0001, runs)]


MILLION = 1_000_000


def case_million(repeats):
    """The 15-NN graph and a UMAP map of 1,000,000 mixed rows by Gower's distance
    (approximate index: candidates by HNSW, re-ranked exactly) against UMAP of the
    numeric columns alone; one run each (minutes), 10-NN accuracy of the hidden groups on
    10,000 sampled rows of each map."""
    from lowdim import UMAP, NeighborGraph
    from lowdim.metrics import knn_accuracy

    X, categorical, group = mixed_table(MILLION, seed=4, groups=True)
    params = {"categorical": categorical}
    numbers = X[:, :10]
    UMAP(n_epochs=20, metric="gower", metric_kwds=params, random_state=0).fit(X[:25_000])  # compile, untimed
    t_graph, _ = timed(lambda: NeighborGraph.build(X, 15, metric="gower", metric_params=params))
    t_gower, Y_gower = timed(lambda: UMAP(metric="gower", metric_kwds=params, random_state=0).fit_transform(X))
    t_num, Y_num = timed(lambda: UMAP(random_state=0).fit_transform(numbers))
    sample = np.random.default_rng(0).choice(MILLION, 10_000, replace=False)
    acc = [knn_accuracy(Y[sample], group[sample], n_neighbors=10, random_state=0) for Y in (Y_gower, Y_num)]
    accuracy = f"graph alone {t_graph:.0f} s; groups 10-NN accuracy Gower {acc[0]:.3f}, numbers only {acc[1]:.3f}"
    return [
        row("UMAP by Gower vs numbers only, 1,000,000 x 20", t_gower, t_num, accuracy, 2.0, True, ([t_gower], [t_num]))
    ]


CASES = {
    "million": case_million,
    "kprototypes": case_kprototypes,
    "gower": case_gower,
    "gaps": case_gaps,
    "penguins": case_penguins,
    "ca": lambda repeats: _factorial("ca", repeats),
    "mca": lambda repeats: _factorial("mca", repeats),
    "famd": lambda repeats: _factorial("famd", repeats),
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
