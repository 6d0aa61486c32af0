"""Work in float32 where the data only carry float32: grouped column sums, sums of rows by group, and the
float32 eigensolver refined in float64 (linalg._blas.column_sums, linalg._eigen)."""

import warnings

import numpy as np
import pytest
import scipy.linalg

from lowdim import PCA
from lowdim.linalg import _blas, _eigen
from lowdim.linalg._eigen import refined_single_eigh, top_eigh

EPS32 = np.finfo(np.float32).eps


def float32_covariance(n=2000, d=120, seed=0, decay=0.97):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * decay ** np.arange(d)).astype(np.float32)
    X64 = X.astype(np.float64)
    return np.cov(X64.T)


def test_grouped_column_sums_are_within_float32_rounding_of_exact_sums():
    rng = np.random.default_rng(0)
    for n in (64, 1000, 2503):
        A = rng.normal(size=(n, 37)).astype(np.float32) + 0.5
        exact = A.astype(np.float64).sum(axis=0)
        grouped = _blas.column_sums(A, grouped=True)
        # each group of GROUP_ROWS rows is rounded at most (GROUP_ROWS - 1) times in float32
        bound = (_blas.GROUP_ROWS - 1) * EPS32 * np.abs(A).astype(np.float64).sum(axis=0)
        assert grouped.dtype == np.float64
        assert np.all(np.abs(grouped - exact) <= bound)
        assert not np.array_equal(grouped, A.sum(axis=0))  # not a plain float32 sum


def test_grouped_column_sums_fall_back_to_exact_sums_without_a_copy():
    rng = np.random.default_rng(1)
    base = rng.normal(size=(400, 9)).astype(np.float32)
    for A in (base[::2], np.asfortranarray(base), base[:40]):  # strided, column-major, short
        np.testing.assert_array_equal(_blas.column_sums(A, grouped=True), A.sum(axis=0, dtype=np.float64))
    f64 = rng.normal(size=(500, 4))
    np.testing.assert_allclose(_blas.column_sums(f64, grouped=True), f64.sum(axis=0), rtol=1e-14)


def test_streamed_moments_near_the_origin_keep_float32_accuracy():
    # after the first block (exact sums, decides the mode) the raw blocks use grouped sums
    rng = np.random.default_rng(2)
    X = (rng.normal(size=(30_000, 50)) * 2 + 3).astype(np.float32)
    pca = PCA(5)
    for start in range(0, X.shape[0], 5000):
        pca.partial_fit(X[start : start + 5000])
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(pca.mean_, X64.mean(axis=0), rtol=1e-6)
    exact = np.linalg.eigvalsh(np.cov(X64.T))[::-1][:5]
    np.testing.assert_allclose(pca.explained_variance_, exact, rtol=1e-5)


def drifting_stream(seed=6):
    # 5,000 rows near the origin, then 20,000 a thousand units away: the first block
    # alone would choose raw moments, which lose the unit-variance directions later
    rng = np.random.default_rng(seed)
    first = rng.normal(size=(5000, 20)).astype(np.float32)
    later = (rng.normal(size=(20000, 20)) + 1e3).astype(np.float32)
    return first, later


def test_a_stream_drifting_away_from_the_origin_is_centered_from_there_on():
    first, later = drifting_stream()
    pca = PCA(5)
    pca.partial_fit(first)
    assert pca._accumulator._mode == "raw"
    for start in range(0, later.shape[0], 5000):
        pca.partial_fit(later[start : start + 5000])
    assert pca._accumulator._mode == "centered"
    exact = np.linalg.eigvalsh(np.cov(np.vstack([first, later]).astype(np.float64).T))[::-1]
    # raw moments gave 1.35 against 1.05 for the second eigenvalue (30 % off)
    np.testing.assert_allclose(pca.explained_variance_, exact[:5], rtol=1e-6)
    np.testing.assert_allclose(pca.noise_variance_, exact[5:].mean(), rtol=1e-6)


def test_a_few_rows_far_from_the_origin_are_centered_alone():
    # a block of fewer than DECIDING_ROWS rows decides only for itself
    from lowdim.linalg import ScatterAccumulator
    from lowdim.linalg._moments import DECIDING_ROWS

    first, later = drifting_stream()
    acc = ScatterAccumulator(20)
    acc.update(first)
    few = later[: DECIDING_ROWS - 1]
    acc.update(few)
    assert acc._mode == "raw" and acc._n == few.shape[0]  # centred alone, raw mode kept
    acc.update(first[:1000])
    both = np.vstack([first, few, first[:1000]]).astype(np.float64)
    np.testing.assert_allclose(acc.covariance(), np.cov(both.T), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k", [1, 5, 40, 60])
def test_refined_single_eigh_gives_float64_eigenvalues_and_orthonormal_vectors(k):
    C = float32_covariance()
    d = C.shape[0]
    w_ref, V_ref = scipy.linalg.eigh(C, subset_by_index=[d - k, d - 1])
    w_ref, V_ref = w_ref[::-1], V_ref[:, ::-1]
    w, V = refined_single_eigh(C, k)
    assert w.shape == (k,) and V.shape == (d, k) and V.flags.c_contiguous
    np.testing.assert_allclose(w, w_ref, rtol=1e-10)  # quadratic in the float32 subspace error
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-12)
    # each vector spans the same line as float64 LAPACK's, to float32 accuracy
    cosines = np.abs(np.sum(V * V_ref, axis=0))
    assert cosines.min() > 1 - 1e-8
    assert np.all(np.diff(w) <= 0)


def test_refined_single_eigh_works_outside_float32_range_and_reads_only_the_upper_triangle():
    C = float32_covariance(d=60)
    d = C.shape[0]
    w_ref = scipy.linalg.eigvalsh(C)[::-1][:8]
    for scale in (1e60, 1e-60):  # squares of float32 data would not fit; the matrix may
        w, V = refined_single_eigh(np.triu(C * scale) + np.tril(np.full((d, d), np.nan), -1), 8)
        np.testing.assert_allclose(w / scale, w_ref, rtol=1e-10)
        assert np.isfinite(V).all()


def test_refined_single_eigh_on_small_matrices():
    w, V = refined_single_eigh(np.diag([2.0, 1.0]), 1)  # subspace clipped at the size
    np.testing.assert_allclose(w, [2.0])
    np.testing.assert_allclose(np.abs(V[:, 0]), [1.0, 0.0])


def rotated(spectrum, seed=5):
    Q = np.linalg.qr(np.random.default_rng(seed).normal(size=(spectrum.size, spectrum.size)))[0]
    return (Q * spectrum) @ Q.T


@pytest.mark.parametrize(
    "spectrum",
    [
        np.r_[1e6, np.linspace(1.0, 0.5, 99)],  # one direction far above the rest (drifting data)
        np.r_[np.linspace(3.0, 1.0, 3), np.zeros(97)],  # rank 3: zero eigenvalues among the top 10
    ],
)
def test_float32_subspace_too_coarse_falls_back_to_float64(spectrum):
    C = rotated(spectrum)
    assert refined_single_eigh(C, 10) is None  # residuals above REFINE_RTOL * eigenvalue
    w, V = top_eigh(C, 10, precision=np.float32)
    w64, V64 = top_eigh(C, 10)
    np.testing.assert_array_equal(w, w64)
    np.testing.assert_array_equal(V, V64)
    np.testing.assert_allclose(w, spectrum[:10], rtol=1e-9, atol=1e-9)


def test_accepted_float32_subspaces_have_small_residuals():
    for spectrum in (np.logspace(0, -2, 100), np.linspace(5.0, 1.0, 100)):
        C = rotated(spectrum)
        w, V = refined_single_eigh(C, 20)
        residuals = np.linalg.norm(C @ V - V * w, axis=0)
        assert np.all(residuals <= _eigen.REFINE_RTOL * w)
        np.testing.assert_allclose(w, spectrum[:20], rtol=1e-10)


def record_eigh_dtypes(monkeypatch):
    seen = []
    real = scipy.linalg.eigh

    def recording(a, *args, **kwargs):
        seen.append((np.asarray(a).dtype, np.asarray(a).shape[0]))
        return real(a, *args, **kwargs)

    monkeypatch.setattr(_eigen.scipy.linalg, "eigh", recording)
    return seen


@pytest.mark.parametrize("solver", ["covariance", "gram"])
def test_float32_data_take_the_single_precision_eigensolver_and_keep_the_spectrum(monkeypatch, solver):
    rng = np.random.default_rng(4)
    n, d = (3000, 200) if solver == "covariance" else (150, 400)
    X = (rng.normal(size=(n, d)) * 0.98 ** np.arange(d) + 1.0).astype(np.float32)
    seen = record_eigh_dtypes(monkeypatch)
    ours = PCA(10, solver=solver).fit(X)
    size = d if solver == "covariance" else n
    # the subspace in float32 (10 + 10 vectors), then a 20 x 20 problem in float64
    assert seen == [(np.dtype(np.float32), size), (np.dtype(np.float64), 20)]
    seen.clear()
    ref = PCA(10, solver=solver).fit(X.astype(np.float64))
    assert seen == [(np.dtype(np.float64), size)]
    # the float64 model of the same float32 numbers: eigenvalues to float32 rounding
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-5)
    overlap = np.abs(np.sum(ours.components_.astype(np.float64) * ref.components_, axis=1))
    assert overlap.min() > 1 - 1e-6


def test_float64_data_and_whole_spectra_stay_in_float64(monkeypatch):
    seen = record_eigh_dtypes(monkeypatch)
    C = float32_covariance(d=40)
    top_eigh(C, 5)
    top_eigh(C, 30, precision=np.float32)  # more than half the spectrum: divide and conquer
    top_eigh(C, None, precision=np.float32)
    assert seen and all(dt == np.float64 for dt, _ in seen)


def test_top_eigh_keeps_a_tight_cluster_of_equal_top_eigenvalues():
    # LAPACK's bisection (dsyevx) can return no eigenvalue at all when the top one has a
    # high multiplicity (an MCA of many single-row categories: 1 repeated ~100 times);
    # top_eigh must still return k pairs, from the full driver
    from lowdim.linalg import top_eigh

    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.normal(size=(150, 150)))
    for w in (np.r_[np.ones(100), np.linspace(0.0, 0.5, 50)], np.r_[np.ones(149), 0.0]):
        C = (Q * w) @ Q.T
        values, vectors = top_eigh(C, 2)
        np.testing.assert_allclose(values, [1.0, 1.0], atol=1e-12)
        np.testing.assert_allclose(C @ vectors, vectors * values, atol=1e-10)
    # the case that met it: MCA of the iris measurements read as categories (377 levels
    # with one row each), which returned no dimension at all
    from sklearn.datasets import load_iris

    import lowdim

    X = np.round(load_iris().data + 0.01 * np.arange(150)[:, None], 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rare categories are warned about
        assert lowdim.MCA(2).fit_transform(X).shape == (150, 2)


def test_group_sums_of_float32_rows_are_taken_a_few_columns_at_a_time(monkeypatch):
    # float32 rows are copied to float64 some columns at a time, never whole (scipy's
    # product would copy them all first): the sums of their float64 copy, to the bit,
    # whatever the number of pieces (here 5 columns each, the last 2)
    import lowdim.linalg._sparse_products as products
    from lowdim.linalg import group_row_sums

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 37)).astype(np.float32)
    labels, weights = rng.integers(0, 4, 50), rng.uniform(0.5, 2.0, 50)
    whole_sums, whole_totals = group_row_sums(X.astype(np.float64), labels, 4, weights)
    monkeypatch.setattr(products, "COPY_BYTES", 8 * 50 * 5)
    sums, totals = group_row_sums(X, labels, 4, weights)
    np.testing.assert_array_equal(sums, whole_sums)
    np.testing.assert_array_equal(totals, whole_totals)
    expected = np.zeros((4, 37))
    np.add.at(expected, labels, weights[:, None] * X.astype(np.float64))
    np.testing.assert_allclose(sums, expected, rtol=1e-12, atol=1e-12)


def _scatter_of_rows(n, d, seed=5):
    """The centred scatter of n rows of d columns (rank n - 1), a decaying spectrum."""
    X = np.random.default_rng(seed).normal(size=(n, d)) * 0.97 ** np.arange(d)
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc


@pytest.mark.parametrize("k", [1, 5, 29])
def test_a_scatter_of_few_rows_is_solved_on_its_range(monkeypatch, k):
    C = _scatter_of_rows(30, 400)
    d = C.shape[0]
    w_ref, V_ref = scipy.linalg.eigh(C, subset_by_index=[d - k, d - 1])
    w_ref, V_ref = w_ref[::-1], V_ref[:, ::-1]
    seen = record_eigh_dtypes(monkeypatch)
    upper = np.triu(C) + np.tril(np.full((d, d), np.nan), -1)  # only the upper triangle is read
    w, V = top_eigh(upper, k, rank=29)
    assert max(size for _, size in seen) == 29 + _eigen.RANGE_EXTRA  # no reduction of the 400 x 400 matrix
    # backward stable: eigenvalues within d eps ||C||, vectors within that over the gap
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=d * np.finfo(float).eps * w_ref[0])
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-12)
    gaps = np.abs(np.diff(scipy.linalg.eigvalsh(C)[::-1][: k + 1]))
    assert (1 - np.abs(np.sum(V * V_ref, axis=0)) <= (d * np.finfo(float).eps * w_ref[0] / gaps) ** 2 + 1e-12).all()


def test_a_rank_bound_that_is_not_one_falls_back_to_lapack():
    C = _scatter_of_rows(100, 400) + np.eye(400)  # full rank, a flat tail
    w, V = top_eigh(C, 3, rank=5)
    np.testing.assert_allclose(w, scipy.linalg.eigvalsh(C)[::-1][:3], rtol=1e-12)
    np.testing.assert_allclose(C @ V, V * w, atol=1e-9 * w[0])


@pytest.mark.parametrize("sparse", [False, True])
def test_incremental_pca_of_wide_rows_equals_the_svd_without_a_whole_eigenproblem(monkeypatch, sparse):
    # dense rows are kept as a factor (the Gram of its rows is solved); sparse ones
    # build the scatter, solved on its range (rank 59) instead of whole
    import scipy.sparse

    from lowdim import IncrementalPCA

    X = np.random.default_rng(6).normal(size=(60, 1000)) * 0.99 ** np.arange(1000)
    seen = record_eigh_dtypes(monkeypatch)
    ours = IncrementalPCA(5, batch_size=25).fit(scipy.sparse.csr_matrix(X) if sparse else X)
    assert max(size for _, size in seen) < 100  # the 1000 x 1000 scatter is never reduced
    ref = PCA(5, solver="svd").fit(X)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(ours.components_ * ref.components_, axis=1)), 1.0, atol=1e-9)
    assert ours.noise_variance_ == pytest.approx(ref.noise_variance_, rel=1e-10)
