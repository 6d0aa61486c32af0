"""Neural encoders on Fashion-MNIST: fitted on the 60,000 training images, judged on the
10,000 test images.

Cases: ``autoencoder`` (test reconstruction error per pixel of AutoEncoder against PCA
at codes of 2, 8 and 32; the AutoEncoder's fit time against PCA's), ``linear`` (the
linear autoencoder's largest principal angle to PCA's subspace), ``parametric`` (lowdim's
ParametricUMAP against umap-learn's, both with their defaults, and against UMAP's own
map and ``transform``: fit time, the time to place the 10,000 test images, their 10-NN
accuracy with a classifier fitted on the training map, and the training map's
trustworthiness), ``parametric_tsne`` (ParametricTSNE against TSNE's own map and
``transform``, the same measures; no other library has a parametric t-SNE),
``tsne_regression`` (the same network trained by squared error to reproduce TSNE's own
map: the test accuracy such a network reaches whatever its loss), ``install`` (the
extra's size and install time on a fresh virtualenv). One run
each (the fits take minutes; umap-learn's needs the bench extra's TensorFlow).
Run:  scripts/bench.sh neural
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_pca import run_cli  # noqa: E402


def _split():
    X = _data.fashion_mnist(np.float32)
    return X[:60000], X[60000:]


def _timed(fit):
    start = time.perf_counter()
    model = fit()
    return model, time.perf_counter() - start


def _error(model, X):
    return float(np.mean((model.inverse_transform(model.transform(X)) - X) ** 2))


def case_autoencoder(repeats):
    from lowdim import PCA
    from lowdim.neural import AutoEncoder

    train, test = _split()
    rows = []
    for k in (2, 8, 32):
        pca, t_pca = _timed(lambda k=k: PCA(n_components=k, random_state=0).fit(train))
        ae, t_ae = _timed(lambda k=k: AutoEncoder(n_components=k, random_state=0).fit(train))
        e_ae, e_pca = _error(ae, test), _error(pca, test)
        rows.append(
            {
                "case": f"AutoEncoder (256, 128) vs PCA, code {k}, fit on 60000, error on 10000 test images",
                "lowdim_s": round(t_ae, 3),
                "reference_s": round(t_pca, 3),
                "ratio": None,
                "target": "error below PCA's",
                "accuracy": f"test error per pixel {e_ae:.5f} vs PCA {e_pca:.5f} ({e_ae / e_pca:.3f}x); "
                f"{ae.n_iter_} epochs",
                "met": bool(e_ae < e_pca),
                "runs_lowdim": [round(t_ae, 3)],
                "runs_reference": [round(t_pca, 3)],
            }
        )
    return rows


def case_linear(repeats):
    from scipy.linalg import subspace_angles

    from lowdim import PCA
    from lowdim.neural import AutoEncoder, layers

    train, _ = _split()
    k = 8
    # full batches: the directions past the 8th differ little in variance, and mini-batch
    # noise keeps the 8th direction about 2 degrees off (48 epochs of 1,024 rows: 2.2 degrees)
    ae, t_ae = _timed(
        lambda: AutoEncoder(
            n_components=k, hidden_layer_sizes=(), activation="identity", validation_fraction=0.0,
            batch_size=60000, learning_rate=1e-2, max_iter=600, tol=0.0, n_iter_no_change=600, random_state=0,
        ).fit(train)
    )  # fmt: skip
    decoder = layers(ae.decoder_weights_, ae.decoder_widths_)[0][0].astype(np.float64)
    pca = PCA(n_components=k).fit(train)
    angle = float(np.degrees(subspace_angles(decoder.T, pca.components_.T.astype(np.float64)).max()))
    return [
        {
            "case": f"linear AutoEncoder (no hidden layer, identity), code {k}, 60000 training images",
            "lowdim_s": round(t_ae, 3),
            "reference_s": None,
            "ratio": None,
            "target": "largest angle to PCA's subspace < 1 degree",
            "accuracy": f"largest principal angle {angle:.3f} degrees; {ae.n_iter_} full-batch epochs",
            "met": angle < 1.0,
            "runs_lowdim": [round(t_ae, 3)],
            "runs_reference": [],
        }
    ]


def _map_quality(train_map, test_map, train, labels):
    """(test 10-NN accuracy of a classifier fitted on the training map, trustworthiness
    of the training map at 10 neighbours on 5,000 rows drawn with seed 0)."""
    from sklearn.neighbors import KNeighborsClassifier

    from lowdim.metrics import trustworthiness

    accuracy = KNeighborsClassifier(10).fit(train_map, labels[:60000]).score(test_map, labels[60000:])
    rows = np.random.default_rng(0).choice(60000, 5000, replace=False)
    return float(accuracy), float(trustworthiness(train[rows], train_map[rows], n_neighbors=10))


def _fit_and_place(make, train, test):
    model, t_fit = _timed(lambda: make().fit(train))
    start = time.perf_counter()
    placed = model.transform(test)
    return model, placed, t_fit, time.perf_counter() - start


def case_parametric(repeats):
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    from umap.parametric_umap import ParametricUMAP as Reference

    from lowdim import UMAP
    from lowdim.neural import ParametricUMAP

    train, test = _split()
    labels = _data.fashion_mnist_labels()
    ours, placed, t_ours, t_place = _fit_and_place(lambda: ParametricUMAP(random_state=0), train, test)
    umap, umap_placed, t_umap, t_umap_place = _fit_and_place(lambda: UMAP(random_state=0), train, test)
    ref, ref_placed, t_ref, t_ref_place = _fit_and_place(
        lambda: Reference(random_state=0, keras_fit_kwargs={"verbose": 0}), train, test
    )
    acc, trust = _map_quality(ours.embedding_, placed, train, labels)
    u_acc, u_trust = _map_quality(umap.embedding_, umap_placed, train, labels)
    r_acc, r_trust = _map_quality(ref.embedding_, ref_placed, train, labels)
    return [
        {
            "case": "ParametricUMAP (100 principal scores-100-100-100-2, gelu) vs umap-learn's (784-100-100-100-2, "
            "relu), defaults, 60000 training images",
            "lowdim_s": round(t_ours, 3),
            "reference_s": round(t_ref, 3),
            "ratio": round(t_ours / t_ref, 3),
            "target": "fit <= 0.5x umap-learn's; test 10-NN accuracy within 0.02 of UMAP.transform's; "
            "trustworthiness within 0.01 of UMAP's map; 10,000 test rows placed in < 0.5 s",
            "accuracy": f"test 10-NN accuracy {acc:.4f} (umap-learn's parametric {r_acc:.4f}, UMAP.transform "
            f"{u_acc:.4f}); trustworthiness {trust:.4f} (umap-learn's parametric {r_trust:.4f}, UMAP {u_trust:.4f}); "
            f"placing 10,000 test rows {t_place:.3f} s (umap-learn's parametric {t_ref_place:.3f} s, "
            f"UMAP.transform {t_umap_place:.3f} s); UMAP fit {t_umap:.1f} s; {ours.n_iter_} epochs",
            "met": bool(t_ours <= 0.5 * t_ref and acc >= u_acc - 0.02 and trust >= u_trust - 0.01 and t_place < 0.5),
            "runs_lowdim": [round(t_ours, 3)],
            "runs_reference": [round(t_ref, 3)],
        }
    ]


def case_parametric_tsne(repeats):
    from lowdim import TSNE
    from lowdim.neural import ParametricTSNE

    train, test = _split()
    labels = _data.fashion_mnist_labels()
    ours, placed, t_ours, t_place = _fit_and_place(lambda: ParametricTSNE(random_state=0), train, test)
    tsne, tsne_placed, t_tsne, t_tsne_place = _fit_and_place(lambda: TSNE(random_state=0), train, test)
    acc, trust = _map_quality(ours.embedding_, placed, train, labels)
    t_acc, t_trust = _map_quality(tsne.embedding_, tsne_placed, train, labels)
    return [
        {
            "case": "ParametricTSNE (100 principal scores-100-100-100-2, gelu) vs TSNE + transform, defaults, 60000 "
            "training images",
            "lowdim_s": round(t_ours, 3),
            "reference_s": round(t_tsne, 3),
            "ratio": round(t_ours / t_tsne, 3),
            "target": "test 10-NN accuracy within 0.02 of TSNE.transform's",
            "accuracy": f"test 10-NN accuracy {acc:.4f} (TSNE.transform {t_acc:.4f}); trustworthiness {trust:.4f} "
            f"(TSNE {t_trust:.4f}); placing 10,000 test rows {t_place:.3f} s (TSNE.transform {t_tsne_place:.1f} s); "
            f"KL estimate {ours.loss_curve_[-1]:.3f} (TSNE {tsne.kl_divergence_:.3f}); {ours.n_iter_} epochs",
            "met": bool(acc >= t_acc - 0.02),
            "runs_lowdim": [round(t_ours, 3)],
            "runs_reference": [round(t_tsne, 3)],
        }
    ]


def case_tsne_regression(repeats):
    """The ParametricTSNE network (its input, widths and activation) trained by squared
    error to reproduce TSNE's own training map, placing the test rows: whether a network
    of this kind can place them as ``transform`` does, whatever loss trains it."""
    from lowdim import PCA, TSNE
    from lowdim.neural._mlp import forward, initial_weights
    from lowdim.neural._training import Schedule, train

    train_rows, test = _split()
    labels = _data.fashion_mnist_labels()
    tsne, tsne_placed, _, _ = _fit_and_place(lambda: TSNE(random_state=0), train_rows, test)
    pca = PCA(100).fit(train_rows)  # the input ParametricTSNE reads: principal scores, scaled
    Z, Z_test = (pca.transform(X).astype(np.float32) for X in (train_rows, test))
    scale, target_scale = Z.std(), tsne.embedding_.std()
    rows = np.hstack([Z / scale, tsne.embedding_ / target_scale]).astype(np.float32)
    widths = (100, 100, 100, 100, 2)

    def row_loss(w, batch, key):
        import jax.numpy as jnp

        return jnp.sum((forward(w, widths, batch[:, :100], "gelu", xp=jnp) - batch[:, 100:]) ** 2, axis=1)

    rng = np.random.default_rng(0)
    schedule = Schedule(learning_rate=3e-3, batch_size=500, max_epochs=200, patience=None, anneal=True)
    start = time.perf_counter()
    fitted = train(row_loss, initial_weights(widths, rng), lambda i: rows[i], np.arange(60000), None, schedule, rng)
    t_fit = time.perf_counter() - start
    train_map = forward(fitted.weights, widths, Z / scale, "gelu") * target_scale
    test_map = forward(fitted.weights, widths, Z_test / scale, "gelu") * target_scale
    acc, trust = _map_quality(train_map, test_map, train_rows, labels)
    t_acc, _ = _map_quality(tsne.embedding_, tsne_placed, train_rows, labels)
    return [
        {
            "case": "the ParametricTSNE network trained by squared error on TSNE's training map, 200 epochs",
            "lowdim_s": round(t_fit, 3),
            "reference_s": None,
            "ratio": None,
            "target": "-",
            "accuracy": f"test 10-NN accuracy {acc:.4f} (TSNE.transform {t_acc:.4f}); trustworthiness {trust:.4f}",
            "met": None,
            "runs_lowdim": [round(t_fit, 3)],
            "runs_reference": [],
        }
    ]


def case_install(repeats):
    """The ``neural`` extra on a fresh machine: a new virtualenv holding lowdim's base
    dependencies that JAX shares (numpy, scipy), then the extra's requirement installed
    from the package registry without pip's cache: the time, and the size it adds to
    site-packages. What the extra adds to a CI run beyond that is its tests' and gallery
    examples' time (``pytest --durations``)."""
    import re
    import shutil
    import subprocess
    import tempfile

    root = os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(root, "pyproject.toml")) as f:
        requirement = re.search(r'^neural = \["([^"]+)"\]', f.read(), re.M).group(1)
    home = tempfile.mkdtemp()
    try:
        subprocess.run([sys.executable, "-m", "venv", home], check=True)
        pip = [os.path.join(home, "bin", "python"), "-m", "pip", "install", "-q", "--no-cache-dir"]
        subprocess.run([*pip, "numpy", "scipy"], check=True)
        before = _tree_bytes(home)
        start = time.perf_counter()
        subprocess.run([*pip, requirement], check=True)
        seconds = time.perf_counter() - start
        added = (_tree_bytes(home) - before) / 2**20
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return [
        {
            "case": f"the neural extra ({requirement}) installed into a fresh virtualenv with numpy and scipy",
            "lowdim_s": round(seconds, 1),
            "reference_s": None,
            "ratio": None,
            "target": "-",
            "accuracy": f"{added:.0f} MiB added to the environment",
            "met": None,
            "runs_lowdim": [round(seconds, 1)],
            "runs_reference": [],
        }
    ]


def _tree_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


CASES = {
    "autoencoder": case_autoencoder,
    "linear": case_linear,
    "parametric": case_parametric,
    "parametric_tsne": case_parametric_tsne,
    "tsne_regression": case_tsne_regression,
    "install": case_install,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
