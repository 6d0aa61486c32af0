"""Parametric t-SNE: the map is an encoder trained on t-SNE's own affinities and KL
divergence, estimated a batch at a time; new rows land with their neighbours by one
forward pass, a seed fixes the map, and model files keep the networks as data."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

import lowdim
import lowdim.io
from lowdim.neural import ParametricTSNE

SMALL = dict(hidden_layer_sizes=(32, 32), n_epochs=60, batch_size=256)
CENTRES = np.random.default_rng(0).normal(scale=6.0, size=(3, 10))  # about 12 apart, unit spread around


def _blobs(n_per, seed):
    """Points of three well-separated Gaussian groups (the same centres for every seed),
    and their group."""
    y = np.repeat(np.arange(3), n_per)
    return CENTRES[y] + np.random.default_rng(seed).normal(size=(y.size, CENTRES.shape[1])), y


@pytest.fixture(scope="module")
def fitted():
    X, y = _blobs(150, seed=1)
    return X, y, ParametricTSNE(random_state=0, **SMALL).fit(X)


def test_new_rows_land_with_their_group_and_training_rows_where_fitted(fitted):
    X, y, model = fitted
    X_new, y_new = _blobs(40, seed=2)
    knn = KNeighborsClassifier(10).fit(model.embedding_, y)
    assert knn.score(model.transform(X_new), y_new) == 1.0
    np.testing.assert_array_equal(model.transform(X), model.embedding_)  # one function for both
    assert model.loss_curve_[-1] < model.loss_curve_[0] and model.n_iter_ == SMALL["n_epochs"]


def test_the_affinities_are_tsnes(fitted):
    X, _, model = fitted
    reference = lowdim.TSNE(method="barnes_hut", max_iter=1, early_exaggeration_iter=0, random_state=0).fit(X)
    assert abs(model.affinities_ - reference.affinities_).max() == 0
    assert model.perplexity_ == reference.perplexity_ == 30.0


def test_the_batch_loss_estimates_the_kl_divergence():
    """The mean batch loss at fixed weights is KL(P || Q) of the map they give, up to
    the draws' standard error and the small downward bias of the log of a mean."""
    from lowdim.embedding._gradients import ExactRepulsion, kl_divergence
    from lowdim.neural._parametric import EdgeSampler
    from lowdim.neural._parametric_tsne import kl_loss

    X, _ = _blobs(60, seed=3)
    model = ParametricTSNE(hidden_layer_sizes=(8,), n_epochs=20, batch_size=64, random_state=0).fit(X)
    P, Y = model.affinities_, model.embedding_.astype(np.float64)
    exact = kl_divergence(P, Y, 1.0, ExactRepulsion()(Y, 1.0)[1])
    n, enc = P.shape[0], tuple(int(w) for w in model.encoder_widths_)
    constant = lowdim.TSNE._p_log_p(P) + np.log(n * (n - 1.0))
    loss = kl_loss(enc, (), model.activation, 1.0, 1.0, float(constant), 0.0, 150)
    sampler = EdgeSampler(P, lambda rows: model._scaled(X[rows]).astype(np.float32), np.random.default_rng(1),
                          uniform=True)  # fmt: skip
    batches = np.array([float(loss(model.encoder_weights_, sampler(np.arange(150)), None).mean()) for _ in range(100)])
    assert abs(batches.mean() - exact) < 4 * batches.std() / np.sqrt(batches.size) + 0.01


def test_a_seed_fixes_the_weights_and_another_seed_changes_them():
    X, _ = _blobs(60, seed=3)
    fit = dict(hidden_layer_sizes=(8,), n_epochs=10, batch_size=64)
    a, b, c = (ParametricTSNE(random_state=s, **fit).fit(X) for s in (5, 5, 6))
    np.testing.assert_array_equal(a.encoder_weights_, b.encoder_weights_)
    assert not np.array_equal(a.encoder_weights_, c.encoder_weights_)


def test_the_model_file_holds_the_networks_and_applies_them(tmp_path, fitted):
    X, _, model = fitted
    lowdim.io.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.io.load(tmp_path / "m.lowdim")
    np.testing.assert_array_equal(loaded.transform(X), model.transform(X))
    assert loaded.decoder_weights_ is None
    with pytest.raises(ValueError, match="ParametricTSNE was trained without a decoder.*parametric_reconstruction"):
        loaded.inverse_transform(model.embedding_)


def test_with_a_decoder_points_of_the_map_map_back_near_their_rows():
    X, _ = _blobs(100, seed=4)
    model = ParametricTSNE(parametric_reconstruction=True, random_state=0, **SMALL).fit(X)
    back = model.inverse_transform(model.embedding_)
    # far closer to each row than the rows' overall mean is (most variance is between groups)
    assert np.mean((back - X) ** 2) < 0.25 * np.mean((X - X.mean(0)) ** 2)


def test_exaggeration_pulls_the_groups_tighter(fitted):
    X, _, model = fitted
    tight = ParametricTSNE(exaggeration=4.0, random_state=0, **SMALL).fit(X)

    def within_over_between(Y):
        centres = np.array([Y[i * 150 : (i + 1) * 150].mean(0) for i in range(3)])
        within = np.mean([np.linalg.norm(Y[i * 150 : (i + 1) * 150] - centres[i], axis=1).mean() for i in range(3)])
        return within / np.mean([np.linalg.norm(a - b) for a in centres for b in centres if a is not b])

    assert within_over_between(tight.embedding_) < within_over_between(model.embedding_)


def test_what_it_cannot_do_is_refused_before_the_data_are_read():
    X, _ = _blobs(20, seed=5)
    with pytest.raises(ValueError, match="metric='precomputed' gives none.*use TSNE"):
        ParametricTSNE(metric="precomputed").fit(X)
    with pytest.raises(ValueError, match="perplexity"):
        ParametricTSNE(perplexity=-1.0).fit(np.full((20, 3), np.nan))
    with pytest.raises(ValueError, match="hidden_layer_sizes must hold positive integers"):
        ParametricTSNE(hidden_layer_sizes=(4, 0)).fit(X)


def test_the_command_line_fits_saves_and_applies_it(tmp_path, capsys):
    from lowdim.cli.main import main

    X, _ = _blobs(50, seed=6)
    np.save(tmp_path / "x.npy", X)
    fit = ["--param", "hidden_layer_sizes=(16,)", "--param", "n_epochs=20", "--quiet"]
    assert main(["embed", str(tmp_path / "x.npy"), "-m", "parametric-tsne", "-o", str(tmp_path / "z.npy"),
                 "--save-model", str(tmp_path / "m.lowdim"), *fit]) == 0, capsys.readouterr().err  # fmt: skip
    assert main(["transform", str(tmp_path / "m.lowdim"), str(tmp_path / "x.npy"), "-o", str(tmp_path / "t.npy")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "t.npy"), np.load(tmp_path / "z.npy"), atol=1e-5)
