"""Probabilistic PCA and factor analysis: closed form vs EM, missing values, likelihood."""

import numpy as np
import pytest
from sklearn.decomposition import FactorAnalysis as SkFA

from lowdim import PCA, FactorAnalysis, ProbabilisticPCA
from lowdim.decomposition._rotation import orthomax


def low_rank(n=500, d=12, rank=3, noise=0.3, seed=0, heteroscedastic=False):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(rank, d)) * 2
    sd = np.linspace(0.1, 1.0, d) if heteroscedastic else noise
    return rng.normal(size=(n, rank)) @ W + rng.normal(size=(n, d)) * sd + rng.normal(size=d), W


def subspace_angle_deg(A, B):
    """Largest principal angle between the row spaces of A and B, in degrees."""
    qa, qb = np.linalg.qr(A.T)[0], np.linalg.qr(B.T)[0]
    s = np.linalg.svd(qa.T @ qb, compute_uv=False)
    return float(np.degrees(np.arccos(np.clip(s.min(), -1, 1))))


def test_ppca_closed_form_is_pca_subspace_and_noise():
    X, _ = low_rank()
    n = X.shape[0]
    ppca, pca = ProbabilisticPCA(3).fit(X), PCA(3).fit(X)
    assert subspace_angle_deg(ppca.components_, pca.components_) < 1e-4
    assert ppca.noise_variance_[0] == pytest.approx(pca.noise_variance_ * (n - 1) / n, rel=1e-10)
    # scaled loadings: W W^T has eigenvalues lambda - s2 (maximum likelihood, ddof 0)
    lam = pca.explained_variance_ * (n - 1) / n
    np.testing.assert_allclose(
        np.sort(np.linalg.eigvalsh(ppca.components_ @ ppca.components_.T))[::-1],
        lam - ppca.noise_variance_[0],
        rtol=1e-8,
    )
    np.testing.assert_allclose(ppca.score_samples(X), pca.score_samples(X), rtol=5e-3)  # ddof 0 vs 1


def test_ppca_em_reaches_the_closed_form_and_likelihood_never_decreases():
    X, _ = low_rank()
    closed = ProbabilisticPCA(3).fit(X)
    em = ProbabilisticPCA(3, method="em", tol=1e-12, max_iter=5000, random_state=0).fit(X)
    assert np.all(np.diff(em.loglike_) >= -1e-10)
    assert em.loglike_[-1] == pytest.approx(closed.loglike_[-1], abs=1e-7)
    assert subspace_angle_deg(em.components_, closed.components_) < 0.01
    np.testing.assert_allclose(em.get_covariance(), closed.get_covariance(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("missing", [0.0, 0.1, 0.3, 0.5])
def test_ppca_em_with_missing_values_recovers_the_subspace(missing):
    X, W = low_rank(n=800, d=15, noise=0.2, seed=1)
    rng = np.random.default_rng(2)
    Xm = X.copy()
    Xm[rng.random(X.shape) < missing] = np.nan
    model = ProbabilisticPCA(3, tol=1e-9).fit(Xm)
    angle = subspace_angle_deg(model.components_, W)
    print(f"missing fraction {missing:.1f}: subspace angle {angle:.3f} degrees")
    assert angle < 2.0 + 4.0 * missing
    assert np.all(np.diff(model.loglike_) >= -1e-9) or missing == 0.0
    assert np.isfinite(model.transform(Xm)).all()


def test_missing_entries_are_marginalised_not_imputed():
    X, _ = low_rank(n=400, d=8)
    model = ProbabilisticPCA(3).fit(X)
    row = X[:1].copy()
    row[0, 2] = np.nan
    # the marginal of the observed coordinates, computed directly from the covariance
    keep = [j for j in range(8) if j != 2]
    C = model.get_covariance()[np.ix_(keep, keep)]
    diff = row[0, keep] - model.mean_[keep]
    _, logdet = np.linalg.slogdet(C)
    expected = -0.5 * (7 * np.log(2 * np.pi) + logdet + diff @ np.linalg.solve(C, diff))
    assert model.score_samples(row)[0] == pytest.approx(expected, rel=1e-10)


def test_fa_agrees_with_sklearn_and_likelihood_never_decreases():
    X, _ = low_rank(heteroscedastic=True)
    ours = FactorAnalysis(3, tol=1e-10).fit(X)
    ref = SkFA(3, tol=1e-8, max_iter=5000, random_state=0).fit(X)
    assert np.all(np.diff(ours.loglike_) >= -1e-10)
    # scikit-learn stops at max_iter=5000 short of the optimum on this near-Heywood case;
    # accelerated EM gets a likelihood at least as high
    assert ours.score(X) >= ref.score(X) - 1e-9
    np.testing.assert_allclose(ours.noise_variance_, ref.noise_variance_, rtol=0.1)
    np.testing.assert_allclose(ours.get_covariance(), ref.get_covariance(), atol=2e-3)


def test_fa_with_missing_values_recovers_noise_and_likelihood_increases():
    X, _ = low_rank(n=1500, heteroscedastic=True, seed=3)
    Xm = X.copy()
    Xm[np.random.default_rng(4).random(X.shape) < 0.2] = np.nan
    full, part = FactorAnalysis(3, tol=1e-9).fit(X), FactorAnalysis(3, tol=1e-9).fit(Xm)
    assert np.all(np.diff(part.loglike_) >= -1e-9)
    np.testing.assert_allclose(part.noise_variance_, full.noise_variance_, rtol=0.25, atol=0.02)


@pytest.mark.parametrize("method", ["varimax", "quartimax"])
def test_rotation_keeps_the_model_and_simplifies_loadings(method):
    X, _ = low_rank(heteroscedastic=True)
    plain, rotated = FactorAnalysis(3).fit(X), FactorAnalysis(3, rotation=method).fit(X)
    np.testing.assert_allclose(rotated.get_covariance(), plain.get_covariance(), atol=1e-8)
    R = rotated.rotation_matrix_
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-10)
    L = rotated.components_.T
    gamma = {"varimax": 1.0, "quartimax": 0.0}[method]

    def crit(M):
        return np.sum(M**4) - gamma / M.shape[0] * np.sum(np.sum(M**2, axis=0) ** 2)

    assert crit(L) >= crit(plain.components_.T) - 1e-9
    simple = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=float).T / np.sqrt(2)
    mixed = simple @ np.array([[np.cos(0.5), -np.sin(0.5)], [np.sin(0.5), np.cos(0.5)]])
    back = orthomax(mixed, method)[0]
    np.testing.assert_allclose(np.sort(np.abs(back), axis=None), np.sort(np.abs(simple), axis=None), atol=1e-6)


def test_sample_reproduces_the_model_covariance():
    X, _ = low_rank()
    model = ProbabilisticPCA(3).fit(X)
    draws = model.sample(200_000, random_state=0)
    np.testing.assert_allclose(
        np.cov(draws.T), model.get_covariance(), atol=0.05 * np.abs(model.get_covariance()).max()
    )
    np.testing.assert_allclose(model.get_precision() @ model.get_covariance(), np.eye(12), atol=1e-8)


def test_closed_form_refuses_missing_values():
    X, _ = low_rank()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="1 missing values; method='closed_form'"):
        ProbabilisticPCA(3, method="closed_form").fit(X)


def test_transform_is_posterior_mean():
    X, _ = low_rank()
    model = FactorAnalysis(3).fit(X)
    W, psi = model.components_, model.noise_variance_
    M = np.eye(3) + (W / psi) @ W.T
    expected = np.linalg.solve(M, (W / psi) @ (X - model.mean_).T).T
    np.testing.assert_allclose(model.transform(X), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("svd_method", ["lapack", "randomized"])
def test_factor_analysis_start_methods_reach_the_same_optimum(svd_method):
    from sklearn.decomposition import FactorAnalysis as SkFactorAnalysis

    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3)) @ rng.normal(size=(3, 12)) + rng.normal(size=(500, 12)) * np.linspace(0.1, 1, 12)
    ours = FactorAnalysis(3, svd_method=svd_method, iterated_power=2, random_state=1).fit(X)
    theirs = SkFactorAnalysis(
        3, svd_method=svd_method, iterated_power=2, random_state=1, tol=1e-10, max_iter=20000
    ).fit(X)
    # both totals over the samples; the optimum as high, to 1e-6 per sample
    assert ours.loglike_[-1] >= theirs.loglike_[-1] - 1e-6 * X.shape[0]
    np.testing.assert_allclose(ours.noise_variance_, theirs.noise_variance_, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("cls", [FactorAnalysis, ProbabilisticPCA])
def test_loglike_is_the_total_as_in_scikit_learn(cls):
    """loglike_[-1] == score_samples(X).sum(): the data's log-likelihood, not a mean."""
    X = np.random.default_rng(0).normal(size=(200, 6)) @ np.random.default_rng(1).normal(size=(6, 6))
    model = cls(n_components=2).fit(X)
    assert model.loglike_[-1] == pytest.approx(model.score_samples(X).sum(), rel=1e-9)


def test_factor_analysis_with_no_factors_is_the_independent_gaussian():
    """n_components=0 (scikit-learn allows it): noise_variance_ is each feature's
    variance, the covariance is diagonal, the codes have no column, with or without NaN."""
    X = np.random.default_rng(0).normal(size=(60, 4)) * [1.0, 2.0, 3.0, 4.0]
    fa = FactorAnalysis(0).fit(X)
    assert fa.components_.shape == (0, 4) and fa.transform(X).shape == (60, 0)
    np.testing.assert_allclose(fa.noise_variance_, X.var(axis=0), rtol=1e-10)
    np.testing.assert_allclose(fa.get_covariance() @ fa.get_precision(), np.eye(4), atol=1e-12)
    expected = -0.5 * (np.log(2 * np.pi * X.var(axis=0)) + (X - X.mean(0)) ** 2 / X.var(axis=0)).sum(axis=1)
    np.testing.assert_allclose(fa.score_samples(X), expected, rtol=1e-10)
    X[0, 0] = np.nan
    assert FactorAnalysis(0).fit(X).components_.shape == (0, 4)


@pytest.mark.parametrize("make", [lambda: FactorAnalysis(3, tol=1e-10), lambda: ProbabilisticPCA(3)])
def test_a_wide_table_is_fitted_without_its_covariance(make, monkeypatch):
    """More columns than rows (probes, genes): the covariance is read through the
    centred rows, never built (100 x 20,000: PPCA's eigh of the 20,000 x 20,000 matrix
    took 420 s, FA 56 s against scikit-learn's 1 s; at 200,000 columns it asked for
    320 GB). The model is the one the covariance gives."""
    import lowdim.decomposition._latent_base as base

    X, _ = low_rank(n=30, d=80, heteroscedastic=True, seed=1)
    wide = make().fit(X)
    assert isinstance(base._covariance(X)[0], base.WideCovariance)
    monkeypatch.setattr(base, "_covariance", lambda X: (np.cov(X.T, ddof=0), X.mean(axis=0)))
    dense = make().fit(X)
    np.testing.assert_allclose(wide.get_covariance(), dense.get_covariance(), rtol=1e-6, atol=1e-8)
    assert wide.score(X) == pytest.approx(dense.score(X), rel=1e-9)
    if isinstance(wide, FactorAnalysis):  # scikit-learn's SVD-based EM reaches the same optimum
        assert wide.score(X) >= SkFA(3, tol=1e-8, max_iter=5000).fit(X).score(X) - 1e-6
