"""Comparing two maps: Procrustes against scipy's, the co-ranking matrix against ranks
counted from the full distance matrices, Q_NX against kNN preservation."""

import numpy as np
import pytest
from scipy.spatial import procrustes as scipy_procrustes

from lowdim.metrics import coranking_matrix, knn_preservation, procrustes, qnx_curve
from lowdim.neighbors import NeighborGraph


def test_procrustes_undoes_a_similarity_and_reports_scipys_disparity():
    rng = np.random.default_rng(0)
    ref = rng.normal(size=(50, 3))
    rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    moved = ref @ rotation * 2.5 - 4.0
    aligned, disparity = procrustes(ref, moved)
    np.testing.assert_allclose(aligned, ref, atol=1e-10)
    assert disparity == pytest.approx(0.0, abs=1e-12)
    # a Python float whichever side of 0 the rounding falls (a doctest printed np.float64(0.0) on another CPU)
    assert all(type(procrustes(ref, moved * (1 + e))[1]) is float for e in (0.0, 1e-16, -1e-16, 1e-3))
    noisy = moved + rng.normal(scale=0.3, size=moved.shape)
    expected_disparity = scipy_procrustes(ref, noisy)[2]
    assert procrustes(ref, noisy)[1] == pytest.approx(expected_disparity, rel=1e-10)


def test_procrustes_names_bad_maps():
    with pytest.raises(ValueError, match="same shape"):
        procrustes(np.zeros((4, 2)), np.zeros((5, 2)))
    with pytest.raises(ValueError, match="no shape to compare"):
        procrustes(np.ones((4, 2)), np.random.default_rng(0).normal(size=(4, 2)))


def _ranks(A):
    """rank[i, j]: j's place among i's others by distance (1 = nearest; ties by row order)."""
    D = np.linalg.norm(A[:, None] - A[None], axis=2)
    np.fill_diagonal(D, np.inf)
    order = np.argsort(D, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, A.shape[0] + 1)[None].repeat(A.shape[0], 0), axis=1)
    return ranks


def test_the_coranking_matrix_counts_the_pairs_of_each_rank_pair():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5))
    Z = X[:, :2] + rng.normal(scale=0.2, size=(60, 2))
    K = 12
    rx, rz = _ranks(X), _ranks(Z)
    off = ~np.eye(60, dtype=bool)
    expected = np.zeros((K, K), dtype=np.int64)
    inside = off & (rx <= K) & (rz <= K)
    np.add.at(expected, (rx[inside] - 1, rz[inside] - 1), 1)
    np.testing.assert_array_equal(coranking_matrix(X, Z, max_rank=K), expected)
    graph = NeighborGraph.build(X, K)
    np.testing.assert_array_equal(coranking_matrix(graph, Z, max_rank=K), expected)


def test_qnx_is_the_mean_share_of_kept_neighbours_at_every_k():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 4))
    Z = X[:, :2]
    K, qnx, lcmc = qnx_curve(X, Z, max_rank=15)
    assert K.tolist() == list(range(1, 16))
    for k in (1, 5, 15):
        assert qnx[k - 1] == pytest.approx(knn_preservation(X, Z, n_neighbors=k))
    np.testing.assert_allclose(lcmc, qnx - K / 79)
    Q = coranking_matrix(X, Z, max_rank=15)
    assert qnx[-1] == pytest.approx(Q.sum() / (15 * 80))  # Q_NX(K) = the K x K block's share


def test_the_report_draws_every_maps_qnx_curve():
    from sklearn.datasets import load_iris

    from lowdim.report import build_report

    X, y = load_iris(return_X_y=True)
    report = build_report(X, y, methods=("pca", "mds"), seed=0)
    for result in report.results:
        expected = qnx_curve(X, result.embedding, max_rank=result.qnx.size, random_state=0)[1]
        np.testing.assert_array_equal(result.qnx, expected)
        assert result.qnx.size == 74 and result.qnx[-1] > 0.8  # up to half the rows; iris keeps its structure
    assert "share of each point" in report.html  # the figure's caption


def test_qnx_takes_gowers_parameters():
    from lowdim.preprocessing import gower_params

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=60), rng.integers(0, 3, 60)]).astype(float)
    params = gower_params(["numeric", "categorical"])
    K, qnx, _ = qnx_curve(X, X[:, :1], max_rank=10, metric="gower", metric_params=params)
    assert qnx.shape == (10,) and 0 < qnx.min() and qnx.max() <= 1


def test_the_report_scores_knn_accuracy_only_among_two_classes_or_more():
    # one class among the labelled rows (the others missing) made every vote right: 1.0
    from lowdim.report import build_report

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    one = np.where(rng.random(60) < 0.5, "a", None).astype(object)
    report = build_report(X, one, methods=("pca",), seed=0)
    assert "knn_accuracy" not in report.results[0].metrics
    two = np.where(np.arange(60) < 30, "a", "b").astype(object)
    two[::7] = None
    assert "knn_accuracy" in build_report(X, two, methods=("pca",), seed=0).results[0].metrics


def test_the_qnx_curve_of_a_small_table_fits_its_default_rank_below_half_the_rows():
    # the default 50 failed on fewer than 101 rows, naming "n_neighbors", no parameter here
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    K, qnx, _ = qnx_curve(X, X)
    assert K[-1] == 19 and np.array_equal(qnx, np.ones(19))
    assert coranking_matrix(X, X).shape == (19, 19)
    with pytest.raises(ValueError, match=r"max_rank \(20\) should be less than n_samples / 2 \(20.0\); lower max_rank"):
        qnx_curve(X, X, max_rank=20)


@pytest.mark.parametrize("score", ["knn_accuracy", "silhouette_score", "dbcv_score"])
def test_scores_against_labels_refuse_a_row_without_one(score):
    import lowdim.metrics

    rng = np.random.default_rng(0)
    Z = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(6, 1, (20, 2))]
    y = np.repeat([0.0, 1.0], 20)
    y[7] = np.nan
    with pytest.raises(ValueError, match="1 missing value.*the first at row 7; score the labelled rows only"):
        getattr(lowdim.metrics, score)(Z, y)
    if score == "dbcv_score":  # its labels are cluster ids: text of integers (scanpy's obs) read as them
        ids = np.repeat([0, 1], 20)
        assert lowdim.metrics.dbcv_score(Z, ids.astype(str)) == lowdim.metrics.dbcv_score(Z, ids)
        with pytest.raises(ValueError, match="reads labels as integer cluster ids, -1 for noise"):
            lowdim.metrics.dbcv_score(Z, np.repeat(["a", "b"], 20))
