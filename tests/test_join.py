"""Joining a disconnected neighbour graph: the work grows linearly with the rows whatever
the sizes of the components, the joining edges are as short as the exact tree's, and
the maps built on the joined graph keep every component intact and apart."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

import lowdim.neighbors._join as join
from lowdim.neighbors import join_components


def _chains(labels):
    """A graph connecting each label's rows in a chain: one component per label."""
    order = np.argsort(labels, kind="stable")
    same = labels[order[1:]] == labels[order[:-1]]
    i, j = order[:-1][same], order[1:][same]
    n = labels.size
    return sp.csr_matrix((np.ones(2 * i.size), (np.r_[i, j], np.r_[j, i])), shape=(n, n))


def _blobs(n, n_blobs, seed=0):
    """``n_blobs`` well-separated Gaussian blobs in 10 dimensions, rows shuffled."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % n_blobs)
    return rng.normal(size=(n, 10)) + 12.0 * np.eye(10)[labels % 10] * (1 + labels[:, None] // 10), labels


def _duplicate_groups(n, seed=0):
    """A cloud with groups of 20 identical rows: each group is a component of its own
    besides one large one (the rest of the cloud)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    groups = n // 2 // 20
    X[: groups * 20] = np.repeat(rng.normal(size=(groups, 10)) * 3, 20, axis=0)
    labels = np.r_[np.repeat(np.arange(groups), 20), np.full(n - groups * 20, groups)]
    return X, labels


def _joined(monkeypatch, X, labels):
    """``join_components`` of the chains of ``labels`` through the search (not the exact
    tree these sizes would get) and the work the search did. The scan budget is lowered
    from 64 to 4 sizes of a component: at these sizes many components descending into a
    large one never scan it 64 times over, so only a lower budget shows the regime large
    data are in (a component scanned that often gets an index of its own)."""
    monkeypatch.setattr(join, "EXACT_JOIN_UPTO", 0)
    monkeypatch.setattr(join, "SCAN_BUDGET", 4)
    made = []

    class Counted(join.ComponentBridges):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(join, "ComponentBridges", Counted)
    G = _chains(labels)
    with pytest.warns(UserWarning, match=f"{np.unique(labels).size} connected components"):
        J = join_components(G, X)
    assert connected_components(J, directed=False)[0] == 1
    return J - G, sum(b.work for b in made)


@pytest.mark.parametrize("data", [lambda n: _blobs(n, 2), lambda n: _blobs(n, 12), _duplicate_groups])
def test_join_work_grows_linearly_with_the_rows(monkeypatch, data):
    per_row = []
    for n in (4000, 8000, 16000):
        X, labels = data(n)
        added, done = _joined(monkeypatch, X, labels)
        assert added.nnz == 2 * (np.unique(labels).size - 1)  # a spanning tree of the components
        per_row.append(done / n)
    # linear: the work per row does not grow with the rows (quadratic: 4x at 4x the rows)
    assert max(per_row[1:]) <= 1.5 * per_row[0], per_row


@pytest.mark.parametrize("n_blobs", [2, 12])
def test_the_searched_tree_is_as_short_as_the_exact_one(monkeypatch, n_blobs):
    X, labels = _blobs(3000, n_blobs, seed=1)
    searched, _ = _joined(monkeypatch, X, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = join_components(_chains(labels), X) - _chains(labels)  # 3,000 rows: the exact tree
    assert exact.nnz == searched.nnz
    # alternating descent finds the closest pair of convex clouds up to their sampling
    assert searched.sum() <= 1.02 * exact.sum()


def test_duplicate_groups_join_through_the_index_to_their_nearest_point(monkeypatch):
    X, labels = _duplicate_groups(4000)
    added, _ = _joined(monkeypatch, X, labels)
    added = added.tocoo()
    for i, j, length in zip(added.row, added.col, added.data):
        assert length == pytest.approx(np.linalg.norm(X[i] - X[j]), rel=1e-9)
    groups = labels[added.row] < labels.max()
    # each group's edge is its nearest point outside it (no shorter edge leaves the group)
    for i in added.row[groups][:20]:
        outside = labels != labels[i]
        shortest = np.min(np.linalg.norm(X[outside] - X[i], axis=1))
        assert added.data[added.row == i].min() == pytest.approx(shortest, rel=1e-9)


def test_umap_of_well_separated_blobs_keeps_each_intact_and_apart():
    from lowdim import UMAP
    from lowdim.metrics import knn_accuracy

    X, labels = _blobs(6000, 3)  # above EXACT_JOIN_UPTO: the searched join
    with pytest.warns(UserWarning, match="3 connected components"):
        Y = UMAP(random_state=0, n_epochs=100).fit_transform(X.astype(np.float32))
    assert knn_accuracy(Y, labels, n_neighbors=10, test_size=0.2, random_state=0) == 1.0
    for c in range(3):  # apart: the gap to another blob exceeds the blob's own spread
        inside, outside = Y[labels == c], Y[labels != c]
        centre = inside.mean(axis=0)
        radius = np.percentile(np.linalg.norm(inside - centre, axis=1), 99)
        assert np.linalg.norm(outside - centre, axis=1).min() > radius


def test_the_spectral_start_of_a_graph_in_pieces_keeps_the_pieces_apart():
    from lowdim.embedding._component_start import GAP_SHARE, _centroids, _place_pieces, component_start
    from lowdim.neighbors import kneighbors_graph, symmetrize

    X, labels = _blobs(1200, 24, seed=2)  # more pieces than 2 x dimensions: placed by their centroids
    A = symmetrize(kneighbors_graph(X, 8))
    count, found = connected_components(A, directed=False)
    assert count == 24
    Y = component_start(A, X, found, 2, np.random.default_rng(0))
    places = _place_pieces(_centroids(X, found, count), 2, np.random.default_rng(0))  # drawn first, as there
    gaps = np.linalg.norm(places[:, None] - places[None], axis=2) + np.diag(np.full(count, np.inf))
    assert gaps.min() > 0.05  # metric MDS spreads the places (a projection alone stacks pieces)
    reach = np.array([np.linalg.norm(Y[found == c] - places[c], axis=1).max() for c in range(count)])
    assert np.all(reach > 0)
    # any two pieces' discs share 0.8 of the distance between them: a fifth of it stays empty
    assert np.all(reach[:, None] + reach[None, :] <= 2 * GAP_SHARE * gaps * (1 + 1e-9))


def test_a_large_piece_starts_in_a_disc_as_large_as_its_share():
    """Radii in proportion to the square root of the pieces' sizes: a 10,000-point piece
    between two 100-point ones gets ten times their room (with equal discs it started as
    small as they did and grew over them in the layout), and no two discs touch."""
    from lowdim.embedding._component_start import GAP_SHARE, _radii

    places = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    radius = _radii(places, np.array([100, 10_000, 100]))
    np.testing.assert_allclose(radius[1] / radius[0], 10.0)
    assert radius[0] + radius[1] <= 2 * GAP_SHARE * 1.0 + 1e-12
    np.testing.assert_allclose(_radii(places, np.array([5, 5, 5])), GAP_SHARE)  # equal pieces: 0.4 of the gap


def test_umap_of_many_separated_clusters_mixes_none():
    from lowdim import UMAP

    X, labels = _blobs(3000, 30, seed=3)
    with pytest.warns(UserWarning, match="connected components"):
        Y = UMAP(random_state=0, n_epochs=100).fit_transform(X.astype(np.float32))
    _, idx = cKDTree(Y).query(Y, 11)
    assert (labels[idx[:, 1:]] == labels[:, None]).all()  # every point's 10 nearest in the map: its own cluster


def test_umap_widens_the_start_box_for_a_graph_in_many_pieces(monkeypatch):
    # the first epochs throw points far wherever the start is dense: more than 100 pieces
    # start in a box sqrt(pieces / 100) times umap-learn's 10, fewer in umap-learn's
    from lowdim import UMAP
    from lowdim.embedding._umap import UMAP as Fitted

    starts = []
    monkeypatch.setattr(Fitted, "_layout", lambda self, X, Y, n_epochs, rng: starts.append(Y))
    rng = np.random.default_rng(0)
    for count, side in ((50, 10.0), (400, 20.0)):
        X = rng.uniform(-1000, 1000, size=(count, 5))[np.repeat(np.arange(count), 6)] + rng.normal(size=(6 * count, 5))
        with pytest.warns(UserWarning, match=f"{count} connected components"):
            UMAP(n_neighbors=5, random_state=0).fit(X)
        np.testing.assert_allclose(np.ptp(starts[-1], axis=0), side, rtol=1e-3)


@pytest.mark.parametrize("seed", range(3))
def test_union_find_components_equal_scipys_above_the_scipy_size(monkeypatch, seed):
    """Above ``SCIPY_EDGES`` edges the components come from the union-find kernel: the
    same count and numbering as scipy's (by smallest row), for one-way edges, self-loops
    and isolated rows alike; below it scipy's own, as int32 labels either way."""
    import lowdim._kernels.components as components

    rng = np.random.default_rng(seed)
    n = 400
    rows, cols = rng.integers(n, size=300), rng.integers(n, size=300)  # one way only: read as undirected
    G = sp.csr_matrix((np.ones(300), (rows, cols)), shape=(n, n))
    expected = connected_components(G, directed=False)
    small = components.connected_components(G)
    monkeypatch.setattr(components, "SCIPY_EDGES", -1)
    large = components.connected_components(G)
    for count, labels in (small, large):
        assert count == expected[0] > 1 and labels.dtype == np.int32
        np.testing.assert_array_equal(labels, expected[1])


def _two_cones(seed=0):
    """Rows around two directions 90 degrees apart, at lengths from 1 to 100: far apart
    by angle, not by Euclidean distance, so a join measured in the wrong space shows."""
    rng = np.random.default_rng(seed)
    axes = np.eye(4)[[0, 1]]
    rows = np.repeat(axes, 30, axis=0) + 0.05 * rng.normal(size=(60, 4))
    return rows * rng.uniform(1, 100, size=(60, 1))


def test_a_cosine_graph_is_joined_by_its_shortest_cosine_edge():
    # the exact index's block distances took the rows as given, not as unit rows: a
    # disconnected cosine graph (Isomap, spectral, diffusion maps) crashed on the shapes
    from scipy.spatial.distance import cdist

    from lowdim.neighbors import ExactIndex, kneighbors_graph, symmetrize

    X = _two_cones()
    index = ExactIndex("cosine").build(X)
    G = symmetrize(kneighbors_graph(X, 5, index=index))
    assert connected_components(G)[0] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = join_components(G, X, index=index)
    added = sp.triu(J - G).tocoo()
    assert connected_components(J)[0] == 1 and added.nnz == 1
    D = cdist(X, X, "cosine")
    shortest = D[:30, 30:].min()
    np.testing.assert_allclose(added.data[0], shortest, rtol=1e-12)
    assert D[added.row[0], added.col[0]] == pytest.approx(shortest, rel=1e-12)


def test_radius_graph_by_cosine_holds_the_pairs_within_the_radius():
    from scipy.spatial.distance import cdist

    from lowdim.neighbors import radius_neighbors_graph

    X = _two_cones(1)
    G = radius_neighbors_graph(X, 0.004, metric="cosine").toarray()
    D = cdist(X, X, "cosine")
    within = (D < 0.004) & ~np.eye(len(X), dtype=bool)
    assert within.sum() > len(X) and np.array_equal(G > 0, within)
    np.testing.assert_allclose(G[within], D[within], rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("name", ["Isomap", "SpectralEmbedding", "DiffusionMap"])
def test_maps_of_a_disconnected_cosine_graph_are_made(name):
    import lowdim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Y = getattr(lowdim, name)(metric="cosine", n_neighbors=5).fit_transform(_two_cones())
    assert Y.shape == (60, 2) and np.isfinite(Y).all()
    cone = np.repeat([0, 1], 30)
    assert np.linalg.norm(Y[cone == 0].mean(0) - Y[cone == 1].mean(0)) > Y[cone == 0].std(0).max()
