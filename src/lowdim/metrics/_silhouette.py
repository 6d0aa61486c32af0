"""Silhouette coefficients computed in row blocks (never an N x N matrix)."""

import numpy as np

from .._validation import check_array, check_labels_given, check_precomputed
from ..linalg import distance_blocks
from ..neighbors import GowerIndex
from ._sampling import query_rows


def _check_silhouette_input(X, labels, metric):
    X = check_array(X, estimator_name="silhouette", allow_nan=metric == "gower")
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != X.shape[0]:
        raise ValueError(
            f"labels has shape {labels.shape}, but X has {X.shape[0]} samples; pass one label per row of X."
        )
    check_labels_given(labels, "silhouette")
    if metric == "precomputed":
        check_precomputed(X)
    _, codes = np.unique(labels, return_inverse=True)
    k = int(codes.max()) + 1
    if not 2 <= k <= X.shape[0] - 1:
        raise ValueError(
            f"Number of labels is {k}. Valid values are 2 to n_samples - 1 "
            f"(inclusive) = {X.shape[0] - 1}; the silhouette needs at least two "
            "clusters and one cluster with two points."
        )
    return X, codes.astype(np.int64), k


def _block_silhouettes(D, own, starts, counts):
    """Silhouettes of one block of query rows from their distances ``D`` to every
    sample (columns sorted by label; ``starts`` where each label begins). A NaN
    distance (Gower: a pair with no column in common) is left out of the means."""
    unpaired = np.isnan(D)
    counts = np.broadcast_to(counts, (D.shape[0], counts.size))
    if unpaired.any():
        counts = np.add.reduceat(~unpaired, starts, axis=1).astype(np.float64)
        D = np.where(unpaired, 0.0, D)
    sums = np.add.reduceat(D, starts, axis=1).astype(np.float64)
    rows = np.arange(D.shape[0])
    own_count = counts[rows, own]
    a = sums[rows, own] / np.maximum(own_count - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_other = np.where(counts > 0, sums / counts, np.inf)
    mean_other[rows, own] = np.inf
    b = mean_other.min(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = (b - a) / np.maximum(a, b)
    s[(own_count == 1) | ~np.isfinite(s)] = 0.0  # singletons score 0 by convention
    return s


def silhouette_samples(X, labels, *, metric="euclidean", metric_params=None, rows=None):
    """Silhouette coefficient of each sample (or of the samples in ``rows``), each
    computed exactly against all samples, in row blocks.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) distances
    labels : array-like of shape (n_samples,)
    metric : str or callable
        'euclidean' (BLAS), 'precomputed', 'gower' for mixed tables (category codes,
        NaN gaps; a pair with no column in common is left out), or any metric scipy's
        ``cdist`` accepts.
    metric_params : dict, optional
        Keyword arguments of the metric ('categorical', 'ordinal', 'weights' for 'gower').
    rows : array of int, optional
        Compute only these samples' coefficients.

    Returns
    -------
    ndarray of shape (n_samples,) or (len(rows),)

    Examples
    --------
    >>> X = [[0.0], [0.1], [5.0], [5.1]]
    >>> silhouette_samples(X, [0, 0, 1, 1]).round(2)
    array([0.98, 0.98, 0.98, 0.98])
    """
    X, codes, k = _check_silhouette_input(X, labels, metric)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=k).astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    query = np.arange(X.shape[0]) if rows is None else np.asarray(rows)
    out = np.empty(len(query))
    if metric == "precomputed":
        for start in range(0, len(query), 2048):
            block = query[start : start + 2048]
            D = X[block][:, order]
            out[start : start + len(block)] = _block_silhouettes(D, codes[block], starts, counts)
        return out
    reference = X[order]
    pairwise = GowerIndex("gower", metric_params).build(reference).pairwise if metric == "gower" else None
    blocks = distance_blocks(X, reference, metric, rows=query, metric_params=metric_params, pairwise=pairwise)
    for start, stop, D in blocks:
        out[start:stop] = _block_silhouettes(D, codes[query[start:stop]], starts, counts)
    return out


def silhouette_score(X, labels, *, metric="euclidean", metric_params=None, sample_size=None, random_state=None):
    """Mean silhouette coefficient, exact or estimated from a sample of query points.

    With ``sample_size``, that many samples are drawn without replacement and each
    one's coefficient is computed exactly against *all* samples, so the result is an
    unbiased estimate of the exact mean at ``O(sample_size * n)`` cost (scikit-learn
    instead restricts both the queries and the reference set to the sample).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or distances if precomputed
    labels : array-like of shape (n_samples,)
    metric : str or callable
        As ``silhouette_samples``'s.
    metric_params : dict, optional
        Keyword arguments of the metric.
    sample_size : int, optional
        Number of query samples; None for the exact mean over all samples.
    random_state : None, int or Generator
        Draws the sample.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.1, (20, 2)), rng.normal(5, 0.1, (20, 2))])
    >>> silhouette_score(X, [0] * 20 + [1] * 20) > 0.9
    True
    """
    rows = query_rows(np.shape(X)[0], sample_size, random_state)
    return float(np.mean(silhouette_samples(X, labels, metric=metric, metric_params=metric_params, rows=rows)))
