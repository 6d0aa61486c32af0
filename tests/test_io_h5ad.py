"""AnnData .h5ad files through anndata: current and older layouts, layers, raw, obsm."""

import json
import sys

import anndata
import h5py
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from lowdim.cli.main import main
from lowdim.io import DataFileError, read_table

RNG = np.random.default_rng(7)
CELLS = [f"AAAC{i:03d}" for i in range(40)]
TYPES = np.array(["T cell", "B cell", "NK"])[np.arange(40) % 3]


def _current(path):
    """A file as anndata writes it today: sparse X, a layer, raw, obsm and mixed obs."""
    dense = np.where(RNG.random((40, 6)) < 0.6, 0.0, RNG.random((40, 6))).astype(np.float32)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(TYPES),
            "donor": np.where(np.arange(40) < 20, "d1", "d2"),
            "n_genes": np.arange(40) % 4,
        },
        index=CELLS,
    )
    obs.loc[CELLS[5], "cell_type"] = np.nan
    var = pd.DataFrame(index=[f"GENE{j}" for j in range(6)])
    adata = anndata.AnnData(sp.csr_matrix(dense), obs=obs, var=var)
    adata.layers["counts"] = sp.csr_matrix(np.round(dense * 10))
    adata.obsm["X_pca"] = RNG.normal(size=(40, 3))
    adata.raw = anndata.AnnData(dense * 2, obs=obs, var=pd.DataFrame(index=[f"RAW{j}" for j in range(6)]))
    adata.write_h5ad(path)
    return dense


def _legacy(path):
    """The layout of older anndata versions: obs/var as compound datasets, categories in
    uns/<column>_categories, raw.X as an h5sparse group beside raw.var."""
    X = RNG.random((6, 3))
    raw = sp.csr_matrix(np.where(RNG.random((6, 5)) < 0.5, 0.0, RNG.random((6, 5))))
    with h5py.File(path, "w") as fh:
        fh["X"] = X
        obs = np.zeros(6, dtype=[("index", "S8"), ("louvain", "i1"), ("n_counts", "f4")])
        obs["index"] = [f"cell{i}".encode() for i in range(6)]
        obs["louvain"], obs["n_counts"] = [0, 1, 0, 1, 2, 2], [10.5, 20, 30, 40, 50, 60]
        fh["obs"] = obs
        var = np.zeros(3, dtype=[("index", "S8")])
        var["index"] = [b"CD3E", b"CD19", b"MS4A1"]
        fh["var"] = var
        fh["uns/louvain_categories"] = np.array([b"T", b"B", b"NK"])
        group = fh.create_group("raw.X")
        group.attrs["h5sparse_format"], group.attrs["h5sparse_shape"] = "csr", raw.shape
        group["data"], group["indices"], group["indptr"] = raw.data, raw.indices, raw.indptr
        raw_var = np.zeros(5, dtype=[("index", "S8")])
        raw_var["index"] = [f"R{j}".encode() for j in range(5)]
        fh["raw.var"] = raw_var
    return X, raw.toarray()


def test_current_layout_reads_x_labels_ids_and_names(tmp_path):
    path = str(tmp_path / "pbmc.h5ad")
    dense = _current(path)
    table = read_table(path, label_column="cell_type")
    np.testing.assert_array_equal(table.X, dense)
    assert table.feature_names == [f"GENE{j}" for j in range(6)]
    assert table.row_ids.tolist() == CELLS
    expected = TYPES.copy()
    expected[5] = ""  # a missing category is an empty label, not the string 'nan'
    assert table.labels.tolist() == expected.tolist()
    assert read_table(path, label_column="donor").labels[[0, 39]].tolist() == ["d1", "d2"]
    assert read_table(path, label_column="n_genes").labels[:5].tolist() == ["0", "1", "2", "3", "0"]
    assert read_table(path, label_column="2").labels[0] == "d1"  # a 1-based obs column number


def test_layer_raw_and_obsm_choose_the_matrix(tmp_path):
    path = str(tmp_path / "pbmc.h5ad")
    dense = _current(path)
    counts = read_table(path, layer="counts")
    np.testing.assert_array_equal(counts.X, np.round(dense * 10))
    assert "layer 'counts'" in counts.notes[0]
    raw = read_table(path, use_raw=True)
    np.testing.assert_allclose(raw.X, dense * 2)
    assert raw.feature_names[0] == "RAW0"
    pca = read_table(path, obsm="X_pca", label_column="cell_type")
    assert pca.X.shape == (40, 3) and pca.feature_names == ["X_pca_1", "X_pca_2", "X_pca_3"]
    assert pca.row_ids.tolist() == CELLS and pca.labels[0] == "T cell"


def test_reading_every_gene_of_a_file_that_marks_highly_variable_ones_says_so(tmp_path):
    # scanpy's pca reads the highly variable genes alone; the CLI reads X as a table, silently all of it
    path = str(tmp_path / "pbmc.h5ad")
    _current(path)
    adata = anndata.read_h5ad(path)
    adata.var["highly_variable"] = np.arange(6) < 2
    adata.write_h5ad(path)
    said = "(every gene: adata.var marks 2 of 6 as highly variable, which scanpy's pca reads alone; --mask-var"
    assert said in read_table(path).notes[0] and said in read_table(path, layer="counts").notes[0]
    assert "highly variable" not in read_table(path, obsm="X_pca").notes[0]
    adata.var["highly_variable"] = True  # every gene marked: nothing left out
    adata.write_h5ad(path)
    assert "highly variable" not in read_table(path).notes[0]


def test_mask_var_reads_the_marked_genes_of_x_or_a_layer_as_scanpys_mask_var(tmp_path):
    path = str(tmp_path / "pbmc.h5ad")
    dense = _current(path)
    adata = anndata.read_h5ad(path)
    adata.var["highly_variable"] = np.array([False, True, False, True, True, False])
    adata.var["n_cells"] = np.arange(6)
    adata.write_h5ad(path)
    table = read_table(path, mask_var="highly_variable")
    np.testing.assert_array_equal(table.X, dense[:, [1, 3, 4]])
    assert table.feature_names == ["GENE1", "GENE3", "GENE4"]
    assert "(the 3 of 6 genes adata.var['highly_variable'] marks)" in table.notes[0]
    counts = read_table(path, layer="counts", mask_var="highly_variable")
    np.testing.assert_array_equal(counts.X, np.round(dense * 10)[:, [1, 3, 4]])
    # the size limit counts the genes read, not every gene: 40 x 3 float32 fits in 480 bytes, 40 x 6 does not
    assert read_table(path, mask_var="highly_variable", max_bytes=480).X.shape == (40, 3)
    with pytest.raises(DataFileError, match="exceeds the limit"):
        read_table(path, max_bytes=480)
    dense_x = str(tmp_path / "dense.h5ad")  # X stored as a dense dataset: the marked columns are read from it
    anndata.AnnData(dense, var=adata.var).write_h5ad(dense_x)
    np.testing.assert_array_equal(read_table(dense_x, mask_var="highly_variable").X, dense[:, [1, 3, 4]])


def test_mask_var_mistakes_name_the_boolean_columns_or_the_clash(tmp_path):
    path = str(tmp_path / "pbmc.h5ad")
    _current(path)
    adata = anndata.read_h5ad(path)
    adata.var["highly_variable"] = np.arange(6) < 2
    adata.var["n_cells"] = np.arange(6)
    adata.var["none"] = False
    adata.write_h5ad(path)
    with pytest.raises(DataFileError, match=r"no column 'hvg'; --mask-var takes a boolean column \(highly_variable"):
        read_table(path, mask_var="hvg")
    with pytest.raises(DataFileError, match="a column of int64, not booleans, 'n_cells'"):
        read_table(path, mask_var="n_cells")
    with pytest.raises(DataFileError, match=r"adata.var\['none'\] marks no gene"):
        read_table(path, mask_var="none")
    with pytest.raises(DataFileError, match=r"not obsm\['X_pca'\] \(--obsm\); drop one"):
        read_table(path, mask_var="highly_variable", obsm="X_pca")
    with pytest.raises(DataFileError, match=r"not raw.X \(--use-raw\)"):
        read_table(path, mask_var="highly_variable", use_raw=True)
    (tmp_path / "a.csv").write_text("a,b\n1,2\n3,4\n")
    with pytest.raises(DataFileError, match="--mask-var choose a matrix inside an AnnData .h5ad file"):
        read_table(str(tmp_path / "a.csv"), mask_var="highly_variable")


def test_cli_model_fitted_on_marked_genes_transforms_a_file_of_every_gene(tmp_path, capsys):
    # the model keeps the marked genes' names, so transform picks them out of a file that has them all
    path = str(tmp_path / "pbmc.h5ad")
    dense = _current(path)
    adata = anndata.read_h5ad(path)
    adata.var["highly_variable"] = np.array([True, True, False, True, True, False])
    adata.write_h5ad(path)
    out, model, again = tmp_path / "pcs.csv", tmp_path / "m.lowdim", tmp_path / "again.csv"
    assert (
        main(["embed", path, "--mask-var", "highly_variable", "-m", "pca", "--save-model", str(model), "-o", str(out)])
        == 0
    )
    assert "the 4 of 6 genes adata.var['highly_variable'] marks" in capsys.readouterr().out
    every = str(tmp_path / "every.h5ad")
    anndata.AnnData(dense, obs=pd.DataFrame(index=CELLS), var=pd.DataFrame(index=adata.var_names)).write_h5ad(every)
    assert main(["transform", str(model), every, "-o", str(again)]) == 0
    mapped = tmp_path / "mapped.h5ad"  # the settings say what was read, as scanpy's params do
    assert (
        main(
            [
                "embed",
                path,
                "--mask-var",
                "highly_variable",
                "--layer",
                "counts",
                "-m",
                "pca",
                "-o",
                str(mapped),
                "--overwrite-key",
            ]
        )
        == 0
    )
    settings = json.loads(anndata.read_h5ad(mapped).uns["lowdim"]["X_pca"])
    assert settings == {"method": "pca", "seed": 0, "layer": "counts", "mask_var": "highly_variable"}
    fitted = np.loadtxt(out, delimiter=",", skiprows=1, usecols=(1, 2))
    placed = np.loadtxt(again, delimiter=",", skiprows=1, usecols=(1, 2))
    np.testing.assert_allclose(placed, fitted, atol=1e-5)
    scores = dense[:, [0, 1, 3, 4]] - dense[:, [0, 1, 3, 4]].mean(axis=0)
    np.testing.assert_allclose(np.abs(fitted[:, 0]), np.abs(scores @ np.linalg.svd(scores)[2][0]), atol=1e-5)


def test_older_anndata_layout_is_read(tmp_path):
    path = str(tmp_path / "legacy.h5ad")
    X, raw = _legacy(path)
    table = read_table(path, label_column="louvain")
    np.testing.assert_allclose(table.X, X)
    assert table.labels.tolist() == ["T", "B", "T", "B", "NK", "NK"]
    assert table.feature_names == ["CD3E", "CD19", "MS4A1"]
    assert table.row_ids.tolist() == [f"cell{i}" for i in range(6)]
    assert "older anndata layout" in table.notes[0]
    with pytest.warns(UserWarning, match="different value in every row"):
        from_raw = read_table(path, use_raw=True, label_column="n_counts")
    np.testing.assert_allclose(from_raw.X, raw)
    assert from_raw.feature_names == ["R0", "R1", "R2", "R3", "R4"] and from_raw.labels[0] == "10.5"


def test_h5ad_mistakes_name_what_exists(tmp_path, capsys):
    path = str(tmp_path / "pbmc.h5ad")
    _current(path)
    with pytest.raises(DataFileError, match="no layer 'spliced'; layers are counts"):
        read_table(path, layer="spliced")
    with pytest.raises(DataFileError, match="obsm has no entry 'X_umap'; entries are X_pca"):
        read_table(path, obsm="X_umap")
    with pytest.raises(DataFileError, match="obs has no column 'celltype'; columns are cell_type, donor, n_genes"):
        read_table(path, label_column="celltype")
    with pytest.raises(DataFileError, match="--layer and --obsm each choose the matrix"):
        read_table(path, layer="counts", obsm="X_pca")
    with pytest.raises(DataFileError, match="exceeds the limit"):
        read_table(path, max_bytes=100)
    anndata.AnnData(np.ones((3, 2))).write_h5ad(tmp_path / "plain.h5ad")
    with pytest.raises(DataFileError, match="no raw matrix; drop --use-raw"):
        read_table(str(tmp_path / "plain.h5ad"), use_raw=True)
    (tmp_path / "a.csv").write_text("a,b\n1,2\n3,4\n")
    with pytest.raises(DataFileError, match="--layer choose a matrix inside an AnnData .h5ad file"):
        read_table(str(tmp_path / "a.csv"), layer="counts")
    # a missing input with an .h5ad output: h5py's own 'Unable to synchronously open file'
    for command in (["embed", "-m", "umap"], ["cluster", "-m", "leiden"]):
        code = main([command[0], str(tmp_path / "none.h5ad"), *command[1:], "-o", str(tmp_path / "out.h5ad")])
        assert code == 2 and f"{tmp_path / 'none.h5ad'}: no such file." in capsys.readouterr().err


def test_missing_anndata_names_the_extra(tmp_path, monkeypatch):
    path = str(tmp_path / "pbmc.h5ad")
    _current(path)
    monkeypatch.setitem(sys.modules, "anndata", None)  # import anndata now raises ImportError
    with pytest.raises(DataFileError, match=r"needs the anndata package; install lowdim\[io\]"):
        read_table(path)


def test_cli_runs_on_a_stored_embedding_and_keeps_cell_ids(tmp_path, capsys):
    path = str(tmp_path / "pbmc.h5ad")
    _current(path)
    out = tmp_path / "clusters.csv"
    assert main(["cluster", path, "--obsm", "X_pca", "-m", "kmeans", "-k", "3", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("id,") and [line.split(",")[0] for line in lines[1:]] == CELLS
    out, legacy = tmp_path / "pcs.csv", str(tmp_path / "legacy.h5ad")
    _legacy(legacy)
    assert main(["pca", legacy, "--use-raw", "--label-column", "louvain", "-k", "2", "-o", str(out)]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["id", "PC1", "PC2", "louvain"] and rows[1][0] == "cell0" and rows[5][3] == "NK"
    assert "read raw.X" in capsys.readouterr().out
