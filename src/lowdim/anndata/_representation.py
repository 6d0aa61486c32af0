"""What the neighbour steps read, chosen by scanpy's rules (``use_rep``, ``n_pcs``)."""

import numpy as np

from .._warnings import warn_user
from ._common import N_PCS, _matrix
from ._pca import pca


def _representation(adata, use_rep, n_pcs):
    """``(what the neighbour methods search, its name)``, chosen by scanpy's rules (so
    that a graph scanpy stored is read back from the rows it was built on): ``obsm[use_rep]``
    (its first ``n_pcs`` columns), 'X'; by default (or ``n_pcs=0``: X) X itself for at
    most ``N_PCS`` genes, else ``obsm['X_pca']``, computed by ``pca`` with a warning
    when missing, as scanpy does."""
    if use_rep is None and n_pcs == 0:
        use_rep = "X"
    if use_rep is None:
        if adata.n_vars <= N_PCS:
            return _matrix(adata), "X"
        if "X_pca" not in adata.obsm:
            pca(adata, n_comps=n_pcs)  # n_pcs, or scanpy's default that fits the cells and genes
            warn_user(
                f"the neighbour search would run on the {adata.n_vars} genes of X: principal components were "
                f"computed first (lowdim.anndata.pca, {adata.obsm['X_pca'].shape[1]} components into obsm['X_pca']), "
                "as scanpy does; pass use_rep='X' to search X itself, or run pca first to choose its settings."
            )
        use_rep = "X_pca"
    if use_rep == "X":
        return _matrix(adata), "X"
    if use_rep not in adata.obsm:
        raise KeyError(f"obsm has no {use_rep!r}; run lowdim.anndata.pca first, or pass use_rep='X'.")
    rep = np.asarray(adata.obsm[use_rep])
    if n_pcs is not None and n_pcs > rep.shape[1]:
        raise ValueError(
            f"n_pcs={n_pcs}, but obsm[{use_rep!r}] has {rep.shape[1]} columns; lower n_pcs, or rerun pca with "
            f"n_comps={n_pcs}."
        )
    return (rep[:, :n_pcs] if n_pcs is not None else rep), use_rep
