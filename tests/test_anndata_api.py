"""AnnData in, AnnData out (lowdim.anndata): scanpy's keys and layouts, the stored graph
reused without a second search, results that survive an .h5ad round trip."""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import pdist

anndata = pytest.importorskip("anndata")

import lowdim  # noqa: E402
from lowdim import anndata as la  # noqa: E402
from lowdim.metrics import adjusted_rand_score  # noqa: E402


@pytest.fixture
def cells():
    """Negative-binomial counts of 3 cell types (300 cells x 120 genes), log-normalised,
    sparse as single-cell matrices are."""
    rng = np.random.default_rng(0)
    kind = np.repeat([0, 1, 2], 100)
    profile = rng.gamma(2.0, 1.0, size=(3, 120)) * 2
    counts = rng.negative_binomial(5, 5 / (5 + profile[kind]))
    logged = np.log1p(counts / counts.sum(axis=1, keepdims=True) * 1e4)
    adata = anndata.AnnData(sp.csr_matrix(logged))
    adata.obs["kind"] = kind.astype(str)
    adata.obs_names = [f"cell{i}" for i in range(300)]
    return adata, kind


def test_pca_writes_scanpys_keys_and_equals_the_estimator(cells):
    adata, _ = cells
    la.pca(adata, n_comps=20)
    direct = lowdim.PCA(20, random_state=0).fit(adata.X)
    assert adata.obsm["X_pca"].shape == (300, 20) and adata.varm["PCs"].shape == (120, 20)
    np.testing.assert_allclose(adata.uns["pca"]["variance_ratio"], direct.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(np.abs(adata.obsm["X_pca"]), np.abs(direct.transform(adata.X)), atol=1e-8)


def test_pca_reads_the_highly_variable_genes_as_scanpys_does(cells, tmp_path):
    # after sc.pp.highly_variable_genes, scanpy's pca reads those genes only; lowdim's read
    # every gene, so the drop-in gave other components without a word
    import scanpy as sc

    adata, _ = cells
    adata.var["highly_variable"] = np.arange(120) % 3 == 0
    ours, theirs = adata.copy(), adata.copy()
    la.pca(ours, n_comps=10)
    sc.pp.pca(theirs, n_comps=10)
    genes = adata.var["highly_variable"].to_numpy()
    direct = lowdim.PCA(10, random_state=0).fit(adata.X[:, genes])
    np.testing.assert_allclose(np.abs(ours.obsm["X_pca"]), np.abs(direct.transform(adata.X[:, genes])), atol=1e-8)
    assert np.all(ours.varm["PCs"][~genes] == 0) and np.all(np.any(ours.varm["PCs"][genes] != 0, axis=1))
    assert ours.uns["pca"]["params"]["mask_var"] == theirs.uns["pca"]["params"]["mask_var"] == "highly_variable"
    scale = np.abs(theirs.obsm["X_pca"]).max()  # scanpy's float32 scores: agreement to float32's digits
    np.testing.assert_allclose(np.abs(ours.obsm["X_pca"]), np.abs(theirs.obsm["X_pca"]), atol=1e-4 * scale)
    adata.write_h5ad(tmp_path / "cells.h5ad")  # a file read backed: the same genes, streamed
    backed = anndata.read_h5ad(tmp_path / "cells.h5ad", backed="r")
    la.pca(backed, n_comps=10)
    np.testing.assert_allclose(np.abs(backed.obsm["X_pca"]), np.abs(ours.obsm["X_pca"]), atol=1e-8 * scale)
    la.pca(ours, n_comps=10, mask_var=None)
    assert ours.uns["pca"]["params"]["mask_var"] is None and np.all(np.any(ours.varm["PCs"] != 0, axis=1))
    with pytest.raises(KeyError, match="mask_var='hvg': adata.var has no such column .*highly_variable"):
        la.pca(adata, n_comps=5, mask_var="hvg")
    with pytest.raises(ValueError, match="mask_var must mark each of the 120 genes True or False"):
        la.pca(adata, n_comps=5, mask_var=genes[:10])


def test_pca_without_centring_is_the_truncated_svd_as_scanpys(cells, tmp_path):
    adata, _ = cells
    la.pca(adata, n_comps=5, zero_center=False)
    direct = lowdim.TruncatedSVD(5, random_state=0).fit(adata.X)
    np.testing.assert_allclose(np.abs(adata.obsm["X_pca"]), np.abs(direct.transform(adata.X)), atol=1e-8)
    first = adata.varm["PCs"][:, 0]  # of non-negative data, uncentred: one sign throughout (Perron-Frobenius)
    assert np.all(first > 0) or np.all(first < 0)
    assert adata.uns["pca"]["params"]["zero_center"] is False
    adata.write_h5ad(tmp_path / "cells.h5ad")
    with pytest.raises(ValueError, match="zero_center=False reads adata.X in memory, and it is left in its file"):
        la.pca(anndata.read_h5ad(tmp_path / "cells.h5ad", backed="r"), n_comps=5, zero_center=False)


@pytest.mark.parametrize("dense", [False, True])
def test_pca_streams_a_backed_file_in_chunks_and_later_steps_say_what_they_need(cells, tmp_path, monkeypatch, dense):
    adata, kind = cells
    if dense:
        adata.X = adata.X.toarray()
    adata.write_h5ad(tmp_path / "cells.h5ad")
    backed = anndata.read_h5ad(tmp_path / "cells.h5ad", backed="r")
    read = []
    monkeypatch.setattr("lowdim.anndata._common.CHUNK_VALUES", 120 * 64)  # 64 rows a chunk: 5 chunks
    original = la._pca._row_chunks
    monkeypatch.setattr(la._pca, "_row_chunks", lambda *a: (read.append(c.shape[0]) or c for c in original(*a)))
    la.pca(backed, n_comps=10)
    la.pca(adata, n_comps=10)
    assert read == [64, 64, 64, 64, 44] * 2  # one pass to fit, one to place; never the whole file
    np.testing.assert_allclose(backed.uns["pca"]["variance_ratio"], adata.uns["pca"]["variance_ratio"], rtol=1e-8)
    scale = np.abs(adata.obsm["X_pca"]).max()
    np.testing.assert_allclose(backed.obsm["X_pca"], adata.obsm["X_pca"], atol=1e-6 * scale)
    la.neighbors(backed)
    la.leiden(backed)
    assert adjusted_rand_score(kind, backed.obs["leiden"].to_numpy()) > 0.9
    with pytest.raises(ValueError, match="left in its file .* Run lowdim.anndata.pca first .* adata.to_memory"):
        la.neighbors(backed, use_rep="X")


def test_neighbors_store_the_exact_graph_as_scanpy_lays_it_out(cells):
    adata, _ = cells
    la.pca(adata, n_comps=20)
    la.neighbors(adata, n_neighbors=10)
    D = adata.obsp["distances"]
    assert D.shape == (300, 300) and set(D.getnnz(axis=1)) == {9} and D.diagonal().sum() == 0
    Z = adata.obsm["X_pca"]
    full = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))
    np.fill_diagonal(full, np.inf)
    kth = np.sort(full, axis=1)[:, 8]
    np.testing.assert_allclose(D.max(axis=1).toarray().ravel(), kth, rtol=1e-5)
    C = adata.obsp["connectivities"]
    assert abs(C - C.T).max() < 1e-6 and C.max() <= 1.0
    info = adata.uns["neighbors"]
    assert info["connectivities_key"] == "connectivities" and info["distances_key"] == "distances"
    assert info["params"]["n_neighbors"] == 10 and info["params"]["method"] == "umap"


def test_umap_and_leiden_read_the_stored_graph_without_searching_again(cells, monkeypatch):
    adata, kind = cells
    la.pca(adata, n_comps=20)
    la.neighbors(adata, n_neighbors=15)

    def no_search(*args, **kwargs):
        raise AssertionError("a second neighbour search")

    # every estimator's search goes through search_neighbors, which makes its index here
    monkeypatch.setattr("lowdim.neighbors._search.make_index", no_search)
    monkeypatch.setattr("lowdim.neighbors.NeighborGraph.build", no_search)
    la.umap(adata)
    la.leiden(adata, resolution=0.3)
    assert adata.obsm["X_umap"].shape == (300, 2) and np.isfinite(adata.obsm["X_umap"]).all()
    assert set(adata.uns["umap"]["params"]) == {"a", "b"}
    assert str(adata.obs["leiden"].dtype) == "category"
    assert adjusted_rand_score(kind, adata.obs["leiden"].astype(int).to_numpy()) > 0.9


def test_umap_takes_scanpys_alpha_and_gamma(cells):
    # scanpy's first step (alpha) and repulsion weight (gamma): the call failed on them
    adata, kind = cells
    la.pca(adata, n_comps=20)
    la.neighbors(adata)
    spreads = []
    for gamma in (1.0, 4.0):
        la.umap(adata, gamma=gamma)
        spreads.append(np.mean([np.median(pdist(adata.obsm["X_umap"][kind == k])) for k in range(3)]))
    assert spreads[1] > 1.3 * spreads[0]  # more repulsion spreads each cell type (2.1 -> 3.7 here)
    maps = {}
    for alpha, epochs in [(1e-9, 20), (1e-9, 200), (1.0, 20), (1.0, 200)]:
        la.umap(adata, alpha=alpha, maxiter=epochs, init_pos="pca")
        maps[alpha, epochs] = adata.obsm["X_umap"].copy()
    size = np.ptp(maps[1.0, 200])
    assert np.abs(maps[1e-9, 200] - maps[1e-9, 20]).max() < 1e-6 * size  # no step: more epochs move nothing
    assert np.abs(maps[1.0, 200] - maps[1.0, 20]).max() > 0.1 * size


@pytest.mark.parametrize("searched_exactly", [True, False])
def test_a_subset_of_the_cells_gets_its_own_graph_not_the_fewest_neighbours_left(cells, monkeypatch, searched_exactly):
    # adata[keep] keeps obsp's rows and columns of the kept cells: cells lose neighbours,
    # and the map was built from as many as the poorest cell kept (3 or 4 instead of 14).
    # A few such cells are searched exactly, many make the whole graph searched again
    adata, kind = cells
    la.pca(adata, n_comps=20)
    la.neighbors(adata, n_neighbors=15)
    subset = adata[np.random.default_rng(0).random(300) < 0.6].copy()
    fewest = int((subset.obsp["distances"].getnnz(axis=1)).min())
    assert fewest < 14
    fresh = subset.copy()
    la.neighbors(fresh, n_neighbors=15)
    la.umap(fresh)
    if searched_exactly:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            warnings.filterwarnings("ignore", message=".*connected components")
            la.umap(subset)
    else:
        monkeypatch.setattr("lowdim.anndata._neighbors.SHORT_ROWS_SEARCHED", 10)
        with pytest.warns(
            UserWarning, match=rf"describes 14 neighbours per cell, but \d+ cells hold fewer .*fewest: {fewest}"
        ):
            la.umap(subset)
    # the graph the map is built from is the subset's own (sets of neighbours: ties may
    # be ordered otherwise), and the map keeps the neighbourhoods a fresh one keeps
    graph, _ = la._neighbors._stored_knn(subset, None, "umap")
    dist, idx = graph.neighbors(14)
    D = fresh.obsp["distances"].tocsr()
    for i in range(D.shape[0]):
        row = slice(D.indptr[i], D.indptr[i + 1])
        assert set(idx[i]) == set(D.indices[row])
        np.testing.assert_allclose(np.sort(dist[i]), np.sort(D.data[row]), rtol=1e-5)
    scores = [lowdim.metrics.trustworthiness(subset.obsm["X_pca"], a.obsm["X_umap"]) for a in (subset, fresh)]
    assert abs(scores[0] - scores[1]) < 0.01


def test_a_scanpy_graph_that_lists_a_cell_among_its_own_neighbours_is_completed_exactly():
    # copies of a cell: scanpy's search may return a copy first and keep the cell itself,
    # stored at distance 0; the cell then holds one neighbour too few (this failed)
    sc = pytest.importorskip("scanpy")
    X = np.random.default_rng(0).normal(size=(200, 10)).astype(np.float32)
    X[100:110] = X[0]
    adata = anndata.AnnData(X)
    # scanpy's exact search and its own kernel: its distance graph, without compiling
    # umap-learn and pynndescent (30 s of the suite); lowdim's umap reads the distances
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the kernel's 0/0 between copies
        sc.pp.neighbors(adata, n_neighbors=10, use_rep="X", transformer="sklearn", method="gauss")
    D = adata.obsp["distances"].tocsr()
    assert any(i in D.indices[D.indptr[i] : D.indptr[i + 1]] for i in range(200))  # the case is there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the copies' own warning
        la.umap(adata)
    assert adata.obsm["X_umap"].shape == (200, 2) and np.isfinite(adata.obsm["X_umap"]).all()


def test_neighbors_takes_scanpys_metric_kwds(cells):
    # the call failed on the unknown argument; the parameters reach the search and uns
    from scipy.spatial.distance import cdist

    adata, _ = cells
    la.pca(adata, n_comps=10)
    la.neighbors(adata, n_neighbors=6, metric="minkowski", metric_kwds={"p": 3})
    scores = adata.obsm["X_pca"]
    exact = cdist(scores, scores, "minkowski", p=3)
    np.fill_diagonal(exact, np.inf)
    stored = adata.obsp["distances"]
    for i in range(0, 300, 37):
        row = stored[i]
        assert set(row.indices) == set(np.argsort(exact[i])[:5])
        np.testing.assert_allclose(np.sort(row.data), np.sort(exact[i])[:5], rtol=1e-5)
    assert adata.uns["neighbors"]["params"]["metric_kwds"] == {"p": 3}


def test_tsne_takes_scanpys_metric(cells):
    # scanpy users pass metric='cosine' to tl.tsne; the call failed on the unknown argument
    adata, _ = cells
    adata = adata[:120].copy()
    la.tsne(adata, use_rep="X", perplexity=10, metric="cosine")
    direct = lowdim.TSNE(perplexity=10, metric="cosine", random_state=0).fit_transform(adata.X)
    np.testing.assert_array_equal(adata.obsm["X_tsne"], direct)
    assert adata.uns["tsne"]["params"]["metric"] == "cosine"


def test_every_result_survives_an_h5ad_round_trip(cells, tmp_path):
    adata, kind = cells
    la.pca(adata, n_comps=10)
    la.neighbors(adata, n_neighbors=10)
    la.umap(adata)
    la.tsne(adata, perplexity=10)
    la.leiden(adata, resolution=0.3)
    la.louvain(adata, resolution=0.3)
    la.kmeans(adata, 3)
    la.hdbscan(adata, 20)
    la.pacmap(adata)
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    back = anndata.read_h5ad(path)
    for key in ("X_pca", "X_umap", "X_tsne", "X_pacmap"):
        np.testing.assert_array_equal(back.obsm[key], adata.obsm[key])
    for key in ("leiden", "louvain", "kmeans", "hdbscan", "kind"):
        assert back.obs[key].astype(str).tolist() == adata.obs[key].astype(str).tolist()
    assert (back.obsp["distances"] != adata.obsp["distances"]).nnz == 0
    assert back.uns["neighbors"]["params"]["n_neighbors"] == 10
    assert adjusted_rand_score(kind, back.obs["kmeans"].astype(int).to_numpy()) > 0.9


def test_copy_leaves_the_input_alone_and_other_objects_are_named(cells):
    adata, _ = cells
    result = la.pca(adata, n_comps=5, copy=True)
    assert "X_pca" in result.obsm and "X_pca" not in adata.obsm
    with pytest.raises(TypeError, match="expected an AnnData object; got ndarray"):
        la.pca(np.ones((5, 3)))
    with pytest.raises(KeyError, match="run lowdim.anndata.neighbors"):
        la.umap(adata)
    with pytest.raises(KeyError, match="obsm has no 'X_scvi'"):
        la.neighbors(adata, use_rep="X_scvi")


def test_an_estimator_given_an_anndata_says_what_to_pass(cells):
    adata, _ = cells
    with pytest.raises(TypeError, match=r"PCA got an AnnData object.*adata.X.*lowdim.anndata.pca\(adata\)"):
        lowdim.PCA(5).fit(adata)
    assert lowdim.PCA(5).fit_transform(adata.X).shape == (300, 5)


def _h5ad(tmp_path):
    rng = np.random.default_rng(1)
    adata = anndata.AnnData(sp.csr_matrix(rng.poisson(1.0, (150, 30)).astype(np.float32)))
    adata.obs["kind"] = np.repeat(["x", "y", "z"], 50)
    adata.obs_names = [f"c{i}" for i in range(150)]
    adata.obsm["X_pca"] = np.vstack([rng.normal(c, 0.3, (50, 5)) for c in (0, 4, 8)])
    adata.layers["counts"] = adata.X.copy()
    adata.uns["note"] = "kept"
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path


def test_cli_writes_results_into_a_copy_of_the_h5ad_input(tmp_path, capsys):
    from lowdim.cli.main import main

    source = _h5ad(tmp_path)
    before = source.read_bytes()
    out, clustered = tmp_path / "out.h5ad", tmp_path / "clusters.h5ad"
    assert main(["embed", str(source), "--obsm", "X_pca", "-m", "umap", "-o", str(out)]) == 0
    assert main(["cluster", str(out), "--obsm", "X_umap", "-m", "kmeans", "-k", "3", "-o", str(clustered)]) == 0
    assert source.read_bytes() == before  # the input is never written
    result = anndata.read_h5ad(clustered)
    original = anndata.read_h5ad(source)
    assert set(result.obsm) == {"X_pca", "X_umap"} and result.uns["note"] == "kept"
    assert (result.X != original.X).nnz == 0 and (result.layers["counts"] != original.layers["counts"]).nnz == 0
    assert result.obs["kind"].tolist() == original.obs["kind"].tolist()
    assert list(result.obs_names) == list(original.obs_names)
    assert str(result.obs["kmeans"].dtype) == "category"
    assert adjusted_rand_score(original.obs["kind"], result.obs["kmeans"].astype(int)) == 1.0
    # UMAP's neighbour graph as scanpy.pp.neighbors keeps it: 14 others per cell, memberships beside
    params = {"n_neighbors": 15, "method": "umap", "metric": "euclidean", "use_rep": "X_pca"}
    assert result.uns["neighbors"]["params"] == params  # scanpy's keys, as pp.neighbors(use_rep=...) writes
    assert np.all(result.obsp["distances"].getnnz(axis=1) == 14)
    graph = lowdim.NeighborGraph.build(original.obsm["X_pca"], 14)
    assert abs(result.obsp["distances"] - graph.to_csr()).max() < 1e-5
    assert (result.obsp["connectivities"] != result.obsp["connectivities"].T).nnz == 0
    again = ["embed", str(out), "--obsm", "X_pca", "-m", "umap", "-o", str(tmp_path / "again.h5ad")]
    assert main(again) == 2
    assert "already holds obsm['X_umap']; pass --overwrite-key" in capsys.readouterr().err
    assert not (tmp_path / "again.h5ad").exists()
    assert main([*again, "--overwrite-key"]) == 0
    graph_only = anndata.read_h5ad(out)
    del graph_only.obsm["X_umap"]
    # a graph the input holds (scanpy's pp.neighbors) is kept, said: the map is the result
    graph_only.uns["neighbors"]["params"]["n_neighbors"] = 7  # marks the input's graph
    graph_only.write_h5ad(tmp_path / "graph.h5ad")
    third = ["embed", str(tmp_path / "graph.h5ad"), "--obsm", "X_pca", "-m", "umap", "-o", str(tmp_path / "g.h5ad")]
    assert main(third) == 0
    assert "its neighbour graph is kept in the output (--overwrite-key writes umap's)" in capsys.readouterr().out
    kept = anndata.read_h5ad(tmp_path / "g.h5ad")
    assert kept.uns["neighbors"]["params"]["n_neighbors"] == 7 and kept.obsm["X_umap"].shape == (150, 2)
    assert main([*third[:-1], str(tmp_path / "w.h5ad"), "--overwrite-key"]) == 0
    assert anndata.read_h5ad(tmp_path / "w.h5ad").uns["neighbors"]["params"]["n_neighbors"] == 15


def test_clusters_found_on_a_map_are_written_with_the_map(tmp_path, capsys):
    """``cluster --on umap -o out.h5ad``: scanpy plots clusters on the map they came from
    (``sc.pl.umap(adata, color='kmeans')``), so the map goes into obsm beside them."""
    from lowdim.cli.main import main

    source, out = _h5ad(tmp_path), tmp_path / "out.h5ad"
    argv = ["cluster", str(source), "--obsm", "X_pca", "-m", "kmeans", "-k", "3", "--on", "umap", "-o", str(out)]
    assert main(argv) == 0
    assert "wrote " + str(out) + " (obs['kmeans'], obsm['X_umap'])" in capsys.readouterr().out
    result = anndata.read_h5ad(out)
    assert set(result.obsm) == {"X_pca", "X_umap"} and result.obsm["X_umap"].shape == (150, 2)
    centres = [
        result.obsm["X_umap"][result.obs["kmeans"] == c].mean(axis=0) for c in result.obs["kmeans"].cat.categories
    ]
    nearest = np.argmin([[np.sum((p - c) ** 2) for c in centres] for p in result.obsm["X_umap"]], axis=1)
    assert adjusted_rand_score(nearest, result.obs["kmeans"].astype(int)) == 1.0  # k-means of this very map
    again = ["cluster", str(out), "--obsm", "X_pca", "-m", "hdbscan", "--on", "umap", "-o", str(tmp_path / "b.h5ad")]
    assert main(again) == 2 and "already holds obsm['X_umap']" in capsys.readouterr().err
    assert not (tmp_path / "b.h5ad").exists()


def test_leiden_from_the_cli_writes_the_graph_it_partitioned_as_scanpy_does(tmp_path, capsys):
    """``cluster -m leiden -o out.h5ad``: the clusters and the neighbour graph they came
    from, so scanpy's UMAP (and anything else that reads ``uns['neighbors']``) runs on it."""
    sc = pytest.importorskip("scanpy")
    from lowdim.cli.main import main

    source, out = _h5ad(tmp_path), tmp_path / "out.h5ad"
    argv = ["cluster", str(source), "--obsm", "X_pca", "-m", "leiden", "-o", str(out)]
    assert main(argv) == 0
    assert f"wrote {out} (obs['leiden'], obsp['distances'], obsp['connectivities'], uns['neighbors'])" in (
        capsys.readouterr().out
    )
    result = anndata.read_h5ad(out)
    fitted = lowdim.Leiden(random_state=0).fit(result.obsm["X_pca"])
    assert adjusted_rand_score(result.obs["leiden"].astype(int), fitted.labels_) == 1.0
    assert abs(result.obsp["connectivities"] - fitted.graph_).max() < 1e-6  # the graph the clusters came from
    assert abs(result.obsp["distances"] - lowdim.NeighborGraph.build(result.obsm["X_pca"], 14).to_csr()).max() < 1e-5
    params = {"n_neighbors": 15, "method": "umap", "metric": "euclidean", "use_rep": "X_pca"}
    assert result.uns["neighbors"]["params"] == params
    sc.tl.umap(result, random_state=0)  # scanpy's own UMAP reads that graph
    assert result.obsm["X_umap"].shape == (150, 2)
    # a plain kNN graph is not UMAP's memberships: scanpy's UMAP is told so by 'method'
    knn = tmp_path / "knn.h5ad"
    assert main([*argv[:-1], str(knn), "--param", "graph=knn"]) == 0
    assert anndata.read_h5ad(knn).uns["neighbors"]["params"]["method"] == "knn"
    # an input that holds a graph (scanpy's, or UMAP's from `embed`) keeps it, said; the
    # clusters are the result, so the run goes on; --overwrite-key writes the new graph
    again = ["cluster", str(out), "--obsm", "X_pca", "-m", "louvain", "--param", "n_neighbors=10", "-o"]
    assert main([*again, str(tmp_path / "kept.h5ad")]) == 0
    assert "its neighbour graph is kept in the output (--overwrite-key writes louvain's)" in capsys.readouterr().out
    kept = anndata.read_h5ad(tmp_path / "kept.h5ad")
    assert set(kept.obs) >= {"leiden", "louvain"} and kept.uns["neighbors"]["params"]["n_neighbors"] == 15
    assert main([*again, str(tmp_path / "new.h5ad"), "--overwrite-key"]) == 0
    replaced = anndata.read_h5ad(tmp_path / "new.h5ad")
    assert replaced.uns["neighbors"]["params"]["n_neighbors"] == 10
    assert np.all(replaced.obsp["distances"].getnnz(axis=1) == 9)


def test_transform_of_an_h5ad_without_the_obsm_its_model_read_names_the_option(tmp_path, capsys):
    from lowdim.cli.main import main

    source, model = _h5ad(tmp_path), tmp_path / "m.lowdim"
    assert main(["embed", str(source), "--obsm", "X_pca", "-m", "pca", "-k", "2", "--save-model", str(model)]) == 0
    out = tmp_path / "t.csv"
    assert main(["transform", str(model), str(source), "-o", str(out)]) == 2  # X (30 genes), not X_pca
    assert "(an .h5ad's obsm['X_pca']: pass --obsm X_pca)" in capsys.readouterr().err
    assert main(["transform", str(model), str(source), "--obsm", "X_pca", "-o", str(out)]) == 0


@pytest.mark.parametrize("name", ["leiden", "louvain"])
def test_restrict_to_sub_clusters_some_clusters_on_the_graph_between_their_cells(name):
    # scanpy's restrict_to, for sub-clustering: the call failed on the unknown argument
    rng = np.random.default_rng(0)
    adata = anndata.AnnData(np.vstack([rng.normal(c, 1.0, (150, 5)) for c in (0, 6, 12)]))
    la.neighbors(adata, n_neighbors=15, use_rep="X")
    run = getattr(la, name)
    run(adata, resolution=0.1)
    first = adata.obs[name].astype(str).to_numpy()
    assert sorted(set(first)) == ["0", "1", "2"]
    run(adata, resolution=1.0, restrict_to=(name, ["0"]))
    result, inside = adata.obs[f"{name}_R"].astype(str).to_numpy(), first == "0"
    assert np.array_equal(result[~inside], first[~inside])  # the other cells keep their clusters
    subset = adata[inside].copy()  # keeps the graph between its cells: the same clustering
    run(subset, resolution=1.0)
    assert np.array_equal(result[inside], ["0," + c for c in subset.obs[name].astype(str)])
    assert len(set(result[inside])) >= 2
    assert adata.obs[f"{name}_R"].cat.categories[-2:].tolist() == ["1", "2"]  # '0,0', '0,1', ... first
    with pytest.raises(ValueError, match=f"restrict_to: obs\\['{name}'\\] has no category '7'; it has 0, 1, 2"):
        run(adata, restrict_to=(name, ["7"]))


@pytest.mark.parametrize("name", ["leiden", "louvain"])
def test_another_graph_is_partitioned_when_given_by_adjacency_or_obsp(name):
    # scanpy's adjacency= and obsp=: the call failed on the unknown argument
    rng = np.random.default_rng(0)
    adata = anndata.AnnData(np.vstack([rng.normal(c, 1.0, (100, 5)) for c in (0, 6)]))
    la.neighbors(adata, n_neighbors=15, use_rep="X")
    run = getattr(la, name)
    blocks = sp.block_diag([np.ones((50, 50))] * 4, format="csr")  # four cliques that cut across the two groups
    blocks.setdiag(0)
    run(adata, adjacency=blocks, resolution=1.0)
    assert adjusted_rand_score(np.repeat(np.arange(4), 50), adata.obs[name].astype(int)) == 1.0
    adata.obsp["cliques"] = blocks
    run(adata, obsp="cliques", resolution=1.0, key_added="again")
    assert adjusted_rand_score(adata.obs[name].astype(int), adata.obs["again"].astype(int)) == 1.0
    run(adata, resolution=0.1)  # the stored neighbours again: the two groups
    assert adata.obs[name].nunique() == 2
    with pytest.raises(KeyError, match="obsp='nosuch': adata.obsp has no such graph; it holds distances"):
        run(adata, obsp="nosuch")
    with pytest.raises(ValueError, match="the adjacency is 3 x 3, but adata has 200 cells"):
        run(adata, adjacency=sp.eye(3, format="csr"))


def test_transform_to_h5ad_writes_into_a_copy_of_the_input_as_embed_and_cluster_do(tmp_path, capsys):
    # it wrote a new AnnData of the result alone: the cells' genes, obs, layers and uns were lost
    from lowdim.cli.main import main

    source, model, clusters = _h5ad(tmp_path), tmp_path / "m.lowdim", tmp_path / "c.lowdim"
    before = source.read_bytes()
    assert main(["embed", str(source), "--obsm", "X_pca", "-m", "kernel-pca", "--save-model", str(model)]) == 0
    assert (
        main(["cluster", str(source), "--obsm", "X_pca", "-m", "kmeans", "-k", "3", "--save-model", str(clusters)]) == 0
    )
    out, both = tmp_path / "out.h5ad", tmp_path / "both.h5ad"
    assert main(["transform", str(model), str(source), "--obsm", "X_pca", "-o", str(out)]) == 0
    assert main(["transform", str(clusters), str(out), "--obsm", "X_pca", "-o", str(both)]) == 0
    result, original = anndata.read_h5ad(both), anndata.read_h5ad(source)
    assert result.shape == original.shape and result.uns["note"] == "kept" and "counts" in result.layers
    assert result.obs["kind"].tolist() == original.obs["kind"].tolist()
    assert result.obsm["X_kernel-pca"].shape == (150, 2) and result.obs["kmeans"].nunique() == 3
    assert source.read_bytes() == before
    capsys.readouterr()
    assert main(["transform", str(model), str(both), "--obsm", "X_pca", "-o", str(tmp_path / "again.h5ad")]) == 2
    assert "already holds obsm['X_kernel-pca']; pass --overwrite-key" in capsys.readouterr().err


def test_a_table_written_as_h5ad_is_a_new_anndata_of_its_rows(tmp_path):
    from lowdim.cli.main import main

    path = tmp_path / "t.csv"
    path.write_text(",a,b,c,kind\n" + "".join(f"r{i},{i % 5},{i % 3},{i % 7},{'uv'[i % 2]}\n" for i in range(40)))
    out = tmp_path / "t.h5ad"
    assert main(["pca", str(path), "-k", "2", "--label-column", "kind", "-o", str(out)]) == 0
    result = anndata.read_h5ad(out)
    assert result.obsm["X_pca"].shape == (40, 2) and list(result.obs_names[:2]) == ["r0", "r1"]
    assert result.obs["kind"].tolist()[:2] == ["u", "v"]


def test_a_gene_name_that_several_columns_carry_is_refused_by_name(tmp_path, capsys):
    # scanpy's files may repeat gene symbols; --columns showed the last one, or with --obsm
    # failed with "rows were dropped (--missing drop)"
    from lowdim.cli.main import main

    adata = anndata.read_h5ad(_h5ad(tmp_path))
    adata.var_names = ["7" if j == 3 else str(j) for j in range(adata.n_vars)]  # columns 4 and 8 are gene '7'
    path = tmp_path / "repeated.h5ad"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anndata's own warning about the repeated names
        adata.write_h5ad(path)
    for matrix in ([], ["--obsm", "X_pca"]):
        argv = [
            "explore",
            str(path),
            *matrix,
            "--methods",
            "pca",
            "--columns",
            "kind,7",
            "-o",
            str(tmp_path / "m.html"),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(argv) == 2
        assert re.search(r"'7' names 2 columns of \S+ \(columns 4, 8\); make the names unique", capsys.readouterr().err)


def test_explore_colours_an_h5ad_map_by_obs_columns_and_genes(tmp_path):
    from test_explore import unpack

    from lowdim.cli.main import main

    source = _h5ad(tmp_path)
    out = tmp_path / "map.html"
    argv = ["explore", str(source), "--obsm", "X_pca", "--methods", "pca", "--columns", "kind,3,X_pca_1"]
    assert main([*argv, "-o", str(out)]) == 0
    header, blob = unpack(out.read_text())
    fields = {f["name"]: f for f in header["fields"]}
    assert fields["kind"]["kind"] == "category" and fields["kind"]["categories"] == ["x", "y", "z"]
    gene = anndata.read_h5ad(source)[:, "3"].X.toarray().ravel()  # gene '3' of X, beside obsm['X_pca']
    np.testing.assert_array_equal(blob(fields["3"]), gene.astype(blob(fields["3"]).dtype))
    assert fields["X_pca_1"]["kind"] == "number"
    assert main([*argv[:-1], "nope", "-o", str(tmp_path / "m2.html")]) == 2


def _cliques_joined_weakly():
    """Four 50-cell cliques (weight 1); cliques 0-1 and 2-3 joined by every pair at weight
    0.001: unweighted, two communities of two cliques; weighted, the four cliques."""
    A = sp.block_diag([np.ones((50, 50))] * 4, format="lil")
    for a, b in ((0, 1), (2, 3)):
        A[a * 50 : a * 50 + 50, b * 50 : b * 50 + 50] = 0.001
        A[b * 50 : b * 50 + 50, a * 50 : a * 50 + 50] = 0.001
    A = sp.csr_matrix(A)
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def test_louvain_reads_the_graph_unweighted_and_leiden_weighted_by_default_as_scanpy():
    # scanpy's louvain counts every edge 1 unless use_weights=True; lowdim's used the
    # weights, so the drop-in gave another partition without a word
    sc = pytest.importorskip("scanpy")
    A, pairs, cliques = _cliques_joined_weakly(), np.repeat([0, 1], 100), np.repeat(np.arange(4), 50)
    adata = anndata.AnnData(np.zeros((200, 2)))
    la.louvain(adata, adjacency=A)
    assert adjusted_rand_score(pairs, adata.obs["louvain"].astype(int)) == 1.0
    assert adata.uns["louvain"]["params"]["use_weights"] is False
    sc.tl.louvain(adata, adjacency=A, flavor="igraph", key_added="scanpy")  # scanpy's own, the same default
    assert adjusted_rand_score(pairs, adata.obs["scanpy"].astype(int)) == 1.0
    la.louvain(adata, adjacency=A, use_weights=True)
    assert adjusted_rand_score(cliques, adata.obs["louvain"].astype(int)) == 1.0
    la.leiden(adata, adjacency=A)
    assert adjusted_rand_score(cliques, adata.obs["leiden"].astype(int)) == 1.0
    la.leiden(adata, adjacency=A, use_weights=False, directed=True)  # symmetric: directed or not, one modularity
    assert adjusted_rand_score(pairs, adata.obs["leiden"].astype(int)) == 1.0


def test_scanpys_clustering_args_reach_the_leiden_run():
    # sc.tl.leiden(..., **clustering_args) failed on the unknown arguments
    A, cliques = _cliques_joined_weakly(), np.repeat(np.arange(4), 50)
    adata = anndata.AnnData(np.zeros((200, 2)))
    start = np.arange(200) // 50  # the cliques themselves, kept by a run of no pass
    la.leiden(adata, adjacency=A, n_iterations=0, initial_membership=start, beta=0.05)
    assert adjusted_rand_score(cliques, adata.obs["leiden"].astype(int)) == 1.0
    assert adata.uns["leiden"]["params"]["partition_params"]["beta"] == 0.05
    la.leiden(adata, adjacency=A, flavor="leidenalg", max_comm_size=60)
    direct = lowdim.Leiden(graph="precomputed", flavor="leidenalg", n_iterations=-1, random_state=0)
    expected = direct.set_params(partition_params={"max_comm_size": 60}).fit(A).labels_
    assert adjusted_rand_score(expected, adata.obs["leiden"].astype(int)) == 1.0
    with pytest.raises(ValueError, match="partition_params\\['max_comm_size'\\] is not an option of flavor='igraph'"):
        la.leiden(adata, adjacency=A, max_comm_size=60)


def test_partition_types_of_modularity_are_taken_and_other_objectives_refused_with_the_fix():
    leidenalg = pytest.importorskip("leidenalg")
    A, cliques = _cliques_joined_weakly(), np.repeat(np.arange(4), 50)
    adata = anndata.AnnData(np.zeros((200, 2)))
    for partition in (None, leidenalg.RBConfigurationVertexPartition, leidenalg.ModularityVertexPartition):
        la.leiden(adata, adjacency=A, partition_type=partition)
        assert adjusted_rand_score(cliques, adata.obs["leiden"].astype(int)) == 1.0
    la.louvain(adata, adjacency=A, use_weights=True, partition_kwargs={"resolution_parameter": 1e-4})
    pairs = np.repeat([0, 1], 100)  # so low a resolution joins the weakly joined cliques
    assert adjusted_rand_score(pairs, adata.obs["louvain"].astype(int)) == 1.0
    assert adata.uns["louvain"]["params"]["resolution"] == 1e-4
    with pytest.raises(ValueError, match="partition_type=CPMVertexPartition: lowdim's leiden optimises modularity"):
        la.leiden(adata, adjacency=A, partition_type=leidenalg.CPMVertexPartition)
    with pytest.raises(ValueError, match="ModularityVertexPartition has no resolution .it is 1., but resolution=0.5"):
        la.leiden(adata, adjacency=A, partition_type=leidenalg.ModularityVertexPartition, resolution=0.5)
    with pytest.raises(ValueError, match="partition_kwargs=.'weights': 'w'.: only 'resolution_parameter'"):
        la.louvain(adata, adjacency=A, partition_kwargs={"weights": "w"})
    with pytest.raises(ValueError, match="flavor='rapids': lowdim's louvain has 'vtraag' and 'igraph'"):
        la.louvain(adata, adjacency=A, flavor="rapids")


def test_pca_takes_scanpys_svd_solver_chunked_and_dtype(cells):
    # sc.pp.pca(adata, svd_solver='arpack'), the tutorials' call, failed on the unknown argument
    import scanpy as sc

    adata, _ = cells
    dense = adata.copy()
    dense.X = dense.X.toarray()
    base = dense.copy()
    la.pca(base, n_comps=10, dtype="float64")
    assert base.obsm["X_pca"].dtype == np.float64
    for solver in ("arpack", "randomized", "full", "covariance_eigh", "auto"):
        ours, theirs = dense.copy(), dense.copy()
        la.pca(ours, n_comps=10, svd_solver=solver)
        sc.pp.pca(theirs, n_comps=10, svd_solver=solver)
        assert ours.obsm["X_pca"].dtype == theirs.obsm["X_pca"].dtype == np.float32, solver
        assert ours.uns["pca"]["params"]["svd_solver"] == solver
        found, exact = ours.uns["pca"]["variance"].sum(), base.uns["pca"]["variance"].sum()
        if solver == "randomized":  # an approximate subspace: never more variance than the top 10 hold
            assert 0.99 * exact <= found <= exact * (1 + 1e-12)
            continue
        np.testing.assert_allclose(ours.uns["pca"]["variance"], base.uns["pca"]["variance"], rtol=1e-6)
        np.testing.assert_allclose(ours.uns["pca"]["variance_ratio"], theirs.uns["pca"]["variance_ratio"], rtol=1e-4)
    chunked = dense.copy()
    la.pca(chunked, n_comps=10, chunked=True, chunk_size=7)  # exact moments: the whole matrix's components
    np.testing.assert_allclose(chunked.uns["pca"]["variance"], base.uns["pca"]["variance"], rtol=1e-9)
    scale = np.abs(base.obsm["X_pca"]).max()
    np.testing.assert_allclose(np.abs(chunked.obsm["X_pca"]), np.abs(base.obsm["X_pca"]), atol=1e-6 * scale)
    la.pca(adata, n_comps=10, chunked=True, chunk_size=50)  # sparse rows alike
    np.testing.assert_allclose(adata.uns["pca"]["variance"], base.uns["pca"]["variance"], rtol=1e-9)
    with pytest.raises(ValueError, match="svd_solver='lobpcg': lowdim's pca takes 'auto', 'full'"):
        la.pca(dense, svd_solver="lobpcg")
    with pytest.raises(ValueError, match="svd_solver='full' with zero_center=False: lowdim's pca takes 'arpack'"):
        la.pca(dense, zero_center=False, svd_solver="full")
    with pytest.raises(ValueError, match="chunked=True fits centred components; pass zero_center=True"):
        la.pca(dense, chunked=True, zero_center=False)


def test_neighbors_take_scanpys_gauss_method_and_transformer():
    # sc.pp.neighbors(adata, method='gauss'), the diffusion-pseudotime tutorials' call, and
    # transformer=: both failed on the unknown argument
    import scanpy as sc
    from sklearn.neighbors import KNeighborsTransformer

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, (150, 6)) for c in (0, 4)])
    ours, theirs = anndata.AnnData(X.copy()), anndata.AnnData(X.copy())
    la.neighbors(ours, n_neighbors=10, use_rep="X", method="gauss")
    sc.pp.neighbors(theirs, n_neighbors=10, use_rep="X", method="gauss")
    A, B = ours.obsp["connectivities"], theirs.obsp["connectivities"]
    assert ((A != 0) != (B != 0)).nnz == 0  # the same pairs: each cell's neighbours, made symmetric
    np.testing.assert_allclose(A.toarray(), B.toarray(), atol=4 * np.finfo(np.float32).eps)  # float32 storage
    assert ours.uns["neighbors"]["params"]["method"] == "gauss" and abs(A - A.T).max() == 0
    exact = anndata.AnnData(X.copy())
    la.neighbors(exact, n_neighbors=10, use_rep="X", transformer="sklearn")
    given = anndata.AnnData(X.copy())
    # as scanpy's, a transformer's own n_neighbors counts, whatever n_neighbors says
    la.neighbors(given, n_neighbors=15, use_rep="X", transformer=KNeighborsTransformer(n_neighbors=10))
    for key in ("distances", "connectivities"):
        assert abs(given.obsp[key] - exact.obsp[key]).max() == 0, key
    assert given.uns["neighbors"]["params"]["n_neighbors"] == 10
    la.neighbors(given, n_neighbors=10, use_rep="X", transformer="pynndescent")  # approximate: nearly all found
    assert (given.obsp["distances"] != 0).multiply(exact.obsp["distances"] != 0).nnz >= 0.95 * exact.obsp[
        "distances"
    ].nnz
    with pytest.raises(ValueError, match="knn=False connects every pair of cells"):
        la.neighbors(given, use_rep="X", knn=False)
    with pytest.raises(ValueError, match="method='rapids': lowdim's neighbors has 'umap' and 'gauss'"):
        la.neighbors(given, use_rep="X", method="rapids")
    with pytest.raises(ValueError, match="transformer='rapids': lowdim's neighbors takes 'sklearn'"):
        la.neighbors(given, use_rep="X", transformer="rapids")


def test_every_scanpy_parameter_of_the_drop_ins_is_taken():
    # a scanpy script with lowdim.anndata swapped in must not fail on an unknown argument
    import inspect

    import scanpy as sc

    pairs = {"pca": sc.pp.pca, "neighbors": sc.pp.neighbors, "umap": sc.tl.umap, "tsne": sc.tl.tsne}
    pairs.update(leiden=sc.tl.leiden, louvain=sc.tl.louvain)
    for name, theirs in pairs.items():
        wanted = set(inspect.signature(theirs).parameters) - {"data", "adata", "kwargs"}
        assert wanted <= set(inspect.signature(getattr(la, name)).parameters), (name, wanted)


def test_scanpys_older_and_gpu_spellings_map_or_are_refused_with_the_reason(cells):
    adata, _ = cells
    adata.var["highly_variable"] = np.arange(120) % 3 == 0
    older, newer = adata.copy(), adata.copy()
    la.pca(older, n_comps=5, use_highly_variable=True)
    la.pca(newer, n_comps=5, mask_var="highly_variable")
    np.testing.assert_array_equal(older.obsm["X_pca"], newer.obsm["X_pca"])
    la.pca(older, n_comps=5, use_highly_variable=False)
    assert older.uns["pca"]["params"]["mask_var"] is None and np.all(np.any(older.varm["PCs"] != 0, axis=1))
    with pytest.raises(ValueError, match="pass mask_var or use_highly_variable"):
        la.pca(adata, mask_var=None, use_highly_variable=True)
    with pytest.raises(ValueError, match="return_info=True is scanpy's for an array input"):
        la.pca(adata, return_info=True)
    la.tsne(adata, use_rep="X", perplexity=10, n_jobs=1, use_fast_tsne=True)
    assert adata.uns["tsne"]["params"]["n_jobs"] == 1
    la.neighbors(adata, use_rep="X")
    with pytest.raises(ValueError, match="method='rapids': lowdim's umap is its own"):
        la.umap(adata, method="rapids")


def test_representation_pcs_and_neighbours_follow_scanpys_rules():
    # scanpy searches X itself up to 50 genes (X_pca or not), else X_pca, computing it
    # when missing; n_pcs beyond X_pca's width is refused; n_pcs=0 means X; pca's default
    # n_comps fits small data; n_neighbors beyond the cells is adjusted, with a warning
    import scanpy as sc

    rng = np.random.default_rng(0)
    small = anndata.AnnData(rng.normal(size=(120, 20)))
    la.pca(small, n_comps=5)
    la.neighbors(small)
    ref = small.copy()
    sc.pp.neighbors(ref)
    assert abs(small.obsp["distances"] - ref.obsp["distances"]).max() < 1e-5  # X, not X_pca: as scanpy
    wide = anndata.AnnData(rng.normal(size=(120, 80)))
    with pytest.warns(UserWarning, match="principal components were computed first"):
        la.neighbors(wide, n_pcs=12)
    assert wide.obsm["X_pca"].shape == (120, 12) and wide.uns["neighbors"]["params"]["n_pcs"] == 12
    la.umap(wide)  # reads the graph's own rows back: X_pca, now present
    with pytest.raises(ValueError, match=r"n_pcs=30, but obsm\['X_pca'\] has 12 columns"):
        la.neighbors(wide, n_pcs=30)
    on_x = la.neighbors(wide, use_rep="X", n_neighbors=5, copy=True)
    la.neighbors(wide, n_pcs=0, n_neighbors=5)
    assert abs(wide.obsp["distances"] - on_x.obsp["distances"]).max() == 0
    tiny = anndata.AnnData(rng.normal(size=(6, 30)))
    la.pca(tiny)
    assert tiny.obsm["X_pca"].shape == (6, 5)  # min(50, min(cells, genes) - 1), as scanpy's
    with pytest.raises(ValueError, match="n_comps=7, but 6 cells of 30 genes hold at most 6 components"):
        la.pca(tiny, n_comps=7)
    with pytest.warns(UserWarning, match="n_neighbors=15 is more than the 6 cells; adjusted to 4"):
        la.neighbors(tiny, use_rep="X")
    few = anndata.AnnData(rng.normal(size=(30, 80)))  # more genes than 50, fewer cells than 50 components
    with pytest.warns(UserWarning, match="29 components into obsm"):
        la.neighbors(few, n_neighbors=5)
    assert tiny.uns["neighbors"]["params"]["n_neighbors"] == 4
    assert tiny.obsp["distances"].getnnz(axis=1).max() == 3
