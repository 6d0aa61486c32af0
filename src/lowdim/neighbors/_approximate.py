"""Approximate k-nearest neighbours: an HNSW graph (faiss), behind the same
``build`` / ``query`` interface as the exact index (``_choose`` picks between them).

Chosen by measurement on Fashion-MNIST over hnswlib (lower recall in the same time) and
pynndescent (faster once compiled, but its numba compilation costs every new process
far more than it saves); BENCHMARKS.md, Manifold learning, has the graph against
pynndescent in the same run.

Rows with many features are searched in their top principal components
when those keep most of the variance: the graph on 100 PCA coordinates proposes
candidates (twice the wanted number for the indexed points, four times for new ones),
they are ranked by their distance in all features, and for the indexed points one round
of neighbours' neighbours (in all features) recovers what the projection missed.
Fashion-MNIST, 70,000 x 784, 14 neighbours of the indexed points: recall 0.939 from the
candidates, 0.989 after the round (the graph on all 784 features: 0.993, in about twice
the time); new points 0.989.
"""

import numpy as np

from .._validation import check_array
from ..linalg import syrk_upper, top_eigh
from ._base import KNNIndex
from ._exact import ExactIndex, from_squared, query_rows, refine_sq_distances, shifted_rows
from ._self_query import BLOCK_ROWS

AXES_FROM = 20_000  # rows the projection's principal axes are estimated from: ample for
# proposing candidates (all are ranked in every feature), and a third of the time at 70,000
RETAINED = 0.85  # least fraction of the variance the projection must keep (Fashion-MNIST: 0.91;
# 5,000 points in 400-D with variances 1/i keep 0.79 and lost recall, isotropic 300-D lost half)
ADD_ROWS = 100_000  # rows added to the graph per call (the progress bar's step)
ROUND_WIDTH = 16  # the neighbours' round reads the first 16 entries of the first 16 neighbours'
# lists: all of them for UMAP's 15 neighbours; t-SNE's 90 would otherwise cost 8,100 per point
STRAINED = 1.4  # a row whose farthest neighbour lies this many times as far as its nearest is searched exactly
# when affordable (30 clusters of 10,000 in PCA-50: all 142 rows with strays among 217; in few dimensions most rows)
ASTRAY = 1.5  # a row reaching this many times as far as its found neighbours do (median) may have gone astray
TIE_SPARES = 4  # candidates searched beyond k, so that points at the k-th distance are chosen as the
# exact index chooses them (the lower row number), not by the graph's visiting order
EXACT_REPAIR = 10_000_000_000  # rows x rows x features the repair of astray searches may spend against all rows
_INSTALL = "approximate kNN needs faiss-cpu: pip install 'lowdim[ann]' (or use algorithm='exact')"


def approximate_available():
    """Whether the approximate backend (faiss) can be imported.

    Returns
    -------
    bool

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


class HNSWIndex(KNNIndex):
    """Approximate kNN index: a hierarchical navigable small-world graph (faiss'
    ``IndexHNSWFlat``) over float32 copies of the rows. The neighbours it returns have
    their distances recomputed exactly (float64), and rows are re-sorted by them.

    Parameters
    ----------
    metric : {'euclidean', 'sqeuclidean', 'cosine'}
    M : int, default=16
        Graph degree: higher is more accurate, slower to build, larger (70,000 x 784
        Fashion-MNIST, k = 15: recall 0.98 at M = 16, 0.999 at M = 32).
    ef_construction : int, default=40
        Candidate list while building.
    ef_search : int, optional
        Candidate list while querying; default ``max(64, k + 1)`` (at least the number
        of candidates). Recall grows with it, and so does the time (Fashion-MNIST
        PCA-50, 70,000 points, k = 91, M = 16: 0.991 at 92, 0.998 at 184).
    n_projected : int or None, default=100
        Rows with more than twice this many features are searched in this many top
        principal components if they keep at least ``RETAINED`` (0.85) of the variance,
        and the candidates are ranked in all features (see the module notes); None
        searches all features.
    verbose : bool, default=False
        A progress bar (tqdm, with an ETA) while the graph is built.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 8))
    >>> dist, idx = HNSWIndex().build(X).query(X, 5, exclude_self=True)
    >>> idx.shape
    (500, 5)
    """

    metrics = ("euclidean", "sqeuclidean", "cosine")

    def __init__(self, metric="euclidean", *, M=16, ef_construction=40, ef_search=None, n_projected=100, verbose=False):
        if metric not in ("euclidean", "sqeuclidean", "cosine"):
            raise ValueError(
                f"the approximate index supports metric 'euclidean', 'sqeuclidean' or 'cosine'; "
                f"got {metric!r} (use algorithm='exact')."
            )
        self.metric = metric
        self.M = M
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.n_projected = n_projected
        self.verbose = verbose

    def _build(self, X):
        """Index the rows of ``X``."""
        try:
            import faiss
        except ImportError as exc:
            raise ImportError(_INSTALL) from exc
        X = check_array(X, estimator_name="HNSWIndex")
        self._offset, self._data = shifted_rows(X, self.metric)
        self._basis = _principal_axes(self._data, self.n_projected)
        points = self._searched(self._data)
        self._graph = faiss.IndexHNSWFlat(points.shape[1], self.M)
        self._graph.hnsw.efConstruction = self.ef_construction
        from .._progress import progress_bar

        with progress_bar(
            total=len(points), desc="kNN index", unit="row", disable=not self.verbose, mininterval=0.5
        ) as bar:
            for start in range(0, len(points), ADD_ROWS):  # in blocks, for the bar
                self._graph.add(points[start : start + ADD_ROWS])
                bar.update(min(ADD_ROWS, len(points) - start))
        self._projected = points if self._basis is not None else None  # searched again by self-queries

    def _searched(self, shifted):
        """The float32 coordinates the graph holds for shifted rows."""
        if self._basis is not None:
            shifted = shifted @ self._basis
        return np.ascontiguousarray(shifted, dtype=np.float32)

    def query(self, Q, k, *, exclude_self=False):
        """The (approximately) ``k`` nearest indexed points of each row of ``Q``; same
        contract as ``ExactIndex.query``.

        Parameters
        ----------
        Q : array-like (m, d)
        k : int
        exclude_self : bool, default=False
            ``Q`` is the indexed data: a row is not its own neighbour.

        Returns
        -------
        distances : ndarray (m, k)
        indices : ndarray of int64 (m, k)
        """
        Q = query_rows(self, Q, k, exclude_self)
        if exclude_self and self._basis is None:  # in blocks: bounded transient memory
            dist, idx = np.empty((len(Q), k)), np.empty((len(Q), k), dtype=np.int64)
            for a in range(0, len(Q), BLOCK_ROWS):
                b = min(len(Q), a + BLOCK_ROWS)
                dist[a:b], idx[a:b] = self._query_indexed(a, b, k)
            return self.repair_self_query(dist, idx)
        shifted = self._data if exclude_self else (Q - self._offset).astype(self._data.dtype)
        ranked = self._ranked(Q, self._offset, self._nearest(shifted, k, exclude_self), k)
        return self.repair_self_query(*ranked) if exclude_self else ranked

    def _query_indexed(self, start, stop, k):
        """Neighbours of the indexed rows ``start:stop`` among the others (the search on
        all features only: the projected search's neighbours' round reads every row's
        candidates, so it answers whole self-queries)."""
        if self._basis is not None:
            return None
        want = min(k + TIE_SPARES, self.n_samples_ - 1)
        self._graph.hnsw.efSearch = max(self.ef_search or 64, want + 1)
        found = self._graph.search(self._searched(self._data[start:stop]), want + 1)[1]
        self._note_astray(found, start)
        idx = _drop_self(found, want, start)
        # distances between the shifted rows themselves (shift-invariant)
        return self._ranked(self._data[start:stop], np.zeros_like(self._offset), idx, k)

    def _ranked(self, Q, offset, idx, k=None):
        """Exact distances to the found neighbours ``idx``, each row sorted by them (equal
        distances by row number, as the exact index orders them), the first ``k`` kept
        (default all)."""
        if (idx < 0).any():
            raise RuntimeError(
                f"the HNSW search found fewer than {idx.shape[1]} neighbours for some rows; raise ef_search."
            )
        idx = np.sort(idx, axis=1)
        dist = refine_sq_distances(Q, self._data, offset, idx, np.empty(idx.shape))
        order = np.argsort(dist, axis=1, kind="stable")[:, :k]
        dist, idx = np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)
        return from_squared(dist, self.metric), idx

    def _nearest(self, shifted, k, exclude_self):
        """Indices of the (approximately) k nearest indexed rows of each shifted row
        (self-queries without a projection go through ``_query_indexed``)."""
        want = k + 1 if exclude_self else k
        if self._basis is None:
            spare = min(want + TIE_SPARES, self.n_samples_)
            self._graph.hnsw.efSearch = max(self.ef_search or 64, spare)
            return self._graph.search(self._searched(shifted), spare)[1].astype(np.int64)
        from .._kernels.neighbors import nearest_candidates, through_neighbors

        n_candidates = (2 if exclude_self else 4) * want  # new points get no neighbours' round
        self._graph.hnsw.efSearch = max(self.ef_search or 64, n_candidates)
        points = self._projected if exclude_self else self._searched(shifted)
        found = self._graph.search(points, n_candidates)[1]
        if exclude_self:
            self._note_astray(found, 0)
        idx, dist = np.empty((len(shifted), k), dtype=np.int64), np.empty((len(shifted), k), dtype=shifted.dtype)
        nearest_candidates(shifted, self._data, found, exclude_self, idx, dist)
        if exclude_self:
            rounded = np.empty_like(idx), np.empty_like(dist)
            through_neighbors(self._data, idx, dist, ROUND_WIDTH, *rounded)
            idx = rounded[0]
        return idx

    def _note_astray(self, found, start):
        """Record the rows ``start:`` whose search did not return the row itself: it
        never reached the row's part of the graph (a cluster far from all others can be
        cut off from the entry point), so what it found lies in other clusters."""
        missed = ~(found == np.arange(start, start + len(found))[:, None]).any(axis=1)
        if start == 0:
            self._astray = []
        self._astray.append(start + np.flatnonzero(missed))

    def repair_self_query(self, distances, indices):
        """Redo, in place, the self-query results of rows whose search may have gone
        astray (a cluster far from all others can be cut off from the graph's entry
        point; its rows' searches then return rows of other clusters).

        Sure cases (the search missed the row itself, ``_note_astray``, or the row's
        farthest neighbour lies beyond ``2 * ASTRAY`` times the 99th percentile of all
        rows') take their nearest among all rows while that costs at most
        ``EXACT_REPAIR`` (rows x rows x features searched), and so do all suspects
        (also rows reaching ``ASTRAY`` times as far as their found neighbours do,
        which in high dimensions are mostly sound) when they fit it. Every suspect
        then keeps the nearest of what it has, of the other suspects (exact,
        among themselves: a cut-off cluster's rows are all suspects) and of the rows
        whose lists hold it: candidates are only ever taken when nearer. Last, rows whose
        farthest neighbour lies ``STRAINED`` times as far as their nearest (a search that
        strayed in part: most of the list sound, a few entries in another cluster) take
        their nearest among all rows, when that fits the same budget.

        Parameters
        ----------
        distances : ndarray (n, k)
            Each indexed row's found neighbours' distances, increasing.
        indices : ndarray (n, k)

        Returns
        -------
        distances, indices
            The same arrays, repaired.
        """
        n, k = indices.shape
        far = distances[:, -1]
        missed = np.concatenate([np.zeros(0, dtype=np.int64), *getattr(self, "_astray", [])])
        self._astray = []
        if not n:
            return distances, indices
        sure = np.union1d(missed, np.flatnonzero(far > 2 * ASTRAY * np.percentile(far, 99)))
        suspects = np.union1d(sure, np.flatnonzero(far > ASTRAY * np.median(far[indices], axis=1)))
        width = (self._data if self._projected is None else self._projected).shape[1]
        for rows in (suspects, sure):  # all suspects against all rows when affordable, else the sure ones
            if rows.size and rows.size * n * width <= EXACT_REPAIR:
                self._keep_nearest(distances, indices, rows, np.arange(n))
                break
        if suspects.size > 1:
            self._keep_nearest(distances, indices, suspects, suspects)
        # a row whose farthest neighbour lies far beyond its nearest may have strayed in part
        strained = np.flatnonzero(distances[:, -1] > STRAINED * distances[:, 0])
        if strained.size and strained.size * n * width <= EXACT_REPAIR:
            self._keep_nearest(distances, indices, strained, np.arange(n))
        return distances, indices

    def _keep_nearest(self, distances, indices, rows, pool):
        """Each of ``rows`` keeps the ``k`` nearest of its list, of its nearest in
        ``pool`` and of the rows whose lists hold it."""
        k = indices.shape[1]
        # proposed in the searched coordinates (the projection, when there is one: a
        # tenth of the work on wide rows), ranked below by the distance in all features
        searched = self._data if self._projected is None else self._projected
        among = _exact_others(searched, rows, min(k, pool.size - 1), among=pool)
        merged = np.c_[indices[rows], among]
        merged = np.c_[merged, _listing(indices, rows, k, fill=merged[:, :1])]
        ranked = self._ranked(self._data[rows], np.zeros_like(self._offset), merged)
        distances[rows], indices[rows] = _first_k_distinct(*ranked, k)


def _principal_axes(shifted, n_projected):
    """The top ``n_projected`` principal axes (d, n_projected) of the centred rows
    (estimated from at most ``AXES_FROM`` evenly spaced rows), or None when the rows
    have at most twice that many features or the axes hold less than ``RETAINED`` of
    the variance (a flat spectrum: the projection would propose poor candidates)."""
    if n_projected is None or shifted.shape[1] <= 2 * n_projected:
        return None
    scatter = syrk_upper(np.ascontiguousarray(shifted[:: max(1, len(shifted) // AXES_FROM)]))
    values, axes = top_eigh(scatter, min(n_projected, shifted.shape[0]))
    if values.sum() < RETAINED * np.trace(scatter):
        return None
    return axes.astype(shifted.dtype)


def _exact_others(data, rows, k, among):
    """Indices (into ``data``) of the ``k`` nearest of ``among`` (sorted) to each of
    ``rows`` (both row numbers of ``data``), each row itself left out: the exact
    index's blocked products and running k-smallest lists (unsorted: ``_ranked``
    orders them), not a selection over every row's whole line of distances."""
    # among all rows (``among`` is sorted and distinct): the index's own shifted rows, not a copy
    index = ExactIndex.sharing(data) if among.size == len(data) else ExactIndex().build(data[among])
    at = np.minimum(np.searchsorted(among, rows), among.size - 1)  # ``among`` is sorted
    skip = np.where(among[at] == rows, at, -1)
    _, found, _ = index._candidates(data[rows], k, skip)
    return among[found]


def _listing(indices, rows, k, fill):
    """For each of ``rows``, up to ``k`` rows whose neighbour lists hold it (padded
    with its ``fill`` entry)."""
    wanted = np.full(indices.shape[0], -1, dtype=np.int64)
    wanted[rows] = np.arange(rows.size)
    holder, column = np.nonzero(wanted[indices] >= 0)
    target = wanted[indices[holder, column]]
    order = np.argsort(target, kind="stable")
    holder, target = holder[order], target[order]
    starts = np.searchsorted(target, np.arange(rows.size))
    rank = np.arange(target.size) - starts[target]
    out = np.repeat(fill.reshape(-1, 1), k, axis=1).astype(np.int64)
    keep = rank < k
    out[target[keep], rank[keep]] = holder[keep]
    return out


def _first_k_distinct(dist, idx, k):
    """The ``k`` nearest distinct entries of each row of ranked candidates (a repeat
    has the same distance as its first copy and is moved out of the way)."""
    order = np.argsort(idx, axis=1, kind="stable")
    by_index = np.take_along_axis(idx, order, axis=1)
    repeat = np.zeros(by_index.shape, dtype=bool)
    repeat[:, 1:] = by_index[:, 1:] == by_index[:, :-1]
    marked = np.zeros_like(repeat)
    np.put_along_axis(marked, order, repeat, axis=1)
    dist = np.where(marked, np.inf, dist)
    keep = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, keep, axis=1), np.take_along_axis(idx, keep, axis=1)


def _drop_self(found, k, start):
    """Remove each row's own index (``start`` + its position) from ``found`` (m, k + 1),
    or its last entry when the search did not return it."""
    m = found.shape[0]
    own = found == np.arange(start, start + m)[:, None]
    own[~own.any(axis=1), -1] = True
    own &= np.cumsum(own, axis=1) == 1  # at most one dropped per row
    return found[~own].reshape(m, k).astype(np.int64)
