"""Neural encoders on Fashion-MNIST: fitted on the 60,000 training images, judged on the
10,000 test images.

Cases: ``autoencoder`` (test reconstruction error per pixel of AutoEncoder against PCA
at codes of 2, 8 and 32; the AutoEncoder's fit time against PCA's), ``linear`` (the
linear autoencoder's largest principal angle to PCA's subspace). One run each: the
figures are errors and angles, not a speed ratio.
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


CASES = {"autoencoder": case_autoencoder, "linear": case_linear}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
