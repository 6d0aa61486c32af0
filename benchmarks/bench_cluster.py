"""Clustering benchmarks against scikit-learn, in the same run.

Fashion-MNIST projected to 50 PCA dimensions (float32): KMeans k = 10 and k = 100, KMeans
k = 10 on the raw 70,000 x 784 images, GaussianMixture full and diag with k = 10, all with
the same initial centres / responsibilities for both libraries; BayesianGaussianMixture
with 20 components at most from each library's own k-means start (``bayesian-gmm``); KMedoids 'pam' k = 10 on
10,000 points (time and objective only); DBSCAN on a million points (``dbscan``) and with an
eps that reaches every row (``dbscan-reach``: time and peak memory of fresh processes); OPTICS
on 40,000 10-D points, 20,000 PCA-50 rows and, with a finite max_eps, 200,000 3-D points
(``optics``; scikit-learn takes about 10 minutes a run on the last), and with a finite
max_eps above 16 columns on 20,000 PCA-50 rows and 30-D blobs (``optics-wide``);
AgglomerativeClustering: Ward's on PCA-50 rows without and with a 10-NN connectivity
graph, single linkage on 100,000 3-D points (``agglomerative``) and on 30,000 PCA-50 rows
(``agglomerative-wide``); BisectingKMeans k = 100, best of 10 starts per
split, on the raw 70,000 x 784 images, inertia as the median of 3 seeds each (``bisecting``);
SpectralClustering's dense rbf affinity on 10,000 PCA-50 rows (``spectral``). Same
protocol as bench_pca.py: alternating runs after a warm-up, 0.3 s pause before each, medians.
Run:  scripts/bench.sh cluster [CASE ...] [--repeats 3]
"""

import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_pca import compare, row, run_cli  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)


def fashion_pca50():
    from lowdim import PCA

    X = _data.fashion_mnist(np.float32)
    return PCA(50, random_state=0).fit_transform(X)


def _kmeans_case(X, k, label, repeats, target=0.8):
    from sklearn.cluster import KMeans as SkKMeans

    from lowdim import KMeans

    init = X[np.random.default_rng(0).choice(X.shape[0], k, replace=False)]
    r = compare(lambda: KMeans(k, init=init, n_init=1).fit(X), lambda: SkKMeans(k, init=init, n_init=1).fit(X), repeats)
    ours, ref = r[2], r[3]
    gap = ours.inertia_ / ref.inertia_ - 1
    acc = (
        f"inertia lowdim {ours.inertia_:.6g} ({ours.algorithm_}, {ours.n_iter_} it) vs sklearn "
        f"{ref.inertia_:.6g} ({ref.n_iter_} it): {gap:+.2e}"
    )
    return row(label, r[0], r[1], acc, target, gap <= 1e-3, r[4:])


def case_kmeans(repeats):
    X = fashion_pca50()
    return [
        _kmeans_case(X, 10, "KMeans k=10, Fashion-MNIST PCA-50 float32", repeats),
        _kmeans_case(X, 100, "KMeans k=100, Fashion-MNIST PCA-50 float32", repeats),
    ]


def case_kmeans_raw(repeats):
    X = _data.fashion_mnist(np.float32)
    return [_kmeans_case(X, 10, "KMeans k=10, Fashion-MNIST raw 70000 x 784 float32", repeats)]


def _gmm_start(X, k, covariance_type):
    """Starting parameters both libraries get: the moments of k-means clusters."""
    from lowdim import KMeans

    labels = KMeans(k, init=X[np.random.default_rng(0).choice(X.shape[0], k, replace=False)]).fit(X).labels_
    X64 = X.astype(np.float64)
    weights = np.bincount(labels, minlength=k) / X.shape[0]
    means = np.stack([X64[labels == c].mean(axis=0) for c in range(k)])
    covs = [np.cov(X64[labels == c].T, bias=True) + 1e-6 * np.eye(X.shape[1]) for c in range(k)]
    if covariance_type == "full":
        precisions = np.stack([np.linalg.inv(c) for c in covs])
    else:
        precisions = np.stack([1.0 / np.diag(c) for c in covs])
    return dict(weights_init=weights, means_init=means, precisions_init=precisions)


def _gmm_case(X, covariance_type, target, repeats):
    from sklearn.mixture import GaussianMixture as SkGMM

    from lowdim import GaussianMixture

    start = _gmm_start(X, 10, covariance_type)
    r = compare(
        lambda: GaussianMixture(10, covariance_type=covariance_type, **start).fit(X),
        lambda: SkGMM(10, covariance_type=covariance_type, **start).fit(X),
        repeats,
    )
    ours, ref = r[2], r[3]
    ll_ours, ll_ref = ours.score(X), ref.score(X)
    acc = (
        f"log-likelihood per sample lowdim {ll_ours:.5f} ({ours.n_iter_} it) vs sklearn {ll_ref:.5f} ({ref.n_iter_} it)"
    )
    return row(
        f"GaussianMixture {covariance_type} k=10, Fashion-MNIST PCA-50 float32",
        r[0],
        r[1],
        acc,
        target,
        ll_ours >= ll_ref - 1e-6 * abs(ll_ref),
        r[4:],
    )


def case_gmm(repeats):
    X = fashion_pca50()
    return [_gmm_case(X, "full", 0.5, repeats), _gmm_case(X, "diag", 1.0, repeats)]


def case_bayesian_gmm(repeats):
    """BayesianGaussianMixture (Dirichlet process, full covariances, 20 components at
    most) from each library's own k-means start with the same seed. Quality: the
    lower bound each reports (the same formula: checked to rounding in the tests) and
    the agreement of the two labelings."""
    from sklearn.metrics import adjusted_rand_score
    from sklearn.mixture import BayesianGaussianMixture as SkBGMM

    from lowdim import BayesianGaussianMixture

    X = fashion_pca50()
    params = dict(n_components=20, weight_concentration_prior=1e-2, max_iter=100, random_state=0)
    r = compare(lambda: BayesianGaussianMixture(**params).fit(X), lambda: SkBGMM(**params).fit(X), repeats)
    ours, ref = r[2], r[3]
    lb_ours, lb_ref = float(ours.lower_bound_), float(np.ravel(ref.lower_bound_)[0])
    used = [int(np.sum(m.weights_ > 0.01)) for m in (ours, ref)]
    acc = (
        f"lower bound lowdim {lb_ours:.6g} ({ours.n_iter_} it) vs sklearn {lb_ref:.6g} ({ref.n_iter_} it); "
        f"components above 1 %: {used[0]} vs {used[1]}; ARI between the labelings "
        f"{adjusted_rand_score(ours.predict(X), ref.predict(X)):.3f}"
    )
    case = "BayesianGaussianMixture full, Dirichlet process, at most 20 components, Fashion-MNIST PCA-50 float32"
    return [row(case, r[0], r[1], acc, 0.7, lb_ours >= lb_ref - 0.005 * abs(lb_ref), r[4:])]


def case_kmedoids(repeats):
    from lowdim import KMedoids

    X = fashion_pca50()[:10000]
    times, model = [], None
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        model = KMedoids(10, method="pam").fit(X)
        times.append(time.perf_counter() - start)
    t = sorted(times)[len(times) // 2]
    acc = (
        f"total distance {model.inertia_:.6g} after {model.n_iter_} swaps "
        f"(alternate from the same BUILD: {KMedoids(10, method='alternate').fit(X).inertia_:.6g})"
    )
    return [
        {
            "case": "KMedoids pam k=10, 10,000 Fashion-MNIST PCA-50 points",
            "lowdim_s": round(t, 3),
            "reference_s": None,
            "ratio": None,
            "target": "< 60 s",
            "accuracy": acc,
            "met": t < 60,
            "runs_lowdim": [round(x, 3) for x in times],
            "runs_reference": [],
        }
    ]


def _dbscan_case(name, X, params, repeats):
    from sklearn.cluster import DBSCAN as SkDBSCAN

    from lowdim import DBSCAN

    t_ours, t_ref, ours, theirs, *runs = compare(
        lambda: DBSCAN(**params).fit(X).labels_, lambda: SkDBSCAN(**params).fit(X).labels_, repeats
    )
    same = bool(np.array_equal(ours, theirs))
    clusters, noise = int(ours.max()) + 1, float(np.mean(ours < 0))
    acc = f"labels {'identical' if same else 'DIFFER'} ({clusters} clusters, {noise:.1%} noise)"
    return row(name, t_ours, t_ref, acc, 0.7, same, runs)


def case_dbscan(repeats):
    """DBSCAN against scikit-learn's at sizes where it takes 10 s or more: 1,000,000
    points of 30 Gaussian clusters in 2-D and 3-D with 5 % uniform noise (k-d trees)."""
    from sklearn.datasets import make_blobs

    rows = []
    for d, eps in ((2, 0.1), (3, 0.25)):
        X, _ = make_blobs(1_000_000, centers=30, n_features=d, center_box=(-40, 40), random_state=0)
        noise = np.random.default_rng(0).uniform(-45, 45, (50_000, d))
        X = np.vstack([X, noise])
        name = f"DBSCAN eps={eps}, min_samples=10, 1,050,000 x {d} (30 blobs + 5 % noise)"
        rows.append(_dbscan_case(name, X, {"eps": eps, "min_samples": 10}, repeats))
    return rows


def case_dbscan_wide(repeats):
    """DBSCAN of rows with more than 16 columns (the pairs from tiles of products, no
    k-d tree) at sizes where scikit-learn takes about 10 s: 100,000 x 20 (20 Gaussian
    clusters and 5 % uniform noise) and the 70,000 Fashion-MNIST images as PCA-50 scores."""
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=6.0, size=(20, 20))
    X = centres[rng.integers(0, 20, 95_000)] + rng.normal(size=(95_000, 20))
    X = np.vstack([X, rng.uniform(X.min(), X.max(), (5_000, 20))])
    rows = [
        _dbscan_case(
            "DBSCAN eps=4.5, min_samples=10, 100,000 x 20 (20 clusters + 5 % noise)",
            X,
            {"eps": 4.5, "min_samples": 10},
            repeats,
        )
    ]
    scores = fashion_pca50().astype(np.float64)  # both libraries' distances in float64
    rows.append(
        _dbscan_case(
            "DBSCAN eps=2.8, min_samples=10, Fashion-MNIST PCA-50, 70,000 x 50",
            scores,
            {"eps": 2.8, "min_samples": 10},
            repeats,
        )
    )
    return rows


_REACH_SCRIPT = """
import resource, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
X = np.random.default_rng(0).normal(size=(20000, 3))
if sys.argv[1] == "lowdim":
    from lowdim.cluster import DBSCAN
    DBSCAN(eps=0.3, min_samples=5).fit(X[:500])  # compiled before the clock
else:
    from sklearn.cluster import DBSCAN
start = time.perf_counter()
labels = DBSCAN(eps=100.0, min_samples=5).fit(X).labels_
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, int(labels.max()) + 1)
"""


def case_dbscan_reach(repeats):
    """DBSCAN with an eps that puts every row within reach of every other (an eps in the
    wrong units): 20,000 x 3, eps=100, one fresh process per run (its peak resident
    memory, data and libraries included), alternating."""
    import statistics
    import subprocess

    runs = {"lowdim": [], "scikit-learn": []}
    for _ in range(repeats):
        for name in runs:
            argv = [sys.executable, "-c", _REACH_SCRIPT, name]
            seconds, peak_kb, clusters = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
            runs[name].append((float(seconds), int(peak_kb) / 2**20, int(clusters)))
    (t_ours, gb_ours), (t_ref, gb_ref) = (
        (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for v in runs.values()
    )
    same = runs["lowdim"][0][2] == runs["scikit-learn"][0][2] == 1
    accuracy = f"one cluster each; peak memory {gb_ours:.2f} vs {gb_ref:.2f} GiB"
    times = ([r[0] for r in runs["lowdim"]], [r[0] for r in runs["scikit-learn"]])
    return [row("DBSCAN eps=100 (every row in reach), 20,000 x 3", t_ours, t_ref, accuracy, 0.7, same, times)]


def _same_partition(a, b):
    return len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) == len(set(b.tolist()))


def _agglomerative_case(name, X, params, repeats):
    from sklearn.cluster import AgglomerativeClustering as SkAgglomerative

    from lowdim import AgglomerativeClustering

    t_ours, t_ref, ours, theirs, *runs = compare(
        lambda: AgglomerativeClustering(**params).fit(X), lambda: SkAgglomerative(**params).fit(X), repeats
    )
    same = np.array_equal(ours.labels_, theirs.labels_)
    partition = same or _same_partition(ours.labels_, theirs.labels_)
    heights = np.allclose(ours.distances_, theirs.distances_, rtol=1e-9)
    what = "labels identical" if same else "the same clusters, numbered otherwise" if partition else "labels DIFFER"
    acc = f"{what}; merge heights {'equal' if heights else 'DIFFER'} ({len(X) - 1} merges)"
    return row(name, t_ours, t_ref, acc, 0.7, partition and heights, runs)


def case_agglomerative(repeats):
    """Sizes where scikit-learn takes 10 s or more: Ward's without a graph (scipy's
    nearest-neighbour chain on the condensed distances), Ward's with a 10-NN graph on all
    70,000 images (scikit-learn's heap), single linkage (scikit-learn's Prim over all pairs)."""
    from sklearn.datasets import make_blobs
    from sklearn.neighbors import kneighbors_graph

    X = fashion_pca50().astype(np.float64)
    full = {"n_clusters": 10, "compute_distances": True}
    rows = [_agglomerative_case("AgglomerativeClustering ward, first 20,000 of PCA-50", X[:20000], full, repeats)]
    graph = kneighbors_graph(X, 10, include_self=False)
    params = {**full, "connectivity": graph}
    name = "AgglomerativeClustering ward, 10-NN graph, all 70,000 of PCA-50"
    rows.append(_agglomerative_case(name, X, params, repeats))
    points, _ = make_blobs(100_000, centers=30, n_features=3, center_box=(-40, 40), random_state=0)
    params = {**full, "linkage": "single"}
    rows.append(_agglomerative_case("AgglomerativeClustering single, 100,000 x 3 (30 blobs)", points, params, repeats))
    return rows


def case_agglomerative_wide(repeats):
    """Single linkage above 16 columns (no k-d tree: Prim's over all pairs on both sides)
    on the first 30,000 PCA-50 rows, where scikit-learn takes over 10 s."""
    X = fashion_pca50().astype(np.float64)[:30_000]
    params = {"n_clusters": 10, "compute_distances": True, "linkage": "single"}
    return [_agglomerative_case("AgglomerativeClustering single, first 30,000 of PCA-50", X, params, repeats)]


def case_bisecting(repeats):
    """Bisecting k-means into 100 clusters, the best of 10 starts per split (scikit-learn
    takes over 10 s): each library's own random starts (seed 0 timed), the inertia
    compared as the median over seeds 0-2 (a greedy tree: its result varies with the
    starts). scikit-learn's BisectingKMeans passes ``tol`` unscaled to each 2-means (an
    absolute bound; lowdim's, as both libraries' KMeans, is scaled by the mean column
    variance, at most 0.25 for pixels in [0, 1]): it runs again given the scaled value,
    the same criterion as lowdim's."""
    from sklearn.cluster import BisectingKMeans as SkBisecting
    from sklearn.cluster._kmeans import _tolerance

    from lowdim import BisectingKMeans

    X = _data.fashion_mnist(np.float32)
    ours = np.median([BisectingKMeans(100, n_init=10, random_state=s).fit(X).inertia_ for s in range(3)])
    rows = []
    for what, tol in (("", {}), (" (scikit-learn's tol scaled)", {"tol": _tolerance(X, 1e-4)})):
        r = compare(
            lambda: BisectingKMeans(100, n_init=10, random_state=0).fit(X),
            lambda tol=tol: SkBisecting(100, n_init=10, random_state=0, **tol).fit(X),
            repeats,
        )
        theirs = np.median([SkBisecting(100, n_init=10, random_state=s, **tol).fit(X).inertia_ for s in range(3)])
        acc = f"inertia, median of seeds 0-2: {ours:.6g} vs {theirs:.6g} ({ours / theirs - 1:+.2%})"
        case = f"BisectingKMeans k=100, n_init=10, raw 70,000 x 784{what}"
        rows.append(row(case, r[0], r[1], acc, 0.7, ours <= theirs * 1.005, r[4:]))
    return rows


def case_sparse(repeats):
    """KMeans (k-means++, one start) and BisectingKMeans into 20 clusters of sparse
    term-like rows (100,000 x 50,000, 2.7 M entries, Zipf columns, rows scaled to unit
    length as tf-idf's are): the rows stay sparse in both libraries. scikit-learn's
    BisectingKMeans hands its ``tol`` unscaled to each 2-means (an absolute bound on the
    squared centre shift), where its KMeans, and lowdim's both, scale it by the mean
    column variance (2e-5 here: 1e-4 absolute stops after a few steps); so it runs
    twice, with its default and with the scaled value (the same criterion as lowdim's)."""
    import scipy.sparse as sp
    from sklearn.cluster import BisectingKMeans as SkBisecting
    from sklearn.cluster import KMeans as SkKMeans
    from sklearn.cluster._kmeans import _tolerance

    from lowdim import BisectingKMeans, KMeans

    S = _data.sparse_counts()
    S = sp.csr_matrix(sp.diags(1 / np.sqrt(np.asarray(S.multiply(S).sum(axis=1)).ravel())) @ S)
    scaled = _tolerance(S, 1e-4)
    rows = []
    for name, ours, theirs in (
        ("KMeans", lambda: KMeans(20, n_init=1, random_state=0), lambda: SkKMeans(20, n_init=1, random_state=0)),
        ("BisectingKMeans", lambda: BisectingKMeans(20, random_state=0), lambda: SkBisecting(20, random_state=0)),
        (
            "BisectingKMeans (scikit-learn's tol scaled)",
            lambda: BisectingKMeans(20, random_state=0),
            lambda: SkBisecting(20, random_state=0, tol=scaled),
        ),
    ):
        r = compare(lambda ours=ours: ours().fit(S), lambda theirs=theirs: theirs().fit(S), repeats)
        gap = r[2].inertia_ / r[3].inertia_ - 1
        acc = f"inertia {r[2].inertia_:.6g} vs {r[3].inertia_:.6g} ({gap:+.2%})"
        case = f"{name} k=20, sparse term rows 100,000 x 50,000 (2.7 M entries), unit length"
        rows.append(row(case, r[0], r[1], acc, 1.0, gap <= 0.005, r[4:]))
    return rows


def case_spectral(repeats):
    """SpectralClustering into 10 clusters with its default dense rbf affinity on the first
    10,000 PCA-50 rows: gamma=1 (the default, a kernel narrow against these distances:
    the Laplacian's bottom eigenvalues lie within 1e-5 of each other) and gamma from the
    median squared distance (a kernel that joins the classes). Each library's own k-means
    on the spectral coordinates; ARI against the classes and between the libraries."""
    from sklearn.cluster import SpectralClustering as SkSpectral
    from sklearn.metrics import adjusted_rand_score as ari

    from lowdim import SpectralClustering
    from lowdim.linalg import sq_euclidean

    X, y = fashion_pca50()[:10_000].astype(np.float64), _data.fashion_mnist_labels()[:10_000]
    rows = []
    for gamma, what in ((1.0, "default gamma=1"), (1.0 / np.median(sq_euclidean(X[:2000], X[:2000])), "median gamma")):
        params = {"n_clusters": 10, "gamma": float(gamma), "random_state": 0}
        t_ours, t_ref, ours, theirs, *runs = compare(
            lambda p=params: SpectralClustering(**p).fit(X), lambda p=params: SkSpectral(**p).fit(X), repeats
        )
        acc = (
            f"ARI against the classes {ari(y, ours.labels_):.3f} vs {ari(y, theirs.labels_):.3f}; between the "
            f"libraries {ari(ours.labels_, theirs.labels_):.3f}; largest cluster {np.bincount(ours.labels_).max()} "
            f"vs {np.bincount(theirs.labels_).max()} rows"
        )
        name = f"SpectralClustering k=10, rbf {what}, first 10,000 of PCA-50"
        rows.append(row(name, t_ours, t_ref, acc, 1.0, True, runs))
    return rows


def _optics_case(name, X, params, repeats, exact_check=False):
    """Time OPTICS against scikit-learn's with its defaults. With ``exact_check``,
    scikit-learn is fitted once more (untimed) with its k-d tree, whose core distances
    are direct sums as lowdim's, and the labels compared with that fit too."""
    from sklearn.cluster import OPTICS as SkOPTICS

    from lowdim import OPTICS
    from lowdim.metrics import adjusted_rand_score

    t_ours, t_ref, ours, theirs, *runs = compare(
        lambda: OPTICS(**params).fit(X), lambda: SkOPTICS(**params).fit(X), repeats
    )
    same = np.array_equal(ours.labels_, theirs.labels_)
    order = float(np.mean(ours.ordering_ == theirs.ordering_))
    ari = adjusted_rand_score(ours.labels_, theirs.labels_)
    acc = (
        f"labels {'identical' if same else f'ARI {ari:.4f}'} ({ours.labels_.max() + 1} clusters, "
        f"{np.mean(ours.labels_ < 0):.1%} noise); ordering {order:.1%} the same"
    )
    if exact_check:
        tree = SkOPTICS(**params, algorithm="kd_tree").fit(X)
        same = np.array_equal(ours.labels_, tree.labels_) and np.array_equal(ours.ordering_, tree.ordering_)
        acc += f"; vs scikit-learn's k-d tree: ordering and labels {'identical' if same else 'DIFFER'}"
    return row(name, t_ours, t_ref, acc, 0.7, same, runs)


def case_optics(repeats):
    """OPTICS (xi) at sizes where scikit-learn takes 10 s or more: 40,000 points of 20
    Gaussian clusters in 10-D with 5 % noise (scikit-learn's core distances from its
    k-d tree: exact on both sides), and the first 20,000 Fashion-MNIST PCA-50 rows (above
    15 columns scikit-learn's default core distances come from the BLAS expansion, whose
    rounding moves near-ties of the ordering; its k-d tree gives exact ones)."""
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(38_000, centers=20, n_features=10, center_box=(-30, 30), random_state=0)
    X = np.vstack([X, np.random.default_rng(0).uniform(-35, 35, (2_000, 10))])
    rows = [_optics_case("OPTICS min_samples=10, 40,000 x 10 (20 blobs + 5 % noise)", X, {"min_samples": 10}, repeats)]
    X = fashion_pca50().astype(np.float64)[:20_000]
    name = "OPTICS min_samples=10, first 20,000 of Fashion-MNIST PCA-50"
    rows.append(_optics_case(name, X, {"min_samples": 10}, repeats, exact_check=True))
    # a finite max_eps: only the pairs within it count (scikit-learn's radius queries; here the k-d tree's pairs)
    X, _ = make_blobs(190_000, centers=30, n_features=3, center_box=(-40, 40), random_state=0)
    X = np.vstack([X, np.random.default_rng(0).uniform(-45, 45, (10_000, 3))])
    name = "OPTICS min_samples=10, max_eps=1, 200,000 x 3 (30 blobs + 5 % noise)"
    rows.append(_optics_case(name, X, {"min_samples": 10, "max_eps": 1.0}, repeats))
    return rows


def case_optics_wide(repeats):
    """OPTICS with a finite max_eps above 16 columns (no k-d tree; the pairs within it
    from tiles of products): the first 20,000 Fashion-MNIST PCA-50 rows at max_eps=3
    (three in four rows reach one), and 20,000 points of 10 Gaussian blobs in 30-D at
    max_eps=20 (a tenth of all pairs within it)."""
    from sklearn.datasets import make_blobs

    X = fashion_pca50().astype(np.float64)[:20_000]
    name = "OPTICS min_samples=10, max_eps=3, first 20,000 of Fashion-MNIST PCA-50"
    rows = [_optics_case(name, X, {"min_samples": 10, "max_eps": 3.0}, repeats, exact_check=True)]
    X, _ = make_blobs(20_000, 30, centers=10, cluster_std=2.0, random_state=0)
    name = "OPTICS min_samples=10, max_eps=20, 20,000 x 30 (10 blobs)"
    rows.append(_optics_case(name, X, {"min_samples": 10, "max_eps": 20.0}, repeats, exact_check=True))
    return rows


CASES = {
    "kmeans": case_kmeans,
    "kmeans-raw": case_kmeans_raw,
    "gmm": case_gmm,
    "bayesian-gmm": case_bayesian_gmm,
    "kmedoids": case_kmedoids,
    "dbscan": case_dbscan,
    "dbscan-reach": case_dbscan_reach,
    "dbscan-wide": case_dbscan_wide,
    "optics": case_optics,
    "optics-wide": case_optics_wide,
    "agglomerative": case_agglomerative,
    "agglomerative-wide": case_agglomerative_wide,
    "bisecting": case_bisecting,
    "sparse": case_sparse,
    "spectral": case_spectral,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
