"""Which search finds HDBSCAN's spanning tree of Euclidean rows of more than 16
columns: the k-d tree's Boruvka rounds prune well on data of low intrinsic dimension
(images, whose columns are correlated: Fashion-MNIST PCA-50 rows have about 10), Prim's
steps over all pairs, screened in float32, win where the rows fill their space (Gaussian
blobs of 30 or 100 columns: 22 and 47); the crossover lies between (BENCHMARKS.md,
Clustering)."""

import numpy as np

PRIM_ABOVE = 15.0  # intrinsic dimension above which Prim's steps beat the tree's rounds


def neighbour_dimension(knn_dist):
    """Levina & Bickel's (2005) maximum-likelihood intrinsic dimension from each row's
    ascending distances to its nearest rows (itself first, at 0): the inverse of the mean
    log ratio of the farthest to each nearer one; inf where they are all equal.

    Examples
    --------
    >>> r = np.sqrt(np.arange(1.0, 9.0))  # counts growing as the radius squared
    >>> round(neighbour_dimension(np.r_[0.0, r][None, :]), 1)
    2.3
    """
    r = np.asarray(knn_dist, dtype=np.float64)[:, 1:]
    r = r[r[:, 0] > 0] if r.shape[1] >= 2 else r[:0]
    if r.size == 0:
        return 0.0
    mean = float(np.mean(np.log(r[:, -1:] / r[:, :-1])))
    return 1.0 / mean if mean > 0 else np.inf


def prim_pays(knn_dist):
    """Whether Prim's screened steps, not the k-d tree's rounds, should find the tree."""
    return neighbour_dimension(knn_dist) > PRIM_ABOVE
