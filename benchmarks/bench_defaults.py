"""Every estimator as a user runs it: each library with its own defaults, on the same
data, in one process, side by side with a quality figure from the same runs.

The other benchmarks start both libraries from a shared point (fair to the algorithms);
this one is what a user meets. Data: Fashion-MNIST images (float32, as the Debian
package gives them) or their 50 principal components ("PCA-50"), first n rows.
scikit-learn's reference unless named (UMAP: umap-learn). Runs alternate after a
warm-up, 0.3 s pause, medians. A row is met when lowdim takes at most the reference's
time (ratio <= 1.0) and its quality is no worse (within 0.5 % where the figure is a
sum or an objective, 0.005 where it is a score in [0, 1]).
Run:  scripts/bench.sh defaults [CASE ...] [--repeats 3]
"""

import os
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_manifold import fashion_pca50  # noqa: E402
from bench_pca import row, run_cli, timed  # noqa: E402

warnings.filterwarnings("ignore")


def _images(n):
    return _data.fashion_mnist(np.float32)[:n]


def _labelled_pca50(n):
    return fashion_pca50(n)


def _trust_knn(X, y):
    """(trustworthiness(10), 10-NN accuracy) of an embedding of ``X``: higher is better."""
    from lowdim.metrics import knn_accuracy, trustworthiness

    def score(Y):
        return trustworthiness(X, Y, n_neighbors=10, max_queries=5000, random_state=0), knn_accuracy(
            Y, y, n_neighbors=10, random_state=0
        )

    return score


def _compare(name, ours, theirs, quality, repeats, *, higher_is_better=True, score=True, note="", seeds=0):
    """Alternate ``ours()`` and ``theirs()``; quality(model) -> float or tuple of floats.

    With ``seeds``, ``ours`` and ``theirs`` take a seed and each seed 0 .. seeds-1 runs
    once in place of the repeats: time and quality are medians over seeds, for methods
    where one seed's draw decides more than the method does."""
    runs = [(lambda s=seed: ours(s), lambda s=seed: theirs(s)) for seed in range(seeds)] or [(ours, theirs)] * repeats
    runs[0][0](), runs[0][1]()  # warm-up (compilation, caches)
    t_ours, t_theirs, q_ours, q_theirs = [], [], [], []
    for run_ours, run_theirs in runs:
        t, model = timed(run_ours)
        t_ours.append(t)
        q_ours.append(np.atleast_1d(quality(model)))
        t, model = timed(run_theirs)
        t_theirs.append(t)
        q_theirs.append(np.atleast_1d(quality(model)))
    if seeds:
        note = f"medians over seeds 0-{seeds - 1}{'; ' + note if note else ''}"
    qo, qt = np.median(q_ours, axis=0), np.median(q_theirs, axis=0)
    slack = 0.005 if score else 0.005 * np.abs(qt)
    ok = np.all(qo >= qt - slack) if higher_is_better else np.all(qo <= qt + slack)
    figures = "; ".join(f"{a:.6g} vs {b:.6g}" for a, b in zip(qo, qt))
    text = f"{figures}{'; ' + note if note else ''}"
    med = statistics.median
    return row(name, med(t_ours), med(t_theirs), text, 1.0, bool(ok), (t_ours, t_theirs))


def case_decomposition(repeats):
    from sklearn import decomposition as sk

    import lowdim

    X70, X20, X10 = _images(70000), _images(20000), _images(10000)
    explained = lambda m: float(np.sum(m.explained_variance_ratio_))  # noqa: E731
    return [
        _compare(
            "PCA(50), 70000 images", lambda: lowdim.PCA(50).fit(X70), lambda: sk.PCA(50).fit(X70), explained, repeats
        ),
        _compare(
            "IncrementalPCA(50), 20000 images",
            lambda: lowdim.IncrementalPCA(50).fit(X20),
            lambda: sk.IncrementalPCA(50).fit(X20),
            explained,
            repeats,
        ),
        _compare(
            "FactorAnalysis(20), 10000 images (mean log-likelihood)",
            lambda: lowdim.FactorAnalysis(20).fit(X10),
            lambda: sk.FactorAnalysis(20).fit(X10),
            lambda m: float(m.score(X10)),
            repeats,
            score=False,
        ),
        _compare(
            "FastICA(20), 10000 images (logcosh negentropy of the sources, summed)",
            lambda: lowdim.FastICA(20, random_state=0).fit(X10),
            lambda: sk.FastICA(20, random_state=0).fit(X10),
            lambda m: _negentropy(m.transform(X10)),
            repeats,
            score=False,
        ),
    ]


GAUSSIAN_LOGCOSH = 0.3745672075  # E[log cosh(v)] for a standard normal v


def _negentropy(S):
    """Sum over the sources of (E[log cosh s] - E[log cosh v])^2, each source
    standardised: the contrast both libraries' default FastICA maximises."""
    S = (S - S.mean(axis=0)) / S.std(axis=0)
    return float(np.sum((np.log(np.cosh(S)).mean(axis=0) - GAUSSIAN_LOGCOSH) ** 2))


def case_kernel_pca(repeats):
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    from lowdim import KernelPCA

    X = _images(10000)
    top = lambda m: float(np.sum(m.eigenvalues_))  # noqa: E731  (the variance the 50 components capture)
    ours = lambda: KernelPCA(50, kernel="rbf", random_state=0).fit(X)  # noqa: E731
    return [
        _compare(
            "KernelPCA(50, rbf), 10000 images, vs scikit-learn's default (dense eigh) (sum of eigenvalues)",
            ours,
            lambda: SkKernelPCA(50, kernel="rbf", random_state=0).fit(X),
            top,
            repeats,
            score=False,
        ),
        _compare(
            "KernelPCA(50, rbf), 10000 images, vs scikit-learn eigen_solver='randomized' (sum of eigenvalues)",
            ours,
            lambda: SkKernelPCA(50, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X),
            top,
            repeats,
            score=False,
        ),
    ]


def case_nmf(repeats):
    from sklearn.decomposition import NMF as SkNMF

    from lowdim import NMF

    X = _images(20000)
    return [
        _compare(
            "NMF(20, max_iter=200), 20000 images (reconstruction error)",
            lambda: NMF(20, max_iter=200, random_state=0).fit(X),
            lambda: SkNMF(20, max_iter=200, random_state=0).fit(X),
            lambda m: float(m.reconstruction_err_),
            repeats,
            higher_is_better=False,
            score=False,
        )
    ]


def case_supervised_and_clusters(repeats):
    from sklearn import cluster as skc
    from sklearn import discriminant_analysis as skd
    from sklearn import mixture as skm

    import lowdim
    from lowdim.metrics import adjusted_rand_score

    X, y = _data.fashion_mnist(np.float32), _data.fashion_mnist_labels()
    P70, y70 = _labelled_pca50(70000)
    P20 = P70[:20000]
    P10, y10 = _labelled_pca50(10000)
    held_out = lambda m: float(m.score(X[60000:], y[60000:]))  # noqa: E731
    inertia = lambda m: float(m.inertia_)  # noqa: E731
    return [
        _compare(
            "LinearDiscriminantAnalysis(), 60000 images (held-out accuracy on 10000)",
            lambda: lowdim.LinearDiscriminantAnalysis().fit(X[:60000], y[:60000]),
            lambda: skd.LinearDiscriminantAnalysis().fit(X[:60000], y[:60000]),
            held_out,
            repeats,
        ),
        _compare(
            "KMeans(10), PCA-50 70000 (inertia)",
            lambda seed: lowdim.KMeans(10, random_state=seed).fit(P70),
            lambda seed: skc.KMeans(10, random_state=seed).fit(P70),
            inertia,
            repeats,
            higher_is_better=False,
            score=False,
            seeds=11,
        ),
        _compare(
            "MiniBatchKMeans(10), PCA-50 70000 (inertia)",
            lambda seed: lowdim.MiniBatchKMeans(10, random_state=seed).fit(P70),
            lambda seed: skc.MiniBatchKMeans(10, random_state=seed).fit(P70),
            inertia,
            repeats,
            higher_is_better=False,
            score=False,
            seeds=11,
        ),
        _compare(
            "GaussianMixture(10), PCA-50 20000 (mean log-likelihood)",
            lambda: lowdim.GaussianMixture(10, random_state=0).fit(P20),
            lambda: skm.GaussianMixture(10, random_state=0).fit(P20),
            lambda m: float(m.score(P20)),
            repeats,
            score=False,
        ),
        _compare(
            "HDBSCAN(), PCA-50 10000 (ARI with the classes)",
            lambda: lowdim.HDBSCAN().fit(P10),
            lambda: skc.HDBSCAN().fit(P10),
            lambda m: float(adjusted_rand_score(y10, m.labels_)),
            repeats,
        ),
    ]


def case_manifold(repeats):
    from sklearn import manifold as skm

    import lowdim

    P5, y5 = _labelled_pca50(5000)
    P2, y2 = _labelled_pca50(2000)
    P10, y10 = _labelled_pca50(10000)
    seeded = {"Isomap": {}, "LocallyLinearEmbedding": {"random_state": 0}, "SpectralEmbedding": {"random_state": 0}}
    rows = [
        _compare(
            f"{name}(), PCA-50 5000 (trustworthiness, 10-NN accuracy)",
            lambda name=name: getattr(lowdim, name)(**seeded[name]).fit(P5),
            lambda name=name: getattr(skm, name)(**seeded[name]).fit(P5),
            lambda m: _trust_knn(P5, y5)(m.embedding_),
            repeats,
        )
        for name in seeded
    ]
    rows.append(_mds(P2, y2, repeats))
    rows.append(
        _compare(
            "TSNE(), PCA-50 10000 (trustworthiness, 10-NN accuracy)",
            lambda: lowdim.TSNE(random_state=0).fit(P10),
            lambda: skm.TSNE(random_state=0).fit(P10),
            lambda m: _trust_knn(P10, y10)(m.embedding_),
            repeats,
        )
    )
    return rows


def _mds(X, y, repeats):
    """SMACOF with one start: the stress each reaches (lower is better) and its
    iterations, beside trustworthiness and kNN accuracy."""
    from sklearn.manifold import MDS as SkMDS

    from lowdim import MDS
    from lowdim.metrics import stress

    score = _trust_knn(X, y)
    ours = lambda: MDS(n_init=1, random_state=0).fit(X)  # noqa: E731
    theirs = lambda: SkMDS(n_init=1, random_state=0).fit(X)  # noqa: E731
    a, b = ours(), theirs()
    note = (
        f"normalised stress {stress(X, a.embedding_):.4f} vs {stress(X, b.embedding_):.4f}; "
        f"iterations {a.n_iter_} vs {b.n_iter_}"
    )
    label = "MDS(n_init=1), PCA-50 2000 (trustworthiness, 10-NN accuracy)"
    return _compare(label, ours, theirs, lambda m: score(m.embedding_), repeats, note=note)


def case_umap(repeats):
    import umap

    import lowdim

    P, y = _labelled_pca50(20000)
    return [
        _compare(
            "UMAP(), PCA-50 20000, vs umap-learn (trustworthiness, 10-NN accuracy)",
            lambda: lowdim.UMAP(random_state=0).fit(P),
            lambda: umap.UMAP().fit(P),  # seeded, umap-learn runs on one thread
            lambda m: _trust_knn(P, y)(m.embedding_),
            repeats,
        )
    ]


CASES = {
    "decomposition": case_decomposition,
    "kernel_pca": case_kernel_pca,
    "nmf": case_nmf,
    "clusters": case_supervised_and_clusters,
    "manifold": case_manifold,
    "umap": case_umap,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
