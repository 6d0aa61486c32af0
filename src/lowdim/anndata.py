"""AnnData in, AnnData out: lowdim's methods where a scanpy user runs ``sc.pp`` and
``sc.tl``, writing scanpy's keys (``obsm['X_pca']``, ``varm['PCs']``, ``uns['pca']``,
``obsp['distances']`` / ``obsp['connectivities']`` with ``uns['neighbors']``,
``obsm['X_umap']``, ``obs['leiden']`` as categories), so that scanpy's plotting and
downstream tools read the results unchanged. Needs the anndata package (the ``io``
extra); scanpy itself is not needed."""

import re

import numpy as np
import scipy.sparse as sp

from ._messages import listed, shown
from ._validation import is_anndata
from ._warnings import warn_user

__all__ = ["hdbscan", "kmeans", "leiden", "louvain", "neighbors", "pacmap", "pca", "tsne", "umap"]


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


PCA_SOLVERS = ("auto", "full", "covariance_eigh", "arpack", "randomized")


def _pca_model(n_comps, zero_center, svd_solver, random_state):
    """``pca``'s estimator for scanpy's ``zero_center`` and ``svd_solver``."""
    from .decomposition import PCA, TruncatedSVD

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


def _representation(adata, use_rep, n_pcs):
    """What the neighbour methods search, as scanpy chooses it: ``obsm[use_rep]``, 'X',
    or by default ``obsm['X_pca']`` when present (first ``n_pcs`` columns), else X."""
    if use_rep is None:
        use_rep = "X_pca" if "X_pca" in adata.obsm else "X"
    if use_rep == "X":
        return _matrix(adata), "X"
    if use_rep not in adata.obsm:
        raise KeyError(f"obsm has no {use_rep!r}; run lowdim.anndata.pca first, or pass use_rep='X'.")
    rep = np.asarray(adata.obsm[use_rep])
    return (rep[:, :n_pcs] if n_pcs is not None else rep), use_rep


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
    n_comps=50,
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
    n_comps : int, default=50
        At most min(cells, genes) - 1.
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
    from .decomposition import PCA

    if return_info:
        raise ValueError(
            "return_info=True is scanpy's for an array input; lowdim.anndata.pca writes the scores, components "
            "and variances into obsm['X_pca'], varm['PCs'] and uns['pca'] (copy=True returns the AnnData)."
        )
    if use_highly_variable is not None:
        if not (isinstance(mask_var, str) and mask_var == "auto"):
            raise ValueError("pass mask_var or use_highly_variable (its older spelling), not both.")
        mask_var = "highly_variable" if use_highly_variable else None
    target = _target(adata, copy)
    mask, mask_name = _gene_mask(target, mask_var)
    genes = slice(None) if mask is None else np.flatnonzero(mask)
    if _backed(target, layer) and not zero_center:
        raise ValueError(
            f"zero_center=False reads adata.X in memory, and it is left in its file {str(target.filename)!r} "
            "(backed='r'); load it with adata.to_memory(), or keep zero_center=True, which streams the file."
        )
    if chunked and not zero_center:
        raise ValueError("chunked=True fits centred components; pass zero_center=True, or chunked=False.")
    if _backed(target, layer) or chunked:  # exact moments streamed by rows, one pass to fit, one to place
        model = PCA(n_comps, random_state=random_state)
        model.fit(chunk[:, genes] for chunk in _row_chunks(target, layer, chunk_size))
        scores = np.vstack([model.transform(chunk[:, genes]) for chunk in _row_chunks(target, layer, chunk_size)])
    else:
        X = _matrix(target, layer)[:, genes]
        model = _pca_model(n_comps, zero_center, svd_solver, random_state).fit(X)
        scores = model.transform(X)
    names = ("X_pca", "PCs", "pca") if key_added is None else (key_added,) * 3
    target.obsm[names[0]] = np.asarray(scores, dtype=dtype)
    loadings = np.zeros((target.n_vars, model.components_.shape[0]))
    loadings[genes] = model.components_.T
    target.varm[names[1]] = loadings
    params = {"zero_center": zero_center, "use_highly_variable": mask_name == "highly_variable", "mask_var": mask_name}
    params.update(svd_solver=svd_solver, chunked=chunked)
    target.uns[names[2]] = {
        "variance": model.explained_variance_,
        "variance_ratio": model.explained_variance_ratio_,
        "params": {**params, "layer": layer},
    }
    return target if copy else None


def neighbors(
    adata,
    n_neighbors=15,
    n_pcs=None,
    *,
    use_rep=None,
    knn=True,
    method="umap",
    transformer=None,
    metric="euclidean",
    metric_kwds=None,
    random_state=0,
    key_added=None,
    copy=False,
):
    """The kNN graph, as ``scanpy.pp.neighbors`` stores it: one search by lowdim's index,
    distances in ``obsp['distances']`` (each cell's ``n_neighbors - 1`` nearest others),
    the connectivities (UMAP's fuzzy memberships, or scanpy's 'gauss' kernel) in
    ``obsp['connectivities']``, the settings in ``uns['neighbors']``.

    Parameters
    ----------
    adata : AnnData
    n_neighbors : int, default=15
        Counting the cell itself, as scanpy.
    n_pcs : int, optional
        Use the first ``n_pcs`` columns of ``obsm['X_pca']``.
    use_rep : str, optional
        'X' or an ``obsm`` key; default ``'X_pca'`` when present, else X.
    knn : bool, default=True
        scanpy's False (every pair, a dense cells x cells kernel) is refused: graphs stay
        sparse here; a larger ``n_neighbors`` reaches further.
    method : {'umap', 'gauss'}, default='umap'
        The connectivities: UMAP's fuzzy union, or scanpy's Gaussian kernel (Haghverdi et
        al. 2016, for diffusion pseudotime) ``sqrt(2 s_i s_j / (s_i^2 + s_j^2))
        exp(-d^2 / (s_i^2 + s_j^2))`` with ``s_i^2`` a cell's median squared distance to
        its neighbours, on the neighbour pairs of either cell.
    transformer : {'sklearn', 'pynndescent'}, estimator or None, optional
        The search, as scanpy's: None lowdim's choice by size, 'sklearn' exact,
        'pynndescent' approximate (lowdim's index), or a transformer whose
        ``fit_transform`` gives a sparse distance graph (``KNeighborsTransformer``).
    metric : str, default='euclidean'
    metric_kwds : dict, optional
        The metric's parameters (``{'p': 3}`` for 'minkowski'), as scanpy's.
    random_state : int, default=0
        Recorded (the search is deterministic).
    key_added : str, optional
        Store as ``uns[key_added]``, ``obsp[key_added + '_distances']`` and
        ``obsp[key_added + '_connectivities']``.
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> adata = anndata.AnnData(np.random.default_rng(0).normal(size=(60, 8)))
    >>> la.neighbors(adata, n_neighbors=5, use_rep="X")
    >>> int(adata.obsp["distances"].getnnz(axis=1).max()), adata.uns["neighbors"]["params"]["n_neighbors"]
    (4, 5)
    """
    from .embedding import fuzzy_graph
    from .neighbors import NeighborGraph

    if not knn:
        raise ValueError(
            "knn=False connects every pair of cells (a dense cells x cells kernel); lowdim keeps the graph sparse: "
            "keep knn=True, with a larger n_neighbors to reach further."
        )
    if method not in ("umap", "gauss"):
        raise ValueError(f"method={shown(method)}: lowdim's neighbors has 'umap' and 'gauss' (scanpy's methods).")
    target = _target(adata, copy)
    data, rep = _representation(target, use_rep, n_pcs)
    search = _search(transformer, data, metric)
    graph = NeighborGraph.build(data, n_neighbors - 1, metric=metric, algorithm=search, metric_params=metric_kwds)
    dist, idx = graph.neighbors(n_neighbors - 1)
    key = "neighbors" if key_added is None else key_added
    prefix = "" if key_added is None else key_added + "_"
    target.obsp[prefix + "distances"] = graph.to_csr()
    weights = fuzzy_graph(dist, idx) if method == "umap" else _gauss_connectivities(dist, idx)
    target.obsp[prefix + "connectivities"] = sp.csr_matrix(weights, dtype=np.float32)
    params = {"n_neighbors": n_neighbors, "method": method, "metric": metric, "random_state": random_state}
    if metric_kwds:
        params["metric_kwds"] = dict(metric_kwds)
    if rep != "X" or use_rep is not None:
        params["use_rep"] = rep
    if n_pcs is not None:
        params["n_pcs"] = n_pcs
    target.uns[key] = {
        "connectivities_key": prefix + "connectivities",
        "distances_key": prefix + "distances",
        "params": params,
    }
    return target if copy else None


def _search(transformer, data, metric):
    """``NeighborGraph.build``'s algorithm for scanpy's ``transformer``."""
    from .neighbors import PrecomputedNeighbors

    named = {None: "auto", "sklearn": "exact", "pynndescent": "approximate"}
    if isinstance(transformer, str) or transformer is None:
        if transformer not in named:
            raise ValueError(
                f"transformer={shown(transformer)}: lowdim's neighbors takes 'sklearn' (exact), 'pynndescent' "
                "(approximate), a transformer with fit_transform, or None."
            )
        return named[transformer]
    if not hasattr(transformer, "fit_transform"):
        raise TypeError(f"transformer: {type(transformer).__name__} has no fit_transform (a sparse distance graph).")
    return PrecomputedNeighbors(sp.csr_matrix(transformer.fit_transform(data)), metric=metric, what="the transformer's")


def _gauss_connectivities(dist, idx):
    """scanpy's 'gauss' connectivities of each cell's neighbours ``(dist, idx)``: the
    kernel of Haghverdi et al. (2016) with each cell's width the root of its median
    squared neighbour distance, on the pairs either cell lists (symmetric)."""
    from .neighbors import positive_scales

    n, k = idx.shape
    d2 = np.square(np.asarray(dist, dtype=np.float64))
    s2 = np.square(positive_scales(np.sqrt(np.median(d2, axis=1))))  # a cell among copies keeps a width
    rows, cols = np.repeat(np.arange(n), k), np.asarray(idx, dtype=np.int64).ravel()
    den = s2[rows] + s2[cols]
    values = np.sqrt(2 * np.sqrt(s2[rows] * s2[cols]) / den) * np.exp(-d2.ravel() / den)
    one_way = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    return one_way.maximum(one_way.T)


def _graph(adata, neighbors_key, caller):
    """The stored neighbour graph: ``(distances, connectivities, params)``."""
    key = neighbors_key or "neighbors"
    if key not in adata.uns:
        raise KeyError(f"{caller} reads the neighbour graph: run lowdim.anndata.neighbors (or scanpy's) first.")
    info = adata.uns[key]
    # files written before scanpy named its keys (its bundled pbmc68k_reduced) use the defaults
    prefix = "" if key == "neighbors" else key + "_"
    names = [info.get(f"{part}_key", prefix + part) for part in ("distances", "connectivities")]
    missing = [name for name in names if name not in adata.obsp]
    if missing:
        raise KeyError(
            f"{caller} reads the neighbour graph uns[{key!r}] describes, but obsp has no {missing[0]!r}; run "
            "lowdim.anndata.neighbors (or scanpy's) again."
        )
    return adata.obsp[names[0]], adata.obsp[names[1]], dict(info.get("params", {}))


def _stored_knn(adata, neighbors_key, caller):
    """The stored graph as a ``NeighborGraph`` (each cell's stored neighbours, nearest
    first) and its parameters: the methods that read it search nothing again. Cells that
    hold fewer neighbours than the graph was built with (a search that listed a cell
    among its own neighbours, next to a copy of it) are searched exactly; when many do
    (``adata`` is a subset of the cells the graph was built on), the whole graph is
    searched again, with a warning."""
    from .neighbors import NeighborGraph, stored_smallest

    distances, _, params = _graph(adata, neighbors_key, caller)
    distances = sp.csr_matrix(distances)
    n = distances.shape[0]
    rows = np.repeat(np.arange(n), np.diff(distances.indptr))
    counts = distances.getnnz(axis=1) - np.bincount(rows[distances.indices == rows], minlength=n)  # self: none
    # older files (scanpy's bundled pbmc68k_reduced) hold the count as a 1-element array
    given = np.ravel(params.get("n_neighbors", []))
    built = int(given[0]) - 1 if given.size else int(counts.max(initial=0))
    metric = params.get("metric", "euclidean")
    short = np.flatnonzero(counts < built)
    if short.size:
        data, _ = _representation(adata, params.get("use_rep"), params.get("n_pcs"))
        if short.size > max(SHORT_ROWS_SEARCHED, n // 100) or built >= n:
            warn_user(
                f"{caller}: uns[{neighbors_key or 'neighbors'!r}] describes {built} neighbours per cell, but "
                f"{short.size} cells hold fewer in obsp (the fewest: {int(counts.min())}), as when cells are taken "
                "out after the graph is built; the graph is searched again for this map. Run neighbors on this "
                "AnnData to store it.",
                UserWarning,
            )
            return NeighborGraph.build(data, built, metric=metric), params
        distances = _with_rows_searched(distances, rows, short, data, metric, built)
    dist, idx = stored_smallest(distances, built)
    return NeighborGraph(idx, dist, metric=metric, algorithm="stored in obsp"), params


SHORT_ROWS_SEARCHED = 1000  # cells short of neighbours searched exactly; beyond (and 1 %), the whole graph


def _with_rows_searched(distances, rows, short, data, metric, k):
    """``distances`` with the rows ``short`` replaced by their ``k`` nearest other cells
    in ``data``, found exactly."""
    from .neighbors import make_index

    n = distances.shape[0]
    found_d, found_i = make_index("exact", metric, n).build(data).query(data[short], k + 1)
    own = found_i == short[:, None]
    keep = ~own & (np.cumsum(~own, axis=1) <= k)  # the k nearest that are not the cell itself
    kept = ~np.isin(rows, short)
    return sp.csr_matrix(
        (
            np.r_[distances.data[kept], found_d[keep]],
            (np.r_[rows[kept], np.repeat(short, k)], np.r_[distances.indices[kept], found_i[keep]]),
        ),
        shape=distances.shape,
    )


def umap(
    adata,
    *,
    min_dist=0.5,
    spread=1.0,
    n_components=2,
    maxiter=None,
    alpha=1.0,
    gamma=1.0,
    negative_sample_rate=5,
    init_pos="spectral",
    random_state=0,
    a=None,
    b=None,
    method="umap",
    neighbors_key=None,
    key_added=None,
    copy=False,
):
    """A UMAP map from the stored neighbour graph (no second search), as ``scanpy.tl.umap``
    stores it: ``obsm['X_umap']`` and ``uns['umap']['params']`` (its a and b).

    Parameters
    ----------
    adata : AnnData
        With a neighbour graph (``neighbors`` first).
    min_dist, spread : float, default 0.5 and 1.0
        scanpy's defaults.
    n_components : int, default=2
    maxiter : int, optional
        Epochs (default by the size, as UMAP).
    alpha : float, default=1.0
        The first step size (``UMAP``'s ``learning_rate``), as scanpy's.
    gamma : float, default=1.0
        The weight of the repulsion (``UMAP``'s ``repulsion_strength``), as scanpy's.
    negative_sample_rate : int, default=5
    init_pos : {'spectral', 'random', 'pca'} or obsm key, default='spectral'
    random_state : int, default=0
    a, b : float, optional
    method : 'umap', default='umap'
        scanpy's other method, 'rapids' (a GPU library), is refused.
    neighbors_key : str, optional
    key_added : str, optional
        ``obsm[key_added]`` instead of 'X_umap'.
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> adata = anndata.AnnData(np.random.default_rng(0).normal(size=(80, 6)))
    >>> la.neighbors(adata, n_neighbors=10, use_rep="X")
    >>> la.umap(adata)
    >>> adata.obsm["X_umap"].shape
    (80, 2)
    """
    from .embedding import UMAP

    if method != "umap":
        raise ValueError(f"method={shown(method)}: lowdim's umap is its own ('umap'); scanpy's 'rapids' runs on a GPU.")
    target = _target(adata, copy)
    graph, params = _stored_knn(target, neighbors_key, "umap")
    data, _ = _representation(target, params.get("use_rep"), params.get("n_pcs"))
    init = np.asarray(target.obsm[init_pos]) if init_pos in target.obsm else init_pos
    # scanpy's names: maxiter is n_epochs, alpha the first step, gamma the repulsion's weight
    model = UMAP(n_neighbors=graph.n_neighbors + 1, n_components=n_components, min_dist=min_dist, spread=spread,
                 n_epochs=maxiter, learning_rate=alpha, repulsion_strength=gamma, a=a, b=b,
                 negative_sample_rate=negative_sample_rate, init=init, metric=graph.metric, precomputed_knn=graph,
                 random_state=random_state)  # fmt: skip
    target.obsm[key_added or "X_umap"] = model.fit_transform(data)
    target.uns[key_added or "umap"] = {"params": {"a": float(model.a_), "b": float(model.b_)}}
    return target if copy else None


def tsne(
    adata,
    n_pcs=None,
    *,
    use_rep=None,
    perplexity=30.0,
    early_exaggeration=12.0,
    learning_rate="auto",
    metric="euclidean",
    random_state=0,
    use_fast_tsne=False,
    n_jobs=None,
    key_added=None,
    copy=False,
):
    """A t-SNE map, as ``scanpy.tl.tsne`` stores it: ``obsm['X_tsne']`` and
    ``uns['tsne']['params']``.

    Parameters
    ----------
    adata : AnnData
    n_pcs : int, optional
    use_rep : str, optional
        As ``neighbors`` (default ``obsm['X_pca']`` when present).
    perplexity : float, default=30
    early_exaggeration : float, default=12
    learning_rate : float or 'auto', default='auto'
    metric : str, default='euclidean'
        The distance the affinities are computed with ('cosine', 'correlation', ...:
        ``TSNE``'s metrics), as scanpy's.
    random_state : int, default=0
    use_fast_tsne : bool, default=False
        scanpy's choice between the Multicore-TSNE and FIt-SNE packages; accepted, as the
        map is lowdim's t-SNE either way (interpolated like FIt-SNE's on large data).
    n_jobs : int, optional
        Accepted as scanpy's; the threads are numba's (``NUMBA_NUM_THREADS``), and the
        map is the same for any number of them.
    key_added : str, optional
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> adata = anndata.AnnData(np.random.default_rng(0).normal(size=(80, 6)))
    >>> la.tsne(adata, use_rep="X", perplexity=10)
    >>> adata.obsm["X_tsne"].shape
    (80, 2)
    """
    from .embedding import TSNE

    target = _target(adata, copy)
    data, rep = _representation(target, use_rep, n_pcs)
    model = TSNE(
        perplexity=perplexity,
        early_exaggeration=early_exaggeration,
        learning_rate=learning_rate,
        metric=metric,
        random_state=random_state,
    )
    target.obsm[key_added or "X_tsne"] = model.fit_transform(data)
    params = {"perplexity": perplexity, "early_exaggeration": early_exaggeration, "learning_rate": learning_rate,
              "metric": metric}  # fmt: skip
    target.uns[key_added or "tsne"] = {"params": {**params, "use_rep": rep, "n_jobs": n_jobs}}
    return target if copy else None


def pacmap(adata, n_pcs=None, *, use_rep=None, n_components=2, random_state=0, key_added=None, copy=False):
    """A PaCMAP map in ``obsm['X_pacmap']``.

    Parameters
    ----------
    adata : AnnData
    n_pcs : int, optional
    use_rep : str, optional
    n_components : int, default=2
    random_state : int, default=0
    key_added : str, optional
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> adata = anndata.AnnData(np.random.default_rng(0).normal(size=(80, 6)))
    >>> la.pacmap(adata, use_rep="X")
    >>> adata.obsm["X_pacmap"].shape
    (80, 2)
    """
    from .embedding import PaCMAP

    target = _target(adata, copy)
    data, _ = _representation(target, use_rep, n_pcs)
    target.obsm[key_added or "X_pacmap"] = PaCMAP(n_components=n_components, random_state=random_state).fit_transform(
        data
    )
    return target if copy else None


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


def leiden(
    adata,
    resolution=1.0,
    *,
    random_state=0,
    key_added="leiden",
    neighbors_key=None,
    adjacency=None,
    obsp=None,
    restrict_to=None,
    directed=None,
    use_weights=True,
    partition_type=None,
    n_iterations=-1,
    flavor="igraph",
    copy=False,
):
    """Leiden communities of the stored connectivities, as ``scanpy.tl.leiden`` stores
    them: ``obs['leiden']`` (categories '0', '1', ..., largest first).

    Parameters
    ----------
    adata : AnnData
        With a neighbour graph.
    resolution : float, default=1.0
    random_state : int, default=0
    key_added : str, default='leiden'
    neighbors_key : str, optional
    adjacency : sparse matrix (cells x cells), optional
        Partition this graph instead of the stored neighbours', as scanpy's.
    obsp : str, optional
        Partition ``adata.obsp[obsp]`` instead, as scanpy's.
    restrict_to : tuple (str, list of str), optional
        ``(obs key, categories)``: sub-cluster the cells of those categories only, on
        the graph between them, as scanpy's; the other cells keep their clusters, the
        new ones are named ``'<categories>,<n>'`` in ``obs['leiden_R']`` (or
        ``key_added``).
    directed : bool, optional
        Accepted as scanpy's: the graph must be symmetric (an asymmetric ``adjacency`` is
        refused, naming the fix), and a symmetric graph's modularity is the same read as
        directed or not.
    use_weights : bool, default=True
        The edges' weights (False: every edge counts 1), as scanpy's.
    partition_type : leidenalg partition class, optional
        As scanpy's: the objective is modularity with ``resolution``
        (``RBConfigurationVertexPartition``, the default; ``ModularityVertexPartition``
        is it at resolution 1); another objective is refused, naming the fix.
    n_iterations : int, default=-1
        Until no improvement (-1), as scanpy's leidenalg flavour.
    flavor : {'igraph', 'leidenalg'}, default='igraph'
        As ``lowdim.cluster.Leiden``'s (igraph's is several times faster).
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> rng = np.random.default_rng(0)
    >>> adata = anndata.AnnData(np.vstack([rng.normal(c, 0.3, (40, 4)) for c in (0, 5)]))
    >>> la.neighbors(adata, n_neighbors=10, use_rep="X")
    >>> la.leiden(adata, resolution=0.1)
    >>> adata.obs["leiden"].cat.categories.tolist()
    ['0', '1']
    """
    resolution = _modularity_resolution(partition_type, resolution, "leiden")
    options = {"n_iterations": n_iterations, "flavor": flavor, "use_weights": use_weights}
    del directed  # the graph is symmetric (an asymmetric one is refused): directed or not, the same modularity
    source = {"neighbors_key": neighbors_key, "adjacency": adjacency, "obsp": obsp}
    return _communities("Leiden", adata, resolution, random_state, key_added, source, restrict_to, options, copy)


def louvain(
    adata,
    resolution=None,
    *,
    random_state=0,
    key_added="louvain",
    neighbors_key=None,
    adjacency=None,
    obsp=None,
    restrict_to=None,
    flavor="vtraag",
    directed=True,
    use_weights=False,
    partition_type=None,
    partition_kwargs=None,
    copy=False,
):
    """Louvain communities of the stored connectivities, in ``obs['louvain']``.

    Parameters
    ----------
    adata : AnnData
    resolution : float, optional
        None: 1, as scanpy's (modularity).
    random_state : int, default=0
    key_added : str, default='louvain'
    neighbors_key : str, optional
    adjacency, obsp : optional
        As ``leiden``'s: another graph to partition.
    restrict_to : tuple (str, list of str), optional
        As ``leiden``'s (the result in ``obs['louvain_R']``).
    flavor : {'vtraag', 'igraph'}, default='vtraag'
        Both optimise modularity by igraph's multilevel Louvain (scanpy's 'vtraag' calls
        the louvain package, its 'igraph' this one).
    directed : bool, default=True
        As ``leiden``'s.
    use_weights : bool, default=False
        The edges' weights; False, scanpy's default here, counts every edge 1.
    partition_type : leidenalg/louvain partition class, optional
        As ``leiden``'s.
    partition_kwargs : dict, optional
        scanpy's: only ``resolution_parameter`` (the resolution) has a meaning here.
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> rng = np.random.default_rng(0)
    >>> adata = anndata.AnnData(np.vstack([rng.normal(c, 0.3, (40, 4)) for c in (0, 5)]))
    >>> la.neighbors(adata, n_neighbors=10, use_rep="X")
    >>> la.louvain(adata, resolution=0.1)
    >>> len(adata.obs["louvain"].cat.categories)
    2
    """
    if flavor not in ("vtraag", "igraph"):
        raise ValueError(f"flavor={flavor!r}: lowdim's louvain has 'vtraag' and 'igraph' (the same optimiser).")
    extra = dict(partition_kwargs or {})
    resolution = extra.pop("resolution_parameter", resolution)
    if extra:
        raise ValueError(
            f"partition_kwargs={shown(dict(partition_kwargs))}: only 'resolution_parameter' has a meaning in "
            "lowdim's louvain (the weights come from use_weights)."
        )
    resolution = _modularity_resolution(partition_type, resolution, "louvain")
    del directed  # as leiden's
    source = {"neighbors_key": neighbors_key, "adjacency": adjacency, "obsp": obsp}
    options = {"use_weights": use_weights}
    return _communities("Louvain", adata, resolution, random_state, key_added, source, restrict_to, options, copy)


def _modularity_resolution(partition_type, resolution, caller):
    """The modularity resolution scanpy's ``partition_type`` and ``resolution`` ask for
    (None: 1); an objective other than modularity is refused."""
    name = getattr(partition_type, "__name__", None if partition_type is None else repr(partition_type))
    if name in (None, "RBConfigurationVertexPartition"):
        return 1.0 if resolution is None else float(resolution)
    if name == "ModularityVertexPartition":
        if resolution not in (None, 1, 1.0):
            raise ValueError(
                f"partition_type=ModularityVertexPartition has no resolution (it is 1), but resolution={resolution}: "
                "pass RBConfigurationVertexPartition (or no partition_type) to use one."
            )
        return 1.0
    raise ValueError(
        f"partition_type={name}: lowdim's {caller} optimises modularity with a resolution (leidenalg's "
        f"RBConfigurationVertexPartition; ModularityVertexPartition is its resolution 1). For {name}'s objective "
        f"run scanpy.tl.{caller} with it, or leidenalg itself."
    )


def _communities(name, adata, resolution, random_state, key_added, source, restrict_to, options, copy):
    from . import cluster

    target = _target(adata, copy)
    graph = _community_graph(target, name.lower(), **source)
    if restrict_to is not None:
        rows, names = _restricted_rows(target, restrict_to)
        graph = graph[rows][:, rows]
    model = getattr(cluster, name)(resolution=resolution, graph="precomputed", random_state=random_state, **options)
    labels = model.fit(graph).labels_
    params = {"resolution": resolution, "random_state": random_state, **options}
    if restrict_to is None:
        _labels_to_obs(target, key_added, labels, params)
        return target if copy else None
    # as scanpy: the clusters of the other cells kept, the new ones named '<old>,<new>'
    key = f"{key_added}_R" if key_added == name.lower() else key_added
    groups = target.obs[restrict_to[0]].astype(str).to_numpy().astype(object)
    groups[rows] = [f"{'-'.join(names)},{label}" for label in labels]
    _labels_to_obs(target, key, groups, {**params, "restrict_to": [restrict_to[0], names]})
    return target if copy else None


def _community_graph(target, caller, neighbors_key=None, adjacency=None, obsp=None):
    """The graph communities are found on, as scanpy chooses it: ``adjacency`` itself,
    ``adata.obsp[obsp]``, or the stored neighbours' connectivities (``neighbors_key``)."""
    if sum(v is not None for v in (neighbors_key, adjacency, obsp)) > 1:
        raise ValueError("pass one of neighbors_key, adjacency and obsp: each names the graph to partition.")
    if obsp is not None:
        if obsp not in target.obsp:
            raise KeyError(f"obsp={obsp!r}: adata.obsp has no such graph; it holds {listed(list(target.obsp))}.")
        adjacency = target.obsp[obsp]
    if adjacency is None:
        adjacency = _graph(target, neighbors_key, caller)[1]
    graph = sp.csr_matrix(adjacency, dtype=np.float64)
    if graph.shape != (target.n_obs, target.n_obs):
        raise ValueError(
            f"the adjacency is {graph.shape[0]} x {graph.shape[1]}, but adata has {target.n_obs} cells: pass one row "
            "and one column per cell."
        )
    return graph


def _restricted_rows(target, restrict_to):
    """``(the cells in the categories restrict_to names, those names)``, for
    ``restrict_to=(obs key, categories)`` as scanpy's: the clustering is run again on the
    graph between those cells only (sub-clusters)."""
    key, categories = restrict_to
    if key not in target.obs:
        raise KeyError(
            f"restrict_to names obs[{key!r}], which adata does not have; obs holds {listed(list(target.obs))}."
        )
    values = target.obs[key].astype(str).to_numpy()
    held = set(values)
    names = [str(c) for c in ([categories] if isinstance(categories, str) else categories)]
    unknown = [c for c in names if c not in held]
    if unknown or not names:
        raise ValueError(
            f"restrict_to: obs[{key!r}] has no category {shown(unknown[0]) if unknown else '(none given)'}; "
            f"it has {listed(sorted(held), 12)}."
        )
    return np.isin(values, names), names


def kmeans(adata, n_clusters, *, n_pcs=None, use_rep=None, random_state=0, key_added="kmeans", copy=False):
    """k-means clusters of ``obsm['X_pca']`` (or ``use_rep``) in ``obs['kmeans']``.

    Parameters
    ----------
    adata : AnnData
    n_clusters : int
    n_pcs : int, optional
    use_rep : str, optional
    random_state : int, default=0
    key_added : str, default='kmeans'
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> rng = np.random.default_rng(0)
    >>> adata = anndata.AnnData(np.vstack([rng.normal(c, 0.3, (40, 4)) for c in (0, 5)]))
    >>> la.kmeans(adata, 2, use_rep="X")
    >>> adata.obs["kmeans"].value_counts().tolist()
    [40, 40]
    """
    from .cluster import KMeans

    target = _target(adata, copy)
    data, rep = _representation(target, use_rep, n_pcs)
    labels = KMeans(n_clusters, random_state=random_state).fit(data).labels_
    _labels_to_obs(target, key_added, labels, {"n_clusters": n_clusters, "use_rep": rep, "random_state": random_state})
    return target if copy else None


def hdbscan(adata, min_cluster_size=5, *, n_pcs=None, use_rep=None, key_added="hdbscan", copy=False):
    """HDBSCAN clusters of ``obsm['X_pca']`` (or ``use_rep``) in ``obs['hdbscan']``
    (noise as the category '-1').

    Parameters
    ----------
    adata : AnnData
    min_cluster_size : int, default=5
    n_pcs : int, optional
    use_rep : str, optional
    key_added : str, default='hdbscan'
    copy : bool, default=False

    Returns
    -------
    AnnData or None

    Examples
    --------
    >>> import anndata, numpy as np
    >>> from lowdim import anndata as la
    >>> rng = np.random.default_rng(0)
    >>> adata = anndata.AnnData(np.vstack([rng.normal(c, 0.3, (40, 4)) for c in (0, 5)]))
    >>> la.hdbscan(adata, 10, use_rep="X")
    >>> sorted(set(adata.obs["hdbscan"]) - {"-1"})
    ['0', '1']
    """
    from .cluster import HDBSCAN

    target = _target(adata, copy)
    data, rep = _representation(target, use_rep, n_pcs)
    labels = HDBSCAN(min_cluster_size=min_cluster_size).fit(data).labels_
    _labels_to_obs(target, key_added, labels, {"min_cluster_size": min_cluster_size, "use_rep": rep})
    return target if copy else None
