"""Neighbour graphs: ``NeighborGraph`` (each row's nearest rows, computed once and
given to every neighbour method as ``precomputed_knn``), a kNN index interface
(``KNNIndex``: ``build`` / ``query``, which users implement to bring their own search)
with an exact blocked-BLAS backend, an exact backend for the other metrics
(``PairwiseIndex``) with its approximate counterpart (``NNDescentIndex``, pynndescent),
Gower's distance for mixed tables (``GowerIndex``) and an
approximate HNSW backend (faiss), the size rule that picks one, kNN and radius graphs
(``KNeighborsTransformer``: scikit-learn's transformer interface to them),
symmetrisation, component joining, shortest paths."""

from ._approximate import HNSWIndex, approximate_available
from ._base import KNNIndex, check_distance_range
from ._choose import ALGORITHMS, APPROXIMATE_FROM, INDEX_METRICS, make_index, nearest_neighbors, resolve_metric
from ._copies import positive_scales, warn_duplicates
from ._dask_graph import dask_self_neighbors
from ._exact import ExactIndex, check_n_neighbors, expansion_error_bound
from ._given import (
    PRECOMPUTED_KNN,
    PrecomputedNeighbors,
    find_neighbors,
    given_neighbors,
    knn_given,
    precomputed_neighbors,
    search_algorithm,
    sparse_distance_neighbors,
)
from ._gower import GowerEncoding, GowerIndex, gower_columns, gower_encoding
from ._graphs import kneighbors_graph, radius_neighbors_graph, symmetrize
from ._join import join_components, warn_components
from ._neighbor_graph import NeighborGraph, StoredDistances, knn_csr, precomputed_connectivity, stored_smallest
from ._nndescent import NNDescentIndex, nndescent_available
from ._pairwise import (
    PAIRWISE_METRICS,
    SPARSE_METRICS,
    PairwiseIndex,
    SparseIndex,
    check_metric_params,
    sparse_rows_allowed,
)
from ._paths import shortest_paths
from ._search import search_neighbors
from ._self_query import self_neighbors
from ._tiles import KD_TREE_UP_TO, ProductTiles
from ._transformer import KNeighborsTransformer

__all__ = [
    "positive_scales",
    "warn_duplicates",
    "ALGORITHMS",
    "APPROXIMATE_FROM",
    "INDEX_METRICS",
    "KD_TREE_UP_TO",
    "ExactIndex",
    "GowerEncoding",
    "GowerIndex",
    "HNSWIndex",
    "KNNIndex",
    "KNeighborsTransformer",
    "NeighborGraph",
    "PrecomputedNeighbors",
    "NNDescentIndex",
    "PAIRWISE_METRICS",
    "check_metric_params",
    "PRECOMPUTED_KNN",
    "SPARSE_METRICS",
    "sparse_rows_allowed",
    "PairwiseIndex",
    "SparseIndex",
    "StoredDistances",
    "approximate_available",
    "nndescent_available",
    "check_distance_range",
    "check_n_neighbors",
    "expansion_error_bound",
    "dask_self_neighbors",
    "gower_columns",
    "gower_encoding",
    "join_components",
    "warn_components",
    "kneighbors_graph",
    "knn_csr",
    "find_neighbors",
    "given_neighbors",
    "knn_given",
    "make_index",
    "nearest_neighbors",
    "precomputed_neighbors",
    "search_algorithm",
    "radius_neighbors_graph",
    "ProductTiles",
    "resolve_metric",
    "search_neighbors",
    "self_neighbors",
    "shortest_paths",
    "sparse_distance_neighbors",
    "precomputed_connectivity",
    "stored_smallest",
    "symmetrize",
]
