"""How well an embedding keeps the structure of the data, computed without an n x n
matrix: distances in row blocks, neighbours from the exact kNN index. Above
``max_queries`` points, the rank-based scores are exact averages over that many
query points drawn at random (each query is scored against all points)."""

import numpy as np

from .._random import check_random_state
from .._validation import check_array, check_labels_given
from ..neighbors import ExactIndex, NeighborGraph, make_index
from ._ranks_small import SMALL_RANKS, rank_excess_small
from ._sampling import query_rows

MAX_QUERIES = 20000
BLOCK_BYTES = 8 << 20  # one block of query-to-all distances (64 MiB of fresh memory a block: 1.5x the time)


def _pair(X, Z, metric="euclidean"):
    X = check_array(X, estimator_name="embedding metric", allow_nan=metric == "gower")
    Z = check_array(Z, name="X_embedded", estimator_name="embedding metric")
    if X.shape[0] != Z.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} samples but X_embedded has {Z.shape[0]}; pass the embedding of the same rows."
        )
    return X, Z


def _graph_pair(graph, Z, k):
    """The embedding checked against a data ``NeighborGraph`` of the same rows."""
    Z = check_array(Z, name="X_embedded", estimator_name="embedding metric")
    if graph.n_samples != Z.shape[0]:
        raise ValueError(
            f"the NeighborGraph has {graph.n_samples} rows but X_embedded has {Z.shape[0]}; "
            "pass the embedding of the same rows."
        )
    graph.neighbors(k, name="the metric")  # refuses a graph with fewer than k neighbours
    return Z


def _nearest(X, rows, k, metric="euclidean", metric_params=None):
    """Each query row's ``k`` nearest other rows of ``X``: from a ``NeighborGraph``
    given as ``X``, or searched exactly in ``metric``."""
    if isinstance(X, NeighborGraph):
        return X.indices[rows, :k]
    _, near = make_index("exact", metric, X.shape[0], metric_params).build(X).query(X[rows], k + 1)
    return np.array([r[r != i][:k] for i, r in zip(rows, near)])


def _check_k(k, n, name="n_neighbors"):
    if not 1 <= k < n / 2:
        raise ValueError(f"{name} ({k}) should be less than n_samples / 2 ({n / 2}); lower {name}.")


def _rank_penalty(A, near_b, k, rows, metric, metric_params=None):
    """Sum over queries of ``sum (rank_A(i, j) - k)`` for the points ``j`` among the k
    nearest in B (``near_b``: each query row's, itself excluded) but not in A, ranks
    counted in A (1 = nearest other point; equal distances by index, as a stable sort
    orders them: decided on exact distances where a BLAS expansion could blur them)."""
    n = A.shape[0]
    index_a = make_index("exact", metric, n, metric_params).build(A)
    expanded = isinstance(index_a, ExactIndex) and metric != "precomputed"
    near_b = np.asarray(near_b, dtype=np.int64)
    total = 0.0
    step = max(1, BLOCK_BYTES // (8 * n))
    ranks = _split_rank_excess if len(rows) * n > SMALL_RANKS else lambda *block: float(rank_excess_small(*block).sum())
    for start in range(0, len(rows), step):
        block = rows[start : start + step].astype(np.int64)
        if expanded:
            D, bound, queries, data = index_a._expanded_block(block)
        else:
            D, bound, queries, data = index_a._block_distances(A[block]), np.zeros(len(block)), np.empty((0, 1)), A[:0]
        total += ranks(D, bound, queries, data, near_b[start : start + len(block)], block, k)
    return total


def _split_rank_excess(D, bound, queries, data, targets, skip, k):
    """``rank_excess`` summed over the block's rows, split across the cores' threads."""
    from .._kernels.neighbors import rank_excess
    from .._threads import in_row_ranges

    exact = queries.shape[0] > 0
    m = targets.shape[1]

    def part(a, b):
        out = np.zeros(b - a)
        scratch = (np.zeros(data.shape[1]), np.empty(m), np.empty(m, dtype=np.int64))
        rows = (D[a:b], bound[a:b], queries[a:b] if exact else queries, data, targets[a:b], skip[a:b])
        rank_excess(*rows, k, *scratch, np.empty(2 * m + 1, dtype=np.int64), out)
        return out.sum()

    return float(sum(in_row_ranges("ranks", 0, D.shape[0], part)))


def trustworthiness(
    X, X_embedded, *, n_neighbors=5, metric="euclidean", metric_params=None, max_queries=MAX_QUERIES, random_state=None
):
    """Trustworthiness (Venna & Kaski): penalises points that are near in the embedding
    but far in the data, by how far down the data's neighbour ranking they are.

    1.0 when every embedding neighbourhood is a data neighbourhood. Matches
    scikit-learn's ``trustworthiness``; computed in row blocks, and for more than
    ``max_queries`` points exactly on that many random query points.

    Parameters
    ----------
    X : array-like (n, d), or distances with metric='precomputed'
    X_embedded : array-like (n, c)
    n_neighbors : int, default=5
    metric : str, default='euclidean'
        For ``X`` (any metric of ``lowdim.neighbors.make_index``: 'euclidean', 'cosine',
        'precomputed', 'manhattan', ..., 'gower' for a coded mixed table); the embedding
        is always Euclidean.
    metric_params : dict, optional
        Keyword arguments of the metric ('categorical', 'ordinal', 'weights' for 'gower').
    max_queries : int or None, default=20000
    random_state : None, int or Generator
        Draws the query sample.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> trustworthiness(X, X[:, :2]) > 0.8
    True
    """
    if isinstance(X, NeighborGraph):
        raise ValueError(
            "trustworthiness ranks embedding neighbours among all data points, beyond any kNN graph; "
            "pass the data X (continuity and knn_preservation take a NeighborGraph)."
        )
    X, Z = _pair(X, X_embedded, metric)
    n, k = X.shape[0], n_neighbors
    _check_k(k, n)
    rows = query_rows(n, max_queries, random_state)
    penalty = _rank_penalty(X, _nearest(Z, rows, k), k, rows, metric, metric_params)
    return float(1.0 - penalty * 2.0 / (len(rows) * k * (2.0 * n - 3.0 * k - 1.0)))


def continuity(
    X, X_embedded, *, n_neighbors=5, metric="euclidean", metric_params=None, max_queries=MAX_QUERIES, random_state=None
):
    """Continuity (Venna & Kaski): penalises data neighbours that the embedding pulls
    apart; trustworthiness with the roles of data and embedding swapped.

    Parameters
    ----------
    X : array-like (n, d) or NeighborGraph
        The data, or their neighbour graph (at least ``n_neighbors`` per row: the
        data's side of continuity is their nearest neighbours only).
    X_embedded : array-like (n, k)
        The embedding.
    n_neighbors : int
    metric : str, default='euclidean'
        For ``X`` (as ``trustworthiness``'s).
    metric_params : dict, optional
    max_queries : int, default=20000
        Larger data are estimated from this many random query points (against all).
    random_state : int, Generator or None

    Returns
    -------
    float
        Between 0 and 1; 1 is perfect.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> continuity(X, X) == 1.0
    True
    """
    if isinstance(X, NeighborGraph):
        Z = _graph_pair(X, X_embedded, n_neighbors)
    else:
        X, Z = _pair(X, X_embedded, metric)
    n, k = Z.shape[0], n_neighbors
    _check_k(k, n)
    rows = query_rows(n, max_queries, random_state)
    penalty = _rank_penalty(Z, _nearest(X, rows, k, metric, metric_params), k, rows, "euclidean")
    return float(1.0 - penalty * 2.0 / (len(rows) * k * (2.0 * n - 3.0 * k - 1.0)))


def knn_preservation(
    X, X_embedded, *, n_neighbors=10, metric="euclidean", metric_params=None, max_queries=MAX_QUERIES, random_state=None
):
    """Mean fraction of each point's ``n_neighbors`` nearest data neighbours that are
    also among its nearest embedding neighbours (recall of the kNN graph).

    Parameters
    ----------
    X : array-like (n, d) or NeighborGraph
        The data, or their neighbour graph (at least ``n_neighbors`` per row).
    X_embedded : array-like (n, k)
        The embedding.
    n_neighbors : int
    metric : str, default='euclidean'
        For ``X`` (as ``trustworthiness``'s).
    metric_params : dict, optional
    max_queries : int, default=20000
        Larger data are estimated from this many random query points (against all).
    random_state : int, Generator or None

    Returns
    -------
    float
        Between 0 and 1; 1 is perfect.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> knn_preservation(X, 2 * X)
    1.0
    """
    k = n_neighbors
    if isinstance(X, NeighborGraph):
        Z = _graph_pair(X, X_embedded, k)
    else:
        X, Z = _pair(X, X_embedded, metric)
    rows = query_rows(Z.shape[0], max_queries, random_state)
    a, b = _nearest(X, rows, k, metric, metric_params), _nearest(Z, rows, k)
    hits = [np.intersect1d(ai, bi).size for ai, bi in zip(a, b)]
    return float(np.mean(hits) / k)


def knn_accuracy(X_embedded, y, *, n_neighbors=5, test_size=0.2, random_state=None):
    """Held-out accuracy of a k-nearest-neighbour majority vote in the embedding.

    A random ``test_size`` fraction of the points is classified by its neighbours
    among the others.

    Parameters
    ----------
    X_embedded : array-like (n, k)
    y : array-like (n,)
        Class labels.
    n_neighbors : int, default=5
    test_size : float, default=0.2
        Fraction of points held out.
    random_state : int, Generator or None

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.r_[np.zeros((20, 2)), np.ones((20, 2)) * 5]
    >>> knn_accuracy(Z, [0] * 20 + [1] * 20, random_state=0)
    1.0
    """
    Z = check_array(X_embedded, name="X_embedded", estimator_name="knn_accuracy")
    y = np.asarray(y)
    if y.shape != (Z.shape[0],):
        raise ValueError(f"y has shape {y.shape}; expected ({Z.shape[0]},), one label per point.")
    check_labels_given(y, "knn_accuracy")
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must lie strictly between 0 and 1 (a fraction of the points); got {test_size}.")
    rng = check_random_state(random_state)
    n_test = max(1, int(round(test_size * Z.shape[0])))
    perm = rng.permutation(Z.shape[0])
    test, train = perm[:n_test], perm[n_test:]
    if not 1 <= n_neighbors <= train.size:
        raise ValueError(
            f"n_neighbors={n_neighbors} must be between 1 and {train.size}, the points left to vote after "
            f"holding out {n_test} of {Z.shape[0]}; lower n_neighbors (or test_size)."
        )
    _, idx = ExactIndex().build(Z[train]).query(Z[test], n_neighbors)
    classes, codes = np.unique(y, return_inverse=True)
    votes = np.zeros((test.size, classes.size))
    np.add.at(votes, (np.repeat(np.arange(test.size), idx.shape[1]), codes[train][idx].ravel()), 1.0)
    return float(np.mean(np.argmax(votes, axis=1) == codes[test]))


def _sampled_pairs(n, n_pairs, rng):
    if n_pairs is None or n * (n - 1) // 2 <= n_pairs:
        return np.triu_indices(n, 1)
    i = rng.integers(0, n, size=n_pairs)
    j = rng.integers(0, n - 1, size=n_pairs)
    j = j + (j >= i)  # a pair of distinct points
    return i, j


def _pair_distances(A, i, j):
    """Distances of the pairs (i, j), in chunks of pairs so memory stays bounded."""
    step = max(1, (32 << 20) // (8 * A.shape[1]))
    out = np.empty(len(i))
    for s in range(0, len(i), step):
        diff = A[i[s : s + step]].astype(np.float64) - A[j[s : s + step]]
        out[s : s + step] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


def stress(X, X_embedded, *, normalized=True, n_pairs=1_000_000, random_state=None):
    """Stress between data and embedding distances: raw ``sum (d_ij - delta_ij)^2``, or
    normalised (Kruskal's stress-1, ``sqrt(raw / sum delta_ij^2)``), over all pairs or
    ``n_pairs`` random pairs when there are more.

    Parameters
    ----------
    X : array-like (n, d)
    X_embedded : array-like (n, k)
    normalized : bool, default=True
        Kruskal's stress-1 instead of the raw sum.
    n_pairs : int, default=1,000,000
        Above this many pairs, a random sample of them.
    random_state : int, Generator or None

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> stress(X, X)
    0.0
    """
    X, Z = _pair(X, X_embedded)
    i, j = _sampled_pairs(X.shape[0], n_pairs, check_random_state(random_state))
    delta, d = _pair_distances(X, i, j), _pair_distances(Z, i, j)
    raw = float(np.sum((d - delta) ** 2))
    if normalized and not np.any(delta):
        raise ValueError(
            "every row of X is at one point, so the normalised stress (0 / 0) is undefined; pass rows that vary, "
            "or normalized=False."
        )
    return float(np.sqrt(raw / np.sum(delta**2))) if normalized else raw


def spearman_distance_correlation(X, X_embedded, *, n_pairs=1_000_000, random_state=None):
    """Spearman rank correlation between data and embedding distances over all pairs,
    or ``n_pairs`` random pairs when there are more.

    Parameters
    ----------
    X : array-like (n, d)
    X_embedded : array-like (n, k)
    n_pairs : int, default=1,000,000
        Above this many pairs, a random sample of them.
    random_state : int, Generator or None

    Returns
    -------
    float
        Between -1 and 1.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> round(spearman_distance_correlation(X, 3 * X), 12)
    1.0
    """
    from scipy.stats import spearmanr

    X, Z = _pair(X, X_embedded)
    i, j = _sampled_pairs(X.shape[0], n_pairs, check_random_state(random_state))
    delta, d = _pair_distances(X, i, j), _pair_distances(Z, i, j)
    for values, name in ((delta, "X"), (d, "X_embedded")):
        _require_spread(values, name, "a rank correlation of distances")
    return float(spearmanr(delta, d)[0])


def _require_spread(distances, name, what):
    """Refuse rows all at one point (every pair at one distance), which leave ``what``
    undefined (scipy's NaN, with a warning pointing into lowdim)."""
    if distances.size and np.all(distances == distances[0]):
        raise ValueError(
            f"every pair of rows of {name} is at the same distance ({distances[0]:.6g}) in the pairs compared, so "
            f"{what} is undefined; pass rows that vary."
        )


def random_triplet_accuracy(X, X_embedded, *, n_triplets=100_000, random_state=None):
    """Share of random triplets (i, j, l) whose order of distances, ``d(i, j) < d(i, l)``
    or the reverse, the embedding keeps: a measure of global structure (Wang et al.,
    JMLR 2021, where the triplets are drawn as here; 0.5 is chance).

    Parameters
    ----------
    X : array-like (n, d)
    X_embedded : array-like (n, k)
    n_triplets : int, default=100,000
    random_state : int, Generator or None

    Returns
    -------
    float
        Between 0 and 1; triplets tied in the data are left out.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> random_triplet_accuracy(X, 2 * X + 1, random_state=0)
    1.0
    """
    X, Z = _pair(X, X_embedded)
    n = X.shape[0]
    if n < 3:
        raise ValueError(f"random_triplet_accuracy needs at least 3 points; got {n}.")
    rng = check_random_state(random_state)
    i = rng.integers(0, n, size=n_triplets)
    j, l = (i + rng.integers(1, n, size=n_triplets)) % n, (i + rng.integers(1, n, size=n_triplets)) % n
    data = np.sign(_pair_distances(X, i, j) - _pair_distances(X, i, l))
    kept = data != 0
    embedded = np.sign(_pair_distances(Z, i, j) - _pair_distances(Z, i, l))
    return float(np.mean(data[kept] == embedded[kept])) if kept.any() else 1.0
