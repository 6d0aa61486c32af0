"""What every AnnData step shares: the object written to, the matrix or representation read
(a backed file in chunks of rows), and cluster labels stored as scanpy stores them."""

import re

import numpy as np
import scipy.sparse as sp

from .._validation import is_anndata


def _target(adata, copy):
    """The object to write into: ``adata`` itself, or a copy returned to the caller."""
    if not is_anndata(adata):
        raise TypeError(
            f"expected an AnnData object; got {type(adata).__name__}. For arrays use the estimators "
            "(lowdim.PCA, lowdim.UMAP, ...) directly."
        )
    return adata.copy() if copy else adata


# values per chunk of a backed X read from its file (64 MiB of float64 when dense)
CHUNK_VALUES = 1 << 23


def _backed(adata, layer=None):
    """Whether the matrix asked for is ``adata.X`` left in its file (``backed='r'``)."""
    return layer is None and bool(getattr(adata, "isbacked", False))


def _row_chunks(adata, layer=None, rows=None):
    """The rows of ``adata.X`` (or a layer) in chunks of ``rows`` (default: about
    ``CHUNK_VALUES`` values), each read from the file when reached if X is backed."""
    n, d = adata.shape
    rows = rows or max(1, CHUNK_VALUES // max(d, 1))
    X = adata.X if _backed(adata, layer) else _matrix(adata, layer)
    return (X[start : start + rows] for start in range(0, n, rows))


def _matrix(adata, layer=None):
    """``adata.X`` or a layer, as lowdim's estimators take it (sparse stays sparse)."""
    if layer is not None and layer not in adata.layers:
        raise KeyError(f"no layer {layer!r}; layers are {list(adata.layers.keys())}.")
    if _backed(adata, layer):
        raise ValueError(
            f"adata.X is left in its file {str(adata.filename)!r} (read with backed='r'), and this step needs it in "
            "memory. Run lowdim.anndata.pca first (it streams X from the file) and work on obsm['X_pca'], or load "
            "the cells with adata.to_memory()."
        )
    X = adata.layers[layer] if layer is not None else adata.X
    if X is None:
        raise ValueError("adata.X is empty; pass layer= to use one of adata.layers.")
    return X if sp.issparse(X) else np.asarray(X)


# scanpy's settings.N_PCS: the genes up to which X is searched as it is, and the default
# number of components
N_PCS = 50


def _labels_to_obs(target, key, labels, params):
    """Cluster labels as scanpy stores them: a categorical obs column of '0', '1', ...
    (HDBSCAN's noise '-1'), its settings in ``uns[key]['params']``."""
    import pandas as pd

    labels = np.asarray(labels).astype(str)

    def natural(name):  # as scanpy's: HDBSCAN's noise '-1' first, '2' before '10', sub-clusters '3,0' after '2'
        return not name.startswith("-"), [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name.lstrip("-"))]

    order = sorted((str(n) for n in np.unique(labels)), key=natural)
    target.obs[key] = pd.Categorical(labels, categories=order)
    target.uns[key] = {"params": params}
