"""Clustering after an embedding: HDBSCAN against scikit-learn's and the hdbscan
package's, and graph clusterings of Fashion-MNIST next to k-means and HDBSCAN.

Cases:
  hdbscan-70k   the 2-D UMAP map of Fashion-MNIST (70,000 points; lowdim's UMAP, seed 0,
                computed once and kept in LOWDIM_SCALE_DATA), min_cluster_size=50:
                lowdim vs scikit-learn vs hdbscan (boruvka_kdtree, 2 threads), the ratio
                against the faster reference; ARI against scikit-learn's labels. The
                package gets min_samples - 1 (it counts neighbours without the point
                itself) and approx_min_span_tree=False (exact, as the others)
  hdbscan-1m    1,000,000 2-D points (60 Gaussian clusters of varied spread and 10 %
                uniform noise, generated), min_cluster_size=100, min_samples=10:
                lowdim vs hdbscan; scikit-learn's HDBSCAN runs Prim's algorithm over all
                pairs on such data (n^2 work: about 200x its 70,000-point time) and is
                not run; ARI against the hdbscan package's labels (the same exact tree;
                merges at equal heights may be ordered differently)
  hdbscan-wide  the first 20,000 Fashion-MNIST PCA-50 rows and 20,000 points of 10
                Gaussian blobs in 100 columns, min_cluster_size=50: lowdim vs
                scikit-learn, labels compared
  graph-70k     Fashion-MNIST PCA-50 (70,000 x 50): KMeans k=10, HDBSCAN on the UMAP map,
                Leiden and Louvain (UMAP's fuzzy graph, 15 neighbours; the time includes
                building it), SpectralClustering k=10 (fuzzy graph): time and ARI / NMI
                against the 10 classes
  soft          soft clustering of the training points (all_points_membership_vectors) of
                the first 200,000 points of hdbscan-1m's generator (60 clusters),
                min_cluster_size=100, min_samples=10: lowdim vs the hdbscan package on
                the same clusters (each fitted once, untimed); agreement: the labels
                and the differences of the rows given membership
  dbcv          DBCV of HDBSCAN's labels on 30,000 2-D points (8 Gaussian clusters) and
                1,500 uniform noise points: metrics.dbcv_score vs the hdbscan package's
                validity_index
Same protocol as bench_pca.py: alternating runs after a warm-up, medians.
Run:  scripts/bench.sh density [CASE ...] [--repeats 3]
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
import _scale_data  # noqa: E402
from bench_cluster import fashion_pca50  # noqa: E402
from bench_pca import compare, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)
THREADS = 2


def fashion_map():
    """The 2-D UMAP map of the 70,000 Fashion-MNIST images, computed once."""
    from lowdim import UMAP

    path = os.path.join(_scale_data.DATA, "fashion_umap2d.npy")
    if not os.path.exists(path):
        os.makedirs(_scale_data.DATA, exist_ok=True)
        np.save(path, UMAP(random_state=0).fit_transform(fashion_pca50()).astype(np.float64))
    return np.load(path)


def synthetic_million(n=1_000_000, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-100, 100, (60, 2))
    spread = rng.uniform(0.5, 4.0, 60)
    clustered = int(0.9 * n)
    owner = rng.integers(60, size=clustered)
    X = centres[owner] + rng.normal(size=(clustered, 2)) * spread[owner, None]
    return np.vstack([X, rng.uniform(-110, 110, (n - clustered, 2))])


def _ari(a, b):
    from lowdim.metrics import adjusted_rand_score

    return adjusted_rand_score(a, b)


def _row(case, ours, refs, accuracy, target, met):
    """``refs``: {name: median seconds}; the ratio is against the fastest."""
    best = min(refs, key=refs.get) if refs else None
    return {
        "case": case,
        "lowdim_s": round(ours[0], 3),
        "reference_s": None if best is None else round(refs[best], 3),
        "ratio": None if best is None else round(ours[0] / refs[best], 3),
        "target": target,
        "accuracy": accuracy + ("" if best is None else f"; fastest reference: {best}"),
        "met": bool(met),
        "runs_lowdim": [round(t, 3) for t in ours[1]],
        "runs_reference": {k: round(v, 3) for k, v in refs.items()},
    }


def _hdbscan_case(X, label, repeats, params, with_sklearn):
    import hdbscan
    from sklearn.cluster import HDBSCAN as SkHDBSCAN

    from lowdim import HDBSCAN

    ms = params.get("min_samples", params["min_cluster_size"])
    # the package's exact tree (its default approximates it): the same tree as lowdim's
    ref_params = {**params, "min_samples": ms - 1, "core_dist_n_jobs": THREADS, "approx_min_span_tree": False}

    def ours():
        return HDBSCAN(**params).fit(X)

    def package():
        return hdbscan.HDBSCAN(algorithm="boruvka_kdtree", **ref_params).fit(X)

    r = compare(ours, package, repeats)
    refs, accuracy = {"hdbscan": r[1]}, []
    model = r[2]
    k, noise = model.labels_.max() + 1, float(np.mean(model.labels_ < 0))
    accuracy.append(f"{k} clusters, {noise:.1%} noise; ARI vs hdbscan {_ari(model.labels_, r[3].labels_):.4f}")
    ari_sklearn = None
    if with_sklearn:
        t_sk, sk = [], None
        for _ in range(max(1, repeats)):  # minutes per run: not alternated, median of the runs
            t, sk = timed(lambda: SkHDBSCAN(copy=True, **params).fit(X))
            t_sk.append(t)
        refs["scikit-learn"] = sorted(t_sk)[len(t_sk) // 2]
        ari_sklearn = _ari(model.labels_, sk.labels_)
        accuracy.append(f"ARI vs scikit-learn {ari_sklearn:.4f}")
    ratio = r[0] / min(refs.values())
    met = ratio <= 0.5 and (ari_sklearn is None or ari_sklearn >= 0.99)
    return _row(label, (r[0], r[4]), refs, "; ".join(accuracy), "<= 0.5x the faster", met)


def case_hdbscan_70k(repeats):
    X = fashion_map()
    params = {"min_cluster_size": 50}
    return [_hdbscan_case(X, "HDBSCAN, Fashion-MNIST UMAP map (70,000 x 2)", repeats, params, True)]


def case_hdbscan_1m(repeats):
    X = synthetic_million()
    params = {"min_cluster_size": 100, "min_samples": 10}
    return [_hdbscan_case(X, "HDBSCAN, 1,000,000 2-D points (60 clusters + noise)", repeats, params, False)]


def case_hdbscan_wide(repeats):
    """HDBSCAN above 16 columns against scikit-learn's (Prim's over a full
    mutual-reachability matrix): Fashion-MNIST PCA-50 rows (intrinsic dimension about 10:
    the k-d tree's rounds) and blobs that fill 100 columns (Prim's steps, screened)."""
    from sklearn.cluster import HDBSCAN as SkHDBSCAN
    from sklearn.datasets import make_blobs

    from lowdim import HDBSCAN

    rows, params = [], {"min_cluster_size": 50}
    blobs = make_blobs(20_000, 100, centers=10, cluster_std=2.0, random_state=0)[0]
    images = fashion_pca50().astype(np.float64)[:20_000]
    for name, X in (("first 20,000 of PCA-50", images), ("20,000 x 100 blobs", blobs)):
        r = compare(lambda X=X: HDBSCAN(**params).fit(X), lambda X=X: SkHDBSCAN(copy=True, **params).fit(X), repeats)
        same = np.array_equal(r[2].labels_, r[3].labels_)
        k, noise = r[2].labels_.max() + 1, float(np.mean(r[2].labels_ < 0))
        accuracy = f"{k} clusters, {noise:.1%} noise; labels {'identical' if same else 'DIFFER'}"
        rows.append(_row(f"HDBSCAN, {name}", (r[0], r[4]), {"scikit-learn": r[1]}, accuracy, "<= 0.5x", same))
    return rows


def case_graph_70k(repeats):
    from lowdim import HDBSCAN, KMeans, Leiden, Louvain, SpectralClustering
    from lowdim.metrics import normalized_mutual_info_score

    X, y = fashion_pca50(), _data.fashion_mnist_labels()
    Y = fashion_map()
    fits = {
        "KMeans k=10 (PCA-50)": lambda: KMeans(10, random_state=0).fit(X).labels_,
        "HDBSCAN mcs=1000, min_samples=50 (UMAP map)": lambda: (
            HDBSCAN(min_cluster_size=1000, min_samples=50).fit(Y).labels_
        ),
        "Leiden res=1 (fuzzy graph, PCA-50)": lambda: Leiden(random_state=0).fit(X).labels_,
        "Leiden res=0.3 (fuzzy graph, PCA-50)": lambda: Leiden(resolution=0.3, random_state=0).fit(X).labels_,
        "Louvain res=0.3 (fuzzy graph, PCA-50)": lambda: Louvain(resolution=0.3, random_state=0).fit(X).labels_,
        "SpectralClustering k=10 (fuzzy graph, PCA-50)": lambda: (
            SpectralClustering(10, affinity="fuzzy", n_neighbors=15, random_state=0).fit(X).labels_
        ),
    }
    rows = []
    for name, fit in fits.items():
        times, labels = [], None
        for _ in range(max(1, repeats)):
            t, labels = timed(fit)
            times.append(t)
        k, noise = labels.max() + 1, float(np.mean(labels < 0))
        rows.append(
            {
                "case": name,
                "lowdim_s": round(sorted(times)[len(times) // 2], 3),
                "reference_s": None,
                "ratio": None,
                "target": "ARI reported",
                "accuracy": f"{k} clusters, {noise:.1%} noise; ARI {_ari(y, labels):.3f}, "
                f"NMI {normalized_mutual_info_score(y, labels):.3f}",
                "met": True,
                "runs_lowdim": [round(t, 3) for t in times],
                "runs_reference": [],
            }
        )
    return rows


def case_soft(repeats):
    import hdbscan

    from lowdim import HDBSCAN
    from lowdim.cluster import all_points_membership_vectors

    X = synthetic_million(200_000)
    ours = HDBSCAN(min_cluster_size=100, min_samples=10).fit(X)
    ref = hdbscan.HDBSCAN(
        min_cluster_size=100, min_samples=9, prediction_data=True, approx_min_span_tree=False, core_dist_n_jobs=THREADS
    ).fit(X)
    r = compare(
        lambda: all_points_membership_vectors(ours), lambda: hdbscan.all_points_membership_vectors(ref), repeats
    )
    k = ours.labels_.max() + 1
    mapping = [int(np.bincount(ref.labels_[ours.labels_ == c] + 1).argmax()) - 1 for c in range(k)]
    agree = float(np.mean(np.where(ours.labels_ >= 0, np.take(mapping, ours.labels_), -1) == ref.labels_))
    same = sorted(mapping) == list(range(ref.labels_.max() + 1))  # one-to-one: the columns can be matched
    worst = median = float("nan")
    if same:
        soft = np.empty_like(r[3])
        soft[:, mapping] = r[2]
        conditional = [m / m.sum(axis=1, keepdims=True) for m in (soft, r[3])]
        gap = np.abs(conditional[0] - conditional[1]).max(axis=1)
        worst, median = float(gap.max()), float(np.median(gap))
    accuracy = (
        f"{k} clusters each; labels agree on {agree:.2%} of the points; rows given membership differ by "
        f"{median:.1e} (median), {worst:.1e} (largest)"
    )
    case = "HDBSCAN all_points_membership_vectors, 200,000 x 2 (60 Gaussian clusters, 10 % noise)"
    # merges at equal heights (common in mutual reachability) are ordered differently by the
    # two libraries, so a few points fall out of their trees at other heights; that moves the
    # clusters' exemplars and heights a little and so every row's vector, by far less than 1e-4
    met = same and agree >= 0.999 and median < 1e-4 and r[0] <= 0.7 * r[1]
    return [_row(case, (r[0], r[4]), {"hdbscan": r[1]}, accuracy, "<= 0.7x", met)]


def case_dbcv(repeats):
    from hdbscan.validity import validity_index
    from sklearn.datasets import make_blobs

    from lowdim import HDBSCAN
    from lowdim.metrics import dbcv_score

    X, _ = make_blobs(30_000, centers=8, n_features=2, center_box=(-20, 20), random_state=0)
    X = np.vstack([X, np.random.default_rng(0).uniform(-25, 25, (1_500, 2))])
    labels = HDBSCAN(min_cluster_size=50).fit(X).labels_
    r = compare(lambda: dbcv_score(X, labels), lambda: validity_index(X, labels), repeats)
    accuracy = f"DBCV {r[2]:.12f} vs {r[3]:.12f} ({labels.max() + 1} clusters)"
    case = "DBCV of HDBSCAN's labels, 31,500 x 2"
    met = abs(r[2] - r[3]) < 1e-9 and r[0] <= 0.7 * r[1]
    return [_row(case, (r[0], r[4]), {"hdbscan": r[1]}, accuracy, "<= 0.7x", met)]


CASES = {
    "hdbscan-70k": case_hdbscan_70k,
    "hdbscan-1m": case_hdbscan_1m,
    "hdbscan-wide": case_hdbscan_wide,
    "graph-70k": case_graph_70k,
    "soft": case_soft,
    "dbcv": case_dbcv,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
