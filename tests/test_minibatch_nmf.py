"""MiniBatchNMF: the online update reduces to NMF's multiplicative update, streams,
survives a model file between batches, and factorises as well as scikit-learn's."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import MiniBatchNMF as SkMiniBatchNMF

from lowdim import NMF, MiniBatchNMF
from lowdim.exceptions import ConvergenceWarning
from lowdim.io import load, save


def nonneg(n=600, d=40, k=5, seed=0):
    rng = np.random.default_rng(seed)
    return np.abs(rng.normal(size=(n, k))) @ np.abs(rng.normal(size=(k, d))) + 0.01 * rng.random((n, d))


def _start(X, k=5, seed=1):
    rng = np.random.default_rng(seed)
    return rng.random((X.shape[0], k)) + 0.1, rng.random((k, X.shape[1])) + 0.1


@pytest.mark.parametrize("beta", ["frobenius", "kullback-leibler", "itakura-saito"])
def test_one_batch_without_memory_is_nmf_multiplicative_update(beta):
    # forget_factor=0 keeps only the current batch's halves, and one batch is all rows:
    # each step is then NMF's 'mu' iteration (W, then H), up to the order of one product
    X = nonneg()
    W0, H0 = _start(X)
    online = MiniBatchNMF(5, init="custom", batch_size=len(X), forget_factor=0.0, beta_loss=beta, tol=0)
    online.set_params(max_iter=40, max_no_improvement=None, alpha_W=1e-3, l1_ratio=0.5)
    online.fit(X, W=W0.copy(), H=H0.copy())
    batch = NMF(5, init="custom", solver="mu", beta_loss=beta, tol=0, max_iter=40, alpha_W=1e-3, l1_ratio=0.5)
    batch.fit(X, W=W0.copy(), H=H0.copy())
    np.testing.assert_allclose(online.components_, batch.components_, rtol=1e-9, atol=1e-12)
    assert online.n_steps_ == 40 and online.n_iter_ == 40


def test_low_rank_data_are_recovered_and_factors_stay_nonnegative():
    X = nonneg(n=2000)
    # multiplicative updates converge slowly: 300 passes reach about what 300 iterations of
    # the batch update reach (2.5 % here), far below the 30 % of the best rank-1 fit
    model = MiniBatchNMF(5, batch_size=200, random_state=0, max_iter=300, tol=0, max_no_improvement=None)
    W = model.fit_transform(X)
    relative = np.linalg.norm(X - W @ model.components_) / np.linalg.norm(X)
    assert relative < 0.045
    assert model.reconstruction_err_ == pytest.approx(np.linalg.norm(X - W @ model.components_), rel=1e-9)
    assert (W >= 0).all() and (model.components_ >= 0).all()
    assert model.n_iter_ == int(np.ceil(model.n_steps_ / 10))


@pytest.mark.parametrize("beta", ["frobenius", "kullback-leibler"])
def test_error_no_higher_than_scikit_learn_from_the_same_start(beta):
    X = nonneg(n=3000, d=60, k=8, seed=3)
    W0, H0 = _start(X, k=8)
    params = dict(init="custom", batch_size=256, beta_loss=beta, max_iter=100, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = MiniBatchNMF(8, **params).fit(X, W=W0.copy(), H=H0.copy())
        theirs = SkMiniBatchNMF(8, **params).fit(X, W=W0.copy(), H=H0.copy())
    assert ours.reconstruction_err_ <= 1.005 * theirs.reconstruction_err_


def test_sparse_input_gives_the_dense_result():
    X = nonneg()
    X[X < np.quantile(X, 0.3)] = 0.0
    W0, H0 = _start(X)
    params = dict(init="custom", batch_size=100, max_iter=20, tol=0, max_no_improvement=None)
    for beta in ("frobenius", "kullback-leibler"):
        dense = MiniBatchNMF(5, beta_loss=beta, **params).fit(X, W=W0.copy(), H=H0.copy())
        sparse = MiniBatchNMF(5, beta_loss=beta, **params).fit(sp.csr_matrix(X), W=W0.copy(), H=H0.copy())
        np.testing.assert_allclose(sparse.components_, dense.components_, rtol=1e-7)


def test_missing_entries_are_left_out_and_recovered():
    X = nonneg(n=1500)
    rng = np.random.default_rng(5)
    holes = rng.random(X.shape) < 0.1
    Xm = np.where(holes, np.nan, X)
    model = MiniBatchNMF(5, batch_size=250, random_state=0, max_iter=300)
    W = model.fit_transform(Xm)
    filled = (W @ model.components_)[holes]
    assert np.linalg.norm(filled - X[holes]) / np.linalg.norm(X[holes]) < 0.06


def test_partial_fit_streams_and_a_saved_model_goes_on_identically(tmp_path):
    X = nonneg(n=3000)
    batches = np.array_split(X, 30)
    streamed = MiniBatchNMF(5, random_state=0)
    for _ in range(10):
        for part in batches:
            streamed.partial_fit(part)
    assert streamed.n_steps_ == 300
    relative = np.linalg.norm(X - streamed.transform(X) @ streamed.components_) / np.linalg.norm(X)
    assert relative < 0.04

    first = MiniBatchNMF(5, random_state=0)
    for part in batches[:10]:
        first.partial_fit(part)
    save(first, tmp_path / "m.lowdim")
    loaded = load(tmp_path / "m.lowdim")
    for part in batches[10:]:
        first.partial_fit(part)
        loaded.partial_fit(part)
    np.testing.assert_array_equal(loaded.components_, first.components_)


def test_stopping_rules_and_warning():
    X = nonneg(n=2000)
    quick = MiniBatchNMF(5, batch_size=100, random_state=0, max_no_improvement=2, tol=0).fit(X)
    slow = MiniBatchNMF(5, batch_size=100, random_state=0, max_no_improvement=None, tol=0, max_iter=10).fit(X)
    assert quick.n_steps_ < slow.n_steps_ == 200
    with pytest.warns(ConvergenceWarning, match="Maximum number of iterations 2 reached"):
        MiniBatchNMF(5, batch_size=100, random_state=0, max_no_improvement=None, tol=1e-12, max_iter=2).fit(X)


def test_bad_input_is_named():
    X = nonneg()
    with pytest.raises(ValueError, match="Negative values.*row 0, column 0"):
        MiniBatchNMF(2).fit(np.vstack([-X[:1], X]))
    with pytest.raises(ValueError, match="forget_factor"):
        MiniBatchNMF(2, forget_factor=1.5).fit(X)
    with pytest.raises(ValueError, match="without zeros"):
        MiniBatchNMF(2, beta_loss="itakura-saito").fit(np.vstack([np.zeros((1, X.shape[1])), X]))


def test_a_batch_that_does_not_move_h_does_not_end_the_fit():
    """Rows of zeros leave H where it is; the fit stops only when every batch of a pass
    moved H by less than tol, so data with many zero rows are still factorised (an
    exact rank-5 product is recovered, as scikit-learn's test_nmf_true_reconstruction)."""
    rng = np.random.RandomState(42)
    W_true = np.zeros((15, 5))
    W_true[np.arange(5), np.arange(5)] = np.abs(rng.randn(5))
    H_true = np.zeros((5, 10))
    H_true[np.arange(10) % 5, np.arange(10)] = np.abs(rng.randn(5))[np.arange(10) % 5]
    X = W_true @ H_true  # rows 5..14 are zero
    model = MiniBatchNMF(5, beta_loss="kullback-leibler", batch_size=3, max_iter=1000, random_state=0)
    model.fit(X)
    assert model.n_steps_ > 5  # more than one pass
    assert model.reconstruction_err_ < 0.1 * np.linalg.norm(X)


def test_fresh_restarts_fit_transform_is_fit_then_transform():
    X = np.abs(np.random.default_rng(42).normal(size=(30, 5)))
    model = MiniBatchNMF(3, random_state=0, tol=1e-3, fresh_restarts=True)
    np.testing.assert_array_equal(model.fit_transform(X), model.transform(X))


def test_a_custom_start_is_read_never_written():
    """scikit-learn's MiniBatchNMF updates the caller's H in place and keeps it as
    components_, so two models started from one H share (and overwrite) their components;
    lowdim copies the start."""
    X = nonneg(n=200)
    rng = np.random.default_rng(3)
    W0, H0 = rng.random((len(X), 4)), rng.random((4, X.shape[1]))
    W_kept, H_kept = W0.copy(), H0.copy()
    first = MiniBatchNMF(4, init="custom", batch_size=20, max_iter=2, tol=0).fit(X, W=W0, H=H0)
    second = MiniBatchNMF(4, init="custom")
    second.partial_fit(X[:20], W=W0[:20], H=H0)
    np.testing.assert_array_equal(W0, W_kept)
    np.testing.assert_array_equal(H0, H_kept)
    assert first.components_ is not second.components_
    assert not np.shares_memory(first.components_, H0)


def test_a_stream_of_single_rows_is_learnt_without_a_word():
    """partial_fit on one row at a time (online learning): the first call refused one row
    ("needs at least 2 samples to estimate variance", which NMF does not)."""
    X = np.abs(np.random.default_rng(0).normal(size=(100, 6)))
    model, reference = MiniBatchNMF(2, random_state=0), SkMiniBatchNMF(2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.partial_fit(X[:1])
        first = np.linalg.norm(X - model.transform(X) @ model.components_)
        for i in range(1, 100):
            model.partial_fit(X[i : i + 1])
    for i in range(100):
        reference.partial_fit(X[i : i + 1])
    error = np.linalg.norm(X - model.transform(X) @ model.components_)
    assert model.n_steps_ == 100 and np.all(model.components_ >= 0)
    assert error < first  # the stream taught it something
    assert error <= 1.25 * np.linalg.norm(X - reference.transform(X) @ reference.components_)
