"""HDBSCAN's soft clustering: the hdbscan package's membership vectors of the training
points, and memberships of new points that agree with approximate_predict."""

import hdbscan
import numpy as np
import pytest
from sklearn.datasets import make_blobs

from lowdim import HDBSCAN
from lowdim.cluster import all_points_membership_vectors, membership_vector


@pytest.fixture(scope="module")
def fitted():
    X, _ = make_blobs(600, centers=[[0, 0], [3, 3], [0, 4], [5, 0]], cluster_std=[0.5, 0.8, 0.6, 1.0], random_state=3)
    X = np.vstack([X, np.random.default_rng(0).uniform(-3, 8, (60, 2))])
    ours = HDBSCAN(min_cluster_size=15, min_samples=6).fit(X)
    # the package counts neighbours without the point itself: min_samples - 1 is the same density
    ref = hdbscan.HDBSCAN(min_cluster_size=15, min_samples=5, prediction_data=True, approx_min_span_tree=False).fit(X)
    return X, ours, ref


def _cluster_map(ours, ref):
    """Our label -> the package's label (the same partition, numbered by its own tree)."""
    pairs = set(zip(ours.labels_.tolist(), ref.labels_.tolist()))
    assert len(pairs) == len(set(ours.labels_)) == len(set(ref.labels_))  # the same clusters
    return [dict(pairs)[c] for c in range(ours.labels_.max() + 1)]


def test_training_memberships_are_the_packages(fitted):
    X, ours, ref = fitted
    soft = np.empty((len(X), ours.labels_.max() + 1))
    soft[:, _cluster_map(ours, ref)] = all_points_membership_vectors(ours)
    theirs = hdbscan.all_points_membership_vectors(ref)
    # given membership in some cluster, every row is the package's
    np.testing.assert_allclose(soft / soft.sum(1, keepdims=True), theirs / theirs.sum(1, keepdims=True), atol=1e-12)
    # the probability of being in some cluster divides by the largest lambda of the cluster the
    # point merges with highest; a point merging with two at once (noise above a split) takes
    # the first in each library's own numbering, so only rows without such a tie must agree
    tree, selected = ours._selection()
    from lowdim.cluster._hdbscan_soft import merge_heights

    heights = merge_heights(tree, selected, tree.point_parent, tree.point_lambda)
    unique = (heights == heights.max(1, keepdims=True)).sum(1) == 1
    assert unique.mean() > 0.8  # most rows: the comparison below is not vacuous
    np.testing.assert_allclose(soft[unique], theirs[unique], atol=1e-12)


def test_memberships_are_probabilities_led_by_the_label(fitted):
    X, ours, _ = fitted
    soft = all_points_membership_vectors(ours)
    assert soft.min() >= 0 and soft.sum(1).max() <= 1 + 1e-12
    clustered = ours.labels_ >= 0
    assert (soft[clustered].argmax(1) == ours.labels_[clustered]).mean() > 0.95
    # noise is less surely in any cluster than the clustered points are
    assert np.median(soft[~clustered].sum(1)) < np.median(soft[clustered].sum(1))


def test_new_points_follow_approximate_predict(fitted):
    X, ours, _ = fitted
    new = np.array([[0.1, -0.1], [3.1, 2.9], [0.2, 4.1], [5.2, 0.3], [30.0, 30.0]])
    soft = membership_vector(ours, new)
    labels, _ = ours.approximate_predict(new)
    assert (soft[:4].argmax(1) == labels[:4]).all() and soft[:4].max(1).min() > 0.5
    assert soft[4].sum() < 0.1  # far from everything: in no cluster
    with pytest.raises(ValueError, match="prediction_data=True"):
        membership_vector(HDBSCAN(min_cluster_size=15, prediction_data=False).fit(X), new)


def test_copies_of_a_row_have_finite_memberships_in_their_own_cluster(fitted):
    # copies are at distance 0: lambda = 1 / 0 = inf, and inf / inf made new points' rows
    # NaN (as in the hdbscan package) and the copies' own rows 0
    X, _, _ = fitted
    copied = np.vstack([X, np.repeat(X[:3], 40, axis=0)])
    model = HDBSCAN(min_cluster_size=15, min_samples=6).fit(copied)
    soft = all_points_membership_vectors(model)
    copies = np.arange(len(X), len(copied))
    assert np.isfinite(soft).all() and soft.sum(1).max() <= 1 + 1e-12
    assert (soft[copies].argmax(1) == model.labels_[copies]).all() and soft[copies].max(1).min() > 0.5
    near = membership_vector(model, X[:3] + 1e-9)
    assert np.isfinite(near).all() and (near.argmax(1) == model.labels_[:3]).all() and near.max(1).min() > 0.5


def test_a_loaded_model_gives_the_same_memberships(fitted, tmp_path):
    import lowdim

    _, ours, _ = fitted
    lowdim.save(ours, tmp_path / "h.lowdim")
    loaded = lowdim.load(tmp_path / "h.lowdim")
    np.testing.assert_array_equal(all_points_membership_vectors(loaded), all_points_membership_vectors(ours))
