"""Choosing the number of principal components: variance fraction, Minka's MLE, CV."""

import numbers
from dataclasses import dataclass

import numpy as np

from .._random import check_random_state
from .._validation import check_array
from ._ppca_likelihood import minka_log_evidence, ppca_loglik_curve


def k_for_fraction(eigenvalues, total_variance, fraction):
    """Smallest k whose leading eigenvalues explain at least ``fraction`` of the variance.

    Examples
    --------
    >>> import numpy as np
    >>> k_for_fraction(np.array([5.0, 3.0, 2.0]), 10.0, 0.8)
    2
    """
    if total_variance <= 0:
        return 1
    cumulative = np.cumsum(eigenvalues) / total_variance
    reached = np.nonzero(cumulative >= fraction * (1 - 1e-12))[0]
    return int(reached[0]) + 1 if reached.size else int(eigenvalues.size)


def k_by_mle(eigenvalues, n_samples):
    """Minka's MLE of the dimensionality and the log-evidence curve over k = 1 .. d-1.

    Minka's approximation needs at least as many samples as features (as in
    scikit-learn); fewer raise ``ValueError``."""
    d = eigenvalues.size
    if n_samples < d:
        raise ValueError(f"n_components='mle' needs at least as many samples as features (Minka's estimate "
                         f"uses the whole covariance spectrum); got {n_samples} samples and {d} features. "
                         "Choose n_components as a variance fraction (e.g. 0.9), or use "
                         "select_n_components(X, method='cv').")
    ks = np.arange(1, max(d, 2))
    curve = np.array([minka_log_evidence(eigenvalues, k, n_samples) if k < d else -np.inf for k in ks])
    return int(ks[np.argmax(curve)]), ks, curve


def resolve_n_components(n_components, spectrum, n, d):
    """The number of components to keep, from the parameter and a solver's spectrum."""
    if n_components is None:
        return min(n, d)
    if n_components == "mle":
        full = np.zeros(d)
        full[: spectrum.eigenvalues.size] = spectrum.eigenvalues
        return k_by_mle(full, n)[0]
    if isinstance(n_components, numbers.Integral):
        return int(n_components)
    return k_for_fraction(spectrum.eigenvalues, spectrum.total_variance, float(n_components))


@dataclass
class ComponentSelection:
    """Result of ``select_n_components``.

    Attributes
    ----------
    n_components : int
        The chosen number of components.
    method : str
    candidates : ndarray
        The k values the curve is evaluated at.
    curve : ndarray
        Cumulative explained-variance ratio ('variance'), log-evidence ('mle') or mean
        held-out log-likelihood per sample ('cv'), one value per candidate.
    """

    n_components: int
    method: str
    candidates: np.ndarray
    curve: np.ndarray


def _cv_curve(X, ks, n_folds, rng, solver):
    from ._pca import PCA

    n, d = X.shape
    folds = np.array_split(rng.permutation(n), n_folds)
    total = np.zeros(len(ks))
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        model = PCA(n_components=min(train.size, d), solver=solver).fit(X[train])
        Xt = X[test] - model.mean_
        Z = Xt @ model.components_.T
        ll = ppca_loglik_curve(Z, np.einsum("ij,ij->i", Xt, Xt), model.explained_variance_,
                               model.total_variance_, d, ks)
        total += ll.sum(axis=0)
    return total / n


def select_n_components(X, method="variance", *, threshold=0.9, max_components=None,
                        n_folds=5, solver="auto", random_state=None):
    """Choose how many principal components to keep, and return the curve behind it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    method : {'variance', 'mle', 'cv'}
        'variance': smallest k explaining ``threshold`` of the variance;
        'mle': Minka's Laplace approximation of the PPCA evidence;
        'cv': k maximising the cross-validated held-out log-likelihood of
        probabilistic PCA (``n_folds`` folds).
    threshold : float in (0, 1)
        Variance fraction for 'variance'.
    max_components : int, optional
        Largest k considered for 'cv' (default: min(n_samples - n_samples / n_folds, n_features - 1)).
    n_folds : int
        Folds for 'cv'.
    solver : str
        PCA solver used for the fits.
    random_state : None, int or Generator
        Fold assignment for 'cv'.

    Returns
    -------
    ComponentSelection

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) @ rng.normal(size=(3, 10)) + 0.1 * rng.normal(size=(300, 10))
    >>> select_n_components(X, "mle").n_components
    3
    """
    from ._pca import PCA

    if method not in ("variance", "mle", "cv"):
        raise ValueError(f"method must be 'variance', 'mle' or 'cv'; got {method!r}.")
    X = check_array(X, estimator_name="select_n_components", min_samples=2)
    n, d = X.shape
    if method == "cv":
        if not 2 <= n_folds <= n:
            raise ValueError(f"n_folds must be between 2 and n_samples={n}; got {n_folds}.")
        top = max_components or min(n - -(-n // n_folds), d - 1)
        ks = np.arange(1, max(top, 1) + 1)
        curve = _cv_curve(X, ks, n_folds, check_random_state(random_state), solver)
        return ComponentSelection(int(ks[np.argmax(curve)]), method, ks, curve)
    model = PCA(n_components=None, solver=solver).fit(X)
    ev = model.explained_variance_.astype(np.float64)
    if method == "variance":
        if not 0 < threshold < 1:
            raise ValueError(f"threshold must be in (0, 1); got {threshold}.")
        ks = np.arange(1, ev.size + 1)
        curve = np.cumsum(ev) / model.total_variance_
        return ComponentSelection(k_for_fraction(ev, model.total_variance_, threshold), method, ks, curve)
    full = np.zeros(d)
    full[: ev.size] = ev
    k, ks, curve = k_by_mle(full, n)
    return ComponentSelection(k, method, ks, curve)
