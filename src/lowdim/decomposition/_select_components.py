"""Choosing the number of principal components with the curve behind the choice:
cumulative variance, Minka's MLE evidence, cross-validated PPCA likelihood."""

from dataclasses import dataclass

import numpy as np

from .._random import check_random_state
from .._validation import check_array
from ._n_components import k_by_mle, k_for_fraction
from ._pca import PCA
from ._ppca_likelihood import ppca_loglik_curve


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

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from lowdim import select_n_components
    >>> choice = select_n_components(load_iris().data, method="variance", threshold=0.95)
    >>> choice.n_components, choice.method
    (2, 'variance')
    """

    n_components: int
    method: str
    candidates: np.ndarray
    curve: np.ndarray


def _cv_curve(X, ks, n_folds, rng, solver):
    n, d = X.shape
    folds = np.array_split(rng.permutation(n), n_folds)
    total = np.zeros(len(ks))
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        model = PCA(n_components=min(train.size, d), solver=solver).fit(X[train])
        Xt = X[test] - model.mean_
        Z = Xt @ model.components_.T
        ll = ppca_loglik_curve(
            Z, np.einsum("ij,ij->i", Xt, Xt), model.explained_variance_, model.total_variance_, d, ks
        )
        total += ll.sum(axis=0)
    return total / n


def select_n_components(
    X, method="variance", *, threshold=0.9, max_components=None, n_folds=5, solver="auto", random_state=None
):
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
