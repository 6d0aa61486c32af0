"""Gower's distance for tables of mixed columns (numbers, ordered and unordered
categories, gaps): the column description it needs, and an exact kNN index over it."""

import warnings

import numpy as np

from .._validation import check_array
from ._approximate import HNSWIndex, _drop_self
from ._pairwise import PairwiseIndex, blocked_query, check_metric_params


def _column_list(name, value, n_features):
    """Sorted 0-based column numbers of ``value`` (ints), each in range."""
    columns = sorted({int(c) for c in (value or ())})
    bad = [c for c in columns if not 0 <= c < n_features]
    if bad:
        raise ValueError(
            f"metric_params[{name!r}] names column {bad[0]}, but the data have {n_features} columns "
            f"(0 to {n_features - 1})."
        )
    return columns


def gower_columns(metric_params, n_features):
    """What Gower's distance needs to know of each column, from ``metric_params``.

    Parameters
    ----------
    metric_params : dict or None
        'categorical': column numbers holding category codes (compared equal or not);
        'ordinal': column numbers holding ordered codes or ranks (compared as numbers on
        their range, as Gower's and Kaufman and Rousseeuw's ranks); 'weights': one
        non-negative weight per column (default 1); 'ranges': one range per column that
        numbers are divided by (default: the range of the indexed rows; for a model
        applied to new rows, the training rows'). Other columns are numbers.
    n_features : int

    Returns
    -------
    categorical : ndarray of bool (n_features,)
    weights : ndarray of float64 (n_features,)

    Examples
    --------
    >>> cat, w = gower_columns({"categorical": [1]}, 3)
    >>> cat.tolist(), w.tolist()
    ([False, True, False], [1.0, 1.0, 1.0])
    """
    params = check_metric_params("gower", metric_params)
    categorical = np.zeros(n_features, dtype=bool)
    categorical[_column_list("categorical", params.get("categorical"), n_features)] = True
    ordinal = _column_list("ordinal", params.get("ordinal"), n_features)
    both = [c for c in ordinal if categorical[c]]
    if both:
        raise ValueError(f"column {both[0]} is listed both as categorical and as ordinal in metric_params; keep one.")
    weights = params.get("weights")
    weights = np.ones(n_features) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_features,) or not np.all(np.isfinite(weights)) or weights.min() < 0 or weights.sum() <= 0:
        raise ValueError(
            f"metric_params['weights'] must hold {n_features} finite non-negative weights, not all zero; "
            f"got {params.get('weights')!r}."
        )
    return categorical, weights


def column_ranges(X, categorical, ranges=None):
    """One over each non-categorical column's range of observed values (or of the given
    ``ranges``; 0 where the column is constant or empty: it then adds nothing), the
    scale Gower's distance uses."""
    if ranges is not None:
        span = np.asarray(ranges, dtype=np.float64)
        if span.shape != (X.shape[1],) or not np.all(span >= 0):
            raise ValueError(
                f"metric_params['ranges'] must hold {X.shape[1]} non-negative ranges, one per column; got {ranges!r}."
            )
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an empty column has no range (NaN): scale 0
            span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 0.0)
    scale[categorical] = 0.0
    return scale


# categories with more levels than this are searched as random unit vectors of this many
# dimensions (nearly equidistant), not one-hot, so the search space stays small
ONE_HOT_UP_TO = 8
CANDIDATES = 3  # the approximate search re-ranks this many times k (plus 10) candidates
REFINE_ROUNDS = 2  # neighbours-of-neighbours rounds when the table has gaps (see GowerIndex)


class GowerEncoding:
    """Vectors whose squared Euclidean distances follow Gower's distance (the
    approximate search's space): numbers scaled by their range (a gap at the column's
    mean), categories one-hot (or, beyond ``ONE_HOT_UP_TO`` levels, random unit vectors)
    at 1/sqrt(2) so that two categories that differ are 1 apart, each column times its
    weight.

    Parameters
    ----------
    X : ndarray (n, d)
        The indexed rows (coded; NaN for gaps).
    categorical : ndarray of bool (d,)
    scale, weights : ndarray (d,)
    seed : int, default=0

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [2.0, 0.0]])
    >>> E = GowerEncoding(X, np.array([False, True]), np.array([0.5, 0.0]), np.ones(2)).encode(X)
    >>> float(np.sum((E[0] - E[1]) ** 2))  # number 1 apart, category 1 apart
    2.0
    """

    def __init__(self, X, categorical, scale, weights, seed=0):
        self.categorical, self.scale, self.weights = categorical, scale, weights
        with np.errstate(all="ignore"):
            self.fill = np.nan_to_num(np.nanmean(X, axis=0))
        rng = np.random.default_rng(seed)
        self.codebooks = {}
        for j in np.flatnonzero(categorical):
            present = X[:, j][~np.isnan(X[:, j])]
            levels = int(present.max()) + 1 if present.size else 1
            if levels <= ONE_HOT_UP_TO:
                book = np.eye(levels)
            else:
                book = rng.normal(size=(levels, ONE_HOT_UP_TO))
                book /= np.linalg.norm(book, axis=1, keepdims=True)
            self.codebooks[int(j)] = book * weights[j] / np.sqrt(2.0)

    @classmethod
    def from_state(cls, levels, offset, multiplier, codebook):
        """The encoding whose ``state()`` these are (a model's), refused with the reason
        when the arrays do not fit together.

        Examples
        --------
        >>> X = np.array([[0.0, 1.0], [2.0, 0.0]])
        >>> E = GowerEncoding(X, np.array([False, True]), np.array([0.5, 0.0]), np.ones(2))
        >>> bool(np.array_equal(GowerEncoding.from_state(*E.state()).encode(X), E.encode(X)))
        True
        """
        levels = np.asarray(levels)
        numbers = [np.asarray(a, dtype=np.float64) for a in (offset, multiplier, codebook)]
        if levels.ndim != 1 or levels.dtype.kind not in "iu" or levels.size == 0 or levels.min() < 0:
            raise ValueError(f"the Gower coding's levels must be non-negative integers, one per column; got {levels!r}")
        sizes = [int(n) * min(int(n), ONE_HOT_UP_TO) for n in levels]
        if numbers[0].shape != levels.shape or numbers[1].shape != levels.shape or numbers[2].shape != (sum(sizes),):
            raise ValueError(
                f"the Gower coding's arrays do not fit its {levels.size} columns: offsets {numbers[0].shape}, "
                f"multipliers {numbers[1].shape}, category vectors {numbers[2].shape} (expected ({sum(sizes)},))"
            )
        if not all(np.isfinite(a).all() for a in numbers):
            raise ValueError("the Gower coding's arrays must be finite")
        self = cls.__new__(cls)
        self.categorical, self.fill, self.scale = levels > 0, numbers[0], numbers[1]
        self.weights = np.ones(levels.size)  # folded into the multipliers and the vectors
        ends = np.cumsum(sizes)
        self.codebooks = {
            int(j): numbers[2][ends[j] - sizes[j] : ends[j]].reshape(int(levels[j]), -1) for j in np.flatnonzero(levels)
        }
        return self

    def state(self):
        """``(levels, offset, multiplier, codebook)``: each column's levels (0 for a
        number), the numbers' offsets (the column means, which gaps take) and multipliers
        (weight over range), and every category's vectors in one array; ``from_state``
        makes the encoding again from them (what a model file keeps)."""
        levels = np.array([self.codebooks[j].shape[0] if c else 0 for j, c in enumerate(self.categorical)])
        books = [self.codebooks[j].ravel() for j in np.flatnonzero(self.categorical)]
        multiplier = np.where(self.categorical, 0.0, self.scale * self.weights)
        return levels, self.fill.copy(), multiplier, np.concatenate([np.zeros(0), *books])

    @property
    def width(self):
        """How many numbers a row's vector holds."""
        return sum(self.codebooks[j].shape[1] if c else 1 for j, c in enumerate(self.categorical))

    def decode(self, E):
        """The coded rows nearest to the vectors ``E``: numbers back through their
        multiplier (a column that adds nothing: its mean), categories as the level whose
        vector is nearest.

        Examples
        --------
        >>> X = np.array([[0.0, 1.0], [2.0, 0.0]])
        >>> E = GowerEncoding(X, np.array([False, True]), np.array([0.5, 0.0]), np.ones(2))
        >>> E.decode(E.encode(X)).tolist()
        [[0.0, 1.0], [2.0, 0.0]]
        """
        E = np.asarray(E, dtype=np.float64)
        out, at = np.empty((E.shape[0], self.categorical.size)), 0
        for j, categorical in enumerate(self.categorical):
            if not categorical:
                m = self.scale[j] * self.weights[j]
                out[:, j] = self.fill[j] + (E[:, at] / m if m else 0.0)
                at += 1
                continue
            book = self.codebooks[j]
            block = E[:, at : at + book.shape[1]]
            squared = np.sum(book**2, axis=1)[None, :] - 2.0 * block @ book.T
            out[:, j] = np.argmin(squared, axis=1)
            at += book.shape[1]
        return out

    def encode(self, X):
        """float32 vectors of the rows of ``X`` (a category the codebook lacks, or a gap,
        becomes the zero vector: half a difference from every category)."""
        parts = []
        for j in range(X.shape[1]):
            column = X[:, j]
            if not self.categorical[j]:
                filled = np.where(np.isnan(column), self.fill[j], column)
                parts.append(((filled - self.fill[j]) * self.scale[j] * self.weights[j])[:, None])
                continue
            book = self.codebooks[j]
            codes = np.where(np.isnan(column), -1, column).astype(np.int64)
            known = (codes >= 0) & (codes < book.shape[0])
            block = np.zeros((X.shape[0], book.shape[1]))
            block[known] = book[codes[known]]
            parts.append(block)
        return np.ascontiguousarray(np.hstack(parts), dtype=np.float32)


def gower_encoding(X, metric_params):
    """The ``GowerEncoding`` of the coded rows ``X`` (NaN for gaps) under
    ``metric_params`` (its columns and weights: ``gower_columns``; its ranges: the rows'
    own, or the given 'ranges'): a numeric space whose Euclidean distances follow Gower's,
    for what reads vectors (the approximate search, a PCA start, a network's input).

    Parameters
    ----------
    X : ndarray (n, d)
    metric_params : dict or None
        'categorical', 'ordinal', 'weights', 'ranges' (see ``gower_columns``).

    Returns
    -------
    GowerEncoding

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 2.0]])
    >>> gower_encoding(X, {"categorical": [1]}).encode(X).shape  # a number, 3 categories
    (3, 4)
    """
    categorical, weights = gower_columns(metric_params, X.shape[1])
    scale = column_ranges(X, categorical, check_metric_params("gower", metric_params).get("ranges"))
    return GowerEncoding(X, categorical, scale, weights)


class GowerIndex(PairwiseIndex):
    """Exact kNN index for Gower's distance on mixed rows, in row blocks.

    The data are numbers: category codes in the ``categorical`` columns, ordered codes or
    ranks in the ``ordinal`` ones, NaN for a missing cell (``lowdim.preprocessing.mixed_codes``
    makes such a table from a DataFrame or text columns). A pair's distance is the
    weighted mean over the columns both rows have of: 0/1 for categories that agree or
    not, the absolute difference over the column's range (of the indexed rows) for numbers
    and ranks, as in Gower (1971). A pair with no column in common has no distance: it is
    never a neighbour.

    With ``approximate``, the rows are searched in a space whose Euclidean distances
    follow Gower's (``GowerEncoding``: numbers over their range, categories as vectors 1
    apart, gaps at the mean) by an HNSW graph (faiss), and each row's ``3 k + 10``
    candidates are re-ranked by their exact Gower distance: the time grows like the rows,
    not their square, and the neighbours returned are at their exact distances (a true
    neighbour the search misses is replaced by the next candidate).

    Parameters
    ----------
    metric : 'gower'
    metric_params : dict or None
        'categorical', 'ordinal', 'weights' (see ``gower_columns``).
    block_bytes : int, default=64 MiB
    approximate : bool, default=False
        Search candidates by HNSW, then re-rank them exactly (needs faiss).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [1.5, 1.0], [np.nan, 1.0]])
    >>> index = GowerIndex("gower", {"categorical": [1]}).build(X)
    >>> index.pairwise(X[:1]).round(3).tolist()
    [[0.0, 0.5, 0.75, 1.0]]
    """

    metrics = ("gower",)

    def __init__(self, metric="gower", metric_params=None, block_bytes=64 << 20, approximate=False):
        if metric != "gower":
            raise ValueError(f"GowerIndex computes metric 'gower'; got {metric!r}.")
        self.metric = metric
        self.metric_params = check_metric_params("gower", metric_params)
        self.block_bytes = block_bytes
        self.approximate = approximate

    def _build(self, X):
        """Index the rows of ``X`` (NaN marks a missing cell); the numeric ranges come from them."""
        X = check_array(X, estimator_name="GowerIndex", allow_nan=True)
        self._data = np.array(X, dtype=np.float64)
        self._encoding = gower_encoding(self._data, self.metric_params)
        self._categorical, self._weights, self._scale = (
            self._encoding.categorical,
            self._encoding.weights,
            self._encoding.scale,
        )
        self._check_comparable(self._data)
        if self.approximate:
            self._search = HNSWIndex("euclidean").build(self._encoding.encode(self._data))

    @property
    def ranges(self):
        """ndarray (d,): each column's range as the distance divides by it (0 for
        categories and constant columns); ``metric_params={'ranges': ...}`` applies the
        same scale to another set of rows."""
        return np.where(self._scale > 0, 1.0 / np.where(self._scale > 0, self._scale, 1.0), 0.0)

    def encode(self, Q):
        """The rows of ``Q`` as float32 vectors whose Euclidean distances follow Gower's
        (``GowerEncoding``: numbers over their range, categories as vectors 1 apart, gaps
        at the column mean): a numeric space for a PCA start or the approximate search.

        Parameters
        ----------
        Q : array-like (m, d)

        Returns
        -------
        ndarray of float32 (m, e)
        """
        return self._encoding.encode(self._checked(Q))

    def candidate_distances(self, Q, candidates):
        """Gower's distance of each row of ``Q`` to its ``candidates`` (indexed rows).

        Parameters
        ----------
        Q : array-like (m, d)
        candidates : ndarray of int (m, c)

        Returns
        -------
        ndarray of float64 (m, c)
            Infinity where a pair has no column in common.
        """
        from .._kernels.gower import gower_candidates

        candidates = np.ascontiguousarray(candidates, dtype=np.int64)
        out = np.empty(candidates.shape)
        gower_candidates(self._checked(Q), self._data, candidates, self._categorical, self._scale, self._weights, out)
        return out

    def pair_distances(self, a, b):
        """Gower's distance of each pair of indexed rows ``(a[t], b[t])``; 1, the largest,
        where a pair has no column in common.

        Parameters
        ----------
        a, b : ndarray of int (m,)

        Returns
        -------
        ndarray of float64 (m,)

        Examples
        --------
        >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [0.5, np.nan], [np.nan, 0.0]])
        >>> GowerIndex("gower", {"categorical": [1]}).build(X).pair_distances(np.array([0, 2]), np.array([1, 3]))
        array([0.5, 1. ])
        """
        from .._kernels.gower import gower_pairs

        a, b = (np.ascontiguousarray(v, dtype=np.int64) for v in (a, b))
        out = np.empty(a.shape[0])
        gower_pairs(self._data, a, b, self._categorical, self._scale, self._weights, out)
        return out

    def _check_comparable(self, X):
        """A row with every cell missing has no distance to anything: say which."""
        empty = np.flatnonzero(np.all(np.isnan(X) | (self._weights == 0), axis=1))
        if empty.size:
            raise ValueError(
                f"row {int(empty[0])} has no value in any weighted column ({empty.size} such row(s)); "
                "Gower's distance compares the cells two rows both have: drop these rows."
            )

    def _checked(self, Q):
        Q = check_array(Q, estimator_name="GowerIndex", allow_nan=True)
        if Q.shape[1] != self._data.shape[1]:
            raise ValueError(f"query has {Q.shape[1]} features, but the index has {self._data.shape[1]}.")
        return np.ascontiguousarray(Q, dtype=np.float64)

    def pairwise(self, Q):
        """All Gower distances from the rows of ``Q`` to the indexed rows, (m, n) float64;
        NaN where a pair has no column in common."""
        from .._kernels.gower import gower_block

        Q = self._checked(Q)
        out = np.empty((Q.shape[0], self._data.shape[0]))
        gower_block(Q, self._data, self._categorical, self._scale, self._weights, out)
        return out

    def _block_distances(self, Qb):
        out = self.pairwise(Qb)
        out[np.isnan(out)] = np.inf  # no column in common: never a neighbour
        return out

    def query(self, Q, k, *, exclude_self=False):
        """The ``k`` nearest indexed rows of each row of ``Q`` by Gower's distance.

        Parameters
        ----------
        Q : array-like (m, d)
            Coded like the indexed rows; NaN for missing cells.
        k : int
        exclude_self : bool, default=False
            ``Q`` is the indexed data: a row is not its own neighbour.

        Returns
        -------
        distances : ndarray (m, k)
        indices : ndarray of int64 (m, k)
        """
        Q = self._checked(Q)
        self._check_comparable(Q)
        if not self.approximate:
            return blocked_query(self, Q, k, exclude_self)
        found = self._search.query(self._encoding.encode(Q), self._n_candidates(k), exclude_self=exclude_self)[1]
        return self._reranked(Q, found, k)

    def _n_candidates(self, k):
        return min(self.n_samples_ - 1, CANDIDATES * k + 10)

    def _query_indexed(self, start, stop, k):
        """The approximate index answers blocks of its own rows (``self_neighbors``);
        the exact one whole self-queries, through ``query``."""
        if not self.approximate:
            return None
        block = self._search._query_indexed(start, stop, self._n_candidates(k))
        if block is None:  # the search in principal axes answers whole self-queries only
            Q = self._data[start:stop]
            found = self._search.query(self._encoding.encode(Q), self._n_candidates(k) + 1)[1]
            return self._reranked(Q, _drop_self(found, self._n_candidates(k), start), k)
        return self._reranked(self._data[start:stop], block[1], k)

    def repair_self_query(self, distances, indices):
        """Tables with gaps: a gap is skipped pair by pair, so a row with one is near the
        rows that agree on its other columns wherever they lie in the gap's column (and
        they near it), which the search space (the gap at the column's mean) cannot show.
        ``REFINE_ROUNDS`` rounds of neighbours-of-neighbours by exact Gower distance, over
        every row, find them.

        Parameters
        ----------
        distances : ndarray (n, k)
        indices : ndarray (n, k)

        Returns
        -------
        distances, indices : ndarray
        """
        from .._kernels.gower import refine_neighbors

        complete = not np.isnan(self._data).any()
        if not self.approximate or complete or indices.shape[0] != self._data.shape[0]:
            return distances, indices
        rows = np.arange(self._data.shape[0])
        idx, dist = np.asarray(indices, dtype=np.int64), np.asarray(distances, dtype=np.float64)
        for _ in range(REFINE_ROUNDS):
            new_idx, new_dist = idx.copy(), dist.copy()
            refine_neighbors(
                self._data, rows, idx, dist, self._categorical, self._scale, self._weights, new_idx, new_dist
            )
            idx, dist = new_idx, new_dist
        return dist.astype(distances.dtype), idx.astype(indices.dtype)

    def _reranked(self, Q, candidates, k):
        """The ``k`` candidates of each row nearest by the exact Gower distance."""
        candidates = np.ascontiguousarray(candidates, dtype=np.int64)
        out = self.candidate_distances(Q, candidates)
        order = np.lexsort((candidates, out), axis=1)[:, :k]
        return np.take_along_axis(out, order, axis=1), np.take_along_axis(candidates, order, axis=1)
