"""metric='gower' on a DataFrame as it is (text, boolean, date and category columns,
gaps): every method that compares rows by Gower's distance codes it in ``fit`` and gives
what the same method gives the codes with their ``metric_params``; new tables get the
fit's codes, also through a model file."""

import numpy as np
import pytest

import lowdim
from lowdim.exceptions import UntrustedModelError
from lowdim.neighbors import KNeighborsTransformer
from lowdim.neural import ParametricUMAP
from lowdim.preprocessing import mixed_codes

pd = pytest.importorskip("pandas")
# the three groups are far apart by design: the neighbour graphs come in pieces
pytestmark = pytest.mark.filterwarnings("ignore:the UMAP neighbour graph has")

NETWORK = {"hidden_layer_sizes": (8,), "n_epochs": 5, "random_state": 0}  # its arrays, not what it learns
MAKERS = {
    "umap": lambda p: lowdim.UMAP(metric="gower", metric_kwds=p, n_neighbors=8, n_epochs=30, random_state=0),
    "tsne": lambda p: lowdim.TSNE(metric="gower", metric_params=p, perplexity=5, max_iter=250, random_state=0),
    "sne": lambda p: lowdim.SNE(metric="gower", metric_params=p, perplexity=5, max_iter=100, random_state=0),
    "pacmap": lambda p: lowdim.PaCMAP(distance="gower", metric_params=p, n_neighbors=6, num_iters=60, random_state=0),
    "isomap": lambda p: lowdim.Isomap(metric="gower", metric_params=p, n_neighbors=8),
    "spectral": lambda p: lowdim.SpectralEmbedding(metric="gower", metric_params=p, n_neighbors=8, random_state=0),
    "mds": lambda p: lowdim.MDS(2, metric="gower", metric_params=p, solver="classical"),
    "hdbscan": lambda p: lowdim.HDBSCAN(metric="gower", metric_params=p, min_cluster_size=5),
    "kmedoids": lambda p: lowdim.KMedoids(3, metric="gower", metric_params=p, random_state=0),
    "parametric-umap": lambda p: ParametricUMAP(metric="gower", metric_kwds=p, n_neighbors=8, **NETWORK),
    "parametric-tsne": lambda p: lowdim.ParametricTSNE(metric="gower", metric_params=p, perplexity=5, **NETWORK),
}


def _table(n=45, seed=0):
    """Three groups of rows with a number, a text column (one gap), a boolean, a date
    and an ordered category, each following the group."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % 3
    frame = pd.DataFrame(
        {
            "size": rng.normal(size=n) + 3.0 * group,
            "colour": np.array(["red", "green", "blue"], dtype=object)[group],
            "flag": group == 1,
            "day": pd.Timestamp("2020-01-01") + pd.to_timedelta(100 * group + rng.integers(0, 9, n), unit="D"),
            "grade": pd.Categorical(np.array(["low", "mid", "high"])[group], ["low", "mid", "high"], ordered=True),
        }
    )
    frame.loc[4, "colour"] = None
    return frame


def test_a_table_is_coded_as_mixed_codes_codes_it():
    frame = _table()
    model = lowdim.UMAP(metric="gower", metric_kwds={"weights": [1, 2, 1, 1, 1]}, n_neighbors=8, n_epochs=5)
    model.fit(frame)
    codes = mixed_codes(frame)
    assert model.kinds_ == ["numeric", "categorical", "categorical", "numeric", "ordinal"] == codes.kinds
    assert model.categories_ == [None, ["blue", "green", "red"], ["False", "True"], None, ["low", "mid", "high"]]
    assert model._distance_params() == {"weights": [1, 2, 1, 1, 1], "categorical": [1, 2], "ordinal": [4]}
    np.testing.assert_array_equal(model.X_fit_, codes.X)  # the gap kept as NaN
    assert model.feature_names_in_.tolist() == list(frame.columns)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("name", list(MAKERS))
def test_each_method_fits_the_table_as_it_fits_its_codes(name):
    frame = _table()
    codes = mixed_codes(frame)
    by_codes = MAKERS[name](codes.metric_params).fit(codes.X)
    by_table = MAKERS[name](None).fit(frame)
    for attribute in ("embedding_", "labels_"):
        if hasattr(by_codes, attribute):
            np.testing.assert_array_equal(getattr(by_table, attribute), getattr(by_codes, attribute))
    if hasattr(by_codes, "transform"):
        new = frame.iloc[[0, 7, 20]]
        expected = by_codes.transform(codes.X[[0, 7, 20]])
        np.testing.assert_allclose(by_table.transform(new), expected, rtol=1e-12, atol=1e-12)
        # an array of numbers is read as the codes themselves
        np.testing.assert_allclose(by_table.transform(codes.X[[0, 7, 20]]), expected, rtol=1e-12, atol=1e-12)


def test_new_tables_get_the_fits_codes_and_an_unseen_category_a_code_of_its_own():
    frame = _table()
    codes = mixed_codes(frame)
    model = lowdim.KMedoids(3, metric="gower", random_state=0).fit(frame)
    by_codes = lowdim.KMedoids(3, metric="gower", metric_params=codes.metric_params, random_state=0).fit(codes.X)
    new = frame.iloc[[1, 2, 4]].copy()  # green and blue (blue is code 0 in the fit, and would be here alone)
    new["colour"] = ["green", "green", "purple"]
    coded = mixed_codes(new, levels=codes.levels).X
    assert coded[:, 1].tolist() == [1.0, 1.0, 3.0]  # purple: a code equal to none of the fit's
    np.testing.assert_allclose(model.transform(new), by_codes.transform(coded), rtol=1e-12, atol=1e-15)
    recoded = by_codes.transform(mixed_codes(new).X)  # coded afresh, green would be 0: blue's code
    assert not np.allclose(model.transform(new), recoded)


def test_a_table_fitted_model_comes_back_from_its_file_and_codes_new_tables(tmp_path):
    frame = _table()
    model = lowdim.UMAP(metric="gower", n_neighbors=8, n_epochs=30, random_state=0).fit(frame)
    lowdim.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.load(tmp_path / "m.lowdim")
    assert loaded.kinds_ == model.kinds_ and loaded.categories_ == model.categories_
    np.testing.assert_array_equal(loaded.transform(frame.iloc[:6]), model.transform(frame.iloc[:6]))


@pytest.mark.parametrize(
    "attributes",
    [{"kinds_": ["numeric"] * 4 + ["weird"]}, {"categories_": [None, [1, 2], None, None, None]}, {"kinds_": 7}],
    ids=["unknown-kind", "levels-not-text", "not-a-list"],
)
def test_a_file_with_a_broken_coding_is_refused(tmp_path, attributes):
    from test_model_hostile import _edit

    model = lowdim.KMedoids(3, metric="gower", random_state=0).fit(_table())
    lowdim.save(model, tmp_path / "m.lowdim")
    with pytest.raises(UntrustedModelError, match="column_names_, kinds_ and categories_"):
        lowdim.load(_edit(tmp_path / "m.lowdim", attributes=attributes))


def test_wrong_tables_are_named_with_the_fix():
    frame = _table()
    model = lowdim.KMedoids(3, metric="gower", random_state=0).fit(frame)
    wordy = frame.iloc[:3].copy()
    wordy["size"] = ["big", "small", "big"]
    with pytest.raises(ValueError, match=r"column 'size' held numbers in fit but holds text now.*pd.to_numeric"):
        model.transform(wordy)
    off_scale = frame.iloc[:3].copy()
    off_scale["grade"] = ["low", "top", "mid"]
    with pytest.raises(ValueError, match=r"'top' is not among the ordered categories"):
        model.transform(off_scale)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        model.transform(frame.iloc[:3, ::-1])
    with pytest.raises(ValueError, match=r"lists column 1 \('colour'\), which holds text: its order is unknown"):
        lowdim.KMedoids(3, metric="gower", metric_params={"ordinal": [1]}).fit(frame)
    on_codes = lowdim.KMedoids(3, metric="gower", metric_params={"categorical": [1]}).fit(mixed_codes(frame).X)
    with pytest.raises(TypeError, match=r"fitted on numbers \(codes\), but columns colour, flag, day, grade.*levels="):
        on_codes.transform(frame.iloc[:3])


def test_readers_of_numbers_name_the_text_columns_and_the_coding():
    with pytest.raises(TypeError, match=r"reads numbers, but columns colour, flag, day, grade hold.*mixed_codes\(df\)"):
        KNeighborsTransformer(metric="gower", n_neighbors=5).fit(_table())


def test_a_refit_on_numbers_forgets_the_tables_coding():
    model = lowdim.MDS(2, metric="gower", solver="classical", init="random").fit(_table())
    assert model.kinds_[1] == "categorical"
    model.fit(np.random.default_rng(0).normal(size=(20, 3)))
    assert not hasattr(model, "kinds_") and model._distance_params() is None


@pytest.mark.parametrize("name", list(MAKERS))
def test_the_coding_attributes_are_documented(name):
    from numpydoc.docscrape import ClassDoc

    model = MAKERS[name](None).fit(_table())
    documented = {part.strip() for item in ClassDoc(type(model))["Attributes"] for part in item.name.split(",")}
    assert {"column_names_", "kinds_", "categories_"} <= documented


@pytest.mark.parametrize("name", ["umap", "pacmap"])
def test_a_sweep_over_a_table_builds_its_graph_from_the_fits_codes(name):
    frame = _table(60)
    codes = mixed_codes(frame)
    param = "n_neighbors"
    on_table = lowdim.sweep(MAKERS[name](None), param, [5, 8], frame)
    on_codes = [MAKERS[name](codes.metric_params).set_params(**{param: v}).fit(codes.X) for v in (5, 8)]
    for a, b in zip(on_table, on_codes):
        np.testing.assert_allclose(a.embedding_, b.embedding_, rtol=1e-6, atol=1e-6)
        assert a.kinds_ == codes.kinds  # each map codes new tables as the fit did


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: lowdim.UMAP(n_neighbors=5, n_epochs=10, random_state=0, **kw),
        lambda **kw: lowdim.Isomap(n_neighbors=5, **kw),
    ],
    ids=["umap", "isomap"],
)
def test_rows_at_gower_distance_0_are_not_called_copies(make):
    # the penguins gallery said "80 samples have a duplicate": two birds without measurements
    # are at distance 0 from every bird of their island and year, and those are no copies
    table = _table(60)
    table.loc[0, ["size", "day", "grade"]] = np.nan  # only its colour and flag left to compare
    with pytest.warns(UserWarning, match="have another row at Gower's distance 0 \\(equal on every column both hold"):
        make(metric="gower").fit(table)
    copies = np.repeat(np.random.default_rng(0).normal(size=(20, 3)), 2, axis=0)
    with pytest.warns(UserWarning, match="40 samples have a duplicate \\(another row at distance 0\\)"):
        make().fit(copies)
