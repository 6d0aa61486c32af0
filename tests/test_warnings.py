"""Warnings name the user's line and are said once there: a grid search over data with
a constant column warns once, not once per fit; ``pytest.warns`` and the "always"
filter still see every one."""

import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV

import lowdim


def _constant_column():
    X = np.random.default_rng(0).normal(size=(60, 5))
    X[:, 2] = 1.0
    return X


def test_a_grid_search_warns_once_at_the_users_line():
    X = _constant_column()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # Python's own default, as a user's script has it
        GridSearchCV(lowdim.PCA(), {"n_components": [1, 2, 3]}, cv=5).fit(X)  # 16 fits
        for k in (1, 2):
            lowdim.PCA(k).fit(X)  # one more line: said once there too
    zero = [w for w in caught if "zero variance (columns 2)" in str(w.message)]
    assert len(zero) == 2
    assert all(w.filename == __file__ for w in zero)  # the user's lines, not lowdim's or scikit-learn's
    assert zero[0].lineno != zero[1].lineno


def test_always_shows_every_warning():
    X = _constant_column()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            lowdim.PCA(2).fit(X)
    assert sum("zero variance" in str(w.message) for w in caught) == 3


def test_ignore_and_error_filters_are_obeyed():
    X = _constant_column()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        lowdim.PCA(2).fit(X)
    assert caught == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            lowdim.PCA(2).fit(X)
        except UserWarning as raised:
            assert "zero variance" in str(raised)
        else:
            raise AssertionError("the 'error' filter did not raise")
