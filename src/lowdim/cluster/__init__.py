"""Clustering: k-means, mini-batch k-means, k-medoids, Gaussian mixtures, choosing k."""

from ._gaussian_mixture import GaussianMixture
from ._kmeans import KMeans
from ._kmedoids import KMedoids
from ._minibatch import MiniBatchKMeans
from ._select import ClusterCountSelection, knee_point, select_n_clusters

__all__ = [
    "ClusterCountSelection",
    "GaussianMixture",
    "KMeans",
    "KMedoids",
    "MiniBatchKMeans",
    "knee_point",
    "select_n_clusters",
]
