"""Files: data tables (CSV/TSV, NPY/NPZ, Parquet, HDF5, .h5ad), images, safe model files."""

from ..exceptions import DataFileError
from ._anndata import write_h5ad
from ._atomic import atomic_path
from ._images import read_image_folder
from ._model_files import load, save, saved_columns
from ._readers import MISSING_POLICIES, Table, apply_missing_policy, file_format, read_table
from ._writers import write_table

__all__ = [
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
    "save",
    "saved_columns",
    "write_table",
]
