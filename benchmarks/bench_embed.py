"""Neighbour embeddings against openTSNE and umap-learn, in the same run.

'tsne': t-SNE of all 70,000 Fashion-MNIST images projected to 50 PCA dimensions
(float32), lowdim (750 iterations: 250 exaggerated + 500, openTSNE's schedule) against
openTSNE with its defaults, both with 2 threads. 'umap': UMAP of the raw 70,000 x 784
images, both with defaults and 2 threads (umap-learn unseeded: seeded, it runs on one
thread; lowdim seeded, which costs it nothing). 'first': the first call in a fresh
process (imports and numba's kernels included) with an empty numba cache (compilation)
and with the cache of that first process (loading). Each library is warmed up on 3,000
points first (UMAP: 25,000, so that both libraries' large-data paths are compiled);
then runs alternate, 0.3 s pause, medians. Quality of every run with
lowdim.metrics: trustworthiness (k = 10) on 5,000 sampled points, kNN accuracy (k = 10,
80/20 split); medians reported.
'pacmap': PaCMAP of Fashion-MNIST's 70,000 images, raw (784-D: both libraries reduce
to 100 PCA dimensions first) and PCA-50, lowdim against the pacmap package, both with
their defaults (10 near pairs; faiss neighbours for pacmap, lowdim's HNSW via faiss),
seeded; quality: 10-NN accuracy (80/20 split) and random-triplet accuracy (global
structure, 100,000 triplets).
'pacmap-transform': PaCMAP fitted on Fashion-MNIST's 60,000 training images (raw; both
reduce to 100 PCA dimensions), the 10,000 test images placed by ``transform`` (pacmap:
``save_tree=True``, ``basis`` the training images); time of the transform, and 10-NN
accuracy of the placed test images by a classifier on the training map.
'trimap': TriMap of Fashion-MNIST PCA-50 (70,000 x 50) against the trimap package, both
with their defaults; the same quality measures as 'pacmap'.
'densmap': densMAP of Fashion-MNIST PCA-50 (70,000 x 50): lowdim's against umap-learn's
(both densmap=True, their defaults, 2 threads) and against lowdim's plain UMAP (time
target: <= 1.3x). Quality: the Pearson correlation between each point's local radius in
the data and in the map, by one definition for every map (log of the mean squared
distance to the point's 15 nearest data neighbours, in the data and in the map), and
10-NN accuracy.
'aligned': AlignedUMAP on umap-learn's sliding-window digits (ordered by ink, 10 windows
of 400 rows 150 apart, each related to the next), lowdim against umap-learn with both
defaults, seeded: consecutive-map Procrustes disparity on the shared rows (lower: the
maps agree), mean trustworthiness (k = 10) of the maps, time.
Run:  scripts/bench.sh embed [CASE ...] [--repeats 3]
"""

import os
import statistics
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_manifold import fashion_pca50  # noqa: E402
from bench_pca import row, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)
THREADS = 2


def _quality(X, y, Y):
    from lowdim.metrics import knn_accuracy, trustworthiness

    return (
        trustworthiness(X, Y, n_neighbors=10, max_queries=5000, random_state=0),
        knn_accuracy(Y, y, n_neighbors=10, test_size=0.2, random_state=0),
    )


def _alternate(ours, theirs, X, y, repeats, quality=None):
    """Medians of alternating timed runs and of each run's two quality figures
    (``quality(Y)``; default (trustworthiness, accuracy) on ``X``, ``y``)."""
    quality = quality or (lambda Y: _quality(X, y, Y))
    t_ours, t_theirs, q_ours, q_theirs = [], [], [], []
    for seed in range(repeats):
        t, Y = timed(lambda seed=seed: ours(seed))
        t_ours.append(t)
        q_ours.append(quality(Y))
        t, Y = timed(lambda seed=seed: theirs(seed))
        t_theirs.append(t)
        q_theirs.append(quality(Y))
    med = [tuple(statistics.median(q[i] for q in qs) for i in range(2)) for qs in (q_ours, q_theirs)]
    return t_ours, t_theirs, med


def _quality_row(label, t_ours, t_theirs, med, reference, target):
    (to, ao), (tr, ar) = med
    text = f"median trustworthiness(10) lowdim {to:.4f} vs {reference} {tr:.4f}; kNN accuracy(10) {ao:.4f} vs {ar:.4f}"
    ok = to >= tr - 0.005 and ao >= ar - 0.005
    return row(label, statistics.median(t_ours), statistics.median(t_theirs), text, target, ok, (t_ours, t_theirs))


def case_tsne(repeats):
    import openTSNE

    from lowdim import TSNE

    X, y = fashion_pca50(70000)

    def ours(seed):
        return TSNE(max_iter=750, random_state=seed, n_jobs=THREADS).fit_transform(X)

    def theirs(seed):
        return np.asarray(openTSNE.TSNE(n_jobs=THREADS, random_state=seed).fit(X))

    TSNE(max_iter=60, random_state=0).fit(X[:3000])  # compile / load the kernels
    openTSNE.TSNE(n_jobs=THREADS, n_iter=10, random_state=0).fit(X[:3000])
    t_ours, t_theirs, med = _alternate(ours, theirs, X, y, repeats)
    return [_quality_row("t-SNE n=70000 (PCA-50), 750 iterations", t_ours, t_theirs, med, "openTSNE", 1.0)]


def case_umap(repeats):
    import umap

    from lowdim import UMAP
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()  # 70,000 x 784 float32

    def ours(seed):
        return UMAP(random_state=seed, n_jobs=THREADS).fit_transform(X)

    def theirs(seed):  # umap-learn runs single-threaded when seeded, so it gets none
        return umap.UMAP(n_jobs=THREADS).fit_transform(X)

    # warm-up on 25,000 points: umap-learn switches to NN-descent (pynndescent, compiled
    # on first use) from 4,096 points, lowdim to HNSW and its large-input kernels from
    # 20,000; on 3,000 points the first timed umap-learn run paid ~40 s of compilation
    UMAP(random_state=0, n_epochs=20).fit(X[:25000])
    umap.UMAP(n_jobs=THREADS, n_epochs=20).fit(X[:25000])
    t_ours, t_theirs, med = _alternate(ours, theirs, X, y, repeats)
    return [_quality_row("UMAP n=70000 (784-D)", t_ours, t_theirs, med, "umap-learn", 0.7)]


def _pacmap_quality(X, y, Y):
    from lowdim.metrics import knn_accuracy, random_triplet_accuracy

    return (
        knn_accuracy(Y, y, n_neighbors=10, test_size=0.2, random_state=0),
        random_triplet_accuracy(X, Y, random_state=0),
    )


def case_pacmap(repeats):
    import pacmap

    from lowdim import PaCMAP
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    raw, y = load_fashion_mnist()
    rows = []
    for label, X in (("raw 784-D", raw), ("PCA-50", fashion_pca50(70000)[0])):
        PaCMAP(random_state=0, num_iters=(5, 5, 5)).fit(X[:25000])  # compile / load the kernels
        pacmap.PaCMAP(random_state=0, num_iters=(5, 5, 5)).fit_transform(X[:25000])
        t_ours, t_theirs, q_ours, q_theirs = [], [], [], []
        for seed in range(repeats):
            t, Y = timed(lambda seed=seed, X=X: PaCMAP(random_state=seed).fit_transform(X))
            t_ours.append(t)
            q_ours.append(_pacmap_quality(X, y, Y))
            t, Y = timed(lambda seed=seed, X=X: pacmap.PaCMAP(random_state=seed).fit_transform(X))
            t_theirs.append(t)
            q_theirs.append(_pacmap_quality(X, y, Y))
        (ao, go), (ar, gr) = [tuple(statistics.median(q[i] for q in qs) for i in range(2)) for qs in (q_ours, q_theirs)]
        text = f"median 10-NN accuracy lowdim {ao:.4f} vs pacmap {ar:.4f}; random-triplet accuracy {go:.4f} vs {gr:.4f}"
        ok = ao >= ar - 0.005 and go >= gr - 0.005
        med = statistics.median(t_ours), statistics.median(t_theirs)
        rows.append(row(f"PaCMAP n=70000 ({label})", *med, text, 0.7, ok, (t_ours, t_theirs)))
    return rows


def _placed_accuracy(Y_train, y_train, Y_test, y_test):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(10).fit(Y_train, y_train).score(Y_test, y_test)


def case_pacmap_transform(repeats):
    import pacmap

    from lowdim import PaCMAP
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    X, y = load_fashion_mnist()
    train, test = slice(0, 60000), slice(60000, None)
    PaCMAP(random_state=0, num_iters=(5, 5, 5)).fit(X[:3000]).transform(X[3000:3100])  # compile / load
    pacmap.PaCMAP(random_state=0, num_iters=(5, 5, 5), save_tree=True).fit(X[:3000])
    t_ours, t_theirs, a_ours, a_theirs = [], [], [], []
    for seed in range(repeats):
        model = PaCMAP(random_state=seed).fit(X[train])
        t, Z = timed(lambda model=model: model.transform(X[test]))
        t_ours.append(t)
        a_ours.append(_placed_accuracy(model.embedding_, y[train], Z, y[test]))
        theirs = pacmap.PaCMAP(random_state=seed, save_tree=True)
        Y = theirs.fit_transform(X[train])
        t, Z = timed(lambda theirs=theirs: theirs.transform(X[test], basis=X[train]))
        t_theirs.append(t)
        a_theirs.append(_placed_accuracy(Y, y[train], Z, y[test]))
    ao, ar = statistics.median(a_ours), statistics.median(a_theirs)
    text = f"median 10-NN accuracy of the placed test images lowdim {ao:.4f} vs pacmap {ar:.4f}"
    med = statistics.median(t_ours), statistics.median(t_theirs)
    placed = row("PaCMAP.transform 10,000 test images", *med, text, float("inf"), ao >= ar - 0.005, (t_ours, t_theirs))
    return [{**placed, "target": "accuracy within 0.005 of pacmap's"}]


def case_trimap(repeats):
    """TriMap against the trimap package (1.1: numba, annoy), all 70,000 Fashion-MNIST
    PCA-50 rows with the defaults; each library's own random draws (trimap has no seed:
    numpy's global seed is set), alternating runs. Quality as PaCMAP's: median 10-NN
    accuracy and random-triplet accuracy."""
    import trimap

    from lowdim import TriMap
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    _, y = load_fashion_mnist()
    X = fashion_pca50(70000)[0]
    TriMap(random_state=0, n_iters=5).fit(X[:5000])  # compile / load the kernels
    trimap.TRIMAP(n_iters=5).fit_transform(X[:5000])
    t_ours, t_theirs, q_ours, q_theirs = [], [], [], []
    for seed in range(repeats):
        t, Y = timed(lambda seed=seed: TriMap(random_state=seed).fit_transform(X))
        t_ours.append(t)
        q_ours.append(_pacmap_quality(X, y, Y))
        np.random.seed(seed)
        t, Y = timed(lambda: trimap.TRIMAP().fit_transform(X))
        t_theirs.append(t)
        q_theirs.append(_pacmap_quality(X, y, Y))
    (ao, go), (ar, gr) = [tuple(statistics.median(q[i] for q in qs) for i in range(2)) for qs in (q_ours, q_theirs)]
    text = f"median 10-NN accuracy lowdim {ao:.4f} vs trimap {ar:.4f}; random-triplet accuracy {go:.4f} vs {gr:.4f}"
    ok = ao >= ar - 0.005 and go >= gr - 0.005
    med = statistics.median(t_ours), statistics.median(t_theirs)
    return [row("TriMap n=70000 (PCA-50)", *med, text, 0.7, ok, (t_ours, t_theirs))]


def _radius_correlation(X, Y, neighbors):
    """Pearson correlation of log mean squared distances to the data's 15 nearest
    neighbours, in the data and in the map."""
    d, idx = neighbors
    data = np.log((d.astype(np.float64) ** 2).mean(axis=1))
    mapped = np.log(((Y[:, None, :].astype(np.float64) - Y[idx]) ** 2).sum(-1).mean(axis=1))
    return float(np.corrcoef(data, mapped)[0, 1])


def case_densmap(repeats):
    import umap

    from lowdim import UMAP
    from lowdim.metrics import knn_accuracy
    from lowdim.neighbors import nearest_neighbors

    X, y = fashion_pca50(70000)
    neighbors = nearest_neighbors(X, 15, algorithm="exact")
    fits = {
        "lowdim densMAP": lambda seed: UMAP(densmap=True, random_state=seed, n_jobs=THREADS).fit_transform(X),
        "umap-learn densMAP": lambda seed: umap.UMAP(densmap=True, n_jobs=THREADS).fit_transform(X),
        "lowdim UMAP": lambda seed: UMAP(random_state=seed, n_jobs=THREADS).fit_transform(X),
    }
    UMAP(densmap=True, random_state=0, n_epochs=20).fit(X[:25000])  # compile / load the kernels
    umap.UMAP(densmap=True, n_jobs=THREADS, n_epochs=20).fit(X[:25000])
    times = {name: [] for name in fits}
    quality = {name: [] for name in fits}
    for seed in range(repeats):
        for name, fit in fits.items():
            t, Y = timed(lambda fit=fit, seed=seed: fit(seed))
            times[name].append(t)
            quality[name].append(
                (_radius_correlation(X, Y, neighbors), knn_accuracy(Y, y, n_neighbors=10, random_state=0))
            )
    med = {name: tuple(statistics.median(q[i] for q in qs) for i in range(2)) for name, qs in quality.items()}
    text = "; ".join(f"{name}: radius correlation {c:.3f}, 10-NN accuracy {a:.4f}" for name, (c, a) in med.items())
    ok = med["lowdim densMAP"][0] >= med["umap-learn densMAP"][0]
    ours, theirs, plain = (times[name] for name in fits)
    return [
        row(
            "densMAP n=70000 (PCA-50) vs umap-learn densMAP",
            statistics.median(ours),
            statistics.median(theirs),
            text,
            1.0,
            ok,
            (ours, theirs),
        ),
        row(
            "densMAP n=70000 (PCA-50) vs lowdim's plain UMAP",
            statistics.median(ours),
            statistics.median(plain),
            "time only",
            1.3,
            True,
            (ours, plain),
        ),
    ]


_FIRST_CALL = """
import time
t = time.perf_counter()
import numpy as np
from sklearn.datasets import load_digits
X = load_digits().data
{call}
print(time.perf_counter() - t)
"""

_CALLS = {
    "t-SNE": (
        "from lowdim import TSNE; TSNE(random_state=0, method='fft', max_iter=300).fit(X)",
        "import openTSNE; openTSNE.TSNE(random_state=0, n_iter=50, negative_gradient_method='fft').fit(X)",
    ),
    "UMAP": (
        "from lowdim import UMAP; UMAP(random_state=0, n_epochs=50).fit(X)",
        "import umap; umap.UMAP(n_epochs=50).fit(X)",
    ),
}


def _first_call(call, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", _FIRST_CALL.format(call=call)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(out.strip().splitlines()[-1])


def case_first(repeats):
    """First call in a fresh process on the digits (imports included): with an empty
    numba cache, then with the cache that run wrote; the reference library's first
    call for comparison (openTSNE and umap-learn cache their own numba kernels in
    their install tree, so theirs is the warm figure)."""
    rows = []
    for name, (ours, theirs) in _CALLS.items():
        with tempfile.TemporaryDirectory() as cache:
            cold = _first_call(ours, cache)
            warm = statistics.median(_first_call(ours, cache) for _ in range(repeats))
        ref = statistics.median(_first_call(theirs, tempfile.gettempdir()) for _ in range(repeats))
        rows.append(
            {
                "case": f"{name} first call (digits, fresh process)",
                "lowdim_s": round(cold, 3),
                "reference_s": round(ref, 3),
                "ratio": None,
                "target": "< 20 s",
                "met": cold < 20,
                "accuracy": f"empty numba cache {cold:.1f} s (compiles); cached {warm:.1f} s",
                "runs_lowdim": [round(cold, 3), round(warm, 3)],
                "runs_reference": [round(ref, 3)],
            }
        )
    return rows


def _sliding_digits():
    """umap-learn's AlignedUMAP example: digits ordered by ink, 10 windows of 400 rows 150 apart."""
    from sklearn.datasets import load_digits

    X = load_digits().data
    X = X[np.argsort(X.sum(axis=1), kind="stable")]
    return [X[150 * i : 150 * i + 400] for i in range(10)], [{i + 150: i for i in range(250)} for _ in range(9)]


def _aligned_quality(slices, relations, maps):
    """(mean consecutive Procrustes disparity on the shared rows, mean trustworthiness(10))."""
    from scipy.spatial import procrustes

    from lowdim.metrics import trustworthiness

    disparity = [procrustes(maps[t][list(rel)], maps[t + 1][list(rel.values())])[2] for t, rel in enumerate(relations)]
    trust = [trustworthiness(X, Y, n_neighbors=10) for X, Y in zip(slices, maps)]
    return float(np.mean(disparity)), float(np.mean(trust))


def case_aligned(repeats):
    import umap

    from lowdim import AlignedUMAP

    slices, relations = _sliding_digits()

    def ours(seed):
        return AlignedUMAP(random_state=seed).fit_transform(slices, relations=relations)

    def theirs(seed):
        return umap.AlignedUMAP(random_state=seed).fit_transform(slices, relations=relations)

    ours(0), theirs(0)  # compile both
    quality = lambda maps: _aligned_quality(slices, relations, maps)  # noqa: E731
    t_ours, t_theirs, ((do, to), (dr, tr)) = _alternate(ours, theirs, None, None, repeats, quality)
    text = (
        f"median consecutive Procrustes disparity lowdim {do:.4f} vs umap-learn {dr:.4f}; "
        f"mean trustworthiness(10) {to:.4f} vs {tr:.4f}"
    )
    ok = do <= dr and to >= tr - 0.005
    med = statistics.median
    return [
        row(
            "AlignedUMAP sliding-window digits (10 x 400)",
            med(t_ours),
            med(t_theirs),
            text,
            1.0,
            ok,
            (t_ours, t_theirs),
        )
    ]


CASES = {
    "tsne": case_tsne,
    "umap": case_umap,
    "pacmap": case_pacmap,
    "pacmap-transform": case_pacmap_transform,
    "trimap": case_trimap,
    "densmap": case_densmap,
    "aligned": case_aligned,
    "first": case_first,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
