"""``neighbors``: the kNN graph as ``scanpy.pp.neighbors`` stores it, and reading it back."""

import numpy as np
import scipy.sparse as sp

from .._messages import shown
from .._warnings import warn_user
from ._common import _target
from ._representation import _representation


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
        Counting the cell itself, as scanpy; with a ``transformer`` estimator, its own
        ``n_neighbors``, and on fewer cells, ``1 + cells // 2`` (with a warning), as scanpy's.
    n_pcs : int, optional
        Use the first ``n_pcs`` columns of ``obsm['X_pca']``.
    use_rep : str, optional
        'X' or an ``obsm`` key; by default, as scanpy's, X itself for at most 50 genes,
        else ``obsm['X_pca']`` (computed by ``pca``, with a warning, when missing).
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
    from ..embedding import fuzzy_graph
    from ..neighbors import NeighborGraph

    _check_graph_kind(knn, method)
    target = _target(adata, copy)
    n_neighbors = _neighbour_count(n_neighbors, transformer, target.n_obs)
    data, rep = _representation(target, use_rep, n_pcs)
    search = _search(transformer, data, metric)
    graph = NeighborGraph.build(data, n_neighbors - 1, metric=metric, algorithm=search, metric_params=metric_kwds)
    dist, idx = graph.neighbors(n_neighbors - 1)
    weights = fuzzy_graph(dist, idx) if method == "umap" else _gauss_connectivities(dist, idx)
    params = {"n_neighbors": n_neighbors, "method": method, "metric": metric, "random_state": random_state}
    if metric_kwds:
        params["metric_kwds"] = dict(metric_kwds)
    if rep != "X" or use_rep is not None:
        params["use_rep"] = rep
    if n_pcs is not None:
        params["n_pcs"] = n_pcs
    _store(target, graph.to_csr(), sp.csr_matrix(weights, dtype=np.float32), key_added, params)
    return target if copy else None


def _neighbour_count(n_neighbors, transformer, cells):
    """``n_neighbors`` as scanpy takes it: a transformer's own count, and on fewer
    cells than asked for, ``1 + cells // 2`` with a warning."""
    if transformer is not None and not isinstance(transformer, str) and hasattr(transformer, "get_params"):
        return int(transformer.get_params().get("n_neighbors", n_neighbors))
    if n_neighbors > cells:
        adjusted = 1 + cells // 2
        warn_user(
            f"neighbors: n_neighbors={n_neighbors} is more than the {cells} cells; adjusted to {adjusted}, as scanpy "
            f"does. Pass n_neighbors={cells} or fewer to choose it."
        )
        return adjusted
    return n_neighbors


def _check_graph_kind(knn, method):
    """Refuse scanpy's options that have no sparse graph here, naming the fix."""
    if not knn:
        raise ValueError(
            "knn=False connects every pair of cells (a dense cells x cells kernel); lowdim keeps the graph sparse: "
            "keep knn=True, with a larger n_neighbors to reach further."
        )
    if method not in ("umap", "gauss"):
        raise ValueError(f"method={shown(method)}: lowdim's neighbors has 'umap' and 'gauss' (scanpy's methods).")


def _store(target, distances, connectivities, key_added, params):
    """The two graphs in ``obsp`` and their keys and settings in ``uns``, as scanpy names them."""
    key = "neighbors" if key_added is None else key_added
    prefix = "" if key_added is None else key_added + "_"
    target.obsp[prefix + "distances"] = distances
    target.obsp[prefix + "connectivities"] = connectivities
    target.uns[key] = {
        "connectivities_key": prefix + "connectivities",
        "distances_key": prefix + "distances",
        "params": params,
    }


def _search(transformer, data, metric):
    """``NeighborGraph.build``'s algorithm for scanpy's ``transformer``."""
    from ..neighbors import PrecomputedNeighbors

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
    from ..neighbors import positive_scales

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
    from ..neighbors import NeighborGraph, stored_smallest

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
    from ..neighbors import make_index

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
