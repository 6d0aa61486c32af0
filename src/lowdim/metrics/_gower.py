"""Gower's distance between the rows of mixed tables, as a matrix."""

from ..neighbors import GowerIndex


def gower_distances(X, Y=None, *, categorical=(), ordinal=(), weights=None):
    """Gower's (1971) distances between the rows of mixed tables.

    For each pair of rows, the weighted mean over the columns both have (not NaN) of:
    0 or 1 for categories that agree or not, and the absolute difference divided by the
    column's range for numbers and ordered codes (ranks). The ranges are those of ``X``.

    Parameters
    ----------
    X : array-like (n, d)
        Coded as numbers (``lowdim.preprocessing.mixed_codes`` codes a DataFrame or text
        columns); NaN for a missing cell.
    Y : array-like (m, d), optional
        Rows to compare with those of ``X`` (default: ``X`` itself).
    categorical, ordinal : sequence of int
        Column numbers of category codes and of ordered codes.
    weights : array-like (d,), optional
        One non-negative weight per column (default 1).

    Returns
    -------
    ndarray of float64 (m, n)
        NaN where a pair has no column in common. Rows of ``Y`` first: ``D[i, j]`` is the
        distance of ``Y[i]`` (or ``X[i]``) to ``X[j]``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 3.0], [0.0, np.nan]])
    >>> gower_distances(X, categorical=[0]).round(2).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    params = {"categorical": list(categorical), "ordinal": list(ordinal), "weights": weights}
    index = GowerIndex("gower", params)
    return index.build(X).pairwise(X if Y is None else Y)
