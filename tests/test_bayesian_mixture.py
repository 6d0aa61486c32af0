"""BayesianGaussianMixture: the variational updates are scikit-learn's model, the bound
never decreases, and a small concentration leaves unneeded components empty."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import BayesianGaussianMixture as SkBGMM

from lowdim import BayesianGaussianMixture
from lowdim.cluster._gmm_em import statistics
from lowdim.cluster._variational import Priors, expected_log_joint, lower_bound, update

TYPES = ["full", "tied", "diag", "spherical"]
WEIGHTS = ["dirichlet_process", "dirichlet_distribution"]


def blobs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0, 0.0], [8.0, 0.0, 1.0], [0.0, 9.0, -2.0]])
    labels = np.arange(n) % 3
    scales = np.array([1.0, 0.5, 1.5])[labels, None]
    return centers[labels] + scales * rng.normal(size=(n, 3)) @ np.diag([1.0, 0.7, 1.3]), labels


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("covariance_type", TYPES)
def test_one_variational_step_is_scikit_learns(covariance_type, weights):
    # from the same responsibilities, the M-step, the expected log joint and the bound
    # equal scikit-learn's to rounding (its private steps, called as its fit calls them)
    X, _ = blobs()
    resp = np.random.default_rng(1).dirichlet(np.ones(4), size=len(X))
    sk = SkBGMM(n_components=4, covariance_type=covariance_type, weight_concentration_prior_type=weights)
    sk._check_parameters(X)
    sk._initialize(X, resp)
    sk_joint = sk._estimate_weighted_log_prob(X)
    sk_log_resp = sk_joint - np.logaddexp.reduce(sk_joint, axis=1)[:, None]

    d = X.shape[1]
    prior_cov = {"full": np.cov(X.T), "tied": np.cov(X.T)}.get(covariance_type, np.var(X, axis=0, ddof=1))
    if covariance_type == "spherical":
        prior_cov = float(np.var(X, axis=0, ddof=1).mean())
    priors = Priors(weights, 0.25, X.mean(axis=0), 1.0, float(d), prior_cov)
    q = update(*statistics(X, resp, covariance_type), priors, covariance_type, 1e-6)
    np.testing.assert_allclose(q.gaussians.means, sk.means_, rtol=1e-10)
    np.testing.assert_allclose(q.gaussians.covariances, sk.covariances_, rtol=1e-10)
    concentration = np.vstack(q.concentration) if weights == "dirichlet_process" else q.concentration
    np.testing.assert_allclose(concentration, np.vstack(sk.weight_concentration_).squeeze(), rtol=1e-10)
    joint = expected_log_joint(X, q, 1e-6)
    np.testing.assert_allclose(joint, sk_joint, rtol=1e-9, atol=1e-9)
    log_resp = joint - np.logaddexp.reduce(joint, axis=1)[:, None]
    assert lower_bound(log_resp, q) == pytest.approx(sk._compute_lower_bound(sk_log_resp, None), rel=1e-9)


@pytest.mark.parametrize("covariance_type", TYPES)
def test_the_bound_never_decreases_and_components_not_needed_empty(covariance_type):
    X, labels = blobs()
    model = BayesianGaussianMixture(
        n_components=8, covariance_type=covariance_type, weight_concentration_prior=1e-3, random_state=0, max_iter=500
    ).fit(X)
    bounds = np.array(model.lower_bounds_)
    assert np.all(np.diff(bounds) >= -1e-9 * np.abs(bounds[:-1]))
    assert model.converged_ and model.lower_bound_ == bounds[-1]
    assert model.weights_.sum() == pytest.approx(1.0)
    if covariance_type != "tied":  # one shared shape fits the blobs' different spreads badly:
        # split blobs stay split (in scikit-learn too: 4-5 components above 0.02)
        assert int(np.sum(model.weights_ > 0.02)) == 3
        assert adjusted_rand_score(labels, model.predict(X)) == 1.0


def test_attributes_in_scikit_learns_layout():
    X, _ = blobs()
    process = BayesianGaussianMixture(n_components=3, random_state=0).fit(X)
    a, b = process.weight_concentration_
    assert a.shape == b.shape == (3,) and process.weight_concentration_prior_ == 1.0 / 3
    assert process.degrees_of_freedom_.shape == (3,) and process.mean_prior_.shape == (3,)
    np.testing.assert_allclose(process.mean_prior_, X.mean(axis=0))
    tied = BayesianGaussianMixture(
        n_components=3, covariance_type="tied", weight_concentration_prior_type="dirichlet_distribution"
    ).fit(X)
    assert isinstance(tied.degrees_of_freedom_, float) and tied.weight_concentration_.shape == (3,)
    proba = process.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(process.score_samples(X) < 0) or np.isfinite(process.score(X))


def test_warm_start_goes_on_from_the_last_posterior():
    X, _ = blobs()
    model = BayesianGaussianMixture(n_components=5, max_iter=2, tol=0.0, random_state=0, warm_start=True)
    with pytest.warns(Warning, match="did not converge"):
        model.fit(X)
    first = model.lower_bound_
    model.set_params(max_iter=200, tol=1e-3).fit(X)
    assert model.lower_bound_ >= first and model.converged_
    assert model.lower_bounds_[0] >= first  # it went on from where it stopped


def test_bad_input_is_named():
    X, _ = blobs()
    with pytest.raises(ValueError, match="degrees_of_freedom_prior=1 must be greater than n_features - 1 = 2"):
        BayesianGaussianMixture(degrees_of_freedom_prior=1.0).fit(X)
    with pytest.raises(
        ValueError, match=r"The parameter 'covariance_prior' should have the shape of \(3, 3\), but got \(2, 2\)"
    ):
        BayesianGaussianMixture(covariance_prior=np.eye(2)).fit(X)
    with pytest.raises(ValueError, match="symmetric positive definite"):
        BayesianGaussianMixture(covariance_prior=-np.eye(3)).fit(X)
    with pytest.raises(ValueError, match="mean_prior"):
        BayesianGaussianMixture(mean_prior=[0.0]).fit(X)
    with pytest.raises(ValueError, match="needs at least 2 samples"):
        BayesianGaussianMixture().fit(X[:1])
    assert BayesianGaussianMixture(covariance_prior=np.eye(3)).fit(X[:1]).predict(X[:2]).tolist() == [0, 0]
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BayesianGaussianMixture().fit(X)
