"""Joining a disconnected neighbour graph by short edges between its components
(docs/reliability.md): the exact minimum spanning tree of the components' closest pairs
for small data, and for large data a Boruvka tree whose every round costs about one
neighbour search, whatever the sizes of the components.

Large data, one round: a component of at most ``SMALL_COMPONENT`` points asks the kNN
index for its members' ``size + 1`` nearest points (so at least one lies outside it);
a larger one finds its neighbouring components through a sample of every component
(``SEEDS`` points each), then the closest pair towards each by alternating descent
(the nearest member of B to a, the nearest member of A to that, ...: projections
between two point clouds, exact for convex ones). Each component keeps the shortest
edge either search found for it, and every round at least halves their number."""

import numpy as np
import scipy.sparse as sp

from .._warnings import warn_user
from ..exceptions import DisconnectedGraphError
from ..linalg import row_norms_sq, sq_euclidean
from ._approximate import approximate_available
from ._choose import make_index

EXACT_JOIN_UPTO = 5_000  # points: up to here, all n^2 distances (the exact tree, in a few tenths of a second)
SMALL_COMPONENT = 64  # points: a component this small is joined through the kNN index
SEEDS = 32  # sample of every component that finds a larger component's neighbours
PARTNERS = 3  # neighbouring components a larger component measures itself against
STARTS = 4  # descents per pair of components
DESCENT_STEPS = 8
SCAN_BUDGET = 64  # rows scanned against a component, in its sizes, before it gets an index
QUERY_ROWS = 1 << 16  # rows per index query (their k nearest held at once)


def join_components(G, X, *, name="graph", index=None, edge_weight=None):
    """Connect a disconnected symmetric graph: warn with the number of components, then
    add, between components, the edges of a spanning tree of their closest pairs of
    points. Returns the graph unchanged when connected.

    Up to ``EXACT_JOIN_UPTO`` points (and always for precomputed distances) the tree is
    the minimum spanning tree of the components' exact closest-pair distances; above,
    each Boruvka round costs about one neighbour search whatever the components' sizes,
    and the edges are the closest pairs found by the index and by alternating descent
    (see the module's docstring).

    Distances are Euclidean between the rows of ``X``, or those of ``index`` (a built
    index of ``X``: its metric, or a precomputed distance matrix ``X``).

    Parameters
    ----------
    G : sparse matrix (n, n)
        Symmetric graph.
    X : ndarray or sparse matrix (n, d)
    name : str, default='graph'
        What to call the graph in the warning.
    index : KNNIndex, optional
        A built index of ``X`` (exact, or approximate for large data).
    edge_weight : float, optional
        Weight of the joining edges (an affinity graph's); default their lengths.

    Returns
    -------
    scipy.sparse.csr_matrix (n, n)

    Examples
    --------
    >>> import warnings
    >>> from lowdim.neighbors import kneighbors_graph, symmetrize
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> G = symmetrize(kneighbors_graph(X, 1))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     J = join_components(G, X)
    >>> from scipy.sparse.csgraph import connected_components
    >>> connected_components(J)[0], float(J[1, 2])
    (1, 9.0)
    """
    from .._kernels.components import connected_components

    n_comp, labels = connected_components(G)
    if n_comp == 1:
        return G
    if G.shape[0] <= EXACT_JOIN_UPTO or _precomputed(index):
        edges = _exact_edges(X, index, labels)
    else:
        edges = _boruvka(labels, ComponentBridges(X, index).shortest)
    # only where the joining edges weigh their lengths: a fixed edge_weight needs no distance
    if edge_weight is None and not all(np.isfinite(length) for _, _, length in edges):
        raise DisconnectedGraphError(
            f"the {name} has {n_comp} connected components (number of connected components {n_comp} > 1) and no "
            "distance between them is known: a sparse distance matrix stores none. Store more distances per row "
            "(build it with more neighbours) or pass the dense distance matrix."
        )
    warn_components(n_comp, name, "joining them by their shortest edges")
    return _with_edges(G, [(i, j, 0.0 if edge_weight is not None else length) for i, j, length in edges], edge_weight)


def warn_components(n_components, name, what):
    """The one warning about a graph in pieces: how many, and what is done about it.

    Parameters
    ----------
    n_components : int
        The number of connected components.
    name : str
        What to call the graph.
    what : str
        What is done about it.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_components(3, "UMAP neighbour graph", "laying each out on its own")
    >>> str(caught[0].message).split(";")[0]
    'the UMAP neighbour graph has 3 connected components'
    """
    warn_user(
        f"the {name} has {n_components} connected components; {what} (raise n_neighbors to connect it yourself; "
        f"the number of connected components is {n_components} > 1).",
        UserWarning,
    )


def _precomputed(index):
    """Distances given, not rows (a dense matrix, or ``StoredDistances``)."""
    return index is not None and getattr(index, "metric", "precomputed") == "precomputed"


def _exact_edges(X, index, labels):
    """The minimum spanning tree of the components' closest pairs, from all distances."""
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
    if index is not None and hasattr(index, "_block_distances"):
        distances = lambda start, stop: index._block_distances(X[start:stop])  # noqa: E731
        length = lambda i, j: float(index._block_distances(X[i : i + 1])[0, j])  # noqa: E731
    else:
        distances, length = _euclidean_rows(X), lambda i, j: float(np.linalg.norm(X[i] - X[j]))  # noqa: E731
    edges = _boruvka(labels, _shortest_by_distances(distances, X.shape[0]))
    return [(i, j, length(i, j)) for i, j, _ in edges]


def _nearest_foreign(distances, n, labels):
    """For every row, the nearest row with another label: (distance, index).
    ``distances(start, stop)`` gives rows ``start:stop`` against all, about 64 MB at a time."""
    dist, index = np.empty(n), np.empty(n, dtype=np.int64)
    step = max(1, (8 << 20) // n)
    for start in range(0, n, step):
        stop = min(n, start + step)
        D = np.array(distances(start, stop), dtype=np.float64)
        D[labels[start:stop, None] == labels[None, :]] = np.inf
        index[start:stop] = np.argmin(D, axis=1)
        dist[start:stop] = D[np.arange(stop - start), index[start:stop]]
    return dist, index


def _euclidean_rows(X):
    """``distances(start, stop)`` for ``_nearest_foreign``: Euclidean, by the expansion
    on centred rows (squared: the order is the same)."""
    X = X - X.mean(axis=0)  # the expansion keeps its digits near the origin
    x_sq = row_norms_sq(X)
    return lambda start, stop: sq_euclidean(X[start:stop], X, x_sq[start:stop], x_sq)


def _shortest_by_distances(distances, n):
    """``shortest`` for ``_boruvka`` from blocked distances to all points (n^2 work)."""

    def shortest(comp):
        dist, nearest = _nearest_foreign(distances, n, comp)
        return _shortest_per_component(comp, np.arange(n), nearest, dist)

    return shortest


def _boruvka(labels, shortest):
    """Edges ``(i, j, length)`` joining the components ``labels`` (Boruvka: every round
    adds each component's shortest edge to another, ``shortest(comp) -> {component:
    (length, i, j)}``, at least halving their number, so log2(components) rounds).
    A round that finds no edge (an approximate search that saw no other component) is
    an error rather than a loop."""
    parent = np.arange(labels.max() + 1)

    def root(c):
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    comp, edges = labels.copy(), []
    while not np.all(comp == comp[0]):
        found = shortest(comp)
        if not found:
            raise RuntimeError("joining components: a search round found no edge between components.")
        for length, i, j in found.values():
            a, b = root(comp[i]), root(comp[j])
            if a != b:
                parent[max(a, b)] = min(a, b)
                edges.append((i, j, length))
        comp = np.array([root(c) for c in range(parent.size)])[comp]  # a root per label, not per point
    return edges


def _shortest_per_component(comp, rows, partners, lengths):
    """``{component: (length, i, j)}``: for each component, the shortest of the edges
    ``rows[e] -- partners[e]`` that touch it (an edge counts for both its ends)."""
    ends = np.r_[comp[rows], comp[partners]]
    i, j, length = np.r_[rows, rows], np.r_[partners, partners], np.r_[lengths, lengths]
    order = np.lexsort((length, ends))
    firsts = order[np.r_[True, np.diff(ends[order]) != 0]]
    return {int(ends[e]): (float(length[e]), int(i[e]), int(j[e])) for e in firsts}


def _firsts(*keys):
    """Where each run of equal consecutive keys begins (boolean mask)."""
    first = np.ones(keys[0].size, dtype=bool)
    for key in keys:
        first[1:] &= key[1:] == key[:-1]
    first[1:] = ~first[1:]
    return first


def _rank_in_group(first, n):
    """Position of each element within its run (``first`` marks where runs begin)."""
    heads = np.flatnonzero(first)
    return np.arange(n) - heads[np.cumsum(first) - 1]


def _spread(members, count):
    """At most ``count`` of ``members``, evenly spaced through them."""
    return members[np.unique(np.linspace(0, members.size - 1, count).astype(np.int64))]


def _merge(found, more):
    """Keep, per component, the shorter of the edges in ``found`` and ``more``."""
    for c, edge in more.items():
        if c not in found or edge[0] < found[c][0]:
            found[c] = edge
    return found


class ComponentBridges:
    """``shortest(comp)`` for ``_boruvka`` on large data, in about one neighbour
    search's work a round (see the module's docstring). ``work`` counts what it did:
    distances evaluated plus neighbours returned by index queries.

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
    index : KNNIndex, optional
        A built index of ``X`` (its metric is the joining metric); without one,
        Euclidean, and an index is built the first time a small component needs it.

    Examples
    --------
    >>> X = np.r_[np.zeros((100, 2)), np.ones((100, 2)) + 5]
    >>> comp = np.r_[np.zeros(100, dtype=int), np.ones(100, dtype=int)]
    >>> length, i, j = ComponentBridges(X).shortest(comp)[0]
    >>> round(length, 6), bool(comp[i] != comp[j])
    (8.485281, True)
    """

    def __init__(self, X, index=None):
        self.X = X
        self.index = index
        self.metric = "euclidean" if index is None else index.metric
        self.metric_params = getattr(index, "metric_params", None) or None
        self.work = 0
        self._members_index, self._exact_members, self._scanned = {}, {}, {}

    def shortest(self, comp):
        """``{component: (length, i, j)}``: a short edge from each component of the
        labelling ``comp`` to another."""
        sizes = np.bincount(comp)
        self._members_index, self._exact_members, self._scanned = {}, {}, {}  # components change between rounds
        small = (sizes > 0) & (sizes <= SMALL_COMPONENT)
        found = self._through_index(comp, sizes, small) if small.any() else {}
        large = np.flatnonzero(sizes > SMALL_COMPONENT)
        missed = np.setdiff1d(np.flatnonzero(small), list(found))  # an approximate index saw no other component
        if large.size or missed.size:
            _merge(found, self._by_descent(comp, sizes, np.r_[large, missed]))
        return found

    def _rows(self, rows):
        return self.X[rows]

    def _global_index(self):
        if self.index is None or not hasattr(self.index, "query"):
            n, sparse = self.X.shape[0], sp.issparse(self.X)
            self.index = make_index("auto", self.metric, n, self.metric_params, sparse).build(self.X)
        return self.index

    def _through_index(self, comp, sizes, small):
        """Each small component's nearest point outside it: its members' ``size + 1``
        nearest points include one (with an exact index). Components are asked in
        groups of like size, so that a member asks for about its own component's size."""
        points = np.flatnonzero(small[comp])
        group = np.ceil(np.log2(sizes[comp[points]] + 1)).astype(np.int64)  # sizes up to 2^g - 1
        index, rows, partners, lengths = self._global_index(), [], [], []
        for g in np.unique(group):
            asking = points[group == g]
            k = min(2 ** int(g), self.X.shape[0])
            for start in range(0, asking.size, QUERY_ROWS):
                chunk = asking[start : start + QUERY_ROWS]
                dist, idx = index.query(self._rows(chunk), k)
                self.work += idx.size
                foreign = comp[idx] != comp[chunk][:, None]
                hit = np.flatnonzero(foreign.any(axis=1))
                first = np.argmax(foreign[hit], axis=1)
                rows.append(chunk[hit])
                partners.append(idx[hit, first])
                lengths.append(dist[hit, first])
        rows, partners, lengths = np.concatenate(rows), np.concatenate(partners), np.concatenate(lengths)
        return _shortest_per_component(comp, rows, partners, lengths) if rows.size else {}

    def _by_descent(self, comp, sizes, searching):
        """For each component in ``searching``: its neighbouring components by a
        sample of all components, then the closest pair towards each by descent."""
        order = np.argsort(comp, kind="stable")
        bounds = np.r_[0, np.cumsum(sizes)]
        members = {c: order[bounds[c] : bounds[c + 1]] for c in np.flatnonzero(sizes)}
        seeds = np.concatenate([_spread(m, SEEDS) for m in members.values()])
        found = {}
        for (a, b), starts in self._candidate_pairs(comp, seeds, searching).items():
            length, i, j = self._closest_pair(members[a], members[b], a, b, starts)
            _merge(found, {a: (length, i, j), b: (length, i, j)})
        return found

    def _candidate_pairs(self, comp, seeds, searching):
        """``{(a, b): starts}``: up to ``PARTNERS`` components ``b`` near each searching
        component ``a`` (nearest seeds of other components to a's seeds), with the
        ``STARTS`` members of ``a`` closest to ``b``'s seeds to descend from."""
        seed_index = make_index("auto", self.metric, seeds.size, self.metric_params, sp.issparse(self.X))
        seed_index.build(self._rows(seeds))
        asking = seeds[np.isin(comp[seeds], searching)]
        k = min(SEEDS + 2 * PARTNERS, seeds.size)
        dist, idx = seed_index.query(self._rows(asking), k)
        self.work += dist.size
        a_rows, b_rows = np.repeat(asking, k), seeds[idx.ravel()]
        keep = comp[a_rows] != comp[b_rows]
        a_rows, a_comp, b_comp, dist = a_rows[keep], comp[a_rows[keep]], comp[b_rows[keep]], dist.ravel()[keep]
        order = np.lexsort((dist, b_comp, a_comp))  # by pair, nearest first
        a_rows, a_comp, b_comp, dist = a_rows[order], a_comp[order], b_comp[order], dist[order]
        first = _firsts(a_comp, b_comp)
        starts = np.flatnonzero(_rank_in_group(first, a_rows.size) < STARTS)
        pair_of = np.cumsum(first) - 1  # pair number of each hit
        heads = np.flatnonzero(first)
        by_length = np.lexsort((dist[heads], a_comp[heads]))  # each a's partners, nearest first
        near = heads[by_length][_rank_in_group(_firsts(a_comp[heads][by_length]), heads.size) < PARTNERS]
        groups = np.split(a_rows[starts], np.flatnonzero(np.diff(pair_of[starts])) + 1)
        group_pair = pair_of[starts][np.r_[0, np.flatnonzero(np.diff(pair_of[starts])) + 1]]
        start_of = dict(zip(group_pair.tolist(), groups))
        return {(int(a_comp[e]), int(b_comp[e])): start_of[int(pair_of[e])] for e in near}

    def _nearest_in(self, c, members, rows):
        """``(position in members, length)`` of the nearest member of component ``c``
        to each of ``rows``: by brute force until the rows scanned against ``c`` this
        round pass ``SCAN_BUDGET`` times its size, then through an index of its members
        (approximate when faiss is there), so that many small components descending
        into one large one cost about one search of it, not one scan each."""
        scanned = self._scanned.get(c, 0) + rows.size * members.size
        if c not in self._members_index and members.size > SMALL_COMPONENT and scanned > SCAN_BUDGET * members.size:
            algorithm = "approximate" if self._approximate_ok() else "exact"
            index = make_index(algorithm, self.metric, members.size, self.metric_params, sp.issparse(self.X))
            self._members_index[c] = index.build(self._rows(members))
            self.work += members.size
        if c in self._members_index:
            dist, pos = self._members_index[c].query(self._rows(rows), 1)
            self.work += rows.size
            return pos[:, 0], np.asarray(dist[:, 0], dtype=np.float64)
        self._scanned[c] = scanned
        self.work += rows.size * members.size
        if c not in self._exact_members:  # built once a round: descents come back to it
            index = make_index("exact", self.metric, members.size, self.metric_params, sp.issparse(self.X))
            self._exact_members[c] = index.build(self._rows(members))
        D = np.asarray(self._exact_members[c]._block_distances(self._rows(rows)), dtype=np.float64)
        nearest = np.argmin(D, axis=1)
        return nearest, D[np.arange(rows.size), nearest]

    def _approximate_ok(self):
        return self.metric in ("euclidean", "sqeuclidean", "cosine") and approximate_available()

    def _closest_pair(self, A, B, a_comp, b_comp, starts):
        """``(length, i, j)``, i in A and j in B, by alternating descent from ``starts``:
        the nearest member of B to each current a, then of A to each such b, until the
        pairs repeat (each step can only shorten the best pair)."""
        best, current = (np.inf, -1, -1), np.unique(starts)
        for _ in range(DESCENT_STEPS):
            nearest, lengths = self._nearest_in(b_comp, B, current)
            e = int(np.argmin(lengths))
            if lengths[e] < best[0]:
                best = (float(lengths[e]), int(current[e]), int(B[nearest[e]]))
            back = np.unique(B[nearest])
            nearest, lengths = self._nearest_in(a_comp, A, back)
            e = int(np.argmin(lengths))
            if lengths[e] < best[0]:
                best = (float(lengths[e]), int(A[nearest[e]]), int(back[e]))
            moved = np.unique(A[nearest])
            if np.array_equal(moved, current):
                break
            current = moved
        return best


def _with_edges(G, edges, weight=None):
    """``G`` (CSR, its dtype kept) with the symmetric edges ``(i, j, length)`` added,
    weighted by their lengths or by ``weight``; one sum, the only copy of ``G``."""
    i, j, w = (np.array(v) for v in zip(*edges))
    w = np.full(w.shape, weight) if weight is not None else np.maximum(w, np.finfo(np.float32).tiny)
    w = w.astype(G.dtype)
    bridge = sp.csr_matrix((np.r_[w, w], (np.r_[i, j], np.r_[j, i])), shape=G.shape)
    return (sp.csr_matrix(G) + bridge).tocsr()
