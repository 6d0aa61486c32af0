"""Parametric UMAP and t-SNE: each map is an encoder trained on its method's own graph
and loss, so new rows land with their neighbours by one forward pass; a seed fixes it,
model files keep the networks as data, a diverging run stops naming the edge, and what
it cannot do is refused by name. Then what each method's loss promises of its own."""

import re
import warnings

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

import lowdim
import lowdim.exceptions
import lowdim.io
from lowdim.neural import ParametricTSNE, ParametricUMAP

MAPS = [ParametricUMAP, ParametricTSNE]
COMMANDS = {ParametricUMAP: "parametric-umap", ParametricTSNE: "parametric-tsne"}
SMALL = dict(hidden_layer_sizes=(32, 32), n_epochs=60, batch_size=256)
CENTRES = np.random.default_rng(0).normal(scale=6.0, size=(3, 10))  # about 12 apart, unit spread around


def _blobs(n_per, seed):
    """Points of three well-separated Gaussian groups (the same centres for every seed),
    and their group."""
    y = np.repeat(np.arange(3), n_per)
    return CENTRES[y] + np.random.default_rng(seed).normal(size=(y.size, CENTRES.shape[1])), y


@pytest.fixture(scope="module", params=MAPS, ids=lambda cls: cls.__name__)
def fitted(request):
    X, y = _blobs(150, seed=1)
    return X, y, request.param(random_state=0, **SMALL).fit(X)


def test_new_rows_land_with_their_group_and_training_rows_where_fitted(fitted):
    X, y, model = fitted
    X_new, y_new = _blobs(40, seed=2)
    knn = KNeighborsClassifier(10).fit(model.embedding_, y)
    assert knn.score(model.transform(X_new), y_new) == 1.0
    np.testing.assert_array_equal(model.transform(X), model.embedding_)  # one function for both
    assert model.loss_curve_[-1] < model.loss_curve_[0] and model.n_iter_ == SMALL["n_epochs"]


@pytest.mark.parametrize("cls", MAPS)
def test_a_seed_fixes_the_weights_and_another_seed_changes_them(cls):
    X, _ = _blobs(60, seed=3)
    fit = dict(hidden_layer_sizes=(8,), n_epochs=10, batch_size=64)
    a, b, c = (cls(random_state=s, **fit).fit(X) for s in (5, 5, 6))
    np.testing.assert_array_equal(a.encoder_weights_, b.encoder_weights_)
    assert not np.array_equal(a.encoder_weights_, c.encoder_weights_)


def test_the_model_file_holds_the_networks_and_applies_them(tmp_path, fitted):
    X, _, model = fitted
    lowdim.io.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.io.load(tmp_path / "m.lowdim")
    np.testing.assert_array_equal(loaded.transform(X), model.transform(X))
    assert loaded.decoder_weights_ is None
    name = type(model).__name__
    with pytest.raises(ValueError, match=f"This {name} was trained without a decoder.*parametric_reconstruction=True"):
        loaded.inverse_transform(model.embedding_)


@pytest.mark.parametrize("cls", MAPS)
def test_with_a_decoder_points_of_the_map_map_back_near_their_rows(cls):
    X, _ = _blobs(100, seed=4)
    model = cls(parametric_reconstruction=True, random_state=0, **SMALL).fit(X)
    back = model.inverse_transform(model.embedding_)
    # far closer to each row than the rows' overall mean is (most variance is between groups)
    assert np.mean((back - X) ** 2) < 0.25 * np.mean((X - X.mean(0)) ** 2)


@pytest.mark.parametrize(
    "cls, bad, message",
    [
        (ParametricUMAP, {"min_dist": 2.0}, "min_dist=2 must be at most spread=1"),
        (ParametricTSNE, {"perplexity": -1.0}, "perplexity"),
    ],
)
def test_what_it_cannot_do_is_refused_before_the_data_are_read(cls, bad, message):
    X, _ = _blobs(20, seed=5)
    method = cls.__name__.removeprefix("Parametric")
    with pytest.raises(ValueError, match=f"metric='precomputed' gives none. Pass the rows, or use {method}"):
        cls(metric="precomputed").fit(X)
    with pytest.raises(ValueError, match=message):
        cls(**bad).fit(np.full((20, 3), np.nan))
    with pytest.raises(ValueError, match="hidden_layer_sizes must hold positive integers"):
        cls(hidden_layer_sizes=(4, 0)).fit(X)


@pytest.mark.parametrize("cls", MAPS)
def test_a_diverging_run_stops_naming_the_epoch_and_the_edge_and_keeps_good_weights(cls):
    X, _ = _blobs(30, seed=8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = cls(hidden_layer_sizes=(8,), learning_rate=1e30, n_epochs=20, random_state=0).fit(X)
    messages = [str(w.message) for w in caught if "not finite" in str(w.message)]
    assert len(messages) == 1 and re.search(r"at epoch \d+ \(the edge between rows \d+ and \d+ is", messages[0])
    assert np.isfinite(model.encoder_weights_).all() and model.n_iter_ < 20


@pytest.mark.parametrize("cls", MAPS)
def test_a_mixed_table_with_gaps_is_mapped_and_its_gap_rows_land_with_their_kind(tmp_path, cls):
    """Gower's distance compares rows over the values they share; the encoder reads a gap
    as the coding places it (a number's mean, halfway between the categories). The
    penguins with gaps (one with no measurement at all) are placed among their own
    species, as UMAP's map places them; the map was refused before, and came out NaN
    before that."""
    import pandas as pd

    from lowdim.cli.main import main

    table, species = lowdim.load_penguins()
    gaps = np.isnan(table.X).any(axis=1)
    assert gaps.sum() == 11
    key = "metric_kwds" if cls is ParametricUMAP else "metric_params"
    model = cls(metric="gower", **{key: table.metric_params}, random_state=0).fit(table.X)
    Y = model.embedding_
    assert np.isfinite(Y).all()
    np.testing.assert_allclose(model.transform(table.X[gaps]), Y[gaps], rtol=1e-12, atol=1e-12)  # BLAS blocks
    y = np.asarray(species)
    placed = KNeighborsClassifier(5).fit(Y[~gaps], y[~gaps]).predict(Y[gaps])
    assert np.mean(placed == y[gaps]) >= 9 / 11
    out = tmp_path / "map.csv"
    fit = ["--param", "hidden_layer_sizes=(8,)", "--param", "n_epochs=3", "-o", str(out), "--quiet"]
    assert main(["embed", "--dataset", "penguins", "-m", COMMANDS[cls], *fit]) == 0
    mapped = pd.read_csv(out).filter(like=COMMANDS[cls]).to_numpy()
    assert mapped.shape == (344, 2) and np.isfinite(mapped).all()


@pytest.mark.parametrize("cls", MAPS)
def test_a_dataframe_of_categories_and_numbers_goes_in_as_it_is(tmp_path, cls):
    """As UMAP(metric='gower') and the other Gower methods: a DataFrame with text,
    boolean and date columns is coded in fit (the same map as its codes give), new rows
    by the fit's levels, and a saved model codes them again after loading."""
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "size": np.r_[rng.normal(0, 1, 60), rng.normal(6, 1, 60)],
            "colour": np.repeat(["red", "blue"], 60),
            "ok": rng.random(120) < 0.5,
            "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 30, 120), unit="D"),
        }
    )
    frame.loc[5, "size"], frame.loc[7, "colour"] = np.nan, None
    options = {"metric": "gower", "n_epochs": 5, "hidden_layer_sizes": (8,), "random_state": 0}
    model = cls(**options).fit(frame)
    assert model.kinds_ == ["numeric", "categorical", "categorical", "numeric"]
    codes = lowdim.mixed_codes(frame)
    key = "metric_kwds" if cls is ParametricUMAP else "metric_params"
    np.testing.assert_array_equal(
        cls(**options, **{key: codes.metric_params}).fit(codes.X).embedding_, model.embedding_
    )
    np.testing.assert_allclose(model.transform(frame.iloc[100:]), model.embedding_[100:], rtol=1e-12, atol=1e-12)
    lowdim.io.save(model, tmp_path / "m.lowdim")
    np.testing.assert_allclose(lowdim.io.load(tmp_path / "m.lowdim").transform(frame.iloc[:10]), model.embedding_[:10])


@pytest.mark.parametrize("cls", MAPS)
def test_the_command_line_fits_saves_and_applies_it(tmp_path, capsys, cls):
    from lowdim.cli.main import main

    X, _ = _blobs(50, seed=6)
    np.save(tmp_path / "x.npy", X)
    fit = ["--param", "hidden_layer_sizes=(16,)", "--param", "n_epochs=20", "--quiet"]
    assert main(["embed", str(tmp_path / "x.npy"), "-m", COMMANDS[cls], "-o", str(tmp_path / "z.npy"),
                 "--save-model", str(tmp_path / "m.lowdim"), *fit]) == 0, capsys.readouterr().err  # fmt: skip
    assert main(["transform", str(tmp_path / "m.lowdim"), str(tmp_path / "x.npy"), "-o", str(tmp_path / "t.npy")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "t.npy"), np.load(tmp_path / "z.npy"), atol=1e-5)


@pytest.mark.parametrize("cls", MAPS)
def test_warnings_from_the_graph_name_the_map_the_user_fitted(cls):
    X, _ = _blobs(40, seed=4)
    X = np.vstack([X, X[:5]])  # repeated rows: the graph's builder warns about them
    with pytest.warns(UserWarning) as caught:
        cls(random_state=0, hidden_layer_sizes=(8,), n_epochs=1, batch_size=64).fit(X)
    messages = [str(w.message) for w in caught if "identical" in str(w.message) or "duplicate" in str(w.message)]
    assert messages and all(m.startswith(f"{cls.__name__}:") for m in messages), messages


@pytest.mark.parametrize("cls", MAPS)
def test_the_step_falls_linearly_over_the_epochs_as_the_guide_says(monkeypatch, cls):
    from lowdim.neural import _parametric

    seen, real = {}, _parametric.train

    def spy(*args, **kwargs):
        seen["schedule"] = args[5]
        return real(*args, **kwargs)

    monkeypatch.setattr(_parametric, "train", spy)
    cls(n_epochs=4, hidden_layer_sizes=(4,), learning_rate=0.004).fit(_blobs(20, seed=7)[0])
    schedule = seen["schedule"]
    assert [schedule.step_size(epoch) for epoch in range(4)] == pytest.approx([0.004, 0.003, 0.002, 0.001])


@pytest.mark.parametrize("cls", MAPS)
def test_wide_rows_are_read_as_their_principal_scores_and_mapped_back_through_them(cls, tmp_path):
    X, y = _blobs(100, seed=4)  # 10 features
    model = cls(input_components=3, parametric_reconstruction=True, random_state=0, **SMALL).fit(X)
    pca = lowdim.PCA(3, random_state=0).fit(X)
    # the encoder reads scores on the top principal directions (up to their signs)
    np.testing.assert_allclose(np.abs(model.projection_.T @ pca.components_.T), np.eye(3), atol=1e-8)
    assert model.encoder_widths_[0] == 3 and model.decoder_widths_[-1] == 3
    assert KNeighborsClassifier(10).fit(model.embedding_, y).score(model.transform(X), y) == 1.0
    # the decoder's rows lie in the principal subspace, around the mean
    back = model.inverse_transform(model.embedding_) - model.mean_
    np.testing.assert_allclose(back, back @ model.projection_ @ model.projection_.T, atol=1e-9 * np.abs(back).max())
    lowdim.io.save(model, tmp_path / "m.lowdim")
    np.testing.assert_array_equal(lowdim.io.load(tmp_path / "m.lowdim").transform(X), model.transform(X))
    # as many features as input_components or fewer, or None: the features themselves
    for fewer in (cls(input_components=10, **SMALL), cls(input_components=None, **SMALL)):
        assert fewer.set_params(n_epochs=1).fit(X).projection_ is None


def test_a_model_file_whose_projection_does_not_fit_is_refused(tmp_path):
    X, _ = _blobs(60, seed=3)
    model = ParametricUMAP(input_components=3, random_state=0, hidden_layer_sizes=(8,), n_epochs=2).fit(X)
    good = model.projection_
    for projection, message in [
        (good[:-1], r"a row gives the networks 10 numbers before any projection, but projection_ 9"),
        (np.hstack([good, good[:, :1]]), r"the encoder's widths \[3, 8, 2\] do not run from 4"),
        (np.where(np.arange(3) == 1, np.nan, good), "projection_ holds NaN or infinity"),
    ]:
        model.projection_ = projection
        lowdim.io.save(model, tmp_path / "bad.lowdim", overwrite=True)
        with pytest.raises(lowdim.exceptions.UntrustedModelError, match=message):
            lowdim.io.load(tmp_path / "bad.lowdim")


# UMAP's own promises


def test_the_umap_graph_is_umaps():
    X, _ = _blobs(150, seed=1)
    model = ParametricUMAP(random_state=0, hidden_layer_sizes=(8,), n_epochs=2).fit(X)
    reference = lowdim.UMAP(random_state=0, n_epochs=1).fit(X)
    assert abs(model.graph_ - reference.graph_).max() == 0
    assert (model.a_, model.b_) == (reference.a_, reference.b_)


def test_default_epochs_are_the_guides():
    assert [ParametricUMAP._default_epochs(n) for n in (500, 60_000, 100_000, 200_000, 10**6)] == [
        100,
        100,
        100,
        50,
        30,
    ]
    assert [ParametricTSNE._default_epochs(n) for n in (500, 45_000, 60_000, 180_000, 10**6)] == [200, 200, 150, 50, 50]


def test_more_repulsion_draws_lower_the_noise_not_the_weight_of_the_repulsion():
    from lowdim.neural._parametric_umap import edge_loss

    identity = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    # every tail at one place: a mean over draws equals one draw
    rows = np.hstack([np.random.default_rng(0).normal(size=(6, 2)), np.ones((6, 2))])
    one, four = (edge_loss((2, 2), (), "identity", 1.0, 1.0, 5, 1.0, 0.0, draws) for draws in (1, 4))
    np.testing.assert_allclose(np.asarray(four(identity, rows, None)), np.asarray(one(identity, rows, None)), rtol=1e-6)
    # tails spread: drawn at random, four draws vary less from key to key than one
    import jax

    rows[:, 2:] = np.random.default_rng(1).normal(size=(6, 2))
    keys = jax.random.split(jax.random.PRNGKey(0), 200)
    spread = [np.std([float(loss(identity, rows, k).sum()) for k in keys]) for loss in (one, four)]
    assert spread[1] < 0.75 * spread[0]


# t-SNE's own promises


def test_the_tsne_affinities_are_tsnes():
    X, _ = _blobs(150, seed=1)
    model = ParametricTSNE(random_state=0, hidden_layer_sizes=(8,), n_epochs=2).fit(X)
    reference = lowdim.TSNE(method="barnes_hut", max_iter=1, early_exaggeration_iter=0, random_state=0).fit(X)
    assert abs(model.affinities_ - reference.affinities_).max() == 0
    assert model.perplexity_ == reference.perplexity_ == 30.0


def test_the_tsne_batch_loss_estimates_the_kl_divergence():
    """The mean batch loss at fixed weights is KL(P || Q) of the map they give, up to
    the draws' standard error and the small downward bias of the log of a mean."""
    from lowdim.embedding._gradients import ExactRepulsion, kl_divergence
    from lowdim.neural._parametric import EdgeSampler
    from lowdim.neural._parametric_tsne import kl_loss

    X, _ = _blobs(60, seed=3)
    model = ParametricTSNE(hidden_layer_sizes=(8,), n_epochs=20, batch_size=64, random_state=0).fit(X)
    P, Y = model.affinities_, model.embedding_.astype(np.float64)
    exact = kl_divergence(P, Y, 1.0, ExactRepulsion()(Y, 1.0)[1])
    enc = tuple(int(w) for w in model.encoder_widths_)
    loss = kl_loss(enc, (), model.activation, 1.0, 1.0, 0.0, 150)
    sampler = EdgeSampler(P, lambda rows: model._scaled(X[rows]).astype(np.float32), np.random.default_rng(1),
                          uniform=True)  # fmt: skip
    batches = np.array([float(loss(model.encoder_weights_, sampler(np.arange(150)), None).mean()) for _ in range(100)])
    batches += model._loss_offset()  # sum P log P + log n(n - 1), which no weight moves
    assert abs(batches.mean() - exact) < 4 * batches.std() / np.sqrt(batches.size) + 0.01
    # the reported curve is the same estimate: the last epoch's mean over its batches (the
    # step has fallen to nearly zero by then), within a single batch's spread
    assert abs(model.loss_curve_[-1] - exact) < 4 * batches.std() + 0.01


def test_a_second_tsne_fit_on_other_data_reuses_the_compiled_step():
    # the KL divergence's constant (sum P log P) was part of the compiled loss, so every
    # fit on other data compiled the training step again (0.5 s on a small network)
    from lowdim.neural._training import _compiled

    params = dict(hidden_layer_sizes=(8,), n_epochs=2, batch_size=64, random_state=0)
    ParametricTSNE(**params).fit(_blobs(40, seed=1)[0])
    before = _compiled.cache_info()
    model = ParametricTSNE(**params).fit(_blobs(50, seed=2)[0])
    after = _compiled.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 1
    assert np.isfinite(model.loss_curve_).all() and model.loss_curve_[-1] > 0  # a KL divergence


def test_tsne_exaggeration_pulls_the_groups_tighter():
    X, _ = _blobs(150, seed=1)

    def within_over_between(Y):
        centres = np.array([Y[i * 150 : (i + 1) * 150].mean(0) for i in range(3)])
        within = np.mean([np.linalg.norm(Y[i * 150 : (i + 1) * 150] - centres[i], axis=1).mean() for i in range(3)])
        return within / np.mean([np.linalg.norm(a - b) for a in centres for b in centres if a is not b])

    plain, tight = (ParametricTSNE(exaggeration=e, random_state=0, **SMALL).fit(X) for e in (1.0, 4.0))
    assert within_over_between(tight.embedding_) < within_over_between(plain.embedding_)


def _people(n, seed):
    """A mixed table whose groups are carried by two category columns (codes 0-4), beside
    a number in the tens of thousands and one in the tens that carry none; its Gower
    parameters, and the groups."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % 5
    shape = np.where(rng.random(n) < 0.1, (group + 1) % 5, group)  # a tenth of the rows disagree
    X = np.column_stack([rng.normal(50_000, 15_000, n), group, shape, rng.normal(40, 10, n)])
    return X, {"categorical": [1, 2]}, group


@pytest.mark.parametrize("cls", MAPS)
def test_by_gowers_distance_the_network_reads_categories_as_categories(tmp_path, cls):
    # the encoder read category codes as numbers under one overall scale set by the
    # column in dollars: the map of such a table mixed its five groups (10-NN accuracy 0.18)
    X, params, group = _people(500, seed=0)
    key = "metric_kwds" if cls is ParametricUMAP else "metric_params"
    model = cls(metric="gower", **{key: params}, parametric_reconstruction=True, random_state=0, **SMALL).fit(X)
    accuracy = (
        KNeighborsClassifier(10).fit(model.embedding_[:400], group[:400]).score(model.embedding_[400:], group[400:])
    )
    assert accuracy >= 0.9
    assert model.gower_levels_.tolist() == [0, 5, 5, 0] and model.encoder_widths_[0] == 12  # 2 numbers, 2 x 5 levels
    new, _, new_group = _people(100, seed=1)
    placed = model.transform(new)
    assert KNeighborsClassifier(10).fit(model.embedding_, group).score(placed, new_group) >= 0.9
    back = model.inverse_transform(placed)  # codes again: levels of the categories, numbers in their units
    assert set(np.unique(back[:, 1:3])) <= set(range(5)) and np.mean(back[:, 1] == new_group) >= 0.9
    path = tmp_path / "map.lowdim"
    lowdim.io.save(model, path)
    np.testing.assert_array_equal(lowdim.io.load(path).transform(new), placed)
    model.gower_codebook_ = model.gower_codebook_[:-1]
    lowdim.io.save(model, path, overwrite=True)
    with pytest.raises(lowdim.exceptions.UntrustedModelError, match=r"the Gower coding's arrays do not fit its 4"):
        lowdim.io.load(path)
