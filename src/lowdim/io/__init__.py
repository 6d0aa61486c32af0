"""Files: data tables (CSV/TSV, NPY/NPZ, Parquet, HDF5, .h5ad), images, safe model files."""

from ..exceptions import DataFileError
from ._anndata import check_h5ad_key, h5ad_columns, write_h5ad
from ._atomic import atomic_path
from ._columns import column_index, column_indices, spec_names
from ._images import DEEP_FORMATS, image_depth, read_image, read_image_folder, write_image
from ._lazy import lazy_format, read_lazy, write_blocks
from ._model_files import load, save, saved_columns
from ._readers import (
    MISSING_POLICIES,
    Table,
    apply_missing_policy,
    file_format,
    read_table,
    refuse_transposed_labels,
    transposed,
)
from ._writers import STDOUT, WRITABLE, table_format, unwritable_message, write_table

__all__ = [
    "DEEP_FORMATS",
    "STDOUT",
    "WRITABLE",
    "check_h5ad_key",
    "column_index",
    "column_indices",
    "h5ad_columns",
    "lazy_format",
    "read_image",
    "image_depth",
    "read_lazy",
    "transposed",
    "write_blocks",
    "write_image",
    "write_h5ad",
    "DataFileError",
    "MISSING_POLICIES",
    "Table",
    "apply_missing_policy",
    "atomic_path",
    "file_format",
    "load",
    "read_image_folder",
    "read_table",
    "refuse_transposed_labels",
    "save",
    "saved_columns",
    "spec_names",
    "table_format",
    "unwritable_message",
    "write_table",
]
