"""PaCMAP: the pairs it chooses, the gradient it descends (against finite differences of
the written loss), the weight schedule, its maps of real data, transform, and the
pacmap package's conventions (given pairs, 'angular', PCA to 100 columns)."""

import numba
import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

from lowdim import PaCMAP
from lowdim._kernels.pacmap import (
    CHUNKS,
    _first_not_near_numpy,
    _first_not_near_rows,
    _second_closest_numpy,
    _second_closest_rows,
    adam_step,
    anchored_gradient,
    pair_gradient,
)
from lowdim.embedding._pacmap import phase_weights
from lowdim.embedding._pacmap_pairs import rows_from_pairs
from lowdim.metrics import knn_accuracy, random_triplet_accuracy, trustworthiness
from lowdim.neighbors import nearest_neighbors


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:, X.std(axis=0) > 0], y


@pytest.fixture(scope="module")
def fitted(digits):
    X, _ = digits
    return PaCMAP(random_state=0).fit(X)


def loss(Y, near, mid, far, weights):
    """The three pair losses as written in the paper, summed over the pairs."""
    total = 0.0
    for pairs, kind, w in zip((near, mid, far), range(3), weights):
        for i, row in enumerate(pairs):
            for j in row[row >= 0]:
                d = 1.0 + np.sum((Y[i] - Y[j]) ** 2)
                total += w * (d / (10 + d) if kind == 0 else d / (10000 + d) if kind == 1 else 1 / (1 + d))
    return total


def test_gradient_is_the_derivative_of_the_pair_losses():
    rng = np.random.default_rng(0)
    n = 30
    Y = rng.normal(scale=3.0, size=(n, 2))
    near, mid, far = (rng.integers(0, n, size=(n, k)).astype(np.int32) for k in (3, 2, 4))
    near[near == np.arange(n)[:, None]] = -1  # padding is skipped
    weights = (2.0, 500.0, 1.0)
    parts = np.empty((CHUNKS, n, 2))
    pair_gradient(Y, near, mid, far, *weights, parts)
    grad = parts.sum(axis=0)
    eps = 1e-6
    numeric = np.zeros_like(Y)
    for i in range(n):
        for c in range(2):
            up, down = Y.copy(), Y.copy()
            up[i, c] += eps
            down[i, c] -= eps
            numeric[i, c] = (loss(up, near, mid, far, weights) - loss(down, near, mid, far, weights)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)
    # new points against fixed ones: the same derivative, the fixed rows not moving
    reference = rng.normal(size=(n, 2))
    new = rng.normal(size=(5, 2))
    out = np.empty_like(new)
    anchored_gradient(new, reference, near[:5], mid[:5], far[:5], *weights, out)
    stacked = np.vstack([new, reference])
    shift = lambda p: np.where(p >= 0, p + 5, -1)  # noqa: E731 - partner rows after the new ones
    full = np.empty((CHUNKS, n + 5, 2))
    pad = lambda p: np.vstack([shift(p[:5]), np.full((n, p.shape[1]), -1, dtype=np.int32)])  # noqa: E731
    pair_gradient(stacked, pad(near), pad(mid), pad(far), *weights, full)
    np.testing.assert_allclose(out, full.sum(axis=0)[:5], rtol=1e-10)


def test_adam_step_adds_the_gradient_parts_in_order_then_steps():
    rng = np.random.default_rng(0)
    parts = rng.normal(size=(3, 50, 2))
    Y, m, v = rng.normal(size=(50, 2)), rng.normal(size=(50, 2)), rng.random((50, 2))
    grad = parts[0] + parts[1] + parts[2]
    m_ref = 0.9 * m + 0.1 * grad
    v_ref = 0.999 * v + 0.001 * grad * grad
    rate = 0.5 * np.sqrt(1.0 - 0.999**3) / (1.0 - 0.9**3)
    Y_ref = Y - rate * m_ref / (np.sqrt(v_ref) + 1e-7)
    adam_step(Y, parts, m, v, 0.5, 0.9, 0.999, 1e-7, 3)
    np.testing.assert_array_equal(parts[0], grad)  # left holding the sum, added in order
    for got, want in ((m, m_ref), (v, v_ref), (Y, Y_ref)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_tables_choose_the_kernels_partners(dtype):
    # below SMALL_CHOICE numpy chooses the partners; they must be the kernels' to the
    # bit: equal distances (copied rows, repeated candidates) fall in candidate order,
    # repeats, near partners and the row itself are passed over, short rows padded
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 7)).astype(dtype)
    X[6] = X[5]
    candidates = rng.integers(0, n, size=(n, 5, 6)).astype(np.int32)
    candidates[:, :, 3] = candidates[:, :, 1]
    candidates[:, 0, :2] = [5, 6]
    expected = np.empty((n, 5), dtype=np.int32)
    _second_closest_rows(X, X, candidates, expected, 0, n)
    np.testing.assert_array_equal(_second_closest_numpy(X, X, candidates), expected)
    pool = rng.integers(0, 30, size=(n, 20)).astype(np.int32)
    near = rng.integers(0, 30, size=(n, 8)).astype(np.int32)
    near[:, -1] = -1
    for count, self_excluded in ((4, True), (15, True), (15, False)):
        expected = np.full((n, count), -1, dtype=np.int32)
        _first_not_near_rows(pool, near, count, self_excluded, expected, 0, n)
        assert (expected[:, 0] >= 0).all() and (expected == -1).any() == (count == 15)  # rows run short
        np.testing.assert_array_equal(_first_not_near_numpy(pool, near, count, self_excluded), expected)


def test_three_phase_weights():
    phases = (100, 100, 250)
    assert phase_weights(0, phases) == (2.0, 1000.0, 1.0)
    assert phase_weights(50, phases) == pytest.approx((2.0, 501.5, 1.0))
    assert phase_weights(100, phases) == phase_weights(199, phases) == (3.0, 3.0, 1.0)
    assert phase_weights(200, phases) == phase_weights(449, phases) == (1.0, 0.0, 1.0)


def test_pairs_follow_the_definitions(digits, fitted):
    X, _ = digits
    n, k = X.shape[0], fitted.n_neighbors_
    assert k == 10 and fitted.pair_neighbors_.shape == (n * k, 2) and fitted.pair_FP_.shape == (n * 2 * k, 2)
    near, mid, far = (rows_from_pairs(p, n, "p") for p in (fitted.pair_neighbors_, fitted.pair_MN_, fitted.pair_FP_))
    _, candidates = nearest_neighbors(X, k + 50, algorithm="exact")
    for i in range(0, n, 97):
        assert set(near[i]) <= set(candidates[i])  # chosen among the 60 nearest
        assert i not in set(far[i]) | set(mid[i]) | set(near[i])
        assert not set(far[i]) & set(near[i])
    # mid-near partners lie between the near partners and random points
    dist = lambda a, b: np.linalg.norm(X[a] - X[b], axis=-1)  # noqa: E731
    rows = np.arange(n)[:, None]
    assert dist(rows, near).mean() < dist(rows, mid).mean() < dist(rows, far).mean()


def test_map_of_the_digits_keeps_local_and_global_structure(digits, fitted):
    X, y = digits
    Y = fitted.embedding_
    assert knn_accuracy(Y, y, n_neighbors=10, random_state=0) > 0.97
    assert trustworthiness(X, Y, n_neighbors=10) > 0.97
    assert random_triplet_accuracy(X, Y, random_state=0) > 0.6


def test_same_map_for_a_seed_whatever_the_thread_count(digits, machine_threads):
    X, _ = digits
    params = dict(random_state=3, num_iters=(20, 20, 40))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = PaCMAP(**params).fit_transform(X[:600])
        numba.set_num_threads(before)
        many = PaCMAP(**params).fit_transform(X[:600])
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)


def test_given_pairs_give_the_same_map(digits, fitted):
    X, _ = digits
    again = PaCMAP(
        random_state=0, pair_neighbors=fitted.pair_neighbors_, pair_MN=fitted.pair_MN_, pair_FP=fitted.pair_FP_
    ).fit(X)
    np.testing.assert_allclose(again.embedding_, fitted.embedding_, atol=1e-4)


def test_transform_places_training_points_near_themselves_and_batches_do_not_matter(digits, fitted):
    X, _ = digits
    Y = fitted.embedding_
    Z = fitted.transform(X[:300])
    spread = np.ptp(Y, axis=0).max()
    assert np.median(np.linalg.norm(Z - Y[:300], axis=1)) < 0.02 * spread
    np.testing.assert_allclose(fitted.transform(X[:40]), Z[:40], rtol=1e-5, atol=1e-5)
    # each lands among its own 10 nearest in the map (with the mid-near phase: 87 %)
    own = NearestNeighbors(n_neighbors=11).fit(Y).kneighbors(Y[:300], return_distance=False)
    landed = NearestNeighbors(n_neighbors=1).fit(Y).kneighbors(Z, return_distance=False)[:, 0]
    assert np.mean([landed[i] in own[i] for i in range(300)]) >= 0.95


def test_new_points_are_classified_by_the_map_as_by_their_neighbours_in_the_data(digits):
    """Fitted on 1,500 digits, the other 297 placed by transform: a 10-NN classifier on
    the map labels them about as well as one on the data itself: within 0.05, about
    three standard errors of an accuracy on 297 points (0.91-0.93 against 0.943 over
    seeds; the mid-near phase run on the fixed map gave 0.80)."""
    X, y = digits
    model = PaCMAP(random_state=0).fit(X[:1500])
    on_map = KNeighborsClassifier(10).fit(model.embedding_, y[:1500]).score(model.transform(X[1500:]), y[1500:])
    on_data = KNeighborsClassifier(10).fit(X[:1500], y[:1500]).score(X[1500:], y[1500:])
    assert on_map >= on_data - 0.05


def test_angular_distance_ignores_row_length_and_wide_data_go_through_pca(digits):
    X, _ = digits
    scale = np.random.default_rng(0).uniform(0.5, 3.0, size=(len(X), 1))
    a = PaCMAP(distance="angular", random_state=0, num_iters=(10, 10, 10)).fit(X)
    b = PaCMAP(distance="angular", random_state=0, num_iters=(10, 10, 10)).fit(X * scale)
    np.testing.assert_array_equal(a.pair_neighbors_, b.pair_neighbors_)
    wide = np.hstack([X, X[:, :50] ** 2])  # 111 columns
    m = PaCMAP(random_state=0, num_iters=(10, 10, 10)).fit(wide)
    assert m.pca_components_.shape == (100, 111) and m.P_fit_.shape == (len(X), 100)
    assert PaCMAP(apply_pca=False, num_iters=(5, 5, 5)).fit(wide).pca_components_ is None


def test_bad_parameters_are_refused_with_the_fix(digits):
    X, _ = digits
    with pytest.raises(ValueError, match="num_iters must be an int or 3 non-negative ints"):
        PaCMAP(num_iters=(10, 10)).fit(X[:50])
    with pytest.raises(
        ValueError,
        match=r"n_components=70 must be at most min\(n_samples, n_features\) = min\(100, 61\) .* init='random'",
    ):
        PaCMAP(n_components=70).fit(X[:100])
    with pytest.raises(ValueError, match="pair_MN must be an \\(n_pairs, 2\\) integer array"):
        PaCMAP(pair_MN=np.zeros((5, 3), dtype=int)).fit(X[:50])
    with pytest.raises(ValueError, match="pair_FP refers to rows outside 0..49"):
        PaCMAP(pair_FP=np.array([[0, 50]])).fit(X[:50])


def test_a_precomputed_neighbour_graph_gives_the_same_map(digits):
    X, _ = digits
    P = X.astype(np.float32)
    d, idx = nearest_neighbors(P, 60, algorithm="exact")
    rows = np.arange(len(X))[:, None]
    knn = (np.hstack([rows, idx]), np.hstack([np.zeros((len(X), 1), dtype=d.dtype), d]))
    params = dict(random_state=0, num_iters=(20, 20, 40))
    searched = PaCMAP(neighbors_algorithm="exact", **params).fit(X)
    given = PaCMAP(precomputed_knn=knn, **params).fit(X)
    np.testing.assert_array_equal(given.pair_neighbors_, searched.pair_neighbors_)
    np.testing.assert_array_equal(given.embedding_, searched.embedding_)
    assert given.transform(X[:3]).shape == (3, 2)  # the index for new points is built when needed
    with pytest.raises(ValueError, match="precomputed_knn describes 10 points but X has 1797 rows"):
        PaCMAP(precomputed_knn=(knn[0][:10], knn[1][:10])).fit(X)


def test_rows_far_from_the_origin_keep_their_neighbours():
    # UTM coordinates in metres (easting 5e5, northing 5e6): cast to float32 as they are,
    # rows kept 0.5 m of precision and a quarter of the neighbour pairs changed
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)) * [30.0, 30.0, 5.0]
    far = X + [500_000.0, 5_000_000.0, 300.0]
    near_model, far_model = PaCMAP(random_state=0).fit(X), PaCMAP(random_state=0).fit(far)
    # the same pairs but for a near-tie that a last-bit difference may flip (74 % before)
    assert np.mean(np.all(far_model.pair_neighbors_ == near_model.pair_neighbors_, axis=1)) > 0.995
    np.testing.assert_allclose(far_model.pca_mean_, far.mean(axis=0), rtol=1e-12)
    assert np.abs(far_model.P_fit_).max() < 200  # the rows as centred, not as given
    assert far_model.pca_components_ is None
