"""``pca``: principal components written as ``scanpy.pp.pca`` writes them."""

import numpy as np

from .._messages import listed, shown
from ._common import N_PCS, _backed, _matrix, _row_chunks, _target

PCA_SOLVERS = ("auto", "full", "covariance_eigh", "arpack", "randomized")


def _scanpy_mask(mask_var, use_highly_variable, return_info):
    """``mask_var`` after scanpy's older ``use_highly_variable``; ``return_info`` refused."""
    if return_info:
        raise ValueError(
            "return_info=True is scanpy's for an array input; lowdim.anndata.pca writes the scores, components "
            "and variances into obsm['X_pca'], varm['PCs'] and uns['pca'] (copy=True returns the AnnData)."
        )
    if use_highly_variable is None:
        return mask_var
    if not (isinstance(mask_var, str) and mask_var == "auto"):
        raise ValueError("pass mask_var or use_highly_variable (its older spelling), not both.")
    return "highly_variable" if use_highly_variable else None


def _pca_model(n_comps, zero_center, svd_solver, random_state):
    """``pca``'s estimator for scanpy's ``zero_center`` and ``svd_solver``."""
    from ..decomposition import PCA, TruncatedSVD

    solvers = PCA_SOLVERS if zero_center else ("arpack", "randomized")
    if svd_solver is not None and svd_solver not in solvers:
        raise ValueError(
            f"svd_solver={shown(svd_solver)}{'' if zero_center else ' with zero_center=False'}: lowdim's pca takes "
            f"{listed([repr(name) for name in solvers])} (scanpy's other names are dask's and sparse LOBPCG's), "
            "or None for its choice."
        )
    if zero_center:
        return PCA(n_comps, svd_solver=svd_solver, random_state=random_state)
    return TruncatedSVD(n_comps, algorithm=svd_solver or "randomized", random_state=random_state)


def _gene_mask(adata, mask_var):
    """``(the genes PCA reads as a boolean array or None for all, the mask's name as
    scanpy records it)``: 'auto' is scanpy's default (its ``highly_variable`` column
    when ``adata.var`` has one), a name is a boolean column of ``adata.var``, an array
    a boolean per gene."""
    if isinstance(mask_var, str) and mask_var == "auto":
        mask_var = "highly_variable" if "highly_variable" in adata.var.columns else None
    if mask_var is None:
        return None, None
    if isinstance(mask_var, str):
        if mask_var not in adata.var.columns:
            raise KeyError(
                f"mask_var={mask_var!r}: adata.var has no such column (it has {listed(list(adata.var.columns), 8)}); "
                "pass a boolean column of adata.var, a boolean array of one value per gene, or None for every gene."
            )
        mask, name = np.asarray(adata.var[mask_var]), mask_var
    else:
        mask, name = np.asarray(mask_var), None
    if mask.dtype != bool or mask.shape != (adata.n_vars,):
        raise ValueError(
            f"mask_var must mark each of the {adata.n_vars} genes True or False; got {mask.dtype} values of shape "
            f"{mask.shape}."
        )
    if not mask.any():
        what = f"mask_var={shown(name)}" if name else "the mask_var array"
        raise ValueError(f"{what} selects no gene; select more genes than n_comps, or pass None for every gene.")
    return mask, name


def pca(
    adata,
    n_comps=None,
    *,
    zero_center=True,
    svd_solver=None,
    chunked=False,
    chunk_size=None,
    mask_var="auto",
    use_highly_variable=None,
    layer=None,
    random_state=0,
    return_info=False,
    dtype="float32",
    key_added=None,
    copy=False,
):
    """Principal components of ``adata.X`` (or a layer), as ``scanpy.pp.pca`` stores them.

    Parameters
    ----------
    adata : AnnData
    n_comps : int, optional
        At most min(cells, genes) (of the genes read); None is scanpy's default, 50 or
        one less than that bound when it is smaller.
    zero_center : bool, default=True
        False: the truncated SVD of the uncentred data (``TruncatedSVD``), as scanpy's;
        ``uns['pca']['variance']`` is then the scores' variance, as scikit-learn's. It
        reads ``adata.X`` in memory (only centred PCA streams a backed file).
    svd_solver : {'auto', 'full', 'covariance_eigh', 'arpack', 'randomized'}, optional
        As scanpy's (scikit-learn's names; None: lowdim's choice by shape); with
        ``zero_center=False`` 'arpack' or 'randomized'. A backed file is streamed into
        its exact covariance whatever the solver.
    chunked : bool, default=False
        Fit from ``chunk_size`` rows at a time, as scanpy's (which runs scikit-learn's
        incremental PCA): here the chunks' exact moments, so the components are those
        of the whole matrix. Centred only.
    chunk_size : int, optional
        Rows per chunk (default: about 8 M values).
    mask_var : 'auto', str, array of bool or None, default='auto'
        The genes the components are computed from, as scanpy's: 'auto' takes the
        ``highly_variable`` column of ``adata.var`` when there is one (after
        ``scanpy.pp.highly_variable_genes``), else every gene; a name, another boolean
        column; None, every gene. ``varm['PCs']`` is 0 for the genes left out.
    use_highly_variable : bool, optional
        scanpy's older spelling: True is ``mask_var='highly_variable'``, False
        ``mask_var=None``.
    layer : str, optional
        Sparse counts stay sparse: centred implicitly (scanpy's ``zero_center=True``).
        An ``adata`` read with ``backed='r'`` is streamed from its file in chunks of
        rows (exact moments: the same components as in memory), never loaded whole.
    random_state : int, default=0
    return_info : bool, default=False
        scanpy's, for an array given instead of an AnnData; here the results are in
        ``obsm``, ``varm`` and ``uns`` (True is refused, saying so).
    dtype : str or numpy dtype, default='float32'
        Of the scores in ``obsm``, as scanpy's.
    key_added : str, optional
        Store under ``obsm[key_added]``, ``varm[key_added]``, ``uns[key_added]`` instead
        of 'X_pca', 'PCs', 'pca'.
    copy : bool, default=False
        Return a new AnnData instead of writing into ``adata``.

    Returns
    -------
    AnnData or None
        With ``obsm['X_pca']`` (cells x n_comps), ``varm['PCs']`` (genes x n_comps),
        ``uns['pca']`` ('variance', 'variance_ratio', 'params'); None unless ``copy``.

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> adata = anndata.AnnData(np.random.default_rng(0).poisson(1.0, (100, 30)).astype(float))
    >>> la.pca(adata, n_comps=5)
    >>> adata.obsm["X_pca"].shape, adata.varm["PCs"].shape
    ((100, 5), (30, 5))
    """
    mask_var = _scanpy_mask(mask_var, use_highly_variable, return_info)
    target = _target(adata, copy)
    mask, mask_name = _gene_mask(target, mask_var)
    genes = slice(None) if mask is None else np.flatnonzero(mask)
    n_comps = _n_comps(n_comps, target.n_obs, target.n_vars if mask is None else int(mask.sum()))
    if _backed(target, layer) and not zero_center:
        raise ValueError(
            f"zero_center=False reads adata.X in memory, and it is left in its file {str(target.filename)!r} "
            "(backed='r'); load it with adata.to_memory(), or keep zero_center=True, which streams the file."
        )
    if chunked and not zero_center:
        raise ValueError("chunked=True fits centred components; pass zero_center=True, or chunked=False.")
    if _backed(target, layer) or chunked:  # exact moments streamed by rows, one pass to fit, one to place
        from ..decomposition import PCA

        model = PCA(n_comps, random_state=random_state)
        model.fit(chunk[:, genes] for chunk in _row_chunks(target, layer, chunk_size))
        scores = np.vstack([model.transform(chunk[:, genes]) for chunk in _row_chunks(target, layer, chunk_size)])
    else:
        X = _matrix(target, layer)[:, genes]
        model = _pca_model(n_comps, zero_center, svd_solver, random_state).fit(X)
        scores = model.transform(X)
    params = {"zero_center": zero_center, "use_highly_variable": mask_name == "highly_variable", "mask_var": mask_name}
    params.update(svd_solver=svd_solver, chunked=chunked, layer=layer)
    _store(target, model, np.asarray(scores, dtype=dtype), genes, key_added, params)
    return target if copy else None


def _n_comps(n_comps, cells, genes):
    """scanpy's default number of components, or ``n_comps`` checked against the data."""
    bound = min(cells, genes)
    if n_comps is None:
        return min(N_PCS, bound - 1) if bound > 1 else 1
    if n_comps > bound:
        raise ValueError(
            f"n_comps={n_comps}, but {cells} cells of {genes} genes hold at most {bound} components; lower "
            f"n_comps, or leave it None (scanpy's default: {min(N_PCS, max(bound - 1, 1))} here)."
        )
    return n_comps


def _store(target, model, scores, genes, key_added, params):
    """Scores, loadings (0 for the genes left out) and variances under scanpy's keys."""
    names = ("X_pca", "PCs", "pca") if key_added is None else (key_added,) * 3
    target.obsm[names[0]] = scores
    loadings = np.zeros((target.n_vars, model.components_.shape[0]))
    loadings[genes] = model.components_.T
    target.varm[names[1]] = loadings
    target.uns[names[2]] = {
        "variance": model.explained_variance_,
        "variance_ratio": model.explained_variance_ratio_,
        "params": params,
    }
