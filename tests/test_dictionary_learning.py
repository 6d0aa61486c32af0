"""Sparse coding, dictionary learning and sparse PCA: the codes solve their problems
(optimality conditions), agree with scikit-learn's, and the learners recover a
dictionary that generated the data."""

import warnings

import numpy as np
import pytest
from sklearn.decomposition import DictionaryLearning as SkDictionaryLearning
from sklearn.decomposition import SparsePCA as SkSparsePCA
from sklearn.decomposition import sparse_encode as sk_sparse_encode

from lowdim import DictionaryLearning, MiniBatchDictionaryLearning, MiniBatchSparsePCA, SparseCoder, SparsePCA
from lowdim.decomposition import sparse_encode
from lowdim.io import load, save


def atoms(k=12, d=20, seed=0):
    D = np.random.default_rng(seed).normal(size=(k, d))
    return D / np.linalg.norm(D, axis=1, keepdims=True)


def sparse_rows(D, n=400, per_row=3, seed=1, noise=0.0):
    rng = np.random.default_rng(seed)
    codes = np.zeros((n, D.shape[0]))
    for i in range(n):
        chosen = rng.choice(D.shape[0], per_row, replace=False)
        codes[i, chosen] = rng.choice([-1, 1], per_row) * rng.uniform(1.0, 3.0, per_row)
    return codes @ D + noise * rng.normal(size=(n, D.shape[1])), codes


@pytest.mark.parametrize("positive", [False, True])
def test_lasso_codes_satisfy_the_optimality_conditions(positive):
    # the lasso minimiser c of 0.5||x - cD||^2 + alpha|c|_1 has |corr| <= alpha where c = 0
    # and corr = alpha sign(c) where not (corr = D (x - cD)); lars and cd find the same one
    D = atoms()
    X, _ = sparse_rows(D, n=50, noise=0.05)
    alpha = 0.3
    lars = sparse_encode(X, D, algorithm="lasso_lars", alpha=alpha, positive=positive)
    cd = sparse_encode(X, D, algorithm="lasso_cd", alpha=alpha, positive=positive)
    for codes, slack in ((lars, 1e-9), (cd, 1e-4)):
        corr = (X - codes @ D) @ D.T
        zero = codes == 0
        if positive:
            assert np.all(codes >= 0) and np.all(corr[zero] <= alpha + slack)
        else:
            assert np.all(np.abs(corr[zero]) <= alpha + slack)
        np.testing.assert_allclose(corr[~zero], alpha * np.sign(codes[~zero]), atol=slack)
    np.testing.assert_allclose(cd, lars, atol=1e-4)


@pytest.mark.parametrize("algorithm", ["lasso_lars", "lasso_cd", "omp", "threshold"])
def test_codes_equal_scikit_learns(algorithm):
    D = atoms()
    X, _ = sparse_rows(D, n=60, noise=0.05)
    ours = sparse_encode(X, D, algorithm=algorithm, alpha=0.2, n_nonzero_coefs=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sk_sparse_encode(X, D, algorithm=algorithm, alpha=0.2, n_nonzero_coefs=4)
    # coordinate descent stops at a tolerance (both libraries): as close as the first test finds it to lars
    np.testing.assert_allclose(ours, theirs, atol=1e-4 if algorithm == "lasso_cd" else 1e-9)


@pytest.mark.parametrize("algorithm", ["lasso_lars", "lars", "lasso_cd", "omp"])
def test_a_rows_code_does_not_depend_on_the_rows_coded_beside_it(algorithm, monkeypatch):
    # rows share a range's scratch and ranges run on threads: each row's code as if coded alone
    # (from the same products: BLAS rounds one row's product apart from a block's)
    import lowdim._kernels.sparse_coding as kernels
    from lowdim.decomposition._sparse_coding import encode_from_products

    monkeypatch.setattr(kernels, "ROWS", 3)
    D = atoms()
    X, _ = sparse_rows(D, n=40, noise=0.05)
    G, C = D @ D.T, X @ D.T
    together = encode_from_products(G, C, algorithm, 0.2, 4, False)
    alone = np.vstack([encode_from_products(G, C[i : i + 1], algorithm, 0.2, 4, False) for i in range(len(C))])
    np.testing.assert_array_equal(together, alone)
    assert np.count_nonzero(together, axis=1).min() > 0


def test_pursuits_recover_an_exactly_sparse_code():
    D = atoms(k=30, d=60)
    X, codes = sparse_rows(D, n=40, per_row=3)
    for algorithm in ("omp", "lars"):
        found = sparse_encode(X, D, algorithm=algorithm, n_nonzero_coefs=3)
        np.testing.assert_allclose(found, codes, atol=1e-9)
    assert np.count_nonzero(sparse_encode(X, D, algorithm="lars", n_nonzero_coefs=5), axis=1).max() <= 5


def test_coder_threshold_split_sign_and_refusals():
    D = np.eye(3)
    coder = SparseCoder(D, transform_algorithm="threshold", transform_alpha=1.0, split_sign=True)
    np.testing.assert_array_equal(coder.transform(np.array([[3.0, 0.5, -2.0]])), [[2.0, 0.0, 0.0, 0.0, 0.0, 1.0]])
    assert coder.get_feature_names_out().size == 6
    with pytest.raises(ValueError, match="Positive constraint not supported for 'omp'"):
        SparseCoder(D, positive_code=True).transform(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"the dictionary has shape \(3, 3\); X has 2 features"):
        SparseCoder(D).fit(np.ones((2, 2)))


@pytest.mark.parametrize(
    "fit",
    [
        lambda X: DictionaryLearning(3, positive_code=True, max_iter=2).fit(X),
        lambda X: MiniBatchDictionaryLearning(3, positive_code=True, max_iter=1).fit(X),
        lambda X: MiniBatchDictionaryLearning(3, positive_code=True, transform_algorithm="lars").partial_fit(X),
        lambda X: SparseCoder(np.eye(3), positive_code=True).fit(X),
    ],
)
def test_non_negative_codes_by_omp_or_lars_are_refused_at_fit(fit):
    # OMP (the default transform) has no non-negative form: such a model was fitted and
    # saved, and failed at its first transform (or at load, which tries one)
    with pytest.raises(ValueError, match="positive_code=True needs transform_algorithm='lasso_lars'"):
        fit(np.abs(np.random.default_rng(0).normal(size=(20, 3))))


def test_batch_learning_matches_scikit_learn_from_the_same_svd_start():
    D0 = atoms()
    X, _ = sparse_rows(D0, n=200, noise=0.02)  # scikit-learn fits a LassoLars per row: keep it small
    params = dict(n_components=12, alpha=0.5, max_iter=15, tol=0.0, random_state=0)
    ours = DictionaryLearning(**params)
    code = ours.fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = SkDictionaryLearning(**params).fit(X)
    # each library fixes the SVD's signs its own way; the iteration is the same up to
    # each atom's sign (the lasso and the atom update are symmetric under it)
    signs = np.sign(np.sum(ours.components_ * theirs.components_, axis=1))
    np.testing.assert_allclose(ours.components_, signs[:, None] * theirs.components_, atol=1e-7)
    np.testing.assert_allclose(ours.error_, theirs.error_, rtol=1e-9)
    assert np.all(np.diff(ours.error_) <= 1e-9 * ours.error_[0])
    assert ours.error_[-1] == pytest.approx(0.5 * np.sum((X - code @ ours.components_) ** 2) + 0.5 * np.abs(code).sum())


def _matched(found, true):
    """For each true atom, the largest |cosine| with a found one."""
    found = found / np.maximum(np.linalg.norm(found, axis=1, keepdims=True), 1e-300)
    return np.abs(true @ found.T).max(axis=1)


def test_learners_recover_the_generating_dictionary():
    D0 = atoms(k=8, d=16)
    X, _ = sparse_rows(D0, n=1500, per_row=2, noise=0.01)
    batch = DictionaryLearning(8, alpha=0.1, max_iter=200, random_state=0).fit(X)
    # the online learner gets there slowly (scikit-learn's too: 0.75 with the default
    # stopping rules here, 1.0 after 100 passes of small batches)
    online = MiniBatchDictionaryLearning(8, alpha=0.1, batch_size=32, max_iter=100, random_state=0)
    online.set_params(tol=0.0, max_no_improvement=None).fit(X)
    assert np.median(_matched(batch.components_, D0)) > 0.99
    assert np.median(_matched(online.components_, D0)) > 0.98
    assert np.all(np.linalg.norm(online.components_, axis=1) <= 1 + 1e-12)


def test_online_learner_streams_and_a_saved_model_goes_on_identically(tmp_path):
    D0 = atoms(k=6, d=10)
    X, _ = sparse_rows(D0, n=600, per_row=2, noise=0.01)
    parts = np.array_split(X, 12)
    model = MiniBatchDictionaryLearning(6, alpha=0.1, random_state=0)
    for part in parts[:6]:
        model.partial_fit(part)
    save(model, tmp_path / "m.lowdim")
    loaded = load(tmp_path / "m.lowdim")
    for part in parts[6:]:
        model.partial_fit(part)
        loaded.partial_fit(part)
    np.testing.assert_array_equal(loaded.components_, model.components_)
    assert model.n_steps_ == 12


def test_sparse_pca_matches_scikit_learn_and_is_sparse():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 15)) @ np.diag(np.linspace(3, 0.5, 15))
    ours = SparsePCA(4, alpha=2.0, max_iter=30, tol=0.0, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = SkSparsePCA(4, alpha=2.0, max_iter=30, tol=0.0, random_state=0).fit(X)
    signs = np.sign(np.sum(ours.components_ * theirs.components_, axis=1))  # as for the dictionary
    np.testing.assert_allclose(ours.components_, signs[:, None] * theirs.components_, atol=1e-7)
    np.testing.assert_allclose(ours.transform(X), signs * theirs.transform(X), atol=1e-7)
    assert np.mean(ours.components_ == 0) > 0.3
    mini = MiniBatchSparsePCA(4, alpha=2.0, random_state=0).fit(X)
    assert mini.components_.shape == (4, 15) and np.all(np.isfinite(mini.transform(X)))


def test_inverse_transform_names_codes_of_the_wrong_width_or_with_gaps():
    """It multiplied whatever it was given by the atoms: numpy's matmul message for a
    wrong width, and NaN rows back for NaN codes."""
    X = np.random.default_rng(0).normal(size=(40, 5))
    for model in (DictionaryLearning(3, random_state=0, max_iter=20), MiniBatchDictionaryLearning(3, random_state=0)):
        codes = model.fit(X).transform(X)
        assert model.inverse_transform(codes).shape == X.shape
        with pytest.raises(ValueError, match=r"X has 2 columns, but \w+ codes rows with 3; pass transform's output"):
            model.inverse_transform(codes[:, :2])
        with pytest.raises(ValueError, match="NaN"):
            model.inverse_transform(np.full((2, 3), np.nan))


@pytest.mark.parametrize("lasso, positive", [(True, False), (True, True), (False, False)])
def test_numpy_lars_walks_the_kernels_path_to_the_lasso_solution(lasso, positive):
    """Small fits code by numpy (``batched_lars``), large ones by the numba kernel: the
    same path (adds, drops, stops), equal up to rounding, on random dictionaries of 2-40
    atoms and rows with nothing to code. Both reach the lasso's optimality conditions: an
    atom dropped from the path may come back with the other sign within the next step
    (the kernel once barred it for the whole step and stopped short, off by up to 0.3)."""
    import lowdim._kernels.sparse_coding as kernels
    from lowdim.decomposition._batched_lars import batched_lars

    rng = np.random.default_rng(0)
    for trial in range(40):
        k = int(rng.integers(2, 41))
        D = atoms(k, int(rng.integers(k, 2 * k + 2)), seed=trial)
        X = rng.normal(size=(30, D.shape[1]))
        X[0] = 0.0
        G, C = D @ D.T, X @ D.T
        alpha, n_nonzero = float(rng.uniform(0.01, 0.5)), int(rng.integers(1, k + 1))
        expected = np.zeros_like(C)
        kernels.lars(G, C, alpha, n_nonzero, lasso, positive, expected)
        got = batched_lars(G, C, alpha, n_nonzero, lasso, positive)
        scale = max(1.0, np.abs(expected).max())
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8 * scale)
        assert not np.any(got[0])
        if not lasso:
            assert np.count_nonzero(got, axis=1).max() <= n_nonzero
            continue
        for codes in (got, expected):  # |corr| <= alpha off the code, corr = alpha sign(c) on it
            corr, on, slack = C - codes @ G, codes != 0, 1e-9 * scale
            np.testing.assert_allclose(corr[on], alpha * np.sign(codes[on]), atol=slack)
            assert np.all((corr if positive else np.abs(corr))[~on] <= alpha + slack)
    assert batched_lars(np.eye(2), np.zeros((0, 2)), 0.1, 1, lasso, positive).shape == (0, 2)
    assert batched_lars(np.zeros((0, 0)), np.zeros((3, 0)), 0.1, 1, lasso, positive).shape == (3, 0)


def test_a_small_fit_never_compiles_the_lars_kernel_and_a_large_call_uses_it(monkeypatch):
    """SparsePCA on a small table codes by numpy (no numba compilation on a first call);
    a coding call too large for numpy goes to the kernel, and so does every later call
    of a fit once its budget is spent, and every batch of ``partial_fit``; the same fit
    takes the same path each time."""
    import lowdim._kernels.sparse_coding as kernels
    from lowdim.decomposition._batched_lars import CodingBudget

    calls = []
    real = kernels.lars
    monkeypatch.setattr(kernels, "lars", lambda *args: calls.append(args[1].shape) or real(*args))
    X = np.random.default_rng(0).normal(size=(200, 30))
    first = SparsePCA(5, random_state=0).fit(X).components_
    assert calls == [] and np.array_equal(first, SparsePCA(5, random_state=0).fit(X).components_)
    D = atoms(k=30, d=40)
    sparse_encode(np.random.default_rng(1).normal(size=(20_000, 40)), D, algorithm="lasso_lars", alpha=0.1)
    assert calls == [(20_000, 30)]
    # a stream's batches go to the kernel: their path must not depend on the calls before
    # them (a model saved and loaded goes on as the one that was not)
    MiniBatchDictionaryLearning(5, random_state=0).partial_fit(X[:40])
    assert calls == [(20_000, 30), (40, 5)]
    budget = CodingBudget()
    taken = [budget.take(200, 10) for _ in range(1000)]
    assert taken[0] and not taken[-1] and taken == sorted(taken, reverse=True)  # numpy first, then the kernel
    # a first try's fit (10,000 rows, 20 atoms: two epochs of 40 batches of 256, no early
    # stop) codes by numpy from start to end: its first call compiles nothing, nor starts
    # numba in a new process
    calls.clear()
    learner = MiniBatchDictionaryLearning(20, max_iter=2, tol=0.0, max_no_improvement=None, random_state=0)
    assert learner.fit(np.random.default_rng(2).normal(size=(10_000, 50))).n_steps_ == 80 and calls == []


@pytest.mark.parametrize("name", ["DictionaryLearning", "SparsePCA", "MiniBatchSparsePCA"])
def test_a_penalty_that_zeroes_every_code_is_named_with_the_alpha_that_would_not(name):
    # wine standardised, then in units a hundred times larger: alpha=1 outweighs every row
    # (column), and the fit was a model of zeros without a word (as in scikit-learn)
    import re

    from sklearn.datasets import load_wine

    import lowdim

    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0) * 0.01
    with pytest.warns(UserWarning, match="alpha=1 made every (code|loading) zero") as caught:
        Y = getattr(lowdim, name)(2, random_state=0).fit_transform(X)
    assert not Y.any()
    bound = float(re.search(r"alpha below ([0-9.e+-]+) ", str(caught[0].message)).group(1))
    norms = np.linalg.norm(
        X if name == "DictionaryLearning" else X - X.mean(axis=0), axis=1 if name == "DictionaryLearning" else 0
    )
    assert bound == pytest.approx(norms.max(), rel=0.05)  # no alpha above it codes anything
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(lowdim, name)(2, alpha=bound / 10, random_state=0).fit_transform(X).any()


def test_mini_batches_that_all_code_to_zero_are_named_with_the_alpha_that_would_not():
    # every batch's lasso codes were zero, so the atoms learned nothing (their code sums
    # stayed zero), silently; transform's OMP codes hid it
    from sklearn.datasets import load_wine

    import lowdim

    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0) * 0.01
    with pytest.warns(UserWarning, match="MiniBatchDictionaryLearning: alpha=1 made every code zero"):
        model = lowdim.MiniBatchDictionaryLearning(3, random_state=0).fit(X)
    assert not model.code_sums_.any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bound = np.linalg.norm(X, axis=1).max()
        assert lowdim.MiniBatchDictionaryLearning(3, alpha=bound / 10, random_state=0).fit(X).code_sums_.any()
