"""Agreement between two partitions: adjusted Rand index and normalised mutual information."""

import numpy as np


def _check_labelings(labels_true, labels_pred):
    a, b = np.asarray(labels_true), np.asarray(labels_pred)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"labels must be 1-D; got shapes {a.shape} and {b.shape}.")
    if a.shape != b.shape:
        raise ValueError(
            f"labels_true has {a.size} entries but labels_pred has {b.size}; pass one label per sample in both."
        )
    return a, b


def contingency_table(labels_true, labels_pred):
    """Counts of samples in each (true class, predicted cluster) pair.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Any hashable, sortable labels.

    Returns
    -------
    ndarray of int64, shape (n_classes, n_clusters)

    Examples
    --------
    >>> contingency_table([0, 0, 1], ["a", "b", "b"])
    array([[1, 1],
           [0, 1]])
    """
    a, b = _check_labelings(labels_true, labels_pred)
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    n_b = ib.max() + 1 if ib.size else 0
    n_a = ia.max() + 1 if ia.size else 0
    return np.bincount(ia * n_b + ib, minlength=n_a * n_b).reshape(n_a, n_b).astype(np.int64)


def _pairs(counts):
    counts = np.asarray(counts, dtype=np.float64)
    return float(np.sum(counts * (counts - 1)) / 2)


def adjusted_rand_score(labels_true, labels_pred):
    """Rand index of two partitions adjusted for chance (Hubert & Arabie, 1985).

    1.0 for identical partitions (up to renaming), about 0 for independent ones; it
    can be negative.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    float

    Examples
    --------
    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    table = contingency_table(labels_true, labels_pred)
    n = int(table.sum())
    if n < 2:
        return 1.0
    both = _pairs(table)
    rows, cols = _pairs(table.sum(axis=1)), _pairs(table.sum(axis=0))
    expected = rows * cols / (n * (n - 1) / 2)
    maximum = (rows + cols) / 2
    if maximum == expected:  # both partitions trivial in the same way
        return 1.0
    return float((both - expected) / (maximum - expected))


def _entropy(counts):
    p = counts[counts > 0] / counts.sum()
    return float(-np.sum(p * np.log(p)))


def mutual_info_score(labels_true, labels_pred):
    """Mutual information (in nats) between two partitions.

    Parameters
    ----------
    labels_true, labels_pred : array-like (n,)

    Returns
    -------
    float
        In nats.

    Examples
    --------
    >>> round(mutual_info_score([0, 0, 1, 1], [0, 0, 1, 1]), 4)
    0.6931
    """
    table = contingency_table(labels_true, labels_pred).astype(np.float64)
    n = table.sum()
    if n == 0:
        return 0.0
    i, j = np.nonzero(table)
    nij = table[i, j]
    outer = table.sum(axis=1)[i] * table.sum(axis=0)[j]
    return float(max(0.0, np.sum(nij / n * (np.log(nij) + np.log(n) - np.log(outer)))))


def _arithmetic_mean(a, b):
    return (a + b) / 2


def _geometric_mean(a, b):
    return np.sqrt(a * b)


_MEANS = {"arithmetic": _arithmetic_mean, "geometric": _geometric_mean, "min": min, "max": max}


def normalized_mutual_info_score(labels_true, labels_pred, *, average_method="arithmetic"):
    """Mutual information normalised by a mean of the two entropies (in [0, 1]).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
    average_method : {'arithmetic', 'geometric', 'min', 'max'}
        How the two entropies are averaged (scikit-learn's default is 'arithmetic').

    Returns
    -------
    float

    Examples
    --------
    >>> round(normalized_mutual_info_score([0, 0, 1, 1], [5, 5, 7, 7]), 12)
    1.0
    """
    if average_method not in _MEANS:
        raise ValueError(f"average_method must be one of {sorted(_MEANS)}; got {average_method!r}.")
    table = contingency_table(labels_true, labels_pred)
    h_true = _entropy(table.sum(axis=1).astype(np.float64))
    h_pred = _entropy(table.sum(axis=0).astype(np.float64))
    if h_true == 0 and h_pred == 0:  # both a single cluster: identical partitions
        return 1.0
    mi = mutual_info_score(labels_true, labels_pred)
    norm = _MEANS[average_method](h_true, h_pred)
    if norm <= 0:
        return 0.0
    return float(min(1.0, mi / norm))
