"""metric='gower' beyond the neighbour embeddings: k-medoids, agglomerative clustering,
MDS, spectral embedding, PaCMAP, PHATE, the silhouette and the embedding scores, each checked
against the same method fed Gower's distances written out pair by pair."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score
from test_mixed_data import _gower_by_definition, _mixed, knn_accuracy

import lowdim
from lowdim.cli.main import main
from lowdim.embedding._pacmap_pairs import mid_near_partners
from lowdim.embedding._umap_placement import _table_preimage
from lowdim.manifold import SpectralEmbedding
from lowdim.metrics import continuity, knn_preservation, silhouette_samples, trustworthiness
from lowdim.neighbors import GowerIndex

PARAMS = {"categorical": [1], "ordinal": [3]}
WEIGHTS = np.ones(4)


def _groups(rng, n=60, gaps=0.1):
    """Three groups of mixed rows (the category column follows the group), with gaps in
    the numbers only, so that every pair shares a column."""
    group = np.arange(n) % 3
    X = _mixed(rng, n, gaps=0.0)
    X[:, 0] += 4.0 * group
    X[:, 1] = group
    X[:, 2][rng.random(n) < gaps] = np.nan
    return X, group


def test_umap_by_gower_maps_points_back_to_rows_of_the_table_past_its_gaps():
    # the preimage averaged every column over the neighbours: one gap among them made
    # the column NaN, and a category came back as a mean of codes (1.6 of levels 1 and 2)
    w = np.array([[0.4, 0.35, 0.25]])
    near = np.array([[[1.0, 1.0], [np.nan, 2.0], [3.0, 2.0]]])  # (1 point, 3 neighbours, 2 columns)
    back = _table_preimage(w, near, levels=[1])
    np.testing.assert_allclose(back, [[(0.4 * 1.0 + 0.25 * 3.0) / 0.65, 2.0]], rtol=1e-15)
    rng = np.random.default_rng(0)
    X, group = _groups(rng, n=90, gaps=0.3)
    X[rng.random(90) < 0.2, 1] = np.nan  # gaps in the category column too
    model = lowdim.UMAP(metric="gower", metric_kwds=PARAMS, n_epochs=60, random_state=0).fit(X)
    back = model.inverse_transform(model.embedding_)
    assert not np.isnan(back).any()
    assert set(back[:, 1]) == {0.0, 1.0, 2.0}  # codes, not means of codes
    assert np.mean(back[:, 1] == group) >= 0.8  # rows of a group sit among its rows (chance: 1/3)
    assert set(back[:, 3]) <= set(X[:, 3][~np.isnan(X[:, 3])])
    assert np.nanmin(X[:, 2]) <= back[:, 2].min() and back[:, 2].max() <= np.nanmax(X[:, 2])


def test_kmedoids_by_gower_is_kmedoids_of_the_distance_matrix():
    X, _ = _groups(np.random.default_rng(0))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    by_gower = lowdim.KMedoids(3, metric="gower", metric_params=PARAMS, method="pam").fit(X)
    by_matrix = lowdim.KMedoids(3, metric="precomputed", method="pam").fit(D)
    assert by_gower.medoid_indices_.tolist() == by_matrix.medoid_indices_.tolist()
    assert np.array_equal(by_gower.labels_, by_matrix.labels_)
    assert by_gower.inertia_ == pytest.approx(by_matrix.inertia_, rel=1e-12)
    np.testing.assert_allclose(by_gower.transform(X), D[:, by_gower.medoid_indices_], rtol=1e-12, atol=1e-15)


def test_kmedoids_scales_new_rows_by_the_training_ranges():
    rng = np.random.default_rng(1)
    X, _ = _groups(rng)
    model = lowdim.KMedoids(3, metric="gower", metric_params=PARAMS).fit(X)
    new = X[:5].copy()
    new[:, 1] = (new[:, 1] + 1) % 3  # other categories; numbers inside the training ranges
    both = _gower_by_definition(np.vstack([X, new]), {1}, WEIGHTS)
    expected = both[len(X) :][:, model.medoid_indices_]
    np.testing.assert_allclose(model.transform(new), expected, rtol=1e-12, atol=1e-15)
    assert np.array_equal(model.predict(new), np.argmin(expected, axis=1))


@pytest.mark.parametrize("linkage", ["average", "complete", "single"])
def test_agglomerative_by_gower_is_the_tree_of_the_distance_matrix(linkage):
    X, group = _groups(np.random.default_rng(1))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    kw = {"linkage": linkage, "compute_distances": True}
    by_gower = lowdim.AgglomerativeClustering(3, metric="gower", metric_params=PARAMS, **kw).fit(X)
    by_matrix = lowdim.AgglomerativeClustering(3, metric="precomputed", **kw).fit(D)
    assert np.array_equal(by_gower.children_, by_matrix.children_)
    assert np.array_equal(by_gower.labels_, by_matrix.labels_)
    np.testing.assert_allclose(by_gower.distances_, by_matrix.distances_, rtol=1e-12, atol=1e-15)
    if linkage == "average":  # the three groups differ by category and by 4 standard deviations
        assert adjusted_rand_score(group, by_gower.labels_) == 1.0


def test_agglomerative_by_gower_codes_a_table_and_puts_rows_without_a_common_column_at_distance_one():
    import pandas as pd

    table = pd.DataFrame({"size": [1.0, 1.1, np.nan, 9.0], "colour": ["red", "red", "blue", None]})
    model = lowdim.AgglomerativeClustering(2, metric="gower", linkage="single", compute_distances=True).fit(table)
    assert model.kinds_ == ["numeric", "categorical"] and model.categories_[1] == ["blue", "red"]
    # sizes over their range 8: rows 0-1 at (0.1 / 8 + 0) / 2, row 3 to row 1 at 7.9 / 8 (no colour);
    # rows 2 and 3 share no column and meet last, at 1
    np.testing.assert_allclose(model.distances_, [0.1 / 16, 7.9 / 8, 1.0], rtol=1e-12)
    assert model.labels_.tolist() == [0, 0, 1, 0]
    with pytest.raises(ValueError, match="Ward can only work with euclidean"):
        lowdim.AgglomerativeClustering(2, metric="gower").fit(table)


def test_phate_by_gower_sets_each_kernel_width_by_gower_neighbours_and_reads_tables_as_codes():
    X, _ = _groups(np.random.default_rng(2))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    np.fill_diagonal(D, np.inf)
    model = lowdim.PHATE(knn=5, knn_dist="gower", metric_params=PARAMS, n_landmark=None, random_state=0).fit(X)
    # the neighbour search keeps distances in float32
    np.testing.assert_allclose(model.scales_, np.sort(D, axis=1)[:, 4], rtol=2 * np.finfo(np.float32).eps)
    assert model.pca_components_ is None  # the codes are not reduced by PCA
    # a column in other units: Gower's distance divides by the range, so the map is the same
    scaled = X.copy()
    scaled[:, 0] *= 1000.0
    again = lowdim.PHATE(knn=5, knn_dist="gower", metric_params=PARAMS, n_landmark=None, random_state=0).fit(scaled)
    np.testing.assert_allclose(
        again.embedding_, model.embedding_, rtol=1e-6, atol=1e-9 * np.abs(model.embedding_).max()
    )


def test_mds_by_gower_is_mds_of_the_distance_matrix():
    X, _ = _groups(np.random.default_rng(2))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    for solver in ("classical", "smacof"):
        kw = {"solver": solver, "random_state": 0, "n_init": 1, "init": "random"}
        Y = lowdim.MDS(2, metric="gower", metric_params=PARAMS, **kw).fit_transform(X)
        np.testing.assert_allclose(Y, lowdim.MDS(2, metric="precomputed", **kw).fit_transform(D), atol=1e-9)


def test_mds_leaves_out_pairs_with_no_column_in_common_or_names_them():
    X = np.array([[0.0, np.nan], [np.nan, 1.0], [1.0, 0.0], [2.0, 1.0], [0.5, 0.0]])
    params = {"categorical": [1]}
    with pytest.raises(ValueError, match="share no column with a value"):
        lowdim.MDS(2, metric="gower", metric_params=params, solver="classical").fit(X)
    model = lowdim.MDS(2, metric="gower", metric_params=params, random_state=0, n_init=1, init="random").fit(X)
    assert np.isfinite(model.embedding_).all() and np.isnan(model.dissimilarity_matrix_[0, 1])


def test_spectral_by_gower_connects_each_row_to_its_gower_neighbours():
    X, _ = _groups(np.random.default_rng(3))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    a = SpectralEmbedding(n_neighbors=8, metric="gower", metric_params=PARAMS, random_state=0).fit(X)
    b = SpectralEmbedding(n_neighbors=8, affinity="precomputed_nearest_neighbors", random_state=0).fit(D)
    assert (a.affinity_matrix_ != b.affinity_matrix_).nnz == 0
    np.testing.assert_allclose(np.abs(a.embedding_), np.abs(b.embedding_), atol=1e-8)


def test_spectral_metric_is_the_nearest_neighbour_affinity_s():
    with pytest.raises(ValueError, match="affinity='nearest_neighbors'"):
        SpectralEmbedding(affinity="rbf", metric="gower").fit(np.eye(5))


def test_silhouette_by_gower_leaves_out_pairs_with_no_column_in_common():
    rng = np.random.default_rng(4)
    X = _mixed(rng, 30, gaps=0.35)
    X = X[~np.isnan(X).all(axis=1)]
    labels = np.arange(len(X)) % 3
    D = _gower_by_definition(X, {1}, WEIGHTS)
    assert np.isnan(D).any()  # some pairs share no column
    expected = []
    for i in range(len(X)):
        means = {c: np.nanmean(np.where(np.arange(len(X)) == i, np.nan, D[i])[labels == c]) for c in range(3)}
        a, b = means[labels[i]], min(v for c, v in means.items() if c != labels[i])
        expected.append((b - a) / max(a, b))
    s = silhouette_samples(X, labels, metric="gower", metric_params=PARAMS)
    np.testing.assert_allclose(s, expected, rtol=1e-10)


@pytest.mark.parametrize("score", [trustworthiness, continuity, knn_preservation])
def test_embedding_scores_by_gower_are_the_scores_of_the_distance_matrix(score):
    X, group = _groups(np.random.default_rng(5))
    D = _gower_by_definition(X, {1}, WEIGHTS)
    Y = np.column_stack([group + 0.01 * np.arange(len(X)), X[:, 0]])
    k = 5
    assert score(X, Y, n_neighbors=k, metric="gower", metric_params=PARAMS) == pytest.approx(
        score(D, Y, n_neighbors=k, metric="precomputed")
    )


def test_pacmap_mid_near_partner_is_the_second_closest_candidate_by_gower():
    X, _ = _groups(np.random.default_rng(6))
    index = GowerIndex("gower", PARAMS).build(X)
    D = _gower_by_definition(X, {1}, WEIGHTS)
    mid = mid_near_partners(X, 4, np.random.default_rng(0), index.candidate_distances)
    again = np.random.default_rng(0)  # the same draws, scored here by the definition
    from lowdim.embedding._pacmap_pairs import random_others

    candidates = random_others(again, len(X), len(X), (4, 6), True)
    expected = [[c[np.argsort(D[i, c], kind="stable")[1]] for c in groups] for i, groups in enumerate(candidates)]
    assert mid.tolist() == expected


def test_pacmap_by_gower_separates_the_penguins_and_places_new_ones(penguins):
    table, species = penguins
    full = lowdim.PaCMAP(distance="gower", metric_params=table.metric_params, random_state=0).fit(table.X)
    assert np.isfinite(full.embedding_).all() and knn_accuracy(full.embedding_, species, 10) >= 0.9
    part = lowdim.PaCMAP(distance="gower", metric_params=table.metric_params, random_state=0).fit(table.X[::2])
    placed = np.vstack([part.embedding_, part.transform(table.X[1::2])])
    assert knn_accuracy(placed, np.concatenate([species[::2], species[1::2]]), 10) >= 0.85


@pytest.fixture(scope="module")
def penguins():
    return lowdim.load_penguins()


@pytest.mark.parametrize(
    "command",
    [
        ["embed", "-m", "pacmap"],
        ["embed", "-m", "mds"],
        ["embed", "-m", "phate"],
        ["cluster", "-m", "kmedoids"],
        ["cluster", "-m", "agglomerative"],
    ],
)
def test_cli_compares_penguins_by_gower_in_more_methods(tmp_path, capsys, command):
    out = tmp_path / "out.csv"
    assert main([command[0], "--dataset", "penguins", *command[1:], "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "Gower's distance" in said
    assert ("average linkage, as Ward's needs Euclidean distances" in said) == (command[-1] == "agglomerative")
    assert len(out.read_text().splitlines()) == 345


@pytest.mark.parametrize(
    "make",
    [
        lambda p: lowdim.KMedoids(3, metric="gower", metric_params=p),
        lambda p: lowdim.PaCMAP(distance="gower", metric_params=p, random_state=0),
        lambda p: lowdim.MDS(2, metric="gower", metric_params=p, solver="classical"),
        lambda p: lowdim.PHATE(knn_dist="gower", metric_params=p, random_state=0),
    ],
    ids=["kmedoids", "pacmap", "mds", "phate"],
)
def test_gower_models_keep_their_gaps_through_a_model_file(tmp_path, penguins, make):
    table, _ = penguins
    model = make(table.metric_params).fit(table.X)
    lowdim.io.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.io.load(tmp_path / "m.lowdim")
    rows = table.X[:6]  # row 3 is a penguin with no measurements
    np.testing.assert_array_equal(loaded.transform(rows), model.transform(rows))


def test_cli_transform_codes_a_new_files_categories_by_the_models_levels(tmp_path, capsys):
    import os

    from lowdim.io import read_table

    csv = os.path.join(os.path.dirname(lowdim.datasets.__file__), "data", "penguins", "penguins.csv")
    lines = open(csv).read().splitlines()
    kept = [i for i, line in enumerate(lines[1:]) if ",Biscoe," not in line][:60]
    (tmp_path / "new.csv").write_text("\n".join([lines[0], *(lines[1 + i] for i in kept)]) + "\n")
    model, out = tmp_path / "m.lowdim", tmp_path / "out.csv"
    common = ["--label-column", "species", "-k", "3"]
    assert (
        main(["cluster", csv, "-m", "kmedoids", *common, "--save-model", str(model), "-o", str(tmp_path / "c.csv")])
        == 0
    )
    assert main(["transform", str(model), str(tmp_path / "new.csv"), "--label-column", "species", "-o", str(out)]) == 0
    got = np.loadtxt(out, delimiter=",", skiprows=1, usecols=0)
    fitted = lowdim.io.load(model)
    rows = read_table(csv, label_column="species").X[kept]  # coded as in training: Biscoe 0, Dream 1, ...
    assert np.array_equal(got, fitted.predict(rows))
    own = read_table(tmp_path / "new.csv", label_column="species").X  # the new file alone: Dream 0, Torgersen 1
    assert not np.array_equal(fitted.transform(own), fitted.transform(rows))
    assert "never saw" not in capsys.readouterr().out
    (tmp_path / "renamed.csv").write_text((tmp_path / "new.csv").read_text().replace(",Dream,", ",Dreamm,"))
    again = ["transform", str(model), str(tmp_path / "renamed.csv"), "--label-column", "species", "-o", str(out)]
    assert main([*again, "--overwrite"]) == 0
    assert "column 'island' holds 1 category the model never saw (Dreamm)" in capsys.readouterr().out
