"""Community detection on a neighbour graph (scanpy's standard after an embedding):
Leiden (Traag, Waltman & van Eck 2019) and Louvain (Blondel et al. 2008) through the
field's libraries, ``leidenalg`` on an ``igraph`` graph (optional extra ``graph``).
The graph is UMAP's fuzzy kNN graph or the plain kNN graph of the data, built on
lowdim's neighbour layer, or a graph the caller passes."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from .._estimator import ValidatedInputMixin
from .._messages import listed
from .._mixed_input import GowerTableMixin
from .._params import BOOLEAN, NONE, RANDOM_STATE, InstanceOf, Interval, Options, validate_params
from .._random import check_random_state
from .._validation import check_affinities
from .._warnings import warn_user
from ..neighbors import ALGORITHMS, check_n_neighbors, find_neighbors, knn_csr
from ._base import warn_constant_columns

GRAPHS = ("fuzzy", "knn", "precomputed")


def neighbor_graph(
    X, n_neighbors=15, kind="fuzzy", metric="euclidean", algorithm="auto", return_knn=False, metric_params=None
):
    """Symmetric affinity graph of the rows of ``X``: UMAP's fuzzy simplicial set
    ('fuzzy', weights in (0, 1]) or the kNN connectivity ('knn', an edge of weight 1
    where either point is among the other's ``n_neighbors - 1`` nearest; the point
    itself counts as the first, as in UMAP and scikit-learn).

    Parameters
    ----------
    X : ndarray or sparse matrix (n, d)
    n_neighbors : int, default=15
    kind : {'fuzzy', 'knn'}, default='fuzzy'
    metric : {'euclidean', 'sqeuclidean', 'cosine', 'gower'}, default='euclidean'
    algorithm : {'auto', 'exact', 'approximate'}, default='auto'
        The kNN index (``lowdim.neighbors.make_index``).
    return_knn : bool, default=False
        Return the neighbours the graph was built from too.
    metric_params : dict, optional
        The metric's parameters (Gower's: ``categorical``, ``ordinal``, ...).

    Returns
    -------
    scipy.sparse.csr_matrix (n, n)
    (distances, indices) : ndarrays (n, n_neighbors - 1), with ``return_knn``
        Each row's nearest other rows and their distances.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    >>> neighbor_graph(X, 2, "knn").toarray().astype(int).tolist()[3]
    [0, 0, 0, 0, 1]
    """
    from ..embedding import fuzzy_graph

    n = X.shape[0]
    check_n_neighbors(n_neighbors, n, counts_self=True)
    k = n_neighbors - 1
    if k < 1:
        raise ValueError(f"n_neighbors={n_neighbors} leaves no neighbours; use at least 2 (and more samples).")
    distances, indices, _ = find_neighbors(X, k, algorithm=algorithm, metric=metric, metric_params=metric_params)
    if kind == "fuzzy":
        A = fuzzy_graph(distances, indices).astype(np.float64)
    else:
        rows = np.repeat(np.arange(n), k)
        A = sp.csr_matrix((np.ones(n * k), (rows, indices.ravel())), shape=(n, n))
        A = A.maximum(A.T).tocsr()
    return (A, (distances, indices)) if return_knn else A


def check_graph(A, name, on_isolated="refuse"):
    """A square, symmetric, non-negative sparse affinity without its diagonal; an
    isolated point (no edge to another) is refused, or with ``on_isolated='warn'`` kept
    with a warning (community detection makes it a community of its own).

    Examples
    --------
    >>> check_graph(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), "Leiden").nnz
    2
    """
    A = sp.csr_matrix(A, dtype=np.float64)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name}: graph='precomputed' needs a square affinity matrix; got shape {A.shape}.")
    check_affinities(A, name)
    asymmetry = abs(A - A.T)
    if asymmetry.nnz and asymmetry.max() > 1e-8 * abs(A).max():
        raise ValueError(f"{name}: the graph is not symmetric; pass (A + A.T) / 2 or A.maximum(A.T).")
    A = A - sp.diags(A.diagonal())
    A.eliminate_zeros()
    isolated = np.flatnonzero(np.diff(A.indptr) == 0)
    if isolated.size:
        what = (
            f"{name}: the graph has {isolated.size} isolated point(s) (rows {listed(isolated, most=5)}) with no edge "
            "to another point"
        )
        if on_isolated == "refuse":
            raise ValueError(f"{what}; drop them, or build the graph with more neighbours.")
        warn_user(f"{what}: each is a community of its own.", UserWarning)
    return A


class _CommunityDetection(GowerTableMixin, ValidatedInputMixin, ClusterMixin, BaseEstimator):
    """What Leiden and Louvain share: the graph, the call into leidenalg, the labels."""

    _parameter_constraints = {
        "resolution": [Interval(float, 0, None, closed="neither")],
        "n_neighbors": [Interval(int, 2, None, closed="left")],
        "graph": [Options(set(GRAPHS))],
        "metric": [Options({"euclidean", "sqeuclidean", "cosine", "gower"})],
        "metric_params": [NONE, InstanceOf(dict)],
        "use_weights": [BOOLEAN],
        "neighbors_algorithm": [Options(set(ALGORITHMS))],
        "random_state": [RANDOM_STATE],
    }

    def fit(self, X, y=None):
        """Find the communities.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or with ``graph='precomputed'`` a
            symmetric sparse or dense affinity matrix (n_samples, n_samples), such as
            a fitted UMAP's ``graph_``
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        name = type(self).__name__
        if self.graph == "precomputed":
            X = self._validate_input(X, reset=True, accept_sparse=True)
            A = check_graph(X, name, on_isolated="warn")
            self._knn = None
        else:
            X = self._validate_input(X, reset=True, accept_sparse=True, min_samples=2)
            self._partition_options(X.shape[0])  # refused before the neighbour search
            warn_constant_columns(X, name)
            A, self._knn = neighbor_graph(  # the neighbours behind knn_graph_ (scanpy's obsp['distances'])
                X, self.n_neighbors, self.graph, self.metric, self.neighbors_algorithm, True, self._distance_params()
            )
        self.graph_ = A
        membership, self.quality_ = self._partition(A)
        self.labels_ = _by_size(membership)
        self.n_clusters_ = int(self.labels_.max()) + 1
        return self

    @property
    def knn_graph_(self):
        knn = getattr(self, "_knn", None)
        return None if knn is None else knn_csr(*knn)

    def _edges(self, A):
        """The graph as igraph's (upper-triangle edges, weights in its 'weight' attribute)
        and the weights' name for leidenalg/igraph (None: unweighted)."""
        igraph, _ = _graph_libraries(type(self).__name__)
        upper = sp.triu(A, k=1).tocoo()
        g = igraph.Graph(n=A.shape[0], edges=np.column_stack([upper.row, upper.col]), directed=False)
        if not self.use_weights:
            return g, None
        g.es["weight"] = upper.data
        return g, "weight"

    def _seed(self):
        return int(check_random_state(self.random_state).integers(2**31 - 1))

    def _partition_options(self, n_nodes):
        """The library options of the run, checked (Leiden's ``partition_params``)."""
        return {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.graph == "precomputed"
        return tags


ITERATIONS_DOC = """
    n_iterations : int, default=2
        Optimiser passes (2, as leidenalg and scanpy); -1 runs until a pass improves
        nothing (on 70,000 Fashion-MNIST points: 8x the time for 1 % of ARI).
    flavor : {'igraph', 'leidenalg'}, default='igraph'
        igraph's ``community_leiden`` (modularity with ``resolution``; scanpy's coming
        default, several times faster: BENCHMARKS.md, Single-cell) or leidenalg's
        optimiser on the RB configuration model (the same objective; ``quality_`` is
        then leidenalg's unnormalised quality).
    partition_params : dict, optional
        Further options of the flavour's run, as scanpy's ``**clustering_args`` pass
        them: igraph's ``beta`` (the refinement's randomness), ``initial_membership``
        and ``node_weights``; leidenalg's ``initial_membership`` and ``max_comm_size``.
        What the parameters above set (weights, resolution, iterations, seed) or
        another objective is refused, naming the parameter."""

_DOC_PARAMETERS = """
    Parameters
    ----------
    resolution : float, default=1.0
        Higher values give more, smaller communities (the RB configuration model:
        modularity at 1).
    n_neighbors : int, default=15
        Neighbours per point of the graph (the point itself counted, as in UMAP).
    graph : {'fuzzy', 'knn', 'precomputed'}, default='fuzzy'
        UMAP's fuzzy kNN graph, the plain kNN graph, or ``X`` itself as the graph.
    metric : {'euclidean', 'sqeuclidean', 'cosine', 'gower'}, default='euclidean'
        'gower': Gower's distance for a mixed table (a DataFrame with category, text or
        boolean columns and gaps, as it is; or category codes named in
        ``metric_params``).
    metric_params : dict, optional
        Gower's ``categorical`` / ``ordinal`` column indices (and ``weights``).
    use_weights : bool, default=True
        Use the edge weights (False: every edge counts 1).{iterations}
    neighbors_algorithm : {'auto', 'exact', 'approximate'}, default='auto'
    random_state : None, int or Generator
        The same seed gives the same labels.

    Attributes
    ----------
    labels_ : ndarray of int64 (n_samples,)
        Community of each point, numbered by decreasing size.
    n_clusters_ : int
    quality_ : float
        The partition's modularity at ``resolution`` (Leiden's 'leidenalg' flavour:
        leidenalg's quality of the RB configuration model).
    graph_ : scipy.sparse.csr_matrix
        The graph that was partitioned.
    knn_graph_ : scipy.sparse.csr_matrix or None
        Each point's ``n_neighbors - 1`` nearest other points at their distances, the
        neighbours behind ``graph_`` (scanpy's ``obsp['distances']``); None for a given
        graph or a model loaded from a file.
    n_features_in_ : int
"""


class Leiden(_CommunityDetection):
    __doc__ = (
        """Leiden communities of a neighbour graph (leidenalg; ``pip install lowdim[graph]``).

    Louvain's local moves, then a refinement that splits badly connected communities,
    so every community is connected.
"""
        + _DOC_PARAMETERS.replace("{iterations}", ITERATIONS_DOC)
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import Leiden
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (60, 2)), rng.normal(6, 0.3, (60, 2))])
    >>> Leiden(resolution=0.1, random_state=0).fit(X).n_clusters_
    2
    """
    )

    _parameter_constraints = {
        **_CommunityDetection._parameter_constraints,
        "n_iterations": [Interval(int, -1, None, closed="left")],
        "flavor": [Options({"igraph", "leidenalg"})],
        "partition_params": [NONE, InstanceOf(dict)],
    }

    def __init__(
        self,
        resolution=1.0,
        *,
        n_neighbors=15,
        graph="fuzzy",
        metric="euclidean",
        metric_params=None,
        use_weights=True,
        n_iterations=2,
        flavor="igraph",
        partition_params=None,
        neighbors_algorithm="auto",
        random_state=None,
    ):
        self.flavor = flavor
        self.partition_params = partition_params
        self.resolution = resolution
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.metric = metric
        self.metric_params = metric_params
        self.use_weights = use_weights
        self.n_iterations = n_iterations
        self.neighbors_algorithm = neighbors_algorithm
        self.random_state = random_state

    def _partition(self, A):
        igraph, leidenalg = _graph_libraries("Leiden")
        g, weights = self._edges(A)
        options = self._partition_options(g.vcount())
        if self.flavor == "igraph":
            return _seeded(igraph, self._seed(), lambda: self._igraph_leiden(g, weights, options))
        max_comm_size = options.pop("max_comm_size", 0)
        partition = leidenalg.RBConfigurationVertexPartition(
            g, weights=weights, resolution_parameter=self.resolution, **options
        )
        optimiser = leidenalg.Optimiser()
        optimiser.max_comm_size = max_comm_size
        optimiser.set_rng_seed(self._seed())
        # leidenalg counts the passes itself (-1: until one improves nothing), as its find_partition
        optimiser.optimise_partition(partition, n_iterations=self.n_iterations)
        return np.asarray(partition.membership, dtype=np.int64), float(partition.quality())

    def _partition_options(self, n_nodes):
        return _checked_options(self.flavor, self.partition_params, n_nodes)

    def _igraph_leiden(self, g, weights, options):
        found = g.community_leiden(
            objective_function="modularity",
            weights=weights,
            resolution=self.resolution,
            n_iterations=self.n_iterations,
            **options,
        )
        membership = found.membership
        return np.asarray(membership, dtype=np.int64), float(g.modularity(membership, weights, self.resolution))


PARTITION_OPTIONS = {
    "igraph": ("beta", "initial_membership", "node_weights"),
    "leidenalg": ("initial_membership", "max_comm_size"),
}
SET_BY_PARAMETERS = {  # an option of the libraries -> the Leiden parameter that sets it
    "weights": "use_weights",
    "resolution": "resolution",
    "resolution_parameter": "resolution",
    "n_iterations": "n_iterations",
    "seed": "random_state",
}


def _checked_options(flavor, given, n_nodes):
    """``partition_params`` checked against the flavour's options, per-node lists
    checked for length, arrays as lists (the libraries take sequences)."""
    options = dict(given or {})
    objective = options.pop("objective_function", "modularity")
    if str(objective).lower() != "modularity":
        raise ValueError(
            f"partition_params objective_function={objective!r}: lowdim's Leiden optimises modularity with a "
            "resolution; for another objective run igraph's community_leiden or leidenalg itself."
        )
    for key in options:
        if key in SET_BY_PARAMETERS:
            raise ValueError(
                f"partition_params[{key!r}] is set by Leiden's {SET_BY_PARAMETERS[key]} parameter; pass it there."
            )
        if key not in PARTITION_OPTIONS[flavor]:
            raise ValueError(
                f"partition_params[{key!r}] is not an option of flavor={flavor!r}; it takes "
                f"{', '.join(PARTITION_OPTIONS[flavor])}."
            )
    for key in ("initial_membership", "node_weights"):
        if key in options and options[key] is not None:
            options[key] = np.asarray(options[key]).tolist()
            if len(options[key]) != n_nodes:
                raise ValueError(
                    f"partition_params[{key!r}] has {len(options[key])} values for a graph of {n_nodes} nodes; "
                    "give one per row."
                )
    return options


def _seeded(igraph, seed, work):
    """``work()`` with igraph drawing from its own seeded generator (then its default again)."""
    import random

    igraph.set_random_number_generator(random.Random(seed))
    try:
        return work()
    finally:
        igraph.set_random_number_generator(random)


class Louvain(_CommunityDetection):
    __doc__ = (
        """Louvain communities of a neighbour graph (igraph's multilevel algorithm, run
    to convergence; ``pip install lowdim[graph]``). Unlike Leiden's, a community may
    be internally disconnected.
"""
        + _DOC_PARAMETERS.replace("{iterations}", "")
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import Louvain
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (60, 2)), rng.normal(6, 0.3, (60, 2))])
    >>> Louvain(resolution=0.1, random_state=0).fit(X).n_clusters_
    2
    """
    )

    def __init__(
        self,
        resolution=1.0,
        *,
        n_neighbors=15,
        graph="fuzzy",
        metric="euclidean",
        metric_params=None,
        use_weights=True,
        neighbors_algorithm="auto",
        random_state=None,
    ):
        self.resolution = resolution
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.metric = metric
        self.metric_params = metric_params
        self.use_weights = use_weights
        self.neighbors_algorithm = neighbors_algorithm
        self.random_state = random_state

    def _partition(self, A):
        igraph, _ = _graph_libraries("Louvain")
        g, weights = self._edges(A)

        def multilevel():
            membership = g.community_multilevel(weights=weights, resolution=self.resolution).membership
            return np.asarray(membership, dtype=np.int64), float(g.modularity(membership, weights, self.resolution))

        return _seeded(igraph, self._seed(), multilevel)


def _graph_libraries(name):
    try:
        import igraph
        import leidenalg
    except ImportError:
        raise ImportError(
            f"{name} needs the igraph and leidenalg packages: pip install 'lowdim[graph]' "
            "(or pip install igraph leidenalg)."
        ) from None
    return igraph, leidenalg


def _by_size(membership):
    """Labels renumbered so that 0 is the largest community (ties by first appearance)."""
    sizes = np.bincount(membership)
    order = np.lexsort((np.arange(sizes.size), -sizes))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[membership].astype(np.int64)
