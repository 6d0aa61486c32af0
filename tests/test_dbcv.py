"""DBCV: the hdbscan package's validity index, and the judgement it exists for (density
clusters of any shape beat a straight cut that the silhouette prefers)."""

import numpy as np
import pytest
from hdbscan.validity import validity_index
from sklearn.datasets import make_blobs, make_moons

from lowdim.metrics import dbcv_score, silhouette_score


@pytest.mark.parametrize("case", ["blobs", "noise", "merged", "moons", "grid"])
def test_the_packages_values_overall_and_per_cluster(case):
    X, y = make_blobs(300, centers=4, cluster_std=1.0, random_state=1)
    if case == "noise":
        y = np.where(np.random.default_rng(0).random(300) < 0.1, -1, y)
    elif case == "merged":
        y = y % 2
    elif case == "moons":
        X, y = make_moons(300, noise=0.05, random_state=0)
    elif case == "grid":  # integer points: most tree edges tie, and the tie-break picks the internal nodes
        X = np.argwhere(np.ones((20, 15))).astype(float)
        y = (X[:, 0] >= 10).astype(int) + 2 * (X[:, 1] >= 8)
    ours, per_cluster = dbcv_score(X, y, per_cluster=True)
    theirs, theirs_per_cluster = validity_index(X, y, per_cluster_scores=True)
    # both sum the same float64 terms; only their order differs
    assert ours == pytest.approx(theirs, abs=1e-12)
    np.testing.assert_allclose(per_cluster, theirs_per_cluster, atol=1e-12)


def test_a_cluster_of_copies_scores_as_the_package_scores_it():
    # copies of one row sit at one point: as dense as can be (the package's 0.9803...);
    # the score was NaN
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.2, (20, 2)), np.repeat([[5.0, 5.0]], 20, axis=0)])
    y = np.repeat([0, 1], 20)
    ours, per_cluster = dbcv_score(X, y, per_cluster=True)
    assert ours == pytest.approx(validity_index(X, y), abs=1e-12) and per_cluster[1] == 1.0


def test_degenerate_clusters_score_0_never_nan():
    # a cluster of one point has no density to validate (the package fails on it), and
    # clusters that all sit at one point are not apart: both were NaN
    X, y = make_blobs(41, centers=[[0, 0], [6, 6]], cluster_std=0.3, random_state=0)
    X[-1], y[-1] = [20.0, 20.0], 2
    total, per_cluster = dbcv_score(X, y, per_cluster=True)
    assert per_cluster[2] == 0.0 and np.isfinite(total) and total > 0.8
    assert dbcv_score(np.zeros((30, 2)), np.arange(30) % 3, per_cluster=True)[1].tolist() == [0.0, 0.0, 0.0]
    assert dbcv_score(X, np.arange(41)) == 0.0  # every point alone


def test_moons_beat_a_straight_cut_that_the_silhouette_prefers():
    M, truth = make_moons(400, noise=0.05, random_state=0)
    cut = (M[:, 0] > 0.5).astype(int)
    assert silhouette_score(M, cut) > silhouette_score(M, truth)
    assert dbcv_score(M, truth) > 0.4 > 0 > dbcv_score(M, cut)


def test_precomputed_distances_and_bad_input():
    X, y = make_blobs(120, centers=3, random_state=0)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    assert dbcv_score(D, y, metric="precomputed", d=2) == pytest.approx(dbcv_score(X, y), abs=1e-12)
    with pytest.raises(ValueError, match="needs d"):
        dbcv_score(D, y, metric="precomputed")
    with pytest.raises(ValueError, match=r"hold 1 cluster\(s\)"):
        dbcv_score(X, np.zeros(120, int))
    with pytest.raises(ValueError, match="contains NaN at row 1, column 1"):  # it was a silent NaN score
        dbcv_score(np.where(np.arange(240).reshape(120, 2) == 3, np.nan, X), y)
    with pytest.raises(ValueError, match=r"one label per row of X \(120\); got labels of shape \(119,\)"):
        dbcv_score(X, y[1:])
