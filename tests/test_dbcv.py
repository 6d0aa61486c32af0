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
