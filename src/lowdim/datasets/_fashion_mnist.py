"""Fashion-MNIST from the Debian package ``dataset-fashion-mnist`` (no download)."""

import gzip
import os

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
ENV_VAR = "LOWDIM_FASHION_MNIST_DIR"


def _read_idx(path):
    with gzip.open(path, "rb") as fh:
        data = fh.read()
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_fashion_mnist(directory=None, dtype=np.float32):
    """All 70,000 Fashion-MNIST images as a (70000, 784) array in [0, 1], and labels.

    Parameters
    ----------
    directory : str, optional
        Folder of the four ``*-ubyte.gz`` files. Default: the environment variable
        ``LOWDIM_FASHION_MNIST_DIR`` if set, else where the Debian package
        ``dataset-fashion-mnist`` puts them (``/usr/share/datasets/fashion-mnist``).
    dtype : numpy dtype

    Returns
    -------
    X : ndarray of shape (70000, 784)
    y : ndarray of shape (70000,)

    Examples
    --------
    >>> X, y = load_fashion_mnist()
    >>> X.shape, X.dtype, float(X.max()), sorted(set(y.tolist())) == list(range(10))
    ((70000, 784), dtype('float32'), 1.0, True)
    """
    if directory is None:
        directory = os.environ.get(ENV_VAR) or DEFAULT_DIR
    names = [
        "train-images-idx3-ubyte.gz",
        "t10k-images-idx3-ubyte.gz",
        "train-labels-idx1-ubyte.gz",
        "t10k-labels-idx1-ubyte.gz",
    ]
    paths = [os.path.join(directory, n) for n in names]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError(
            f"Fashion-MNIST not found ({missing[0]}); install it with "
            "'apt-get install -y dataset-fashion-mnist', or point "
            f"{ENV_VAR} at a folder holding its four files."
        )
    images = [_read_idx(p).reshape(-1, 784) for p in paths[:2]]
    labels = [_read_idx(p) for p in paths[2:]]
    X = np.vstack(images).astype(dtype) / dtype(255)
    return X, np.concatenate(labels).astype(np.int64)
