"""k-prototypes (Huang, 1998) for tables of numbers and categories, and k-modes for
categories alone: Lloyd-style batch iterations (assign every row, then means and modes)
over compiled cost kernels, seeded like k-means++ or from a random partition."""

from functools import cached_property

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from .._mixed_input import MixedInputMixin
from .._params import ARRAY_LIKE, NONE, RANDOM_STATE, Interval, Options, validate_params
from .._random import check_random_state
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning
from ._base import check_n_clusters, same_partition, warn_found_fewer


class _Blocks:
    """The numbers (float64, NaN for gaps) and category codes (int32, -1 for gaps) of a
    coded table, with the number of levels of each category column and the numbers'
    column means (``fill``: what a gap in a prototype drawn from a row becomes)."""

    def __init__(self, X, kinds, n_levels):
        numeric = [j for j, k in enumerate(kinds) if k == "numeric"]
        self.categorical = [j for j, k in enumerate(kinds) if k != "numeric"]
        self.numeric = numeric
        self.Xn = np.ascontiguousarray(X[:, numeric], dtype=np.float64)
        codes = X[:, self.categorical]
        self.Xc = np.ascontiguousarray(np.where(np.isnan(codes), -1, codes), dtype=np.int32)
        self.n_levels = n_levels

    @cached_property
    def fill(self):
        return np.nan_to_num(np.nanmean(self.Xn, axis=0)) if self.Xn.shape[1] else np.zeros(0)

    @property
    def n(self):
        return self.Xn.shape[0]


def _assign(blocks, Cn, Cc, gamma):
    from .._kernels.kprototypes import assign_prototypes

    labels, costs = np.empty(blocks.n, dtype=np.int64), np.empty(blocks.n)
    assign_prototypes(blocks.Xn, blocks.Xc, Cn, Cc, float(gamma), labels, costs)
    return labels, costs


def _prototypes(blocks, labels, k, Cn, Cc):
    """Means of the numbers and modes of the categories per cluster (gaps left out; a
    cluster with no value in a column keeps its previous prototype there)."""
    Cn, Cc = Cn.copy(), Cc.copy()
    for j in range(blocks.Xn.shape[1]):
        ok = ~np.isnan(blocks.Xn[:, j])
        count = np.bincount(labels[ok], minlength=k)
        total = np.bincount(labels[ok], weights=blocks.Xn[ok, j], minlength=k)
        Cn[count > 0, j] = total[count > 0] / count[count > 0]
    for j, levels in enumerate(blocks.n_levels):
        ok = blocks.Xc[:, j] >= 0
        table = np.bincount(labels[ok] * levels + blocks.Xc[ok, j], minlength=k * levels).reshape(k, levels)
        seen = table.sum(axis=1) > 0
        Cc[seen, j] = table[seen].argmax(axis=1)  # the first most frequent code on a tie
    return Cn, Cc


def _row_prototype(blocks, i, Cn_fill):
    """Row ``i`` as a prototype (a gap in a number takes ``Cn_fill``'s value)."""
    cn = np.where(np.isnan(blocks.Xn[i]), Cn_fill, blocks.Xn[i])
    return cn, blocks.Xc[i].copy()


def _plus_plus(blocks, k, gamma, rng):
    """k-means++ seeding with the mixed cost as the potential: each next prototype a row
    drawn with probability proportional to its cost to the nearest chosen one."""
    from .._kernels.kprototypes import lower_costs

    Cn = np.empty((k, blocks.Xn.shape[1]))
    Cc = np.empty((k, blocks.Xc.shape[1]), dtype=np.int32)
    costs = np.full(blocks.n, np.inf)
    i = int(rng.integers(blocks.n))
    for c in range(k):
        Cn[c], Cc[c] = _row_prototype(blocks, i, blocks.fill)
        lower_costs(blocks.Xn, blocks.Xc, Cn[c], Cc[c], float(gamma), costs)
        total = costs.sum()
        if c + 1 < k:
            i = int(rng.choice(blocks.n, p=costs / total)) if total > 0 else int(rng.integers(blocks.n))
    return Cn, Cc


def _random_partition(blocks, k, rng):
    """Prototypes of a random partition of the rows into k groups."""
    labels = rng.permutation(np.arange(blocks.n) % k)
    Cn = np.tile(blocks.fill, (k, 1))
    Cc = np.zeros((k, blocks.Xc.shape[1]), dtype=np.int32)
    return _prototypes(blocks, labels, k, Cn, Cc)


def _relocate_empty(blocks, labels, costs, Cn, Cc, k):
    """An empty cluster takes the row that costs most where it is, as its prototype;
    none when every row sits on its prototype (fewer distinct rows than clusters: a
    copy taken away would come back at the next assignment, for ever)."""
    fill = Cn.mean(axis=0) if Cn.size else np.zeros(0)
    for c in np.flatnonzero(np.bincount(labels, minlength=k) == 0):
        i = int(np.argmax(costs))
        if costs[i] <= 0:
            break
        Cn[c], Cc[c] = _row_prototype(blocks, i, fill)
        labels[i], costs[i] = c, 0.0
    return labels


def _one_run(blocks, k, gamma, init, max_iter, rng):
    """One start: ``(labels, prototypes, cost, iterations, converged)``."""
    Cn, Cc = _plus_plus(blocks, k, gamma, rng) if init == "k-means++" else _random_partition(blocks, k, rng)
    labels, costs = _assign(blocks, Cn, Cc, gamma)
    for iteration in range(1, max_iter + 1):
        labels = _relocate_empty(blocks, labels, costs, Cn, Cc, k)
        Cn, Cc = _prototypes(blocks, labels, k, Cn, Cc)
        new, costs = _assign(blocks, Cn, Cc, gamma)
        if np.array_equal(new, labels):
            return labels, (Cn, Cc), float(costs.sum()), iteration, True
        labels = new
    return labels, (Cn, Cc), float(costs.sum()), max_iter, False


class KPrototypes(MixedInputMixin, ClusterMixin, BaseEstimator):
    """k-prototypes: k-means for tables of numbers and categories (Huang, 1998).

    A row's cost to a prototype is the squared Euclidean distance over the numbers plus
    ``gamma`` times the number of categories that differ; prototypes are the clusters'
    means (numbers) and modes (categories). Iterations assign every row, then update
    every prototype (batch, as k-means), until no row moves; the best of ``n_init``
    starts is kept. Gaps are left out of costs, means and modes. A drop-in for
    ``kmodes.kprototypes.KPrototypes`` (``fit(X, categorical=[...])`` works too).

    Parameters
    ----------
    n_clusters : int, default=8
    gamma : float, optional
        Weight of one differing category against squared units of the numbers; default
        half the mean standard deviation of the numeric columns (Huang's suggestion, as
        the kmodes package). Scale the numbers first when their units differ.
    init : {'k-means++', 'random'}, default='k-means++'
        Seeding by the mixed cost as k-means++ does, or the prototypes of a random
        partition.
    n_init : int, default=10
    max_iter : int, default=100
    categorical : sequence of int or str, optional
        Columns of numbers that are category codes (text, boolean and pandas category
        columns are categories already).
    random_state : int, Generator or None

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features)
        Prototypes in the columns' order: means of the numbers, codes of the modes
        (``categories_`` names them).
    labels_ : ndarray of int (n_samples,)
    cost_ : float
        Total cost of the rows to their prototypes.
    gamma_ : float
    n_iter_ : int
    kinds_ : list of str
    categories_ : list of (list of str or None)
        The levels of each category column, in code order (None for numbers).
    column_names_ : list of str
    n_features_in_ : int

    Examples
    --------
    >>> from lowdim import KPrototypes
    >>> rows = [[1.0, "a"], [1.2, "a"], [0.9, "a"], [8.0, "b"], [8.3, "b"], [7.9, "b"]]
    >>> km = KPrototypes(n_clusters=2, random_state=0).fit(rows)
    >>> km.labels_.tolist() in ([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "gamma": [NONE, Interval(float, 0, None, closed="left")],
        "init": [Options({"k-means++", "random"})],
        "n_init": [Interval(int, 1, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "categorical": [ARRAY_LIKE],
        "random_state": [RANDOM_STATE],
    }

    def __init__(
        self, n_clusters=8, *, gamma=None, init="k-means++", n_init=10, max_iter=100, categorical=(), random_state=None
    ):
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.categorical = categorical
        self.random_state = random_state

    def _columns(self):
        return list(self.categorical)

    def _blocks(self, X, reset, categorical=None):
        codes = self._codes(X, reset=reset, categorical=self._columns() if categorical is None else categorical)
        if reset:
            self.column_names_ = codes.names
            self.kinds_ = ["numeric" if k == "numeric" else "categorical" for k in codes.kinds]
            self.categories_ = [
                codes.levels.get(n) if k != "numeric" else None for n, k in zip(codes.names, self.kinds_)
            ]
        n_levels = [len(levels) for levels in self.categories_ if levels is not None]
        return _Blocks(codes.X, self.kinds_, n_levels)

    def _warn_row_categories(self, blocks):
        """A category column in which most rows have a category of their own (an id, or
        measurements read as categories) differs between almost every two rows: it
        separates nothing and only adds to every cost. Say so, naming the first."""
        names = [n for n, k in zip(self.column_names_, self.kinds_) if k != "numeric"]
        for name, codes in zip(names, blocks.Xc.T):
            counts = np.bincount(codes[codes >= 0])
            alone = int(np.count_nonzero(counts == 1))
            if blocks.n >= 20 and alone > blocks.n // 2:
                warn_user(
                    f"{type(self).__name__}: in column {name!r}, {alone} of {blocks.n} rows have a category of their "
                    "own; categories are compared by equality, so the column separates nothing. Measurements "
                    "belong to KPrototypes (as numbers) or KMeans; drop an id column.",
                    UserWarning,
                )
                return

    def _default_gamma(self, blocks):
        if self.gamma is not None:
            return float(self.gamma)
        if blocks.Xn.shape[1] == 0:
            return 1.0
        return 0.5 * float(np.nanmean(np.nanstd(blocks.Xn, axis=0)))

    def fit(self, X, y=None, categorical=None):
        """Cluster the rows.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (n_samples, n_features)
        y : ignored
        categorical : sequence of int, optional
            As the ``categorical`` parameter (the kmodes package's ``fit`` argument).

        Returns
        -------
        self
        """
        validate_params(self)
        blocks = self._blocks(X, reset=True, categorical=categorical)
        check_n_clusters(self.n_clusters, blocks.n)
        self._warn_row_categories(blocks)
        self.gamma_ = self._default_gamma(blocks)
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_init):
            run = _one_run(blocks, self.n_clusters, self.gamma_, self.init, self.max_iter, rng)
            if best is None or (run[2] < best[2] and not same_partition(run[0], best[0])):  # as best_of_restarts
                best = run
        labels, (Cn, Cc), self.cost_, self.n_iter_, converged = best
        if not converged:
            warn_user(
                f"{type(self).__name__}: rows still moved after max_iter={self.max_iter}; raise max_iter.",
                ConvergenceWarning,
            )
        warn_found_fewer(np.unique(labels).size, self.n_clusters, type(self).__name__)
        self.labels_ = labels
        self.cluster_centers_ = np.empty((self.n_clusters, len(self.kinds_)))
        self.cluster_centers_[:, blocks.numeric] = Cn
        self.cluster_centers_[:, blocks.categorical] = Cc
        return self

    def predict(self, X, categorical=None):
        """The cheapest prototype of each row.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (m, n_features)
        categorical : ignored
            Accepted for the kmodes package's signature; the fitted columns decide.

        Returns
        -------
        ndarray of int (m,)
        """
        blocks = self._blocks(X, reset=False)
        Cn = np.ascontiguousarray(self.cluster_centers_[:, blocks.numeric])
        Cc = np.ascontiguousarray(self.cluster_centers_[:, blocks.categorical], dtype=np.int32)
        return _assign(blocks, Cn, Cc, self.gamma_)[0]

    @property
    def cluster_centroids_(self):
        """The kmodes package's name of ``cluster_centers_``."""
        return self.cluster_centers_


class KModes(KPrototypes):
    """k-modes: k-means for categorical variables (Huang, 1998).

    Every column is read as categories (numbers are codes); a row's cost to a prototype
    is the number of categories that differ, prototypes are the clusters' modes. The
    iterations, starts and gaps are those of :class:`KPrototypes`. A drop-in for
    ``kmodes.kmodes.KModes``.

    Parameters
    ----------
    n_clusters : int, default=8
    init : {'k-means++', 'random'}, default='k-means++'
    n_init : int, default=10
    max_iter : int, default=100
    random_state : int, Generator or None

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features)
        The modes' category codes (``categories_`` names them).
    labels_ : ndarray of int (n_samples,)
    cost_ : float
        Total number of differing categories of the rows to their modes.
    gamma_ : float
        1.0 (every differing category counts one).
    n_iter_, n_features_in_ : int
    kinds_ : list of str
    categories_ : list of list of str
    column_names_ : list of str

    Examples
    --------
    >>> from lowdim import KModes
    >>> rows = [["a", "x"], ["a", "x"], ["a", "y"], ["b", "z"], ["b", "z"], ["b", "w"]]
    >>> KModes(n_clusters=2, random_state=0).fit(rows).cost_
    2.0
    """

    _parameter_constraints = {
        key: value for key, value in KPrototypes._parameter_constraints.items() if key not in ("gamma", "categorical")
    }

    def __init__(self, n_clusters=8, *, init="k-means++", n_init=10, max_iter=100, random_state=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    gamma = None

    def _columns(self):
        return "all"
