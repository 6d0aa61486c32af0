"""Quality metrics: agreement between partitions and cluster separation."""

from ._partition import (
    adjusted_rand_score,
    contingency_table,
    mutual_info_score,
    normalized_mutual_info_score,
)
from ._silhouette import silhouette_samples, silhouette_score

__all__ = [
    "adjusted_rand_score",
    "contingency_table",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "silhouette_samples",
    "silhouette_score",
]
