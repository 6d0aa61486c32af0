"""AnnData in, AnnData out: lowdim's methods where a scanpy user runs ``sc.pp`` and
``sc.tl``, writing scanpy's keys (``obsm['X_pca']``, ``varm['PCs']``, ``uns['pca']``,
``obsp['distances']`` / ``obsp['connectivities']`` with ``uns['neighbors']``,
``obsm['X_umap']``, ``obs['leiden']`` as categories), so that scanpy's plotting and
downstream tools read the results unchanged. Needs the anndata package (the ``io``
extra); scanpy itself is not needed."""

from ._clusters import hdbscan, kmeans, leiden, louvain
from ._maps import pacmap, tsne, umap
from ._neighbors import neighbors
from ._pca import pca

__all__ = ["hdbscan", "kmeans", "leiden", "louvain", "neighbors", "pacmap", "pca", "tsne", "umap"]
