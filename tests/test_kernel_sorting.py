"""The in-kernel sort: the order numpy's lexsort gives, for every length and with ties."""

import numpy as np
import pytest

from lowdim._kernels.sorting import SHORT, sort_pairs


def _sorted_and_lexsorted(sort, keys, values):
    """The pairs after ``sort(keys, values)`` in place, and lexsort's order of them (key,
    then value): equal when the sort keeps that order."""
    order = np.lexsort((values, keys))
    expected = (keys[order], values[order])
    sort(keys, values)
    return (keys, values), expected


@pytest.mark.parametrize("m", [0, 1, 2, SHORT, SHORT + 1, 100, 1000])
@pytest.mark.parametrize("key_dtype", [np.int32, np.float64])
def test_sort_pairs_orders_by_key_then_value(m, key_dtype):
    rng = np.random.default_rng(m)
    for _ in range(20):
        keys = rng.integers(0, max(1, m // 3), m).astype(key_dtype)  # many ties
        values = rng.standard_normal(m).astype(np.float32)
        np.testing.assert_equal(*_sorted_and_lexsorted(sort_pairs, keys, values))


def test_sort_pairs_keys_alone_and_in_a_slice():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 50, 300)
    expected = keys.copy()
    expected[100:250] = np.sort(keys[100:250])
    sort_pairs(keys[100:250])  # a view: sorted in place, the rest untouched
    np.testing.assert_array_equal(keys, expected)


@pytest.mark.parametrize("m", [0, 1, 5, SHORT, 40])
def test_insertion_sort_orders_pairs_by_key_then_value(m):
    # the rank kernel sorts its targets by this inlined helper: lexsort's order too
    from lowdim._kernels.sorting import insertion_sort_pairs

    rng = np.random.default_rng(m)
    for _ in range(20):
        keys = rng.integers(0, 4, m).astype(np.float64)  # many ties
        values = rng.permutation(m).astype(np.int64)
        np.testing.assert_equal(*_sorted_and_lexsorted(insertion_sort_pairs, keys, values))
