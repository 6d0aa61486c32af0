"""Clusterings into ``obs`` as scanpy stores them: Leiden and Louvain communities of the
stored graph (scanpy's options), k-means and HDBSCAN of a representation."""

import numpy as np
import scipy.sparse as sp

from .._messages import listed, shown
from ._common import _labels_to_obs, _target
from ._neighbors import _graph
from ._representation import _representation


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
    **clustering_args,
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
        As ``lowdim.cluster.Leiden``'s (faster; scanpy's default is 'leidenalg').
    copy : bool, default=False
    **clustering_args
        scanpy's: further options of the flavour's run (igraph's ``beta``,
        ``initial_membership``, ``node_weights``; leidenalg's ``initial_membership``,
        ``max_comm_size``), ``lowdim.cluster.Leiden``'s ``partition_params``.

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
    if clustering_args:
        options["partition_params"] = dict(clustering_args)
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
    from .. import cluster

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
    from ..cluster import KMeans

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
    from ..cluster import HDBSCAN

    target = _target(adata, copy)
    data, rep = _representation(target, use_rep, n_pcs)
    labels = HDBSCAN(min_cluster_size=min_cluster_size).fit(data).labels_
    _labels_to_obs(target, key_added, labels, {"min_cluster_size": min_cluster_size, "use_rep": rep})
    return target if copy else None
