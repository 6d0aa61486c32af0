"""Fisher LDA: agreement with scikit-learn, shrinkage, projection size, classification."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

from lowdim import LinearDiscriminantAnalysis as LDA

DATA = [load_iris, load_wine, load_breast_cancer]
CASES = [("svd", None), ("eigen", None), ("eigen", "auto"), ("eigen", 0.3)]


@pytest.mark.parametrize("load", DATA, ids=lambda f: f.__name__)
@pytest.mark.parametrize("solver, shrinkage", CASES)
def test_agrees_with_sklearn_projections_up_to_sign_and_scale(load, solver, shrinkage):
    X, y = load(return_X_y=True)
    ours = LDA(solver=solver, shrinkage=shrinkage).fit(X, y)
    ref = SkLDA(solver=solver, shrinkage=shrinkage).fit(X, y)
    Z, R = ours.transform(X), ref.transform(X)
    assert Z.shape == R.shape == (len(X), min(len(np.unique(y)) - 1, X.shape[1]))
    for i in range(Z.shape[1]):
        assert abs(np.corrcoef(Z[:, i], R[:, i])[0, 1]) > 1 - 1e-8
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, atol=1e-8)


def test_directions_maximize_the_fisher_ratio():
    X, y = load_wine(return_X_y=True)
    lda = LDA().fit(X, y)
    Z = lda.transform(X)
    means = np.array([Z[y == c].mean(axis=0) for c in np.unique(y)])
    within = sum(((Z[y == c] - means[i]) ** 2).sum(axis=0) for i, c in enumerate(np.unique(y)))
    between = (np.bincount(y)[:, None] * (means - Z.mean(axis=0)) ** 2).sum(axis=0)
    ratio = between / within
    rng = np.random.default_rng(0)
    for _ in range(200):  # no random direction separates the classes better than the first
        w = rng.normal(size=X.shape[1])
        p = X @ w
        pm = np.array([p[y == c].mean() for c in np.unique(y)])
        b = (np.bincount(y) * (pm - p.mean()) ** 2).sum()
        wi = sum(((p[y == c] - pm[i]) ** 2).sum() for i, c in enumerate(np.unique(y)))
        assert b / wi <= ratio[0] * (1 + 1e-9)


def test_string_labels_priors_and_errors():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    lda = LDA(priors=[0.2, 0.3, 0.5]).fit(X, names)
    assert set(lda.predict(X)) <= set(names) and np.allclose(lda.priors_, [0.2, 0.3, 0.5])
    with pytest.raises(
        ValueError, match=r"n_components=3 must be at most min\(n_features, n_classes - 1\).*cannot be larger than"
    ):
        LDA(n_components=3).fit(X, y)
    for kind in (ValueError, NotImplementedError):  # lowdim's kind of error, and scikit-learn's
        with pytest.raises(kind, match="shrinkage and covariance_estimator are not supported by solver='svd'"):
            LDA(shrinkage="auto").fit(X, y)
    with pytest.raises(ValueError, match="priors must be non-negative, one per class"):
        LDA(priors=[0.5, -0.5, 1.0]).fit(X, y)
    with pytest.raises(ValueError, match="The number of samples must be more than the number of classes: 3 samples"):
        LDA().fit(X[[0, 50, 100]], y[[0, 50, 100]])
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        LDA().fit(X, X[:, 0] + 0.5)


@pytest.mark.parametrize(
    "params",
    [
        {"solver": "lsqr"},
        {"solver": "lsqr", "shrinkage": "auto"},
        {"solver": "lsqr", "shrinkage": 0.3},
        {"solver": "eigen", "cov": "oas"},
        {"solver": "lsqr", "cov": "oas"},
    ],
)
def test_lsqr_and_covariance_estimators_match_sklearn(params):
    from sklearn.covariance import OAS
    from sklearn.datasets import load_wine
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

    X, y = load_wine(return_X_y=True)
    params = dict(params)
    if params.pop("cov", None):
        params["covariance_estimator"] = OAS()
    ours, theirs = LDA(**params).fit(X, y), SkLDA(**params).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-10 * np.abs(theirs.coef_).max())
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    if params["solver"] == "lsqr":
        with pytest.raises(NotImplementedError, match="solver='lsqr'"):
            ours.transform(X)


def test_float32_model_and_refused_combinations():
    from sklearn.covariance import OAS
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    lda = LDA().fit(X.astype(np.float32), y)
    assert lda.coef_.dtype == lda.intercept_.dtype == lda.scalings_.dtype == np.float32
    with pytest.raises(ValueError, match="Only one of the two can be set"):
        LDA(solver="eigen", shrinkage="auto", covariance_estimator=OAS()).fit(X, y)
    with pytest.raises(ValueError, match="not supported by solver='svd'"):
        LDA(covariance_estimator=OAS()).fit(X, y)


def test_covariance_estimator_need_not_be_a_scikit_learn_estimator():
    """Any object with fit(X) and covariance_ (scikit-learn's contract) is used, on a
    copy: the caller's object is not fitted."""
    from sklearn.covariance import LedoitWolf

    from lowdim import KMeans

    class Plain:
        def fit(self, X):
            self.covariance_ = LedoitWolf().fit(X).covariance_
            return self

    X, y = load_iris(return_X_y=True)
    given = Plain()
    plain = LDA(solver="lsqr", covariance_estimator=given, store_covariance=True).fit(X, y)
    wrapped = LDA(solver="lsqr", covariance_estimator=LedoitWolf(), store_covariance=True).fit(X, y)
    np.testing.assert_allclose(plain.covariance_, wrapped.covariance_, rtol=1e-12)
    assert not hasattr(given, "covariance_")
    with pytest.raises(ValueError, match="covariance_estimator KMeans has no covariance_ attribute after fit"):
        LDA(solver="lsqr", covariance_estimator=KMeans(2)).fit(X, y)


def test_one_class_is_named_as_the_user_wrote_it():
    with pytest.raises(ValueError, match=r"y has 1 class \('a'\)\.$"):  # not numpy 2's np.str_('a')
        LDA().fit(np.random.default_rng(0).normal(size=(10, 3)), np.array(["a"] * 10))
