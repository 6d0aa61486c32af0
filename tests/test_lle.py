"""Locally linear embedding family: standard, Hessian, modified, LTSA."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.manifold import LocallyLinearEmbedding as SkLLE

from lowdim.datasets import make_swiss_roll
from lowdim.datasets._generators import SWISS_HOLE
from lowdim.linalg import smallest_eigh
from lowdim.manifold import LocallyLinearEmbedding
from lowdim.manifold._local_fits import BLOCK_BUILDERS, assemble, barycenter_weights
from lowdim.metrics import trustworthiness
from lowdim.neighbors import nearest_neighbors

METHODS = ["standard", "hessian", "modified", "ltsa"]


def _arc_length(p):
    """Arc length along the spiral r = p from the origin: the isometric coordinate."""
    return 0.5 * (p * np.sqrt(1 + p**2) + np.arcsinh(p))


@pytest.fixture(scope="module")
def roll():
    return make_swiss_roll(1200, random_state=0)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_unrolls_the_swiss_roll(roll, method):
    X, P = roll
    Y = LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=0).fit_transform(X)
    assert max(abs(spearmanr(Y[:, j], P[:, 0])[0]) for j in range(2)) >= 0.99
    assert trustworthiness(X, Y, n_neighbors=10) > 0.99


@pytest.mark.parametrize("method", METHODS)
def test_quality_matches_sklearn(roll, method):
    X, _ = roll
    X = X[:600]
    ours = LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=0).fit_transform(X)
    ref = SkLLE(n_neighbors=12, method=method, random_state=0).fit_transform(X)
    assert trustworthiness(X, ours, n_neighbors=10) >= trustworthiness(X, ref, n_neighbors=10) - 0.005


def test_standard_lle_equals_sklearn_up_to_sign(roll):
    X = roll[0][:400]
    ours = LocallyLinearEmbedding(n_neighbors=10, eigen_solver="dense").fit(X)
    ref = SkLLE(n_neighbors=10, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(ref.embedding_), atol=1e-6)
    assert ours.reconstruction_error_ == pytest.approx(ref.reconstruction_error_, rel=1e-6)


def test_hessian_lle_keeps_the_hole():
    X, P = make_swiss_roll(1500, hole=True, random_state=0)
    Y = LocallyLinearEmbedding(n_neighbors=12, method="hessian", random_state=0).fit_transform(X)
    truth = np.c_[_arc_length(P[:, 0]), P[:, 1]]
    # the embedding is an affine image of the isometric coordinates ...
    assert _affine_r2(Y, truth, Y, truth).min() > 0.995
    A = np.c_[Y, np.ones(len(Y))]
    fitted = A @ np.linalg.lstsq(A, truth, rcond=None)[0]
    # ... so the hole stays empty: no point lands in it (its middle 70 % in each direction)
    p0, p1, h0, h1 = SWISS_HOLE
    s0, s1 = _arc_length(np.array([p0, p1]))
    ds, dh = 0.15 * (s1 - s0), 0.15 * (h1 - h0)
    inside = (fitted[:, 0] > s0 + ds) & (fitted[:, 0] < s1 - ds) & (fitted[:, 1] > h0 + dh) & (fitted[:, 1] < h1 - dh)
    assert not inside.any()
    assert trustworthiness(X, Y, n_neighbors=10) > 0.99


@pytest.mark.parametrize("method", METHODS)
def test_quadratic_form_is_symmetric_psd_with_the_constant_in_its_null_space(roll, method):
    X = roll[0][:300]
    _, idx = nearest_neighbors(X, 10)
    M = assemble(*BLOCK_BUILDERS[method](X, idx, 2, 1e-3, 1e-12), 300)
    assert abs(M - M.T).max() < 1e-10
    np.testing.assert_allclose(M @ np.ones(300), 0, atol=1e-8)
    assert np.linalg.eigvalsh(M.toarray()).min() > -1e-8


def test_barycenter_weights_sum_to_one_and_rebuild_points_in_the_hull():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(6, 3))
    w_true = rng.dirichlet(np.ones(4))
    q = w_true @ R[:4]
    W = barycenter_weights(q[None, :], R, np.array([[0, 1, 2, 3]]), 1e-9)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    np.testing.assert_allclose(W @ R[:4], q[None, :], atol=1e-6)


@pytest.mark.parametrize("method", ["standard", "ltsa"])
def test_arpack_and_dense_solvers_agree(roll, method):
    X = roll[0][:500]
    a = LocallyLinearEmbedding(
        n_neighbors=10, method=method, eigen_solver="arpack", tol=0, random_state=0
    ).fit_transform(X)
    b = LocallyLinearEmbedding(n_neighbors=10, method=method, eigen_solver="dense").fit_transform(X)
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_smallest_eigh_shift_invert_matches_dense():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(300, 300))
    M = A @ A.T / 300
    import scipy.sparse as sp

    w_a, V_a = smallest_eigh(sp.csr_matrix(M), 4, rng=rng, solver="arpack", tol=0)
    w_d, V_d = smallest_eigh(M, 4, rng=rng, solver="dense")
    np.testing.assert_allclose(w_a, w_d, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(np.abs(V_a.T @ V_d), np.eye(4), atol=1e-6)


def test_transform_of_training_points_is_close_to_their_embedding(roll):
    X = roll[0][:600]
    est = LocallyLinearEmbedding(n_neighbors=10, random_state=0).fit(X)
    Y = est.transform(X)
    scale = np.abs(est.embedding_).max()
    assert np.abs(Y - est.embedding_).max() < 0.02 * scale


def _affine_r2(Y_fit, truth_fit, Y, truth):
    """R^2 of ``truth`` predicted from ``Y`` by the affine map fitted on the training pair."""
    coef = np.linalg.lstsq(np.c_[Y_fit, np.ones(len(Y_fit))], truth_fit, rcond=None)[0]
    pred = np.c_[Y, np.ones(len(Y))] @ coef
    return 1 - ((truth - pred) ** 2).sum(axis=0) / ((truth - truth.mean(axis=0)) ** 2).sum(axis=0)


def test_transform_places_new_points_where_the_manifold_puts_them():
    X, P = make_swiss_roll(2000, random_state=0)
    truth = np.c_[_arc_length(P[:, 0]), P[:, 1]]
    est = LocallyLinearEmbedding(n_neighbors=12, method="ltsa", random_state=0).fit(X[:1600])
    # the LTSA embedding is an affine image of the isometric coordinates (any rotation),
    # and new points land on the same affine image
    assert _affine_r2(est.embedding_, truth[:1600], est.embedding_, truth[:1600]).min() > 0.995
    assert _affine_r2(est.embedding_, truth[:1600], est.transform(X[1600:]), truth[1600:]).min() > 0.99


def test_too_few_neighbors_for_hessian_names_the_fix():
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match=r"n_neighbors >= 6; got n_neighbors=5"):
        LocallyLinearEmbedding(n_neighbors=5, method="hessian").fit(X)
    with pytest.raises(ValueError, match=r"n_components=50 must be at most n_samples=50 minus one \(49"):
        LocallyLinearEmbedding(n_neighbors=3, n_components=50).fit(X[:50])


def _null_basis(M):
    w, V = np.linalg.eigh(M.toarray())
    return V[:, w <= 1e-9 * M.diagonal().max()]


@pytest.mark.parametrize("method", ["hessian", "ltsa"])
def test_larger_null_space_gives_the_minimizers_nearest_the_principal_scores(method):
    from scipy.linalg import subspace_angles

    X = np.random.default_rng(0).normal(size=(300, 20))
    est = LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=0)
    with pytest.warns(UserWarning, match="closest to the data's leading principal components"):
        Y = est.fit_transform(X)
    _, idx = nearest_neighbors(X, 12)
    N = _null_basis(assemble(*BLOCK_BUILDERS[method](X, idx, 2, 1e-3, 1e-12), 300))
    assert N.shape[1] > 3  # more null directions than the constant and two coordinates
    np.testing.assert_allclose(N @ (N.T @ Y), Y, atol=1e-7)  # exact minimisers
    np.testing.assert_allclose(Y.T @ Y, np.eye(2), atol=1e-10)
    np.testing.assert_allclose(Y.sum(axis=0), 0, atol=1e-10)
    assert np.all(est.eigenvalues_ < 1e-12)
    Xc = X - X.mean(axis=0)
    U, s, _ = np.linalg.svd(Xc, full_matrices=False)
    Z = N @ (N.T @ (U[:, :2] * s[:2]))
    assert subspace_angles(Y, Z - Z.mean(axis=0)).max() < 1e-6
    # reproducible: permuting the samples permutes the embedding (an eigenbasis need not)
    perm = np.random.default_rng(1).permutation(300)
    with pytest.warns(UserWarning, match="zero to rounding"):
        Yp = LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=5).fit_transform(X[perm])
    np.testing.assert_allclose(np.abs(Yp), np.abs(Y[perm]), atol=1e-6)


def test_degenerate_bottom_of_the_spectrum_is_warned_about():
    # Hessian / LTSA local fits on a 20-D Gaussian cloud leave a null space far larger
    # than n_components + 1: the embedding is then an arbitrary basis of it
    import warnings

    gauss = np.random.default_rng(0).normal(size=(300, 20))
    roll = make_swiss_roll(300, random_state=0)[0]
    for method in ("hessian", "ltsa"):
        with pytest.warns(UserWarning, match="zero to rounding"):
            LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=0).fit(gauss)
    for method in ("hessian", "ltsa", "standard", "modified"):
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*zero to rounding")
            LocallyLinearEmbedding(n_neighbors=12, method=method, random_state=0).fit(roll)


def test_tie_broken_hessian_embedding_of_digits_keeps_their_neighborhoods():
    # 64-D digits in 2-D leave Hessian LLE a large null space (warned); the minimisers
    # nearest the principal scores keep neighbourhoods better than those scores do
    # (trustworthiness 0.83, kNN accuracy 0.65); an arbitrary null basis (scikit-learn's
    # dense solver here) gives 0.58 / 0.27
    from sklearn.datasets import load_digits

    from lowdim.metrics import knn_accuracy

    X, y = load_digits(return_X_y=True)
    with pytest.warns(UserWarning, match="zero to rounding"):
        Y = LocallyLinearEmbedding(n_neighbors=12, method="hessian", random_state=0).fit_transform(X)
    assert trustworthiness(X, Y, n_neighbors=10) > 0.89
    assert knn_accuracy(Y, y, random_state=0) > 0.85


def test_principal_minimizers_are_completed_from_the_null_vectors():
    # four separate pairs: null space = functions constant on each pair (4-D). The second
    # principal coordinate (+1/-1 inside every pair) has no component there, so the
    # second column must come from the eigensolver's null vectors, still an exact minimiser
    import scipy.sparse as sp

    from lowdim.manifold._lle import nearest_principal_minimizers

    M = sp.block_diag([np.array([[1.0, -1.0], [-1.0, 1.0]])] * 4).tocsr()
    X = np.c_[np.repeat([0.0, 10.0, 20.0, 30.0], 2), np.tile([1.0, -1.0], 4)]
    w, V = np.linalg.eigh(M.toarray())
    ew, Y = nearest_principal_minimizers(M, X, V[:, :4], 2, np.random.default_rng(0))
    np.testing.assert_allclose(Y.T @ Y, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(Y.sum(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(M @ Y, 0, atol=1e-9)
    np.testing.assert_allclose(ew, 0, atol=1e-9)
    means = np.repeat([-15.0, -5.0, 5.0, 15.0], 2)
    np.testing.assert_allclose(np.abs(Y[:, 0]), np.abs(means) / np.linalg.norm(means), atol=1e-9)


def test_hessian_block_of_a_degenerate_neighborhood_leaves_dependent_columns_out():
    from lowdim.manifold._local_fits import _hessian_chunk

    # two rows of points: along the first axis the neighbourhood takes two values only,
    # so its squared first coordinate is a combination of the constant and linear columns
    s = np.linspace(-1, 1, 5)
    grid = np.r_[np.c_[np.full(5, -3.0), s, np.zeros(5)], np.c_[np.full(5, 3.0), s, np.zeros(5)]]
    Z = (grid - grid.mean(axis=0))[None]
    strict, loose = _hessian_chunk(Z, 2, tol=1e-4)[0], _hessian_chunk(Z, 2, tol=0.0)[0]
    assert np.linalg.matrix_rank(strict, tol=1e-8) < np.linalg.matrix_rank(loose, tol=1e-8)
    # what remains still annihilates constants and both linear coordinates
    for f in (np.ones(10), Z[0, :, 0], Z[0, :, 1]):
        np.testing.assert_allclose(strict @ f, 0.0, atol=1e-10)


@pytest.mark.parametrize("method", ["hessian", "ltsa"])
def test_a_null_space_of_exactly_the_kept_dimensions_is_taken_without_the_constant(method):
    # the constant and the two kept directions all at eigenvalue 0: the eigensolver's
    # vectors are any basis of that space, the constant mixed into each, and dropping
    # the first lost part of the embedding (rows in another order: another map)
    from sklearn.datasets import load_wine

    X = load_wine().data
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    order = np.random.default_rng(1).permutation(len(X))
    fit = LocallyLinearEmbedding(n_neighbors=10, method=method, random_state=0).fit(X)
    shuffled = LocallyLinearEmbedding(n_neighbors=10, method=method, random_state=0).fit(X[order])
    Y, Z = fit.embedding_, shuffled.embedding_[np.argsort(order)]
    assert np.abs(fit.eigenvalues_).max() < 1e-12  # the tie this test is about
    np.testing.assert_allclose(Y.T @ Y, np.eye(2), atol=1e-10)
    np.testing.assert_allclose(Y.sum(axis=0), 0.0, atol=1e-10)  # orthogonal to the constant
    # an orthonormal basis of the same plane: one rotation of the other
    np.testing.assert_allclose(Y @ (Y.T @ Z), Z, atol=1e-8)
