"""Linear latent-variable models, truncated SVD and random projections against
scikit-learn, in the same run.

Cases: FactorAnalysis, FastICA, KernelPCA (exact and Nystroem), NMF, MiniBatchNMF, TruncatedSVD (a
sparse term-count-like matrix) and StandardScaler(with_mean=False) on it (``scaler``), the
Gaussian and sparse random projections, sparse coding, dictionary learning and sparse PCA
(``sparse-coding``, ``dictionary``). Same protocol as bench_pca.py: alternating runs after a
warm-up, 0.3 s pause before each, medians.
Run:  scripts/bench.sh linear
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_pca import compare, row, run_cli  # noqa: E402


def case_factor_analysis(repeats):
    from sklearn.decomposition import FactorAnalysis as SkFA

    from lowdim import FactorAnalysis

    X = _data.fashion_mnist(np.float64)[:20000]
    r = compare(lambda: FactorAnalysis(20).fit(X), lambda: SkFA(20, random_state=0).fit(X), repeats)
    ours, ref = r[2], r[3]
    ll_ours, ll_ref = ours.score(X), ref.score(X)
    acc = (
        f"average log-likelihood lowdim {ll_ours:.4f} ({ours.n_iter_} SQUAREM cycles) vs sklearn "
        f"{ll_ref:.4f} ({ref.n_iter_} iterations)"
    )
    return [
        row(
            "FactorAnalysis, Fashion-MNIST 20000 images, 20 factors",
            r[0],
            r[1],
            acc,
            0.7,
            ll_ours >= ll_ref - 1e-9,
            r[4:],
        )
    ]


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
    """Both libraries from the same start: scikit-learn's ``w_init`` (seeded normal) in
    its whitened coordinates, expressed in lowdim's (the two whitenings differ by the
    signs of the principal axes), so that both run the same fixed-point iteration from
    the same unmixing; as with KMeans' shared centres. Then each from its own seeds 0-4
    (different starts, different local optima), medians of the negentropy."""
    import warnings

    from sklearn.decomposition import FastICA as SkFastICA

    from lowdim import FastICA

    X = _data.fashion_mnist(np.float64)[:20000]
    w0 = np.random.RandomState(0).normal(size=(20, 20))
    with warnings.catch_warnings():  # one iteration is enough to read the whitening
        warnings.simplefilter("ignore")
        axes_ref = SkFastICA(20, whiten="unit-variance", w_init=w0, max_iter=1).fit(X).whitening_
        axes_ours = FastICA(20, w_init=w0, max_iter=1).fit(X).whitening_
    alignment = axes_ref @ axes_ours.T
    signs = np.sign(np.diag(alignment))
    assert np.allclose(np.abs(alignment) / np.abs(np.diag(alignment))[:, None], np.eye(20), atol=1e-6)
    r = compare(
        lambda: FastICA(20, w_init=w0 * signs[None, :]).fit(X),
        lambda: SkFastICA(20, whiten="unit-variance", w_init=w0).fit(X),
        repeats,
    )
    ours, ref = r[2], r[3]
    j_ours, j_ref = negentropy(ours.transform(X)), negentropy(ref.transform(X))
    agreement = amari_distance(ours.components_ @ ref.mixing_)
    own = [
        (
            negentropy(FastICA(20, random_state=s).fit(X).transform(X)),
            negentropy(SkFastICA(20, whiten="unit-variance", random_state=s).fit(X).transform(X)),
        )
        for s in range(5)
    ]
    acc = (
        f"same start: negentropy (logcosh) of the sources lowdim {j_ours:.7f} ({ours.n_iter_} iterations) vs "
        f"sklearn {j_ref:.7f} ({ref.n_iter_} iterations), Amari distance between the two unmixings "
        f"{agreement:.1e}; own seeds 0-4: lowdim {', '.join(f'{a:.5f}' for a, _ in own)} (median "
        f"{np.median([a for a, _ in own]):.5f}) vs sklearn {', '.join(f'{b:.5f}' for _, b in own)} (median "
        f"{np.median([b for _, b in own]):.5f})"
    )
    return [
        row(
            "FastICA, Fashion-MNIST 20000 images, 20 components, same start",
            r[0],
            r[1],
            acc,
            0.7,
            j_ours >= j_ref * (1 - 1e-6),
            r[4:],
        )
    ]


def case_kernel_pca(repeats):
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    from lowdim import KernelPCA

    X = _data.fashion_mnist(np.float64)[:10000]
    r = compare(
        lambda: KernelPCA(50, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X),
        lambda: SkKernelPCA(50, kernel="rbf", eigen_solver="randomized", random_state=0).fit(X),
        repeats,
    )
    ours, ref = r[2], r[3]
    exact = np.sort(ref.eigenvalues_)[::-1]
    err = float(np.max(np.abs(np.sort(ours.eigenvalues_)[::-1] - exact) / exact))
    sums = f"sum {ours.eigenvalues_.sum():.2f} vs {exact.sum():.2f}"
    acc = f"eigenvalues lowdim vs sklearn: max relative difference {err:.1e}; {sums}"
    rows = [
        row(
            "KernelPCA rbf, Fashion-MNIST 10000 images, 50 components, randomized",
            r[0],
            r[1],
            acc,
            1.0,
            ours.eigenvalues_.sum() >= exact.sum() * (1 - 1e-6),
            r[4:],
        )
    ]
    rows.append(_nystroem_all())
    return rows


_NYSTROEM = """
import sys, time, numpy as np
sys.path.insert(0, {bench!r})
import _data
from lowdim import KernelPCA
X = _data.fashion_mnist(np.float64)
start = time.perf_counter()
KernelPCA(50, kernel="rbf", n_landmarks=2000, random_state=0).fit(X)
elapsed = time.perf_counter() - start
peak = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0] / 1024
print(elapsed, peak)
"""


def _nystroem_all():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _NYSTROEM.format(bench=os.path.dirname(__file__))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    elapsed, peak = float(out[-2]), float(out[-1])
    return {
        "case": "KernelPCA rbf Nystroem (2000 landmarks), all 70000 images, 50 components",
        "lowdim_s": round(elapsed, 3),
        "reference_s": float("nan"),
        "ratio": float("nan"),
        "target": "< 60 s, < 8 GB",
        "accuracy": f"peak RSS of the process {peak:.0f} MB (data included)",
        "met": elapsed < 60 and peak < 8192,
        "runs_lowdim": [elapsed],
        "runs_reference": [],
    }


def case_nmf(repeats):
    """Both from scikit-learn's nndsvda start (``init='custom'``), as KMeans and FastICA
    share their starts: the same coordinate descent then gives the same factors. Each
    library's own nndsvda start (lowdim's from an exact SVD, scikit-learn's from a
    randomized one) leads to a different local optimum; reported too."""
    import warnings

    from sklearn.decomposition import NMF as SkNMF
    from sklearn.decomposition._nmf import _initialize_nmf

    from lowdim import NMF

    X = _data.fashion_mnist(np.float64)[:20000]
    warnings.filterwarnings("ignore", message=".*(did not converge|Maximum number of iterations).*")
    W0, H0 = _initialize_nmf(X, 20, init="nndsvda", random_state=0)

    def ours():
        model = NMF(20, max_iter=200, tol=0)
        model.fit_transform(X, W=W0.copy(), H=H0.copy())
        return model

    def theirs():
        model = SkNMF(20, max_iter=200, tol=0, init="custom")
        model.fit_transform(X, W=W0.copy(), H=H0.copy())
        return model

    r = compare(ours, theirs, repeats)
    same_ours, same_ref = r[2], r[3]
    own_ours = NMF(20, max_iter=200, tol=0, random_state=0).fit(X).reconstruction_err_
    own_ref = SkNMF(20, max_iter=200, tol=0, random_state=0).fit(X).reconstruction_err_
    acc = (
        f"final error from scikit-learn's start: lowdim {same_ours.reconstruction_err_:.6f} vs sklearn "
        f"{same_ref.reconstruction_err_:.6f}; each from its own nndsvda start: lowdim {own_ours:.4f} vs "
        f"sklearn {own_ref:.4f}"
    )
    return [
        row(
            "NMF (cd), Fashion-MNIST 20000 images, 20 components, 200 iterations, same start",
            r[0],
            r[1],
            acc,
            1.0,
            same_ours.reconstruction_err_ <= same_ref.reconstruction_err_ * (1 + 1e-9),
            r[4:],
        )
    ]


def case_minibatch_nmf(repeats):
    """MiniBatchNMF from each library's own start (both nndsvda from a randomized SVD)
    with the default stopping rules: topics from sparse term counts (Kullback-Leibler,
    the topic-modelling loss, float32 as both keep it) and parts of all 70,000
    Fashion-MNIST images in float64 (Frobenius). Quality: the objective of the fitted
    model on the whole training data, as each library reports it."""
    import warnings

    from sklearn.decomposition import MiniBatchNMF as SkMiniBatchNMF

    from lowdim import MiniBatchNMF

    warnings.filterwarnings("ignore", message=".*(zero variance|Maximum number of iterations).*")
    rows = []
    for label, X, beta in (
        ("sparse term counts", _term_counts(n=500_000, d=50_000), "kullback-leibler"),
        ("Fashion-MNIST float64", _data.fashion_mnist(np.float64), "frobenius"),
    ):
        params = dict(n_components=20, beta_loss=beta, random_state=0)
        r = compare(
            lambda X=X, p=params: MiniBatchNMF(**p).fit(X), lambda X=X, p=params: SkMiniBatchNMF(**p).fit(X), repeats
        )
        ours, theirs = r[2], r[3]
        err = [m.reconstruction_err_ for m in (ours, theirs)]
        acc = (
            f"error {err[0]:.6g} vs {err[1]:.6g} ({100 * (err[0] / err[1] - 1):+.2f} %); "
            f"mini-batches {ours.n_steps_} vs {theirs.n_steps_}"
        )
        shape = f"{X.shape[0]} x {X.shape[1]}" + (f", {X.nnz} non-zeros" if hasattr(X, "nnz") else "")
        case = f"MiniBatchNMF {beta}, {label} ({shape}), 20 components, defaults"
        rows.append(row(case, r[0], r[1], acc, 0.7, err[0] <= err[1] * 1.005, r[4:]))
    return rows


def _face_patches(n_faces=40):
    """8 x 8 patches every 4 pixels of the first ORL faces, each centred, all scaled to
    unit variance (the input of scikit-learn's image-denoising example)."""
    import lowdim
    from lowdim.images import patch_grid

    faces, _ = lowdim.load_orl_faces()
    P = np.vstack([patch_grid(face, 8, 4)[0] for face in faces[:n_faces]]).astype(np.float64)
    P -= P.mean(axis=1, keepdims=True)
    return P / P.std()


def _lasso_objective(X, D, alpha):
    """0.5 ||X - c D||^2 + alpha |c|_1 with the exact lasso codes of X against D."""
    from lowdim.decomposition import sparse_encode

    codes = sparse_encode(X, D, algorithm="lasso_lars", alpha=alpha)
    return 0.5 * float(np.sum((X - codes @ D) ** 2)) + alpha * float(np.abs(codes).sum())


def case_sparse_coding(repeats):
    """SparseCoder (OMP and the lasso by LARS) of all 70,000 Fashion-MNIST images
    against 100 random unit atoms: the codes of both libraries, compared."""
    from sklearn.decomposition import SparseCoder as SkSparseCoder

    from lowdim import SparseCoder

    X = _data.fashion_mnist(np.float64)
    D = np.random.default_rng(0).normal(size=(100, X.shape[1]))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    rows = []
    for algorithm, extra in (("omp", {"transform_n_nonzero_coefs": 10}), ("lasso_lars", {"transform_alpha": 1.0})):
        params = dict(transform_algorithm=algorithm, **extra)
        r = compare(
            lambda p=params: SparseCoder(D, **p).transform(X),
            lambda p=params: SkSparseCoder(D, **p).transform(X),
            repeats,
        )
        gap = float(np.abs(r[2] - r[3]).max())
        acc, accurate = f"codes differ by at most {gap:.1e}", gap < 1e-6
        if algorithm == "lasso_lars":  # the lasso's optimality conditions say which codes are right
            violations = [_lasso_violation(X, codes, D, 1.0) for codes in r[2:4]]
            acc += f"; largest violation of the lasso's optimality conditions {violations[0]:.1e} vs "
            acc += f"{violations[1]:.1e}"
            accurate = violations[0] <= max(violations[1], 1e-9)
        case = f"SparseCoder {algorithm} ({', '.join(f'{k}={v}' for k, v in extra.items())}), 70,000 images, 100 atoms"
        rows.append(row(case, r[0], r[1], acc, 0.7, accurate, r[4:]))
    return rows


def _lasso_violation(X, codes, D, alpha):
    """How far codes are from the lasso's minimiser: the correlation of each row's
    residual with an atom is alpha * sign(c) where c != 0 and at most alpha where c = 0."""
    corr = (X - codes @ D) @ D.T
    active = codes != 0
    on = np.abs(corr[active] - alpha * np.sign(codes[active])).max(initial=0.0)
    off = (np.abs(corr[~active]) - alpha).max(initial=0.0)
    return float(max(on, off, 0.0))


def case_dictionary_learning(repeats):
    """DictionaryLearning (batch, both from the SVD) and MiniBatchDictionaryLearning
    (scikit-learn's denoising-example settings) on 8 x 8 face patches; SparsePCA and
    MiniBatchSparsePCA on the ORL faces (scikit-learn's faces-decomposition settings).
    Quality: the objective 0.5 ||X - code D||^2 + alpha |code|_1 (the dictionaries with
    exact lasso codes), the fits' own error for SparsePCA."""
    import warnings

    from sklearn import decomposition as skd

    import lowdim

    warnings.filterwarnings("ignore", message=".*(zero variance|did not converge).*")
    P = _face_patches()
    faces = lowdim.load_orl_faces()[0]
    F = faces.reshape(len(faces), -1).astype(np.float64)
    rows = []
    for name, data, params, label in (
        ("DictionaryLearning", P[:2000], dict(n_components=64, alpha=1.0, max_iter=20, tol=0.0), "2,000 patches"),
        (
            "MiniBatchDictionaryLearning",
            P,
            dict(n_components=100, alpha=1.0, batch_size=200, max_iter=10),
            "23,760 patches",
        ),
    ):
        r = compare(
            lambda n=name, X=data, p=params: getattr(lowdim, n)(random_state=0, **p).fit(X),
            lambda n=name, X=data, p=params: getattr(skd, n)(random_state=0, **p).fit(X),
            repeats,
        )
        obj = [_lasso_objective(data, np.asarray(m.components_, dtype=np.float64), 1.0) for m in r[2:4]]
        acc = f"objective {obj[0]:.6g} vs {obj[1]:.6g} ({100 * (obj[0] / obj[1] - 1):+.2f} %)"
        case = f"{name}, {label} 8 x 8 patches of ORL faces, {params['n_components']} atoms, alpha=1"
        rows.append(row(case, r[0], r[1], acc, 0.7, obj[0] <= obj[1] * 1.005, r[4:]))
    for name, X, params in (
        ("SparsePCA", F[:, ::2], dict(n_components=10, alpha=1.0, max_iter=30, tol=0.0)),
        ("MiniBatchSparsePCA", F, dict(n_components=20, alpha=0.1, max_iter=100, batch_size=3)),
    ):
        r = compare(
            lambda n=name, X=X, p=params: getattr(lowdim, n)(random_state=0, **p).fit(X),
            lambda n=name, X=X, p=params: getattr(skd, n)(random_state=0, **p).fit(X),
            repeats,
        )
        errs = [float(np.linalg.norm(X - m.inverse_transform(m.transform(X)))) for m in r[2:4]]
        zeros = [float(np.mean(m.components_ == 0)) for m in r[2:4]]
        acc = (
            f"reconstruction error {errs[0]:.6g} vs {errs[1]:.6g} ({100 * (errs[0] / errs[1] - 1):+.2f} %); "
            f"zero loadings {zeros[0]:.1%} vs {zeros[1]:.1%}"
        )
        shape = f"{X.shape[0]} x {X.shape[1]}"
        case = f"{name}, ORL faces {shape}, {params['n_components']} components, alpha={params['alpha']}"
        rows.append(row(case, r[0], r[1], acc, 0.7, errs[0] <= errs[1] * 1.005, r[4:]))
    return rows


def _term_counts(n=1_000_000, d=100_000, per_row=40):
    """Sparse rows with Zipf-distributed columns (a few frequent terms, a long tail)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    nnz = n * per_row
    columns = rng.zipf(1.3, nnz) % d
    X = sp.csr_matrix((rng.random(nnz, dtype=np.float32) + 0.5, (np.repeat(np.arange(n), per_row), columns)), (n, d))
    X.sum_duplicates()
    return X


def case_truncated_svd(repeats):
    import warnings

    from sklearn.decomposition import TruncatedSVD as SkTruncatedSVD

    from lowdim import TruncatedSVD

    X = _term_counts()
    warnings.filterwarnings("ignore", message=".*zero variance.*")  # terms no row uses
    r = compare(
        lambda: TruncatedSVD(100, random_state=0).fit(X), lambda: SkTruncatedSVD(100, random_state=0).fit(X), repeats
    )
    captured = [float((m.singular_values_.astype(np.float64) ** 2).sum()) for m in r[2:4]]
    acc = f"captured sum of squares {captured[0]:.6g} vs {captured[1]:.6g} (ratio {captured[0] / captured[1]:.6f})"
    case = f"TruncatedSVD randomized, sparse {X.shape[0]} x {X.shape[1]} ({X.nnz} non-zeros), k=100, n_iter=5"
    return [row(case, r[0], r[1], acc, 0.7, captured[0] >= captured[1] * (1 - 0.005), r[4:])]


def case_scaler(repeats):
    """StandardScaler(with_mean=False) fit and transform of the term counts (TF-IDF and
    counts are scaled so before TruncatedSVD)."""
    from sklearn.preprocessing import StandardScaler as SkStandardScaler

    from lowdim import StandardScaler

    X = _term_counts()
    r = compare(
        lambda: StandardScaler(with_mean=False).fit(X).transform(X),
        lambda: SkStandardScaler(with_mean=False).fit(X).transform(X),
        repeats,
    )
    ours, theirs = r[2].tocsr(), r[3].tocsr()
    worst = float(np.max(np.abs(ours.data.astype(np.float64) / theirs.data - 1)))  # the same stored entries
    acc = f"largest relative difference of the scaled entries {worst:.1e} ({X.dtype})"
    case = f"StandardScaler(with_mean=False) fit + transform, sparse {X.shape[0]} x {X.shape[1]} ({X.nnz} non-zeros)"
    return [row(case, r[0], r[1], acc, 1.0, worst <= 2 * np.finfo(X.dtype).eps, r[4:])]


def _distortion(model, X, rows=300):
    """Largest |projected / original distance - 1| over the pairs of the first rows."""
    from scipy.spatial.distance import pdist

    ratio = pdist(model.transform(X[:rows]).astype(np.float64)) / pdist(X[:rows].astype(np.float64))
    return float(np.abs(ratio - 1).max())


def case_random_projection(repeats):
    from sklearn import random_projection as skrp

    import lowdim

    X = np.random.default_rng(1).standard_normal((100_000, 10_000), dtype=np.float32)
    rows = []
    for name in ("GaussianRandomProjection", "SparseRandomProjection"):
        ours, theirs = getattr(lowdim, name), getattr(skrp, name)
        r = compare(
            lambda ours=ours: ours(1000, random_state=0).fit_transform(X),
            lambda theirs=theirs: theirs(1000, random_state=0).fit_transform(X),
            repeats,
        )
        model_ours, model_ref = ours(1000, random_state=0).fit(X), theirs(1000, random_state=0).fit(X)
        worst = [_distortion(m, X) for m in (model_ours, model_ref)]
        acc = f"largest distance distortion over 300 rows' pairs {worst[0]:.4f} vs {worst[1]:.4f}"
        case = f"{name} fit_transform, dense 100000 x 10000 float32 -> 1000"
        rows.append(row(case, r[0], r[1], acc, 0.7, worst[0] <= worst[1] * 1.1 + 0.01, r[4:]))
    return rows


CASES = {
    "fa": case_factor_analysis,
    "ica": case_fastica,
    "kpca": case_kernel_pca,
    "nmf": case_nmf,
    "minibatch-nmf": case_minibatch_nmf,
    "sparse-coding": case_sparse_coding,
    "dictionary": case_dictionary_learning,
    "tsvd": case_truncated_svd,
    "scaler": case_scaler,
    "rp": case_random_projection,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
