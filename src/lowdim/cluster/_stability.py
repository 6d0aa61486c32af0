"""Choosing a clustering's scale parameter by stability (Ben-Hur, Elisseeff & Guyon 2002;
Lange et al. 2004): the value whose clusters a random subsample finds again.

For methods that have no k (Leiden's ``resolution``, HDBSCAN's ``min_cluster_size``),
each candidate value clusters all rows once and ``n_resamples`` random subsets of them;
its stability is the mean adjusted Rand index between each subset's labels and the full
labels of the same rows (noise, -1, counts as a group of its own). Values at which the
partition is an accident of the sample score low; the chosen value scores highest.
"""

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from .._random import check_random_state
from ..metrics import adjusted_rand_score


@dataclass
class StabilitySelection:
    """The result of ``select_by_stability``.

    Attributes
    ----------
    param : str
        The parameter chosen.
    value : object
        The chosen value (the highest mean stability; the first of equals).
    candidates : list
        The values tried.
    stability : ndarray (n_candidates,)
        Mean adjusted Rand index between resampled and full labels; NaN where all rows
        form fewer than two clusters (one cluster, or all noise, is found again by
        every subset and says nothing: such values are not chosen).
    spread : ndarray (n_candidates,)
        Its standard deviation over the resamples.
    n_clusters : ndarray of int (n_candidates,)
        Clusters found on all rows (noise not counted).
    details : dict
        'scores': the (n_candidates, n_resamples) indices themselves.

    Examples
    --------
    >>> from lowdim import HDBSCAN
    >>> from lowdim.cluster import select_by_stability
    >>> from lowdim.datasets import make_blobs
    >>> X, _ = make_blobs(300, centers=3, random_state=0)
    >>> choice = select_by_stability(HDBSCAN(), X, "min_cluster_size", [5, 20, 50], n_resamples=3, random_state=0)
    >>> len(choice.stability)
    3
    """

    param: str
    value: object
    candidates: list
    stability: np.ndarray
    spread: np.ndarray
    n_clusters: np.ndarray
    details: dict = field(default_factory=dict)


def _labels(estimator, data):
    return np.asarray(estimator.fit(data).labels_)


def _subset(data, rows, square):
    """The rows of the data (and the same columns of a graph or distance matrix)."""
    if square:
        return data[rows][:, rows] if sp.issparse(data) else np.asarray(data)[np.ix_(rows, rows)]
    return data[rows]


def _is_square(estimator):
    return "precomputed" in (getattr(estimator, "graph", None), getattr(estimator, "metric", None))


def select_by_stability(estimator, X, param, values, *, n_resamples=10, fraction=0.8, random_state=None):
    """Choose ``param`` of a clustering estimator by the stability of its clusters under
    subsampling.

    Parameters
    ----------
    estimator : clustering estimator
        Unfitted; cloned for every fit (Leiden, Louvain, HDBSCAN, DBSCAN, KMeans, ...).
        With ``graph='precomputed'`` or ``metric='precomputed'`` the subsets take the
        same rows and columns of ``X``.
    X : array-like, sparse matrix or graph
        What the estimator's ``fit`` takes.
    param : str
        The parameter to choose ('resolution', 'min_cluster_size', 'eps', ...).
    values : sequence
        Its candidate values.
    n_resamples : int, default=10
        Random subsets per value (the same subsets for every value).
    fraction : float in (0, 1), default=0.8
        Share of the rows in each subset.
    random_state : None, int or Generator
        Draws the subsets, and seeds estimators that take a ``random_state``.

    Returns
    -------
    StabilitySelection

    Examples
    --------
    >>> from lowdim import HDBSCAN
    >>> from lowdim.datasets import make_blobs
    >>> X, _ = make_blobs(400, centers=3, random_state=0)
    >>> choice = select_by_stability(HDBSCAN(), X, "min_cluster_size", [10, 30], n_resamples=3, random_state=0)
    >>> choice.param, len(choice.candidates)
    ('min_cluster_size', 2)
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be between 0 and 1 (a share of the rows); got fraction={fraction}.")
    if n_resamples < 2 or len(values) < 1:
        raise ValueError(
            f"need at least 2 resamples and one value; got n_resamples={n_resamples}, {len(values)} values."
        )
    rng = check_random_state(random_state)
    n = X.shape[0]
    size = max(2, int(round(fraction * n)))
    subsets = [np.sort(rng.choice(n, size=size, replace=False)) for _ in range(n_resamples)]
    seed = int(rng.integers(2**31 - 1))
    square = _is_square(estimator)
    scores, counts = np.empty((len(values), n_resamples)), np.empty(len(values), dtype=np.int64)
    for i, value in enumerate(values):
        model = clone(estimator).set_params(**{param: value})
        if "random_state" in model.get_params():
            model.set_params(random_state=seed)
        full = _labels(model, X)
        counts[i] = np.unique(full[full >= 0]).size
        for r, rows in enumerate(subsets):
            scores[i, r] = adjusted_rand_score(full[rows], _labels(clone(model), _subset(X, rows, square)))
    stability = np.where(counts >= 2, scores.mean(axis=1), np.nan)
    if np.isnan(stability).all():
        raise ValueError(
            f"every value of {param} ({', '.join(map(str, values))}) gives fewer than two clusters on these data; "
            "try values that split them more finely."
        )
    best = int(np.nanargmax(stability))
    return StabilitySelection(
        param, values[best], list(values), stability, scores.std(axis=1), counts, {"scores": scores}
    )
