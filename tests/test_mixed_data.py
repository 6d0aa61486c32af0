"""Mixed tables (numbers, categories, ordered categories, gaps): coding them, Gower's
distance against its definition, every neighbour method on it, and the reader and
command line that bring such tables in."""

import numpy as np
import pytest

import lowdim
from lowdim.cli.main import main
from lowdim.exceptions import DataFileError
from lowdim.io import read_table
from lowdim.metrics import gower_distances
from lowdim.neighbors import GowerIndex, nearest_neighbors
from lowdim.preprocessing import code_categories, mixed_codes


def _mixed(rng, n=40, gaps=0.15):
    """Two numeric columns, one categorical (4 levels), one ordinal (3 ranks), with gaps."""
    X = np.column_stack(
        [rng.normal(size=n), rng.integers(0, 4, n), rng.exponential(size=n) * 10, rng.integers(0, 3, n)]
    ).astype(float)
    X[rng.random(X.shape) < gaps] = np.nan
    return X


def _gower_by_definition(X, categorical, weights):
    """Gower (1971) written out pair by pair: the weighted mean over shared columns."""
    n, d = X.shape
    span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    D = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(n):
            num = den = 0.0
            for c in range(d):
                a, b = X[i, c], X[j, c]
                if np.isnan(a) or np.isnan(b):
                    continue
                part = float(a != b) if c in categorical else (abs(a - b) / span[c] if span[c] > 0 else 0.0)
                num += weights[c] * part
                den += weights[c]
            if den > 0:
                D[i, j] = num / den
    return D


def test_gower_equals_its_definition_with_gaps_and_weights():
    rng = np.random.default_rng(0)
    X = _mixed(rng)
    weights = np.array([1.0, 2.0, 0.5, 1.0])
    D = gower_distances(X, categorical=[1], ordinal=[3], weights=weights)
    expected = _gower_by_definition(X, {1}, weights)
    assert np.array_equal(np.isnan(D), np.isnan(expected))
    np.testing.assert_allclose(D[~np.isnan(D)], expected[~np.isnan(expected)], rtol=1e-12, atol=1e-15)
    assert np.all(D[~np.isnan(D)] <= 1.0 + 1e-12) and np.allclose(np.diag(D), 0.0)


def test_without_gaps_gower_is_a_manhattan_distance_on_scaled_columns_and_one_hot_halves():
    rng = np.random.default_rng(1)
    X = _mixed(rng, gaps=0.0)
    span = X.max(axis=0) - X.min(axis=0)
    one_hot = 0.5 * (X[:, 1][:, None] == np.arange(4)[None, :])
    Z = np.column_stack([X[:, 0] / span[0], one_hot, X[:, 2] / span[2], X[:, 3] / span[3]])
    manhattan = np.abs(Z[:, None, :] - Z[None, :, :]).sum(-1) / X.shape[1]
    np.testing.assert_allclose(gower_distances(X, categorical=[1]), manhattan, rtol=1e-12, atol=1e-15)


def test_the_index_finds_the_nearest_rows_of_the_matrix():
    rng = np.random.default_rng(2)
    X = _mixed(rng, n=60)
    params = {"categorical": [1], "ordinal": [3]}
    D = gower_distances(X, **params)
    np.fill_diagonal(D, np.inf)
    dist, idx = GowerIndex("gower", params).build(X).query(X, 5, exclude_self=True)
    D = np.where(np.isnan(D), np.inf, D)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :5], rtol=1e-12)
    assert np.all(np.take_along_axis(D, idx, axis=1) == dist)  # each index is at its distance
    assert not np.any(idx == np.arange(60)[:, None])


@pytest.mark.parametrize(
    "params, X, message",
    [
        ({"categorical": [5]}, np.ones((3, 2)), "names column 5"),
        ({"categorical": [0], "ordinal": [0]}, np.ones((3, 2)), "both as categorical and as ordinal"),
        ({"weights": [1.0, -1.0]}, np.ones((3, 2)), "non-negative weights"),
        ({"scale": 1}, np.ones((3, 2)), "takes"),
        ({}, np.array([[1.0, 2.0], [np.nan, np.nan], [0.0, 1.0]]), "row 1 has no value"),
    ],
)
def test_bad_gower_input_is_named(params, X, message):
    with pytest.raises(ValueError, match=message):
        GowerIndex("gower", params).build(X)


def test_mixed_codes_of_a_dataframe_keep_kinds_orders_and_known_levels():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "island": ["Dream", "Biscoe", None, "Dream"],
            "mass": [3.5, np.nan, 4.0, 5.0],
            "size": pd.Categorical(["S", "L", "M", "S"], categories=["S", "M", "L"], ordered=True),
            "ok": [True, False, True, True],
            "region": [3, 1, 3.0, 2],
        }
    )
    codes = mixed_codes(frame, categorical=["region"])
    assert codes.kinds == ["categorical", "numeric", "ordinal", "categorical", "categorical"]
    assert codes.levels["island"] == ["Biscoe", "Dream"] and codes.levels["size"] == ["S", "M", "L"]
    assert codes.levels["region"] == ["1", "2", "3"]  # 3 and 3.0 are one category
    np.testing.assert_array_equal(codes.X[:, 0], [1.0, 0.0, np.nan, 1.0])
    np.testing.assert_array_equal(codes.X[:, 2], [0.0, 2.0, 1.0, 0.0])
    assert codes.metric_params == {"categorical": [0, 3, 4], "ordinal": [2]}
    new = mixed_codes(frame.assign(island=["Torgersen", "Dream", "Biscoe", None]), levels=codes.levels)
    np.testing.assert_array_equal(new.X[:, 0], [2.0, 1.0, 0.0, np.nan])  # an unseen island after the known


def test_number_categories_are_coded_by_value_whatever_the_new_columns_type():
    pd = pytest.importorskip("pandas")
    fitted = mixed_codes(pd.DataFrame({"region": pd.Categorical([1, 2, 3, 1]), "size": pd.Categorical([1.0, 2.5] * 2)}))
    assert fitted.levels == {"region": ["1", "2", "3"], "size": ["1.0", "2.5"]}
    # an int column with a gap becomes floats in pandas; a float category may come back as an int
    new = pd.DataFrame({"region": [1.0, np.nan, 3.0], "size": [1, 2.5, 7]})
    codes = mixed_codes(new, levels=fitted.levels)
    np.testing.assert_array_equal(codes.X, [[0.0, 0.0], [np.nan, 1.0], [2.0, 2.0]])  # 7: a category of its own


def test_number_categories_beyond_int64_keep_one_code_each():
    codes = mixed_codes(np.array([[1e154, 1.0], [2e154, 2.0], [3.0, 3.0], [-1e19, 4.0]]), categorical=[0])
    assert codes.levels["x0"] == ["-1e+19", "1e+154", "2e+154", "3"]
    assert len(set(codes.X[:, 0])) == 4


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("make", [lowdim.FAMD, lambda: lowdim.KPrototypes(2, random_state=0)], ids=["famd", "kproto"])
def test_numbers_too_large_to_square_are_named_by_the_methods_of_categories(make):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"size": rng.normal(size=30) * 1e154, "kind": rng.choice(["a", "b"], 30)})
    frame.loc[3, "size"] = np.nan  # a gap does not hide the size of the others
    with pytest.raises(ValueError, match="overflow while centering/scaling: X has values as large as"):
        make().fit(frame)


def test_durations_are_numbers_of_seconds_as_the_parquet_reader_reads_them():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"wait": pd.to_timedelta([90, None, 3600], unit="s"), "desk": ["a", "b", "a"]})
    codes = mixed_codes(frame)
    assert codes.kinds == ["numeric", "categorical"]
    np.testing.assert_array_equal(codes.X[:, 0], [90.0, np.nan, 3600.0])


def test_an_ordered_category_outside_its_order_is_named():
    with pytest.raises(ValueError, match="'XL' is not among the ordered categories"):
        code_categories(["S", "XL"], "size", order=["S", "M", "L"])


def knn_accuracy(Y, y, n_neighbors):
    """Leave-one-out accuracy of the majority of each point's nearest others (every
    point scored: no random split to make the figure depend on a seed)."""
    _, idx = nearest_neighbors(Y, n_neighbors)
    votes = np.asarray(y)[idx]
    predicted = np.array([max(sorted(set(v)), key=list(v).count) for v in votes])
    return float(np.mean(predicted == np.asarray(y)))


@pytest.fixture(scope="module")
def penguins():
    table, species = lowdim.load_penguins()
    return table, species


def test_penguins_ship_with_their_gaps_and_categories(penguins):
    table, species = penguins
    assert table.X.shape == (344, 7) and sorted(set(species)) == ["Adelie", "Chinstrap", "Gentoo"]
    assert table.kinds == ["categorical", "numeric", "numeric", "numeric", "numeric", "categorical", "numeric"]
    assert int(np.isnan(table.X).sum()) == 19  # 2 penguins unmeasured, 11 without sex


def test_umap_with_gower_separates_the_penguin_species(penguins):
    table, species = penguins
    Y = lowdim.UMAP(metric="gower", metric_kwds=table.metric_params, random_state=0).fit_transform(table.X)
    assert np.isfinite(Y).all()
    assert knn_accuracy(Y, species, n_neighbors=10) >= 0.95


@pytest.mark.parametrize(
    "make",
    [
        lambda p: lowdim.TSNE(metric="gower", metric_params=p, random_state=0),
        lambda p: lowdim.Isomap(metric="gower", metric_params=p),
        lambda p: lowdim.HDBSCAN(metric="gower", metric_params=p),
        lambda p: lowdim.DiffusionMap(metric="gower", metric_params=p, random_state=0),
    ],
    ids=["tsne", "isomap", "hdbscan", "diffusion"],
)
def test_neighbour_methods_take_gower_with_gaps(penguins, make):
    table, species = penguins
    model = make(table.metric_params).fit(table.X)
    if hasattr(model, "embedding_"):
        assert np.isfinite(model.embedding_).all()
        assert knn_accuracy(model.embedding_, species, n_neighbors=10) >= 0.9
    else:
        assert len(set(model.labels_[model.labels_ >= 0])) >= 2


def test_a_diffusion_map_by_gower_places_the_tables_rows_where_fit_put_them(penguins):
    frame, species = lowdim.load_penguins(as_frame=True)
    model = lowdim.DiffusionMap(metric="gower", random_state=0).fit(frame)
    assert model.kinds_[0] == "categorical" and np.isnan(model.X_fit_).any()  # coded, gaps kept
    extent = np.ptp(model.embedding_, axis=0).max()
    np.testing.assert_allclose(model.transform(frame.iloc[:30]), model.embedding_[:30], atol=1e-6 * extent)


@pytest.mark.parametrize(
    "make",
    [
        lambda metric: lowdim.DBSCAN(eps=0.1, min_samples=5, metric=metric),
        lambda metric: lowdim.OPTICS(min_samples=10, metric=metric),
        lambda metric: lowdim.OPTICS(min_samples=10, metric=metric, cluster_method="dbscan", eps=0.1),
    ],
    ids=["dbscan", "optics-xi", "optics-dbscan"],
)
def test_density_clusterings_by_gower_are_those_of_the_gower_matrix(penguins, make):
    # the penguins' DataFrame as it is (categories, gaps): the labels of the precomputed
    # Gower matrix, where two rows that share no column are at an infinite distance
    table, species = penguins
    frame, _ = lowdim.load_penguins(as_frame=True)
    D = gower_distances(table.X, **table.metric_params)
    model = make("gower").fit(frame)
    np.testing.assert_array_equal(model.labels_, make("precomputed").fit(np.where(np.isnan(D), np.inf, D)).labels_)
    assert model.kinds_ == table.kinds and len(set(model.labels_[model.labels_ >= 0])) >= 2
    apart = np.array([[1.0, np.nan], [np.nan, 1.0], [1.0, np.nan], [np.nan, 1.0]])  # rows 0, 1 share no column
    assert len(set(make("gower").set_params(min_samples=2).fit(apart).labels_)) == 2


def test_a_neighbor_graph_by_gower_feeds_any_neighbour_method(penguins):
    table, _ = penguins
    graph = lowdim.NeighborGraph.build(table.X, 15, metric="gower", metric_params=table.metric_params)
    D = gower_distances(table.X, **table.metric_params)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(np.where(np.isnan(D), np.inf, D), axis=1)[:, 14]
    np.testing.assert_allclose(graph.distances[:, -1], kth, rtol=1e-6)


def _write(path, text):
    path.write_text(text)
    return str(path)


def test_text_columns_are_read_as_categories_with_gaps_kept(tmp_path):
    path = _write(
        tmp_path / "t.csv",
        "species,island,mass,sex,size\nA,Dream,3.5,male,S\nB,Biscoe,NA,,L\nA,Dream,4.0,female,M\nB,Torg,5,male,S\n",
    )
    table = read_table(path, label_column="species", ordinal={"size": ["S", "M", "L"]})
    assert table.kinds == ["categorical", "numeric", "categorical", "ordinal"]
    assert table.levels["island"] == ["Biscoe", "Dream", "Torg"] and table.levels["size"] == ["S", "M", "L"]
    np.testing.assert_array_equal(table.X[:, 3], [0.0, 2.0, 1.0, 0.0])
    assert np.isnan(table.X[1, 1]) and np.isnan(table.X[1, 2])
    assert any("'island' read as categories (3 levels" in n for n in table.notes)
    assert any("kept as missing values" in n for n in table.notes)
    # the note says what each method that keeps gaps does with them (FAMD's are not compared pair by pair)
    assert any("FAMD and MCA read a gap as its column's mean or a category 'missing'" in n for n in table.notes)
    imputed = read_table(path, label_column="species", missing="impute")
    assert imputed.X[1, 2] == 1.0  # the most frequent sex (male), not a mean of codes


def test_codes_declared_categorical_and_typos_still_named(tmp_path):
    path = _write(tmp_path / "c.csv", "region,x\n3,1.0\n1,2.0\n3,2.5\n")
    assert read_table(path, categorical=["region"]).kinds == ["categorical", "numeric"]
    typo = _write(tmp_path / "typo.csv", "a,b\n1,2\n3,4\n5,x\n7,8\n")
    with pytest.raises(DataFileError, match="line 4, column 2: 'x' is not a number.*--categorical"):
        read_table(typo)


def test_cli_maps_the_penguins_with_no_extra_option(tmp_path, capsys):
    import os

    out = tmp_path / "map.csv"
    csv = os.path.join(os.path.dirname(lowdim.datasets.__file__), "data", "penguins", "penguins.csv")
    code = main(["embed", csv, "-m", "umap", "--label-column", "species", "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "Gower's distance" in text and "'island' read as categories" in text
    Y = np.loadtxt(out, delimiter=",", skiprows=1, usecols=(0, 1))
    species = np.genfromtxt(out, delimiter=",", skip_header=1, usecols=2, dtype=str)
    assert knn_accuracy(Y, species, n_neighbors=10) >= 0.95


@pytest.mark.parametrize(
    "argv, message",
    [
        (["embed", "--dataset", "penguins", "-m", "pca"], "pca compares numbers, but 2 column"),
        (["embed", "--dataset", "penguins", "-m", "pca"], "class labels is named with --label-column (sex?)"),
        (["embed", "--dataset", "penguins", "-m", "pca"], "use famd, or a method that works from distances"),
        # a clustering is pointed at the clusterings of such a table, not at an embedding
        (["cluster", "--dataset", "penguins", "-m", "kmeans", "-k", "3"], "use kprototypes, or a method"),
        (
            ["cluster", "--dataset", "penguins", "-m", "gmm", "-k", "3"],
            "(kmedoids, hdbscan, optics, dbscan, agglomerative, leiden, louvain: Gower's",
        ),
        # only the methods whose metric takes 'gower' are offered, and a metric the user set that is not
        # Gower's is refused by the CLI (DBSCAN, OPTICS and the diffusion map were set to 'gower' before
        # they took it, and failed)
        (["embed", "--dataset", "penguins", "-m", "umap", "--param", "metric=cosine"], "leave --param metric unset"),
        (["embed", "--dataset", "penguins", "-m", "pca"], "(mds, isomap, spectral, diffusion, phate, trimap, sne"),
        (["pca", "--dataset", "penguins", "--missing", "drop"], "pca compares numbers, but 2 column"),
        (["embed", "--dataset", "penguins", "-m", "umap", "--standardize"], "--standardize works on numbers"),
        (["embed", "--dataset", "penguins", "-m", "umap", "--ordinal", "size"], "--ordinal 'size'"),
        (["report", "--dataset", "penguins", "--methods", "ica", "-o", "r.html"], "none of the methods (ica)"),
        (["report", "--dataset", "penguins", "--cluster", "kmeans", "-o", "r.html"], "kmeans compares numbers"),
    ],
)
def test_cli_refuses_numeric_steps_on_categories(tmp_path, capsys, argv, message):
    argv = [str(tmp_path / a) if a.endswith(".html") else a for a in argv]
    assert main([*argv] if "-o" in argv else [*argv, "-o", str(tmp_path / "o.csv")]) == 2
    assert message in capsys.readouterr().err


def test_a_table_of_categories_only_is_pointed_at_the_methods_of_categories(tmp_path, capsys):
    path = tmp_path / "codes.csv"
    path.write_text("colour,size\n" + "red,small\nblue,large\ngreen,small\n" * 10)
    assert main(["cluster", str(path), "-m", "kmeans", "-k", "2", "-o", str(tmp_path / "c.csv")]) == 2
    assert "use kprototypes or kmodes, or a method" in capsys.readouterr().err
    assert main(["embed", str(path), "-m", "ica", "-o", str(tmp_path / "e.csv")]) == 2
    assert "use mca or famd, or a method" in capsys.readouterr().err


def test_explore_colours_category_columns_by_category(tmp_path, capsys):
    from test_explore import unpack

    out = tmp_path / "map.html"
    code = main(["explore", "--dataset", "penguins", "--methods", "pca,umap", "-o", str(out)])
    assert code == 0 and "skipped pca" in capsys.readouterr().out
    header, blob = unpack(out.read_text())
    fields = {f["name"]: f for f in header["fields"]}
    assert fields["island"]["kind"] == "category" and fields["island"]["categories"] == ["Biscoe", "Dream", "Torgersen"]
    assert fields["sex"]["kind"] == "category" and "missing" in fields["sex"]["categories"]
    assert fields["body_mass_g"]["kind"] == "number"


def test_report_of_a_mixed_table_scores_gower_maps_and_colours_by_category(tmp_path, capsys):
    from test_explore import unpack

    out = tmp_path / "report.html"
    code = main(["report", "--dataset", "penguins", "--methods", "pca,umap,mds", "-o", str(out)])
    said = capsys.readouterr().out
    assert code == 0 and "famd in place of pca" in said and "Gower's distance" in said
    page = out.read_text()
    assert "FAMD scree plot" not in page and "inertia (FAMD" in page  # the scree plot is a picture; its note
    header, _ = unpack(page)
    assert [m["name"].split(" (")[0] for m in header["maps"]] == ["famd", "umap", "mds"]
    fields = {f["name"]: f for f in header["fields"]}
    assert fields["island"]["kind"] == "category" and fields["island"]["categories"] == ["Biscoe", "Dream", "Torgersen"]
    table, species = lowdim.load_penguins()
    umap = lowdim.UMAP(metric="gower", metric_kwds=table.metric_params, random_state=0).fit_transform(table.X)
    expected = lowdim.metrics.trustworthiness(
        table.X, umap, n_neighbors=10, metric="gower", metric_params=table.metric_params, random_state=0
    )
    assert f"trustworthiness {expected:.3f}" in said  # the report scores by Gower's distance


def _grouped_table(rng, n=3000, gaps=0.0):
    group = rng.integers(0, 6, n)
    X = np.column_stack(
        [rng.normal(size=n) + group, rng.integers(0, 3, n), (group * 5 + rng.integers(0, 12, n)) % 40]
        + [rng.exponential(size=n) * (1 + group)]
    ).astype(float)
    X[rng.random(X.shape) < gaps] = np.nan
    return X


def test_the_approximate_index_finds_the_nearest_rows_at_their_exact_distances():
    """Candidates searched in the encoded space, re-ranked by exact Gower: nearly every
    true neighbour found on a table without gaps, every distance returned exact."""
    pytest.importorskip("faiss")
    X = _grouped_table(np.random.default_rng(9))
    params = {"categorical": [1, 2]}
    d_exact, i_exact = GowerIndex("gower", params).build(X).query(X, 10, exclude_self=True)
    approximate = GowerIndex("gower", params, approximate=True).build(X)
    d_approx, i_approx = lowdim.neighbors.self_neighbors(approximate, X, 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(i_exact.tolist(), i_approx.tolist())])
    assert recall >= 0.95
    assert not np.any(i_approx == np.arange(3000)[:, None])
    D = gower_distances(X, **params)
    np.testing.assert_allclose(d_approx, np.take_along_axis(D, i_approx.astype(np.int64), axis=1), rtol=1e-6)
    assert np.all(d_approx[:, -1] >= d_exact[:, -1] - 1e-6)  # never nearer than the true 10th
    new_d, _ = approximate.query(X[:50], 5)
    np.testing.assert_allclose(new_d[:, 0], 0.0)  # a row finds itself (or a row equal to it) first
    assert lowdim.neighbors.make_index("auto", "gower", 50_000).approximate is True
    assert lowdim.neighbors.make_index("auto", "gower", 5_000).approximate is False


def test_with_gaps_neighbours_of_neighbours_only_bring_rows_nearer():
    """A table with gaps: the refinement rounds replace a neighbour only by a nearer row,
    and what they return is at its exact distance."""
    pytest.importorskip("faiss")
    X = _grouped_table(np.random.default_rng(10), gaps=0.05)
    params = {"categorical": [1, 2]}
    index = GowerIndex("gower", params, approximate=True).build(X)
    first = [index._query_indexed(a, min(a + 1000, 3000), 10) for a in range(0, 3000, 1000)]
    d0, i0 = np.vstack([b[0] for b in first]), np.vstack([b[1] for b in first])
    d1, i1 = index.repair_self_query(d0.astype(np.float32), i0.astype(np.int32))
    assert np.all(d1 <= d0 + 1e-6) and np.all(np.diff(d1, axis=1) >= -1e-6)
    D = gower_distances(X, **params)
    np.testing.assert_allclose(d1, np.take_along_axis(D, i1.astype(np.int64), axis=1), rtol=1e-6)


@pytest.mark.parametrize("name", ["UMAP", "TSNE"])
def test_gower_maps_of_a_graph_in_pieces_start_apart_and_stay_finite(name):
    """Two groups sharing no category: the neighbour graph falls apart, and the spectral
    start joins its pieces by Gower's distance (no centroids of category codes)."""
    rng = np.random.default_rng(12)
    X = np.column_stack([np.repeat([0.0, 1.0], 40), rng.normal(size=80), np.repeat([0.0, 1.0], 40)])
    params = {"categorical": [0, 2]}
    key = "metric_kwds" if name == "UMAP" else "metric_params"
    extra = {"n_neighbors": 5} if name == "UMAP" else {"perplexity": 5.0}
    Y = getattr(lowdim, name)(metric="gower", random_state=0, **{key: params}, **extra).fit_transform(X)
    assert np.isfinite(Y).all()
    assert knn_accuracy(Y, np.repeat([0, 1], 40), 5) == 1.0


def test_the_penguins_as_a_frame_code_back_to_the_shipped_table(penguins):
    table, species = penguins
    frame, same = lowdim.load_penguins(as_frame=True)
    assert list(frame.columns) == table.names and np.array_equal(same, species)
    assert [str(frame[c].dtype) for c in ("island", "sex")] == ["category", "category"]
    codes = mixed_codes(frame)
    assert codes.kinds == table.kinds and codes.levels == table.levels
    np.testing.assert_array_equal(codes.X, table.X)  # gaps included
