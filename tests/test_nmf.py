"""NMF and MatrixFactorization: monotone objectives, agreement with scikit-learn, masks."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.decomposition import NMF as SkNMF
from sklearn.decomposition._nmf import _initialize_nmf

from lowdim import NMF, MatrixFactorization, MiniBatchNMF
from lowdim.exceptions import ConvergenceWarning

CASES = [("cd", "frobenius"), ("mu", "frobenius"), ("mu", "kullback-leibler")]


def nonneg(n=300, d=40, k=5, seed=0):
    rng = np.random.default_rng(seed)
    return np.abs(rng.normal(size=(n, k))) @ np.abs(rng.normal(size=(k, d))) + 0.01 * rng.random((n, d))


@pytest.mark.parametrize("solver, beta", CASES)
def test_objective_never_increases_and_factors_stay_nonnegative(solver, beta):
    X = nonneg()
    model = NMF(5, solver=solver, beta_loss=beta, random_state=0, max_iter=300, tol=1e-6)
    W = model.fit_transform(X)
    assert np.all(np.diff(model.loss_history_) <= 1e-9 * model.loss_history_[0])
    assert (W >= 0).all() and (model.components_ >= 0).all()


@pytest.mark.parametrize("solver, beta", CASES)
def test_same_start_same_result_as_sklearn(solver, beta):
    X = nonneg()
    W0, H0 = _initialize_nmf(X, 5, init="nndsvda", random_state=0)
    ours = NMF(5, solver=solver, beta_loss=beta, max_iter=100, tol=0)
    ref = SkNMF(5, solver=solver, beta_loss=beta, max_iter=100, tol=0, init="custom")
    with pytest.warns(Warning):  # both reach max_iter with tol=0
        ours.fit_transform(X, W=W0.copy(), H=H0.copy())
        ref.fit_transform(X, W=W0.copy(), H=H0.copy())
    assert ours.reconstruction_err_ == pytest.approx(ref.reconstruction_err_, rel=1e-9)


def test_a_zeroed_component_comes_back_as_in_sklearn():
    """A zero row of H leaves its W column without a minimiser; coordinate descent keeps
    that column (instead of zeroing it), so the next H update revives the component."""
    rng = np.random.default_rng(0)
    X = nonneg(n=200, d=30, k=6)
    W0, H0 = np.abs(rng.normal(size=(200, 6))), np.abs(rng.normal(size=(6, 30)))
    H0[5] = 0.0  # as an H update leaves a component that others explain
    params = dict(n_components=6, init="custom", max_iter=60, tol=0)
    with pytest.warns(Warning):
        ours = NMF(**params).fit(X, W=W0.copy(), H=H0.copy())
        ref = SkNMF(**params).fit(X, W=W0.copy(), H=H0.copy())
    assert ours.components_[5].any()  # the component carries weight again
    assert ours.reconstruction_err_ == pytest.approx(ref.reconstruction_err_, rel=1e-9)
    assert ours.reconstruction_err_ < 0.9 * NMF(5, random_state=0, tol=0, max_iter=60).fit(X).reconstruction_err_


def test_float32_data_are_factorised_in_float32_unless_tol_asks_for_more():
    import tracemalloc

    X64 = nonneg(n=6000, d=200, k=8)
    X32 = X64.astype(np.float32)
    for X in (X32, X64):  # compile the kernels of both types before tracing (a cold cache)
        NMF(8, random_state=0, max_iter=2).fit(X)

    def peak(X, tol):
        tracemalloc.start()
        model = NMF(8, random_state=0, tol=tol).fit(X)
        size = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return size, model

    p32, m32 = peak(X32, 1e-4)
    p64, m64 = peak(X64, 1e-4)
    p_strict, _ = peak(X32, 1e-6)  # float32 cannot judge this tol: a float64 working copy
    assert p32 < 0.5 * X32.nbytes and p64 < 0.5 * X32.nbytes  # no copy of the data in either
    assert p_strict > 2 * X32.nbytes
    assert m32.components_.dtype == np.float32
    assert np.all(np.diff(m32.loss_history_) <= 1e-6 * m32.loss_history_[0])  # float32 rounding
    # the same number of steps from the same start: the float32 arithmetic follows the
    # float64 path (where each stops under tol depends on rounding, so a CPU's BLAS can
    # move the stopping point and with it the error by about 1 %)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        e32, e64 = (NMF(8, random_state=0, tol=1e-5, max_iter=40).fit(X).reconstruction_err_ for X in (X32, X64))
    assert e32 == pytest.approx(e64, rel=1e-3)


def test_l1_penalty_makes_sparser_factors():
    X = nonneg()
    plain = NMF(5, random_state=0, max_iter=400).fit(X)
    sparse = NMF(5, random_state=0, max_iter=400, alpha_W=0.01, l1_ratio=1.0).fit(X)
    assert np.mean(sparse.components_ == 0) > np.mean(plain.components_ == 0)


def test_transform_of_training_rows_is_close_to_the_fitted_w():
    X = nonneg()
    model = NMF(5, random_state=0, max_iter=1000, tol=1e-8)
    W = model.fit_transform(X)
    np.testing.assert_allclose(
        model.inverse_transform(model.transform(X)), model.inverse_transform(W), rtol=1e-3, atol=1e-3 * np.abs(X).max()
    )


def test_masked_entries_are_ignored_and_recovered():
    rng = np.random.default_rng(1)
    truth = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 30))
    hidden = rng.random(truth.shape) < 0.3
    X = np.where(hidden, np.nan, truth)
    mf = MatrixFactorization(4, random_state=0, max_iter=2000, tol=1e-12)
    W = mf.fit_transform(X)
    completed = W @ mf.components_
    assert np.abs(completed - truth)[hidden].max() < 1e-3 * np.abs(truth).max()
    assert np.all(np.diff(mf.loss_history_) <= 1e-9 * mf.loss_history_[0])
    # NMF with a mask: the fitted loss counts observed entries only, so it can reach ~0
    positive = np.abs(rng.normal(size=(200, 3))) @ np.abs(rng.normal(size=(3, 30)))
    masked = np.where(hidden, np.nan, positive)
    nmf = NMF(3, solver="mu", random_state=0, max_iter=3000, tol=1e-10).fit(masked)
    assert nmf.reconstruction_err_ < 0.05 * np.linalg.norm(positive[~hidden])


def test_clear_errors():
    X = nonneg()
    with pytest.raises(ValueError, match=r"Negative values in data passed to NMF.*row 0, column 0: -1.0\)"):
        NMF(2).fit(X - X[0, 0] - 1)  # the value as Python writes it, not numpy 2's np.float64(-1.0)
    bad = X.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN at row 3, column 4"):
        NMF(2, solver="cd").fit(bad)
    with pytest.raises(ValueError, match="kullback-leibler' needs solver='mu'"):
        NMF(2, beta_loss="kullback-leibler").fit(X)


@pytest.mark.parametrize("beta_loss", ["itakura-saito", 0.5, 1.5, 3.0, "kullback-leibler"])
def test_beta_divergences_from_a_custom_start_match_sklearn(beta_loss):
    from sklearn.decomposition import NMF as SkNMF
    from sklearn.decomposition._nmf import _beta_divergence

    rng = np.random.default_rng(0)
    X = rng.random((60, 12)) + 0.05
    W0, H0 = rng.random((60, 4)) + 0.1, rng.random((4, 12)) + 0.1
    params = dict(n_components=4, init="custom", solver="mu", beta_loss=beta_loss, max_iter=300, tol=0.0)
    W = NMF(**params).fit_transform(X, W=W0.copy(), H=H0.copy())
    ours = NMF(**params).fit(X, W=W0.copy(), H=H0.copy())
    theirs_W = SkNMF(**params).fit_transform(X, W=W0.copy(), H=H0.copy())
    beta = {"itakura-saito": 0.0, "kullback-leibler": 1.0}.get(beta_loss, beta_loss)
    ours_div = _beta_divergence(X, W, ours.components_, beta)
    theirs_div = _beta_divergence(X, theirs_W, SkNMF(**params).fit(X, W=W0.copy(), H=H0.copy()).components_, beta)
    assert ours_div <= theirs_div * (1 + 1e-6)
    assert np.all(np.diff(ours.loss_history_) <= 1e-9 * abs(ours.loss_history_[0]))  # never increases


def test_itakura_saito_refuses_zeros_and_cd_refuses_other_losses():
    X = np.random.default_rng(0).random((20, 5))
    X[0, 0] = 0.0
    with pytest.raises(ValueError, match="needs X without zeros"):
        NMF(2, solver="mu", beta_loss="itakura-saito").fit(X)
    with pytest.raises(ValueError, match="needs solver='mu'"):
        NMF(2, beta_loss=1.5).fit(X + 1)


def test_custom_auto_nndsvdar_shuffle_and_overcomplete():
    rng = np.random.default_rng(0)
    X = rng.random((40, 10))
    W0, H0 = rng.random((40, 3)), rng.random((3, 10))
    model = NMF(n_components="auto", init="custom", random_state=0).fit(X, W=W0, H=H0)
    assert model.n_components_ == 3
    with pytest.raises(ValueError, match="needs both W and H"):
        NMF(3, init="custom").fit(X)
    with pytest.raises(ValueError, match=r"H has shape \(2, 10\)"):
        NMF(3, init="custom").fit(X, W=W0, H=H0[:2])
    from lowdim.decomposition._nmf import nndsvd_init

    plain = nndsvd_init(X, 3, np.random.default_rng(0))
    filled = nndsvd_init(X, 3, np.random.default_rng(0), fill="random")
    for P, F in zip(plain, filled):  # NNDSVD's zeros become small random values, the rest is kept
        assert np.all(F > 0) and np.all(F[P == 0] < X.mean() / 10) and np.array_equal(F[P > 0], P[P > 0])
    NMF(3, init="nndsvdar", random_state=0).fit(X)
    a = NMF(3, shuffle=True, random_state=0).fit(X)
    b = NMF(3, shuffle=True, random_state=0).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)  # reproducible under a seed
    assert NMF(random_state=0, max_iter=20).fit(X[:5]).n_components_ == 10  # default: n_features (overcomplete)


def test_nndsvd_start_of_float32_data_has_no_nan():
    # a part of a singular vector that is all zeros stays zero: dividing it by a floor of
    # 1e-300, which is 0 in float32, made 0 / 0 (sparse float32 data: a float32 SVD)
    import scipy.sparse as sp

    from lowdim.decomposition._nmf import nndsvd_init

    X = sp.csr_matrix(np.abs(np.random.default_rng(0).normal(size=(40, 12))).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        W, H = nndsvd_init(X, 3, np.random.default_rng(0))
    assert np.isfinite(W).all() and np.isfinite(H).all()


@pytest.mark.parametrize("solver", ["cd", "mu"])
def test_non_negative_factorization_is_nmf_as_a_function(solver):
    """The function gives the estimator's W, H and iteration count for the same
    parameters; update_H=False keeps H and gives transform's W."""
    from lowdim.decomposition import non_negative_factorization

    X = np.abs(np.random.default_rng(0).normal(size=(40, 8)))
    W, H, n_iter = non_negative_factorization(X, n_components=3, solver=solver, init="random", random_state=1)
    model = NMF(3, solver=solver, init="random", random_state=1)
    np.testing.assert_array_equal(W, model.fit_transform(X))
    np.testing.assert_array_equal(H, model.components_)
    assert n_iter == model.n_iter_
    W2, H2, _ = non_negative_factorization(X, H=H, update_H=False, n_components=3, solver=solver)
    np.testing.assert_array_equal(H2, H)
    np.testing.assert_allclose(W2, model.transform(X), rtol=1e-12)
    with pytest.raises(ValueError, match="update_H=False solves W for a given H"):
        non_negative_factorization(X, update_H=False)


@pytest.mark.parametrize(
    "model",
    [
        NMF(6, random_state=0),
        NMF(6, solver="mu", beta_loss="kullback-leibler", random_state=0),
        MiniBatchNMF(6, random_state=0),
        MiniBatchNMF(6, beta_loss="kullback-leibler", random_state=0),
    ],
    ids=["nmf-cd", "nmf-mu-kl", "minibatch", "minibatch-kl"],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_a_rows_codes_do_not_depend_on_the_rows_passed_with_it(model, sparse):
    X = load_digits().data  # a batch-wide start and stop moved a row's codes by up to 0.6 %
    batch = sp.csr_matrix(X[600:700]) if sparse else X[600:700]

    def together_and_alone():
        with warnings.catch_warnings():  # short fits and tol=0 (below) reach max_iter
            warnings.simplefilter("ignore", ConvergenceWarning)
            return model.transform(batch)[:12], np.vstack([model.transform(batch[i : i + 1]) for i in range(12)])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = clone(model).fit(X[:600])
    together, alone = together_and_alone()
    # a row stops when it moved by at most tol (1e-4) of its norm over at most 10
    # updates: stopping an update sooner or later moves it by less than 10 times that
    scale = np.linalg.norm(together, axis=1, keepdims=True)
    assert (np.abs(alone - together) <= 1e-3 * scale + 1e-12).all()
    # with every row run the same number of updates, only rounding separates them
    model.set_params(tol=0.0, max_iter=30, **({"transform_max_iter": 30} if isinstance(model, MiniBatchNMF) else {}))
    together, alone = together_and_alone()
    np.testing.assert_allclose(alone, together, rtol=1e-9, atol=1e-12 * scale.max())


def test_matrix_factorization_names_the_components_its_penalty_shrank_to_zero():
    # the ridge optimum keeps each singular value minus alpha: data in small units (wine
    # standardised, times 1e-8) came back as columns of zeros without a word
    from sklearn.datasets import load_wine

    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0) * 1e-8
    with pytest.warns(UserWarning, match=r"alpha=1e-06 shrank 2 of 2 components to zero .* is 2.9e-07\)"):
        W = MatrixFactorization(2, random_state=0).fit_transform(X)
    assert np.abs(W).max() < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W = MatrixFactorization(2, alpha=1e-9, random_state=0).fit_transform(X)
    s = np.linalg.svd(X, compute_uv=False)[:2]
    np.testing.assert_allclose(np.linalg.norm(W, axis=0) ** 2, s - 1e-9, rtol=1e-3)  # ||W_j|| = ||H_j||
    rank_two = np.random.default_rng(0).normal(size=(100, 2)) @ np.random.default_rng(1).normal(size=(2, 8))
    with pytest.warns(UserWarning, match="shrank 2 of 4 components"):
        MatrixFactorization(4, random_state=0).fit(rank_two)
