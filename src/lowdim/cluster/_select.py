"""Choosing the number of clusters: elbow, silhouette, BIC / AIC, the gap statistic and
G-means."""

from dataclasses import dataclass, field

import numpy as np

from .._random import check_random_state
from .._validation import check_array
from .._warnings import warn_user
from ..metrics import silhouette_score
from ._gaussian_mixture import GaussianMixture
from ._gmeans import gmeans
from ._kmeans import KMeans

METHODS = ("elbow", "silhouette", "bic", "aic", "gap", "gmeans")


@dataclass
class ClusterCountSelection:
    """The result of ``select_n_clusters``.

    Attributes
    ----------
    n_clusters : int
        The choice.
    method : str
    candidates : ndarray of int
        The cluster counts tried.
    scores : ndarray
        The curve over ``candidates`` (inertia, silhouette, BIC, AIC or gap; for
        'gmeans' the inertia of each round's k).
    details : dict
        Extra curves (for 'gap': the standard errors ``s_k``; for 'gmeans': the
        clusters split in each round and the final ``centers``) and notes (for
        'silhouette': the sample size used).

    Examples
    --------
    >>> from lowdim import select_n_clusters
    >>> from lowdim.datasets import make_blobs
    >>> X, _ = make_blobs(300, centers=3, random_state=0)
    >>> choice = select_n_clusters(X, method="silhouette", k_range=range(2, 6), random_state=0)
    >>> choice.n_clusters, len(choice.scores)
    (3, 4)
    """

    n_clusters: int
    method: str
    candidates: np.ndarray
    scores: np.ndarray
    details: dict = field(default_factory=dict)


def knee_point(x, y):
    """Index of the knee of a decreasing curve: the point farthest from the chord
    joining its ends, both axes scaled to [0, 1] (the 'kneedle' construction).

    Parameters
    ----------
    x, y : array-like (m,)
        The curve's abscissae and (decreasing) values.

    Returns
    -------
    int
        Index into ``x``.

    Examples
    --------
    >>> knee_point(np.arange(1, 7), np.array([100.0, 40.0, 12.0, 10.0, 9.0, 8.5]))
    2
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3:
        return 0
    xs = (x - x[0]) / (x[-1] - x[0])
    span = y[0] - y[-1]
    ys = (y - y[-1]) / span if span != 0 else np.zeros_like(y)
    return int(np.argmax((1 - xs) - ys))


def _gap(X, ks, fit, rng, n_refs):
    """Gap statistic (Tibshirani, Walther & Hastie, 2001) with uniform references in the
    bounding box of the principal axes."""
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    Z = (X - mean) @ Vt.T
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    log_w = np.log([fit(X, k).inertia_ for k in ks])
    ref = np.empty((n_refs, len(ks)))
    for b in range(n_refs):
        R = rng.uniform(lo, hi, size=Z.shape) @ Vt + mean
        ref[b] = np.log([fit(R, k).inertia_ for k in ks])
    gap = ref.mean(axis=0) - log_w
    s = ref.std(axis=0) * np.sqrt(1 + 1 / n_refs)
    ok = np.flatnonzero(gap[:-1] >= gap[1:] - s[1:])
    return gap, s, (int(ok[0]) if ok.size else int(np.argmax(gap)))


def select_n_clusters(
    X,
    method="elbow",
    *,
    k_range=range(1, 11),
    sample_size=10000,
    n_refs=10,
    covariance_type="full",
    significance=1e-4,
    random_state=None,
    categorical=None,
):
    """Choose the number of clusters and return the curve the choice was read from.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    method : {'elbow', 'silhouette', 'bic', 'aic', 'gap', 'gmeans'}
        'elbow': k-means inertia, the knee located by ``knee_point``; 'silhouette':
        highest mean silhouette of the k-means labels (k >= 2), estimated from
        ``sample_size`` query points when n is larger (stated in ``details``);
        'bic' / 'aic': lowest criterion of a ``GaussianMixture``; 'gap': smallest k
        with ``gap(k) >= gap(k+1) - s(k+1)``; 'gmeans': G-means from the smallest k of
        ``k_range``, splitting every cluster that fails an Anderson-Darling test of
        normality at ``significance``, up to the largest k.
    k_range : iterable of int, default=range(1, 11)
    sample_size : int, default=10000
    n_refs : int, default=10
        Reference data sets for 'gap'.
    covariance_type : str, default='full'
        For 'bic' / 'aic': the k tried give every covariance its rows (d + 1 for 'full').
    significance : float, default=1e-4
        For 'gmeans': the p-value below which a cluster is split.
    random_state : None, int or Generator
    categorical : sequence of int or str, or 'all', optional
        The columns of a mixed table that hold categories (text columns of a DataFrame
        are categories anyway): 'elbow' then reads the knee of the k-prototypes cost
        (k-modes for 'all'), the other methods being defined for numbers only.

    Returns
    -------
    ClusterCountSelection

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.3, (100, 2)) for c in (0, 5, 10)])
    >>> select_n_clusters(X, "silhouette", k_range=range(2, 7), random_state=0).n_clusters
    3
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    if categorical is not None or _holds_text(X):
        return _select_mixed(X, method, k_range, categorical, check_random_state(random_state))
    X = check_array(X, estimator_name="select_n_clusters")
    ks = _candidates(k_range, X.shape[0], method)
    rng = check_random_state(random_state)

    def fit(data, k):
        return KMeans(k, n_init=3, random_state=rng).fit(data)

    details = {}
    if method == "elbow":
        scores = np.array([fit(X, k).inertia_ for k in ks])
        choice = knee_point(ks, scores)
    elif method == "silhouette":
        details["sample_size"] = n_query = min(sample_size, X.shape[0])
        scores = np.array([silhouette_score(X, fit(X, k).labels_, sample_size=n_query, random_state=rng) for k in ks])
        choice = int(np.argmax(scores))
    elif method in ("bic", "aic"):
        ks = _estimable_mixtures(ks, X.shape, covariance_type, method)
        models = [GaussianMixture(k, covariance_type=covariance_type, random_state=rng).fit(X) for k in ks]
        scores = np.array([getattr(m, method)(X) for m in models])
        choice = int(np.argmin(scores))
    elif method == "gmeans":
        ks, scores, choice = _gmeans_curve(X, ks, significance, rng, details)
    else:
        scores, details["s"], choice = _gap(X, ks, fit, rng, n_refs)
    return ClusterCountSelection(int(ks[choice]), method, ks, scores, details)


def _candidates(k_range, n, method):
    """The cluster counts of ``k_range`` that ``n`` rows allow (2 to n - 1 for the silhouette)."""
    ks = np.array(sorted({int(k) for k in k_range if 1 <= int(k) <= n}))
    if method == "silhouette":
        ks = ks[(ks >= 2) & (ks < n)]
    if ks.size == 0:
        raise ValueError(f"k_range {list(k_range)!r} holds no usable cluster count for {n} samples.")
    return ks


# rows a component needs for its covariance to be estimated, not set by reg_covar alone
def _rows_per_component(n_features, covariance_type):
    return {"full": n_features + 1, "diag": 2, "spherical": 2}.get(covariance_type, 1)


def _estimable_mixtures(ks, shape, covariance_type, method):
    """The cluster counts whose mixtures have enough rows for every covariance: beyond,
    components of one row each sit at ``reg_covar`` and their likelihood grows without
    bound, so the BIC (AIC) would always choose the most components."""
    n, d = shape
    need = _rows_per_component(d, covariance_type)
    limit = n - d if covariance_type == "tied" else n // need
    limit = max(limit, 1)
    kept = ks[ks <= limit]
    if kept.size < ks.size:
        warn_user(
            f"select_n_clusters({method!r}): {n} rows hold at most {limit} component{'s' * (limit > 1)} with a "
            f"'{covariance_type}' covariance each estimated from its rows ({need} rows per component in "
            f"{d} dimensions); k = {', '.join(map(str, ks[ks > limit]))} not tried. Pass more rows, "
            "covariance_type='diag' or 'spherical', or method='silhouette'.",
            UserWarning,
        )
    return kept


def _gmeans_curve(X, ks, significance, rng, details):
    """G-means from the smallest to the largest k: the counts it passed, their scores,
    the last as the choice (its splits and centres into ``details``)."""
    model, history = gmeans(X, int(ks[0]), int(ks[-1]), significance, rng)
    details.update(splits=np.array([h[2] for h in history]), centers=model.cluster_centers_)
    return np.array([h[0] for h in history]), np.array([h[1] for h in history]), len(history) - 1


def _holds_text(X):
    """A DataFrame with non-numeric columns, or an array of objects that are not all numbers."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None:
        return any(getattr(d, "kind", "O") not in "iuf" for d in dtypes)
    array = np.asarray(X) if not hasattr(X, "dtype") else X
    return array.dtype.kind in "OUS" and any(isinstance(v, str) for v in np.ravel(array)[:1000])


def _select_mixed(X, method, k_range, categorical, rng):
    """The elbow of the k-prototypes (k-modes) cost over ``k_range`` for a mixed table."""
    from ._kprototypes import KModes, KPrototypes

    if method != "elbow":
        raise ValueError(
            f"method={method!r} is defined for numbers; a table with categories takes method='elbow' (the knee "
            "of the k-prototypes cost)."
        )
    ks = _candidates(k_range, len(X), method)

    def cost(k):
        if isinstance(categorical, str) and categorical == "all":
            return KModes(int(k), n_init=3, random_state=rng).fit(X).cost_
        return KPrototypes(int(k), n_init=3, categorical=list(categorical or ()), random_state=rng).fit(X).cost_

    scores = np.array([cost(k) for k in ks])
    choice = knee_point(ks, scores)
    return ClusterCountSelection(int(ks[choice]), method, ks, scores, {"cost": "k-prototypes"})
