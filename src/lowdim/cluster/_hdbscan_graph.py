"""HDBSCAN's spanning tree from a neighbour graph found once (``precomputed_knn``):
core distances from each row's nearest neighbours, and the minimum spanning tree of
mutual reachability over the graph's edges, its components joined by their shortest
edges; no search over the rows."""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from ..neighbors import join_components, knn_csr, symmetrize

TINY = np.finfo(np.float64).tiny  # scipy's spanning tree reads a zero weight as no edge


class ReachabilityTree(NamedTuple):
    """A mutual-reachability spanning tree and what Prim's tie rule needs: edges ``a``
    - ``b`` (row numbers) of ``weight``; ``order`` (position -> row) of the per-position
    arrays: the core neighbours ``nbr`` (rows, each row first), their distances
    ``nbr_dist`` and the core distances ``core``. With ``prim_ordered`` the edges
    are Prim's already, in the order he adds them (``_hdbscan_prim``, or the screened
    Prim's above 16 columns): the tie rule has nothing left to decide, and ``nbr`` need
    not hold each row first."""

    a: np.ndarray
    b: np.ndarray
    weight: np.ndarray
    order: np.ndarray
    nbr: np.ndarray
    nbr_dist: np.ndarray
    core: np.ndarray
    prim_ordered: bool = False
    interpreted: bool = False  # small: the hierarchy by the kernels' Python source

    def core_by_row(self):
        """The core distances in row order."""
        out = np.empty(self.core.size)
        out[self.order] = self.core
        return out


def graph_spanning_tree(X, distances, indices, m, alpha, index):
    """The mutual-reachability spanning tree over a kNN graph, with what Prim's tie
    rule needs (as ``HDBSCAN._spanning_tree`` returns them).

    Parameters
    ----------
    X : ndarray (n, d) or sparse (n, n)
        The rows, or a sparse precomputed distance matrix (only components the graph
        leaves apart are joined through them).
    distances, indices : ndarray (n, k)
        Each row's ``k >= m - 1`` nearest other rows, nearest first.
    m : int
        ``min_samples``: the core distance is the distance to the ``m - 1``-th other row.
    alpha : float
    index : KNNIndex or StoredDistances
        Built on ``X``: the distances that join components.

    Returns
    -------
    ReachabilityTree

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> d, i = np.array([[1.0], [1.0], [1.0], [8.0]]), np.array([[1], [0], [1], [2]])
    >>> from lowdim.neighbors import ExactIndex
    >>> tree = graph_spanning_tree(X, d, i, 2, 1.0, ExactIndex().build(X))
    >>> sorted(tree.weight.tolist())
    [1.0, 1.0, 8.0]
    """
    n = X.shape[0]
    d = distances.astype(np.float64)
    core = d[:, m - 2].copy() if m >= 2 else np.zeros(n)
    G = symmetrize(knn_csr(d, indices))
    G.data = np.maximum(G.data, TINY)
    G = join_components(G, X, name="HDBSCAN neighbour graph", index=index).tocoo()
    reach = np.maximum(np.maximum(core[G.row], core[G.col]), G.data / alpha)
    tree = minimum_spanning_tree(sp.csr_matrix((np.maximum(reach, TINY), (G.row, G.col)), shape=(n, n))).tocoo()
    weight = np.where(tree.data <= TINY, 0.0, tree.data)
    own = np.arange(n)[:, None]
    nbr = np.hstack([own, indices[:, : m - 1]]).astype(np.int64)
    nbr_dist = np.hstack([np.zeros((n, 1)), d[:, : m - 1]])
    return ReachabilityTree(
        tree.row.astype(np.int64), tree.col.astype(np.int64), weight, np.arange(n), nbr, nbr_dist, core
    )
