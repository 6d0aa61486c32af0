"""Precomputed distance matrices as users get them wrong: a similarity matrix (a kernel,
correlations) passed for distances, negative entries, an asymmetric matrix given to a
method that reads each pair once. Each is refused by name before any work; the shared
check is ``lowdim._validation.check_precomputed``."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import pairwise_distances

import lowdim
from lowdim.metrics import silhouette_score

X = load_iris().data[::3]  # 50 rows
D = pairwise_distances(X)
SIMILARITIES = np.exp(-(D**2) / np.median(D) ** 2)  # a Gaussian kernel: ones on the diagonal

TAKING_DISTANCES = {
    "TSNE": lambda: lowdim.TSNE(metric="precomputed", init="random", perplexity=5),
    "UMAP": lambda: lowdim.UMAP(metric="precomputed", n_neighbors=5),
    "Isomap": lambda: lowdim.Isomap(metric="precomputed", n_neighbors=5),
    "MDS": lambda: lowdim.MDS(metric="precomputed", init="classical_mds", n_init=1),
    "SpectralEmbedding": lambda: lowdim.SpectralEmbedding(affinity="precomputed_nearest_neighbors", n_neighbors=5),
    "TriMap": lambda: lowdim.TriMap(use_dist_matrix=True, n_inliers=5, n_outliers=3, n_random=1),
    "HDBSCAN": lambda: lowdim.HDBSCAN(metric="precomputed"),
    "DBSCAN": lambda: lowdim.DBSCAN(metric="precomputed"),
    "OPTICS": lambda: lowdim.OPTICS(metric="precomputed", min_samples=3),
    "KMedoids": lambda: lowdim.KMedoids(3, metric="precomputed"),
    "AgglomerativeClustering": lambda: lowdim.AgglomerativeClustering(3, metric="precomputed", linkage="average"),
}
READING_EACH_PAIR_ONCE = ("MDS", "HDBSCAN", "AgglomerativeClustering")


@pytest.mark.parametrize("name", sorted(TAKING_DISTANCES))
def test_similarities_and_negative_entries_are_refused_by_every_method(name):
    with pytest.raises(ValueError, match=r"every row of X is largest on its diagonal.*look like similarities.*1 - S"):
        TAKING_DISTANCES[name]().fit(SIMILARITIES)
    negative = D.copy()
    negative[3, 7] = negative[7, 3] = -0.5
    with pytest.raises(ValueError, match=r"All distances should be positive.*X\[3, 7\] = -0.5"):
        TAKING_DISTANCES[name]().fit(negative)
    with pytest.raises(ValueError, match=r"expected to be square.*shape \(50, 49\)"):
        TAKING_DISTANCES[name]().fit(D[:, :49])


@pytest.mark.parametrize("name", READING_EACH_PAIR_ONCE)
def test_an_asymmetric_matrix_is_refused_where_each_pair_is_read_once(name):
    asymmetric = D + np.triu(np.random.default_rng(0).uniform(0, 2, D.shape), 1)
    with pytest.raises(ValueError, match=r"expected to be symmetric.*X\[(\d+), (\d+)\] = .* but X\[\2, \1\].*X \+ X.T"):
        TAKING_DISTANCES[name]().fit(asymmetric)


@pytest.mark.parametrize("linkage", ["average", "complete", "single"])
def test_agglomerative_clustering_of_rounded_distances_equals_the_exact_ones(linkage):
    """Asymmetry at rounding level (a float32 product) is not refused; the nearest-
    neighbour chain, which loops forever on a truly asymmetric matrix, gives the tree of
    the exact distances."""
    rng = np.random.default_rng(1)
    exact = pairwise_distances(X + rng.normal(0, 1e-3, X.shape))  # no tied distances: one tree on any CPU
    rounded = exact * (1 + 1e-12 * rng.standard_normal(D.shape))
    np.fill_diagonal(rounded, 0.0)
    fitted = lowdim.AgglomerativeClustering(3, metric="precomputed", linkage=linkage)
    assert np.array_equal(fitted.fit(rounded).labels_, fitted.fit(exact).labels_)


def test_a_sparse_neighbour_matrix_is_not_asymmetric_for_storing_each_rows_nearest():
    """Row i stores its nearest, which need not store i: a missing entry is no asymmetry."""
    knn = lowdim.neighbors.kneighbors_graph(X, 16, mode="distance")
    assert (abs(knn - knn.T) > 0).nnz > 0
    assert ((D <= 0.8).sum(axis=1) - 1).max() <= 16  # every eps-neighbourhood is stored: the same clusters
    dense = lowdim.DBSCAN(eps=0.8, min_samples=4, metric="precomputed").fit(D).labels_
    assert np.array_equal(lowdim.DBSCAN(eps=0.8, min_samples=4, metric="precomputed").fit(knn).labels_, dense)


def test_silhouette_refuses_similarities():
    with pytest.raises(ValueError, match="look like similarities"):
        silhouette_score(SIMILARITIES, np.arange(50) % 3, metric="precomputed")
    assert -1 <= silhouette_score(D, np.arange(50) % 3, metric="precomputed") <= 1
