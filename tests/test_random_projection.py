"""Random projections: the Johnson-Lindenstrauss dimension, distances kept within
1 +- eps, the sparse matrix's density and values, sparse in and out, the pseudo-inverse."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import pdist

from lowdim import GaussianRandomProjection, SparseRandomProjection
from lowdim.decomposition import johnson_lindenstrauss_min_dim


def test_the_bound_is_the_dasgupta_gupta_formula():
    for n, eps in [(100, 0.1), (10**6, 0.5), (5000, 0.3)]:
        expected = int(4 * np.log(n) / (eps**2 / 2 - eps**3 / 3))
        assert johnson_lindenstrauss_min_dim(n, eps=eps) == expected
    assert johnson_lindenstrauss_min_dim([100, 1000], eps=[0.1, 0.2]).tolist() == [3947, 1594]
    with pytest.raises(ValueError, match="eps must be in"):
        johnson_lindenstrauss_min_dim(100, eps=1.0)


@pytest.mark.parametrize("cls", [GaussianRandomProjection, SparseRandomProjection])
def test_pairwise_distances_stay_within_one_plus_minus_eps(cls):
    X = np.random.default_rng(1).normal(size=(100, 4000))  # not the projection's own stream
    model = cls(eps=0.5, random_state=0).fit(X)
    assert model.n_components_ == johnson_lindenstrauss_min_dim(100, eps=0.5)
    ratio = pdist(model.transform(X)) / pdist(X)
    assert ratio.min() > 1 - 0.5 and ratio.max() < 1 + 0.5


def test_gaussian_entries_have_variance_one_over_k():
    model = GaussianRandomProjection(200, random_state=0).fit(np.zeros((3, 5000)))
    C = model.components_
    # 10^6 draws: the sample variance is within 1 % of 1/200 by over seven standard errors
    assert abs(C.var() * 200 - 1) < 0.01 and abs(C.mean()) < 0.01 / np.sqrt(200)


def test_sparse_matrix_has_the_density_and_values_it_promises():
    d, k = 10_000, 300
    model = SparseRandomProjection(k, random_state=0).fit(np.zeros((2, d)))
    C = model.components_
    assert sp.issparse(C) and model.density_ == 1 / np.sqrt(d)
    assert abs(C.nnz / (k * d) - model.density_) < 0.03 * model.density_
    np.testing.assert_allclose(np.abs(C.data), 1 / np.sqrt(model.density_ * k))
    assert abs((C.data > 0).mean() - 0.5) < 0.02
    rows = [C.indices[C.indptr[i] : C.indptr[i + 1]] for i in range(k)]
    assert all(np.unique(columns).size == columns.size for columns in rows)  # no column drawn twice


def test_sparse_input_stays_sparse_and_dense_input_matches_the_product():
    rng = np.random.default_rng(0)
    Xs = sp.random(50, 800, density=0.02, random_state=0, format="csr")
    model = SparseRandomProjection(40, random_state=0).fit(Xs.astype(np.float32))
    assert sp.issparse(model.transform(Xs))
    assert isinstance(SparseRandomProjection(40, dense_output=True, random_state=0).fit_transform(Xs), np.ndarray)
    X = rng.normal(size=(60, 800)).astype(np.float32)
    Z = model.transform(X)
    assert Z.dtype == np.float32
    np.testing.assert_allclose(Z, X @ model.components_.toarray().T, rtol=1e-4, atol=1e-4)


def test_sparse_rows_through_the_gaussian_matrix_give_the_dense_product():
    # 250,000 non-zeros: enough to be cut into row parts, one product per thread
    Xs = sp.random(2500, 1000, density=0.1, random_state=0, format="csr")
    model = GaussianRandomProjection(30, random_state=0).fit(Xs)
    Z = model.transform(Xs)
    assert isinstance(Z, np.ndarray) and Z.shape == (2500, 30)
    # each entry sums about 100 products of size ~1/sqrt(30) in float64
    np.testing.assert_allclose(Z, Xs.toarray() @ model.components_.T, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", [GaussianRandomProjection, SparseRandomProjection])
def test_inverse_transform_is_the_pseudo_inverse(cls):
    X = np.random.default_rng(0).normal(size=(30, 200))
    model = cls(50, compute_inverse_components=True, random_state=0).fit(X)
    Z = model.transform(X)
    np.testing.assert_allclose(model.transform(model.inverse_transform(Z)), Z, atol=1e-8)
    assert model.inverse_components_.shape == (200, 50)


def test_too_few_features_for_the_bound_is_named_and_more_components_warns():
    with pytest.raises(ValueError, match="target dimension of 3947, which is larger than the original space"):
        GaussianRandomProjection(eps=0.1).fit(np.zeros((100, 50)))
    with pytest.warns(UserWarning, match="n_components=80 is larger than n_features=50"):
        GaussianRandomProjection(80, random_state=0).fit(np.zeros((10, 50)))
