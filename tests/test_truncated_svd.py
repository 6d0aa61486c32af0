"""TruncatedSVD: the exact top singular triplets of uncentred data (arpack), as good as or
better than scikit-learn's randomized ones, sparse input never densified."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD as SklearnTruncatedSVD

from lowdim import TruncatedSVD


@pytest.fixture(scope="module")
def counts():
    return sp.random(600, 300, density=0.05, random_state=0, format="csr", data_rvs=lambda k: np.arange(1, k + 1) % 7)


@pytest.mark.parametrize("wide", [False, True])  # wide: Lanczos on the rows' side
@pytest.mark.parametrize("dense", [False, True])
def test_arpack_finds_the_exact_singular_triplets_without_centring(counts, dense, wide):
    counts = counts.T.tocsr() if wide else counts
    X = counts.toarray() if dense else counts
    model = TruncatedSVD(n_components=6, algorithm="arpack", random_state=0).fit(X)
    U, s, Vt = np.linalg.svd(counts.toarray(), full_matrices=False)
    np.testing.assert_allclose(model.singular_values_, s[:6], rtol=1e-9)
    # the same vectors up to sign, and the sign rule: each component's largest entry is positive
    np.testing.assert_allclose(np.abs(np.sum(model.components_ * Vt[:6], axis=1)), 1.0, atol=1e-8)
    rows = np.arange(6)
    assert (model.components_[rows, np.abs(model.components_).argmax(axis=1)] > 0).all()
    Z = model.transform(X)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=0), model.singular_values_, rtol=1e-12)
    total = counts.toarray().var(axis=0).sum()
    np.testing.assert_allclose(model.explained_variance_ratio_, Z.var(axis=0) / total, rtol=1e-12)


def test_randomized_captures_at_least_what_scikit_learn_captures(counts):
    exact = np.linalg.svd(counts.toarray(), compute_uv=False)[:10]
    for seed in range(3):
        ours = TruncatedSVD(10, random_state=seed).fit(counts).singular_values_
        theirs = SklearnTruncatedSVD(10, random_state=seed).fit(counts).singular_values_
        # a flat spectrum (uniform sparse noise) is the randomized solver's hard case
        assert (ours**2).sum() >= (theirs**2).sum() * (1 - 1e-3)
        assert np.all(ours <= exact * (1 + 1e-12))  # a subspace's values never exceed the true ones


def test_randomized_is_exact_on_a_decaying_spectrum():
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(400, 5)) * [50, 20, 10, 5, 2]) @ rng.normal(size=(5, 80)) + 0.01 * rng.normal(size=(400, 80))
    s = np.linalg.svd(X, compute_uv=False)[:4]
    model = TruncatedSVD(4, random_state=0).fit(X)
    np.testing.assert_allclose(model.singular_values_, s, rtol=1e-8)
    recon = model.inverse_transform(model.transform(X))
    best = np.linalg.norm(X - _rank_k(X, 4))
    np.testing.assert_allclose(np.linalg.norm(X - recon), best, rtol=1e-6)


def _rank_k(X, k):
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    return (U[:, :k] * s[:k]) @ Vt[:k]


@pytest.mark.filterwarnings("ignore:TruncatedSVD.*zero variance")  # columns no row uses
def test_a_sparse_matrix_too_large_to_densify_is_decomposed():
    n = 200_000  # dense: 320 GB
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random(4 * n), (rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n))), shape=(n, n))
    Z = TruncatedSVD(3, random_state=0).fit_transform(X)
    assert Z.shape == (n, 3) and np.isfinite(Z).all()


def test_bad_ranks_are_named():
    X = np.random.default_rng(0).normal(size=(20, 5))
    with pytest.raises(ValueError, match="n_components=5 must be below n_features=5"):
        TruncatedSVD(5, algorithm="arpack").fit(X)
    with pytest.raises(ValueError, match=r"n_components=30 must be at most min\(n_samples, n_features\)"):
        TruncatedSVD(30).fit(X)
    assert TruncatedSVD(5, random_state=0).fit(X).components_.shape == (5, 5)  # randomized allows the full rank
