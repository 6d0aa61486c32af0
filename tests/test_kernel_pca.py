"""Kernel PCA: linear kernel = PCA, solvers agree, new points, Nystroem, pre-image, memory."""

import re
import warnings

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA

from lowdim import PCA, KernelPCA
from lowdim.exceptions import MemoryBudgetError


def data(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d))


def test_linear_kernel_equals_pca_up_to_sign():
    X = data()
    np.testing.assert_allclose(np.abs(KernelPCA(4).fit(X).transform(X)), np.abs(PCA(4).fit(X).transform(X)), atol=1e-9)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid", "cosine"])
def test_agrees_with_sklearn_and_training_rows_reproduce_the_embedding(kernel):
    X = data()
    ours, ref = KernelPCA(5, kernel=kernel), SkKernelPCA(5, kernel=kernel)
    Z = ours.fit_transform(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.fit(X).eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(np.abs(Z), np.abs(ref.transform(X)), atol=1e-9)
    np.testing.assert_allclose(ours.transform(X), Z, atol=1e-9)


@pytest.mark.parametrize("solver", ["arpack", "lanczos", "randomized"])
def test_solvers_agree_with_dense(solver):
    X = data(n=600)
    dense = KernelPCA(6, kernel="rbf", eigen_solver="dense").fit(X)
    other = KernelPCA(6, kernel="rbf", eigen_solver=solver, random_state=0).fit(X)
    np.testing.assert_allclose(other.eigenvalues_, dense.eigenvalues_, rtol=1e-6)
    np.testing.assert_allclose(np.abs(other.transform(X)), np.abs(dense.transform(X)), atol=1e-5)


def test_precomputed_and_callable_kernels():
    X = data()
    from lowdim.decomposition._kernel_functions import kernel_matrix

    K = kernel_matrix(X, kernel="rbf", gamma=0.1)
    a = KernelPCA(3, kernel="precomputed").fit(K)
    b = KernelPCA(3, kernel="rbf", gamma=0.1).fit(X)
    c = KernelPCA(3, kernel=lambda A, B, g: kernel_matrix(A, B, kernel="rbf", gamma=g), kernel_params={"g": 0.1}).fit(X)
    np.testing.assert_allclose(a.transform(K), b.transform(X), atol=1e-10)
    np.testing.assert_allclose(c.transform(X), b.transform(X), atol=1e-10)


def test_nystroem_with_every_point_as_landmark_is_exact_and_approximates_with_few():
    X = data(n=400)
    exact = KernelPCA(5, kernel="rbf").fit(X)
    full = KernelPCA(5, kernel="rbf", n_landmarks=400, random_state=0).fit(X)
    np.testing.assert_allclose(full.eigenvalues_, exact.eigenvalues_, rtol=1e-6)
    np.testing.assert_allclose(np.abs(full.transform(X)), np.abs(exact.transform(X)), atol=1e-6)
    few = KernelPCA(5, kernel="rbf", n_landmarks=150, random_state=0).fit(X)
    np.testing.assert_allclose(few.eigenvalues_, exact.eigenvalues_, rtol=0.1)
    assert few.eigen_solver_ == "nystroem" and few.X_fit_.shape == (150, 6)


@pytest.mark.parametrize("k, bound", [(10, 0.06), (30, 0.02)])
def test_preimage_reconstructs_the_training_data_as_sklearn(k, bound):
    X = data(n=200, d=3)
    ours = KernelPCA(k, kernel="rbf", gamma=0.05, fit_inverse_transform=True, alpha=1e-3).fit(X)
    ref = SkKernelPCA(k, kernel="rbf", gamma=0.05, fit_inverse_transform=True, alpha=1e-3).fit(X)
    err = np.abs(ours.inverse_transform(ours.transform(X)) - X).mean() / np.abs(X).mean()
    err_ref = np.abs(ref.inverse_transform(ref.transform(X)) - X).mean() / np.abs(X).mean()
    assert err < bound and err <= err_ref * (1 + 1e-6)
    with pytest.raises(ValueError, match="fit_inverse_transform=True"):
        KernelPCA(2).fit(X).inverse_transform(np.zeros((1, 2)))


def test_exact_mode_refuses_a_kernel_that_does_not_fit(monkeypatch):
    import lowdim._memory as memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 10**6)
    with pytest.raises(MemoryBudgetError, match="300 x 300 kernel.*n_landmarks"):
        KernelPCA(2, kernel="rbf").fit(data())


# the two routes differ by the eigenpairs' residual ||K v - w v|| / sqrt(w): the randomized
# solver's default iterations leave 4e-4 of it on this data (more or less by CPU), ten
# power iterations bring it to float32 rounding, where the comparison means something
RANDOMIZED = {"eigen_solver": "randomized", "iterated_power": 10, "random_state": 0}


@pytest.mark.parametrize("params", [{}, RANDOMIZED, {"n_landmarks": 100, "random_state": 0}])
def test_fit_transform_uses_the_fitted_eigenpairs_not_a_second_kernel(params, monkeypatch):
    X = data(n=400).astype(np.float32)
    expected = KernelPCA(4, kernel="rbf", **params).fit(X).transform(X)
    monkeypatch.setattr(KernelPCA, "transform", lambda self, X: pytest.fail("fit_transform called transform"))
    Z = KernelPCA(4, kernel="rbf", **params).fit_transform(X)
    assert Z.dtype == np.float32
    # float32 data get a float32 kernel: the two routes agree to its precision
    np.testing.assert_allclose(Z, expected, atol=3e-4 * np.abs(expected).max())


def test_float32_data_get_a_float32_kernel_as_accurate_as_float64s_to_its_precision():
    X = data(n=600)
    ours = KernelPCA(10, kernel="rbf", eigen_solver="randomized", random_state=0)
    w32 = ours.fit(X.astype(np.float32)).eigenvalues_
    w64 = KernelPCA(10, kernel="rbf", eigen_solver="dense").fit(X).eigenvalues_
    np.testing.assert_allclose(w32, w64, rtol=1e-4)
    # the training kernel itself was float32 (half the memory and BLAS time)
    K = ours._kernel(ours.X_fit_)
    assert K.dtype == np.float32 and abs(K - ours._kernel(ours.X_fit_.astype(np.float64))).max() < 1e-5


def test_the_model_owns_its_training_data():
    X = np.random.default_rng(0).normal(size=(60, 3))
    Q = np.random.default_rng(1).normal(size=(5, 3))
    kpca = KernelPCA(2, kernel="rbf", random_state=0).fit(X)
    before = kpca.transform(Q)
    X[:] = 0.0  # the caller reuses its buffer
    np.testing.assert_array_equal(kpca.transform(Q), before)
    assert KernelPCA(2, kernel="rbf", copy_X=False).fit(Q).X_fit_ is Q


def test_centering_uses_row_and_column_means():
    from lowdim.decomposition._kernel_pca import center_kernel

    K = np.array([[1.0, 2.0], [3.0, 40.0]])
    center_kernel(K)
    np.testing.assert_allclose(K, [[9.0, -9.0], [-9.0, 9.0]])


@pytest.mark.parametrize(
    "K, words",
    [
        (np.array([[1.0, 2.0], [3.0, 40.0]]), "symmetric kernel matrix: K[0, 1] = 2 but K[1, 0] = 3"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), "There are significant negative eigenvalues"),
        (np.diag([2.0, 1.0, -3.0]), "not positive semi-definite, the centred kernel has the eigenvalue"),
    ],
)
def test_precomputed_kernel_that_is_not_a_gram_matrix_is_refused(K, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        KernelPCA(kernel="precomputed").fit(K)


def test_precomputed_kernel_with_rounding_asymmetry_is_accepted():
    X = np.random.default_rng(0).normal(size=(30, 4))
    K = X @ X.T
    K[0, 1] *= 1 + 1e-14
    Z = KernelPCA(2, kernel="precomputed").fit_transform(K)
    np.testing.assert_allclose(np.abs(Z), np.abs(KernelPCA(2, kernel="linear").fit_transform(X)), atol=1e-8)


def test_inverse_transform_without_the_preimage_map_is_not_fitted():
    from sklearn.exceptions import NotFittedError

    kpca = KernelPCA(2, kernel="rbf").fit(np.random.default_rng(0).normal(size=(30, 3)))
    with pytest.raises(NotFittedError, match="fit_inverse_transform=True"):
        kpca.inverse_transform(np.zeros((1, 2)))


def test_iterated_power_fixes_the_randomized_iterations():
    X = np.random.default_rng(0).normal(size=(400, 8))
    exact = KernelPCA(5, kernel="rbf", eigen_solver="dense").fit(X)
    for power in (2, 10, "auto"):
        fast = KernelPCA(5, kernel="rbf", eigen_solver="randomized", iterated_power=power, random_state=0).fit(X)
        np.testing.assert_allclose(fast.eigenvalues_, exact.eigenvalues_, rtol=1e-2 if power == 2 else 1e-6)


def test_rounding_noise_eigenvalues_are_zero_in_either_precision():
    """Eigenvalues below n roundings of the largest (in the kernel's precision) are
    noise: zero, and left out when n_components is None, so float32 data keep as many
    components as float64 data; a zero eigenvalue's component is 0 for new rows too."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.1, (15, 3)), rng.normal(1, 0.1, (15, 3))]
    X -= X.min()
    wide = KernelPCA(kernel="linear").fit(X)
    narrow = KernelPCA(kernel="linear").fit(X.astype(np.float32))
    assert wide.n_components_ == narrow.n_components_ == 3  # the linear kernel of 3 features has rank 3
    conditioned = KernelPCA(2, kernel="linear").fit([[5, 1], [5 + 1e-8, 1e-8], [5 + 1e-8, 0]])
    assert conditioned.eigenvalues_.min() == 0.0
    assert np.all(conditioned.transform([[1.0, 2.0], [3.0, -1.0]])[:, 1] == 0.0)


def test_callable_kernel_of_two_rows_as_scikit_learns():
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    def histogram(x, y, power=1.0):  # scikit-learn's kind: a number for two rows
        return np.minimum(x, y).sum() ** power

    X = np.random.default_rng(1).random((12, 4))
    ours = KernelPCA(3, kernel=histogram, kernel_params={"power": 2.0}).fit(X)
    ref = SkKernelPCA(3, kernel=histogram, kernel_params={"power": 2.0}).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    new = np.random.default_rng(2).random((3, 4))
    np.testing.assert_allclose(np.abs(ours.transform(new)), np.abs(ref.transform(new)), rtol=1e-8, atol=1e-10)


def test_precomputed_with_inverse_transform_is_refused_before_the_kernel_is_read():
    with pytest.raises(ValueError, match="Cannot fit_inverse_transform with a precomputed kernel"):
        KernelPCA(kernel="precomputed", fit_inverse_transform=True).fit(np.array([[1.0, 2.0], [3.0, 1.0]]))


def test_a_kernel_negative_only_beyond_the_components_asked_for_is_accepted():
    """As scikit-learn: an indefinite kernel (double-centred geodesic distances, say) is
    refused when a significant negative eigenvalue is among those computed, and its
    top components are found when none is."""
    K = np.diag([50.0, 8.0, 5.0, -6.0, -15.0])
    K = K - K.mean(0) - K.mean(1)[:, None] + K.mean()
    with pytest.raises(ValueError, match="There are significant negative eigenvalues"):
        KernelPCA(5, kernel="precomputed", eigen_solver="dense").fit(K)
    top = KernelPCA(2, kernel="precomputed", eigen_solver="dense").fit(K)
    assert np.all(top.eigenvalues_ > 0)


def test_an_rbf_kernel_too_narrow_for_the_rows_warns_with_the_gamma_that_would_fit():
    # the default gamma (1 / n_features) on the unscaled wine table: two typical rows weigh
    # exp(-6000), the kernel is the identity and the map was two points and noise, silently
    from sklearn.datasets import load_wine

    X = load_wine().data
    with pytest.warns(UserWarning, match=r"KernelPCA: with gamma=0\.0769 .* set gamma to about .* or standardise"):
        KernelPCA(2, kernel="rbf").fit(X)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelPCA(2, kernel="rbf").fit(Z)  # standardised rows suit the default: no warning
