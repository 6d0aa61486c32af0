"""Agglomerative clustering's merges by the nearest-neighbour chain (Murtagh 1983;
Muellner 2011): exact for the reducible linkages (ward, complete, average), O(n^2) time
on a full distance matrix updated in place by the Lance-Williams formulas.

The matrix is square so that a cluster's distances are one contiguous row: the search for
a nearest neighbour streams that row (split over the threads), and a merge writes one row
and the matching column.
"""

import heapq

import numpy as np
from numba import njit, prange

from .._threads import in_row_ranges

WARD, COMPLETE, AVERAGE = 0, 1, 2
_CHUNK = 2048  # points per thread chunk of Prim's scan


@njit(cache=True, inline="always")
def _nearest(D, a, act, m, prefer):
    """The active cluster nearest to ``a`` (``prefer`` wins ties: it keeps the chain
    from cycling) and its distance. Serial: a scan of one row takes microseconds, less
    than starting the threads would."""
    row = D[a]
    d, j = np.inf, -1
    for k in range(m):
        c = act[k]
        if c != a and row[c] < d:
            d, j = row[c], c
    if prefer >= 0 and row[prefer] <= d:
        return prefer, row[prefer]
    return j, d


@njit(cache=True, inline="always")
def _linkage(method, dax, dbx, dab, na, nb, nx):
    if method == WARD:
        return np.sqrt(((na + nx) * dax * dax + (nb + nx) * dbx * dbx - nx * dab * dab) / (na + nb + nx))
    if method == COMPLETE:
        return max(dax, dbx)
    return (na * dax + nb * dbx) / (na + nb)


@njit(cache=True, inline="always")
def _lance_williams(D, a, b, act, m, size, method):
    """Distances of the merged cluster (stored at ``b``) to every other active one."""
    for k in range(m):
        x = act[k]
        if x != a and x != b:
            d = _linkage(method, D[a, x], D[b, x], D[a, b], size[a], size[b], size[x])
            D[b, x] = d
            D[x, b] = d


def nn_chain(D, method):
    """The ``n - 1`` merges ``(a, b, distance)`` of the agglomeration of the points whose
    distances are ``D`` (n x n, float64, overwritten), in the order the chain finds them
    (not sorted by distance); ``method`` is WARD (D euclidean), COMPLETE or AVERAGE.

    The active clusters are kept as a sorted list, so scans and updates touch only them.
    The kernel's arrays are made here: numba compiles each kind of allocation a kernel
    makes on its first call (BENCHMARKS.md, Cold start).

    Examples
    --------
    >>> D = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 3.0], [4.0, 3.0, 0.0]])
    >>> a, b, d = nn_chain(D, COMPLETE)
    >>> sorted(d.tolist())
    [1.0, 4.0]
    """
    n = D.shape[0]
    merges = np.empty(n - 1, np.int64), np.empty(n - 1, np.int64), np.empty(n - 1)
    _nn_chain(D, method, np.arange(n), np.ones(n), np.empty(n, np.int64), *merges)
    return merges


@njit(cache=True)
def _nn_chain(D, method, act, size, chain, out_a, out_b, out_d):
    """``nn_chain``'s merges into ``out_a``, ``out_b``, ``out_d``; ``act`` (0..n-1),
    ``size`` (ones) and ``chain`` (n) are its scratch."""
    n = D.shape[0]
    m = n
    top = 0
    for step in range(n - 1):
        if top == 0:
            chain[0], top = act[0], 1
        while True:
            a = chain[top - 1]
            prefer = chain[top - 2] if top >= 2 else -1
            b, d = _nearest(D, a, act, m, prefer)
            if b == prefer:
                break
            chain[top] = b
            top += 1
        top -= 2
        a, b = chain[top + 1], chain[top]
        out_a[step], out_b[step], out_d[step] = a, b, d
        _lance_williams(D, a, b, act, m, size, method)
        size[b] += size[a]
        k = 0
        while act[k] != a:  # a leaves the active list (loops: less to compile than slices)
            k += 1
        for t in range(k, m - 1):
            act[t] = act[t + 1]
        m -= 1


@njit(cache=True)
def _ward_cost(sums, size, p, q):
    """Half the squared Ward distance of clusters p and q: the rise in inertia."""
    acc = 0.0
    for f in range(sums.shape[1]):
        diff = sums[p, f] / size[p] - sums[q, f] / size[q]
        acc += diff * diff
    return acc * size[p] * size[q] / (size[p] + size[q])


@njit(cache=True)
def _append(ids, vals, count, node, other, value):
    """Add ``other`` (at ``value``) to ``node``'s neighbour list, doubling its storage."""
    c = count[node]
    if c == ids[node].size:
        grown_i, grown_v = np.empty(2 * c + 4, np.int64), np.empty(2 * c + 4)
        grown_i[:c], grown_v[:c] = ids[node][:c], vals[node][:c]
        ids[node], vals[node] = grown_i, grown_v
    ids[node][c], vals[node][c] = other, value
    count[node] = c + 1


@njit(cache=True)
def _merged_neighbours(ids, vals, count, i, j, active, size_i, size_j, method, slot):
    """The active neighbours of i and j with the merged cluster's linkage to each
    (complete: the larger, average: size-weighted mean where both are linked, else the
    one link); ``slot`` (n_nodes,) is scratch, -1 on entry and on exit."""
    out_i, out_v = np.empty(count[i] + count[j], np.int64), np.empty(count[i] + count[j])
    m = 0
    for side in range(2):
        node, weight = (i, size_i) if side == 0 else (j, size_j)
        for e in range(count[node]):
            x, v = ids[node][e], vals[node][e]
            if not active[x]:
                continue
            if slot[x] < 0:
                slot[x] = m
                out_i[m], out_v[m] = x, v
                m += 1
            elif method == COMPLETE:
                out_v[slot[x]] = max(out_v[slot[x]], v)
            elif method == AVERAGE:
                out_v[slot[x]] = (size_i * out_v[slot[x]] + weight * v) / (size_i + size_j)
    for e in range(m):
        slot[out_i[e]] = -1
    return out_i[:m], out_v[:m]


@njit(cache=True)
def connected_merges(indptr, indices, weights, X, method, n_merges):
    """Greedy agglomeration along a connected graph's edges (scikit-learn's structured
    ward, complete and average trees): repeatedly merge the two linked clusters at the
    smallest linkage; the merged cluster is linked to both parts' neighbours.

    Ward's linkage comes from the clusters' sums of ``X``; complete and average start from
    the edges' ``weights`` (point distances) and update them as ``_merged_neighbours``.
    Returns ``(children (n_merges, 2), distances, parent)`` with nodes numbered as
    scikit-learn's (a merge's new node is ``n + step``).

    Examples
    --------
    >>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> children, dist, _ = connected_merges(indptr, indices, np.array([1.0, 1.0, 2.0, 2.0]), X, WARD, 2)
    >>> children.tolist()
    [[0, 1], [2, 3]]
    """
    n = indptr.size - 1
    n_nodes = n + n_merges
    active = np.zeros(n_nodes, np.bool_)
    active[:n] = True
    size = np.zeros(n_nodes)
    size[:n] = 1.0
    sums = np.zeros((n_nodes if method == WARD else 1, X.shape[1]))
    if method == WARD:
        sums[:n] = X
    ids, vals = [np.empty(0, np.int64)] * 0, [np.empty(0)] * 0
    count = np.zeros(n_nodes, np.int64)
    heap = [(0.0, 0, 0)] * 0
    for a in range(n):
        lo, hi = indptr[a], indptr[a + 1]
        ids.append(indices[lo:hi].copy())
        vals.append(weights[lo:hi].copy())
        count[a] = hi - lo
        for e in range(lo, hi):
            b = indices[e]
            if b < a:
                cost = _ward_cost(sums, size, a, b) if method == WARD else weights[e]
                heap.append((cost, a, b))
    for _ in range(n_merges):
        ids.append(np.empty(0, np.int64))
        vals.append(np.empty(0))
    heapq.heapify(heap)
    parent = np.arange(n_nodes)
    children, dist = np.empty((n_merges, 2), np.int64), np.empty(n_merges)
    slot = np.full(n_nodes, -1, np.int64)
    for step in range(n_merges):
        while True:
            cost, i, j = heapq.heappop(heap)
            if active[i] and active[j]:
                break
        k = n + step
        parent[i], parent[j] = k, k
        children[step, 0], children[step, 1] = j, i
        dist[step] = np.sqrt(2.0 * cost) if method == WARD else cost
        active[i], active[j] = False, False
        size[k] = size[i] + size[j]
        if method == WARD:
            sums[k] = sums[i] + sums[j]
        nbr, link = _merged_neighbours(ids, vals, count, i, j, active, size[i], size[j], method, slot)
        active[k] = True
        ids[k], vals[k], count[k] = nbr, link, nbr.size
        for e in range(nbr.size):
            x = nbr[e]
            cost = _ward_cost(sums, size, k, x) if method == WARD else link[e]
            _append(ids, vals, count, x, k, cost)
            heapq.heappush(heap, (cost, k, x))
    return children, dist, parent


EUCLIDEAN, MANHATTAN, COSINE = 0, 1, 2


@njit(cache=True)
def _distance(X, i, j, metric, norms):
    acc = 0.0
    if metric == EUCLIDEAN:
        for f in range(X.shape[1]):
            diff = X[i, f] - X[j, f]
            acc += diff * diff
        return np.sqrt(acc)
    if metric == MANHATTAN:
        for f in range(X.shape[1]):
            acc += abs(X[i, f] - X[j, f])
        return acc
    for f in range(X.shape[1]):
        acc += X[i, f] * X[j, f]
    return max(0.0, 1.0 - acc / (norms[i] * norms[j]))


_TILE_I, _TILE_J = 32, 512  # rows x columns of a block of the distance matrix (its columns' data stay in cache)


@njit(cache=True, inline="always")  # compiled on its own, it lengthened a first call (BENCHMARKS.md, Cold start)
def _tile(X, XT, norms, metric, i0, i1, j0, j1, acc):
    """One block of distances into ``acc``: per row, one pass over the features with the
    row's partial sums in L1 and the block's columns of XT in L2."""
    width = j1 - j0
    for i in range(i0, i1):
        out = acc[i - i0]
        out[:width] = 0.0
        for f in range(X.shape[1]):
            xi = X[i, f]
            col = XT[f, j0:j1]
            if metric == EUCLIDEAN:
                for j in range(width):
                    diff = xi - col[j]
                    out[j] += diff * diff
            elif metric == MANHATTAN:
                for j in range(width):
                    out[j] += abs(xi - col[j])
            else:
                for j in range(width):
                    out[j] += xi * col[j]
        for j in range(width):
            if metric == EUCLIDEAN:
                out[j] = np.sqrt(out[j])
            elif metric == COSINE:
                out[j] = max(0.0, 1.0 - out[j] / (norms[i] * norms[j0 + j]))
            if i == j0 + j:
                out[j] = 0.0


def distance_matrix(X, metric):
    """The full float64 distance matrix of the rows of X, each pair by its own
    differences (no Gram-matrix cancellation: ties and near-ties stay as they are), in
    tiles of the upper triangle mirrored below; row blocks are dealt to the threads from
    both ends, so each gets as much of the triangle.

    Examples
    --------
    >>> distance_matrix(np.array([[0.0, 0.0], [3.0, 4.0]]), EUCLIDEAN)
    array([[0., 5.],
           [5., 0.]])
    """
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    D = np.empty((n, n))
    n_blocks = (n + _TILE_I - 1) // _TILE_I
    blocks = lambda lo, hi: _distance_blocks(X, XT, norms, metric, D, lo, hi, np.empty((_TILE_I, _TILE_J)))  # noqa: E731
    in_row_ranges("linkage", 0, n_blocks, blocks)
    return D


@njit(cache=True, nogil=True)
def _distance_blocks(X, XT, norms, metric, D, lo, hi, acc):
    """Dealt row blocks ``lo..hi`` of ``distance_matrix`` (block ``t``: the ``t // 2``-th
    from the top for even ``t``, from the bottom for odd), with their mirrored columns;
    ``acc`` (``_TILE_I`` x ``_TILE_J``) is the block's scratch, made by the caller (an
    allocation is one more thing to compile on a first call)."""
    n = X.shape[0]
    n_blocks = (n + _TILE_I - 1) // _TILE_I
    for t in range(lo, hi):
        ib = t // 2 if t % 2 == 0 else n_blocks - 1 - t // 2
        i0, i1 = ib * _TILE_I, min(n, (ib + 1) * _TILE_I)
        for j0 in range(i0, n, _TILE_J):
            j1 = min(n, j0 + _TILE_J)
            _tile(X, XT, norms, metric, i0, i1, j0, j1, acc)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    D[i, j] = acc[i - i0, j - j0]
            for j in range(j0, j1):
                for i in range(i0, i1):
                    D[j, i] = acc[i - i0, j - j0]


@njit(cache=True, parallel=True)
def _prim_step(X, metric, norms, current, in_tree, best, source):
    """Relax every outside point's distance to the tree by ``current``; the nearest one."""
    n = X.shape[0]
    n_blocks = (n + _CHUNK - 1) // _CHUNK
    block_w, block_j = np.full(n_blocks, np.inf), np.full(n_blocks, -1, np.int64)
    for blk in prange(n_blocks):
        w_min, j_min = np.inf, -1
        for j in range(blk * _CHUNK, min(n, (blk + 1) * _CHUNK)):
            if in_tree[j]:
                continue
            w = _distance(X, current, j, metric, norms)
            if w < best[j]:
                best[j], source[j] = w, current
            if best[j] < w_min:
                w_min, j_min = best[j], j
        block_w[blk], block_j[blk] = w_min, j_min
    nxt, nxt_w = -1, np.inf
    for blk in range(n_blocks):
        if block_w[blk] < nxt_w:
            nxt, nxt_w = block_j[blk], block_w[blk]
    return nxt, nxt_w


@njit(cache=True)
def prim_tree(X, metric):
    """Prim's minimum spanning tree of the rows of X, distances computed as needed
    (memory O(n)): edges ``(a, b, weight)``.

    Examples
    --------
    >>> sorted(prim_tree(np.array([[0.0], [1.0], [5.0]]), MANHATTAN)[2].tolist())
    [1.0, 4.0]
    """
    n = X.shape[0]
    norms = np.sqrt((X.astype(np.float64) ** 2).sum(axis=1))
    in_tree = np.zeros(n, np.bool_)
    best, source = np.full(n, np.inf), np.zeros(n, np.int64)
    edges_a, edges_b, edges_w = np.empty(n - 1, np.int64), np.empty(n - 1, np.int64), np.empty(n - 1)
    current = 0
    for step in range(n - 1):
        in_tree[current] = True
        nxt, nxt_w = _prim_step(X, metric, norms, current, in_tree, best, source)
        edges_a[step], edges_b[step], edges_w[step] = source[nxt], nxt, nxt_w
        current = nxt
    return edges_a, edges_b, edges_w


_SCREEN_BLOCK = 1024  # remaining points whose screening sums stay in L1 at once


def euclidean_prim_tree(X):
    """Prim's minimum spanning tree of Euclidean rows (``prim_tree``'s edges, in its
    order, to the bit), serial and screened: the rows not yet in the tree are kept
    packed, column by column in float32 (half the bytes a step streams, the sums
    vectorised across the rows), and a row's exact distance (float64, summed in column
    order as ``prim_tree`` sums it) is taken only where the float32 one, less its
    rounding bound, could lower the row's best (BENCHMARKS.md, Clustering: single
    linkage above 16 columns); serial, since a parallel pass a step costs more to start
    than it saves. Rows beyond float32's range take ``prim_tree``.

    Examples
    --------
    >>> sorted(euclidean_prim_tree(np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]]))[2].tolist())
    [1.0, 5.0]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    found = screened_prim(X, np.zeros(X.shape[0]), 1.0)
    return prim_tree(X, EUCLIDEAN) if found is None else found


def screened_prim(X, core, alpha):
    """``euclidean_prim_tree`` on mutual reachability, ``max(core_i, core_j, d_ij /
    alpha)`` (HDBSCAN's; zero ``core``: single linkage), with Prim's tie rule: the
    lowest row among equal weights, joined to the earliest tree row offering it. None
    for rows beyond float32's range.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [5.0]])
    >>> screened_prim(X, np.array([2.0, 2.0, 4.0]), 1.0)[2].tolist()
    [2.0, 4.0]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    centred = X - X.mean(axis=0)
    radius = float(np.sqrt(np.einsum("ij,ij->i", centred, centred).max(initial=0.0)))
    if not radius < 1e30:  # float32 would overflow (or the rows are not finite)
        return None
    # float32 rows off by 2^-24 of their norm each (below float32's normal range, by its
    # smallest step per column); the float64 sums by (d + 2) units of theirs, relative
    margin = 2.02 * 2.0**-24 * radius + 2.0 * np.sqrt(d) * 2.0**-149
    rel = 4.0 * (d + 2) * 2.0**-53
    packed = np.ascontiguousarray(centred.T, dtype=np.float32)
    return _screened_prim(X, packed, margin, rel, np.asarray(core, dtype=np.float64).copy(), float(alpha))


@njit(cache=True, nogil=True, error_model="numpy")
def _screened_prim(X, packed, margin, rel, core, alpha):
    """``screened_prim``'s steps: row ``ids[p]`` of X at place p < m of the packed
    columns (``core`` kept in the same places); the row joining the tree leaves its
    place to the last one."""
    n, d = X.shape
    ids = np.arange(n)
    best, source = np.full(n, np.inf), np.zeros(n, np.int64)
    edges_a, edges_b, edges_w = np.empty(n - 1, np.int64), np.empty(n - 1, np.int64), np.empty(n - 1)
    acc = np.empty(_SCREEN_BLOCK)
    here32, here = packed[:, 0].copy(), X[0].copy()
    current, m = 0, n
    place = 0
    here_core = core[0]
    for step in range(n):
        m -= 1  # the current row leaves the packed rows
        for f in range(d):
            packed[f, place] = packed[f, m]
        ids[place], best[place], source[place], core[place] = ids[m], best[m], source[m], core[m]
        if m == 0:
            break
        place, w = -1, np.inf
        for lo in range(0, m, _SCREEN_BLOCK):
            hi = min(m, lo + _SCREEN_BLOCK)
            _screen(packed, here32, lo, hi, acc)
            for t in range(hi - lo):
                p = lo + t
                floor = max(here_core, core[p])
                # it may come nearer: its core distances allow it, and its float32 distance
                if floor < best[p] and np.sqrt(acc[t]) < (best[p] * alpha + margin) * (1.0 + rel):
                    s = 0.0
                    for f in range(d):
                        diff = here[f] - X[ids[p], f]
                        s += diff * diff
                    weight = max(np.sqrt(s) / alpha, floor)
                    if weight < best[p]:
                        best[p], source[p] = weight, current
                if place < 0 or best[p] < w or (best[p] == w and ids[p] < ids[place]):  # the lowest row on a tie
                    place, w = p, best[p]
        current, here_core = ids[place], core[place]
        edges_a[step], edges_b[step], edges_w[step] = source[place], current, w
        for f in range(d):
            here32[f] = packed[f, place]
            here[f] = X[current, f]
    return edges_a, edges_b, edges_w


@njit(cache=True, inline="always")
def _screen(packed, here32, lo, hi, acc):
    """Squared float32 distances (summed in float64) of the packed rows lo..hi to here,
    column by column: each sum runs across the rows, in vector lanes."""
    width = hi - lo
    acc[:width] = 0.0
    for f in range(packed.shape[0]):
        x = np.float64(here32[f])
        col = packed[f, lo:hi]
        for t in range(width):
            diff = x - np.float64(col[t])
            acc[t] += diff * diff


@njit(cache=True)
def node_labels(children, node_label, n):
    """Spread the labels of chosen tree nodes (``node_label``, -1 elsewhere) down to
    every descendant; returns the labels of the ``n`` leaves.

    Examples
    --------
    >>> node_labels(np.array([[0, 1], [2, 3]]), np.array([-1, -1, 1, 0, -1]), 3).tolist()
    [0, 0, 1]
    """
    for node in range(node_label.size - 1, n - 1, -1):
        if node_label[node] >= 0:
            for c in range(2):
                node_label[children[node - n, c]] = node_label[node]
    return node_label[:n].copy()
