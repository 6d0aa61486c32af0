"""Clustering: k-means, mini-batch k-means, k-medoids, Gaussian mixtures, choosing k."""

from ._kmeans import KMeans

__all__ = ["KMeans"]
