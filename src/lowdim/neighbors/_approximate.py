"""Approximate k-nearest neighbours: an HNSW graph (faiss), behind the same
``build`` / ``query`` interface as the exact index (``_choose`` picks between them).

Chosen by measurement (BENCHMARKS.md, issue 5): on Fashion-MNIST (70,000 x 784, k = 15)
faiss' HNSW reached recall 0.999 in 25 s and 0.98 in 11 s, hnswlib 0.996 in 25 s,
pynndescent 0.989 in 5 s once compiled but 50 s of numba compilation in every new
process, exact blocked BLAS about 175 s.
"""

import numpy as np

from .._validation import check_array
from ._exact import from_squared, query_rows, refine_sq_distances, shifted_rows

_INSTALL = "approximate kNN needs faiss-cpu: pip install 'lowdim[ann]' (or use algorithm='exact')"


def approximate_available():
    """Whether the approximate backend (faiss) can be imported.

    Examples
    --------
    >>> isinstance(approximate_available(), bool)
    True
    """
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


class HNSWIndex:
    """Approximate kNN index: a hierarchical navigable small-world graph (faiss'
    ``IndexHNSWFlat``) over float32 copies of the rows. The neighbours it returns have
    their distances recomputed exactly (float64), and rows are re-sorted by them.

    Parameters
    ----------
    metric : {'euclidean', 'sqeuclidean', 'cosine'}
    M : int, default=16
        Graph degree: higher is more accurate, slower to build, larger (70,000 x 784
        Fashion-MNIST, k = 15: M = 16 builds and queries in 11.5 s at recall 0.98, M = 32
        in 29.5 s at 0.999).
    ef_construction : int, default=40
        Candidate list while building.
    ef_search : int, optional
        Candidate list while querying; default ``max(64, k + 1)``. Recall grows with it
        (Fashion-MNIST PCA-50, 70,000 points, k = 91, M = 16: 0.991 at 92 in 4.1 s,
        0.998 at 184 in 7.0 s).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 8))
    >>> dist, idx = HNSWIndex().build(X).query(X, 5, exclude_self=True)
    >>> idx.shape
    (500, 5)
    """

    def __init__(self, metric="euclidean", *, M=16, ef_construction=40, ef_search=None):
        if metric not in ("euclidean", "sqeuclidean", "cosine"):
            raise ValueError(f"the approximate index supports metric 'euclidean', 'sqeuclidean' or 'cosine'; "
                             f"got {metric!r} (use algorithm='exact').")
        self.metric = metric
        self.M = M
        self.ef_construction = ef_construction
        self.ef_search = ef_search

    def build(self, X):
        """Index the rows of ``X``."""
        try:
            import faiss
        except ImportError as exc:
            raise ImportError(_INSTALL) from exc
        X = check_array(X, estimator_name="HNSWIndex")
        self._offset, self._data = shifted_rows(X, self.metric)
        self._graph = faiss.IndexHNSWFlat(X.shape[1], self.M)
        self._graph.hnsw.efConstruction = self.ef_construction
        self._graph.add(np.ascontiguousarray(self._data, dtype=np.float32))
        self.n_samples_ = X.shape[0]
        return self

    def query(self, Q, k, *, exclude_self=False):
        """The (approximately) ``k`` nearest indexed points of each row of ``Q``; same
        contract as ``ExactIndex.query``."""
        Q = query_rows(self, Q, k, exclude_self)
        want = k + 1 if exclude_self else k
        self._graph.hnsw.efSearch = max(self.ef_search or 64, want)
        _, found = self._graph.search(np.ascontiguousarray(Q - self._offset, dtype=np.float32), want)
        idx = _drop_self(found, k) if exclude_self else found.astype(np.int64)
        if (idx < 0).any():
            raise RuntimeError(f"the HNSW search found fewer than {k} neighbours for some rows; raise ef_search.")
        dist = refine_sq_distances(Q, self._data, self._offset, idx, np.empty(idx.shape))
        order = np.argsort(dist, axis=1, kind="stable")
        dist, idx = np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)
        return from_squared(dist, self.metric), idx


def _drop_self(found, k):
    """Remove each row's own index from ``found`` (m, k + 1), or its last entry when the
    search did not return it."""
    m = found.shape[0]
    own = found == np.arange(m)[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1  # at most one dropped per row
    return found[~own].reshape(m, k).astype(np.int64)
