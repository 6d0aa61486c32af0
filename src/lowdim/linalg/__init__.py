"""Numerical core: eigensolvers, randomized range finder, streaming moments,
implicit-centering operators and the sign convention."""

from ._blas import SPLIT_WORK, matmul, symmetric_from_upper, syrk_upper
from ._block_moments import (
    block_scatter,
    block_variances,
    check_block_finite,
    merge_scatter,
    merge_variances,
)
from ._distances import (
    EUCLIDEAN_METRICS,
    compiled_metric,
    cosine_rows,
    distance_blocks,
    hellinger_distances,
    pairwise_distances,
    row_norms_sq,
    sq_euclidean,
)
from ._eigen import top_eigh
from ._lanczos import ShiftInverse, lanczos_eigh, nearest_null_vectors, smallest_eigh
from ._moments import (
    SMALL_MOMENTS,
    ScatterAccumulator,
    block_rows,
    column_moments,
    feature_scale,
    iter_row_blocks,
    merge_step,
    needs_centering,
    scaled_stored_entries,
    shifted_copy_with_norms,
    stored_columns,
)
from ._operators import CenteredData
from ._power import power_eigh
from ._procrustes import procrustes_fit
from ._randomized import randomized_svd, subspace_iteration
from ._rank_one_sdp import EdgeConstraints, solve_rank_one_sdp
from ._sign import flip_signs
from ._sparse_products import dense_times_sparse_t, group_row_sums
from ._unique import fewer_distinct_rows, unique_rows

__all__ = [
    "fewer_distinct_rows",
    "unique_rows",
    "procrustes_fit",
    "SPLIT_WORK",
    "SMALL_MOMENTS",
    "shifted_copy_with_norms",
    "EUCLIDEAN_METRICS",
    "cosine_rows",
    "EdgeConstraints",
    "block_scatter",
    "block_variances",
    "check_block_finite",
    "merge_scatter",
    "merge_step",
    "merge_variances",
    "solve_rank_one_sdp",
    "CenteredData",
    "ScatterAccumulator",
    "ShiftInverse",
    "block_rows",
    "column_moments",
    "scaled_stored_entries",
    "stored_columns",
    "dense_times_sparse_t",
    "group_row_sums",
    "distance_blocks",
    "feature_scale",
    "flip_signs",
    "iter_row_blocks",
    "lanczos_eigh",
    "matmul",
    "nearest_null_vectors",
    "needs_centering",
    "hellinger_distances",
    "compiled_metric",
    "pairwise_distances",
    "power_eigh",
    "randomized_svd",
    "row_norms_sq",
    "smallest_eigh",
    "sq_euclidean",
    "subspace_iteration",
    "symmetric_from_upper",
    "syrk_upper",
    "top_eigh",
]
