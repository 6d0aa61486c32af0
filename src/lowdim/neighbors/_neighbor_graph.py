"""One neighbour graph for many maps: each row's nearest other rows, computed once (the
costly step of every neighbour method) and handed to TSNE, UMAP, PaCMAP, Isomap,
SpectralEmbedding, LocallyLinearEmbedding, HDBSCAN and the neighbour metrics."""

import numpy as np
import scipy.sparse as sp

from ._base import KNNIndex
from ._choose import make_index
from ._exact import ExactIndex, check_n_neighbors
from ._search import search_neighbors
from ._self_query import self_neighbors

# what a graph's metric is called when it came from distances the caller computed
UNNAMED = ("precomputed", "unknown")


class NeighborGraph:
    """The ``n_neighbors`` nearest other rows of every row: indices, distances, the
    metric and how they were found.

    Build it once with ``NeighborGraph.build(X, n_neighbors)`` (or wrap neighbours
    found elsewhere: ``from_knn``, ``from_distances``) and pass it as
    ``precomputed_knn`` to any neighbour method: a method that needs ``k`` neighbours
    reads the graph's first ``k`` columns, so one graph with the largest ``k`` of a
    sweep serves every fit of it. Stored compactly (float32 distances, int32 indices),
    without each row itself.

    Parameters
    ----------
    indices : array-like of int (n_samples, n_neighbors)
        Row ``i`` lists ``i``'s nearest other rows, nearest first.
    distances : array-like (n_samples, n_neighbors)
        The matching distances, non-decreasing along each row.
    metric : str, default='unknown'
        The distance the neighbours were found by ('euclidean', 'cosine', ...);
        methods with another metric refuse the graph. 'precomputed' or 'unknown': not
        checked.
    algorithm : str, default='given'
        How the neighbours were found: 'exact', 'approximate', 'precomputed', the
        name of a ``KNNIndex`` class, or 'given'.
    exact : bool or None, default=None
        Whether they are the exact nearest neighbours (None: not known).

    Attributes
    ----------
    n_samples, n_neighbors : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import UMAP
    >>> X = np.random.default_rng(0).normal(size=(200, 5))
    >>> graph = NeighborGraph.build(X, 30)
    >>> graph.n_neighbors, graph.metric, graph.exact
    (30, 'euclidean', True)
    >>> maps = [UMAP(n_neighbors=k, precomputed_knn=graph, random_state=0).fit_transform(X) for k in (10, 30)]
    >>> [m.shape for m in maps]
    [(200, 2), (200, 2)]
    """

    def __init__(self, indices, distances, *, metric="unknown", algorithm="given", exact=None):
        indices, distances = np.asarray(indices), np.asarray(distances)
        if indices.ndim != 2 or indices.shape != distances.shape or indices.shape[1] < 1:
            raise ValueError(
                "a NeighborGraph needs indices and distances of one shape (n_samples, n_neighbors >= 1); "
                f"got indices {indices.shape} and distances {distances.shape}."
            )
        n = indices.shape[0]
        _check_entries(indices, distances, n)
        self.indices = indices.astype(np.int32 if n < 2**31 else np.int64)
        self.distances = distances.astype(np.float32)
        self.metric, self.algorithm, self.exact = str(metric), str(algorithm), exact

    @property
    def n_samples(self):
        return self.indices.shape[0]

    @property
    def n_neighbors(self):
        return self.indices.shape[1]

    def __repr__(self):
        return (
            f"NeighborGraph(n_samples={self.n_samples}, n_neighbors={self.n_neighbors}, "
            f"metric={self.metric!r}, algorithm={self.algorithm!r}, exact={self.exact})"
        )

    @classmethod
    def build(cls, X, n_neighbors=15, *, metric="euclidean", algorithm="auto", metric_params=None, verbose=False):
        """Find every row's ``n_neighbors`` nearest other rows of ``X``.

        Parameters
        ----------
        X : array-like (n, d), scipy.sparse matrix or dask array
            A dask array's graph is built on its cluster (row blocks against per-block
            indexes).
        n_neighbors : int, default=15
            The most any fit that will read the graph needs (t-SNE: 3 x perplexity).
        metric : str, default='euclidean'
            Any metric of ``make_index``.
        algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
            'auto' is approximate (HNSW, faiss) from 20,000 rows on for Euclidean and
            cosine distances, exact below.
        metric_params : dict, optional
        verbose : bool, default=False
            Progress bars (index, queries) with an ETA.

        Returns
        -------
        NeighborGraph

        Examples
        --------
        >>> import numpy as np
        >>> NeighborGraph.build(np.array([[0.0], [1.0], [3.0]]), 1).indices.ravel().tolist()
        [1, 0, 1]
        """
        from ..distributed import is_dask_array

        check_n_neighbors(n_neighbors, X.shape[0])
        dist, idx, index = search_neighbors(
            X, n_neighbors, algorithm=algorithm, metric=metric, metric_params=metric_params, verbose=verbose
        )
        if is_dask_array(X):  # searched on the cluster
            return cls(idx, dist, metric=metric, algorithm=f"dask {algorithm}", exact=algorithm == "exact")
        how = "precomputed" if index is None else _index_name(algorithm, index)  # a sparse distance matrix's
        return cls(idx, dist, metric=metric, algorithm=how, exact=how == "exact")

    @classmethod
    def from_knn(cls, knn, *, metric="unknown", algorithm="given", exact=None):
        """Wrap neighbours in umap-learn's ``precomputed_knn`` layout: ``(indices,
        distances)``, each row's first entry the row itself (pynndescent's and
        umap-learn's ``nearest_neighbors`` output).

        Parameters
        ----------
        knn : tuple (indices, distances[, anything])
        metric, algorithm, exact : see the class

        Returns
        -------
        NeighborGraph

        Examples
        --------
        >>> NeighborGraph.from_knn(([[0, 1], [1, 0]], [[0.0, 2.0], [0.0, 2.0]])).indices.tolist()
        [[1], [0]]
        """
        if isinstance(knn, NeighborGraph):
            return knn
        indices, distances = (tuple(knn) + (None, None))[:2]
        indices, distances = np.asarray(indices), np.asarray(distances)
        if indices.ndim != 2 or indices.shape != distances.shape or indices.shape[1] < 2:
            raise ValueError(
                "precomputed_knn must hold (n_samples, at least 2) indices and distances, each point "
                f"itself first; got indices {indices.shape} and distances {distances.shape}."
            )
        own = indices[:, 0] != np.arange(indices.shape[0])
        if own.any():
            i = int(np.argmax(own))
            raise ValueError(
                f"precomputed_knn lists each point itself first (umap-learn's layout); row {i} starts with "
                f"{indices[i, 0]}. Pass neighbours without the point itself as NeighborGraph(indices, distances)."
            )
        return cls(indices[:, 1:], distances[:, 1:], metric=metric, algorithm=algorithm, exact=exact)

    @classmethod
    def from_distances(cls, D, n_neighbors):
        """The ``n_neighbors`` nearest other rows from a distance matrix: dense
        (n, n), or sparse with each row's candidate neighbours stored (entries not
        stored are not neighbours; a stored zero is a distance of zero).

        Parameters
        ----------
        D : ndarray or scipy.sparse matrix (n, n)
        n_neighbors : int

        Returns
        -------
        NeighborGraph
            metric 'precomputed', exact.

        Examples
        --------
        >>> import numpy as np
        >>> D = np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]])
        >>> NeighborGraph.from_distances(D, 1).indices.ravel().tolist()
        [1, 0, 1]
        """
        if D.ndim != 2 or D.shape[0] != D.shape[1]:
            raise ValueError(f"a distance matrix must be square (n, n); got shape {D.shape}.")
        n = D.shape[0]
        check_n_neighbors(n_neighbors, n)
        if sp.issparse(D):
            dist, idx = stored_smallest(D, n_neighbors)
        else:
            index = make_index("exact", "precomputed", n).build(np.asarray(D, dtype=np.float64))
            dist, idx = self_neighbors(index, D, n_neighbors)
        return cls(idx, dist, metric="precomputed", algorithm="precomputed", exact=True)

    def neighbors(self, k, *, name="this method", minimum=None):
        """``(distances, indices)`` of each row's first ``k`` neighbours (float32,
        int32; fewer if the graph has fewer and ``minimum`` allows it).

        Examples
        --------
        >>> NeighborGraph([[1, 2], [0, 2], [1, 0]], [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0]]).neighbors(1)[1].tolist()
        [[1], [0], [1]]

        Parameters
        ----------
        k : int
        name : str
            Who asks, for the error message.
        minimum : int, optional
            The fewest columns that will do (default ``k``).

        Returns
        -------
        distances, indices : ndarray (n, min(k, n_neighbors))
        """
        need = k if minimum is None else minimum
        if self.n_neighbors < need:
            raise ValueError(
                f"{name} needs {need} neighbours per point besides itself but the NeighborGraph has "
                f"{self.n_neighbors}; "
                f"build it with n_neighbors >= {need} (one graph with the largest k serves smaller ones)."
            )
        k = min(k, self.n_neighbors)
        return self.distances[:, :k], self.indices[:, :k]

    def knn(self, k=None):
        """The first ``k`` neighbours (default all) in umap-learn's ``precomputed_knn``
        layout: ``(indices, distances)`` with each row itself first, at distance 0.

        Parameters
        ----------
        k : int, optional

        Returns
        -------
        indices : ndarray (n, k + 1)
        distances : ndarray of float32 (n, k + 1)

        Examples
        --------
        >>> NeighborGraph([[1], [0]], [[2.0], [2.0]]).knn()[0].tolist()
        [[0, 1], [1, 0]]
        """
        dist, idx = self.neighbors(self.n_neighbors if k is None else k)
        n = self.n_samples
        own = np.arange(n, dtype=idx.dtype)[:, None]
        return np.hstack([own, idx]), np.hstack([np.zeros((n, 1), dtype=np.float32), dist])

    def to_csr(self, k=None, *, mode="distance"):
        """The graph as scikit-learn's ``kneighbors_graph`` returns it: sparse (n, n),
        an edge from each row to each of its first ``k`` neighbours.

        Parameters
        ----------
        k : int, optional
            Default all.
        mode : {'distance', 'connectivity'}

        Returns
        -------
        scipy.sparse.csr_matrix (float64)

        Examples
        --------
        >>> NeighborGraph([[1], [0]], [[2.0], [2.0]]).to_csr().toarray().tolist()
        [[0.0, 2.0], [2.0, 0.0]]
        """
        return knn_csr(*self.neighbors(self.n_neighbors if k is None else k), mode=mode)


def knn_csr(distances, indices, *, mode="distance", n_columns=None):
    """Sparse (n, n) float64 graph with an edge from each row to each of its listed
    neighbours, weighted by the distance ('distance') or 1 ('connectivity').

    Parameters
    ----------
    distances : ndarray (n, k)
    indices : ndarray of int (n, k)
    mode : {'distance', 'connectivity'}, default='distance'
    n_columns : int, optional
        The rows the neighbours are drawn from (default ``n``: the graph of the rows
        themselves). Each row's entries keep their order, explicit zeros included.

    Returns
    -------
    scipy.sparse.csr_matrix (n, n_columns)

    Examples
    --------
    >>> knn_csr(np.array([[2.0], [2.0]]), np.array([[1], [0]])).toarray().tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    if mode not in ("distance", "connectivity"):
        raise ValueError(f"mode must be 'distance' or 'connectivity'; got {mode!r}.")
    n, k = indices.shape
    data = distances.astype(np.float64).ravel() if mode == "distance" else np.ones(indices.size)
    shape = (n, n if n_columns is None else n_columns)
    return sp.csr_matrix((data, indices.ravel(), np.arange(0, n * k + 1, k)), shape=shape)


def _check_entries(indices, distances, n):
    """Indices in range and not the row itself; distances finite, non-negative and
    non-decreasing along each row."""
    if not np.issubdtype(indices.dtype, np.integer):
        raise ValueError(f"NeighborGraph indices must be integers; got dtype {indices.dtype}.")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise ValueError(f"NeighborGraph indices must lie in [0, {n}); found {indices.min()} to {indices.max()}.")
    own = indices == np.arange(n)[:, None]
    if own.any():
        i = int(np.argmax(own.any(axis=1)))
        raise ValueError(
            f"NeighborGraph rows list other points only; row {i} lists itself. For umap-learn's layout "
            "(each point first) use NeighborGraph.from_knn((indices, distances))."
        )
    if not np.isfinite(distances).all() or (distances < 0).any():
        raise ValueError("NeighborGraph distances must be finite and non-negative.")
    falling = np.diff(distances, axis=1) < 0
    if falling.any():
        i = int(np.argmax(falling.any(axis=1)))
        raise ValueError(
            f"NeighborGraph rows must list neighbours nearest first; row {i}'s distances decrease. "
            "Sort each row by distance."
        )


def _index_name(algorithm, index):
    """'exact', 'approximate' or the user's index class, for ``NeighborGraph.algorithm``."""
    from ._approximate import HNSWIndex

    if isinstance(algorithm, KNNIndex):
        return type(algorithm).__name__
    return "approximate" if isinstance(index, HNSWIndex) else "exact"


def stored_smallest(D, k, *, exclude_self=True):
    """The ``k`` smallest stored entries of each row of a sparse distance matrix
    (entries not stored are not neighbours; a stored zero is a distance of zero), ties
    by column.

    Parameters
    ----------
    D : scipy.sparse matrix (n, n)
    k : int
    exclude_self : bool, default=True
        Leave each row's diagonal entry out (scikit-learn's
        'precomputed_nearest_neighbors' keeps it).

    Returns
    -------
    distances : ndarray of float32 (n, k)
    indices : ndarray of int64 (n, k)

    Examples
    --------
    >>> D = sp.csr_matrix(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]))
    >>> stored_smallest(D, 1)[1].ravel().tolist()
    [1, 0, 1]
    """
    D = sp.csr_matrix(D)
    n = D.shape[0]
    dist, idx = np.empty((n, k), dtype=np.float32), np.empty((n, k), dtype=np.int64)
    for i in range(n):
        cols = D.indices[D.indptr[i] : D.indptr[i + 1]]
        vals = D.data[D.indptr[i] : D.indptr[i + 1]]
        if exclude_self:
            cols, vals = cols[cols != i], vals[cols != i]
        if cols.size < k:
            raise ValueError(
                f"row {i} of the sparse distance matrix stores {cols.size} neighbours, fewer than "
                f"n_neighbors={k}; store at least {k} per row or lower n_neighbors."
            )
        order = np.lexsort((cols, vals))[:k]  # ties by index, as a stable sort
        dist[i], idx[i] = vals[order], cols[order]
    return dist, idx


def precomputed_connectivity(D, k):
    """Connectivity (ones) to the ``k`` smallest entries of each row of a precomputed
    distance matrix (sparse: among the stored entries, an explicit 0 counting as
    distance 0, each row's own entry included): scikit-learn's
    'precomputed_nearest_neighbors' graph before symmetrisation.

    Parameters
    ----------
    D : ndarray or scipy.sparse matrix (n, n)
    k : int

    Returns
    -------
    scipy.sparse.csr_matrix (n, n)

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]])
    >>> precomputed_connectivity(D, 2).toarray().astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 1, 1]]
    """
    n = D.shape[0]
    if not sp.issparse(D):
        D = np.asarray(D, dtype=np.float64)
        _, idx = ExactIndex("precomputed").build(D).query(D, k)
    else:
        _, idx = stored_smallest(D, k, exclude_self=False)
    return sp.csr_matrix((np.ones(idx.size), idx.ravel(), np.arange(0, idx.size + 1, k)), shape=(n, n))


class StoredDistances:
    """Rows of a sparse precomputed distance matrix as dense blocks, entries not stored
    being infinitely far: what ``join_components`` reads (``_block_distances``) to join
    a graph's components through the stored distances only.

    Examples
    --------
    >>> D = sp.csr_matrix(np.array([[0.0, 2.0], [2.0, 0.0]]))
    >>> StoredDistances()._block_distances(D[:1]).tolist()
    [[inf, 2.0]]
    """

    def _block_distances(self, rows):
        rows = sp.coo_matrix(rows)
        block = np.full(rows.shape, np.inf)
        block[rows.row, rows.col] = rows.data
        return block
