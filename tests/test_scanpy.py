"""lowdim inside scanpy's pipeline: scanpy's own plotting and downstream tools read what
``lowdim.anndata`` writes, and ``scanpy.pp.neighbors`` takes lowdim's
``KNeighborsTransformer`` (scanpy is a test dependency, not a dependency of lowdim)."""

import warnings

import matplotlib
import numpy as np
import pytest

from lowdim import anndata as la
from lowdim.neighbors import KNeighborsTransformer

matplotlib.use("Agg")
sc = pytest.importorskip("scanpy")  # in the dev extra: CI always has it


@pytest.fixture
def pbmc():
    """scanpy's bundled 700 PBMCs (log-normalised, 765 genes), without its own results."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adata = sc.datasets.pbmc68k_reduced()
    for key in ("X_pca", "X_umap"):
        del adata.obsm[key]
    del adata.uns["neighbors"], adata.obsp["distances"], adata.obsp["connectivities"]
    return adata


def test_scanpy_plots_and_tools_read_lowdims_results(pbmc):
    import matplotlib.pyplot as plt

    la.pca(pbmc, n_comps=30)
    la.neighbors(pbmc, n_neighbors=15)
    la.umap(pbmc, random_state=0)
    la.leiden(pbmc, resolution=0.8, random_state=0)
    assert pbmc.obs["leiden"].dtype.name == "category" and pbmc.obs["leiden"].nunique() >= 4
    for plot in (sc.pl.umap, sc.pl.pca):
        axes = plot(pbmc, color=["leiden", "CD3D"], show=False)
        assert len(axes) == 2 and len(axes[0].collections[0].get_offsets()) == pbmc.n_obs
    plt.close("all")
    sc.tl.paga(pbmc, groups="leiden")  # reads uns['neighbors'] and obsp['connectivities']
    assert pbmc.uns["paga"]["connectivities"].shape == (pbmc.obs["leiden"].nunique(),) * 2
    sc.tl.rank_genes_groups(pbmc, "leiden", method="t-test")
    assert len(pbmc.uns["rank_genes_groups"]["names"][0]) == pbmc.obs["leiden"].nunique()
    # cells grouped by lowdim's Leiden agree with the PBMC annotation scanpy ships
    from lowdim.metrics import adjusted_rand_score

    assert adjusted_rand_score(pbmc.obs["bulk_labels"], pbmc.obs["leiden"]) > 0.3


def test_scanpy_neighbors_take_lowdims_transformer(pbmc):
    sc.pp.pca(pbmc, n_comps=30)
    ours = sc.pp.neighbors(pbmc, transformer=KNeighborsTransformer(n_neighbors=15), copy=True)
    # scanpy's own exact search below 4,096 cells (its self-distances set to 0: scikit-learn's
    # transformer gives float32 rounding there, which UMAP's memberships read as a neighbour)
    theirs = sc.pp.neighbors(pbmc, n_neighbors=15, copy=True)
    a, b = ours.obsp["connectivities"], theirs.obsp["connectivities"]
    assert (a != 0).nnz == (b != 0).nnz and abs((a != 0) - (b != 0)).nnz == 0  # the same edges
    np.testing.assert_allclose(a.toarray(), b.toarray(), rtol=1e-4, atol=1e-6)  # float32 distances
    sc.tl.umap(ours, random_state=0)  # scanpy's own UMAP on the graph lowdim found
    assert np.isfinite(ours.obsm["X_umap"]).all()


def test_scanpys_umap_reads_the_graph_lowdim_stored(pbmc):
    la.pca(pbmc, n_comps=30)
    la.neighbors(pbmc, n_neighbors=15)
    graph = pbmc.obsp["connectivities"].copy()
    sc.tl.leiden(pbmc, flavor="igraph", n_iterations=2, random_state=0)
    assert (pbmc.obsp["connectivities"] != graph).nnz == 0  # read, not recomputed
    sc.tl.umap(pbmc, random_state=0)  # (scanpy's layout zeroes the weakest edges in place)
    assert np.isfinite(pbmc.obsm["X_umap"]).all() and pbmc.obs["leiden"].nunique() >= 4
    from lowdim.metrics import adjusted_rand_score

    mine = la.leiden(pbmc, random_state=0, key_added="lowdim", copy=True).obs["lowdim"]
    assert adjusted_rand_score(mine, pbmc.obs["leiden"]) > 0.5  # two Leidens on one graph agree


def test_a_graph_stored_before_scanpy_named_its_keys_is_read():
    """scanpy's bundled file stores its graph in obsp under the default names without
    uns['neighbors']['distances_key']: lowdim's UMAP and Leiden failed on it (KeyError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adata = sc.datasets.pbmc68k_reduced()
    assert "distances_key" not in adata.uns["neighbors"]
    la.umap(adata, random_state=0)
    la.leiden(adata, random_state=0)
    assert np.isfinite(adata.obsm["X_umap"]).all() and adata.obs["leiden"].nunique() >= 4
    # the clusters of the stored graph: close to the file's own Louvain clusters on it
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(adata.obs["louvain"], adata.obs["leiden"]) > 0.7
    del adata.obsp["connectivities"]
    with pytest.raises(KeyError, match=r"obsp has no 'connectivities'"):
        la.umap(adata)
