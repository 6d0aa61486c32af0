"""Top principal-component scores as a starting point or reference for other methods."""

import warnings

import numpy as np
import scipy.sparse as sp

from ._pca import PCA


def principal_scores(X, n_components, rng):
    """Top principal-component scores of ``X``, padded with small noise columns when
    ``X`` has fewer features (or samples) than ``n_components``.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
    n_components : int
    rng : numpy.random.Generator
        For the randomized solver and the padding.

    Returns
    -------
    ndarray (n_samples, n_components), float64

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 5)) * [5, 2, 1, 1, 1]
    >>> Y = principal_scores(X, 2, np.random.default_rng(0))
    >>> Y.shape, bool(np.var(Y[:, 0]) > np.var(Y[:, 1]))
    ((100, 2), True)
    """
    k = min(n_components, X.shape[1], X.shape[0])
    Y = np.zeros((X.shape[0], n_components))
    with warnings.catch_warnings():  # callers have already warned about constant features
        warnings.simplefilter("ignore", UserWarning)
        X = X.astype(np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        Y[:, :k] = PCA(k, random_state=rng).fit_transform(X)
    if k < n_components:
        Y[:, k:] = rng.normal(0.0, max(float(np.std(Y[:, 0])), 1.0) * 1e-3, size=(X.shape[0], n_components - k))
    return Y
