"""Clustering: k-means, mini-batch k-means, k-medoids, Gaussian mixtures (EM and
variational Bayes), DBSCAN, OPTICS, HDBSCAN,
agglomerative (hierarchical) clustering, Leiden / Louvain communities of a neighbour graph,
spectral clustering, k-prototypes and k-modes for tables with categories, choosing k."""

from ._agglomerative import AgglomerativeClustering, build_tree, cut_tree
from ._bayesian_mixture import BayesianGaussianMixture
from ._bisecting import BisectingKMeans
from ._dbscan import DBSCAN
from ._gaussian_mixture import GaussianMixture
from ._gmeans import anderson_darling_normal, gmeans
from ._graph_clustering import Leiden, Louvain, neighbor_graph
from ._hdbscan import HDBSCAN
from ._hdbscan_prim import SMALL_PRIM
from ._hdbscan_soft import all_points_membership_vectors, membership_vector
from ._kmeans import KMeans
from ._kmedoids import KMedoids
from ._kprototypes import KModes, KPrototypes
from ._minibatch import MiniBatchKMeans
from ._optics import OPTICS
from ._optics_extract import cluster_optics_dbscan, cluster_optics_xi
from ._products_lloyd import SMALL_LLOYD
from ._select import ClusterCountSelection, knee_point, select_n_clusters
from ._spectral_clustering import SpectralClustering, cluster_qr
from ._stability import StabilitySelection, select_by_stability

__all__ = [
    "SMALL_LLOYD",
    "SMALL_PRIM",
    "AgglomerativeClustering",
    "BayesianGaussianMixture",
    "BisectingKMeans",
    "build_tree",
    "cut_tree",
    "DBSCAN",
    "HDBSCAN",
    "ClusterCountSelection",
    "GaussianMixture",
    "KMeans",
    "KMedoids",
    "KModes",
    "KPrototypes",
    "Leiden",
    "Louvain",
    "MiniBatchKMeans",
    "OPTICS",
    "SpectralClustering",
    "StabilitySelection",
    "all_points_membership_vectors",
    "anderson_darling_normal",
    "cluster_optics_dbscan",
    "cluster_optics_xi",
    "cluster_qr",
    "gmeans",
    "knee_point",
    "membership_vector",
    "neighbor_graph",
    "select_by_stability",
    "select_n_clusters",
]
