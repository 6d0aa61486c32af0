"""``IncrementalPCA``: scikit-learn's name for lowdim's exact streaming PCA."""

import scipy.sparse as sp

from .._params import BOOLEAN, NONE, Interval, validate_params
from .._validation import check_array
from ..linalg import iter_row_blocks
from ._pca import _DEFERRED, PCA, FinishedOnRead


class IncrementalPCA(PCA):
    """Exact streaming PCA with scikit-learn's ``IncrementalPCA`` parameters.

    Unlike scikit-learn's, the result does not depend on ``batch_size``: batches update
    exact running moments (mean and scatter), so the model equals ``PCA`` fitted on all
    rows at once with the covariance solver.

    Parameters
    ----------
    n_components : int or None
    whiten : bool
    copy : bool
        Kept for compatibility; the input is never modified.
    batch_size : int or None
        Rows per batch in ``fit`` (default ``5 * n_features``); memory only.

    Attributes
    ----------
    components_, explained_variance_, explained_variance_ratio_, singular_values_,
    mean_, noise_variance_, n_components_, n_samples_seen_ : as in ``PCA``.
    var_ : ndarray of shape (n_features,)
        Per-feature variance over all rows seen (divided by n, as scikit-learn's).
    batch_size_ : int
        Rows per batch of the last ``fit`` (or of the last ``partial_fit`` call).
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_iter_, n_samples_, solver_, scale_, total_variance_, running_mean_, running_scatter_, running_rows_ :
        As in ``PCA``.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import IncrementalPCA
    >>> X = np.random.default_rng(0).normal(size=(100, 4))
    >>> IncrementalPCA(n_components=2, batch_size=10).fit(X).n_samples_seen_
    100
    """

    _parameter_constraints = {
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "whiten": [BOOLEAN],
        "copy": [BOOLEAN],
        "batch_size": [NONE, Interval(int, 1, None, closed="left")],
    }
    _deferred = _DEFERRED + ("var_",)
    var_ = FinishedOnRead()
    # PCA parameters that IncrementalPCA does not expose
    solver, standardize, tol, iterated_power, n_oversamples = "covariance", False, 0.0, "auto", 10
    max_iter, random_state, verbose, svd_solver, power_iteration_normalizer = 1000, None, 0, None, "auto"

    def __init__(self, n_components=None, *, whiten=False, copy=True, batch_size=None):
        self.n_components = n_components
        self.whiten = whiten
        self.copy = copy
        self.batch_size = batch_size

    def fit(self, X, y=None):
        """Fit in batches of ``batch_size`` rows (the result does not depend on it).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        checked = check_array(X, estimator_name="IncrementalPCA", accept_sparse=True)
        _check_components_fit_features(self.n_components, *checked.shape)
        self.batch_size_ = rows = self.batch_size or 5 * checked.shape[1]
        return super().fit(_Rows(X, checked, rows))

    def partial_fit(self, X, y=None, check_input=True):
        """Add the rows of ``X`` to exact running moments (see ``PCA.partial_fit``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored
        check_input : bool
            Accepted for compatibility: the input is always checked (finite, numeric).

        Returns
        -------
        self
        """
        moments = "_accumulator" in self.__dict__ or "running_mean_" in self.__dict__
        seen = self.__dict__.get("n_samples_seen_", 0) if moments else 0
        super().partial_fit(X)
        self.batch_size_ = int(self.n_samples_seen_ - seen)
        return self

    def _set_spectrum(self, spectrum, dtype, solver, X=None):
        super()._set_spectrum(spectrum, dtype, solver, X)
        n = spectrum.n_samples
        self.var_ = (spectrum.variances * ((n - 1) / n)).astype(dtype)


def _check_components_fit_features(n_components, n_samples, n_features):
    """scikit-learn's first check, its words quoted (code may match them)."""
    if n_components is not None and n_components > n_features:
        raise ValueError(
            f"n_components={n_components} must be at most min(n_samples, n_features) = min({n_samples}, "
            f"{n_features}) = {min(n_samples, n_features)}; lower n_components. (scikit-learn: "
            f"n_components={n_components} invalid for n_features={n_features}, need more rows than columns for "
            "IncrementalPCA processing.)"
        )


class _Rows:
    """Iterator over the checked row blocks, each under the original input's column names
    (so that every block is validated as the frame it came from)."""

    def __init__(self, raw, X, rows):
        self._blocks = iter_row_blocks(X, rows)
        self._columns = list(raw.columns) if hasattr(raw, "columns") else None

    def __iter__(self):
        return self

    def __next__(self):
        block = next(self._blocks)
        if self._columns is None:
            return block
        import pandas as pd

        if sp.issparse(block):
            return pd.DataFrame.sparse.from_spmatrix(block, columns=self._columns)
        return pd.DataFrame(block, columns=self._columns, copy=False)
