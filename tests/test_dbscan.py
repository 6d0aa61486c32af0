"""DBSCAN: scikit-learn's labels, core points and components on every search path."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.cluster import DBSCAN as SklearnDBSCAN
from sklearn.datasets import make_blobs

from lowdim import DBSCAN


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(1500, centers=5, n_features=3, cluster_std=1.2, random_state=0)
    noise = np.random.default_rng(0).uniform(-15, 15, (150, 3))
    return np.vstack([X, noise])


def _differences(ours, theirs):
    """What differs between two fitted DBSCANs: labels (the same numbering, border points
    included), core indices, core points."""
    dense = [c.toarray() if sp.issparse(c) else c for c in (ours.components_, theirs.components_)]
    same = {
        "labels": np.array_equal(ours.labels_, theirs.labels_),
        "core": np.array_equal(ours.core_sample_indices_, theirs.core_sample_indices_),
        "components": np.array_equal(*dense),
    }
    return [name for name, equal in same.items() if not equal]


@pytest.mark.parametrize(
    "params",
    [
        {"eps": 0.8, "min_samples": 10},  # the k-d tree
        {"eps": 0.8, "min_samples": 10, "algorithm": "brute"},  # blocked distances
        {"eps": 1.5, "min_samples": 20, "metric": "manhattan"},
        {"eps": 0.05, "min_samples": 5, "metric": "cosine"},
        {"eps": 1.2, "min_samples": 8, "metric": "minkowski", "p": 3},
    ],
)
def test_labels_equal_scikit_learns(blobs, params):
    assert _differences(DBSCAN(**params).fit(blobs), SklearnDBSCAN(**params).fit(blobs)) == []


def test_wide_rows_sparse_rows_weights_and_precomputed_distances(blobs):
    wide = np.hstack([blobs, np.random.default_rng(1).normal(scale=0.1, size=(blobs.shape[0], 20))])
    assert (
        _differences(DBSCAN(eps=1.0, min_samples=10).fit(wide), SklearnDBSCAN(eps=1.0, min_samples=10).fit(wide)) == []
    )
    weights = np.random.default_rng(2).uniform(0.2, 3.0, blobs.shape[0])
    ours = DBSCAN(eps=0.8, min_samples=10).fit(blobs, sample_weight=weights)
    assert _differences(ours, SklearnDBSCAN(eps=0.8, min_samples=10).fit(blobs, sample_weight=weights)) == []
    D = cdist(blobs[:600], blobs[:600])
    precomputed = {"eps": 0.8, "min_samples": 10, "metric": "precomputed"}
    assert _differences(DBSCAN(**precomputed).fit(D), SklearnDBSCAN(**precomputed).fit(D)) == []
    stored = sp.csr_matrix(np.where(D <= 1.0, D, 0.0))  # each row's candidates stored
    assert np.array_equal(
        DBSCAN(eps=0.8, min_samples=10, metric="precomputed").fit(stored).labels_,
        SklearnDBSCAN(eps=0.8, min_samples=10, metric="precomputed").fit(stored).labels_,
    )
    rows = sp.csr_matrix(np.where(np.abs(blobs) > 1, blobs, 0.0))
    assert _differences(DBSCAN(eps=0.9, min_samples=6).fit(rows), SklearnDBSCAN(eps=0.9, min_samples=6).fit(rows)) == []


def test_pairs_in_many_blocks_and_a_large_core_graph_give_the_same_labels(blobs, monkeypatch):
    """The per-pair arrays split into blocks of rows, and a core graph past scipy's size
    (union-find kernel): the labels, weights and core points of one pass over all pairs."""
    weights = np.random.default_rng(4).uniform(0.2, 3.0, blobs.shape[0])
    reference = SklearnDBSCAN(eps=0.8, min_samples=10).fit(blobs, sample_weight=weights)
    monkeypatch.setattr("lowdim.cluster._dbscan_regions.BLOCK_PAIRS", 97)
    monkeypatch.setattr("lowdim._kernels.components.SCIPY_EDGES", 0)
    assert _differences(DBSCAN(eps=0.8, min_samples=10).fit(blobs, sample_weight=weights), reference) == []


@pytest.mark.parametrize("algorithm", ["auto", "brute", "precomputed"])
def test_neighbourhoods_streamed_block_by_block_give_the_same_labels(blobs, monkeypatch, algorithm):
    """Past the pairs kept between passes, the tree lists each pass's rows again, the
    blocked distances are computed again, and the core links are merged by union-find
    block by block: memory holds a block, not every pair (an eps that reaches every row
    held n^2 of them), and the labels are those of scikit-learn."""
    weights = np.random.default_rng(4).uniform(0.2, 3.0, blobs.shape[0])
    reference = SklearnDBSCAN(eps=0.8, min_samples=10).fit(blobs, sample_weight=weights)
    monkeypatch.setattr("lowdim.cluster._dbscan_regions.BLOCK_PAIRS", 1000)
    monkeypatch.setattr("lowdim.cluster._dbscan_regions.STORE_PAIRS", 0)
    monkeypatch.setattr("lowdim.cluster._dbscan_regions.NUMPY_PAIRS", 0)  # the listing kernels, both layouts
    monkeypatch.setattr("lowdim.cluster._dbscan.LINK_PAIRS", 0)
    if algorithm == "precomputed":
        D = np.sqrt(((blobs[:, None, :] - blobs[None, :, :]) ** 2).sum(axis=2))
        ours = DBSCAN(eps=0.8, min_samples=10, metric="precomputed").fit(D, sample_weight=weights)
        assert _differences(ours, reference) == ["components"]  # its core rows are rows of distances
    else:
        ours = DBSCAN(eps=0.8, min_samples=10, algorithm=algorithm).fit(blobs, sample_weight=weights)
        assert _differences(ours, reference) == []


def test_a_distance_of_exactly_eps_is_within():
    grid = np.random.default_rng(3).integers(0, 6, (400, 2)).astype(float)
    for algorithm in ("auto", "brute"):
        ours = DBSCAN(eps=1.0, min_samples=4, algorithm=algorithm).fit(grid)
        assert _differences(ours, SklearnDBSCAN(eps=1.0, min_samples=4).fit(grid)) == []


@pytest.fixture(scope="module")
def wide_blobs():
    """Rows of 20 columns (above the k-d tree's): 6 clusters and uniform noise."""
    X, _ = make_blobs(1800, centers=6, n_features=20, cluster_std=1.0, random_state=1)
    return np.vstack([X, np.random.default_rng(1).uniform(X.min(), X.max(), (200, 20))])


@pytest.mark.parametrize("stored", [True, False])
def test_rows_of_many_columns_get_scikit_learns_labels_stored_or_listed_again(wide_blobs, stored, monkeypatch):
    # the neighbourhoods of rows above 16 columns come from tiles of products, the upper
    # half mirrored when they are few enough to keep, else listed again every pass
    import lowdim.cluster._dbscan_regions as regions

    if not stored:
        monkeypatch.setattr(regions, "STORE_PAIRS", 100)
    ours = DBSCAN(eps=4.5, min_samples=10).fit(wide_blobs)
    assert _differences(ours, SklearnDBSCAN(eps=4.5, min_samples=10).fit(wide_blobs)) == []
    assert 0 < ours.labels_.max() and (ours.labels_ < 0).any()  # clusters and noise both


def test_rows_far_from_the_origin_keep_their_neighbourhoods(wide_blobs):
    # the products expand |x - y|^2 as |x|^2 - 2 x.y + |y|^2: rows 1e7 from the origin
    # (as UTM coordinates are) lose the distances to rounding; they are moved to a row of their own first
    far = DBSCAN(eps=4.5, min_samples=10).fit(wide_blobs + 1e7)
    near = SklearnDBSCAN(eps=4.5, min_samples=10).fit(wide_blobs)
    np.testing.assert_array_equal(far.labels_, near.labels_)
    np.testing.assert_array_equal(far.core_sample_indices_, near.core_sample_indices_)


def test_a_border_point_between_two_clusters_joins_the_one_grown_first():
    # two groups of four, each with one core point (3.3 and 0.0) that reaches the point at
    # 1.65, itself not core: it joins the cluster grown first, the one of the earlier row
    X = np.array([3.3, 3.4, 3.5, 3.6, -0.3, -0.2, -0.1, 0.0, 1.65])[:, None]
    labels = DBSCAN(eps=1.65, min_samples=5).fit_predict(X)
    assert labels.tolist() == SklearnDBSCAN(eps=1.65, min_samples=5).fit_predict(X).tolist()
    assert labels.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 0]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="distance matrix is expected to be square"):
        DBSCAN(metric="precomputed").fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="one finite weight per row"):
        DBSCAN().fit(np.eye(4), sample_weight=np.ones(3))


def _scale_warnings(fit):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if "eps towards" in str(w.message) or "lower eps" in str(w.message)]


def test_an_eps_that_misses_the_datas_scale_is_said_with_the_scale():
    # eps=0.5 (the default) on data measured in tens made every row noise, and on data in
    # hundredths one cluster of every row, both without a word
    from lowdim.cluster._dbscan import SAMPLE_ROWS

    X, _ = make_blobs(SAMPLE_ROWS, centers=4, n_features=5, cluster_std=8.0, center_box=(-200, 200), random_state=0)
    reach = float(np.median(np.sort(cdist(X, X), axis=1)[:, 4]))  # the 5th nearest, the row itself the first
    caught = _scale_warnings(lambda: DBSCAN().fit(X))
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message).startswith("DBSCAN: every row is noise: none has min_samples=5 rows (itself counted)")
    assert f"the median row has them within {reach:.3g}" in str(caught[0].message)
    assert len(set(DBSCAN(eps=3 * reach).fit(X).labels_) - {-1}) == 4  # the scale it names finds the groups
    small = X / 1000
    caught = _scale_warnings(lambda: DBSCAN(eps=2.0).fit(small))
    assert len(caught) == 1 and "one cluster holds every row" in str(caught[0].message)
    assert f"{reach / 1000:.3g}; if the data have groups, lower eps towards it" in str(caught[0].message)
    # an eps at the data's scale, one true group, distances given: nothing said
    assert _scale_warnings(lambda: DBSCAN(eps=3 * reach).fit(X)) == []
    one = np.random.default_rng(0).normal(size=(300, 2))
    assert _scale_warnings(lambda: DBSCAN(eps=1.0).fit(one)) == []
    D = cdist(X, X)
    caught = _scale_warnings(lambda: DBSCAN(metric="precomputed").fit(D))
    assert len(caught) == 1 and f"within {reach:.3g}" in str(caught[0].message)
    assert _scale_warnings(lambda: DBSCAN(metric="precomputed").fit(sp.csr_matrix(np.where(D < 1, D, 0)))) == []


def test_a_mixed_table_by_gower_gets_the_scale_of_its_distances():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    group = np.repeat([0, 1, 2], 40)
    table = pd.DataFrame({"size": rng.normal(group * 10.0, 0.3), "kind": pd.Categorical(np.array(list("abc"))[group])})
    caught = _scale_warnings(lambda: DBSCAN(metric="gower", eps=0.9).fit(table))  # groups 0.75 apart
    assert len(caught) == 1 and "one cluster holds every row" in str(caught[0].message)
    assert len(set(DBSCAN(metric="gower", eps=0.05).fit(table).labels_)) == 3


def test_an_eps_that_reaches_every_row_costs_a_block_of_memory_not_every_pair():
    # every pair listed at once: 20,000 rows took 11.6 GB; here 5,000 rows would hold
    # 25 M pairs (200 MB of indices alone) where a block holds about 1 M (8 MB an array)
    import tracemalloc

    X = np.random.default_rng(0).normal(size=(5000, 3))
    DBSCAN(eps=1.0, min_samples=5).fit(X[:500])  # compiled outside the measure
    tracemalloc.start()
    with pytest.warns(UserWarning, match="one cluster holds every row"):
        labels = DBSCAN(eps=100.0, min_samples=5).fit_predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.all(labels == 0)
    assert peak < 80e6, peak
