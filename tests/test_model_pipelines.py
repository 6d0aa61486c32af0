"""Model files that carry a whole fitted pipeline (scaling, PCA, the method) and the
input's column names: saved and loaded whole in Python, written by the CLI's
--save-model and applied by `lowdim transform` to new tables."""

import json
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SklearnScaler

import lowdim
from lowdim.cli.main import main
from lowdim.exceptions import UntrustedModelError
from lowdim.io import saved_columns
from lowdim.preprocessing import StandardScaler


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """The wine table as a user has it: named columns, the class in a 'cultivar' column;
    and the same rows with the columns in another order and without the class."""
    folder = tmp_path_factory.mktemp("wine")
    frame = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    frame.to_csv(folder / "wine.csv", index=False)
    frame.drop(columns=["cultivar"]).iloc[:, ::-1].to_csv(folder / "shuffled.csv", index=False)
    frame.drop(columns=["cultivar", "proline"]).to_csv(folder / "short.csv", index=False)
    return folder


def _run(*argv):
    assert main([str(a) for a in argv] + ["--quiet"]) == 0


def _numbers(path):
    frame = pd.read_csv(path)
    return frame.select_dtypes("number").drop(columns=["cultivar"], errors="ignore").to_numpy()


def test_scaler_equals_scikit_learns():
    X = np.random.default_rng(0).normal(size=(50, 4)) * [1.0, 10.0, 1e3, 1e-2] + [0.0, 5.0, -1e4, 3.0]
    ours, theirs = StandardScaler().fit(X), SklearnScaler().fit(X)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)), X, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-12)


def test_a_pipeline_of_lowdim_steps_saves_and_loads_whole(tmp_path):
    X = np.random.default_rng(1).normal(size=(80, 6)) * [1, 10, 100, 1, 1, 1]
    model = make_pipeline(StandardScaler(), lowdim.PCA(3), lowdim.KMeans(3, random_state=0)).fit(X)
    path = tmp_path / "chain.lowdim"
    lowdim.save(model, path, columns=list("abcdef"))
    loaded = lowdim.load(path)
    assert [name for name, _ in loaded.steps] == ["standardscaler", "pca", "kmeans"]
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert np.array_equal(loaded.transform(X), model.transform(X))
    assert saved_columns(path) == list("abcdef")
    with pytest.raises(ValueError, match="columns names 2 columns, but the model takes 6"):
        lowdim.save(model, tmp_path / "bad.lowdim", columns=["a", "b"])
    with pytest.raises(TypeError, match="only lowdim estimators"):
        lowdim.save(make_pipeline(SklearnScaler(), lowdim.PCA(2)).fit(X), tmp_path / "sk.lowdim")


def _edited(path, edit):
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    manifest = json.loads(entries["manifest.json"])
    edit(manifest)
    entries["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda m: m["steps"][1].update({"class": "os.system"}), "untrusted type 'os.system'"),
        (lambda m: m.update({"steps": m["steps"] * 6}), "a list of 1 to 16 estimators"),
        (lambda m: m["steps"][1].update({"name": m["steps"][0]["name"]}), "distinct names"),
        (lambda m: m["steps"][1].update({"prefix": "0/"}), "arrays of this step belong under '1/'"),
        (lambda m: m.update({"columns": ["a", "b"]}), "names 2 columns, but the model takes 6"),
        (lambda m: m.update({"columns": "abcdef"}), "'columns' must be a list of column names"),
        (lambda m: m.update({"categories": {"z": {"levels": ["x"]}}}), r"categories\['z'\] must name a model column"),
        (lambda m: m.update({"categories": {"a": {"levels": [1, 2]}}}), "list its categories as text"),
        (lambda m: m.update({"categories": ["a"]}), "categories must be a dict"),
        (lambda m: m.update({"label_column": ["y"]}), "'label_column' must be a column name"),
    ],
)
def test_edited_pipelines_are_refused(tmp_path, edit, words):
    X = np.random.default_rng(1).normal(size=(80, 6))
    model = make_pipeline(StandardScaler(), lowdim.PCA(3), lowdim.KMeans(3, random_state=0)).fit(X)
    path = tmp_path / "chain.lowdim"
    lowdim.save(model, path, columns=list("abcdef"))
    with pytest.raises(UntrustedModelError, match=words):
        lowdim.load(_edited(path, edit))


def test_steps_that_do_not_fit_together_are_refused(tmp_path):
    """Each step is a working model, but the KMeans takes 4 columns where the PCA
    before it gives 3 (a step spliced in from another file)."""
    X = np.random.default_rng(1).normal(size=(80, 6))
    paths = []
    for k in (3, 4):
        paths.append(tmp_path / f"chain{k}.lowdim")
        lowdim.save(make_pipeline(lowdim.PCA(k), lowdim.KMeans(3, random_state=0)).fit(X), paths[-1])
    with zipfile.ZipFile(paths[1]) as zf:
        donor = {name: zf.read(name) for name in zf.namelist()}
    with zipfile.ZipFile(paths[0]) as zf:
        entries = {name: zf.read(name) for name in zf.namelist() if not name.startswith("arrays/1/")}
    manifest = json.loads(entries["manifest.json"])
    manifest["steps"][1] = json.loads(donor["manifest.json"])["steps"][1]
    entries["manifest.json"] = json.dumps(manifest).encode()
    entries.update({name: data for name, data in donor.items() if name.startswith("arrays/1/")})
    with zipfile.ZipFile(paths[0], "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(UntrustedModelError, match="do not make a working Pipeline.*4 features"):
        lowdim.load(paths[0])


def test_transform_applies_the_training_scaling_to_the_training_rows(wine, tmp_path):
    """The model carries --standardize: transform of the training rows (columns in
    another order, no class column) is the embedding itself."""
    model, embedded, again = tmp_path / "m.lowdim", tmp_path / "emb.csv", tmp_path / "again.csv"
    _run(
        *["embed", wine / "wine.csv", "--label-column", "cultivar", "--standardize", "-m", "pca"],
        *["-o", embedded, "--save-model", model],
    )
    _run("transform", model, wine / "shuffled.csv", "-o", again)
    first, second = _numbers(embedded), _numbers(again)
    assert pd.read_csv(again).columns.tolist() == ["pca1", "pca2"]
    np.testing.assert_allclose(second, first, atol=1e-9 * np.abs(first).max())


def test_transform_codes_the_training_rows_as_a_dictionary_embedding_coded_them(wine, tmp_path):
    """scikit-learn's default transform codes by OMP with one atom in ten features, the fit
    by the lasso: transform moved the training rows by a quarter of the map's extent."""
    model, embedded, again = tmp_path / "m.lowdim", tmp_path / "emb.csv", tmp_path / "again.csv"
    _run(
        *["embed", wine / "wine.csv", "--label-column", "cultivar", "--standardize", "-m", "dictionary"],
        *["-o", embedded, "--save-model", model],
    )
    _run("transform", model, wine / "wine.csv", "-o", again)
    first, second = _numbers(embedded), _numbers(again)
    # the fit's codes precede its last dictionary update, which moves them by its tolerance
    np.testing.assert_allclose(second, first, atol=1e-2 * np.ptp(first))


@pytest.mark.parametrize("options", [["-m", "kernel-pca"], ["--standardize", "-m", "kernel-pca"], ["-m", "ltsa"]])
def test_transform_names_its_columns_as_embed_did(wine, tmp_path, options):
    """A new table's rows can be stacked under the training rows' embedding: transform
    named them kernelpca1 (a model saved alone), kernel_pca1 (after scaling) and
    locallylinearembedding1 where embed wrote kernel-pca1 and ltsa1."""
    model, embedded, again = tmp_path / "m.lowdim", tmp_path / "emb.csv", tmp_path / "again.csv"
    _run("embed", wine / "wine.csv", "--label-column", "cultivar", *options, "-o", embedded, "--save-model", model)
    _run("transform", model, wine / "wine.csv", "-o", again)
    method = options[-1]
    assert (
        pd.read_csv(again).columns.tolist()
        == pd.read_csv(embedded).columns.tolist()
        == [
            f"{method}1",
            f"{method}2",
            "cultivar",
        ]
    )


def test_transform_labels_new_rows_by_hdbscans_tree_and_refuses_clusterings_without_a_rule(wine, tmp_path, capsys):
    """HDBSCAN's model places new rows in its tree (approximate_predict, after the
    scaling it carries); it was refused as a model that 'cannot be applied to new data'.
    A training row passed again keeps its label but at a cluster's fringe."""
    model, labelled, again = tmp_path / "m.lowdim", tmp_path / "fit.csv", tmp_path / "again.csv"
    fit = ["cluster", wine / "wine.csv", "--label-column", "cultivar", "--standardize"]
    _run(*fit, "-m", "hdbscan", "-o", labelled, "--save-model", model)
    _run("transform", model, wine / "shuffled.csv", "-o", again)
    first, second = pd.read_csv(labelled)["cluster"], pd.read_csv(again)["cluster"]
    assert second.dtype.kind == "i" and np.mean(first == second) >= 0.9 and second.nunique() >= 2
    _run(*fit, "-m", "optics", "--save-model", model, "--overwrite")
    assert main(["transform", str(model), str(wine / "wine.csv"), "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    assert "the OPTICS after StandardScaler model has no rule for new rows" in capsys.readouterr().err


def test_transform_carries_the_training_label_column_when_the_new_table_has_it(wine, tmp_path, capsys):
    """The model remembers --label-column: a new table with that column keeps it in
    the output, under its name and row for row; one without it is embedded unlabelled,
    and the output says so; an explicit --label-column still wins."""
    model, embedded, again = tmp_path / "m.lowdim", tmp_path / "emb.csv", tmp_path / "again.csv"
    _run("embed", wine / "wine.csv", "--label-column", "cultivar", "-m", "pca", "-o", embedded, "--save-model", model)
    assert saved_columns(model, label=True)[1] == "cultivar"
    _run("transform", model, wine / "wine.csv", "-o", again)
    first, second = pd.read_csv(embedded), pd.read_csv(again)
    assert second.columns.tolist() == ["pca1", "pca2", "cultivar"]
    assert second["cultivar"].tolist() == first["cultivar"].tolist() == load_wine().target.tolist()
    capsys.readouterr()
    assert main(["transform", str(model), str(wine / "shuffled.csv"), "-o", str(again), "--overwrite"]) == 0
    assert "no column 'cultivar' (the model's label column); rows written without labels" in capsys.readouterr().out
    assert pd.read_csv(again).columns.tolist() == ["pca1", "pca2"]
    relabelled = ["transform", str(model), str(wine / "wine.csv"), "-o", str(again), "--overwrite"]
    assert main([*relabelled, "--label-column", "alcohol", "--quiet"]) == 2  # the model's column is gone
    assert "lacks (alcohol)" in capsys.readouterr().err


def test_transform_of_a_pca_then_umap_model_takes_the_original_columns(wine, tmp_path):
    model, embedded, again = tmp_path / "m.lowdim", tmp_path / "emb.csv", tmp_path / "again.csv"
    _run(
        *["embed", wine / "wine.csv", "--label-column", "cultivar", "--standardize", "--pca", "5", "-m", "umap"],
        *["-o", embedded, "--save-model", model],
    )
    _run("transform", model, wine / "wine.csv", "--label-column", "cultivar", "-o", again)
    first, second = _numbers(embedded), _numbers(again)
    # a training row lands beside its fitted position: among its own 15 nearest there
    from sklearn.neighbors import NearestNeighbors

    own = NearestNeighbors(n_neighbors=15).fit(first).kneighbors(first, return_distance=False)
    nearest = NearestNeighbors(n_neighbors=1).fit(first).kneighbors(second, return_distance=False)[:, 0]
    assert np.mean([nearest[i] in own[i] for i in range(len(first))]) > 0.9
    assert [name for name, _ in lowdim.load(model).steps] == ["reduce", "umap"]


def test_transform_names_the_method_and_the_steps_before_it(wine, tmp_path, capsys):
    """The user fitted PCA after scaling (UMAP after a PCA that scales), not scikit-learn's 'Pipeline'."""
    cases = ((["-m", "pca"], "PCA after StandardScaler"), (["--pca", "5", "-m", "umap"], "UMAP after PCA"))
    for options, name in cases:
        model = tmp_path / "m.lowdim"
        _run("embed", wine / "wine.csv", "--label-column", "cultivar", "--standardize", *options,
             "--save-model", model, "--overwrite")  # fmt: skip
        capsys.readouterr()
        applied = ["transform", str(model), str(wine / "wine.csv"), "-o", str(tmp_path / "t.csv"), "--overwrite"]
        assert main(applied) == 0
        said = capsys.readouterr().out
        assert f"{name}: transform of 178 rows" in said and "Pipeline" not in said
        assert main([*applied, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["model"] == name


def test_transform_refuses_refitting_and_missing_columns(wine, tmp_path, capsys):
    model = tmp_path / "m.lowdim"
    _run("embed", wine / "wine.csv", "--label-column", "cultivar", "--standardize", "-m", "pca", "--save-model", model)
    capsys.readouterr()
    for extra, words in (
        (["--standardize"], "drop --standardize"),
        (["--missing", "impute"], "--missing impute would fill gaps with the new data's own means"),
    ):
        assert main(["transform", str(model), str(wine / "shuffled.csv"), "-o", str(tmp_path / "z.csv"), *extra]) == 2
        assert words in capsys.readouterr().err
    assert main(["transform", str(model), str(wine / "short.csv"), "-o", str(tmp_path / "z.csv")]) == 2
    assert "lacks (proline)" in capsys.readouterr().err
    renamed = tmp_path / "renamed.csv"  # a spreadsheet's capitals, a typo: the message names the near column
    pd.read_csv(wine / "wine.csv").rename(columns={"alcohol": "Alcohol", "malic_acid": "malic acid"}).to_csv(
        renamed, index=False
    )
    assert main(["transform", str(model), str(renamed), "-o", str(tmp_path / "z.csv")]) == 2
    assert "lacks (alcohol, malic_acid); the table has 'Alcohol' and 'malic acid'" in capsys.readouterr().err


def test_clusters_of_an_embedding_are_predicted_through_it(wine, tmp_path):
    model, labels, again = tmp_path / "m.lowdim", tmp_path / "c.csv", tmp_path / "again.csv"
    _run(
        *["cluster", wine / "wine.csv", "--label-column", "cultivar", "--standardize", "--on", "pca", "-k", "3"],
        *["-o", labels, "--save-model", model],
    )
    _run("transform", model, wine / "shuffled.csv", "-o", again)
    assert np.array_equal(pd.read_csv(again)["cluster"], pd.read_csv(labels)["cluster"])


@pytest.mark.filterwarnings("ignore:StandardScaler. 1 feature:UserWarning")  # the column of zeros
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_a_sparse_matrix_is_scaled_without_centring_as_scikit_learn_scales_it(fmt):
    # a sparse matrix was refused; TF-IDF and count matrices are scaled this way before TruncatedSVD
    dense = sp.random(200, 30, density=0.1, random_state=1).toarray() * 50
    dense[:, 7] = 0.0  # a column of zeros keeps scale 1
    dense[::9, 3] = np.nan  # gaps are left out of the statistics
    X = sp.csr_matrix(dense).asformat(fmt)
    ours, theirs = StandardScaler(with_mean=False).fit(X), SklearnScaler(with_mean=False).fit(X)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-12)
    np.testing.assert_allclose(ours.scale_, theirs.scale_, rtol=1e-12)
    Z = ours.transform(X)
    assert sp.issparse(Z) and Z.nnz == X.nnz and Z.dtype == X.dtype
    expected = theirs.transform(X).toarray()
    np.testing.assert_allclose(Z.toarray(), expected, rtol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(Z).toarray(), X.toarray(), rtol=1e-12)
    assert StandardScaler(with_mean=False).fit(X.astype(np.float32)).transform(X.astype(np.float32)).dtype == np.float32
    from_dense = StandardScaler(with_mean=False).fit(dense)
    np.testing.assert_allclose(from_dense.scale_, ours.scale_, rtol=1e-12)  # the same statistics as the dense data's
    with pytest.raises(ValueError, match=r"cannot centre a sparse matrix \(200 x 30, .*with_mean=False"):
        StandardScaler().fit(X)
    with pytest.raises(ValueError, match="cannot centre a sparse matrix"):
        StandardScaler().fit(dense).transform(X)
