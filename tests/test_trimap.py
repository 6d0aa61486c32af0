"""TriMap: the triplets and weights as defined, the gradient of the triplet loss, and
a map that keeps clusters and the order of distances."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from lowdim import TriMap
from lowdim.embedding._trimap import random_triplets, row_distances, tempered_log, triplet_weights
from lowdim.metrics import knn_accuracy
from lowdim.neighbors import ExactIndex


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(600, centers=5, n_features=10, cluster_std=1.0, random_state=0)
    return X, y


def test_knn_triplets_pair_each_point_with_its_neighbours_and_far_points():
    from lowdim._kernels.trimap import knn_triplets

    rng = np.random.default_rng(0)
    n = 50
    neighbours = np.column_stack([np.arange(n)] + [rng.permutation(n) for _ in range(4)])
    neighbours[:, 1:] = np.array([rng.choice(np.delete(np.arange(n), i), 4, replace=False) for i in range(n)])
    t = knn_triplets(neighbours, 3, 2, 7)
    assert t.shape == (n * 3 * 2, 3)
    for row, (i, j, k) in enumerate(t):
        inlier = (row // 2) % 3
        assert i == row // 6 and j == neighbours[i, inlier + 1]
        assert k not in neighbours[i, : inlier + 2]  # never the point itself or a nearer neighbour
    assert np.array_equal(t, knn_triplets(neighbours, 3, 2, 7))  # seeded per row


def test_weights_order_and_random_triplets_put_the_similar_first():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    scales = np.ones(40)
    t = random_triplets(40, row_distances(X, 0), 3, scales, rng)
    d = lambda a, b: np.linalg.norm(X[a] - X[b], axis=1)  # noqa: E731
    assert np.all(d(t[:, 0], t[:, 1]) <= d(t[:, 0], t[:, 2]))
    assert np.all(t[:, 0] != t[:, 1]) and np.all(t[:, 1] != t[:, 2]) and np.all(t[:, 0] != t[:, 2])
    w = triplet_weights(row_distances(X, 0), t, scales, 0, 0.5)
    gap = d(t[:, 0], t[:, 2]) ** 2 - d(t[:, 0], t[:, 1]) ** 2
    raw = 0.1 * gap - (0.1 * gap).min()
    np.testing.assert_allclose(w, tempered_log(1 + raw, 0.5))
    assert tempered_log(np.array(np.e), 1.0) == pytest.approx(1.0)


def test_gradient_is_half_the_derivative_of_the_loss():
    """Half: the trimap package's gradient drops the 2 of d|y|^2/dy, and its learning
    rate (lr=0.1) is set for that scale."""
    from lowdim._kernels.trimap import GRADIENT_CHUNKS, triplet_gradient

    rng = np.random.default_rng(2)
    Y = rng.normal(size=(12, 2))
    triplets = np.array([rng.choice(12, 3, replace=False) for _ in range(40)], dtype=np.int64)
    weights = rng.uniform(0.1, 2.0, 40)
    buffers = np.zeros((GRADIENT_CHUNKS, 12, 2))

    def loss(Z):
        d_ij = 1 + ((Z[triplets[:, 0]] - Z[triplets[:, 1]]) ** 2).sum(1)
        d_ik = 1 + ((Z[triplets[:, 0]] - Z[triplets[:, 2]]) ** 2).sum(1)
        return np.sum(weights / (1 + d_ik / d_ij))

    value, _ = triplet_gradient(Y, triplets, weights, 0, 1, buffers)
    assert value == pytest.approx(loss(Y))
    numeric = np.zeros_like(Y)
    for idx in np.ndindex(Y.shape):
        step = np.zeros_like(Y)
        step[idx] = 1e-6
        numeric[idx] = (loss(Y + step) - loss(Y - step)) / 2e-6
    np.testing.assert_allclose(2 * buffers[0], numeric, rtol=1e-5, atol=1e-8)
    # triplets in runs sharing their near pair (as sampled): the shared distance is reused
    runs = np.repeat(triplets[:10, :2], 4, axis=0)
    runs = np.column_stack([runs, (runs[:, 0] + rng.integers(1, 12, 40)) % 12])
    shared = np.zeros_like(buffers)
    triplet_gradient(Y, runs, weights, 0, 1, buffers)
    triplet_gradient(Y, runs, weights, 40, 4, shared)
    np.testing.assert_allclose(shared[0], buffers[0], rtol=1e-12)


def test_the_map_keeps_clusters_and_satisfies_most_triplets(blobs):
    X, y = blobs
    model = TriMap(random_state=0).fit(X)
    assert knn_accuracy(model.embedding_, y, random_state=0) > 0.95
    assert model.violated_ < 0.1
    start = TriMap(n_iters=1, random_state=0).fit(X)
    assert model.loss_ < start.loss_  # the descent lowered the triplet loss


def test_copies_of_rows_keep_the_map_finite_and_together(blobs):
    # 8 rows, each repeated 40 times: their 4th-6th neighbours are copies at distance 0, so
    # a local scale of 1e-10 made their triplet weights ~1e20 and the map ~1e8 wide
    X, y = blobs
    copied = np.vstack([X, np.repeat(X[:8], 40, axis=0)])
    plain = TriMap(random_state=0).fit_transform(X)
    Y = TriMap(random_state=0).fit_transform(copied)
    assert np.abs(Y).max() < 10 * np.abs(plain).max()
    assert knn_accuracy(Y[: len(X)], y, random_state=0) > 0.95
    copies = Y[len(X) :].reshape(8, 40, 2)
    extent = np.ptp(Y, axis=0).max()
    assert np.abs(copies - copies.mean(axis=1, keepdims=True)).max() < 0.01 * extent


def test_the_map_is_the_same_in_any_unit(blobs):
    # the start was the principal components in data units: rows of incomes (the blobs
    # times 1e4) began far too wide for the steps to move (the map kept the start's
    # overlapping clusters); as the trimap package scales rows to [0, 1], a power of two
    # apart the maps are the same up to rounding, and any factor keeps the clusters
    X, y = blobs
    plain = TriMap(random_state=0).fit_transform(X)
    np.testing.assert_allclose(TriMap(random_state=0).fit_transform(X * 2.0**20), plain, rtol=1e-5, atol=1e-5)
    for factor in (1e-6, 1e4, 1e12):
        Y = TriMap(random_state=0).fit_transform(X * factor)
        assert knn_accuracy(Y, y, random_state=0) > 0.95, factor
        assert np.ptp(Y) < 10 * np.ptp(plain), factor


def test_given_triplets_neighbours_and_distances_reproduce_the_map(blobs):
    X, _ = blobs
    model = TriMap(random_state=0).fit(X)
    again = TriMap(triplets=model.triplets_, weights=model.weights_).fit(X)
    np.testing.assert_array_equal(again.embedding_, model.embedding_)
    dist, idx = ExactIndex().build(X).query(X, 62)
    given = TriMap(knn_tuple=(idx, dist), random_state=0).fit(X)
    searched = TriMap(random_state=0, n_iters=5).fit(X)
    assert given.triplets_.shape == searched.triplets_.shape
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    from_matrix = TriMap(use_dist_matrix=True, random_state=0).fit(D)
    assert knn_accuracy(from_matrix.embedding_, blobs[1], random_state=0) > 0.95
    # the matrix's own entries weigh the triplets, as in the trimap package (distances between
    # its rows, read as vectors, gave other weights): the triplets and weights of the rows
    np.testing.assert_array_equal(from_matrix.triplets_, model.triplets_)
    np.testing.assert_allclose(from_matrix.weights_, model.weights_, rtol=1e-5, atol=1e-6)


def test_bad_input_names_the_problem(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match="triplets and weights go together"):
        TriMap(triplets=np.zeros((3, 3), dtype=int)).fit(X)
    with pytest.warns(UserWarning, match="weight_adj"):
        TriMap(weight_adj=500.0, n_iters=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="knn_tuple"):
        TriMap(knn_tuple=(np.zeros((5, 3), dtype=int), np.zeros((5, 3)))).fit(X)
    # the parameter the user set, not an internal neighbour count ("n_neighbors=51")
    with pytest.raises(ValueError, match=r"n_inliers=50 must be at most 18 for 20 samples"):
        TriMap(n_inliers=50).fit(X[:20])


def test_angular_and_hamming_distances(blobs):
    X, y = blobs
    angular = TriMap(distance="angular", random_state=0).fit(X - X.mean(axis=0))
    assert knn_accuracy(angular.embedding_, y, random_state=0) > 0.9
    # binary rows: each class flips its own third of the bits
    rng = np.random.default_rng(4)
    labels = np.repeat(np.arange(3), 100)
    bits = (rng.uniform(size=(300, 30)) < 0.1).astype(float)
    for c in range(3):
        bits[labels == c, 10 * c : 10 * c + 10] = 1.0 - bits[labels == c, 10 * c : 10 * c + 10]
    hamming = TriMap(distance="hamming", n_iters=200, random_state=0).fit(bits)
    assert knn_accuracy(hamming.embedding_, labels, random_state=0) > 0.95


def test_a_mixed_table_by_gowers_distance():
    # a table with text, boolean, date and category columns and gaps was refused (the CLI
    # pointed elsewhere)
    pytest.importorskip("pandas")
    from test_gower_tables import _table

    from lowdim import mixed_codes
    from lowdim.metrics import trustworthiness

    table = _table(240)
    group = np.arange(240) % 3
    table.loc[::5, "size"] = np.nan  # gaps, skipped pair by pair
    table.loc[1, ["size", "flag", "day", "grade"]] = np.nan  # shares no column with row 4 (no colour)
    model = TriMap(distance="gower", random_state=0).fit(table)
    Y = model.embedding_
    assert np.isfinite(Y).all() and np.isfinite(model.weights_).all() and model.violated_ < 0.2
    codes = mixed_codes(table)
    assert knn_accuracy(Y, group) > 0.95
    assert trustworthiness(codes.X, Y, metric="gower", metric_params=codes.metric_params) > 0.9  # 0.940-0.949
    again = TriMap(distance="gower", metric_params=codes.metric_params, random_state=0).fit(codes.X)
    np.testing.assert_array_equal(again.embedding_, Y)  # the table as it is, or its codes
    with pytest.raises(ValueError, match="non-numeric value.*metric='gower'"):
        TriMap().fit(table)
