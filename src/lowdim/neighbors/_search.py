"""A search for each row's nearest other rows: on the cluster for a dask array, else
with the index ``make_index`` chooses, queried in blocks (``self_neighbors``)."""

import numpy as np
import scipy.sparse as sp

from ._choose import make_index
from ._self_query import self_neighbors


def search_neighbors(X, k, *, algorithm="auto", metric="euclidean", metric_params=None, verbose=False):
    """``(distances, indices, index)`` of each row's ``k`` nearest other rows, searched:
    on the cluster for a dask array (``index`` None), else with ``make_index(algorithm,
    ...)`` (``index`` the built index, kept for ``transform``).

    Parameters
    ----------
    X : array-like, sparse matrix or dask array (n, d)
    k : int
    algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
    metric : str, default='euclidean'
    metric_params : dict, optional
    verbose : bool, default=False
        Progress bars over the index and the queries.

    Returns
    -------
    distances : ndarray of float32 (n, k), indices : ndarray of int32 (n, k), index : KNNIndex or None

    Examples
    --------
    >>> dist, idx, index = search_neighbors(np.array([[0.0], [1.0], [3.0]]), 1)
    >>> idx.ravel().tolist(), type(index).__name__
    ([1, 0, 1], 'ExactIndex')
    """
    from ..distributed import is_dask_array

    if is_dask_array(X):
        from ._dask_graph import dask_self_neighbors

        return (*dask_self_neighbors(X, k, metric=metric, algorithm=algorithm, metric_params=metric_params), None)
    index = make_index(algorithm, metric, X.shape[0], metric_params, sparse=sp.issparse(X), verbose=verbose)
    rows = X if sp.issparse(X) else np.asarray(X)
    index.build(rows)
    return (*self_neighbors(index, rows, k, verbose=verbose), index)
