"""
Cells: the AnnData pipeline, from counts to clusters
=====================================================

Single-cell data live in AnnData objects. ``lowdim.anndata`` runs the standard embedding
pipeline on them with scanpy's keys, so the result goes on to scanpy unchanged: principal
components (``obsm['X_pca']``), the neighbour graph (``obsp``, ``uns['neighbors']``),
the UMAP map (``obsm['X_umap']``) and Leiden communities (``obs['leiden']``).

The cells here are drawn like real ones: negative-binomial counts from eight cell types,
each raising its own marker genes, with a library size of its own per cell, then
normalised to 10,000 counts and log-transformed.
"""

import anndata
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

from lowdim import anndata as la
from lowdim.metrics import adjusted_rand_score

rng = np.random.default_rng(0)
n_cells, n_genes, n_types = 4000, 1000, 8
base = rng.gamma(0.3, 1.0, n_genes)
profiles = np.tile(base, (n_types, 1))
for t in range(n_types):  # 40 marker genes per cell type, raised about sevenfold
    profiles[t, rng.choice(n_genes, 40, replace=False)] *= rng.lognormal(2.0, 0.5, 40)
profiles /= profiles.sum(axis=1, keepdims=True)
cell_type = rng.integers(0, n_types, n_cells)
mean = profiles[cell_type] * rng.lognormal(np.log(1500), 0.4, (n_cells, 1))
counts = rng.negative_binomial(2.0, 2.0 / (2.0 + mean)).astype(np.float32)
X = np.log1p(counts / counts.sum(axis=1, keepdims=True) * 1e4)
adata = anndata.AnnData(sp.csr_matrix(X))
adata.var_names = [f"gene{j}" for j in range(n_genes)]
adata.obs["cell_type"] = cell_type.astype(str)
print(adata)

# %%
# The pipeline: each step writes into ``adata`` under scanpy's names.
la.pca(adata, n_comps=30)
la.neighbors(adata, n_neighbors=15)
la.umap(adata, random_state=0)
la.leiden(adata, resolution=0.5, random_state=0)
print(adata)
agreement = adjusted_rand_score(adata.obs["cell_type"], adata.obs["leiden"])
print("Leiden against the cell types (ARI):", round(agreement, 3))

# %%
# The map coloured by the Leiden communities, and by one cell type's top marker gene.
marker = int(np.argmax(profiles[0] / profiles.mean(axis=0)))
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
umap = adata.obsm["X_umap"]
for label in adata.obs["leiden"].cat.categories:
    rows = (adata.obs["leiden"] == label).to_numpy()
    axes[0].scatter(umap[rows, 0], umap[rows, 1], s=3, label=label)
axes[0].legend(title="leiden", markerscale=4, fontsize=7)
axes[0].set_title("UMAP, coloured by Leiden")
expression = adata.X[:, marker].toarray().ravel()
shown = axes[1].scatter(umap[:, 0], umap[:, 1], s=3, c=expression, cmap="viridis")
fig.colorbar(shown, ax=axes[1], label="log expression")
axes[1].set_title(f"{adata.var_names[marker]}, a marker of cell type 0")
fig.tight_layout()

# %%
# With scanpy installed, ``scanpy.pl.umap(adata, color=['leiden', 'gene12'])`` draws the
# same map from the same keys, and ``adata.write_h5ad('cells.h5ad')`` keeps it all.
plt.show()
