"""Where an estimator's neighbours come from: given (an estimator's ``precomputed_knn``,
a sparse ``metric='precomputed'`` matrix's stored distances, a ``PrecomputedNeighbors``
passed as its index) or searched (``find_neighbors``), decided in one place."""

import copy
import functools

import numpy as np
import scipy.sparse as sp

from .._params import NONE, InstanceOf
from .._validation import check_precomputed
from ._base import KNNIndex
from ._neighbor_graph import UNNAMED, NeighborGraph
from ._search import search_neighbors

# an estimator's precomputed_knn: umap-learn's (indices, distances) tuple, or a graph
PRECOMPUTED_KNN = [NONE, InstanceOf(tuple, list), InstanceOf(NeighborGraph)]


def knn_given(given):
    """Whether an estimator's ``precomputed_knn`` holds neighbours (its defaults: None,
    or umap-learn's tuple of Nones).

    Parameters
    ----------
    given : NeighborGraph, tuple or None

    Returns
    -------
    bool

    Examples
    --------
    >>> knn_given((None, None)), knn_given(NeighborGraph([[1], [0]], [[1.0], [1.0]]))
    (False, True)
    """
    if given is None or isinstance(given, NeighborGraph):
        return given is not None
    given = tuple(given)
    return bool(given) and given[0] is not None


class PrecomputedNeighbors(KNNIndex):
    """Neighbours found elsewhere, as a ``KNNIndex`` (openTSNE's ``PrecomputedNeighbors``):
    a ``NeighborGraph``, umap-learn's ``(indices, distances)`` tuple, or a sparse matrix of
    distances whose stored entries are each row's neighbours.

    Pass it as ``neighbors_algorithm`` to TSNE, SNE, UMAP, PaCMAP, Isomap,
    SpectralEmbedding, LocallyLinearEmbedding or DiffusionMap (``algorithm`` to
    ``nearest_neighbors`` and ``kneighbors_graph``): the fit reads these neighbours
    instead of searching, and the estimator's ``transform`` searches the training rows it
    keeps with 'auto' (``search_algorithm``). An estimator's ``precomputed_knn`` and a
    sparse ``metric='precomputed'`` X are read through this class too
    (``given_neighbors``). On its own it answers only the rows it describes
    (``query(X, k, exclude_self=True)``): it holds no data to search, so a query of new
    rows is refused, with the fix.

    Parameters
    ----------
    neighbors : NeighborGraph, tuple (indices, distances) or sparse matrix (n, n)
    metric : str, optional
        The metric the neighbours were found by: default the graph's own, 'precomputed'
        for a sparse matrix. An estimator with another named metric refuses them.
    what : str, default='the PrecomputedNeighbors'
        What the messages call the neighbours (an estimator's 'precomputed_knn').

    Examples
    --------
    >>> graph = NeighborGraph([[1, 2], [0, 2], [1, 0]], [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0]], metric="euclidean")
    >>> X = np.zeros((3, 4))
    >>> PrecomputedNeighbors(graph).build(X).query(X, 1, exclude_self=True)[1].ravel().tolist()
    [1, 0, 1]
    """

    def __init__(self, neighbors, metric=None, *, what="the PrecomputedNeighbors"):
        self.stored = neighbors if sp.issparse(neighbors) else None
        self._given = None if sp.issparse(neighbors) else neighbors  # checked when first read, after the rows
        if self.stored is not None:
            self.n_rows, default = neighbors.shape[0], "precomputed"
        elif isinstance(neighbors, NeighborGraph):
            self.n_rows, default = neighbors.n_samples, neighbors.metric
        else:  # umap-learn's (indices, distances): rows, metric unknown
            self.n_rows, default = len(tuple(neighbors)[0]), "unknown"
        self.metric = default if metric is None else metric
        self.what = what

    @functools.cached_property
    def graph(self):
        """The given neighbours as a ``NeighborGraph`` (None for a sparse matrix)."""
        return None if self._given is None else NeighborGraph.from_knn(self._given)

    def __deepcopy__(self, memo):  # estimators copy their index; the neighbours are only read
        return copy.copy(self)

    def _serves(self, metric):
        metric = "euclidean" if metric == "minkowski" else metric  # scikit-learn's default, p = 2
        return self.metric in UNNAMED or metric == "precomputed" or self.metric == metric

    def _check_rows(self, n):
        if n != self.n_rows:
            raise ValueError(
                f"{self.what} describes {self.n_rows} points but X has {n} rows; build the graph on X itself."
            )

    def _build(self, X):
        self._check_rows(X.shape[0] if hasattr(X, "shape") else len(X))

    def neighbors(self, k, *, name, minimum=None):
        """Each row's first ``k`` neighbours, nearest first (fewer, down to ``minimum``,
        if fewer are given).

        Parameters
        ----------
        k : int
        name : str
            The estimator, for the messages.
        minimum : int, optional
            Default ``k``.

        Returns
        -------
        distances : ndarray of float32 (n, m), indices : ndarray of int32 (n, m)
        """
        if self.stored is not None:
            return sparse_distance_neighbors(self.stored, k, name=name, minimum=k if minimum is None else minimum)
        return self.graph.neighbors(k, name=name, minimum=minimum)

    def given_to(self, n, k, *, metric, name, minimum=None):
        """The neighbours for an estimator: refused when they describe other rows or were
        found by another named metric than the estimator's.

        Parameters
        ----------
        n : int
            Rows the estimator fits.
        k : int
        metric : str
            The estimator's metric ('minkowski' reads as 'euclidean').
        name : str
            The estimator, for the messages.
        minimum : int, optional
            Default ``k``.

        Returns
        -------
        distances : ndarray of float32 (n, m), indices : ndarray of int32 (n, m)
        """
        self._check_rows(n)
        if not self._serves(metric):
            raise ValueError(
                f"{self.what} was built with metric={self.metric!r} but {name} has metric={metric!r}; "
                f"build the graph with metric={metric!r}, or set the estimator's metric to {self.metric!r}."
            )
        return self.neighbors(k, name=name, minimum=minimum)

    def query(self, Q, k, *, exclude_self=False):
        """The given neighbours of the rows described; any other query is refused:
        there is nothing to search.

        Parameters
        ----------
        Q : array-like (n, d)
            The rows described (only their number is read).
        k : int
        exclude_self : bool
            Must be True: the rows' neighbours besides themselves.

        Returns
        -------
        distances : ndarray of float32 (n, k), increasing along each row
        indices : ndarray of int32 (n, k)
        """
        if not exclude_self or Q.shape[0] != self.n_rows:
            raise ValueError(
                f"{self.what} holds the neighbours of the {self.n_rows} rows it describes, not data to search, so "
                f"it cannot find the neighbours of {Q.shape[0]} new rows; to place new rows (transform), fit with "
                "neighbors_algorithm='auto' or a KNNIndex that searches."
            )
        return self.neighbors(k, name="the neighbour index")


def search_algorithm(algorithm):
    """How an estimator searches its kept training rows for new rows' neighbours: its
    ``neighbors_algorithm``, or 'auto' where that is a ``PrecomputedNeighbors`` (given
    neighbours of the training rows, which cannot be searched).

    Parameters
    ----------
    algorithm : {'auto', 'exact', 'approximate'} or KNNIndex
        The estimator's ``neighbors_algorithm``.

    Returns
    -------
    str or KNNIndex

    Examples
    --------
    >>> search_algorithm("exact"), search_algorithm(PrecomputedNeighbors(([[0, 1], [1, 0]], [[0.0, 1.0], [0.0, 1.0]])))
    ('exact', 'auto')
    """
    return "auto" if isinstance(algorithm, PrecomputedNeighbors) else algorithm


def precomputed_neighbors(given, n, k, *, metric, name, minimum=None):
    """``(distances, indices)`` of each row's first ``k`` neighbours from an
    estimator's ``precomputed_knn``: a ``NeighborGraph`` or umap-learn's ``(indices,
    distances)`` tuple; a graph built with a named metric other than ``metric`` is
    refused (its neighbours are not the method's).

    Parameters
    ----------
    given : NeighborGraph or tuple
    n : int
        Rows of the data being fitted.
    k : int
        Neighbours wanted (fewer if the graph has fewer, down to ``minimum``).
    metric : str
        The estimator's metric ('minkowski' reads as 'euclidean').
    name : str
        The estimator, for the messages.
    minimum : int, optional
        Default ``k``.

    Returns
    -------
    distances : ndarray of float32 (n, k)
    indices : ndarray of int32 (n, k)

    Examples
    --------
    >>> graph = NeighborGraph([[1, 2], [0, 2], [1, 0]], [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0]], metric="euclidean")
    >>> precomputed_neighbors(graph, 3, 1, metric="euclidean", name="UMAP")[1].ravel().tolist()
    [1, 0, 1]
    """
    index = PrecomputedNeighbors(given, what="precomputed_knn")
    return index.given_to(n, k, metric=metric, name=name, minimum=minimum)


def given_neighbors(X, k, *, precomputed_knn=None, metric="euclidean", name="", minimum=None, algorithm=None):
    """``(distances, indices)`` of each row's first ``k`` neighbours when the estimator
    was given them, else None: a sparse ``X`` with ``metric='precomputed'`` (its stored
    distances) or a ``precomputed_knn``, each read as a ``PrecomputedNeighbors``. Every
    estimator that takes either asks here first.

    Parameters
    ----------
    X : array-like, sparse matrix or dask array (n, ...)
    k : int
    precomputed_knn : NeighborGraph or tuple, optional
        The estimator's ``precomputed_knn`` (its defaults, None or ``(None, None)``:
        none given).
    metric : str, default='euclidean'
        The estimator's metric: 'precomputed' reads a sparse ``X`` as distances, and a
        graph built with another named metric is refused.
    name : str
        The estimator, for the messages.
    minimum : int, optional
        Fewest neighbours every row must have (default ``k``).
    algorithm : str or KNNIndex, optional
        The estimator's ``neighbors_algorithm``: a ``PrecomputedNeighbors`` gives them.

    Returns
    -------
    (distances, indices) or None

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> D = sp.csr_matrix(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]))
    >>> given_neighbors(D, 1, metric="precomputed", name="UMAP")[1].ravel().tolist()
    [1, 0, 1]
    >>> given_neighbors(np.zeros((3, 2)), 1, precomputed_knn=(None, None)) is None
    True
    """
    if metric == "precomputed" and sp.issparse(X):
        given = PrecomputedNeighbors(X)
    elif isinstance(algorithm, PrecomputedNeighbors):
        given = algorithm
    elif knn_given(precomputed_knn):
        given = PrecomputedNeighbors(precomputed_knn, what="precomputed_knn")
    else:
        return None
    return given.given_to(X.shape[0], k, metric=metric, name=name, minimum=minimum)


def find_neighbors(
    X, k, *, algorithm="auto", metric="euclidean", metric_params=None, precomputed_knn=None, name="", verbose=False
):
    """``(distances, indices, index)`` of each row's ``k`` nearest other rows, from
    wherever they come: given (``given_neighbors``: a sparse precomputed ``X`` or a
    ``precomputed_knn``), searched on the cluster for a dask array, or searched here
    with ``make_index(algorithm, ...)``; ``index`` is the index built here (kept for
    ``transform``), None otherwise.

    Parameters
    ----------
    X : array-like, sparse matrix or dask array (n, d)
    k : int
    algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
    metric : str, default='euclidean'
    metric_params : dict, optional
    precomputed_knn : NeighborGraph or tuple, optional
    name : str
        The estimator, for the messages.
    verbose : bool, default=False
        Progress bars over the index and the queries.

    Returns
    -------
    distances : ndarray of float32 (n, k), increasing along each row
    indices : ndarray of int32 (n, k)
    index : KNNIndex or None

    Examples
    --------
    >>> dist, idx, index = find_neighbors(np.array([[0.0], [1.0], [3.0]]), 1)
    >>> idx.ravel().tolist(), type(index).__name__
    ([1, 0, 1], 'ExactIndex')
    """
    given = given_neighbors(X, k, precomputed_knn=precomputed_knn, metric=metric, name=name, algorithm=algorithm)
    if given is not None:
        return (*given, None)
    return search_neighbors(X, k, algorithm=algorithm, metric=metric, metric_params=metric_params, verbose=verbose)


def sparse_distance_neighbors(D, k, *, name, minimum):
    """``(distances, indices)`` of up to ``k`` nearest other rows from a sparse
    ``metric='precomputed'`` matrix: as many as every row stores (at least
    ``minimum``), nearest first.

    Parameters
    ----------
    D : scipy.sparse matrix (n, n)
        Distances; entries not stored are not neighbours.
    k : int
    name : str
        The estimator, for the message.
    minimum : int

    Returns
    -------
    distances : ndarray of float32 (n, m), indices : ndarray of int32 (n, m)
        ``minimum <= m <= k``.

    Examples
    --------
    >>> D = sp.csr_matrix(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]))
    >>> sparse_distance_neighbors(D, 5, name="TSNE", minimum=1)[1].tolist()
    [[1, 2], [0, 2], [1, 0]]
    """
    D = check_precomputed(sp.csr_matrix(D))
    n = D.shape[0]
    rows = np.repeat(np.arange(n), np.diff(D.indptr))
    counts = np.bincount(rows[D.indices != rows], minlength=n)
    fewest = int(counts.min())
    if fewest < minimum:
        i = int(np.argmin(counts))
        raise ValueError(
            f"{name} needs {minimum} stored distances per row besides the diagonal of a sparse metric='precomputed' "
            f"matrix; row {i} stores {fewest}. Store each row's {minimum} nearest (or more)."
        )
    graph = NeighborGraph.from_distances(D, min(k, fewest))
    return graph.distances, graph.indices
