"""The float32 power used by UMAP's layout (``_kernels/fastpow``)."""

import numpy as np
import pytest
from numba import njit

from lowdim._kernels.fastpow import fast_exp2, fast_log2, fast_pow


@njit(cache=True)
def _powers(x, p):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = fast_pow(x[i], p)
    return out


@pytest.mark.parametrize("p", [0.895, -0.105, 0.5, 1.0, 2.0, -1.0, 1.7])
def test_relative_error(p):
    x = np.logspace(-30, 30, 100_001).astype(np.float32)
    got = _powers(x, np.float32(p))
    assert got.dtype == np.float32
    want = x.astype(np.float64) ** p
    inside = np.abs(p * np.log2(x.astype(np.float64))) <= 125
    assert inside.mean() > 0.3
    error = np.abs(got - want) / want
    assert np.max(error[inside]) < 2e-5
    # the float32 exponent p log2 x carries rounding of about |p log2 x| * 6e-8
    assert np.max(error[np.abs(p * np.log2(x.astype(np.float64))) <= 64]) < 1e-5


def test_log2_and_exp2_at_exact_points():
    for e in range(-20, 21):
        assert abs(fast_log2(np.float32(2.0**e)) - e) < 3e-6
        assert abs(fast_exp2(np.float32(e)) / 2.0**e - 1) < 3e-7
    tiny = fast_exp2(np.float32(-500.0))  # clamped: a normal float, no subnormal or garbage
    assert np.finfo(np.float32).tiny <= tiny < 1e-37
