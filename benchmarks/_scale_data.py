"""Augmented Fashion-MNIST for the benchmarks at scale, generated here, never downloaded.

Row i is image ``i % 70000`` of Fashion-MNIST (train then test), rotated by up to 10
degrees about its centre and shifted by up to 2 pixels in each direction (uniform,
seeded per block of rows, bilinear interpolation, zero outside), label kept. Written once
as float32 ``.npy`` (pixels in [0, 1], as ``load_fashion_mnist``) under ``LOWDIM_SCALE_DATA`` (default
``benchmarks/.scale-data``), then reduced to 50 dimensions by lowdim's exact PCA streamed
over the memory-mapped file (one pass to fit, one to project).
"""

import os
import time

import numpy as np

SIDE = 28
BLOCK = 20_000  # rows generated at a time: about 0.5 GB of interpolation work
DATA = os.environ.get("LOWDIM_SCALE_DATA", os.path.join(os.path.dirname(__file__), ".scale-data"))


def _augment(images, rng):
    """Each (28, 28) image rotated by U(-10, 10) degrees and shifted by U(-2, 2) pixels
    per axis, by bilinear interpolation of the source at the inversely mapped grid."""
    m = len(images)
    angle = np.deg2rad(rng.uniform(-10.0, 10.0, m))
    shift = rng.uniform(-2.0, 2.0, (m, 2))
    c = (SIDE - 1) / 2.0
    r, s = np.meshgrid(np.arange(SIDE) - c, np.arange(SIDE) - c, indexing="ij")  # output row, column
    cos, sin = np.cos(angle)[:, None, None], np.sin(angle)[:, None, None]
    # source = R(-angle) (output - centre - shift) + centre
    dr, ds = r[None] - shift[:, 0, None, None], s[None] - shift[:, 1, None, None]
    src_r, src_s = cos * dr + sin * ds + c, -sin * dr + cos * ds + c
    r0, s0 = np.floor(src_r).astype(np.int64), np.floor(src_s).astype(np.int64)
    fr, fs = (src_r - r0).astype(np.float32), (src_s - s0).astype(np.float32)
    padded = np.zeros((m, SIDE + 2, SIDE + 2), dtype=np.float32)  # a zero border for samples outside
    padded[:, 1:-1, 1:-1] = images.reshape(m, SIDE, SIDE)
    r0, s0 = np.clip(r0 + 1, 0, SIDE), np.clip(s0 + 1, 0, SIDE)
    flat = padded.ravel()
    at = (np.arange(m)[:, None, None] * (SIDE + 2) + r0) * (SIDE + 2) + s0  # flat index of the corner
    out = (flat.take(at) * (1 - fs) + flat.take(at + 1) * fs) * (1 - fr)
    out += (flat.take(at + SIDE + 2) * (1 - fs) + flat.take(at + SIDE + 3) * fs) * fr
    return out.reshape(m, SIDE * SIDE)


def paths(n):
    """The images, labels and PCA-50 scores files of ``n`` rows."""
    stem = os.path.join(DATA, f"fashion_aug_{n}")
    return stem + ".npy", stem + "_labels.npy", stem + "_pca50.npy"


def images(n, say=print):
    """Write (once) the ``n``-row augmented images and labels; return their paths."""
    from lowdim.datasets._fashion_mnist import load_fashion_mnist

    x_path, y_path, _ = paths(n)
    if os.path.exists(x_path) and os.path.exists(y_path):
        return x_path, y_path
    os.makedirs(DATA, exist_ok=True)
    X0, y0 = load_fashion_mnist(dtype=np.float32)
    start = time.perf_counter()
    out = np.lib.format.open_memmap(x_path + ".part", mode="w+", dtype=np.float32, shape=(n, SIDE * SIDE))
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
        source = np.arange(lo, hi) % len(X0)
        out[lo:hi] = _augment(X0[source], np.random.default_rng([n, lo]))
    out.flush()
    del out
    os.replace(x_path + ".part", x_path)
    np.save(y_path, y0[np.arange(n) % len(y0)].astype(np.int64))
    say(f"wrote {x_path}: {n} x {SIDE * SIDE} float32 in {time.perf_counter() - start:.0f} s")
    return x_path, y_path


def pca50(n, say=print):
    """The (memory-mapped) PCA-50 scores and labels of the ``n``-row set (computed once:
    lowdim's covariance PCA streamed over the memory-mapped images)."""
    from lowdim import PCA

    x_path, y_path = images(n, say)
    _, _, z_path = paths(n)
    if not os.path.exists(z_path):
        start = time.perf_counter()
        X = np.load(x_path, mmap_mode="r")
        Z = PCA(50, solver="covariance").fit(X).transform(X)
        np.save(z_path, Z.astype(np.float32))
        say(f"wrote {z_path} in {time.perf_counter() - start:.0f} s")
    return np.load(z_path, mmap_mode="r"), np.load(y_path)
