"""Fisher linear discriminant analysis: supervised projection and classifier."""

import numpy as np
import scipy.linalg
from scipy.special import logsumexp
from sklearn.base import ClassifierMixin

from .._estimator import ComponentTransformer
from .._memory import require_memory
from .._messages import shown
from .._params import ARRAY_LIKE, BOOLEAN, NONE, HasMethods, Interval, Options, validate_params
from .._validation import check_sample_count, warn_constant_features
from .._warnings import warn_user
from ..exceptions import UnsupportedBySolver
from ..linalg import column_moments, flip_signs, symmetric_from_upper, syrk_upper, top_eigh
from ._n_components import explained_shares


def ledoit_wolf_shrinkage(Xc):
    """Ledoit-Wolf optimal shrinkage intensity for centred data (rows = samples).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 5))
    >>> 0.0 <= ledoit_wolf_shrinkage(X - X.mean(0)) <= 1.0
    True
    """
    n, d = Xc.shape
    S = Xc.T @ Xc / n
    mu = np.trace(S) / d
    delta = np.sum((S - mu * np.eye(d)) ** 2)  # distance of S to the scaled identity
    sq = Xc**2
    beta = (np.sum(sq.T @ sq) / n - np.sum(S**2)) / n  # variance of the entries of S
    return float(np.clip(min(beta, delta) / delta, 0.0, 1.0)) if delta > 0 else 1.0


def _own_copy(estimator):
    """A copy to fit, so the user's estimator is left as given: scikit-learn's clone
    for estimators, a deep copy of any other object with ``fit`` and ``covariance_``."""
    import copy

    from sklearn.base import clone

    return clone(estimator) if hasattr(estimator, "get_params") else copy.deepcopy(estimator)


def _shrunk_covariance(Xc, shrinkage, estimator=None):
    """Covariance of centred rows; a float shrinks it towards ``trace / d`` times the
    identity, 'auto' applies Ledoit-Wolf to the correlation matrix (as scikit-learn);
    a covariance ``estimator`` (``fit(X)`` then ``covariance_``) is used as given."""
    n, d = Xc.shape
    if estimator is not None:
        fitted = _own_copy(estimator)
        fitted.fit(Xc)  # scikit-learn's contract does not say what fit returns
        if not hasattr(fitted, "covariance_"):
            raise ValueError(
                f"covariance_estimator {type(estimator).__name__} has no covariance_ attribute after fit; pass a "
                "covariance estimator (sklearn.covariance.LedoitWolf(), OAS(), ...) or any object whose fit(X) "
                "sets covariance_."
            )
        return np.asarray(fitted.covariance_, dtype=np.float64)
    S = Xc.T @ Xc / n
    if shrinkage is None:
        return S
    if shrinkage != "auto":
        alpha = float(shrinkage)
        return (1 - alpha) * S + alpha * (np.trace(S) / d) * np.eye(d)
    scale = np.sqrt(np.maximum((Xc**2).mean(axis=0), 0.0))
    scale[scale == 0] = 1.0
    Z = Xc / scale  # shrink the correlation matrix, as the data's units are arbitrary
    alpha = ledoit_wolf_shrinkage(Z)
    S = Z.T @ Z / n
    S = (1 - alpha) * S + alpha * (np.trace(S) / d) * np.eye(d)
    return S * np.outer(scale, scale)


def _right_singular(A):
    """Singular values (descending) and right singular vectors (rows) of a tall ``A``:
    from the eigenpairs of ``A^T A`` when ``A`` has at least twice as many rows as
    columns (one BLAS pass over the rows instead of a LAPACK SVD of all of them; the
    squared condition number still leaves the values LDA keeps, down to 1e-4 of the
    largest, at about 1e-8 relative accuracy), else an SVD."""
    n, d = A.shape
    if n < 2 * d:
        _, s, Vt = scipy.linalg.svd(A, full_matrices=False)
        return s, Vt
    w, V = top_eigh(symmetric_from_upper(syrk_upper(np.ascontiguousarray(A))))
    return np.sqrt(np.maximum(w, 0.0)), V.T


class LinearDiscriminantAnalysis(ClassifierMixin, ComponentTransformer):
    """Fisher LDA: directions that separate class means relative to within-class spread.

    A drop-in for ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis``.
    ``transform`` projects to at most ``n_classes - 1`` dimensions (centred on
    ``xbar_``; 'svd' and 'eigen' solvers); ``predict`` is the Gaussian classifier with
    a shared covariance.

    Parameters
    ----------
    solver : {'svd', 'eigen', 'lsqr'}
        'svd': whitening by an SVD of the within-class-centred data (no covariance
        matrix formed; no shrinkage); 'eigen': generalised eigenproblem of the between-
        and within-class covariances (supports shrinkage); 'lsqr': the classifier
        alone, by least squares on the within-class covariance (supports shrinkage;
        no ``transform``).
    shrinkage : None, 'auto' or float in [0, 1]
        'eigen' and 'lsqr': Ledoit-Wolf ('auto') or fixed shrinkage of the
        within-class correlation towards the identity.
    priors : array-like of shape (n_classes,) or None
        Class priors (default: class frequencies).
    n_components : int or None
        Dimension of ``transform`` (default and maximum ``min(n_classes - 1, n_features)``).
    store_covariance : bool
        Keep ``covariance_`` with the 'svd' solver.
    tol : float
        Relative singular-value threshold below which directions are dropped ('svd').
    covariance_estimator : estimator or None
        'eigen' and 'lsqr': an object with ``fit(X)`` and ``covariance_`` (e.g.
        ``sklearn.covariance.OAS()``) that estimates each class's covariance, in
        place of the sample covariance; not combined with ``shrinkage``.

    Attributes
    ----------
    classes_, priors_, means_, xbar_ : class labels, priors, class means, weighted mean
    scalings_ : ndarray of shape (n_features, rank)
        Discriminant directions (columns), largest-magnitude entry positive ('svd' and
        'eigen').
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of between-class variance along each direction.
    coef_, intercept_ : linear decision function (one row for two classes)
    covariance_ : ndarray of shape (n_features, n_features)
        Within-class covariance ('eigen', or 'svd' with ``store_covariance``).
    n_components_, n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lowdim import LinearDiscriminantAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> lda = LinearDiscriminantAnalysis().fit(X, y)
    >>> lda.transform(X).shape, round(lda.score(X, y), 2)
    ((150, 2), 0.98)
    """

    _parameter_constraints = {
        "solver": [Options({"svd", "eigen", "lsqr"})],
        "shrinkage": [NONE, Options({"auto"}), Interval(float, 0, 1, closed="both")],
        "priors": [NONE, ARRAY_LIKE],
        "n_components": [NONE, Interval(int, 1, None, closed="left")],
        "store_covariance": [BOOLEAN],
        "tol": [Interval(float, 0, None, closed="left")],
        "covariance_estimator": [NONE, HasMethods(["fit"])],
    }

    def __init__(
        self,
        solver="svd",
        shrinkage=None,
        priors=None,
        n_components=None,
        store_covariance=False,
        tol=1e-4,
        covariance_estimator=None,
    ):
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator

    def fit(self, X, y):
        """Fit on data ``X`` with class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        y = self._check_targets(y, X.shape[0])  # sets classes_
        self._check_shapes(X)
        if self.solver == "svd" and (self.shrinkage is not None or self.covariance_estimator is not None):
            given = "shrinkage" if self.shrinkage is not None else "covariance estimator"
            raise UnsupportedBySolver(
                f"{given} is not supported with svd solver: shrinkage and covariance_estimator are not supported "
                "by solver='svd'; use solver='eigen' or 'lsqr'."
            )
        if self.shrinkage is not None and self.covariance_estimator is not None:
            raise ValueError(
                "covariance_estimator and shrinkage parameters are not None. Only one of the two can be set: "
                "the estimator does its own regularisation, so pass shrinkage=None with it."
            )
        if self.solver != "svd":  # the within-class covariance, its inverse or eigenvectors: d x d each
            d = X.shape[1]
            require_memory(
                3 * 8 * d * d,
                f"LinearDiscriminantAnalysis(solver={self.solver!r}) on {d} features ({d} x {d} covariances)",
                "use solver='svd' (the default), which never builds them",
            )
        warn_constant_features(column_moments(X)[1], "LinearDiscriminantAnalysis", X=X)
        X64 = X.astype(np.float64)
        onehot = (y[:, None] == np.arange(len(self.classes_))).astype(np.float64)
        counts = onehot.sum(axis=0)
        self.means_ = (onehot.T @ X64) / counts[:, None]
        self.priors_ = self._priors(counts)
        self.xbar_ = self.priors_ @ self.means_
        within = X64 - self.means_[y]
        solve = {"svd": self._solve_svd, "lsqr": self._solve_lsqr, "eigen": self._solve_eigen}[self.solver]
        solve(X64, within, y)
        self._finish(X.dtype)
        return self

    def _check_targets(self, y, n):

        from sklearn.exceptions import DataConversionWarning
        from sklearn.utils.multiclass import type_of_target

        if y is None:
            raise ValueError(
                "LinearDiscriminantAnalysis requires y to be passed, but the target y "
                "is None: fit(X, y) needs class labels."
            )
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warn_user(
                "A column-vector y was passed when a 1d array was expected; it is flattened (pass y.ravel()).",
                DataConversionWarning,
            )
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"y should be a 1d array with one label per row of X ({n}); got shape {y.shape}.")
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("Input y contains NaN or infinity; every row needs a class label.")
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {kind}. LinearDiscriminantAnalysis needs class "
                "labels (integers or strings), not a continuous target."
            )
        self.classes_, codes = np.unique(y, return_inverse=True)
        return codes

    def _check_shapes(self, X):
        n, d = X.shape
        n_classes = len(self.classes_)
        check_sample_count(n, "LinearDiscriminantAnalysis")
        if n_classes < 2:
            raise ValueError(
                f"LinearDiscriminantAnalysis needs at least 2 classes; y has 1 class ({shown(self.classes_[0])})."
            )
        if n <= n_classes:
            raise ValueError(
                f"The number of samples must be more than the number of classes: {n} samples, {n_classes} classes; "
                "each class needs a sample beyond its mean for the within-class covariance."
            )
        top = min(n_classes - 1, d)
        if self.n_components is not None and self.n_components > top:
            raise ValueError(
                f"n_components={self.n_components} must be at most min(n_features, n_classes - 1) = "
                f"min({d}, {n_classes - 1}) = {top}; lower n_components. (scikit-learn: n_components cannot be "
                "larger than min(n_features, n_classes - 1).)"
            )

    def _priors(self, counts):
        if self.priors is None:
            return counts / counts.sum()
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.shape != counts.shape or np.any(priors < 0):
            raise ValueError(f"priors must be non-negative, one per class ({counts.size} values); got {priors!r}.")
        if not np.isclose(priors.sum(), 1.0):
            warn_user(f"The priors do not sum to 1. Renormalizing: {priors!r} sums to {priors.sum():g}.", UserWarning)
        return priors / priors.sum()

    def _solve_svd(self, X, within, codes):
        n = X.shape[0]
        std = within.std(axis=0)
        std[std == 0] = 1.0
        fac = 1.0 / n  # maximum-likelihood pooled covariance, as the 'eigen' solver and scikit-learn
        s, Vt = _right_singular(np.sqrt(fac) * within / std)
        rank = int(np.sum(s > self.tol * s[0])) if s.size and s[0] > 0 else 0
        if rank == 0:
            raise ValueError(
                "all rows within each class are identical (zero within-class variance); LDA has no directions to find."
            )
        whiten = (Vt[:rank] / std).T / s[:rank]  # within-class whitening (d, rank)
        centered_means = np.sqrt(n * self.priors_ * fac)[:, None] * (self.means_ - self.xbar_)
        _, sb, Vb = scipy.linalg.svd(centered_means @ whiten, full_matrices=False)
        rank_b = int(np.sum(sb > self.tol * sb[0])) if sb.size and sb[0] > 0 else 0
        self.scalings_ = whiten @ Vb.T[:, : max(rank_b, 1)]
        self._between = sb[: max(rank_b, 1)] ** 2
        coef = (self.means_ - self.xbar_) @ self.scalings_
        self._linear_model(coef @ self.scalings_.T, -0.5 * np.sum(coef**2, axis=1))
        if self.store_covariance:
            self.covariance_ = within.T @ within / n

    def _within_covariance(self, within, codes):
        """Prior-weighted within-class covariance (shrunk or estimated as asked)."""
        Sw = np.zeros((within.shape[1], within.shape[1]))
        for c in range(len(self.classes_)):
            Sw += self.priors_[c] * _shrunk_covariance(within[codes == c], self.shrinkage, self.covariance_estimator)
        return Sw

    def _solve_lsqr(self, X, within, codes):
        self._covariance_classifier(self._within_covariance(within, codes))

    def _covariance_classifier(self, Sw):
        """The Gaussian classifier from the within-class covariance, by least squares."""
        self.covariance_ = Sw
        coef = scipy.linalg.lstsq(Sw, self.means_.T)[0].T
        self._linear_model(coef, -0.5 * np.sum(self.means_ * coef, axis=1))

    def _solve_eigen(self, X, within, codes):
        n_classes = len(self.classes_)
        Sw = self._within_covariance(within, codes)
        St = _shrunk_covariance(X - X.mean(axis=0), self.shrinkage, self.covariance_estimator)
        Sb = St - Sw
        try:
            w, V = scipy.linalg.eigh(Sb, Sw)
        except np.linalg.LinAlgError:
            raise ValueError("the within-class covariance is singular; use shrinkage='auto' or solver='svd'.") from None
        order = np.argsort(w)[::-1][: min(n_classes - 1, X.shape[1])]
        self.scalings_, self._between = V[:, order], np.maximum(w[order], 0.0)
        self._between_total = w.sum()  # shares over all directions (shrinkage spreads them)
        self._covariance_classifier(Sw)

    def _linear_model(self, coef, intercept):
        intercept = intercept + np.log(np.maximum(self.priors_, np.finfo(float).tiny))
        if self.solver == "svd":
            intercept = intercept - self.xbar_ @ coef.T
        if len(self.classes_) == 2:  # one decision function, as in scikit-learn
            coef, intercept = coef[1:] - coef[:1], intercept[1:] - intercept[:1]
        self.coef_, self.intercept_ = coef, intercept

    def _finish(self, dtype):
        self.coef_, self.intercept_ = self.coef_.astype(dtype), self.intercept_.astype(dtype)
        if self.solver == "lsqr":  # a classifier only: no directions
            self.n_components_ = 0
            return
        k = self.n_components or min(len(self.classes_) - 1, self.n_features_in_)
        k = min(k, self.scalings_.shape[1])
        (flipped,) = flip_signs(self.scalings_.T)
        self.scalings_ = flipped.T.astype(dtype)
        total = self.__dict__.pop("_between_total", self._between.sum())
        ratio = explained_shares(self._between, total)
        self.explained_variance_ratio_ = ratio[:k].astype(dtype)
        self.n_components_ = int(k)
        del self._between

    def transform(self, X):
        """Project ``X`` on the discriminant directions (centred on ``xbar_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        if self.solver == "lsqr":
            raise NotImplementedError(
                "transform not implemented for 'lsqr' solver: solver='lsqr' fits the classifier "
                "only; use solver='svd' or 'eigen'."
            )
        X = self._validated(X)
        Z = (X - self.xbar_.astype(X.dtype)) @ self.scalings_[:, : self.n_components_]
        return Z.astype(X.dtype, copy=False)

    def _check_loaded(self):
        """A loaded model's decision rows: one for two classes, one per class above."""
        rows = 1 if len(self.classes_) == 2 else len(self.classes_)
        if self.coef_.shape[0] != rows or self.intercept_.shape[0] != rows:
            raise ValueError(
                f"{len(self.classes_)} classes make {rows} decision rows; coef_ has {self.coef_.shape[0]} and "
                f"intercept_ {self.intercept_.shape[0]}"
            )

    def _validated(self, X):
        return self._validate_input(X, reset=False)

    def decision_function(self, X):
        """Linear decision values (log-posterior up to a constant per row).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
        """
        scores = self._validated(X).astype(np.float64) @ self.coef_.T.astype(np.float64) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_log_proba(self, X):
        """Log class posteriors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.column_stack([np.zeros_like(scores), scores])
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Class posteriors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        best = np.argmax(self.predict_log_proba(X), axis=1)  # checks fitted first
        return self.classes_[best]
