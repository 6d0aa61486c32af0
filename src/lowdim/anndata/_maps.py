"""``umap``, ``tsne`` and ``pacmap``: maps written into ``obsm`` as scanpy's tools write them."""

import numpy as np

from .._messages import shown
from ._common import _target
from ._neighbors import _stored_knn
from ._representation import _representation


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
    from ..embedding import UMAP

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
        As ``neighbors`` (by default X for at most 50 genes, else ``obsm['X_pca']``).
    perplexity : float, default=30
    early_exaggeration : float, default=12
    learning_rate : float or 'auto', default='auto'
        'auto' (``TSNE``'s: the cells over ``4 * early_exaggeration``, at least 50)
        where scanpy's default is 1000: a fixed step leaves a large map unconverged
        (Belkina et al. 2019); pass 1000 for scanpy's map.
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
    from ..embedding import TSNE

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
    from ..embedding import PaCMAP

    target = _target(adata, copy)
    data, _ = _representation(target, use_rep, n_pcs)
    target.obsm[key_added or "X_pacmap"] = PaCMAP(n_components=n_components, random_state=random_state).fit_transform(
        data
    )
    return target if copy else None
