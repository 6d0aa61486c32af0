"""HDBSCAN against scikit-learn's, and its own properties: the exact spanning tree,
selection options, outlier scores, approximate_predict, bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import HDBSCAN as SklearnHDBSCAN
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from lowdim.cluster import HDBSCAN


def _blobs(seed, n=600):
    X, _ = make_blobs(n, centers=5, cluster_std=[0.5, 1, 1.5, 0.8, 2], random_state=seed)
    # distinct pairwise distances: the only ties left are those of mutual reachability
    return X + np.random.default_rng(seed).normal(0, 1e-6, X.shape)


def _sklearn(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # its `copy` default is changing
        return SklearnHDBSCAN(copy=True, **params).fit(X)


@pytest.fixture(params=["prim", "kernels"])
def path(request, monkeypatch):
    """Both spanning-tree paths: Prim's over all pairs in numpy (small tables, the
    default here) and the k-d tree kernels (every table above ``SMALL_PRIM``)."""
    if request.param == "kernels":
        monkeypatch.setattr("lowdim.cluster._hdbscan_prim.SMALL_PRIM", 0)
    return request.param


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "params",
    [
        {"min_cluster_size": 10},
        {"min_cluster_size": 5, "min_samples": 3},
        {"min_cluster_size": 8, "min_samples": 1},
        {"min_cluster_size": 15, "cluster_selection_method": "leaf"},
        {"min_cluster_size": 20, "allow_single_cluster": True},
        {"min_cluster_size": 10, "max_cluster_size": 100},
        {"min_cluster_size": 10, "alpha": 0.7},
    ],
)
def test_labels_and_probabilities_equal_sklearn(seed, params, path):
    X = _blobs(seed)
    ours, theirs = HDBSCAN(**params).fit(X), _sklearn(X, **params)
    assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
    assert np.array_equal(ours.labels_ == -1, theirs.labels_ == -1)
    np.testing.assert_allclose(ours.probabilities_, theirs.probabilities_, atol=1e-12)


def test_alpha_above_one_gives_sklearns_hierarchy(path):
    """With alpha > 1 most edges weigh max(core_a, core_b): many merges happen at one
    height, and the order in which an implementation takes merges of equal height
    (and whether two near-equal core distances round to equal on a given CPU) moves
    boundary points. What is defined whatever the order: the merge heights (every
    minimum spanning tree has the same multiset of weights) and the clusters found."""
    X = _blobs(0)
    ours, theirs = HDBSCAN(min_cluster_size=10, alpha=1.5).fit(X), _sklearn(X, min_cluster_size=10, alpha=1.5)
    heights = theirs._single_linkage_tree_["value"]
    # distances from two implementations' arithmetic: equal to a few units of rounding
    np.testing.assert_allclose(np.sort(ours.single_linkage_tree_[:, 2]), np.sort(heights), rtol=1e-12)
    assert len(set(ours.labels_) - {-1}) == len(set(theirs.labels_) - {-1})
    plain = HDBSCAN(min_cluster_size=10).fit(X)  # alpha = 1: heights differ by whole units
    assert np.abs(np.sort(plain.single_linkage_tree_[:, 2]) - np.sort(heights)).max() > 0.01


def _assert_sklearns_merges(X, **params):
    """Every merge of the tree, the labels and the probabilities are scikit-learn's."""
    ours, theirs = HDBSCAN(**params).fit(X), _sklearn(X, **params)
    tree = theirs._single_linkage_tree_
    expected = np.column_stack([tree["left_node"], tree["right_node"], tree["value"], tree["cluster_size"]])
    assert np.array_equal(ours.single_linkage_tree_, expected)
    assert np.array_equal(ours.labels_, theirs.labels_)
    assert np.array_equal(ours.probabilities_, theirs.probabilities_)


@pytest.mark.parametrize("alpha", [1.0, 2.0])
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_a_small_tables_tree_is_sklearns_merge_for_merge(alpha, offset):
    """Prim's algorithm over all pairs (small tables) takes scikit-learn's steps: the
    same distances, summed feature after feature, and the same rule for ties, so on a
    grid with copies of rows (ties everywhere, also for alpha > 1, and an offset that
    the screening's expansion cancels badly) every merge is scikit-learn's."""
    grid = np.array([[i, j] for i in range(25) for j in range(25)], dtype=np.float64) * 0.1 + offset
    X = np.vstack([grid, grid[::7]])
    for params in ({"min_cluster_size": 5}, {"min_cluster_size": 10, "min_samples": 3}):
        _assert_sklearns_merges(X, alpha=alpha, **params)


def test_a_wide_tables_tree_is_sklearns_merge_for_merge(monkeypatch):
    """More columns than rows (probes, genes): the core neighbours by the certified
    exact search and the screen by one product of all pairs, in place of a k-d tree that
    visits every row and n products of all rows; the tree is still scikit-learn's,
    copies of rows included."""
    monkeypatch.setattr("lowdim.cluster._hdbscan_prim.cKDTree", lambda *a, **k: pytest.fail("a k-d tree of wide rows"))
    rng = np.random.default_rng(0)
    group = np.arange(60) % 3
    X = rng.normal(size=(60, 400)) + 3.0 * rng.normal(size=(3, 400))[group]
    X[-4:] = X[:4]  # copies: ties of core distance 0
    for params in ({"min_cluster_size": 5}, {"min_cluster_size": 4, "min_samples": 2, "alpha": 2.0}):
        _assert_sklearns_merges(X, **params)


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_above_16_columns_the_screened_tree_is_sklearns_merge_for_merge(monkeypatch, offset):
    """Tables too large for the numpy path and wider than the k-d tree pays for take
    Prim's steps screened in float32 (``screened_prim``): every merge is still
    scikit-learn's, on a grid of 20 columns with copies of rows (ties everywhere) and
    off the origin."""
    monkeypatch.setattr("lowdim.cluster._hdbscan_prim.SMALL_PRIM", 0)
    monkeypatch.setattr("lowdim.cluster._hdbscan.prim_pays", lambda dist: True)
    monkeypatch.setattr(
        "lowdim._kernels.reachability_tree.reachability_mst", lambda *a, **k: pytest.fail("the k-d tree's rounds")
    )
    rng = np.random.default_rng(3)
    centres = rng.integers(0, 6, (4, 20))
    X = (centres[np.arange(400) % 4] + rng.integers(0, 2, (400, 20))).astype(float) + offset
    X[-10:] = X[:10]
    for params in ({"min_cluster_size": 8}, {"min_cluster_size": 10, "min_samples": 4, "alpha": 2.0}):
        _assert_sklearns_merges(X, **params)


def test_the_intrinsic_dimension_chooses_prims_steps_for_rows_that_fill_their_space():
    from scipy.spatial.distance import cdist

    from lowdim.cluster._tree_choice import PRIM_ABOVE, neighbour_dimension

    rng = np.random.default_rng(0)
    rotation = np.linalg.qr(rng.normal(size=(40, 40)))[0]
    found = []
    for d in (2, 8, 30):  # uniform in d dimensions, turned into 40 columns
        X = np.hstack([rng.uniform(size=(4000, d)), np.zeros((4000, 40 - d))]) @ rotation
        found.append(neighbour_dimension(np.sort(cdist(X[:300], X), axis=1)[:, :8]))
    # 4,000 points fill 30 dimensions sparsely: estimates fall short there, never across the line
    assert abs(found[0] - 2) < 0.2 and found[0] < found[1] < PRIM_ABOVE < found[2]


def test_pair_distances_sum_feature_after_feature(monkeypatch):
    """The promise behind ties with scikit-learn: each pair's squared differences are
    added in feature order, whatever the number of pairs (a lone pair too, and a lone
    pair left at the end of the chunks) and the layout of the rows."""
    from lowdim.cluster._hdbscan_prim import pair_distances

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 37)) * rng.uniform(1e-3, 1e3, size=37)
    rows, cols = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    expected = np.zeros(300)
    for k in range(X.shape[1]):
        expected += np.square(X[rows, k] - X[cols, k])
    expected = np.sqrt(expected)
    for rows_of in (np.ascontiguousarray(X), np.asfortranarray(X)):
        assert np.array_equal(pair_distances(rows_of, rows, cols), expected)
        assert all(pair_distances(rows_of, rows[i : i + 1], cols[i : i + 1])[0] == expected[i] for i in range(5))
    monkeypatch.setattr("lowdim.cluster._hdbscan_prim.CHUNK_CELLS", 37 * 23)  # 13 chunks of 23 pairs, then 1
    assert np.array_equal(pair_distances(X, rows, cols), expected)


def test_both_tree_paths_give_one_result(monkeypatch):
    """The small tables' path and the kernels' find the same tree and clusters."""
    X = _blobs(4, 800)
    small = HDBSCAN(min_cluster_size=12, min_samples=6).fit(X)
    monkeypatch.setattr("lowdim.cluster._hdbscan_prim.SMALL_PRIM", 0)
    kernels = HDBSCAN(min_cluster_size=12, min_samples=6).fit(X)
    assert np.array_equal(small.labels_, kernels.labels_)
    np.testing.assert_allclose(small.core_distances_, kernels.core_distances_, rtol=1e-13)
    np.testing.assert_allclose(small.single_linkage_tree_, kernels.single_linkage_tree_, rtol=1e-13)


def test_precomputed_distances_equal_feature_vectors():
    X = _blobs(2, 300)
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    a, b = HDBSCAN(min_cluster_size=10, metric="precomputed").fit(D), HDBSCAN(min_cluster_size=10).fit(X)
    assert np.array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.core_distances_, b.core_distances_)


def test_precomputed_infinite_distances_are_pairs_never_joined():
    """np.inf in a dense precomputed matrix (scikit-learn's way of saying two points are
    at no finite distance): groups at infinite distance from each other are never in
    one cluster."""
    X = _blobs(2, 300)
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    half = D.shape[0] // 2
    D[:half, half:] = D[half:, :half] = np.inf
    labels = HDBSCAN(min_cluster_size=10, metric="precomputed").fit(D).labels_
    assert (labels >= 0).mean() > 0.5  # clusters were found
    assert not set(labels[:half][labels[:half] >= 0]) & set(labels[half:][labels[half:] >= 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns of the infinite edge
        reference = SklearnHDBSCAN(min_cluster_size=10, metric="precomputed", copy=True).fit(D).labels_
    assert adjusted_rand_score(labels, reference) == 1.0 and np.array_equal(labels < 0, reference < 0)
    HDBSCAN(min_samples=1, metric="precomputed").fit(np.array([[1, np.inf], [np.inf, 1]]))  # scikit-learn's case


def test_spanning_tree_is_the_minimum_one():
    """Total mutual-reachability weight equals Prim's on the full matrix."""
    from lowdim._kernels.reachability_tree import dense_reachability_mst

    X = np.random.default_rng(3).normal(size=(400, 3))
    model = HDBSCAN(min_cluster_size=5).fit(X)
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    _, _, w = dense_reachability_mst(D, model.core_distances_)
    assert model.single_linkage_tree_[:, 2].sum() == pytest.approx(w.sum(), rel=1e-12)
    assert model.single_linkage_tree_[-1, 3] == 400


def test_scores_are_in_range_and_noise_has_zero_probability():
    X = np.vstack([_blobs(4, 500), np.random.default_rng(4).uniform(-15, 15, (60, 2))])
    model = HDBSCAN(min_cluster_size=15).fit(X)
    assert set(np.unique(model.labels_)) >= {-1, 0}
    assert np.all((model.probabilities_ >= 0) & (model.probabilities_ <= 1))
    assert np.all(model.probabilities_[model.labels_ == -1] == 0)
    assert np.all((model.outlier_scores_ >= 0) & (model.outlier_scores_ <= 1))
    # the uniform background is more outlying than the blob points
    assert model.outlier_scores_[500:].mean() > model.outlier_scores_[:500].mean() + 0.2
    assert np.all((model.cluster_persistence_ >= 0) & (model.cluster_persistence_ <= 1))


def test_epsilon_merges_clusters_born_closer():
    X = _blobs(5)
    plain = HDBSCAN(min_cluster_size=5, cluster_selection_method="leaf").fit(X)
    merged = HDBSCAN(min_cluster_size=5, cluster_selection_method="leaf", cluster_selection_epsilon=1.0).fit(X)
    assert merged.labels_.max() < plain.labels_.max()
    # every point clustered before stays clustered, in one merged cluster per old cluster
    kept = plain.labels_ >= 0
    assert np.all(merged.labels_[kept] >= 0)
    for c in range(plain.labels_.max() + 1):
        assert np.unique(merged.labels_[plain.labels_ == c]).size == 1


def test_approximate_predict_agrees_with_the_fit():
    X = _blobs(6, 2000)
    model = HDBSCAN(min_cluster_size=20).fit(X)
    labels, strengths = model.approximate_predict(X)
    assert np.mean(labels == model.labels_) > 0.99
    assert np.all((strengths >= 0) & (strengths <= 1))
    # points drawn near a cluster's densest members join that cluster
    core = np.flatnonzero(model.probabilities_ == 1.0)
    near = X[core] + np.random.default_rng(0).normal(0, 1e-3, (core.size, 2))
    assert np.array_equal(model.approximate_predict(near)[0], model.labels_[core])


def test_save_load_keeps_approximate_predict(tmp_path):
    from lowdim.io import load, save

    X = _blobs(7, 400)
    model = HDBSCAN(min_cluster_size=10).fit(X)
    save(model, tmp_path / "h.lowdim")
    again = load(tmp_path / "h.lowdim")
    assert np.array_equal(again.labels_, model.labels_)
    for got, want in zip(again.approximate_predict(X[:50]), model.approximate_predict(X[:50])):
        np.testing.assert_array_equal(got, want)


def test_centers_and_dbscan_cut():
    X = _blobs(8, 500)
    model = HDBSCAN(min_cluster_size=10, store_centers="both").fit(X)
    k = model.labels_.max() + 1
    assert model.centroids_.shape == model.medoids_.shape == (k, 2)
    for c in range(k):  # a medoid is a member of its cluster
        assert np.any(np.all(X[model.labels_ == c] == model.medoids_[c], axis=1))
    cut = model.dbscan_clustering(cut_distance=0.5, min_cluster_size=10)
    assert cut.shape == (500,) and cut.max() >= 0 and cut.min() >= -1


def test_float32_and_duplicates():
    X = np.repeat(_blobs(9, 200), 3, axis=0).astype(np.float32)
    model = HDBSCAN(min_cluster_size=6).fit(X)
    assert model.labels_.max() >= 1
    assert np.all(np.isfinite(model.outlier_scores_))


def test_bad_input_gets_clear_errors():
    X = _blobs(0, 50)
    with pytest.raises(ValueError, match="min_cluster_size"):
        HDBSCAN(min_cluster_size=1).fit(X)
    with pytest.raises(ValueError, match=r"min_samples \(60\) must be at most the number of samples in X \(50 sam"):
        HDBSCAN(min_samples=60).fit(X)
    with pytest.raises(ValueError, match="The precomputed distance matrix is expected to be square"):
        HDBSCAN(metric="precomputed").fit(X)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    D[0, 1] = np.nan
    with pytest.raises(ValueError, match="expected to be symmetric, however it has different values"):
        HDBSCAN(metric="precomputed").fit(np.where(np.isnan(D), 5.0, D))
    with pytest.raises(ValueError, match="np.nan values found in precomputed-dense"):
        HDBSCAN(metric="precomputed").fit(D)
    with pytest.raises(ValueError, match="Cannot store centers when using a precomputed distance matrix"):
        HDBSCAN(metric="precomputed", store_centers="medoid").fit(np.nan_to_num(D))
    for algorithm, metric in (
        ("kd_tree", "cosine"),
        ("ball_tree", "cosine"),
        ("kd_tree", "precomputed"),
        ("kd_tree", "dice"),
    ):
        with pytest.raises(ValueError, match=f"{metric} is not a valid metric for a .*Tree-based algorithm"):
            HDBSCAN(metric=metric, algorithm=algorithm).fit(X)
    with pytest.raises(ValueError, match="prediction_data=True"):
        HDBSCAN(prediction_data=False).fit(X).approximate_predict(X)


def test_scikit_learns_remaining_parameters_are_taken():
    """copy, n_jobs and metric_params as scikit-learn 1.9 passes them: the same clusters
    (lowdim never writes to X, and any thread count gives the same result)."""
    X = _blobs(3, 300)
    before = X.copy()
    plain = HDBSCAN(min_cluster_size=10).fit(X).labels_
    for options in ({"copy": True}, {"copy": False}, {"n_jobs": 2}, {"metric_params": {}}):
        assert np.array_equal(HDBSCAN(min_cluster_size=10, **options).fit(X).labels_, plain), options
    assert np.array_equal(X, before)
    with pytest.raises(ValueError, match="metric='euclidean' takes no parameters; got metric_params"):
        HDBSCAN(metric_params={"p": 3}).fit(X)


@pytest.mark.parametrize("metric", ["manhattan", "chebyshev", "cosine", "minkowski"])
def test_other_metrics_equal_their_precomputed_distances(metric):
    """Any metric of scikit-learn's HDBSCAN: the same clusters as its distance matrix
    passed with metric='precomputed', and as scikit-learn's."""
    from scipy.spatial.distance import cdist

    X = _blobs(5, 300) + 20.0  # away from the origin, for the angles of 'cosine'
    params = {"p": 3} if metric == "minkowski" else None
    name = {"manhattan": "cityblock"}.get(metric, metric)
    D = cdist(X, X, name, **(params or {}))
    ours = HDBSCAN(min_cluster_size=10, metric=metric, metric_params=params).fit(X)
    assert np.array_equal(ours.labels_, HDBSCAN(min_cluster_size=10, metric="precomputed").fit(D).labels_)
    theirs = _sklearn(X, min_cluster_size=10, metric=metric, metric_params=params)
    assert adjusted_rand_score(ours.labels_, theirs.labels_) == 1.0
    with pytest.raises(ValueError, match="approximate_predict needs the training points"):
        ours.approximate_predict(X[:2])


def test_a_sparse_distance_graph_in_pieces_is_an_error_not_a_crash():
    """No stored distance joins the pieces: scikit-learn's error, with its sentence (it
    once reached the tree kernels with an infinite edge and crashed the process)."""
    X = np.zeros((20, 20))
    X[:5, :5] = 1
    X[5:, 15:] = 1
    X = sp.csr_matrix(X + X.T)
    with pytest.raises(ValueError, match="HDBSCAN cannot be performed on a disconnected graph.*2 connected"):
        HDBSCAN(metric="precomputed").fit(X)


def test_scipy_metrics_callables_haversine_and_sparse_rows():
    """Metrics scikit-learn's HDBSCAN takes beyond lowdim's own: SciPy's (with their
    parameters), callables, haversine; sparse rows give the dense rows' labels."""
    import scipy.sparse as sp
    from scipy.spatial import distance

    X = _blobs(0, 150)
    reference = HDBSCAN(min_cluster_size=10).fit(X).labels_
    assert reference.max() >= 1
    same = [
        HDBSCAN(min_cluster_size=10, metric="seuclidean", metric_params={"V": np.ones(2)}),
        HDBSCAN(min_cluster_size=10, metric="mahalanobis", metric_params={"VI": np.eye(2)}),
        HDBSCAN(min_cluster_size=10, metric=distance.euclidean),
    ]
    for model in same:  # each is the Euclidean distance here
        np.testing.assert_array_equal(model.fit(X).labels_, reference)
    np.testing.assert_array_equal(HDBSCAN(min_cluster_size=10).fit(sp.csr_matrix(X)).labels_, reference)
    with pytest.raises(ValueError, match="Sparse data matrices only support algorithm `brute`"):
        HDBSCAN(algorithm="kd_tree").fit(sp.csr_matrix(X))
    radians = X / np.abs(X).max() * 0.5  # small angles: haversine is nearly Euclidean
    assert HDBSCAN(min_cluster_size=10, metric="haversine").fit(radians).labels_.max() >= 1


def test_rows_with_infinity_or_nan_are_labelled_apart_and_the_rest_as_without_them():
    """As scikit-learn: a row with NaN is 'missing' (-3, probability NaN), one with
    infinity only 'infinite' (-2, probability 0); the other rows get the labels of a
    fit without those rows, and dbscan_clustering and the soft memberships place them
    the same way (a loaded model too)."""
    from lowdim.cluster import all_points_membership_vectors

    X = _blobs(0, 150)
    bad = X.copy()
    bad[0] = [np.inf, 1.0]
    bad[5] = [np.inf, np.nan]
    bad[9, 1] = np.nan
    model = HDBSCAN(min_cluster_size=10).fit(bad)
    clean = np.setdiff1d(np.arange(150), [0, 5, 9])
    reference = HDBSCAN(min_cluster_size=10).fit(X[clean])
    np.testing.assert_array_equal(model.labels_[clean], reference.labels_)
    assert model.labels_[[0, 5, 9]].tolist() == [-2, -3, -3]
    assert model.probabilities_[0] == 0.0 and np.isnan(model.probabilities_[[5, 9]]).all()
    assert np.isinf(model.core_distances_[0]) and np.isnan(model.core_distances_[[5, 9]]).all()
    cut = model.dbscan_clustering(cut_distance=0.5)
    np.testing.assert_array_equal(cut[clean], reference.dbscan_clustering(cut_distance=0.5))
    assert cut[[0, 5, 9]].tolist() == [-2, -3, -3]
    soft = all_points_membership_vectors(model)
    np.testing.assert_allclose(soft[clean], all_points_membership_vectors(reference))
    assert np.all(soft[0] == 0.0) and np.isnan(soft[[5, 9]]).all()
    np.testing.assert_array_equal(model.approximate_predict(X[clean])[0], reference.approximate_predict(X[clean])[0])


def test_copies_of_a_row_leave_the_other_points_finite_scores():
    # 20 copies of one row leave their cluster at lambda = 1 / 0: counted as its largest
    # lambda, they made every other point's outlier score NaN and probability 0 (as in the
    # hdbscan package)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(4, 0.3, (40, 2)), np.repeat([[0.1, 0.1]], 20, axis=0)])
    model = HDBSCAN(min_cluster_size=10).fit(X)
    assert np.isfinite(model.outlier_scores_).all() and np.isfinite(model.probabilities_).all()
    assert (model.outlier_scores_[80:] == 0).all() and (model.probabilities_[80:] == 1).all()
    blob = model.labels_ == model.labels_[0]
    assert model.probabilities_[blob & (np.arange(100) < 80)].max() > 0.5  # the others are not all at 0
