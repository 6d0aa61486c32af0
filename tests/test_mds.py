"""MDS: SMACOF metric / non-metric / weighted, classical, landmark."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.manifold import MDS as SkMDS

from lowdim.manifold import MDS, smacof


def _dist(A):
    return np.sqrt(((A[:, None] - A[None]) ** 2).sum(-1))


@pytest.fixture(scope="module")
def points():
    return np.random.default_rng(0).normal(size=(60, 4)) @ np.diag([4.0, 2.0, 1.0, 0.3])


def test_smacof_never_increases_stress(points):
    D = _dist(points)
    init = np.random.default_rng(1).normal(size=(60, 2))
    result = smacof(D, 2, init, max_iter=200, eps=0)
    assert np.all(np.diff(result.history) <= 1e-9 * result.history[0])


def test_metric_mds_at_least_as_good_as_sklearn(points):
    D = _dist(points)
    ours = MDS(2, init="classical_mds", random_state=0, metric="precomputed", normalized_stress=False).fit(D)
    ref = SkMDS(2, random_state=0, metric="precomputed", init="classical_mds", normalized_stress=False).fit(D)
    assert ours.stress_ <= ref.stress_ * (1 + 1e-6)
    np.testing.assert_allclose(
        _dist(ours.embedding_),
        _dist(MDS(2, init="classical_mds", random_state=0).fit_transform(points)),
        rtol=1e-6,
        atol=1e-6,
    )


def test_exact_embedding_has_zero_stress():
    flat = np.random.default_rng(2).normal(size=(40, 2)) @ np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
    mds = MDS(2, init="classical_mds", eps=1e-12).fit(flat)
    assert mds.stress_ < 1e-16 and mds.n_iter_ <= 3
    np.testing.assert_allclose(_dist(mds.embedding_), _dist(flat), atol=1e-7)


def test_nonmetric_mds_recovers_order_of_a_monotone_transform(points):
    D = np.exp(_dist(points) / 3)
    np.fill_diagonal(D, 0)
    mds = MDS(2, init="classical_mds", metric_mds=False, metric="precomputed", random_state=0, max_iter=500).fit(D)
    iu = np.triu_indices(60, 1)
    assert spearmanr(_dist(mds.embedding_)[iu], _dist(points)[iu])[0] > 0.97
    assert 0 <= mds.stress_ < 0.2  # Kruskal's stress-1, reported by default for non-metric


def test_zero_weights_ignore_pairs(points):
    D = _dist(points)
    noisy = D.copy()
    noisy[0, 1:] = noisy[1:, 0] = 1e3  # point 0's distances are garbage
    W = np.ones_like(D)
    W[0, 1:] = W[1:, 0] = 0
    W[0, 1:4] = W[1:4, 0] = 1  # keep three true pairs to pin it down
    noisy[0, 1:4] = noisy[1:4, 0] = D[0, 1:4]
    clean = MDS(2, init="classical_mds", metric="precomputed", weights=W, random_state=0).fit(noisy)
    plain = MDS(2, init="classical_mds", metric="precomputed", random_state=0).fit(noisy)
    mask = W > 0
    assert np.abs(_dist(clean.embedding_) - D)[mask].mean() < np.abs(_dist(plain.embedding_) - D)[mask].mean()


def test_classical_and_landmark_modes_transform(points):
    cl = MDS(3, init="classical_mds", solver="classical").fit(points)
    assert cl.eigenvalues_.shape == (3,) and np.all(np.diff(cl.eigenvalues_) <= 0)
    np.testing.assert_allclose(cl.transform(points[:5]), cl.embedding_[:5], atol=1e-8)
    assert not hasattr(MDS(init="classical_mds").fit(points), "transform")
    big = np.random.default_rng(3).normal(size=(5000, 3)) @ np.diag([3.0, 1.0, 0.1])
    lm = MDS(2, init="classical_mds", n_landmarks=50, random_state=0).fit(big)
    assert lm.embedding_.shape == (5000, 2) and lm.stress_ < 0.05
    np.testing.assert_allclose(lm.transform(big[:10]), lm.embedding_[:10], atol=1e-8)
    assert not hasattr(lm, "dissimilarity_matrix_")


def test_init_given_to_fit_and_sklearn_parameters():
    from scipy.spatial.distance import cdist

    X = np.random.default_rng(0).normal(size=(40, 4))
    start = np.random.default_rng(1).normal(size=(40, 2))
    by_fit = MDS(init="classical_mds", random_state=0).fit_transform(X, init=start)
    by_param = MDS(init=start, random_state=0).fit_transform(X)
    np.testing.assert_array_equal(by_fit, by_param)
    minkowski = MDS(init="classical_mds", metric="minkowski", metric_params={"p": 3}, random_state=0).fit(X)
    np.testing.assert_allclose(minkowski.dissimilarity_matrix_, cdist(X, X, "minkowski", p=3))
    with pytest.warns(FutureWarning, match="deprecated name for metric"):
        old = MDS(init="classical_mds", dissimilarity="precomputed", random_state=0).fit(cdist(X, X))
    np.testing.assert_allclose(old.dissimilarity_matrix_, cdist(X, X))
    MDS(init="classical_mds", n_jobs=2, verbose=0, random_state=0).fit(X)


def test_scikit_learn_1_9_defaults_and_spellings_with_their_warnings():
    """A script written against scikit-learn 1.9 runs unchanged: the default init is a
    random start with its FutureWarning, and metric=False means non-metric MDS."""
    X = np.random.default_rng(4).normal(size=(25, 3))
    with pytest.warns(FutureWarning, match="default init is 'random', as in scikit-learn 1.9"):
        default = MDS(random_state=0).fit_transform(X)
    np.testing.assert_array_equal(default, MDS(init="random", random_state=0).fit_transform(X))
    with pytest.warns(FutureWarning, match="Use metric_mds=False instead of metric=False"):
        old = MDS(metric=False, init="classical_mds", random_state=0).fit(X)
    new = MDS(metric_mds=False, init="classical_mds", random_state=0).fit(X)
    np.testing.assert_array_equal(old.embedding_, new.embedding_)
    assert old.stress_ == new.stress_


def test_non_metric_mds_is_the_same_at_any_data_scale():
    """The disparities have unit scale, and so has the random start: the run (its
    iterations and normalised stress) does not depend on the data's units, even with
    tied dissimilarities that rounding would untie at another scale."""
    X = np.array([[1.0, 1], [1, 4], [1, 5], [3, 3]])
    runs = [MDS(n_components=2, random_state=42, metric_mds=False, init="random").fit(X * s) for s in (100, 1, 0.01)]
    assert len({r.n_iter_ for r in runs}) == 1
    np.testing.assert_allclose([r.stress_ for r in runs], runs[0].stress_, rtol=1e-9)
    # Kruskal's stress-1: raw stress over the squared embedding distances
    metric = MDS(n_components=2, random_state=42, normalized_stress=True, init="random").fit(X)
    D, Z = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)), metric.embedding_
    d = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))
    assert metric.stress_ == pytest.approx(np.sqrt(((d - D) ** 2).sum() / 2 / ((d**2).sum() / 2)), rel=1e-9)
    with pytest.raises(ValueError, match="You provided both `dissimilarity` and `metric`"):
        MDS(metric="cosine", dissimilarity="euclidean", init="random").fit(X)
