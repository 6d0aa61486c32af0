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


def test_an_estimator_built_inside_another_warns_in_the_users_estimators_name():
    """FastICA whitens with a PCA and GaussianMixture starts from a KMeans: their data
    warnings named PCA and KMeans, estimators the user never called, and the mixture's
    came twice."""
    X = np.abs(np.random.default_rng(0).normal(size=(60, 6)))
    X[:, 3] = 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lowdim.FastICA(5, random_state=0, max_iter=20).fit(X)
        lowdim.GaussianMixture(2, random_state=0).fit(np.ones((10, 2)))
    data = [str(w.message) for w in caught if "variance" in str(w.message)]
    assert [text.split(":")[0] for text in data] == ["FastICA", "GaussianMixture"], data
