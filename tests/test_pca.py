"""PCA properties: solver equivalence, orthonormality, variance, streaming, sparse."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA as SkPCA

from lowdim import PCA, IncrementalPCA, select_n_components
from lowdim.decomposition import choose_solver
from lowdim.exceptions import ConvergenceWarning

SOLVERS = ["covariance", "gram", "svd", "randomized", "power", "lanczos"]
TOL = {np.float64: 1e-8, np.float32: 1e-4}


def low_rank(n=300, d=40, rank=8, noise=0.05, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=(n, rank)) * np.linspace(5, 1, rank)
    X = signal @ np.linalg.qr(rng.normal(size=(d, rank)))[0].T + noise * rng.normal(size=(n, d))
    return (X + rng.normal(size=d) * 3).astype(dtype)


def fit(solver, X, k, **kw):
    kw.setdefault("random_state", 0)
    if solver == "power":
        kw.setdefault("tol", 1e-10)
    if solver == "randomized":
        kw.setdefault("iterated_power", 7)
    return PCA(k, solver=solver, **kw).fit(X)


@pytest.fixture(scope="module")
def digits():
    return load_digits().data


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("solver", SOLVERS)
def test_solvers_agree_with_sklearn_up_to_sign(solver, dtype):
    X = low_rank(dtype=dtype)
    ref = SkPCA(6, svd_solver="full").fit(X.astype(np.float64))
    pca = fit(solver, X, 6)
    assert pca.components_.dtype == dtype and pca.solver_ == solver
    rtol = TOL[dtype] * (1e3 if solver == "randomized" else 10)
    np.testing.assert_allclose(pca.explained_variance_, ref.explained_variance_, rtol=rtol)
    overlap = np.abs(pca.components_.astype(np.float64) @ ref.components_.T)
    np.testing.assert_allclose(overlap, np.eye(6), atol=max(1e-6, 100 * rtol))
    np.testing.assert_allclose(pca.mean_, ref.mean_, rtol=TOL[dtype])


@pytest.mark.parametrize("solver", SOLVERS)
def test_orthonormal_variance_and_sign_convention(solver, digits):
    pca = fit(solver, digits, 10)
    W = pca.components_
    np.testing.assert_allclose(W @ W.T, np.eye(10), atol=1e-8)
    Z = pca.transform(digits)
    np.testing.assert_allclose(Z.var(axis=0, ddof=1), pca.explained_variance_, rtol=1e-6)
    pivots = np.abs(W).argmax(axis=1)
    assert (W[np.arange(10), pivots] > 0).all()


def test_reconstruction_error_is_sum_of_discarded_eigenvalues(digits):
    full = PCA(None).fit(digits)
    n = digits.shape[0]
    for k in (5, 20, 40):
        pca = PCA(k).fit(digits)
        discarded = full.explained_variance_[k:].sum()
        assert pca.reconstruction_error(digits) == pytest.approx(discarded * (n - 1) / n, rel=1e-8)
        Xr = pca.inverse_transform(pca.transform(digits))
        assert np.mean(np.sum((digits - Xr) ** 2, axis=1)) == pytest.approx(discarded * (n - 1) / n, rel=1e-8)


@pytest.mark.parametrize("solver", ["covariance", "svd", "gram"])
def test_whitened_output_has_unit_variance(solver, digits):
    pca = PCA(15, whiten=True, solver=solver).fit(digits)
    Z = pca.transform(digits)
    np.testing.assert_allclose(Z.var(axis=0, ddof=1), 1.0, rtol=1e-8)
    np.testing.assert_allclose(
        pca.inverse_transform(Z),
        PCA(15, solver=solver).fit(digits).inverse_transform(PCA(15, solver=solver).fit(digits).transform(digits)),
        atol=1e-8,
    )


@pytest.mark.parametrize("solver", ["covariance", "svd", "gram", "randomized", "lanczos"])
def test_standardize_is_pca_of_correlation(solver):
    X = low_rank() * np.linspace(1, 100, 40)
    Xs = (X - X.mean(0)) / X.std(0, ddof=1)
    ref = SkPCA(5).fit(Xs)
    pca = fit(solver, X, 5, standardize=True)
    np.testing.assert_allclose(pca.explained_variance_, ref.explained_variance_, rtol=1e-6)
    np.testing.assert_allclose(
        pca.transform(X), ref.transform(Xs) * np.sign(np.diag(pca.components_ @ ref.components_.T)), atol=1e-6
    )
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, rtol=0, atol=np.abs(X).max())
    assert pca.total_variance_ == pytest.approx(40)


def test_standardize_constant_feature_warns_and_is_finite():
    X = low_rank()
    X[:, 3] = 7.0
    with pytest.warns(UserWarning, match="columns 3"):
        pca = PCA(4, standardize=True).fit(X)
    assert np.isfinite(pca.transform(X)).all() and pca.total_variance_ == 39


@pytest.mark.parametrize("chunks", [[300], [1, 299], [100, 100, 100], [7] * 42 + [6], [150, 2, 148]])
def test_partial_fit_over_any_chunking_equals_fit(chunks):
    X = low_rank()
    batch = PCA(6, solver="covariance").fit(X)
    stream = PCA(6)
    start = 0
    for size in chunks:
        stream.partial_fit(X[start : start + size])
        start += size
    assert stream.n_samples_seen_ == 300
    np.testing.assert_allclose(stream.components_, batch.components_, atol=1e-10)
    np.testing.assert_allclose(stream.explained_variance_, batch.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(stream.mean_, batch.mean_, rtol=1e-12)


def test_fit_from_iterator_and_memmap_equal_batch(tmp_path):
    X = low_rank(dtype=np.float32)
    batch = PCA(6, solver="covariance").fit(X)
    streamed = PCA(6).fit(iter(np.array_split(X, 7)))
    np.testing.assert_allclose(streamed.components_, batch.components_, atol=1e-5)
    assert streamed.components_.dtype == np.float32 and streamed.n_samples_seen_ == 300
    np.save(tmp_path / "x.npy", X)
    # a memory map is read block by block (one pass); an array in memory takes one syrk
    # after a moments pass (numpy's BLAS, not scipy's): the same moments up to float32
    # rounding of the products (about 1e-6 relative)
    mm = PCA(6, solver="covariance").fit(np.load(tmp_path / "x.npy", mmap_mode="r"))
    np.testing.assert_allclose(mm.components_, batch.components_, atol=1e-5)
    np.testing.assert_allclose(mm.explained_variance_, batch.explained_variance_, rtol=1e-5)
    inc = IncrementalPCA(6, batch_size=17).fit(X)
    np.testing.assert_allclose(inc.explained_variance_, batch.explained_variance_, rtol=1e-5)


@pytest.mark.parametrize("solver", ["covariance", "lanczos", "randomized", "power"])
def test_sparse_equals_dense_without_densifying(solver):
    rng = np.random.default_rng(0)
    S = sp.random(400, 60, density=0.1, format="csr", random_state=1) @ sp.diags(np.linspace(1, 5, 60))
    dense = fit(solver, S.toarray(), 5)
    sparse = fit(solver, S, 5)
    atol = 1e-3 if solver == "randomized" else 1e-6
    np.testing.assert_allclose(sparse.explained_variance_, dense.explained_variance_, rtol=atol)
    np.testing.assert_allclose(np.abs(sparse.transform(S)), np.abs(dense.transform(S.toarray())), atol=atol * 10)
    assert sparse.solver_ == solver
    del rng


def test_sparse_transform_large_input_is_not_densified():
    S = sp.random(20000, 600, density=0.001, format="csr", random_state=0)
    pca = PCA(3, solver="lanczos", random_state=0).fit(S)
    Z = pca.transform(S)  # 12 million cells: transformed through the sparse path
    ref = PCA(3, solver="covariance").fit(S)
    np.testing.assert_allclose(np.abs(Z), np.abs(ref.transform(S)), atol=1e-8)


def test_gram_equals_covariance_when_wide():
    X = low_rank(n=50, d=400, rank=10)
    g, c = PCA(10, solver="gram").fit(X), PCA(10, solver="covariance").fit(X)
    np.testing.assert_allclose(g.components_, c.components_, atol=1e-9)
    np.testing.assert_allclose(g.explained_variance_, c.explained_variance_, rtol=1e-10)
    full = PCA(None, solver="gram").fit(X)
    assert full.n_components_ == 50 and full.explained_variance_[-1] == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("solver", ["randomized", "power", "lanczos"])
def test_determinism_under_seed(solver):
    X = low_rank()
    a, b = fit(solver, X, 4, random_state=7), fit(solver, X, 4, random_state=7)
    np.testing.assert_array_equal(a.components_, b.components_)


@pytest.mark.parametrize("solver", ["covariance", "svd", "power"])
def test_variance_fraction_picks_smallest_k(solver, digits):
    full = PCA(None).fit(digits)
    cumulative = np.cumsum(full.explained_variance_ratio_)
    for fraction in (0.5, 0.8, 0.9, 0.95):
        pca = fit(solver, digits, fraction)
        k = pca.n_components_
        assert cumulative[k - 1] >= fraction and (k == 1 or cumulative[k - 2] < fraction)
        assert k == SkPCA(fraction).fit(digits).n_components_


def test_mle_matches_sklearn_and_recovers_rank():
    X = low_rank(n=500, d=30, rank=6, noise=0.3)
    assert PCA("mle").fit(X).n_components_ == SkPCA("mle").fit(X).n_components_ == 6
    sel = select_n_components(X, "mle")
    assert sel.n_components == 6 and sel.curve.size == 29


def test_select_n_components_cv_and_variance():
    X = low_rank(n=400, d=20, rank=5, noise=0.2)
    cv = select_n_components(X, "cv", random_state=0)
    assert cv.n_components == 5 and np.argmax(cv.curve) == 4
    var = select_n_components(X, "variance", threshold=0.9)
    assert var.curve[var.n_components - 1] >= 0.9 and var.curve[var.n_components - 2] < 0.9


def test_score_matches_sklearn_probabilistic_pca(digits):
    for k in (5, 30):
        ours, ref = PCA(k).fit(digits), SkPCA(k).fit(digits)
        assert ours.noise_variance_ == pytest.approx(ref.noise_variance_, rel=1e-8)
        np.testing.assert_allclose(ours.score_samples(digits), ref.score_samples(digits), rtol=1e-8)
        np.testing.assert_allclose(ours.get_covariance(), ref.get_covariance(), atol=1e-8)
        np.testing.assert_allclose(ours.get_precision() @ ours.get_covariance(), np.eye(64), atol=1e-6)


def test_whitening_changes_the_scores_not_the_density(digits):
    """Probabilistic PCA's density is one model of the data whether ``transform``
    whitens or not; scikit-learn multiplies the whitened components by the variances a
    second time in ``get_covariance`` (scikit-learn#13898), so only the unwhitened model is
    its reference."""
    plain, white = PCA(5).fit(digits), PCA(5, whiten=True).fit(digits)
    np.testing.assert_allclose(white.get_covariance(), plain.get_covariance(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(white.score_samples(digits), plain.score_samples(digits), rtol=1e-10)
    assert white.score(digits) == pytest.approx(SkPCA(5).fit(digits).score(digits), rel=1e-8)


def test_score_with_standardize_is_a_density_of_the_raw_data():
    X = low_rank(n=200, d=5, rank=5) * np.array([1, 10, 100, 1000, 0.1])
    pca = PCA(3, standardize=True).fit(X)
    C = pca.get_covariance()
    diff = X - pca.mean_
    _, logdet = np.linalg.slogdet(C)
    expected = -0.5 * (5 * np.log(2 * np.pi) + logdet + np.einsum("ij,jk,ik->i", diff, np.linalg.inv(C), diff))
    np.testing.assert_allclose(pca.score_samples(X), expected, rtol=1e-8)


def test_auto_rule_and_sklearn_solver_names():
    assert choose_solver(70000, 784, 50, False) == "covariance"
    assert choose_solver(2000, 50000, 50, False) == "gram"
    assert choose_solver(100000, 50000, 20, True) == "lanczos"
    assert choose_solver(50000, 20000, 10, False) == "randomized"
    assert PCA(3, svd_solver="arpack", random_state=0).fit(low_rank()).solver_ == "lanczos"
    assert PCA(3, svd_solver="full").fit(low_rank()).solver_ == "svd"


def test_incompatible_requests_raise_clear_errors():
    X = low_rank()
    with pytest.raises(ValueError, match="whole spectrum.*solver='randomized'"):
        PCA(0.9, solver="randomized").fit(X)
    with pytest.raises(ValueError, match="lanczos.*n_components < min"):
        PCA(40, solver="lanczos").fit(X)
    with pytest.raises(TypeError, match="sparse"):
        PCA(3, solver="svd").fit(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="'solver' parameter of PCA must be"):
        PCA(3, solver="qr").fit(X)
    with pytest.raises(ValueError, match="'n_components' parameter"):
        PCA(1.5).fit(X)


def test_power_iteration_max_iter_warns():
    X = low_rank()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        pca = PCA(3, solver="power", max_iter=2, tol=1e-14, random_state=0).fit(X)
    assert np.isfinite(pca.components_).all()


def test_partial_fit_defers_the_decomposition_and_fit_resets():
    X = low_rank()
    stream = PCA(4)
    for chunk in np.array_split(X, 5):
        stream.partial_fit(chunk)
    assert "components_" not in vars(stream)  # nothing decomposed yet
    batch = PCA(4, solver="covariance").fit(X)
    np.testing.assert_allclose(stream.transform(X), batch.transform(X), atol=1e-9)
    assert "components_" in vars(stream) and stream.n_samples_seen_ == 300
    stream.fit(X[:100])  # fit forgets the streamed moments ...
    assert stream.n_samples_seen_ == 100 and stream.solver_ == "covariance"
    stream.partial_fit(X[100:])  # ... and partial_fit continues from the covariance fit
    np.testing.assert_allclose(stream.explained_variance_, batch.explained_variance_, rtol=1e-10)
    with pytest.raises(ValueError, match="solver='svd', which keeps none"):
        PCA(3, solver="svd").fit(X).partial_fit(X)


def test_save_after_partial_fit_completes_the_model(tmp_path):
    X = low_rank()
    stream = PCA(3).partial_fit(X[:150]).partial_fit(X[150:])
    import lowdim

    lowdim.save(stream, tmp_path / "m.lowdim")
    np.testing.assert_array_equal(lowdim.load(tmp_path / "m.lowdim").transform(X), stream.transform(X))


@pytest.mark.parametrize("cls", ["PCA", "IncrementalPCA"])
def test_a_saved_stream_continues_after_loading_as_it_would_in_memory(tmp_path, cls):
    # the file held the components but not the running moments: partial_fit refused every
    # loaded model ("fitted with solver='covariance', which keeps none")
    import lowdim

    X = low_rank() * 3.0 + 50.0  # off the origin: a moment lost or mis-centred shows
    stream = getattr(lowdim, cls)(3).partial_fit(X[:120]).partial_fit(X[120:200])
    lowdim.save(stream, tmp_path / "m.lowdim")
    loaded = lowdim.load(tmp_path / "m.lowdim").partial_fit(X[200:])
    batch = PCA(3, solver="covariance").fit(X)
    assert loaded.n_samples_seen_ == 300
    np.testing.assert_allclose(loaded.explained_variance_, batch.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(loaded.mean_, batch.mean_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(loaded.components_ @ batch.components_.T), np.eye(3), atol=1e-8)
    assert getattr(loaded, "batch_size_", 100) == 100  # the last call's rows, as scikit-learn's
    lowdim.save(loaded, tmp_path / "again.lowdim")  # saved again after continuing: still resumable
    again = lowdim.load(tmp_path / "again.lowdim").partial_fit(X[:10])
    assert again.n_samples_seen_ == 310


def test_a_fit_of_one_array_saves_no_moments_and_says_so_when_continued(tmp_path):
    import lowdim

    X = low_rank()
    fitted = PCA(3, solver="covariance").fit(X)
    lowdim.save(fitted, tmp_path / "m.lowdim")
    loaded = lowdim.load(tmp_path / "m.lowdim")
    assert "running_scatter_" not in vars(loaded)  # d^2 numbers a transform never reads
    with pytest.raises(ValueError, match="loaded from a file without them.*partial_fit or from chunks"):
        loaded.partial_fit(X)


@pytest.mark.parametrize("cls", ["PCA", "IncrementalPCA"])
def test_a_saved_stream_of_few_wide_rows_keeps_its_rows_and_continues(tmp_path, cls):
    # fewer rows than half the columns: the file keeps the factor's rows, not the
    # columns' square; continued past half the columns, the scatter takes over
    import lowdim

    X = low_rank(n=60, d=100)
    stream = getattr(lowdim, cls)(3).partial_fit(X[:10]).partial_fit(X[10:20])
    loaded = lowdim.load(_saved(stream, tmp_path / "m.lowdim"))
    assert loaded.running_rows_.shape == (21, 100) and "running_scatter_" not in vars(loaded)  # 20 rows, 1 merge
    loaded.partial_fit(X[20:])
    batch = PCA(3, solver="svd").fit(X)
    np.testing.assert_allclose(loaded.explained_variance_, batch.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(loaded.mean_, batch.mean_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(loaded.components_ @ batch.components_.T), np.eye(3), atol=1e-8)
    again = lowdim.load(_saved(loaded, tmp_path / "again.lowdim"))
    assert again.running_scatter_.shape == (100, 100) and "running_rows_" not in vars(again)


def test_a_file_with_a_running_mean_alone_is_refused(tmp_path):
    import lowdim
    from lowdim.exceptions import UntrustedModelError

    model = lowdim.load(_saved(PCA(2).partial_fit(low_rank(n=10, d=40)), tmp_path / "m.lowdim"))
    del model.running_rows_
    with pytest.raises(UntrustedModelError, match="running_mean_ with running_scatter_ or with running_rows_"):
        lowdim.load(_saved(model, tmp_path / "bad.lowdim"))


def test_a_file_whose_running_scatter_is_not_a_scatter_is_refused(tmp_path):
    import lowdim
    from lowdim.exceptions import UntrustedModelError

    stream = PCA(2).partial_fit(low_rank())
    stream.partial_fit(low_rank()[:5])
    model = lowdim.load(_saved(stream, tmp_path / "m.lowdim"))
    model.running_scatter_[0, 1] += 1.0  # asymmetric
    with pytest.raises(UntrustedModelError, match="running_scatter_ is not a scatter"):
        lowdim.load(_saved(model, tmp_path / "bad.lowdim"))
    model.running_scatter_[0, 1] -= 1.0
    del model.n_samples_seen_  # moments of how many rows?
    with pytest.raises(UntrustedModelError, match="without the count of rows they sum"):
        lowdim.load(_saved(model, tmp_path / "uncounted.lowdim"))


def _saved(model, path):
    import lowdim

    lowdim.save(model, path)
    return path


@pytest.mark.parametrize("wide", [False, True])  # wide: the rows are kept as a factor
def test_partial_fit_rejects_bad_chunk_and_keeps_state(wide):
    X, first = (low_rank(n=40, d=100), 10) if wide else (low_rank(), 100)
    stream = PCA(3).partial_fit(X[:first])
    bad = X[first : 2 * first].copy()
    bad[5, 2] = np.nan
    with pytest.raises(ValueError, match="NaN at row 5, column 2"):
        stream.partial_fit(bad)
    stream.partial_fit(X[first:])
    np.testing.assert_allclose(stream.explained_variance_, PCA(3, solver="svd").fit(X).explained_variance_, rtol=1e-10)


def test_accumulator_modes_agree_near_and_far_from_origin():
    from lowdim.linalg import ScatterAccumulator

    rng = np.random.default_rng(0)
    for offset in (0.0, 1e6):
        X = (offset + rng.normal(size=(3000, 5))).astype(np.float32)
        acc = ScatterAccumulator(5)
        for chunk in np.array_split(X, 7):
            acc.update(chunk)
        ref = np.cov(X.astype(np.float64).T)
        np.testing.assert_allclose(acc.covariance(), ref, rtol=1e-5, atol=1e-6)
        assert acc.n == 3000 and acc._mode == ("centered" if offset > 0 else "raw")


@pytest.mark.parametrize("offset", [0.0, 1e6])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_accumulator_keeps_few_wide_rows_as_a_factor_with_the_same_moments(offset, dtype):
    # up to half as many rows as columns the rows are kept as a factor F (F^T F the
    # scatter); past that, or at a sparse block, its scatter is formed once and the
    # stream goes on: the moments are np.cov's all the way
    import scipy.sparse

    from lowdim.linalg import ScatterAccumulator

    rng = np.random.default_rng(1)
    X = (offset + rng.normal(size=(90, 100)) * np.linspace(1, 3, 100)).astype(dtype)
    wide = X.astype(np.float64) - offset  # exact: the reference has no rounding of the offset
    # each block's float64 mean carries about eps * offset, so a scatter entry of n rows
    # (deviations up to about 12) about n * 2 * 12 * eps * (offset + 12); blocks past the
    # factor go the float32 path for float32 data
    bound = 2 * 12 * np.finfo(np.float64).eps * (offset + 12)
    later = 1e-5 if dtype == np.float32 else 60 * bound
    acc = ScatterAccumulator(100)
    for start, stop in ((0, 7), (7, 20), (20, 30)):
        acc.update(X[start:stop])
        n, mean, F = acc.factor()
        assert n == stop and F.shape == (stop + (start > 0) + (start > 7), 100)
        np.testing.assert_allclose(mean - offset, wide[:stop].mean(axis=0), atol=4 * bound)
        np.testing.assert_allclose(F.T @ F, (stop - 1) * np.cov(wide[:stop].T), rtol=1e-12, atol=stop * bound)
    acc.update(X[30:60])  # 30 + 2 + 30 + 1 rows would pass 50
    assert acc.factor() is None
    np.testing.assert_allclose(acc.covariance(), np.cov(wide[:60].T), rtol=later, atol=later)
    sparse = ScatterAccumulator(100)
    sparse.update(X[:10])
    sparse.update(scipy.sparse.csr_matrix(X[10:20]))
    assert sparse.factor() is None
    np.testing.assert_allclose(sparse.covariance(), np.cov(wide[:20].T), rtol=later, atol=later)


def test_a_stream_of_wide_rows_never_builds_the_columns_square():
    # 120 rows of 4,000 columns: the 4,000^2 scatter (128 MB) is never allocated, and
    # the spectrum is the SVD's
    import tracemalloc

    from lowdim import IncrementalPCA

    X = np.random.default_rng(2).normal(size=(120, 4000)) * 0.999 ** np.arange(4000)
    tracemalloc.start()
    try:
        ours = IncrementalPCA(10, batch_size=40).fit(X)
        assert ours.components_.shape == (10, 4000)  # reading it runs the decomposition
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4000**2 * 8 / 8
    ref = PCA(10, solver="svd").fit(X)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(ours.components_ * ref.components_, axis=1)), 1.0, atol=1e-9)
    np.testing.assert_allclose(ours.var_, X.var(axis=0), rtol=1e-10)


def split_rows(d=64):
    """Rows of a d-column product big enough to be split across the cores."""
    from lowdim.linalg import _blas

    return int(2.5 * _blas.SPLIT_WORK / d**2)


def test_gram_of_columns_split_across_cores_equals_one_product(machine_threads):
    # from SPLIT_WORK multiply-adds per core on, the rows are cut into one block per core
    # and the single-threaded pieces added in float64: same numbers as one product
    from lowdim.linalg import _blas

    rng = np.random.default_rng(0)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        A = rng.normal(size=(split_rows(), 64)).astype(dtype)
        G = _blas.gram_of_columns(A)
        exact = A.astype(np.float64).T @ A.astype(np.float64)
        assert G.dtype == np.float64 and np.array_equal(G, G.T)
        np.testing.assert_allclose(G, exact, rtol=rtol, atol=rtol * np.abs(exact).max())
        np.testing.assert_array_equal(G, _blas.gram_of_columns(A))  # deterministic


def test_gram_of_columns_sums_columns_in_float64_on_one_blas_thread(monkeypatch, machine_threads):
    # the workers' column sums equal exact float64 sums for every layout and dtype, and
    # every product (split or not) runs under a one-thread BLAS limit, so no BLAS thread
    # is left spinning for the eigensolver that follows
    from lowdim.linalg import _blas

    limits = []
    real_limit = _blas.blas_limit
    monkeypatch.setattr(_blas, "blas_limit", lambda n: limits.append(n) or real_limit(n))
    rng = np.random.default_rng(1)
    base = rng.normal(size=(split_rows(), 64)) * 1e3 + 1e4
    # the last, 5 x 64, is below what starts a BLAS thread: it takes no limit (whose cost
    # was a third of a small table's PCA)
    for A in (base.astype(np.float32), base, np.asfortranarray(base), base[::2], base.astype(np.int64), base[:5]):
        G, sums = _blas.gram_of_columns(A, sums=True)
        exact = A.astype(np.float64)
        np.testing.assert_allclose(sums, exact.sum(axis=0), rtol=1e-12)
        assert sums.dtype == np.float64
        np.testing.assert_allclose(G, exact.T @ exact, rtol=2e-5 if A.dtype == np.float32 else 1e-12)
    assert limits == [1] * 5


def test_gram_of_columns_keeps_a_callers_blas_thread_limit(monkeypatch):
    # a caller who limits BLAS to one thread (threadpoolctl) gets no concurrent pieces
    from threadpoolctl import threadpool_limits

    from lowdim.linalg import _blas

    def no_pool(name):
        raise AssertionError("split across workers under a one-thread limit")

    monkeypatch.setattr(_blas, "worker_pool", no_pool)
    A = np.random.default_rng(0).normal(size=(split_rows(), 64))
    with threadpool_limits(1):
        G = _blas.gram_of_columns(A)
    np.testing.assert_allclose(G, A.T @ A, rtol=1e-12, atol=1e-9)


def test_add_gram_of_columns_adds_split_products_into_running_totals(machine_threads):
    from lowdim.linalg import _blas

    rng = np.random.default_rng(2)
    A = rng.normal(size=(split_rows(), 64)).astype(np.float32)
    gram, sums = rng.normal(size=(64, 64)), rng.normal(size=64)
    start = (gram.copy(), sums.copy())
    _blas.add_gram_of_columns(A, gram, sums, grouped=True)
    G, t = _blas.gram_of_columns(A, sums=True)
    np.testing.assert_allclose(gram, start[0] + G, rtol=1e-13, atol=1e-10)
    np.testing.assert_allclose(sums, start[1] + t, rtol=1e-6, atol=1e-3)
    small = A[:10].astype(np.float64)  # one piece, added in the caller's thread
    _blas.add_gram_of_columns(small, gram, sums)
    np.testing.assert_allclose(gram, start[0] + G + small.T @ small, rtol=1e-13, atol=1e-10)


@pytest.mark.parametrize("bad_row", [5, -5])  # in the first or the second worker's rows
def test_add_gram_of_columns_asks_before_adding(bad_row, machine_threads):
    from lowdim.linalg import _blas

    A = np.random.default_rng(3).normal(size=(split_rows(), 64))
    A[bad_row, 7] = np.nan
    gram, sums = np.ones((64, 64)), np.ones(64)
    seen = []

    def accept(column_sums, diagonal):
        seen.append((np.isfinite(column_sums).all(), np.isfinite(diagonal).all()))
        return False

    assert _blas.add_gram_of_columns(A, gram, sums, accept=accept) is False
    assert seen == [(False, False)]  # both pieces' sums and diagonals reached the check
    np.testing.assert_array_equal(gram, 1.0)  # untouched
    np.testing.assert_array_equal(sums, 1.0)
    A[bad_row, 7] = 0.0
    assert _blas.add_gram_of_columns(A, gram, sums, accept=lambda *_: True) is True
    np.testing.assert_allclose(gram, 1.0 + A.T @ A, rtol=1e-12, atol=1e-9)


def test_iterator_fit_refuses_a_solver_that_needs_the_array():
    with pytest.raises(ValueError, match="iterator of chunks.*solver='svd'"):
        PCA(2, solver="svd").fit(iter([low_rank()]))


def test_memmap_fit_shows_progress_when_verbose(tmp_path, capsys):
    X = low_rank(n=3000)
    np.save(tmp_path / "x.npy", X)
    mm = np.load(tmp_path / "x.npy", mmap_mode="r")
    pca = PCA(3, solver="covariance", verbose=1).fit(mm)
    assert "PCA pass" in capsys.readouterr().err
    np.testing.assert_allclose(
        pca.explained_variance_, PCA(3, solver="covariance").fit(X).explained_variance_, rtol=1e-10
    )


@pytest.mark.parametrize("solver", ["randomized", "power", "lanczos", "svd", "gram"])
def test_one_thread_equals_all_threads_per_solver(solver, machine_threads):
    from threadpoolctl import threadpool_limits

    X = low_rank(n=500, d=60)
    with threadpool_limits(limits=1):
        one = fit(solver, X, 5, random_state=3)
    every = fit(solver, X, 5, random_state=3)
    np.testing.assert_allclose(one.components_, every.components_, atol=1e-8)


@pytest.mark.parametrize("standardize", [False, True])
def test_lanczos_on_fewer_rows_than_columns_iterates_on_the_rows_side(monkeypatch, standardize):
    # the nonzero spectrum of Xc^T Xc is that of Xc Xc^T: Lanczos vectors of n entries,
    # not d, and the components from Xc^T u (sparse wide rows: 3x scikit-learn's time before)
    import scipy.sparse

    from lowdim.linalg import _operators

    sizes = []
    real = _operators.lanczos_eigh
    monkeypatch.setattr(_operators, "lanczos_eigh", lambda op, k, **kw: sizes.append(op.shape) or real(op, k, **kw))
    X = scipy.sparse.random(80, 500, density=0.05, random_state=3, format="csr") * 10 + scipy.sparse.eye(80, 500)
    ours = PCA(6, solver="lanczos", standardize=standardize, random_state=0).fit(X)
    assert sizes == [(80, 80)]
    ref = PCA(6, solver="svd", standardize=standardize).fit(X.toarray())
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(ours.components_ * ref.components_, axis=1)), 1.0, atol=1e-9)


def test_lanczos_falls_back_to_lobpcg_with_a_warning(monkeypatch):
    import scipy.sparse.linalg as spla

    def no_convergence(*args, **kwargs):
        raise spla.ArpackNoConvergence("forced", np.array([]), np.zeros((0, 0)))

    monkeypatch.setattr(spla, "eigsh", no_convergence)
    X = low_rank()
    with pytest.warns(ConvergenceWarning, match="falling back to LOBPCG"):
        pca = PCA(3, solver="lanczos", random_state=0).fit(X)
    ref = PCA(3, solver="svd").fit(X)
    np.testing.assert_allclose(pca.explained_variance_, ref.explained_variance_, rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=299), max_size=12, unique=True),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_any_chunking_equals_batch_fit(cuts, dtype):
    X = low_rank(dtype=dtype)
    stream = PCA(5)
    for chunk in np.split(X, sorted(cuts)):
        stream.partial_fit(chunk)
    batch = PCA(5, solver="covariance").fit(X)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(stream.explained_variance_, batch.explained_variance_, rtol=rtol)
    np.testing.assert_allclose(np.abs(stream.components_ @ batch.components_.T), np.eye(5), atol=100 * rtol)


def test_parallel_sparse_products_match_scipy_for_skewed_rows():
    from lowdim.linalg._sparse_products import ParallelCSR

    rng = np.random.default_rng(0)
    dense_rows = sp.random(5, 300, density=0.9, random_state=1)
    A = sp.vstack([dense_rows, sp.random(3000, 300, density=0.01, random_state=2)]).tocsr()
    for parts in (1, 2, 3, 7):
        P = ParallelCSR(A, parts=parts)
        v, B = rng.normal(size=300), rng.normal(size=(300, 4))
        np.testing.assert_array_equal(P.dot(v), A @ v)
        np.testing.assert_array_equal(P.dot(B), A @ B)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nystrom_final_step_is_at_least_as_accurate_as_rayleigh_ritz(dtype):
    from lowdim.linalg import subspace_iteration

    rng = np.random.default_rng(3)
    A = (rng.standard_normal((3000, 120)) / np.sqrt(np.arange(1, 121))).astype(dtype)
    M = A.T.astype(np.float64) @ A
    exact = np.linalg.eigvalsh(M)[::-1][:10]

    def run(nystrom):
        return subspace_iteration(
            lambda P: A.T @ (A @ P.astype(dtype)),
            120,
            dtype,
            15,
            10,
            n_iter=1,
            rng=np.random.default_rng(0),
            nystrom=nystrom,
        )

    w_ritz, _, _ = run(False)
    w, V, applications = run(True)
    assert applications == 2  # no extra product for the final step
    tol = 1e-4 if dtype == np.float32 else 1e-10
    # both are lower bounds of the eigenvalues; the Nystroem values are the larger ones
    assert np.all(w <= exact * (1 + tol)) and np.all(w >= w_ritz * (1 - tol))
    assert np.max(np.abs(w - exact) / exact) < 0.8 * np.max(np.abs(w_ritz - exact) / exact)
    np.testing.assert_allclose(V.T @ V, np.eye(10), atol=1e-10)
    rayleigh = np.einsum("ij,ij->j", V, M @ V)  # V holds eigenvectors of the approximation
    assert np.all(rayleigh >= w * (1 - tol))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_moments_numpy_and_numba_paths_agree_far_from_the_origin(dtype, monkeypatch):
    from lowdim.linalg import column_moments

    X = (1e4 + np.random.default_rng(2).normal(size=(3000, 7)) * [1, 2, 3, 4, 5, 6, 0]).astype(dtype)
    small = column_moments(X)
    monkeypatch.setattr("lowdim.linalg._moments.MOMENT_CHUNK", 7 * 128)  # 24 chunks, the last one short
    chunked = column_moments(X)
    monkeypatch.setattr("lowdim.linalg._moments.SMALL_MOMENTS", 0)
    large = column_moments(X)
    exact = X.astype(np.float64)
    for moments in small, chunked:
        np.testing.assert_allclose(moments[0], exact.mean(axis=0), rtol=1e-14)
        np.testing.assert_allclose(moments[1], exact.var(axis=0, ddof=1), rtol=1e-10, atol=1e-20)
    np.testing.assert_allclose(large[0], small[0], rtol=1e-14)
    np.testing.assert_allclose(large[1], small[1], rtol=1e-10, atol=1e-20)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shifted_copy_numpy_and_numba_paths_agree(dtype, monkeypatch):
    """The centred copy k-means iterates on: the same copy, and row norms summed in
    float64 from it, on both sides of ``SMALL_MOMENTS``."""
    from lowdim.linalg import shifted_copy_with_norms

    X = (1e4 + np.random.default_rng(3).normal(size=(3000, 7))).astype(dtype)
    shift = X.mean(axis=0)
    runs = []
    for small, chunk in ((1 << 24, 1 << 15), (1 << 24, 7 * 128), (0, 1 << 15)):
        monkeypatch.setattr("lowdim.linalg._moments.SMALL_MOMENTS", small)
        monkeypatch.setattr("lowdim.linalg._moments.MOMENT_CHUNK", chunk)  # 24 chunks, the last one short
        out, norms = np.empty_like(X), np.empty(X.shape[0])
        shifted_copy_with_norms(X, shift, out, norms)
        runs.append((out, norms))
    expected = X - shift
    for out, norms in runs:
        np.testing.assert_array_equal(out, expected)
        exact = np.einsum("ij,ij->i", expected.astype(np.float64), expected.astype(np.float64))
        np.testing.assert_allclose(norms, exact, rtol=8 * np.finfo(np.float64).eps * X.shape[1])


def test_mle_on_exactly_rank_deficient_data_finds_the_rank_without_warnings():
    import warnings

    x = np.random.default_rng(0).normal(size=(100, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PCA("mle").fit(np.hstack([x] * 10)).n_components_ == 1
        plane = np.random.default_rng(1).normal(size=(200, 3)) @ np.random.default_rng(2).normal(size=(3, 12))
        assert PCA("mle").fit(plane).n_components_ == 3 == SkPCA("mle").fit(plane).n_components_


@pytest.mark.parametrize("seed", range(4))
def test_mle_agrees_with_sklearn_on_noisy_spectra(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 10)) * np.geomspace(5, 0.2, 10) + 0.05 * rng.normal(size=(400, 10))
    assert PCA("mle").fit(X).n_components_ == SkPCA("mle").fit(X).n_components_


def test_mle_refuses_fewer_samples_than_features():
    X = np.random.default_rng(0).normal(size=(5, 10))
    with pytest.raises(ValueError, match="at least as many samples as features.*5 samples and 10 features"):
        PCA("mle").fit(X)
    with pytest.raises(ValueError, match="5 samples and 10 features"):
        select_n_components(X, "mle")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(3000, 60), (60, 3000)])
def test_randomized_explained_variance_is_the_variance_along_the_components(dtype, shape):
    rng = np.random.default_rng(0)
    X = (rng.normal(size=shape) * np.linspace(2, 1, shape[1])).astype(dtype)
    pca = PCA(3, solver="randomized", random_state=0).fit(X)
    scores = pca.transform(X).astype(np.float64)
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(pca.explained_variance_, scores.var(axis=0, ddof=1), rtol=rtol)
    assert np.all(np.diff(pca.explained_variance_) <= 0)


@pytest.mark.parametrize("solver", ["covariance", "gram", "svd", "randomized", "power", "lanczos"])
def test_n_components_none_and_zero_with_every_solver(solver):
    X = np.random.default_rng(0).normal(size=(50, 8))
    full = PCA(None, solver=solver, random_state=0).fit(X)
    reference = SkPCA(None, svd_solver="arpack" if solver == "lanczos" else "full").fit(X)
    assert full.n_components_ == reference.n_components_ == (7 if solver == "lanczos" else 8)
    np.testing.assert_allclose(full.explained_variance_, reference.explained_variance_, rtol=1e-6)
    none = PCA(0, solver=solver, random_state=0).fit(X)
    assert none.n_components_ == 0 and none.transform(X).shape == (50, 0)
    np.testing.assert_allclose(none.noise_variance_, SkPCA(0).fit(X).noise_variance_)


def test_incremental_pca_var_and_batch_size_as_sklearn():
    from sklearn.decomposition import IncrementalPCA as SkIncrementalPCA

    X = np.random.default_rng(0).normal(size=(100, 5)) * [1, 2, 3, 4, 5] + 3
    ours, theirs = IncrementalPCA(2, batch_size=30).fit(X), SkIncrementalPCA(2, batch_size=30).fit(X)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-12)
    assert ours.batch_size_ == theirs.batch_size_ == 30
    streamed = IncrementalPCA(2)
    for start in range(0, 100, 25):
        streamed.partial_fit(X[start : start + 25].tolist())
    np.testing.assert_allclose(streamed.var_, theirs.var_, rtol=1e-12)
    assert streamed.batch_size_ == 25


def test_incremental_pca_takes_sparse_batches_and_a_changed_n_components():
    """Two things scikit-learn's IncrementalPCA refuses and lowdim's exact running
    moments allow: sparse batches in partial_fit, and n_components changed between
    partial_fit calls (the model is refitted from all rows seen); too many components
    are refused in scikit-learn's words."""
    import scipy.sparse as sp

    X = np.random.default_rng(0).normal(size=(60, 6)) * [1, 2, 3, 4, 5, 6]
    streamed = IncrementalPCA(3)
    for start in range(0, 60, 20):
        streamed.partial_fit(sp.csr_matrix(X[start : start + 20]))
    full = PCA(3, solver="covariance").fit(X)
    np.testing.assert_allclose(streamed.explained_variance_, full.explained_variance_, rtol=1e-10)
    streamed.set_params(n_components=5)
    streamed.partial_fit(X[:20])
    both = np.r_[X, X[:20]]
    np.testing.assert_allclose(streamed.explained_variance_, PCA(5, solver="covariance").fit(both).explained_variance_)
    with pytest.raises(ValueError, match="n_components=7 invalid for n_features=6, need more rows than columns"):
        IncrementalPCA(7).fit(X)


@pytest.mark.parametrize("shape", [(100, 110), (110, 100)])
def test_randomized_components_are_orthonormal_when_not_converged(shape):
    """On a flat spectrum the randomized subspace is not the principal one, but its
    components are still orthonormal to rounding (wider data: from the SVD of
    Xc^T U, not Xc^T U / s), and low-rank data give exact singular values."""
    X = np.random.default_rng(0).normal(size=shape)
    pca = PCA(3, solver="randomized", random_state=0).fit(X)
    eps = np.finfo(np.float64).eps
    assert np.abs(pca.components_ @ pca.components_.T - np.eye(3)).max() < 100 * eps
    rank3 = (np.random.default_rng(1).normal(size=(shape[0], 3)) * [3.0, 2.0, 1.0]) @ pca.components_
    low = PCA(3, solver="randomized", random_state=0).fit(rank3)
    exact = np.linalg.svd(rank3 - rank3.mean(0), compute_uv=False)[:3]
    np.testing.assert_allclose(low.singular_values_, exact, rtol=1e-10)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_column_moments_of_a_sparse_matrix_far_from_zero_keep_their_digits(fmt, monkeypatch):
    # sum x^2 - n mean^2 gave 0 or 16 times the variance of a spread of 1e-2 about 1e6
    from lowdim.linalg import column_moments

    rng = np.random.default_rng(4)
    X = 1e6 + rng.normal(size=(1000, 5)) * 1e-2
    X[:500, 0] = 0.0  # a column half stored
    X[:, 4] = 0.0  # a column of zeros
    monkeypatch.setattr("lowdim.linalg._moments.SPARSE_CHUNK", 777)  # blocks cut across rows and columns
    mean, var = column_moments(sp.csr_matrix(X).asformat(fmt))
    np.testing.assert_allclose(mean, X.mean(axis=0), rtol=1000 * np.finfo(float).eps)  # sums of 1,000 in any order
    # two passes: the deviations' rounding, about 1e6 * 2^-53 each, relative to a spread of 1e-2
    np.testing.assert_allclose(var, X.var(axis=0, ddof=1), rtol=1e-6)
    # duplicate entries (a matrix not in canonical form) are summed before they are squared
    half = sp.coo_matrix(X / 2)
    rows, cols = np.r_[half.row, half.row], np.r_[half.col, half.col]
    twice = sp.coo_matrix((np.r_[half.data, half.data], (rows, cols)), X.shape)
    np.testing.assert_allclose(column_moments(twice.tocsr())[1], var, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_column_moments_from_the_sums_kernel_match_the_dense_ones(dtype, monkeypatch):
    # large CSR matrices sum their entries and squares in a kernel (no float64 copy); the
    # squares' cancellation check still sends a column far from zero to the two passes
    from lowdim.linalg import column_moments

    rng = np.random.default_rng(6)
    X = sp.random(400, 30, density=0.2, random_state=1, format="csr", dtype=np.float64)
    X.data = rng.poisson(3.0, X.nnz) + rng.uniform(size=X.nnz)
    X = X.astype(dtype)
    dense = X.toarray().astype(np.float64)
    quick = column_moments(X, ddof=0)
    monkeypatch.setattr("lowdim.linalg._moments.SPARSE_KERNEL_ENTRIES", 0)
    kernel = column_moments(X, ddof=0)
    for got in (quick, kernel):  # sums of 400 terms: a few hundred ulps at most
        np.testing.assert_allclose(got[0], dense.mean(axis=0), rtol=1000 * np.finfo(float).eps)
        np.testing.assert_allclose(got[1], dense.var(axis=0), rtol=1e-11)
    far = sp.csr_matrix(1e6 + rng.normal(size=(1000, 3)) * 1e-2)
    np.testing.assert_allclose(column_moments(far)[1], far.toarray().var(axis=0, ddof=1), rtol=1e-6)


def test_sparse_column_sums_do_not_depend_on_the_thread_count(machine_threads, monkeypatch):
    import numba

    from lowdim.linalg import column_moments

    X = sp.random(2000, 50, density=0.3, random_state=3, format="csr") * 1e3
    monkeypatch.setattr("lowdim.linalg._moments.SPARSE_KERNEL_ENTRIES", 0)
    monkeypatch.setattr("lowdim._kernels.moments.SUM_CHUNK", 997)  # 16 chunks, cut by their size alone
    shared = column_moments(X, ddof=0)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = column_moments(X, ddof=0)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(shared[0], alone[0])
    np.testing.assert_array_equal(shared[1], alone[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_scaling_by_the_kernel_is_the_numpy_scaling_bit_for_bit(dtype, monkeypatch):
    from lowdim import StandardScaler

    X = sp.random(300, 40, density=0.3, random_state=2, format="csr", dtype=dtype) * 50
    scaler = StandardScaler(with_mean=False).fit(X)
    plain, back = scaler.transform(X), scaler.inverse_transform(scaler.transform(X))
    monkeypatch.setattr("lowdim.linalg._moments.SPARSE_KERNEL_ENTRIES", 0)
    kernel = scaler.transform(X)
    assert kernel.dtype == dtype and np.array_equal(kernel.indices, X.indices)
    np.testing.assert_array_equal(kernel.data, plain.data)
    np.testing.assert_array_equal(scaler.inverse_transform(kernel).data, back.data)
    np.testing.assert_allclose(kernel.toarray().std(axis=0)[X.getnnz(axis=0) > 1], 1.0, rtol=1e-5)


def test_truncated_svd_of_sparse_data_far_from_zero_is_not_refused_as_underflow():
    rng = np.random.default_rng(5)
    X = 1e6 + rng.normal(size=(300, 6)) * 1e-2
    from lowdim import TruncatedSVD

    dense, sparse = TruncatedSVD(2).fit(X), TruncatedSVD(2).fit(sp.csr_matrix(X))
    assert np.all((sparse.explained_variance_ratio_ >= 0) & (sparse.explained_variance_ratio_ <= 1))
    np.testing.assert_allclose(sparse.explained_variance_ratio_, dense.explained_variance_ratio_, rtol=1e-6)


def test_incremental_pca_reads_a_frame_in_batches_under_its_column_names():
    # every batch is validated as the frame it came from: pandas (dense or sparse
    # columns) without "X does not have valid feature names", dask's without row slicing
    import warnings

    import dask.dataframe as dd
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    cols = list("abcde")
    ref = IncrementalPCA(2, batch_size=50).fit(X)
    S = sp.random(600, 5, density=0.4, random_state=0, format="csr")
    frames = [
        (pd.DataFrame(X, columns=cols), ref),
        (dd.from_pandas(pd.DataFrame(X, columns=cols), npartitions=3), ref),
        (pd.DataFrame.sparse.from_spmatrix(S, columns=cols), IncrementalPCA(2, batch_size=50).fit(S)),
    ]
    for frame, expected in frames:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            est = IncrementalPCA(2, batch_size=50).fit(frame)
        assert list(est.feature_names_in_) == cols
        np.testing.assert_allclose(est.components_, expected.components_, atol=1e-12)
