"""Benchmark data: Fashion-MNIST (Debian package) and seeded synthetic matrices."""

import numpy as np
import scipy.sparse as sp


def fashion_mnist(dtype=np.float32):
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    return load_fashion_mnist(dtype=dtype)[0]


def fashion_mnist_labels():
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    return load_fashion_mnist()[1]


def wide_gaussian(n=2000, d=50000, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d), dtype=np.float32)


def tall_low_rank(n=200_000, d=2000, rank=20, noise=0.5, seed=0):
    """Rank-``rank`` signal (scales 10 .. 3) plus isotropic Gaussian noise, float32."""
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((n, rank), dtype=np.float32) * np.linspace(10, 3, rank, dtype=np.float32)
    basis = rng.standard_normal((rank, d), dtype=np.float32) / np.float32(np.sqrt(d))
    X = scores @ basis
    X += rng.standard_normal((n, d), dtype=np.float32) * np.float32(noise)
    return X


def sparse_counts(n=100_000, d=50_000, nnz=2_700_000, seed=0):
    """CSR float64 with Zipf-like column frequencies (like a term-document matrix)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(d) + 10.0) ** 0.8
    cols = rng.choice(d, size=nnz, p=p / p.sum())
    rows = rng.integers(0, n, size=nnz)
    vals = rng.lognormal(0.0, 0.5, size=nnz)
    S = sp.coo_matrix((vals, (rows, cols)), shape=(n, d)).tocsr()
    S.sum_duplicates()
    return S
