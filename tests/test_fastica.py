"""FastICA: unmixing known non-Gaussian sources, both algorithms, all contrasts."""

import numpy as np
import pytest
from sklearn.decomposition import FastICA as SkFastICA

from lowdim import FastICA


def amari_distance(P):
    """0 for a scaled permutation matrix, growing with the mixing left in P."""
    P = np.abs(P)
    k = P.shape[0]
    rows = (P.sum(axis=1) / P.max(axis=1) - 1).sum()
    cols = (P.sum(axis=0) / P.max(axis=0) - 1).sum()
    return (rows + cols) / (2 * k * (k - 1))


def mixed_sources(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 40, n)
    S = np.column_stack([np.sign(np.sin(1.3 * t)), rng.uniform(-1, 1, n), rng.laplace(size=n), np.sin(2.7 * t) ** 3])
    S = (S - S.mean(0)) / S.std(0)
    A = rng.normal(size=(6, 4))
    return S, A, S @ A.T + 0.01 * rng.normal(size=(n, 6))


@pytest.mark.parametrize("algorithm", ["parallel", "deflation"])
@pytest.mark.parametrize("fun", ["logcosh", "exp", "cube"])
def test_unmixes_known_sources(algorithm, fun):
    S, A, X = mixed_sources()
    ica = FastICA(4, algorithm=algorithm, fun=fun, random_state=0, max_iter=1000).fit(X)
    distance = amari_distance(ica.components_ @ A)
    assert distance < 0.05, distance
    recovered = ica.transform(X)
    np.testing.assert_allclose(recovered.std(axis=0), 1.0, rtol=1e-6)  # over the n samples, as scikit-learn
    np.testing.assert_allclose(ica.inverse_transform(recovered), X, atol=0.05)


def test_callable_contrast_and_w_init():
    S, A, X = mixed_sources(seed=1)

    def tanh(u, alpha=1.0):
        t = np.tanh(alpha * u)
        return t, alpha * (1 - t**2)

    a = FastICA(4, fun=tanh, fun_args={"alpha": 1.0}, random_state=0).fit(X)
    b = FastICA(4, fun="logcosh", random_state=0).fit(X)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-10)

    def tanh_averaged(x, alpha=1.0):  # scikit-learn's form: g' averaged over the samples
        t, dt = tanh(x, alpha)
        return t, dt.mean(axis=-1)

    c = FastICA(4, fun=tanh_averaged, random_state=0).fit(X)
    np.testing.assert_allclose(c.components_, b.components_, atol=1e-10)
    with pytest.raises(ValueError, match=r"w_init has shape \(2, 2\)"):
        FastICA(4, w_init=np.eye(2)).fit(X)
    for algorithm in ("parallel", "deflation"):  # a singular start gave all-zero components, silently
        with pytest.raises(ValueError, match="w_init has rank 3, below n_components=4"):
            FastICA(4, w_init=np.diag([1.0, 1.0, 1.0, 0.0]), algorithm=algorithm).fit(X)


def test_as_good_as_sklearn():
    S, A, X = mixed_sources(seed=2)
    ours = amari_distance(FastICA(4, random_state=0).fit(X).components_ @ A)
    ref = amari_distance(SkFastICA(4, whiten="unit-variance", random_state=0).fit(X).components_ @ A)
    assert ours <= ref + 0.01


@pytest.mark.parametrize("fun", ["logcosh", "exp", "cube"])
def test_same_start_as_sklearn_gives_its_unmixing(fun):
    # the same fixed-point iteration on the same whitened data (unit variance over the
    # n samples): from scikit-learn's start, expressed in lowdim's whitened coordinates
    # (the principal axes may differ in sign), the same iterates and the same sources
    _, _, X = mixed_sources(seed=3)
    w0 = np.random.RandomState(0).normal(size=(4, 4))
    ref = SkFastICA(4, whiten="unit-variance", fun=fun, w_init=w0, max_iter=1000).fit(X)
    alignment = ref.whitening_ @ FastICA(4, max_iter=1000).fit(X).whitening_.T
    signs = np.sign(np.diag(alignment))
    np.testing.assert_allclose(np.abs(alignment), np.diag(np.abs(np.diag(alignment))), atol=1e-8)
    ours = FastICA(4, fun=fun, w_init=w0 * signs[None, :], max_iter=1000).fit(X)
    assert ours.n_iter_ == ref.n_iter_
    assert amari_distance(ours.components_ @ ref.mixing_) < 1e-8
    np.testing.assert_allclose(ours.transform(X).std(axis=0), 1.0, rtol=1e-10)


def _white_mixture(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    S = np.column_stack([rng.uniform(-1, 1, n), rng.laplace(size=n)])
    S = (S - S.mean(axis=0)) / S.std(axis=0)
    rotation = np.array([[np.cos(0.5), -np.sin(0.5)], [np.sin(0.5), np.cos(0.5)]])
    return S @ rotation.T, S


def test_whiten_false_unmixes_white_data_like_sklearn():
    from sklearn.decomposition import FastICA as SkFastICA

    X, S = _white_mixture()
    ours = FastICA(whiten=False, random_state=0).fit(X)
    theirs = SkFastICA(whiten=False, random_state=0).fit(X)
    # the same rows up to order and sign
    match = np.abs(ours.components_ @ theirs.components_.T)
    np.testing.assert_allclose(np.sort(match.max(axis=1)), [1.0, 1.0], atol=1e-3)
    np.testing.assert_allclose(ours.transform(X), X @ ours.components_.T)
    assert np.all(np.abs(np.corrcoef(ours.transform(X).T, S.T)[:2, 2:]).max(axis=1) > 0.97)
    with pytest.warns(UserWarning, match="Ignoring n_components with whiten=False. .*n_components=1 is ignored"):
        FastICA(1, whiten=False, random_state=0).fit(X)


def test_whiten_solver_eigh_is_the_covariance_whitening():
    X, _ = _white_mixture()
    X = X @ np.array([[2.0, 0.3], [0.1, 1.0]]) + 5.0
    a = FastICA(2, whiten_solver="eigh", random_state=0).fit(X)
    b = FastICA(2, whiten_solver="svd", random_state=0).fit(X)
    np.testing.assert_allclose(a.components_, b.components_, rtol=1e-6, atol=1e-8)


def test_rank_deficient_data_give_as_many_sources_as_directions_with_variance():
    from sklearn.datasets import load_digits

    X = load_digits().data[:200]  # 11 constant pixels: rank 53 of 64
    words = "There are some small singular values: FastICA's X has rank 53, below the 64 components"
    with pytest.warns(UserWarning, match=words):
        model = FastICA(random_state=0).fit(X)
    assert model.n_components_ == 53 and np.isfinite(model.components_).all()
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X, atol=1e-8)
