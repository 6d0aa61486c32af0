"""What HDBSCAN takes as scikit-learn's does: the metrics its trees allow per
``algorithm`` (checked before the data are read), and rows with infinity or NaN,
labelled apart."""

import numpy as np

# scikit-learn's KDTree.valid_metrics and BallTree.valid_metrics (a callable: BallTree only)
KD_TREE_METRICS = frozenset(
    {"euclidean", "l2", "minkowski", "p", "manhattan", "cityblock", "l1", "chebyshev", "infinity"}
    | {"taxicab", "linfinity"}  # lowdim's aliases of two of them
)
BALL_TREE_METRICS = KD_TREE_METRICS | {
    "seuclidean",
    "mahalanobis",
    "hamming",
    "canberra",
    "braycurtis",
    "jaccard",
    "dice",
    "rogerstanimoto",
    "russellrao",
    "sokalmichener",
    "sokalsneath",
    "haversine",
}
INFINITE_LABEL, MISSING_LABEL = -2, -3  # scikit-learn's labels of rows with infinity / NaN


def check_metric_for_algorithm(metric, algorithm):
    """Refuse a metric scikit-learn's tree for ``algorithm`` does not take (its words).

    lowdim's HDBSCAN searches Euclidean rows with its own k-d tree and other metrics
    by all pairwise distances whatever ``algorithm`` says; the check keeps code
    written for scikit-learn failing where it failed there.

    Examples
    --------
    >>> check_metric_for_algorithm("euclidean", "kd_tree")
    """
    if algorithm not in ("kd_tree", "ball_tree"):
        return
    valid = KD_TREE_METRICS if algorithm == "kd_tree" else BALL_TREE_METRICS
    if callable(metric) or metric not in valid:  # scikit-learn's HDBSCAN passes no callable to a tree
        name = getattr(metric, "__name__", metric)
        tree = "KDTree" if algorithm == "kd_tree" else "BallTree"
        raise ValueError(
            f"{name} is not a valid metric for a {tree}-based algorithm. Please select a different metric. "
            "(algorithm='auto' or 'brute' takes it.)"
        )


def left_out_rows(X):
    """``(finite rows of X, finite mask, NaN mask)``: rows with infinity or NaN are left
    out of the tree (scikit-learn's HDBSCAN labels them apart); masks are None when
    every row is finite."""
    finite = np.isfinite(X).all(axis=1)
    if finite.all():
        return X, None, None
    if not finite.any():
        raise ValueError("every row of X holds infinity or NaN: there is nothing to cluster.")
    return X[finite], finite, np.isnan(X).any(axis=1)


def spread_rows(values, finite, missing, at_inf, at_nan):
    """Per-row ``values`` (one entry or one row each) of the finite rows placed among
    all rows, ``at_nan`` at rows with NaN and ``at_inf`` at the other left-out rows.

    Examples
    --------
    >>> spread_rows(np.array([1, 2]), np.array([True, False, True]), np.array([False, True, False]), -2, -3)
    array([ 1, -3,  2])
    """
    dtype = np.result_type(values.dtype, np.min_scalar_type(at_inf), np.min_scalar_type(at_nan))
    out = np.full((finite.size, *values.shape[1:]), at_inf, dtype=dtype)
    out[missing] = at_nan
    out[finite] = values
    return out


def spread_like_core(values, core, at_inf, at_nan):
    """Per-tree-row ``values`` placed among all rows of a fit whose ``core_distances_``
    mark the left-out rows (inf, NaN)."""
    finite = np.isfinite(core)
    return values if finite.all() else spread_rows(values, finite, np.isnan(core), at_inf, at_nan)
