"""Leiden, Louvain and spectral clustering on neighbour graphs; G-means and k-means'
random-partition start."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import SpectralClustering as SklearnSpectral
from sklearn.datasets import load_digits, make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning

from lowdim.cluster import (
    KMeans,
    Leiden,
    Louvain,
    SpectralClustering,
    anderson_darling_normal,
    neighbor_graph,
    select_n_clusters,
)
from lowdim.linalg import fewer_distinct_rows
from lowdim.metrics import adjusted_rand_score


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:800], y[:800]


@pytest.mark.parametrize(
    "cls",
    [Leiden, Louvain, lambda **kw: Leiden(flavor="leidenalg", **kw)],
    ids=["leiden-igraph", "louvain", "leiden-leidenalg"],
)
def test_communities_follow_the_classes_and_repeat_per_seed(cls, digits):
    X, y = digits
    a = cls(resolution=0.5, random_state=3).fit(X)
    b = cls(resolution=0.5, random_state=3).fit(X)
    assert np.array_equal(a.labels_, b.labels_)
    assert adjusted_rand_score(y, a.labels_) > 0.6
    sizes = np.bincount(a.labels_)
    assert np.all(np.diff(sizes) <= 0)  # numbered by decreasing size
    # a higher resolution splits the graph further
    assert cls(resolution=3.0, random_state=3).fit(X).n_clusters_ > a.n_clusters_


def test_igraphs_leiden_optimises_modularity_and_leaves_igraphs_generator_alone(digits):
    import random

    import igraph

    X, _ = digits
    fast = Leiden(n_iterations=-1, random_state=0).fit(X)
    thorough = Leiden(flavor="leidenalg", n_iterations=-1, random_state=0).fit(X)
    upper = sp.triu(fast.graph_, k=1).tocoo()
    g = igraph.Graph(n=X.shape[0], edges=np.column_stack([upper.row, upper.col]))
    modularity = g.modularity(thorough.labels_, upper.data, 1.0)
    assert fast.quality_ == pytest.approx(g.modularity(fast.labels_, upper.data, 1.0))
    assert fast.quality_ >= modularity - 0.01  # the same objective, optimised as well
    state = random.getstate()
    Leiden(random_state=5).fit(X)
    assert random.getstate() == state  # a seeded fit draws from its own generator


def _same_partition(a, b):
    return len(set(zip(a, b))) == len(set(a)) == len(set(b))


@pytest.mark.parametrize("n_iterations", [2, -1])
def test_leidenalg_flavour_is_leidenalgs_own_find_partition(digits, n_iterations):
    # the same graph, seed, passes and options (scanpy's clustering_args) as leidenalg.find_partition
    import leidenalg

    X, _ = digits
    A = Leiden(random_state=0).fit(X).graph_
    init = np.arange(X.shape[0]) % 40  # a start far from the communities
    options = {"initial_membership": init, "max_comm_size": 30}
    ours = Leiden(1.0, graph="precomputed", flavor="leidenalg", n_iterations=n_iterations, random_state=0)
    labels = ours.set_params(partition_params=options).fit(A).labels_
    g, weights = ours._edges(A)
    theirs = leidenalg.find_partition(
        g,
        leidenalg.RBConfigurationVertexPartition,
        initial_membership=init.tolist(),
        weights=weights,
        n_iterations=n_iterations,
        max_comm_size=30,
        seed=ours._seed(),
    )
    assert _same_partition(labels.tolist(), theirs.membership)
    plain = Leiden(1.0, graph="precomputed", flavor="leidenalg", n_iterations=n_iterations, random_state=0).fit(A)
    assert not _same_partition(labels.tolist(), plain.labels_.tolist())  # the options reached the optimiser


def test_igraph_flavour_takes_community_leidens_options_and_refuses_the_others(digits, monkeypatch):
    import igraph

    from lowdim.cluster._graph_clustering import _seeded

    X, _ = digits
    A = Leiden(random_state=0).fit(X).graph_
    model = Leiden(0.5, graph="precomputed", random_state=0, partition_params={"beta": 0.3})
    g, weights = model._edges(A)
    theirs = _seeded(
        igraph,
        model._seed(),
        lambda: g.community_leiden("modularity", weights=weights, resolution=0.5, n_iterations=2, beta=0.3),
    )
    assert _same_partition(model.fit(A).labels_.tolist(), theirs.membership)
    start = np.arange(X.shape[0]) % 7  # no pass: the start is the answer
    kept = Leiden(0.5, graph="precomputed", n_iterations=0, partition_params={"initial_membership": start}).fit(A)
    assert _same_partition(kept.labels_.tolist(), start.tolist())
    for options, message in [
        ({"objective_function": "CPM"}, "optimises modularity with a resolution"),
        ({"weights": None}, "set by Leiden's use_weights parameter"),
        ({"seed": 1}, "set by Leiden's random_state parameter"),
        ({"max_comm_size": 5}, "not an option of flavor='igraph'; it takes beta, initial_membership, node_weights"),
        ({"initial_membership": [0, 1]}, "has 2 values for a graph of 800 nodes; give one per row"),
    ]:
        with pytest.raises(ValueError, match=message):
            Leiden(graph="precomputed", partition_params=options).fit(A)
    import lowdim.cluster._graph_clustering as graph_clustering

    monkeypatch.setattr(graph_clustering, "neighbor_graph", lambda *a, **k: pytest.fail("searched first"))
    with pytest.raises(ValueError, match="has 2 values for a graph of 800 nodes"):  # before the neighbour search
        Leiden(partition_params={"initial_membership": [0, 1]}).fit(X)


def test_leiden_on_a_precomputed_umap_graph(digits):
    from lowdim import UMAP

    X, y = digits
    umap = UMAP(random_state=0, n_epochs=10).fit(X)
    model = Leiden(graph="precomputed", resolution=0.5, random_state=0).fit(umap.graph_)
    assert adjusted_rand_score(y, model.labels_) > 0.6
    unweighted = Leiden(graph="knn", use_weights=False, random_state=0).fit(X)
    assert unweighted.graph_.data.max() == 1.0


@pytest.mark.parametrize("cls", [Leiden, Louvain])
def test_communities_of_a_mixed_table_by_gowers_distance(cls):
    # a table with text, boolean, date and category columns and a gap was refused (the CLI
    # pointed elsewhere)
    pytest.importorskip("pandas")
    from test_gower_tables import _table

    from lowdim import UMAP, mixed_codes

    table = _table(90)
    group = np.arange(90) % 3
    model = cls(metric="gower", resolution=0.3, random_state=0).fit(table)
    assert adjusted_rand_score(group, model.labels_) == 1.0
    assert model.column_names_ == ["size", "colour", "flag", "day", "grade"]
    # the graph is UMAP's fuzzy graph of the same Gower neighbours, and the codes with
    # their metric_params give the same communities as the table
    umap = UMAP(metric="gower", n_epochs=10, random_state=0).fit(table)
    assert abs(model.graph_ - umap.graph_).max() < 1e-6
    codes = mixed_codes(table)
    again = cls(metric="gower", metric_params=codes.metric_params, resolution=0.3, random_state=0).fit(codes.X)
    assert np.array_equal(again.labels_, model.labels_)
    with pytest.raises(ValueError, match="non-numeric value.*metric='gower'"):  # without gower: the fix
        cls().fit(table)


@pytest.mark.parametrize("cls", [Leiden, Louvain])
def test_an_isolated_point_of_a_given_graph_is_a_community_of_its_own(cls):
    # a graph with rows filtered out of it (scanpy's obsp after subsetting): every row
    # keeps its label, the isolated ones each alone (they were refused)
    pair = np.array([[0, 1], [1, 0]], dtype=float)
    A = sp.block_diag([pair, np.zeros((1, 1)), np.ones((4, 4)) - np.eye(4), np.zeros((1, 1))]).tocsr()
    with pytest.warns(UserWarning, match=r"2 isolated point\(s\) \(rows 2, 7\) .*each is a community of its own"):
        labels = cls(graph="precomputed", random_state=0).fit(A).labels_
    assert labels[0] == labels[1] and len(set(labels[3:7])) == 1
    assert len({labels[0], labels[2], labels[3], labels[7]}) == 4


def test_graphs_that_are_not_affinities_are_refused():
    A = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float))
    with pytest.raises(ValueError, match="not symmetric"):
        Louvain(graph="precomputed").fit(sp.csr_matrix(np.triu(np.ones((3, 3)))))
    with pytest.raises(ValueError, match="isolated"):
        SpectralClustering(2, affinity="precomputed").fit(A)


def test_neighbor_graph_is_symmetric_with_unit_knn_weights():
    X = np.random.default_rng(0).normal(size=(200, 4))
    for kind in ("fuzzy", "knn"):
        A = neighbor_graph(X, 10, kind)
        assert abs(A - A.T).max() == 0
        assert A.diagonal().sum() == 0
        assert (np.diff(A.indptr) >= 9).all()  # each point keeps its own neighbours
    assert set(np.unique(neighbor_graph(X, 10, "knn").data)) == {1.0}


def test_spectral_clustering_separates_moons_like_sklearn():
    X, y = make_moons(400, noise=0.05, random_state=0)
    ours = SpectralClustering(2, affinity="nearest_neighbors", random_state=0).fit(X)
    theirs = SklearnSpectral(2, affinity="nearest_neighbors", random_state=0).fit(X)
    assert adjusted_rand_score(y, ours.labels_) == 1.0
    assert adjusted_rand_score(theirs.labels_, ours.labels_) == 1.0
    qr = SpectralClustering(2, affinity="nearest_neighbors", assign_labels="cluster_qr").fit(X)
    assert adjusted_rand_score(y, qr.labels_) == 1.0


@pytest.mark.parametrize("affinity", ["rbf", "nearest_neighbors", "fuzzy"])
@pytest.mark.parametrize("assign_labels", ["kmeans", "cluster_qr", "discretize"])
def test_spectral_clustering_keeps_copies_together_with_more_clusters_than_rows(affinity, assign_labels):
    # 3 distinct rows, 10 copies each, 5 clusters: the Laplacian's eigenvalue-1 vectors
    # (which tell copies apart) are among the bottom 5, and split the copies at random
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]]), 10, axis=0)
    model = SpectralClustering(5, affinity=affinity, assign_labels=assign_labels, n_neighbors=5, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"distinct clusters \(3\) found smaller than n_clusters \(5\)"):
        labels = model.fit(X).labels_
    assert labels.tolist() == np.repeat([0, 1, 2], 10).tolist()


def test_fewer_distinct_rows_compares_values_dense_or_sparse():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, -0.0], [0.0, 0.0], [-0.0, 0.0]])
    assert fewer_distinct_rows(X, 4).tolist() == [0, 1, 0, 2, 2]
    assert fewer_distinct_rows(X.astype(np.float32), 4).tolist() == [0, 1, 0, 2, 2]
    # row 0 stores its zero, row 2 (equal to it) does not; rows 3 and 4 store nothing
    stored_zero = sp.csr_matrix((np.array([1.0, 0.0, 2.0, 1.0]), [0, 1, 1, 0], [0, 2, 3, 4, 4, 4]), shape=(5, 2))
    assert fewer_distinct_rows(stored_zero, 4).tolist() == [0, 1, 0, 2, 2]
    assert fewer_distinct_rows(X, 3) is None and fewer_distinct_rows(sp.csr_matrix(X), 3) is None


def test_spectral_clustering_rbf_and_fuzzy(digits):
    X, _ = make_blobs(300, centers=3, cluster_std=0.5, random_state=1)
    rbf = SpectralClustering(3, gamma=0.5, random_state=0).fit(X)
    assert adjusted_rand_score(KMeans(3, random_state=0).fit(X).labels_, rbf.labels_) == 1.0
    Xd, yd = digits
    fuzzy = SpectralClustering(10, affinity="fuzzy", n_neighbors=15, random_state=0).fit(Xd)
    assert adjusted_rand_score(yd, fuzzy.labels_) > 0.6


def test_anderson_darling_p_values_are_calibrated():
    """Under normality the p-value is about uniform: P(p < 0.05) near 5 %."""
    rng = np.random.default_rng(0)
    p = np.array([anderson_darling_normal(rng.normal(size=100))[1] for _ in range(400)])
    assert 0.02 < np.mean(p < 0.05) < 0.09
    from scipy.stats import anderson

    z = rng.normal(size=300) ** 2
    ours = anderson_darling_normal(z)[0]
    plain = anderson(z).statistic
    assert ours == pytest.approx(plain * (1 + 0.75 / 300 + 2.25 / 300**2), rel=1e-9)


@pytest.mark.parametrize("k", range(1, 9))
def test_gmeans_finds_k_well_separated_blobs(k):
    rng = np.random.default_rng(k)
    centres = np.array([[12.0 * (i % 3), 12.0 * (i // 3)] for i in range(k)])
    X = np.vstack([rng.normal(c, 1.0, (150, 2)) for c in centres])
    choice = select_n_clusters(X, "gmeans", k_range=range(1, 20), random_state=0)
    assert choice.n_clusters == k
    assert choice.details["centers"].shape == (k, 2)
    assert choice.candidates[0] == 1 and choice.details["splits"][-1] == 0


def test_gmeans_stops_at_the_largest_k():
    X = np.random.default_rng(0).uniform(size=(2000, 2))  # never Gaussian: it keeps splitting
    assert select_n_clusters(X, "gmeans", k_range=range(1, 6), random_state=0).n_clusters <= 5


def test_random_partition_starts_near_the_mean_and_converges():
    X, y = make_blobs(600, centers=4, cluster_std=0.6, random_state=2)
    from lowdim.cluster._kmeans_init import random_partition

    C = random_partition(X, 4, np.random.default_rng(0), weights=np.ones(600))
    assert np.abs(C - X.mean(0)).max() < 0.3 * np.ptp(X, axis=0).max()
    model = KMeans(4, init="random-partition", random_state=0).fit(X)
    plus = KMeans(4, random_state=0).fit(X)
    assert adjusted_rand_score(plus.labels_, model.labels_) == 1.0
    assert model.inertia_ == pytest.approx(plus.inertia_, rel=1e-9)
    assert model.n_init == "auto"  # 'auto' makes random starts restart: 10 runs
    weighted = KMeans(4, init="random-partition", n_init=1, random_state=0).fit(X, sample_weight=np.arange(600) + 1.0)
    assert np.isfinite(weighted.inertia_)


def test_spectral_clustering_takes_scikit_learns_other_affinities_and_discretize():
    """'precomputed_nearest_neighbors' (a sparse distance graph), the kernel affinities
    and assign_labels='discretize' find well-separated groups exactly."""
    from sklearn.neighbors import kneighbors_graph as sk_kneighbors_graph

    from lowdim import SpectralClustering
    from lowdim.metrics import adjusted_rand_score

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (40, 3)) for c in (0.0, 5.0, 10.0)])
    truth = np.repeat(np.arange(3), 40)
    D = sk_kneighbors_graph(X, 10, mode="distance")
    runs = [
        SpectralClustering(3, affinity="precomputed_nearest_neighbors", n_neighbors=10, random_state=0).fit(D),
        SpectralClustering(3, affinity="nearest_neighbors", assign_labels="discretize", random_state=0).fit(X),
        SpectralClustering(3, affinity="rbf", gamma=0.5, assign_labels="discretize", random_state=0).fit(X),
    ]
    for model in runs:
        assert adjusted_rand_score(truth, model.labels_) == 1.0, model
    from sklearn.metrics.pairwise import pairwise_kernels

    poly = SpectralClustering(3, affinity="poly", gamma=0.1, degree=2, random_state=0, verbose=True, n_jobs=2).fit(X)
    expected = pairwise_kernels(X, metric="poly", gamma=0.1, degree=2, coef0=1)
    np.testing.assert_allclose(poly.affinity_matrix_, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="'rbf' affinity takes none"):
        SpectralClustering(3, kernel_params={"a": 1}).fit(X)


def test_additive_chi2_is_scikit_learns_and_not_an_affinity():
    from sklearn.metrics.pairwise import additive_chi2_kernel

    from lowdim import SpectralClustering
    from lowdim.decomposition import kernel_matrix

    X = np.random.default_rng(0).random((30, 4))
    X[0, :2] = 0.0  # a pair of zero features: the term is 0, not 0 / 0
    np.testing.assert_allclose(kernel_matrix(X, kernel="additive_chi2"), additive_chi2_kernel(X), rtol=1e-12)
    with pytest.raises(ValueError, match="additive_chi2"):
        SpectralClustering(2, affinity="additive_chi2").fit(X)
    with pytest.raises(ValueError, match="non-negative data only"):
        kernel_matrix(X - 0.5, kernel="chi2")


@pytest.mark.parametrize("kernel", ["laplacian", "chi2", "polynomial"])
def test_spectral_clustering_takes_scikit_learns_other_kernels(kernel):
    from sklearn.metrics.pairwise import pairwise_kernels

    from lowdim import SpectralClustering

    X = np.random.default_rng(0).random((30, 4))
    model = SpectralClustering(2, affinity=kernel, gamma=0.5, random_state=0).fit(X)
    expected = pairwise_kernels(
        X, metric=kernel, gamma=0.5, **({"degree": 3, "coef0": 1} if kernel == "polynomial" else {})
    )
    np.testing.assert_allclose(model.affinity_matrix_, expected, rtol=1e-12, atol=1e-12)


def test_spectral_clustering_callable_affinity_of_two_rows_or_two_blocks():
    from lowdim import SpectralClustering

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (20, 3)) for c in (0.0, 5.0, 10.0)])
    truth = np.repeat(np.arange(3), 20)

    def pair(x, y, width=1.0):  # scikit-learn's kind: a number for two rows
        return np.exp(-np.sum((x - y) ** 2) / width)

    def blocks(A, B, width=1.0):  # a whole block of the matrix at once
        return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / width)

    a = SpectralClustering(3, affinity=pair, kernel_params={"width": 4.0}, random_state=0).fit(X)
    b = SpectralClustering(3, affinity=blocks, kernel_params={"width": 4.0}, random_state=0).fit(X)
    np.testing.assert_allclose(a.affinity_matrix_, b.affinity_matrix_, rtol=1e-12)
    assert adjusted_rand_score(truth, a.labels_) == 1.0


def test_spectral_clustering_verbose_and_a_graph_in_pieces(capsys):
    from lowdim import SpectralClustering

    X = np.r_[np.zeros((10, 2)), np.full((10, 2), 100.0)] + np.random.default_rng(0).normal(size=(20, 2)) * 0.01
    with pytest.warns(UserWarning, match=r"2 connected components; it is not fully connected"):
        SpectralClustering(2, affinity="nearest_neighbors", n_neighbors=5, random_state=0, verbose=1).fit(X)
    assert "Computing label assignment using kmeans" in capsys.readouterr().out


def test_spectral_clustering_whose_kernel_joins_no_two_rows_says_which_gamma_would():
    # rows about 1,000 apart in squared distance (wide rows: 20,000 genes, here 500)
    # under the default gamma=1: every weight between rows is exp(-1000) = 0, the
    # embedding came out near 1e150, and k-means refused it as "X has values as large
    # as 6.7e+153"
    from lowdim import SpectralClustering

    X = np.random.default_rng(0).normal(size=(40, 500))
    with pytest.raises(ValueError, match=r"joins no two rows: their median squared distance is \d+.*lower gamma to"):
        SpectralClustering(3, random_state=0).fit(X)
    labels = SpectralClustering(3, gamma=1 / 1000, random_state=0).fit(X).labels_  # the gamma it names works
    assert len(set(labels)) == 3
    with pytest.raises(ValueError, match="joins no two rows"):
        SpectralClustering(2, affinity=lambda a, b: float(np.all(a == b))).fit(X[:6])


def test_spectral_clustering_whose_kernel_finds_every_two_rows_alike_says_which_gamma_would():
    # the other side: rows 1e-9 apart under gamma=1 weigh exp(-1e-18) = 1 each, the
    # Laplacian is that of a complete graph whatever the rows, and the labels were random
    from lowdim import SpectralClustering

    X = np.vstack([np.zeros((20, 3)), np.ones((20, 3))]) + np.random.default_rng(0).normal(0, 0.1, (40, 3))
    with pytest.raises(ValueError, match=r"finds every two rows alike: their median squared distance is .*raise gamma"):
        SpectralClustering(2, random_state=0).fit(X * 1e-9)
    truth = SpectralClustering(2, random_state=0).fit(X).labels_
    scaled = SpectralClustering(2, gamma=1e18, random_state=0).fit(X * 1e-9).labels_  # the gamma's order it names
    assert abs(np.corrcoef(truth, scaled)[0, 1]) == pytest.approx(1.0)
