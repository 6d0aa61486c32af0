"""Kernel PCA: exact (centred N x N kernel) or Nystroem landmarks for large N."""

import numbers

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from .._estimator import ComponentTransformer
from .._memory import require_memory
from .._params import BOOLEAN, CALLABLE, NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_n_components, warn_constant_features
from .._warnings import warn_user
from ..linalg import column_moments, flip_signs, lanczos_eigh, matmul, subspace_iteration, top_eigh
from ._kernel_functions import KERNELS, kernel_matrix, median_squared_distance
from ._pca import PCA

NARROW = 20.0  # gamma times the median squared distance past which the rbf kernel is nearly the identity

# A float32 kernel's eigenvalues settle to about this (of the largest) and no further;
# on 10,000 Fashion-MNIST images the 50 top eigenvalues then agree with the float64
# kernel's to 4e-5 (BENCHMARKS.md, defaults).
FLOAT32_SETTLED = 2e-7


def center_kernel(K):
    """Double-centre a training kernel in place (``H K H``: rows and columns each by
    their own means); return (column means, overall mean).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.ones((3, 3)); _ = center_kernel(K); float(abs(K).max())
    0.0
    """
    col = K.mean(axis=0)
    row = K.mean(axis=1)
    total = col.mean()
    K -= col[None, :]
    K -= row[:, None]
    K += total
    return col, total


def check_symmetric_kernel(K, block=1024):
    """Refuse a precomputed kernel that is not symmetric (beyond rounding): its
    eigenvectors would depend on which triangle the eigensolver reads. Compared in
    bands of rows, so no second n x n matrix is made."""
    scale = max(float(np.abs(K).max(initial=0.0)), np.finfo(np.float64).tiny)
    for start in range(0, K.shape[0], block):
        gap = np.abs(K[start : start + block] - K[:, start : start + block].T)
        r, j = np.unravel_index(np.argmax(gap), gap.shape)
        if gap[r, j] > 1e-8 * scale:
            i = start + r
            raise ValueError(
                f"kernel='precomputed' needs a symmetric kernel matrix: K[{i}, {j}] = {K[i, j]:g} "
                f"but K[{j}, {i}] = {K[j, i]:g}; pass (K + K.T) / 2 if the asymmetry is noise."
            )


def check_psd_kernel(eigenvalues):
    """Refuse a precomputed kernel with a computed eigenvalue below -1e-5 of the
    largest (smaller negatives are rounding and become zero). As scikit-learn, only the
    eigenvalues asked for are judged: the top components of an indefinite kernel (a
    double-centred geodesic distance matrix, say) are still found."""
    largest = float(eigenvalues.max(initial=0.0))
    low = float(eigenvalues.min(initial=0.0))
    if low < -1e-5 * largest:
        raise ValueError(
            f"There are significant negative eigenvalues: kernel='precomputed' is not positive "
            f"semi-definite, the centred kernel has the eigenvalue {low:g} (largest {largest:g}); "
            "kernel PCA needs a positive semi-definite kernel (a Gram matrix of some feature map): check how "
            "K was built, or add c * I to K with c at least the magnitude of the most negative eigenvalue."
        )


def top_eigenpairs(K, k, solver, rng, tol, max_iter, iterated_power="auto"):
    """Largest k eigenpairs of the symmetric matrix K with the named solver
    ('randomized': up to 15 power iterations stopping once the eigenvalues settle, to
    1e-9 of the largest for a float64 K and to a few float32 roundings for a float32
    one, or exactly ``iterated_power``)."""
    if solver == "dense":
        return top_eigh(K, k)
    if solver == "arpack":
        return lanczos_eigh(spla.aslinearoperator(K), k, rng=rng, tol=tol, max_iter=max_iter)
    size = min(K.shape[0], k + 20)
    fixed = iterated_power != "auto"
    w, V, _ = subspace_iteration(
        lambda B: matmul(K, B),
        K.shape[0],
        K.dtype,
        size,
        k,
        n_iter=int(iterated_power) if fixed else 15,
        rng=rng,
        tol=None if fixed else (1e-9 if K.dtype == np.float64 else FLOAT32_SETTLED),
        nystrom=False,
    )
    return w, V


class KernelPCA(ComponentTransformer):
    """Kernel PCA: PCA in the feature space of a kernel, exact or with Nystroem landmarks.

    A drop-in for ``sklearn.decomposition.KernelPCA`` (same parameter names; 'lanczos'
    is accepted as a synonym of 'arpack'), plus ``n_landmarks``: with it, the kernel is
    approximated through ``n_landmarks`` landmark points chosen at random (Nystroem),
    so memory and time grow linearly in the number of samples.

    Parameters
    ----------
    n_components : int or None
        Default: every component with a positive eigenvalue (exact mode), or all
        landmarks (Nystroem mode).
    kernel : str in ``KERNELS``, 'precomputed' or callable
        ``KERNELS``: 'linear', 'rbf', 'poly', 'sigmoid', 'cosine', 'laplacian', 'chi2', ...
        A callable is scikit-learn's kind (``kernel(x, y, **kernel_params)`` for two
        rows, a number) or takes two blocks of rows and returns their matrix (see
        ``kernel_matrix``).
    gamma : float or None
        Default ``1 / n_features``.
    degree, coef0 : float
        For 'poly' and 'sigmoid'.
    alpha : float
        Ridge of the learned pre-image (``inverse_transform``).
    fit_inverse_transform : bool
        Learn the pre-image map by kernel ridge regression from the embedding to X.
    eigen_solver : {'auto', 'dense', 'arpack', 'lanczos', 'randomized'}
        'auto': 'dense' for up to 1000 samples or n_components above half of them,
        'arpack' for fewer than 10 components, else 'randomized' (subspace iteration on
        the centred kernel with 20 extra vectors, Rayleigh-Ritz after every product,
        up to 16 products, stopping once the eigenvalues settle).
    tol, max_iter : ARPACK settings.
    iterated_power : int or 'auto', default='auto'
        'randomized': that many power iterations; 'auto' runs up to 15 and stops once
        the eigenvalues settle (scikit-learn's 'auto' is a fixed 4 or 7).
    n_jobs : int, optional
        Accepted for compatibility; kernels and products use numba's and BLAS's threads.
    remove_zero_eig : bool
        Drop components with zero eigenvalue (also done when n_components is None).
    n_landmarks : int or None
        Nystroem mode with this many landmarks (never forms an N x N matrix).
    random_state : None, int, RandomState or Generator
        Landmarks, ARPACK start vector, randomized solver.
    copy_X : bool, default=True
        Keep a copy of the training data in ``X_fit_`` (``transform`` needs it). With
        False the model keeps a reference to the caller's array, which saves memory
        but makes later changes to that array change ``transform``.
    kernel_params : dict, optional
        Keyword arguments of a callable kernel.

    Notes
    -----
    A precomputed kernel must be symmetric and, once centred, positive semi-definite;
    either failing raises ``ValueError`` naming the offending entry or eigenvalue
    (scikit-learn reads one triangle of a non-symmetric kernel).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        Exact mode only.
    X_fit_ : ndarray
        Training data (exact mode) or the landmarks (Nystroem mode).
    kernel_shift_ : ndarray of shape (n_features,)
        Mean of ``X_fit_``, subtracted from both sides before linear and rbf kernels.
    dual_coef_ : ndarray
        Pre-image coefficients (``fit_inverse_transform``).
    gamma_ : float
    eigen_solver_ : str
    n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.
    K_fit_rows_ : ndarray (n_samples,)
        Column means of the training kernel (centring new rows).
    K_fit_all_ : float
        Mean of the training kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(100, 4))
    >>> KernelPCA(n_components=2, kernel="rbf").fit_transform(X).shape
    (100, 2)
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "kernel": [Options(set(KERNELS) | {"precomputed"}), CALLABLE],
        "gamma": [NONE, Interval(float, 0, None, closed="neither")],
        "degree": [Interval(float, 0, None, closed="left")],
        "coef0": [Interval(float, None, None)],
        "kernel_params": [NONE, InstanceOf(dict)],
        "alpha": [Interval(float, 0, None, closed="left")],
        "fit_inverse_transform": [BOOLEAN],
        "eigen_solver": [Options({"auto", "dense", "arpack", "lanczos", "randomized"})],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_iter": [NONE, Interval(int, 1, None, closed="left")],
        "remove_zero_eig": [BOOLEAN],
        "n_landmarks": [NONE, Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "copy_X": [BOOLEAN],
        "iterated_power": [Interval(int, 0, None, closed="left"), Options({"auto"})],
        "n_jobs": [NONE, Interval(int, None, None)],
    }

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        eigen_solver="auto",
        tol=0,
        max_iter=None,
        iterated_power="auto",
        remove_zero_eig=False,
        random_state=None,
        copy_X=True,
        n_jobs=None,
        n_landmarks=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.remove_zero_eig = remove_zero_eig
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.copy_X = copy_X
        self.iterated_power = iterated_power
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ kernels
    def _kernel(self, X, Y=None):
        """Kernel as a new array: float32 for float32 data (as scikit-learn's; half the
        memory and BLAS time, and the eigenvectors it gives are as accurate as float32
        data allow), float64 otherwise. Translation-invariant uses (rbf, and linear
        once centred in feature space) shift both sides by the training mean first, so
        data far from the origin keep their precision."""
        if self.kernel == "precomputed":
            return np.array(X, dtype=np.float64)
        if callable(self.kernel):
            return kernel_matrix(X, Y, kernel=self.kernel, kernel_params=self.kernel_params)
        single = X.dtype == np.float32 and (Y is None or Y.dtype == np.float32) and not sp.issparse(X)
        dtype = np.float32 if single else np.float64
        X = X.astype(dtype)
        Y = None if Y is None else Y.astype(dtype)
        if sp.issparse(X) or sp.issparse(Y):
            return self._sparse_kernel(X, Y)
        if self.kernel in ("linear", "rbf"):
            X = (X - self.kernel_shift_).astype(dtype, copy=False)
            Y = None if Y is None else (Y - self.kernel_shift_).astype(dtype, copy=False)
        return kernel_matrix(
            X, Y, kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0, out_dtype=dtype
        )

    def _sparse_kernel(self, X, Y):
        """The same kernel with a sparse side, never shifting (densifying) the rows: rbf
        does not change with a shift; the shifted linear kernel is expanded,
        ``(x - s).(y - s) = x.y - x.s - s.y + s.s``."""
        K = kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma_, degree=self.degree, coef0=self.coef0)
        if self.kernel == "linear":
            s = self.kernel_shift_
            Y = X if Y is None else Y
            K -= np.asarray(X @ s).ravel()[:, None]
            K -= np.asarray(Y @ s).ravel()[None, :]
            K += float(s @ s)
        return K

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) for
            kernel='precomputed'
        y : ignored

        Returns
        -------
        self
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit the model and return the training data's projection, from the eigenpairs
        themselves (no second kernel between X and the training data).

        Parameters
        ----------
        X, y : as for ``fit``

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self._fit(X)

    def _fit(self, X):
        """Fit; returns the projection of the training rows (in X's dtype)."""
        validate_params(self)
        X = self._validate_input(X, reset=True, accept_sparse=self.kernel != "precomputed")
        n = X.shape[0]
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square (n_samples, n_samples) matrix; got {X.shape}.")
        if self.n_landmarks is not None and self.kernel == "precomputed":
            raise ValueError("n_landmarks needs the data, not a precomputed kernel.")
        if self.fit_inverse_transform and self.kernel == "precomputed":
            raise ValueError(
                "Cannot fit_inverse_transform with a precomputed kernel: the pre-image map is learned from "
                "the data; pass X with its kernel's name (or a callable) instead of the kernel matrix."
            )
        check_n_components(self.n_components, n, n if self.n_landmarks is None else self.n_landmarks, "KernelPCA")
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        if self.kernel != "precomputed":
            warn_constant_features(column_moments(X)[1], "KernelPCA", X=X)
        if self.kernel == "rbf":
            self._warn_narrow_kernel(X)
        rng = check_random_state(self.random_state)
        self._dtype = X.dtype
        if self.n_landmarks is None:
            embedding = self._fit_exact(X, rng)
        else:
            embedding = self._fit_nystroem(X, rng)
        if self.fit_inverse_transform:
            self._fit_preimage(X, embedding)
        del self._dtype
        return embedding.astype(X.dtype)

    def _warn_narrow_kernel(self, X):
        """Warn when the rbf kernel is so narrow for the rows' spacing that two typical
        rows weigh less than e^-20: the kernel matrix is then nearly the identity and
        the components follow single rows (the default gamma, 1 / n_features, suits
        standardised rows; unscaled ones, such as the wine table's, gave a map of two
        points and noise)."""
        typical = median_squared_distance(X)
        if self.gamma_ * typical > NARROW:
            warn_user(
                f"KernelPCA: with gamma={self.gamma_:.3g} two typical rows (median squared distance {typical:.3g}) "
                f"weigh exp(-{self.gamma_ * typical:.3g}) in the rbf kernel, so it is nearly the identity and the "
                f"components follow single rows; set gamma to about {1.0 / typical:.3g} (1 / that distance) or "
                "standardise the data first.",
                UserWarning,
            )

    def _fit_exact(self, X, rng):
        n = X.shape[0]
        require_memory(
            2 * 8 * n * n,
            f"exact kernel PCA of {n} samples (an {n} x {n} kernel)",
            "pass n_landmarks=2000 (Nystroem) to work in O(n x landmarks) memory",
        )
        self._set_fit_points((X.copy() if sp.issparse(X) else np.array(X, copy=True)) if self.copy_X else X)
        K = self._kernel(X)
        if self.kernel == "precomputed":
            check_symmetric_kernel(K)
        self._center_col, self._center_all = center_kernel(K)
        k = self.n_components or n
        solver = self._choose_solver(n, k)
        w, V = top_eigenpairs(
            K, min(k, n) if solver == "dense" else k, solver, rng, self.tol, self.max_iter, self.iterated_power
        )
        if self.kernel == "precomputed":
            check_psd_kernel(w)
        # below n roundings of the largest (in K's precision) an eigenvalue is noise: zero
        keep = w > (w.max(initial=0.0) * n * np.finfo(K.dtype).eps)
        if self.n_components is None or self.remove_zero_eig:
            w, V, keep = w[keep], V[:, keep], keep[keep]
        w = np.where(keep, w, 0.0)
        (Vt,) = flip_signs(V.T)
        self.eigenvalues_, self.eigenvectors_ = w, Vt.T
        self.K_fit_rows_, self.K_fit_all_ = self._center_col, float(self._center_all)
        del self._center_col, self._center_all
        self.n_components_ = int(w.size)
        return self.eigenvectors_ * np.sqrt(w)

    def _set_fit_points(self, points):
        """Keep the training points (or landmarks) and, once, the shift of ``_kernel``."""
        self.X_fit_ = points
        self.kernel_shift_ = np.asarray(points.mean(axis=0, dtype=np.float64)).ravel()

    def _choose_solver(self, n, k):
        solver = {"lanczos": "arpack"}.get(self.eigen_solver, self.eigen_solver)
        if solver == "auto":
            solver = "dense" if n <= 1000 or k > n // 2 else ("arpack" if k < 10 else "randomized")
        if solver != "dense" and k >= n:
            solver = "dense"
        self.eigen_solver_ = solver
        return solver

    def _fit_nystroem(self, X, rng):
        n, m = X.shape[0], min(self.n_landmarks, X.shape[0])
        require_memory(8 * n * m * 3, f"Nystroem kernel PCA with {m} landmarks", "use fewer landmarks")
        self._set_fit_points(X[np.sort(rng.choice(n, size=m, replace=False))])
        w, U = scipy.linalg.eigh(self._kernel(self.X_fit_))
        keep = w > w.max() * m * np.finfo(np.float64).eps
        self._whiten = U[:, keep] / np.sqrt(w[keep])  # K_mm^(-1/2) on its range
        features = self._kernel(X, self.X_fit_) @ self._whiten
        pca = PCA(self.n_components, solver="covariance").fit(features)
        self.eigenvalues_ = pca.explained_variance_.astype(np.float64) * (n - 1)
        self.n_components_ = pca.n_components_
        self.nystroem_map_ = self._whiten @ pca.components_.T.astype(np.float64)
        self.nystroem_offset_ = pca.mean_.astype(np.float64) @ pca.components_.T.astype(np.float64)
        self.eigen_solver_ = "nystroem"
        del self._whiten
        return self._kernel(X, self.X_fit_) @ self.nystroem_map_ - self.nystroem_offset_

    def _fit_preimage(self, X, embedding):
        if sp.issparse(X):
            raise ValueError(
                "fit_inverse_transform learns dense pre-images of every training row; pass a dense "
                "array (sparse input is supported without it)."
            )
        self.X_transformed_fit_ = embedding
        Kz = self._preimage_kernel(embedding)
        Kz.flat[:: Kz.shape[0] + 1] += self.alpha
        self.dual_coef_ = scipy.linalg.solve(Kz, X.astype(np.float64), assume_a="pos")

    # ------------------------------------------------------------------ using the model
    def _check_loaded(self):
        """A loaded model's kernel width is what a fit sets: a positive number (a negative
        one turns the RBF kernel into exp(+d^2), infinite on rows far from zero)."""
        gamma = self.gamma_
        if isinstance(gamma, bool) or not (isinstance(gamma, numbers.Real) and np.isfinite(gamma) and gamma > 0):
            raise ValueError(f"gamma_ must be a positive finite number; got {self.gamma_!r}")

    def transform(self, X):
        """Project ``X`` on the kernel principal components.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) (or the kernel between X and the
            training data, for kernel='precomputed')

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X = self._validate_input(X, reset=False, accept_sparse=self.kernel != "precomputed")
        if "nystroem_map_" in self.__dict__:
            Z = self._kernel(X, self.X_fit_) @ self.nystroem_map_ - self.nystroem_offset_
            return Z.astype(X.dtype)
        K = self._kernel(X) if self.kernel == "precomputed" else self._kernel(X, self.X_fit_)
        K = K - self.K_fit_rows_[None, :] - K.mean(axis=1)[:, None] + self.K_fit_all_
        positive = self.eigenvalues_ > 0  # a zero eigenvalue's component is 0, as in the training rows
        scale = np.where(positive, 1.0 / np.sqrt(np.where(positive, self.eigenvalues_, 1.0)), 0.0)
        return ((K @ self.eigenvectors_) * scale).astype(X.dtype)

    def inverse_transform(self, X):
        """Pre-image by the learned kernel ridge map (needs ``fit_inverse_transform``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        if "dual_coef_" not in self.__dict__:
            raise NotFittedError(
                "inverse_transform needs the pre-image map, which is learned only with "
                "fit_inverse_transform=True: refit with KernelPCA(..., fit_inverse_transform=True)."
            )
        Z = self._validate_codes(X)
        return (self._preimage_kernel(Z, self.X_transformed_fit_) @ self.dual_coef_).astype(Z.dtype)

    def _preimage_kernel(self, Z, Y=None):
        """The same kernel, on embedded points (no training-data shift applies there)."""
        if callable(self.kernel):
            return self._kernel(Z, Y)
        return kernel_matrix(
            Z.astype(np.float64),
            None if Y is None else Y.astype(np.float64),
            kernel=self.kernel,
            gamma=self.gamma_,
            degree=self.degree,
            coef0=self.coef0,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags
