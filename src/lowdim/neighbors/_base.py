"""The kNN index interface: what every neighbour search in lowdim implements, and what a
user implements to bring their own (a GPU library, a vector database, a custom metric).
"""

from abc import ABC, abstractmethod


class KNNIndex(ABC):
    """A k-nearest-neighbour index: ``build(X)`` once, then ``query(Q, k)``.

    Every method that uses neighbours (TSNE, SNE, UMAP, Isomap, SpectralEmbedding,
    LocallyLinearEmbedding, ``kneighbors_graph``, ``nearest_neighbors``) takes an
    instance as its ``neighbors_algorithm`` (``algorithm`` for the functions) in place
    of 'auto', 'exact' or 'approximate'. The estimator builds its own copy, so one
    instance can configure several estimators.

    Subclasses set ``metrics`` (the metric names they support) and implement ``_build``
    (index the rows) and ``query``; the constructor takes the metric as its first
    argument. ``build`` calls ``_build`` and records ``n_samples_``.

    Parameters
    ----------
    metric : str
        One of the class's ``metrics``.

    Examples
    --------
    A brute-force index in a few lines:

    >>> import numpy as np
    >>> class BruteForce(KNNIndex):
    ...     metrics = ("euclidean",)
    ...     def _build(self, X):
    ...         self.X_ = np.asarray(X, dtype=float)
    ...     def query(self, Q, k, *, exclude_self=False):
    ...         D = np.sqrt(((np.asarray(Q)[:, None] - self.X_[None]) ** 2).sum(-1))
    ...         if exclude_self:
    ...             np.fill_diagonal(D, np.inf)
    ...         idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    ...         return np.take_along_axis(D, idx, axis=1), idx
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> BruteForce().build(X).query(X, 1, exclude_self=True)[1].ravel().tolist()
    [1, 0, 1]
    """

    metrics = ()

    def __init__(self, metric="euclidean"):
        if metric not in self.metrics:
            raise ValueError(
                f"{type(self).__name__} supports metric {', '.join(map(repr, self.metrics))}; got {metric!r}."
            )
        self.metric = metric

    def build(self, X):
        """Index the rows of ``X`` (n, d); returns ``self``.

        Parameters
        ----------
        X : array-like (n, d)

        Returns
        -------
        self
        """
        self._build(X)
        self.n_samples_ = X.shape[0] if hasattr(X, "shape") else len(X)
        return self

    @abstractmethod
    def _build(self, X):
        """Index the rows of ``X`` (what ``build`` does beyond recording their number)."""

    @abstractmethod
    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed rows of each row of ``Q``.

        Parameters
        ----------
        Q : ndarray (m, d)
        k : int
        exclude_self : bool
            ``Q`` is the indexed data itself: row i's own entry is not among its
            neighbours.

        Returns
        -------
        distances : ndarray (m, k), ascending along each row
        indices : ndarray of int64 (m, k)
        """

    def _serves(self, metric):
        """Whether an estimator with ``metric`` may use this index's neighbours."""
        return self.metric == metric

    def _query_indexed(self, start, stop, k):
        """``(distances, indices)`` of the indexed rows ``start:stop`` among the other
        indexed rows, for ``self_neighbors``'s blocks; None (the default) where the
        index answers self-queries only as a whole, through ``query``."""
        return None
