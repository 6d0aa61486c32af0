"""Properties of the clustering estimators."""

import itertools
import re
import warnings

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn import cluster as skcluster
from sklearn import metrics as skmetrics
from sklearn import mixture as skmixture
from sklearn.datasets import load_digits, make_blobs

import lowdim
from lowdim import GaussianMixture, KMeans, KMedoids, MiniBatchKMeans, metrics, select_n_clusters
from lowdim.cluster._kmedoids import alternate, pam_swap


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(1500, centers=6, n_features=8, cluster_std=2.5, random_state=0)
    return X, y


def _init(X, k, seed=0):
    return X[np.random.default_rng(seed).choice(X.shape[0], k, replace=False)]


# ------------------------------------------------------------------ k-means
@pytest.mark.parametrize("k", [6, 2])  # 2: Hamerly's rows in doubt measured against both centres at once
# Lloyd by library products (a small fit, and sparse rows) and by the kernels (a large fit)
@pytest.mark.parametrize("small_lloyd", [None, -1])
def test_lloyd_elkan_hamerly_identical_and_match_sklearn(blobs, k, small_lloyd, monkeypatch):
    if small_lloyd is not None:
        monkeypatch.setattr("lowdim.cluster._products_lloyd.SMALL_LLOYD", small_lloyd)
    X, _ = blobs
    init = _init(X, k)
    runs = {alg: KMeans(k, init=init, algorithm=alg, tol=0).fit(X) for alg in ("auto", "lloyd", "elkan", "hamerly")}
    runs["sparse"] = KMeans(k, init=init, tol=0).fit(sp.csr_matrix(X))
    ref = skcluster.KMeans(k, init=init, n_init=1, tol=0).fit(X)
    for alg, km in runs.items():
        np.testing.assert_array_equal(km.labels_, ref.labels_, err_msg=alg)
        np.testing.assert_allclose(km.cluster_centers_, ref.cluster_centers_, rtol=1e-10, atol=1e-10)
        assert km.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)
        assert km.n_iter_ == ref.n_iter_, alg
    assert runs["auto"].algorithm_ == ("lloyd" if small_lloyd is None else "hamerly")


@pytest.mark.parametrize("algorithm", ["lloyd", "elkan", "hamerly", "sparse"])
@pytest.mark.parametrize("small_lloyd", [None, -1])
def test_fewer_distinct_points_than_clusters_converges_at_once(algorithm, small_lloyd, monkeypatch):
    """An empty cluster borrows a point, which the next assignment gives back to its
    twin centre: no change, as scikit-learn counts it. Lloyd counted the loan as a move
    and ran to max_iter with a ConvergenceWarning."""
    if small_lloyd is not None:
        monkeypatch.setattr("lowdim.cluster._products_lloyd.SMALL_LLOYD", small_lloyd)
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]]), [4, 3, 3], axis=0)
    data = sp.csr_matrix(X) if algorithm == "sparse" else X
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        km = KMeans(5, n_init=1, random_state=0, algorithm="lloyd" if algorithm == "sparse" else algorithm).fit(data)
    said = [str(w.message) for w in caught]
    assert not any("did not converge" in m for m in said) and km.n_iter_ <= 3, (km.n_iter_, said)
    assert any("Number of distinct clusters (3) found smaller than n_clusters (5)" in m for m in said)
    assert metrics.adjusted_rand_score(np.repeat([0, 1, 2], [4, 3, 3]), km.labels_) == 1.0 and km.inertia_ < 1e-20


def test_inertia_of_float32_data_is_measured_in_float64_on_both_paths(blobs, monkeypatch):
    """The iterations compare float32 distances from the product expansion; the reported
    inertia is each row's own float64 differences, whichever path iterated."""
    X = (blobs[0] + 1000.0).astype(np.float32)  # far from the origin: the expansion cancels
    exact = []
    for small_lloyd in (1 << 23, -1):
        monkeypatch.setattr("lowdim.cluster._products_lloyd.SMALL_LLOYD", small_lloyd)
        km = KMeans(6, random_state=0).fit(X)
        diff = X.astype(np.float64) - km.cluster_centers_.astype(np.float64)[km.labels_]
        assert km.inertia_ == pytest.approx(np.einsum("ij,ij->", diff, diff), rel=1e-6), small_lloyd
        exact.append(km.inertia_)
    assert exact[0] == pytest.approx(exact[1], rel=1e-9)


def test_assignment_kernel_compiled_once_per_data_dtype(blobs):
    """The first call compiles each kernel once: the start and the iterations pass the
    centres in X's dtype, so the assignment pass has one variant per data dtype."""
    from lowdim._kernels.kmeans import _hamerly_chunks

    X, _ = blobs
    for dtype in (np.float32, np.float64):
        KMeans(6, n_init=1, algorithm="hamerly", random_state=0).fit(X.astype(dtype))
    variants = [(sig[0].dtype, sig[2].dtype) for sig in _hamerly_chunks.signatures]
    assert variants and all(data == centres for data, centres in variants), variants


@pytest.mark.parametrize("algorithm", ["lloyd", "elkan", "hamerly"])
def test_inertia_never_increases(blobs, algorithm):
    X, _ = blobs
    history = []
    KMeans(
        6,
        init="random",
        n_init=1,
        algorithm=algorithm,
        random_state=1,
        tol=0,
        callbacks=[lambda it, obj, state: history.append(obj)],
    ).fit(X)
    assert len(history) > 2
    assert np.all(np.diff(history) <= 1e-9 * history[0])


def test_kmeans_verbose_shows_bars_over_the_centres_and_iterations_and_lines_at_two(blobs, capsys):
    X, _ = blobs
    quiet = KMeans(6, n_init=1, random_state=0).fit(X)
    shown = KMeans(6, n_init=1, random_state=0, verbose=1).fit(X)
    captured = capsys.readouterr()
    assert "k-means++ centres" in captured.err and "5/5" in captured.err  # the first centre is drawn, not searched
    assert "iterations" in captured.err and "objective" in captured.err and "iteration" not in captured.out
    np.testing.assert_array_equal(shown.labels_, quiet.labels_)
    KMeans(6, n_init=1, random_state=0, verbose=2).fit(X)
    lines = [line for line in capsys.readouterr().out.splitlines() if "] iteration " in line]
    # a line per centre update; n_iter_ counts, as scikit-learn's, the pass that found no
    # label changing after a last update that still moved the centres by more than tol
    assert len(lines) in (quiet.n_iter_, quiet.n_iter_ - 1) and lines[-1].endswith("change 0")


def test_kmeans_plusplus_beats_random_on_average():
    X, _ = make_blobs(2000, centers=15, n_features=5, cluster_std=1.0, random_state=3)
    pp = [KMeans(15, init="k-means++", n_init=1, random_state=s).fit(X).inertia_ for s in range(12)]
    rnd = [KMeans(15, init="random", n_init=1, random_state=s).fit(X).inertia_ for s in range(12)]
    assert np.mean(pp) < np.mean(rnd)


def test_kmeans_parallel_init_is_comparable_to_plusplus():
    X, _ = make_blobs(3000, centers=12, n_features=5, cluster_std=1.0, random_state=4)
    seeds = range(10)
    par = np.mean([KMeans(12, init="k-means||", random_state=s).fit(X).inertia_ for s in seeds])
    pp = np.mean([KMeans(12, init="k-means++", random_state=s).fit(X).inertia_ for s in seeds])
    rnd = np.mean([KMeans(12, init="random", n_init=1, random_state=s).fit(X).inertia_ for s in seeds])
    assert par < rnd and par <= 1.05 * pp


def test_same_seed_same_labels_with_one_and_two_threads(blobs, machine_threads):
    from threadpoolctl import threadpool_limits

    X, _ = blobs
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        with threadpool_limits(limits=1):
            one = [KMeans(6, algorithm=a, random_state=0).fit(X).labels_ for a in ("lloyd", "elkan", "hamerly")]
            gm1 = GaussianMixture(3, random_state=0).fit(X).predict(X)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = [KMeans(6, algorithm=a, random_state=0).fit(X).labels_ for a in ("lloyd", "elkan", "hamerly")]
        gm2 = GaussianMixture(3, random_state=0).fit(X).predict(X)
    finally:
        numba.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(gm1, gm2)


def test_integer_weights_equal_repeated_rows(blobs):
    X, _ = blobs
    X = X[:300]
    w = np.random.default_rng(0).integers(1, 4, size=300)
    init = X[:6]
    weighted = KMeans(6, init=init).fit(X, sample_weight=w)
    repeated = KMeans(6, init=init).fit(np.repeat(X, w, axis=0))
    np.testing.assert_allclose(weighted.cluster_centers_, repeated.cluster_centers_, rtol=1e-9)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-9)


@pytest.mark.parametrize("cls", [KMeans, MiniBatchKMeans, lowdim.BisectingKMeans])
def test_random_start_with_fewer_weighted_rows_than_clusters(cls):
    # rows of no weight count for nothing but may hold a centre, as k-means++ lets them
    X = np.random.default_rng(0).normal(size=(40, 3))
    w = np.zeros(40)
    w[7] = 2.0
    with warnings.catch_warnings():
        # mini-batches move a centre that holds no weight onto a weighted row, and say so
        warnings.filterwarnings("ignore", "Number of distinct clusters", UserWarning)
        km = cls(3, init="random", random_state=0).fit(X, sample_weight=w)
    assert np.isfinite(km.cluster_centers_).all() and km.inertia_ == 0.0
    np.testing.assert_allclose(km.cluster_centers_[km.labels_[7]], X[7])


@pytest.mark.parametrize("cls", [KMeans, MiniBatchKMeans, lowdim.BisectingKMeans])
@pytest.mark.parametrize(
    "weight, message",
    [
        (-1.0, r"got -1 at sample 0 \(20 such"),
        (np.nan, r"got nan at sample 0"),
        (np.inf, r"got inf at sample 0"),
        (0.0, "positive sum"),
        (np.r_[np.ones(5), -2.0, np.ones(14)], r"got -2 at sample 5 \(1 such"),
    ],
)
def test_sample_weight_is_checked_whether_one_number_or_one_per_row(cls, weight, message):
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=message):
        cls(2, random_state=0).fit(X, sample_weight=weight)


def test_one_number_as_sample_weight_weighs_every_row_alike():
    X = np.random.default_rng(0).normal(size=(30, 2))
    for est in (KMeans(3, random_state=0), lowdim.DBSCAN(eps=0.5, min_samples=3)):
        np.testing.assert_array_equal(
            est.fit(X, sample_weight=2.0).labels_, est.fit(X, sample_weight=np.full(30, 2.0)).labels_
        )
    assert KMeans(3, random_state=0).fit(X, sample_weight=2.0).inertia_ == pytest.approx(
        2 * KMeans(3, random_state=0).fit(X).inertia_, rel=1e-12
    )


def test_fewer_distinct_points_than_clusters_warns_and_relocates():
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0]]), 10, axis=0)
    with pytest.warns(UserWarning, match=r"Number of distinct clusters \(2\) found smaller than n_clusters \(4\)"):
        km = KMeans(4, random_state=0).fit(X)
    assert np.isfinite(km.cluster_centers_).all() and km.inertia_ == 0.0


@pytest.mark.parametrize("make", [lambda: KMeans(8, random_state=0), lambda: MiniBatchKMeans(8, random_state=0)])
def test_copies_of_a_row_share_one_cluster_when_centres_outnumber_the_points(make):
    # the mean of 7 copies of 0.1 need not be 0.1 to the last bit: centres equal up to
    # rounding took turns, and the copies of one row were split between them
    rows = np.random.default_rng(0).random((2, 4)) * 0.1 + 0.65
    X = np.repeat(rows, 10, axis=0)
    with pytest.warns(UserWarning, match=r"Number of distinct clusters \(2\) found smaller than n_clusters \(8\)"):
        km = make().fit(X)
    assert [len(set(km.labels_[i : i + 10])) for i in (0, 10)] == [1, 1]
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert len(np.unique(km.cluster_centers_, axis=0)) == 2  # twins are the same centre, not two by a bit


def test_predict_transform_score_consistent(blobs):
    X, _ = blobs
    km = KMeans(6, random_state=0).fit(X)
    D = km.transform(X)
    np.testing.assert_array_equal(km.predict(X), np.argmin(D, axis=1))
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert -km.score(X) == pytest.approx(km.inertia_, rel=1e-9)
    np.testing.assert_allclose(D, cdist(X, km.cluster_centers_), rtol=1e-7)


def test_ari_on_digits_pca_comparable_to_sklearn():
    X, y = load_digits(return_X_y=True)
    Z = lowdim.PCA(30, random_state=0).fit_transform(X)
    ours = np.mean([metrics.adjusted_rand_score(y, KMeans(10, random_state=s).fit(Z).labels_) for s in range(5)])
    ref = np.mean(
        [
            metrics.adjusted_rand_score(y, skcluster.KMeans(10, n_init=1, random_state=s).fit(Z).labels_)
            for s in range(5)
        ]
    )
    assert ours > 0.5 and ours >= ref - 0.05


def test_minibatch_close_to_full_kmeans_and_streams(blobs):
    X, _ = blobs
    full = KMeans(6, random_state=0).fit(X).inertia_
    batch = MiniBatchKMeans(6, batch_size=256, random_state=0).fit(X)
    assert batch.inertia_ <= 1.05 * full
    stream = MiniBatchKMeans(6, random_state=0)
    for _ in range(5):
        for start in range(0, X.shape[0], 300):
            stream.partial_fit(X[start : start + 300])
    assert -stream.score(X) <= 1.1 * full
    assert stream.n_steps_ == 25


# ------------------------------------------------------------------ k-medoids
@pytest.mark.parametrize("init", ["build", "k-medoids++"])
@pytest.mark.parametrize("method", ["alternate", "pam"])
def test_kmedoids_numpy_and_kernel_paths_give_the_same_medoids(init, method, monkeypatch):
    """Small dissimilarity matrices are worked in numpy (no kernel to compile on a first
    call), summed in the kernels' order: the same medoids, labels and inertia, ties
    included (an integer grid has many equal sums)."""
    rng = np.random.default_rng(0)
    grid = np.array([[i, j] for i in range(12) for j in range(12)], dtype=float)
    for X in (grid, rng.normal(size=(300, 4)).astype(np.float32)):
        runs = []
        for small in (1 << 24, -1):
            monkeypatch.setattr("lowdim.cluster._kmedoids.SMALL_MEDOIDS", small)
            monkeypatch.setattr("lowdim.cluster._kmedoids.ROW_BLOCK", 7 * X.shape[0])  # several row blocks
            runs.append(KMedoids(6, init=init, method=method, random_state=0).fit(X))
        small_fit, kernel_fit = runs
        np.testing.assert_array_equal(small_fit.medoid_indices_, kernel_fit.medoid_indices_)
        np.testing.assert_array_equal(small_fit.labels_, kernel_fit.labels_)
        assert small_fit.inertia_ == kernel_fit.inertia_ and small_fit.n_iter_ == kernel_fit.n_iter_


def test_pam_finds_the_optimum_of_a_small_problem():
    X, _ = make_blobs(24, centers=3, random_state=2)
    D = cdist(X, X)
    best = min(itertools.combinations(range(24), 3), key=lambda c: D[:, list(c)].min(axis=1).sum())
    km = KMedoids(3, method="pam").fit(X)
    assert km.inertia_ == pytest.approx(D[:, list(best)].min(axis=1).sum(), rel=1e-12)
    assert set(km.medoid_indices_) == set(best)


@pytest.mark.parametrize("search", [pam_swap, alternate])
def test_medoids_are_points_and_objective_never_increases(blobs, search):
    X, _ = blobs
    X = X[:400]
    D = cdist(X, X)
    result = search(D, np.arange(6), max_iter=100)
    assert np.all(np.diff(result.history) <= 1e-9)
    km = KMedoids(6, method="pam" if search is pam_swap else "alternate").fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X[km.medoid_indices_])
    assert km.inertia_ == pytest.approx(D[:, km.medoid_indices_].min(axis=1).sum())


def test_kmedoids_precomputed_and_other_metrics(blobs):
    X, _ = blobs
    X = X[:300]
    D = cdist(X, X, "cityblock")
    a = KMedoids(4, metric="precomputed", method="pam").fit(D)
    b = KMedoids(4, metric="cityblock", method="pam").fit(X)
    np.testing.assert_array_equal(a.medoid_indices_, b.medoid_indices_)
    np.testing.assert_array_equal(a.predict(D), b.predict(X))
    assert a.cluster_centers_ is None


# ------------------------------------------------------------------ Gaussian mixtures
def _synthetic_mixture(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0, 0.0], [6.0, 0.0, 3.0], [0.0, 7.0, -4.0]])
    A = rng.normal(size=(3, 3, 3)) * 0.6 + np.eye(3)
    covs = np.einsum("kij,klj->kil", A, A)
    weights = np.array([0.5, 0.3, 0.2])
    y = rng.choice(3, size=n, p=weights)
    L = np.linalg.cholesky(covs)
    X = means[y] + np.einsum("nij,nj->ni", L[y], rng.normal(size=(n, 3)))
    return X, y, weights, means, covs


def _matched(fitted_means, true_means):
    return [int(np.argmin(np.linalg.norm(fitted_means - m, axis=1))) for m in true_means]


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical", "tied"])
def test_gmm_recovers_generating_parameters(covariance_type):
    X, _, weights, means, covs = _synthetic_mixture()
    if covariance_type == "diag":
        covs = np.stack([np.diag(np.diag(c)) for c in covs])
    elif covariance_type == "spherical":
        covs = np.stack([np.eye(3) * np.trace(c) / 3 for c in covs])
    elif covariance_type == "tied":
        covs = np.stack([covs[0]] * 3)
    rng = np.random.default_rng(1)
    y = rng.choice(3, size=6000, p=weights)
    X = means[y] + np.einsum("nij,nj->ni", np.linalg.cholesky(covs)[y], rng.normal(size=(6000, 3)))
    gm = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    order = _matched(gm.means_, means)
    np.testing.assert_allclose(gm.means_[order], means, atol=0.15)
    np.testing.assert_allclose(gm.weights_[order], weights, atol=0.03)
    params = gm._params()
    fitted = np.stack([params.full(k) for k in order])
    np.testing.assert_allclose(fitted, covs, atol=0.25 * np.abs(covs).max())


def test_gmm_log_likelihood_never_decreases():
    X, *_ = _synthetic_mixture(3000)
    history = []
    GaussianMixture(
        3,
        init_params="random",
        tol=1e-8,
        max_iter=300,
        random_state=0,
        callbacks=[lambda it, obj, state: history.append(-obj)],
    ).fit(X)
    assert len(history) > 3
    assert np.all(np.diff(history) >= -1e-10)


def test_gmm_matches_sklearn_from_the_same_start():
    X, *_ = _synthetic_mixture(3000)
    start = dict(weights_init=np.full(3, 1 / 3), means_init=X[[0, 1, 2]], precisions_init=np.stack([np.eye(3)] * 3))
    ours = GaussianMixture(3, tol=1e-6, max_iter=500, **start).fit(X)
    ref = skmixture.GaussianMixture(3, tol=1e-6, max_iter=500, **start).fit(X)
    assert ours.score(X) == pytest.approx(ref.score(X), rel=1e-8)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-6, atol=1e-6)
    assert ours.bic(X) == pytest.approx(ref.bic(X), rel=1e-8)
    assert ours.aic(X) == pytest.approx(ref.aic(X), rel=1e-8)


def test_gmm_with_missing_features_recovers_means():
    X, _, _, means, _ = _synthetic_mixture(6000)
    Xm = X.copy()
    Xm[np.random.default_rng(5).random(X.shape) < 0.25] = np.nan
    gm = GaussianMixture(3, random_state=0).fit(Xm)
    np.testing.assert_allclose(gm.means_[_matched(gm.means_, means)], means, atol=0.2)
    proba = gm.predict_proba(Xm)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    assert np.isfinite(gm.score_samples(np.full((1, 3), np.nan))).all()


def test_gmm_collapsing_component_names_reg_covar():
    X = np.vstack([np.random.default_rng(0).normal(size=(50, 2)), np.full((5, 2), 10.0)])
    with pytest.raises(ValueError, match=r"ill-defined empirical covariance.*Component \d collapsed.*reg_covar is 0"):
        GaussianMixture(2, reg_covar=0.0, random_state=0).fit(X)
    assert np.isfinite(GaussianMixture(2, random_state=0).fit(X).score(X))  # default reg_covar copes


@pytest.mark.parametrize("Mixture", [GaussianMixture, lowdim.BayesianGaussianMixture])
def test_a_reg_covar_that_swamps_the_variances_is_named_with_one_that_does_not(Mixture):
    # wine in units a thousand times larger: variances of 1e-6, the default reg_covar. Both
    # mixtures (and scikit-learn's) put every row into one or two clusters, silently
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # standardised features: nothing to say
        unit = Mixture(n_components=3, random_state=0).fit_predict(X)
    with pytest.warns(UserWarning, match=r"reg_covar=1e-06 is more than 1 % of the variance of 13 of 13") as caught:
        small = Mixture(n_components=3, random_state=0).fit_predict(X * 1e-3)
    assert skmetrics.adjusted_rand_score(unit, small) < 0.6
    suggested = float(re.search(r"reg_covar <= ([0-9.e+-]+)\.", str(caught[0].message)).group(1))
    assert suggested == pytest.approx(1e-8)  # a hundredth of the smallest variance
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed = Mixture(n_components=3, random_state=0, reg_covar=suggested).fit_predict(X * 1e-3)
    assert skmetrics.adjusted_rand_score(unit, fixed) > 0.9


def test_gmm_sample_draws_from_the_model():
    X, *_ = _synthetic_mixture(3000)
    gm = GaussianMixture(3, random_state=0).fit(X)
    S, labels = gm.sample(20000)
    assert S.shape == (20000, 3) and np.bincount(labels, minlength=3).sum() == 20000
    np.testing.assert_allclose(S.mean(axis=0), X.mean(axis=0), atol=0.15)


# ------------------------------------------------------------------ choosing k, metrics
@pytest.mark.parametrize("method", ["elbow", "silhouette", "bic", "aic", "gap"])
def test_select_n_clusters_finds_three_separated_blobs(method):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.4, (80, 2)) for c in ((0, 0), (6, 0), (0, 6))])
    result = select_n_clusters(X, method, k_range=range(1, 8), n_refs=5, random_state=0)
    assert result.n_clusters == 3
    assert len(result.scores) == len(result.candidates)


@pytest.mark.parametrize("covariance_type, tried", [("full", [1]), ("diag", [1, 2, 3]), ("spherical", [1, 2, 3])])
def test_bic_tries_only_mixtures_whose_covariances_the_rows_can_estimate(covariance_type, tried):
    # five rows in 3-D and one row per component: covariances at reg_covar, a likelihood
    # without bound, and the BIC chose five clusters of one row each
    X = np.random.default_rng(0).normal(size=(7, 3))
    with pytest.warns(UserWarning, match=r"7 rows hold at most \d component.*not tried"):
        result = select_n_clusters(X, "bic", k_range=range(1, 6), covariance_type=covariance_type, random_state=0)
    assert result.candidates.tolist() == tried and result.n_clusters in tried


def test_partition_metrics_match_sklearn():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = rng.integers(0, 5, 300), rng.integers(0, 7, 300)
        b[:150] = a[:150]
        assert metrics.adjusted_rand_score(a, b) == pytest.approx(skmetrics.adjusted_rand_score(a, b), abs=1e-12)
        for avg in ("arithmetic", "geometric", "min", "max"):
            assert metrics.normalized_mutual_info_score(a, b, average_method=avg) == pytest.approx(
                skmetrics.normalized_mutual_info_score(a, b, average_method=avg), abs=1e-12
            )


def test_silhouette_exact_and_sampled(blobs):
    X, y = blobs
    exact = metrics.silhouette_score(X, y)
    assert exact == pytest.approx(skmetrics.silhouette_score(X, y), abs=1e-9)
    D = cdist(X, X, "cityblock")
    assert metrics.silhouette_score(D, y, metric="precomputed") == pytest.approx(
        skmetrics.silhouette_score(X, y, metric="manhattan"), abs=1e-9
    )
    sampled = [metrics.silhouette_score(X, y, sample_size=300, random_state=s) for s in range(5)]
    assert abs(np.mean(sampled) - exact) < 0.02
    with pytest.raises(ValueError, match="Number of labels is 1"):
        metrics.silhouette_score(X, np.zeros(len(X)))


def test_no_warnings_from_clean_clustering(blobs):
    X, _ = blobs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        models = [KMeans(6, random_state=0).fit(X), GaussianMixture(6, random_state=0).fit(X), KMedoids(6).fit(X[:300])]
    assert not caught, [str(w.message) for w in caught]
    assert all(np.unique(m.predict(X[:300])).size == 6 for m in models)


def test_minibatch_partial_fit_continues_after_save_and_load(blobs, tmp_path):
    X, _ = blobs
    a = MiniBatchKMeans(6, random_state=0)
    for start in range(0, 900, 300):
        a.partial_fit(X[start : start + 300])
    lowdim.save(a, tmp_path / "mbk.lowdim")
    b = lowdim.load(tmp_path / "mbk.lowdim")
    np.testing.assert_array_equal(b.counts_, a.counts_)
    b.partial_fit(X[900:1200])
    assert b.n_steps_ == 4 and b.counts_.sum() == pytest.approx(1200)


@pytest.mark.parametrize("algorithm", ["lloyd", "hamerly", "elkan"])
def test_fewer_distinct_points_than_clusters_fits_with_a_convergence_warning(algorithm):
    from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning

    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    with pytest.warns(SkConvergenceWarning, match="found only 3 distinct clusters"):
        km = KMeans(n_clusters=4, random_state=0, algorithm=algorithm).fit(X)
    assert np.isfinite(km.cluster_centers_).all() and km.inertia_ == 0.0
    # every point sits on its own centre; the duplicate point's centre appears twice
    np.testing.assert_array_equal(km.cluster_centers_[km.labels_], X)
    assert len(np.unique(km.cluster_centers_, axis=0)) == 3


def test_gaussian_mixture_starts_on_fewer_distinct_points_than_components():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lowdim.ConvergenceWarning)
        gm = GaussianMixture(4, random_state=0).fit(X)
    assert np.isfinite(gm.means_).all() and np.isfinite(gm.score(X))


def test_minibatch_with_an_array_start_and_auto_restarts():
    X, _ = make_blobs(300, centers=3, random_state=0)
    km = MiniBatchKMeans(n_clusters=3, init=X[:3], n_init="auto", random_state=0).fit(X)
    assert km.cluster_centers_.shape == (3, 2) and np.isfinite(km.inertia_)


def _overlapping_blobs():
    X, _ = make_blobs(600, centers=[[0, 0], [2.5, 0.5], [1, 3]], cluster_std=[1.0, 1.5, 0.8], random_state=3)
    return X


def test_gaussian_mixture_warm_start_continues_the_last_fit():
    X = _overlapping_blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lowdim.ConvergenceWarning)
        stepwise = GaussianMixture(3, max_iter=1, warm_start=True, random_state=0)
        bounds = [stepwise.fit(X).lower_bound_ for _ in range(8)]
        at_once = GaussianMixture(3, max_iter=8, tol=0.0, random_state=0).fit(X)
    assert all(b >= a - 1e-12 for a, b in zip(bounds, bounds[1:]))
    np.testing.assert_allclose(stepwise.means_, at_once.means_, rtol=1e-10)
    np.testing.assert_allclose(at_once.lower_bounds_[-1], at_once.lower_bound_)
    assert len(at_once.lower_bounds_) == at_once.n_iter_ == 8


def test_gaussian_mixture_max_iter_zero_returns_the_start():
    X = _overlapping_blobs()
    with pytest.warns(lowdim.ConvergenceWarning, match="max_iter=0"):
        start = GaussianMixture(3, max_iter=0, random_state=0).fit(X)
    assert start.n_iter_ == 0 and not start.converged_ and np.isfinite(start.lower_bound_)
    fitted = GaussianMixture(3, random_state=0).fit(X)
    assert fitted.lower_bound_ >= start.lower_bound_


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_mixture_precisions_cholesky_as_sklearn(covariance_type):
    X = _overlapping_blobs()
    ours = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    U = ours.precisions_cholesky_
    if covariance_type == "full":
        np.testing.assert_allclose(U @ U.transpose(0, 2, 1), ours.precisions_, rtol=1e-10)
        assert np.allclose(np.tril(U[0], -1), 0.0)
    elif covariance_type == "tied":
        np.testing.assert_allclose(U @ U.T, ours.precisions_, rtol=1e-10)
    else:
        np.testing.assert_allclose(U**2, ours.precisions_, rtol=1e-12)
    # scikit-learn's score from the same parameters agrees
    theirs = skmixture.GaussianMixture(3, covariance_type=covariance_type)
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
        setattr(theirs, name, getattr(ours, name))
    np.testing.assert_allclose(theirs.score_samples(X), ours.score_samples(X), rtol=1e-10)


def test_messages_keep_scikit_learns_sentences():
    """Code written against scikit-learn matches its sentences; lowdim's own come first."""
    from lowdim import KMeans

    X = np.vstack([np.zeros((6, 2)), np.ones((6, 2))])
    with pytest.raises(ValueError, match=r"n_samples=12 should be >= n_clusters=13"):
        KMeans(13).fit(X)
    with pytest.raises(ValueError, match=r"initial centers \(3, 2\) does not match the number of clusters"):
        KMeans(2, init=np.zeros((3, 2)), n_init=1).fit(X)
    with pytest.raises(ValueError, match=r"does not match the number of features of the data 2"):
        KMeans(2, init=np.zeros((2, 3)), n_init=1).fit(X)
    with pytest.warns(Warning, match=r"Number of distinct clusters \(2\) found smaller than n_clusters \(3\)"):
        KMeans(3, random_state=0).fit(X)


def test_gaussian_mixture_warns_once_for_the_run_kept_and_converges_stepwise():
    """The convergence warning is scikit-learn's, once for the best of n_init runs (not
    once per run), and warm-started max_iter=1 fits detect convergence from the last
    fit's bound; bad initial values are refused in scikit-learn's words."""
    X = _overlapping_blobs()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GaussianMixture(3, max_iter=1, n_init=3, random_state=0).fit(X)
    messages = [str(w.message) for w in caught if issubclass(w.category, lowdim.ConvergenceWarning)]
    assert len(messages) == 1 and messages[0].startswith("Best performing initialization did not converge.")
    stepwise = GaussianMixture(3, max_iter=1, warm_start=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lowdim.ConvergenceWarning)
        for _ in range(200):
            if stepwise.fit(X).converged_:
                break
    assert stepwise.converged_
    with pytest.raises(ValueError, match=r"The parameter 'weights' should have the shape of \(3,\), but got \(2,\)"):
        GaussianMixture(3, weights_init=[0.5, 0.5]).fit(X)
    with pytest.raises(ValueError, match="Invalid value for 'n_samples'"):
        GaussianMixture(3, random_state=0).fit(X).sample(0)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gaussian_mixture_refuses_bad_starts_and_zero_variance(covariance_type):
    """Initial weights outside [0, 1] or not summing to 1 and precisions that are not
    positive (definite) are refused before EM; without reg_covar, a component of
    identical points (variance zero up to rounding) is refused, whatever the type."""
    X = _overlapping_blobs()
    with pytest.raises(ValueError, match=r"'weights' should be in the range \[0, 1\]"):
        GaussianMixture(3, weights_init=[1.5, 0.2, 0.3]).fit(X)
    with pytest.raises(ValueError, match=r"'weights' should be normalized, but got sum\(weights\) = 0.50000"):
        GaussianMixture(3, weights_init=[0.1, 0.2, 0.2]).fit(X)
    bad = {"full": -np.ones((3, 2, 2)), "tied": -np.eye(2), "diag": -np.ones((3, 2)), "spherical": -np.ones(3)}
    with pytest.raises(ValueError, match=f"'{covariance_type} precision' should be"):
        GaussianMixture(3, covariance_type=covariance_type, precisions_init=bad[covariance_type]).fit(X)
    twins = np.repeat(np.array([[1.0, 3.0], [0.0, 0.0]]), 5, axis=0)
    with pytest.raises(ValueError, match="ill-defined empirical covariance"):
        GaussianMixture(10, covariance_type=covariance_type, reg_covar=0.0, random_state=0).fit(twins)


def test_kmeans_counts_iterations_and_warns_as_scikit_learn():
    """n_iter_ counts the pass that found no label changing (scikit-learn's toy case:
    2 iterations); an explicit start with n_init > 1 runs once, with a warning; Elkan
    with one cluster runs Lloyd, with a warning; MiniBatchKMeans warns of an init_size
    below n_clusters."""
    from lowdim import MiniBatchKMeans

    X = np.array([[0, 0], [0.5, 0], [0.5, 1], [1, 1]])
    km = KMeans(2, n_init=1, init=np.array([[0.0, 0.0], [1.0, 1.0]]), algorithm="lloyd")
    km.fit(X, sample_weight=[3, 1, 1, 3])
    np.testing.assert_allclose(km.cluster_centers_, [[0.125, 0], [0.875, 1]])
    assert km.n_iter_ == 2 and km.inertia_ == pytest.approx(0.375)
    with pytest.warns(RuntimeWarning, match="Explicit initial center position passed: performing only one init"):
        assert KMeans(2, init=X[:2], n_init=10).fit(X).n_init_ == 1
    with pytest.warns(RuntimeWarning, match="algorithm='elkan' doesn't make sense for a single cluster"):
        assert KMeans(1, algorithm="elkan").fit(X).algorithm_ == "lloyd"
    blobs = np.random.default_rng(0).normal(size=(200, 2)) + 10.0
    with pytest.warns(RuntimeWarning, match=r"init_size=3 should be larger than n_clusters=5"):
        MiniBatchKMeans(5, init_size=3, random_state=0).fit(blobs)
    for model in (KMeans(3, random_state=0), MiniBatchKMeans(3, random_state=0)):
        centres = model.fit(blobs).cluster_centers_
        # a few roundings of the centres' coordinates (the data are centred), not the root of
        # the GEMM expansion's rounding (about 1e-8 of the norm)
        eps = np.finfo(np.float64).eps
        assert np.all(np.diag(model.transform(centres)) <= 8 * eps * np.linalg.norm(centres, axis=1))


def test_minibatch_kmeans_says_why_it_stopped(capsys):
    from lowdim import MiniBatchKMeans

    X = np.random.default_rng(0).normal(size=(300, 2))
    MiniBatchKMeans(3, batch_size=20, tol=1e-4, max_no_improvement=None, random_state=0, verbose=1).fit(X)
    assert "Converged (small centers change)" in capsys.readouterr().out
    MiniBatchKMeans(3, batch_size=20, max_no_improvement=3, random_state=0, verbose=1).fit(X)
    assert "Converged (lack of improvement in inertia)" in capsys.readouterr().out


def test_minibatch_streams_single_rows_without_a_constant_column_warning():
    X = np.abs(np.random.default_rng(0).normal(size=(30, 4)))
    model = lowdim.MiniBatchKMeans(1, random_state=0, n_init=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one row said "all rows of X are identical"
        for i in range(30):
            model.partial_fit(X[i : i + 1])
    np.testing.assert_allclose(model.cluster_centers_[0], X.mean(axis=0), rtol=1e-10)  # the running mean
