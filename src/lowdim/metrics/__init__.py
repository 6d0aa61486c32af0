"""Quality metrics: agreement between partitions, cluster separation and density-based
validity, and how well an
embedding keeps the structure of the data; two maps compared (Procrustes, co-ranking);
Gower's distance between mixed rows."""

from ._compare import coranking_matrix, procrustes, qnx_curve
from ._dbcv import dbcv_score
from ._embedding import (
    continuity,
    knn_accuracy,
    knn_preservation,
    random_triplet_accuracy,
    spearman_distance_correlation,
    stress,
    trustworthiness,
)
from ._gower import gower_distances
from ._partition import (
    adjusted_rand_score,
    contingency_table,
    mutual_info_score,
    normalized_mutual_info_score,
)
from ._silhouette import silhouette_samples, silhouette_score

__all__ = [
    "continuity",
    "dbcv_score",
    "coranking_matrix",
    "procrustes",
    "qnx_curve",
    "gower_distances",
    "knn_accuracy",
    "knn_preservation",
    "random_triplet_accuracy",
    "spearman_distance_correlation",
    "stress",
    "trustworthiness",
    "adjusted_rand_score",
    "contingency_table",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "silhouette_samples",
    "silhouette_score",
]
