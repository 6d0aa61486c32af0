"""One neighbour graph, many maps: NeighborGraph's constructors and checks, and every
neighbour method given the graph fits what its own search gives."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits

import lowdim
from lowdim.metrics import continuity, knn_preservation, trustworthiness
from lowdim.neighbors import (
    NeighborGraph,
    NNDescentIndex,
    PairwiseIndex,
    PrecomputedNeighbors,
    kneighbors_graph,
    nearest_neighbors,
)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    # jitter: no tied distances, so every search orders the neighbours the same way
    return X + 1e-3 * np.random.default_rng(0).normal(size=X.shape), y


@pytest.fixture(scope="module")
def graph(digits):
    return NeighborGraph.build(digits[0], 100, algorithm="exact")


def test_build_finds_the_exact_neighbours_in_compact_arrays(digits, graph):
    X, _ = digits
    d, idx = nearest_neighbors(X, 100, algorithm="exact")
    np.testing.assert_array_equal(graph.indices, idx)
    np.testing.assert_allclose(graph.distances, d, rtol=1e-6)
    assert graph.indices.dtype == np.int32 and graph.distances.dtype == np.float32
    assert (graph.n_samples, graph.n_neighbors) == (1797, 100)
    assert (graph.metric, graph.algorithm, graph.exact) == ("euclidean", "exact", True)
    assert "n_neighbors=100" in repr(graph)


def test_approximate_build_is_recorded_and_close_to_exact(digits, graph):
    approx = NeighborGraph.build(digits[0], 15, algorithm="approximate")
    assert (approx.algorithm, approx.exact) == ("approximate", False)
    recall = np.mean([np.intersect1d(a, b).size / 15 for a, b in zip(approx.indices, graph.indices[:, :15])])
    assert recall > 0.95


def test_umap_layout_round_trips_and_csr_is_kneighbors_graph(digits, graph):
    X, _ = digits
    indices, distances = graph.knn(10)
    assert indices.shape == (1797, 11) and (indices[:, 0] == np.arange(1797)).all() and (distances[:, 0] == 0).all()
    again = NeighborGraph.from_knn((indices, distances), metric="euclidean")
    np.testing.assert_array_equal(again.indices, graph.indices[:, :10])
    G = graph.to_csr(10)
    ref = kneighbors_graph(X, 10, algorithm="exact")
    assert abs(G - ref).max() < 1e-4 and (G.indices == ref.indices).all()
    assert set(graph.to_csr(3, mode="connectivity").data) == {1.0}


def test_from_distances_dense_and_sparse(digits, graph):
    X = digits[0][:300]
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    dense = NeighborGraph.from_distances(D, 8)
    searched = NeighborGraph.build(X, 8, algorithm="exact")
    np.testing.assert_array_equal(dense.indices, searched.indices)
    assert (dense.metric, dense.algorithm, dense.exact) == ("precomputed", "precomputed", True)
    # a sparse matrix of each row's 20 nearest: its 8 smallest stored entries are the same
    sparse = NeighborGraph.from_distances(NeighborGraph.build(X, 20, algorithm="exact").to_csr(), 8)
    np.testing.assert_array_equal(sparse.indices, searched.indices)
    with pytest.raises(
        ValueError, match="row 0 of the sparse distance matrix stores 8 neighbours, fewer than n_neighbors=25"
    ):
        NeighborGraph.from_distances(searched.to_csr(), 25)


@pytest.mark.parametrize(
    ("indices", "distances", "message"),
    [
        ([[1], [0]], [[1.0], [1.0], [2.0]], "one shape"),
        ([[1], [2]], [[1.0], [1.0]], r"must lie in \[0, 2\)"),
        ([[0], [0]], [[1.0], [1.0]], "row 0 lists itself"),
        ([[1, 2], [0, 2], [0, 1]], [[2.0, 1.0], [1, 2], [1, 2]], "row 0's distances decrease"),
        ([[1], [0]], [[np.nan], [1.0]], "finite and non-negative"),
        ([[1.0], [0.0]], [[1.0], [1.0]], "must be integers"),
    ],
)
def test_bad_graphs_are_refused_with_the_fix(indices, distances, message):
    with pytest.raises(ValueError, match=message):
        NeighborGraph(indices, distances)


def test_umap_layout_needs_each_point_first():
    with pytest.raises(ValueError, match="row 0 starts with 1"):
        NeighborGraph.from_knn(([[1, 0], [0, 1]], [[0.0, 1.0], [0.0, 1.0]]))


# each estimator's own exact search, and the same estimator reading the 100-column graph
ESTIMATORS = {
    "TSNE": lambda **kw: lowdim.TSNE(method="barnes_hut", max_iter=250, random_state=0, **kw),
    "UMAP": lambda **kw: lowdim.UMAP(n_epochs=30, random_state=0, **kw),
    "PaCMAP": lambda **kw: lowdim.PaCMAP(num_iters=(20, 20, 40), random_state=0, **kw),
    "Isomap": lambda **kw: lowdim.Isomap(n_neighbors=10, **kw),
    "SpectralEmbedding": lambda **kw: lowdim.SpectralEmbedding(n_neighbors=10, random_state=0, **kw),
    "LocallyLinearEmbedding": lambda **kw: lowdim.LocallyLinearEmbedding(n_neighbors=12, random_state=0, **kw),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_neighbour_method_fits_the_same_map_from_one_graph(digits, graph, name):
    X, _ = digits
    make = ESTIMATORS[name]
    searched = make(neighbors_algorithm="exact").fit(X).embedding_
    given = make(precomputed_knn=graph).fit(X).embedding_
    np.testing.assert_allclose(given, searched, rtol=1e-5, atol=1e-5 * np.abs(searched).max())


def test_hdbscan_from_the_graph_finds_the_exact_tree(digits):
    X, _ = digits
    graph = NeighborGraph.build(X, 30, algorithm="exact")
    for size in (5, 10):
        exact = lowdim.HDBSCAN(min_cluster_size=size).fit(X)
        given = lowdim.HDBSCAN(min_cluster_size=size, precomputed_knn=graph).fit(X)
        np.testing.assert_allclose(given.core_distances_, exact.core_distances_, rtol=1e-5)
        np.testing.assert_array_equal(given.labels_, exact.labels_)
        total = exact.single_linkage_tree_[:, 2].sum()
        assert abs(given.single_linkage_tree_[:, 2].sum() - total) < 1e-6 * total
    np.testing.assert_array_equal(given.approximate_predict(X[:50])[0], exact.approximate_predict(X[:50])[0])


def test_hdbscan_joins_what_a_thin_graph_leaves_apart():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.1, (60, 2)), rng.normal(5, 0.1, (60, 2))])
    graph = NeighborGraph.build(X, 5)
    with pytest.warns(UserWarning, match="HDBSCAN neighbour graph has 2 connected components"):
        labels = lowdim.HDBSCAN(min_cluster_size=10, min_samples=3, precomputed_knn=graph).fit(X).labels_
    np.testing.assert_array_equal(labels, lowdim.HDBSCAN(min_cluster_size=10, min_samples=3).fit(X).labels_)


def test_a_sweep_reads_the_first_columns(digits, graph):
    X, _ = digits
    for k in (5, 15):
        own = NeighborGraph.build(X, k - 1, algorithm="exact")
        a = lowdim.UMAP(n_neighbors=k, n_epochs=20, random_state=0, precomputed_knn=graph).fit(X)
        b = lowdim.UMAP(n_neighbors=k, n_epochs=20, random_state=0, precomputed_knn=own).fit(X)
        np.testing.assert_array_equal(a.embedding_, b.embedding_)
    for perplexity in (5.0, 20.0):
        a = lowdim.TSNE(perplexity=perplexity, method="barnes_hut", max_iter=250, random_state=0)
        b = lowdim.TSNE(perplexity=perplexity, method="barnes_hut", max_iter=250, random_state=0)
        own = NeighborGraph.build(X, int(3 * perplexity + 1), algorithm="exact")
        np.testing.assert_array_equal(
            a.set_params(precomputed_knn=graph).fit(X).embedding_, b.set_params(precomputed_knn=own).fit(X).embedding_
        )


def test_a_graph_too_small_or_of_another_metric_is_refused(digits, graph):
    X, _ = digits
    with pytest.raises(ValueError, match="TSNE needs 50 neighbours per point besides itself but the NeighborGraph has"):
        lowdim.TSNE(perplexity=50, precomputed_knn=NeighborGraph.build(X[:200], 40)).fit(X[:200])
    with pytest.raises(ValueError, match="built with metric='euclidean' but UMAP has metric='cosine'"):
        lowdim.UMAP(metric="cosine", precomputed_knn=graph).fit(X)
    with pytest.raises(ValueError, match="precomputed_knn describes 1797 points but X has 100 rows"):
        lowdim.Isomap(precomputed_knn=graph).fit(X[:100])
    with pytest.raises(ValueError, match="radius=2 needs every neighbour within the radius"):
        lowdim.Isomap(n_neighbors=None, radius=2.0, precomputed_knn=graph).fit(X)
    with pytest.raises(ValueError, match="affinity='nearest_neighbors'; got affinity='rbf'"):
        lowdim.SpectralEmbedding(affinity="rbf", precomputed_knn=graph).fit(X)
    with pytest.raises(ValueError, match="with metric='precomputed' every distance is given"):
        lowdim.HDBSCAN(metric="precomputed", precomputed_knn=graph).fit(np.zeros((1797, 1797)))
    cosine = NeighborGraph.build(X[:300], 10, metric="cosine")
    assert lowdim.UMAP(11, metric="cosine", n_epochs=10, precomputed_knn=cosine).fit(X[:300]).embedding_.shape == (
        300,
        2,
    )


def test_metrics_read_the_data_side_from_the_graph(digits, graph):
    X, _ = digits
    Y = lowdim.PCA(2).fit_transform(X)
    assert continuity(graph, Y, n_neighbors=10) == continuity(X, Y, n_neighbors=10)
    assert knn_preservation(graph, Y, n_neighbors=10) == knn_preservation(X, Y, n_neighbors=10)
    with pytest.raises(ValueError, match="trustworthiness ranks embedding neighbours among all data points"):
        trustworthiness(graph, Y)
    with pytest.raises(ValueError, match="needs 200 neighbours"):
        knn_preservation(graph, Y, n_neighbors=200)


def test_the_graph_is_built_on_a_dask_cluster(digits):
    import dask.array as da

    X = digits[0][:600]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = NeighborGraph.build(da.from_array(X, chunks=(200, 64)), 10, algorithm="exact")
    np.testing.assert_array_equal(graph.indices, NeighborGraph.build(X, 10, algorithm="exact").indices)
    assert graph.algorithm == "dask exact" and graph.exact


def test_a_model_fitted_from_a_graph_saves_without_it(tmp_path, digits, graph):
    X, _ = digits
    model = lowdim.UMAP(n_epochs=20, random_state=0, precomputed_knn=graph).fit(X)
    lowdim.save(model, tmp_path / "umap.lowdim")
    loaded = lowdim.load(tmp_path / "umap.lowdim")
    assert loaded.precomputed_knn is None
    np.testing.assert_allclose(loaded.transform(X[:5]), model.transform(X[:5]))


@pytest.fixture(scope="module")
def sparse_distances(digits):
    """Each row's 100 nearest distances stored, nothing else (what a user's own search writes)."""
    return NeighborGraph.build(digits[0], 100, algorithm="exact").to_csr()


SPARSE_PRECOMPUTED = {
    "TSNE": lambda **kw: lowdim.TSNE(method="barnes_hut", init="random", max_iter=250, random_state=0, **kw),
    "UMAP": lambda **kw: lowdim.UMAP(n_epochs=30, random_state=0, **kw),
    "Isomap": lambda **kw: lowdim.Isomap(n_neighbors=10, **kw),
}


@pytest.mark.parametrize("name", sorted(SPARSE_PRECOMPUTED))
def test_a_sparse_distance_matrix_gives_the_map_of_the_rows(digits, graph, sparse_distances, name):
    X, _ = digits
    make = SPARSE_PRECOMPUTED[name]
    from_rows = make(precomputed_knn=graph).fit(X)
    from_distances = make(metric="precomputed").fit(sparse_distances)
    np.testing.assert_allclose(from_distances.embedding_, from_rows.embedding_, rtol=1e-5, atol=1e-4)
    # new points bring their distances to the training rows (dense)
    D_new = np.sqrt(((X[:5, None] - X[None]) ** 2).sum(-1))
    np.testing.assert_allclose(from_distances.transform(D_new), from_rows.transform(X[:5]), atol=1e-3)


def test_hdbscan_on_a_sparse_distance_matrix(digits, sparse_distances):
    X, _ = digits
    exact = lowdim.HDBSCAN(min_cluster_size=10).fit(X)
    sparse = lowdim.HDBSCAN(min_cluster_size=10, metric="precomputed").fit(sparse_distances)
    np.testing.assert_array_equal(sparse.labels_, exact.labels_)


def test_a_sparse_matrix_with_too_few_distances_is_refused(digits):
    thin = NeighborGraph.build(digits[0][:300], 5).to_csr()
    with pytest.raises(ValueError, match="TSNE needs 30 stored distances per row besides the diagonal"):
        lowdim.TSNE(metric="precomputed", init="random").fit(thin)
    with pytest.raises(ValueError, match="UMAP needs 14 stored distances per row"):
        lowdim.UMAP(metric="precomputed").fit(thin)
    with pytest.raises(ValueError, match="non-negative distances"):
        lowdim.Isomap(metric="precomputed").fit(-thin)


def test_find_neighbors_gives_one_answer_from_every_source(digits, graph, sparse_distances):
    from lowdim.neighbors import find_neighbors, given_neighbors

    X, _ = digits
    searched = find_neighbors(X, 15, algorithm="exact", name="test")
    assert searched[2] is not None  # the index it built, kept for transform
    umap_learn = graph.knn(15)  # umap-learn's (indices, distances), each row itself first
    for source in ({"precomputed_knn": graph}, {"precomputed_knn": umap_learn}):
        found = find_neighbors(X, 15, algorithm="exact", name="test", **source)
        assert found[2] is None  # nothing searched
        np.testing.assert_array_equal(found[1], searched[1])
        np.testing.assert_allclose(found[0], searched[0], rtol=1e-6)
    stored = find_neighbors(sparse_distances, 15, metric="precomputed", name="test")
    np.testing.assert_array_equal(stored[1], searched[1])
    assert given_neighbors(X, 15, precomputed_knn=(None, None)) is None
    with pytest.raises(ValueError, match="built with metric='euclidean' but test has metric='cosine'"):
        given_neighbors(X, 15, precomputed_knn=graph, metric="cosine", name="test")


def test_no_estimator_reads_given_neighbours_by_itself():
    # one place decides where neighbours come from: find_neighbors / given_neighbors
    import pathlib
    import re

    src = pathlib.Path(lowdim.__file__).parent
    readers = re.compile(r"\b(precomputed_neighbors|sparse_distance_neighbors|dask_self_neighbors)\(")
    offenders = [
        str(path.relative_to(src))
        for path in src.rglob("*.py")
        if path.parent.name != "neighbors" and readers.search(path.read_text())
    ]
    assert offenders == []


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_given_neighbours_as_an_index_are_the_precomputed_knn(digits, graph, name):
    X, _ = digits
    make = ESTIMATORS[name]
    as_graph = make(precomputed_knn=graph).fit(X)
    as_index = make(neighbors_algorithm=PrecomputedNeighbors(graph)).fit(X)
    np.testing.assert_array_equal(as_index.embedding_, as_graph.embedding_)
    if hasattr(as_graph, "transform"):  # new rows: the kept training rows are searched
        np.testing.assert_array_equal(as_index.transform(X[:5]), as_graph.transform(X[:5]))


def test_given_neighbours_answer_their_own_rows_and_refuse_the_rest(digits, graph, sparse_distances):
    X, _ = digits
    searched = nearest_neighbors(X, 15, algorithm="exact")
    for given in (graph, graph.knn(15), sparse_distances):
        index = PrecomputedNeighbors(given).build(X)
        d, i = index.query(X, 15, exclude_self=True)
        np.testing.assert_array_equal(i, searched[1])
        np.testing.assert_allclose(d, searched[0], rtol=1e-6)
        with pytest.raises(ValueError, match=r"not data to search, so it cannot find the neighbours of 5 new rows"):
            index.query(X[:5], 3)
    with pytest.raises(ValueError, match="describes 1797 points but X has 100 rows; build the graph on X itself"):
        lowdim.UMAP(neighbors_algorithm=PrecomputedNeighbors(graph)).fit(X[:100])
    with pytest.raises(ValueError, match="built with metric='euclidean' but UMAP has metric='cosine'"):
        lowdim.UMAP(metric="cosine", neighbors_algorithm=PrecomputedNeighbors(graph)).fit(X)
    with pytest.raises(
        ValueError, match="UMAP needs 149 neighbours per point besides itself but the NeighborGraph has"
    ):
        lowdim.UMAP(n_neighbors=150, neighbors_algorithm=PrecomputedNeighbors(graph)).fit(X)
    # an estimator keeps its own copy of its index: this one shares the read-only arrays
    import copy

    assert copy.deepcopy(PrecomputedNeighbors(graph)).graph.indices is graph.indices


def test_a_model_fitted_from_given_neighbours_as_an_index_saves_and_places_new_rows(tmp_path, digits, graph):
    X, _ = digits
    model = lowdim.UMAP(n_epochs=30, random_state=0, neighbors_algorithm=PrecomputedNeighbors(graph)).fit(X)
    lowdim.save(model, tmp_path / "m.lowdim")  # refused before: the index is no JSON value
    loaded = lowdim.load(tmp_path / "m.lowdim")
    assert loaded.neighbors_algorithm == "auto"  # the neighbours fed the fit only
    np.testing.assert_array_equal(loaded.transform(X[:5]), model.transform(X[:5]))
    from lowdim.neighbors import ExactIndex

    searched = lowdim.UMAP(n_epochs=5, random_state=0, neighbors_algorithm=ExactIndex()).fit(X[:200])
    with pytest.raises(TypeError, match="cannot save parameter neighbors_algorithm="):
        lowdim.save(searched, tmp_path / "other.lowdim")  # a user's index is code, not data


@pytest.mark.parametrize("name", ["TSNE", "UMAP", "PaCMAP", "TriMap", "Isomap"])
@pytest.mark.parametrize("factor, words", [(1e40, "values as large as"), (1e-45, "no value larger than")])
def test_rows_whose_distances_float32_cannot_hold_are_refused_with_the_fix(digits, name, factor, words):
    # the graphs keep distances in float32: rows of 1e40 crashed t-SNE and UMAP in their
    # kernels (SystemError, ZeroDivisionError) or read as infinity, rows of 1e-45 gave random
    # maps (every row a copy of every other)
    X = digits[0][:200] * factor
    with pytest.raises(ValueError, match=f"Input X has {words}.*rescale the data"):
        getattr(lowdim, name)().fit(X)


@pytest.mark.parametrize("metric", ["cosine", "correlation", "gower", "canberra", "braycurtis"])
def test_metrics_that_ignore_the_scale_take_rows_of_any_magnitude(digits, metric):
    # the range check refused rows of 1e39 for every metric; these distances are the same
    # for rows 2^130 times larger (a power of two: bit for bit), so are the neighbours
    X = digits[0][:300]
    small, large = (NeighborGraph.build(Y, 10, metric=metric) for Y in (X, X * 2.0**130))
    assert np.array_equal(small.indices, large.indices) and np.array_equal(small.distances, large.distances)


def test_a_cosine_map_of_rows_of_any_magnitude_is_the_same_map(digits):
    X = digits[0][:300]
    maps = [lowdim.UMAP(metric="cosine", n_epochs=50, random_state=0).fit_transform(Y) for Y in (X, X * 2.0**130)]
    np.testing.assert_array_equal(*maps)
    angular = lowdim.PaCMAP(distance="angular", num_iters=(20, 20, 20), random_state=0)
    assert np.isfinite(angular.fit_transform(X * 2.0**130)).all()


@pytest.mark.parametrize(
    "index, words",
    [
        (lambda: PairwiseIndex("manhattan"), "manhattan distances in float32"),
        (lambda: NNDescentIndex("manhattan"), "manhattan distances in float32"),
        (lambda: NNDescentIndex("correlation"), "keeps the rows in float32"),
    ],
)
def test_every_search_refuses_new_rows_float32_cannot_hold(digits, index, words):
    # the pairwise and descent searches ranked such rows anyway: infinities for all
    X = digits[0][:200]
    built = index().build(X)
    with pytest.raises(ValueError, match=f"values as large as 1e\\+40.*{words}.*rescale the data"):
        built.query(X[:3] * 1e40 / 16.0, 3)


def test_the_descent_refuses_rows_float32_would_turn_into_infinities_whatever_the_metric(digits):
    # pynndescent keeps the rows in float32: 1e40 became infinity before any correlation
    with pytest.raises(ValueError, match="values as large as 1e\\+40.*keeps the rows in float32"):
        NNDescentIndex("correlation").build(digits[0][:200] * 1e40 / 16.0)


@pytest.mark.parametrize("name", ["PaCMAP", "UMAP", "TSNE", "Isomap"])
def test_new_rows_whose_distances_float32_cannot_hold_are_refused_at_transform(digits, name):
    # PaCMAP.transform casts the new rows to float32 itself: they became infinities and the
    # message said the user's rows held "infinity"; the others placed them somewhere
    model = getattr(lowdim, name)().fit(digits[0][:200])
    with pytest.raises(ValueError, match="Input X has values as large as.*rescale the data"):
        model.transform(digits[0][:5] * 1e40)
