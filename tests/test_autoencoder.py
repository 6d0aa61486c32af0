"""The autoencoder: the linear one is PCA (the lectures' encoder/decoder picture), the
nonlinear one reconstructs a curved manifold better than PCA can, a seed fixes the
result, model files keep the networks as data, and bad runs stop by name."""

import warnings

import numpy as np
import pytest
from scipy.linalg import subspace_angles

import lowdim
import lowdim.io
from lowdim.neural import AutoEncoder, layers


def _spread_data(n=400, d=8, seed=0):
    """Rows whose principal axes are well apart: standard deviations 5, 3, 2, then 0.3."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    scales = np.array([5.0, 3.0, 2.0] + [0.3] * (d - 3))
    return (rng.normal(size=(n, d)) * scales) @ Q.T + 10.0


def test_the_linear_autoencoder_finds_pcas_subspace():
    X = _spread_data()
    ae = AutoEncoder(
        n_components=3,
        hidden_layer_sizes=(),
        activation="identity",
        validation_fraction=0.0,
        batch_size=400,
        learning_rate=0.01,
        max_iter=3000,
        tol=0.0,
        n_iter_no_change=3000,
        random_state=0,
    ).fit(X)
    decoder = layers(ae.decoder_weights_, ae.decoder_widths_)[0][0]  # (3, d): its rows span the code's image
    pca = lowdim.PCA(n_components=3).fit(X)
    largest = np.degrees(subspace_angles(decoder.T.astype(np.float64), pca.components_.T).max())
    assert largest < 1.0, largest
    # and it reconstructs as well as PCA (to float32 training's precision)
    pca_error = np.mean((pca.inverse_transform(pca.transform(X)) - X) ** 2)
    assert ae.reconstruction_error(X) <= pca_error * 1.01


def test_a_nonlinear_code_of_one_number_reconstructs_a_circle_better_than_pca():
    rng = np.random.default_rng(0)
    t = rng.uniform(0, 1.5 * np.pi, 600)  # an open arc: one number places each point
    circle = np.c_[np.cos(t), np.sin(t)] + rng.normal(scale=0.01, size=(600, 2))
    X = circle @ rng.normal(size=(2, 6))
    ae = AutoEncoder(n_components=1, hidden_layer_sizes=(32, 32), activation="tanh", learning_rate=3e-3,
                     batch_size=64, max_iter=400, random_state=0).fit(X)  # fmt: skip
    pca = lowdim.PCA(n_components=1).fit(X)
    pca_error = np.mean((pca.inverse_transform(pca.transform(X)) - X) ** 2)
    assert ae.reconstruction_error(X) < 0.5 * pca_error, (ae.reconstruction_error(X), pca_error)


def test_a_seed_fixes_the_weights_and_another_seed_changes_them():
    X = _spread_data(n=200)
    fit = dict(n_components=2, hidden_layer_sizes=(16,), dropout=0.2, max_iter=15, batch_size=32)
    a = AutoEncoder(random_state=3, **fit).fit(X)
    b = AutoEncoder(random_state=3, **fit).fit(X)
    c = AutoEncoder(random_state=4, **fit).fit(X)
    np.testing.assert_array_equal(a.encoder_weights_, b.encoder_weights_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert not np.array_equal(a.encoder_weights_, c.encoder_weights_)


def test_the_model_file_holds_the_networks_as_arrays(tmp_path):
    X = _spread_data(n=150)
    ae = AutoEncoder(n_components=2, hidden_layer_sizes=(12, 6), max_iter=5, random_state=0).fit(X)
    lowdim.io.save(ae, tmp_path / "ae.lowdim")
    loaded = lowdim.io.load(tmp_path / "ae.lowdim")
    np.testing.assert_array_equal(loaded.transform(X), ae.transform(X))
    np.testing.assert_array_equal(loaded.inverse_transform(ae.transform(X)), ae.inverse_transform(ae.transform(X)))
    assert loaded.encoder_widths_.tolist() == [8, 12, 6, 2]


def test_a_code_wider_than_the_data_is_refused_by_both_numbers():
    with pytest.raises(ValueError, match=r"n_components=9 must be at most .* = 8"):
        AutoEncoder(n_components=9).fit(_spread_data(n=50))


def test_hidden_widths_must_be_positive_integers():
    with pytest.raises(ValueError, match=r"hidden_layer_sizes must hold positive integers.*\(16, 0\)"):
        AutoEncoder(hidden_layer_sizes=(16, 0)).fit(_spread_data(n=50))


def test_a_diverging_run_stops_naming_the_epoch_and_row_and_keeps_good_weights():
    X = _spread_data(n=100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ae = AutoEncoder(hidden_layer_sizes=(8,), learning_rate=1e30, max_iter=20, random_state=0).fit(X)
    messages = [str(w.message) for w in caught if "not finite" in str(w.message)]
    assert len(messages) == 1 and "at epoch" in messages[0] and "row" in messages[0], messages
    assert np.isfinite(ae.encoder_weights_).all() and np.isfinite(ae.decoder_weights_).all()
    assert ae.n_iter_ < 20


def test_early_stopping_keeps_the_best_held_out_weights():
    X = _spread_data(n=300)
    ae = AutoEncoder(n_components=2, hidden_layer_sizes=(32,), max_iter=300, n_iter_no_change=5, random_state=0).fit(X)
    assert ae.n_iter_ < 300  # the held-out loss stopped improving
    assert ae.best_loss_ == pytest.approx(ae.validation_scores_.min())
    assert ae.n_iter_ == len(ae.loss_curve_) == len(ae.validation_scores_)


def test_the_command_line_fits_saves_and_applies_it(tmp_path, capsys):
    from lowdim.cli.main import main

    X = _spread_data(n=120)
    np.save(tmp_path / "x.npy", X)
    fit = ["--param", "hidden_layer_sizes=(16,)", "--param", "max_iter=40", "--quiet"]
    assert main(["embed", str(tmp_path / "x.npy"), "-m", "autoencoder", "-k", "2", "-o", str(tmp_path / "z.npy"),
                 "--save-model", str(tmp_path / "ae.lowdim"), *fit]) == 0, capsys.readouterr().err  # fmt: skip
    assert main(["transform", str(tmp_path / "ae.lowdim"), str(tmp_path / "x.npy"), "-o", str(tmp_path / "t.npy")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "t.npy"), np.load(tmp_path / "z.npy"), atol=1e-5)


def test_a_callback_sees_the_held_out_loss_and_the_weights():
    X = _spread_data(n=100)
    seen = []

    def third_stops(epoch, loss, weights):
        seen.append((epoch, loss, weights.shape))
        return epoch == 3

    ae = AutoEncoder(hidden_layer_sizes=(4,), max_iter=50, callbacks=third_stops, random_state=0).fit(X)
    assert [epoch for epoch, _, _ in seen] == [1, 2, 3] and ae.n_iter_ == 3
    assert [loss for _, loss, _ in seen] == ae.validation_scores_.tolist()
    assert seen[0][2] == (ae.encoder_weights_.size + ae.decoder_weights_.size,)
