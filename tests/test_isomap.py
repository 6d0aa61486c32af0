"""Isomap: geodesics unroll a Swiss roll; landmarks; new points."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.datasets import make_s_curve
from sklearn.manifold import Isomap as SkIsomap

from lowdim.manifold import Isomap
from lowdim.metrics import trustworthiness


def _swiss_roll(n=800, seed=0):
    rng = np.random.default_rng(seed)
    t = 1.5 * np.pi * (1 + 2 * rng.uniform(size=n))
    h = 20 * rng.uniform(size=n)
    return np.c_[t * np.cos(t), h, t * np.sin(t)], t, h


def test_swiss_roll_is_unrolled():
    X, t, h = _swiss_roll()
    Y = Isomap(n_neighbors=10, n_components=2).fit_transform(X)
    # the first coordinate follows the position along the roll, the second the height
    assert abs(spearmanr(Y[:, 0], t)[0]) >= 0.99
    assert abs(spearmanr(Y[:, 1], h)[0]) > 0.95
    assert trustworthiness(X, Y, n_neighbors=10) > 0.95


def test_matches_sklearn_up_to_sign():
    X, _, _ = _swiss_roll(300, seed=1)
    ours = Isomap(n_neighbors=8, n_components=2).fit(X)
    ref = SkIsomap(n_neighbors=8, n_components=2).fit(X)
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(ref.embedding_), rtol=1e-6, atol=1e-6)
    assert ours.reconstruction_error() == pytest.approx(ref.reconstruction_error(), rel=1e-6)


def test_landmark_isomap_close_to_exact_and_places_new_points():
    X, t, _ = _swiss_roll(1500, seed=2)
    exact = Isomap(n_neighbors=10).fit_transform(X)
    lm = Isomap(n_neighbors=10, n_landmarks=150, random_state=0).fit(X)
    assert lm.geodesic_to_references_.shape == (1500, 150)

    def D(A):
        return np.sqrt(((A[:, None] - A[None]) ** 2).sum(-1))[np.triu_indices(len(A), 1)]

    assert np.corrcoef(D(lm.embedding_[:400]), D(exact[:400]))[0, 1] > 0.99
    X_new, t_new, _ = _swiss_roll(200, seed=3)
    Y_new = lm.transform(X_new)
    axis = int(np.argmax([abs(spearmanr(lm.embedding_[:, c], t)[0]) for c in range(2)]))
    assert abs(spearmanr(Y_new[:, axis], t_new)[0]) > 0.95
    np.testing.assert_allclose(lm.transform(X[:50]), lm.embedding_[:50], atol=1e-8)


def test_disconnected_graph_warns_and_stays_finite():
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal(size=(60, 3)), 50 + rng.normal(size=(60, 3))]
    with pytest.warns(UserWarning, match="2 connected components"):
        Y = Isomap(n_neighbors=5).fit_transform(X)
    assert np.isfinite(Y).all()


def test_duplicates_warn_with_count_and_errors_name_numbers():
    X, _, _ = _swiss_roll(100)
    X = np.r_[X, X[:3]]
    with pytest.warns(UserWarning, match="6 samples have a duplicate"):
        Y = Isomap(n_neighbors=6).fit_transform(X)
    np.testing.assert_allclose(Y[100:], Y[:3], atol=1e-9)
    with pytest.raises(ValueError, match=r"n_neighbors=103 must be less than the number of samples \(103"):
        Isomap(n_neighbors=103).fit(X)


def test_transform_of_many_points_runs_in_blocks():
    X, _, _ = _swiss_roll(600, seed=5)
    iso = Isomap(n_neighbors=8).fit(X)
    many = iso.transform(np.repeat(X[:50], 80, axis=0))  # 4000 rows: three blocks of 1747 here
    np.testing.assert_allclose(many[::80], iso.transform(X[:50]), atol=1e-9)
    np.testing.assert_allclose(many[::80], iso.embedding_[:50], atol=1e-8)


def test_both_neighborhood_rules_at_once_are_refused():
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(
        ValueError, match="Both n_neighbors and radius are provided. Isomap: n_neighbors=5 and radius=0.5"
    ):
        Isomap(n_neighbors=5, radius=0.5).fit(X)
    with pytest.raises(ValueError, match="set one of them"):
        Isomap(n_neighbors=None).fit(X)


def test_radius_graph_matches_sklearn_and_places_new_points():
    X = np.random.default_rng(0).normal(size=(300, 3))
    ours = Isomap(n_neighbors=None, radius=2.0).fit(X)  # a connected graph
    theirs = SkIsomap(n_neighbors=None, radius=2.0).fit(X)
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(theirs.embedding_), atol=1e-8)
    # a training point is its own neighbour at distance 0: placed where it was fitted
    np.testing.assert_allclose(ours.transform(X[:7]), ours.embedding_[:7], atol=1e-9)
    far = ours.transform(X[:1] + 100.0)  # nothing within the radius: through the nearest point
    assert np.isfinite(far).all()


def test_many_components_are_joined_in_near_linear_passes():
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
    from scipy.spatial.distance import cdist

    from lowdim.neighbors import join_components, radius_neighbors_graph

    X = np.random.default_rng(0).normal(size=(400, 3))
    G = radius_neighbors_graph(X, 0.3)
    n_comp, labels = connected_components(G, directed=False)
    assert n_comp > 200
    with pytest.warns(UserWarning, match=f"{n_comp} connected components"):
        J = join_components(G, X)
    assert connected_components(J, directed=False)[0] == 1
    # the added edges are a minimum spanning tree of the components' closest-pair distances
    D = cdist(X, X)
    C = np.zeros((n_comp, n_comp))
    for p in range(n_comp):
        for q in range(p + 1, n_comp):
            C[p, q] = D[np.ix_(labels == p, labels == q)].min()
    added = (J - G).tocoo()
    assert added.nnz == 2 * (n_comp - 1)
    np.testing.assert_allclose(added.data.sum() / 2, minimum_spanning_tree(C).sum(), rtol=1e-12)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"metric": "manhattan"},
        {"p": 3},
        {"eigen_solver": "arpack"},
        {"eigen_solver": "dense"},
        {"path_method": "FW"},
        {"metric": "cosine"},
        {"metric": "chebyshev"},
    ],
)
def test_sklearn_parameters_give_sklearn_results(params):
    X = np.random.default_rng(0).normal(size=(300, 4))
    ours, theirs = Isomap(n_neighbors=10, **params).fit(X), SkIsomap(n_neighbors=10, **params).fit(X)
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(theirs.embedding_), atol=1e-10)
    np.testing.assert_allclose(ours.dist_matrix_, theirs.dist_matrix_, atol=1e-10)
    new = X[:5] + 0.01
    np.testing.assert_allclose(np.abs(ours.transform(new)), np.abs(theirs.transform(new)), atol=1e-10)


def test_precomputed_distances():
    from scipy.spatial.distance import cdist

    X = np.random.default_rng(0).normal(size=(300, 4))
    D = cdist(X, X)
    ours, theirs = (
        Isomap(n_neighbors=10, metric="precomputed").fit(D),
        SkIsomap(n_neighbors=10, metric="precomputed").fit(D),
    )
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(theirs.embedding_), atol=1e-10)
    np.testing.assert_allclose(np.abs(ours.transform(D[:5])), np.abs(theirs.transform(D[:5])), atol=1e-10)
    with pytest.raises(ValueError, match="n_landmarks needs the data's coordinates"):
        Isomap(n_neighbors=10, metric="precomputed", n_landmarks=50).fit(D)


def test_sparse_rows_give_the_dense_rows_embedding():
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = sp.random(120, 6, density=0.4, format="csr", random_state=1) + sp.csr_matrix(rng.normal(0, 1e-3, (120, 6)))
    X = sp.csr_matrix(X)
    dense, sparse = Isomap(n_neighbors=8).fit(X.toarray()), Isomap(n_neighbors=8).fit(X)
    flip = np.sign((dense.embedding_ * sparse.embedding_).sum(axis=0))
    np.testing.assert_allclose(sparse.embedding_ * flip, dense.embedding_, atol=1e-8 * np.abs(dense.embedding_).max())
    np.testing.assert_allclose(sparse.transform(X[:5]) * flip, dense.transform(X[:5].toarray()), atol=1e-6)
    with pytest.raises(ValueError, match="sparse rows builds a kNN graph"):
        Isomap(n_neighbors=None, radius=1.0).fit(X)


def test_a_sparse_radius_graph_and_a_metric_function():
    import scipy.sparse as sp
    from sklearn.neighbors import radius_neighbors_graph

    X, _ = make_s_curve(200, random_state=0)
    graph = radius_neighbors_graph(X, radius=1.0, mode="distance")
    given = Isomap(n_neighbors=None, radius=1.0, metric="precomputed").fit(sp.csr_matrix(graph))
    searched = Isomap(n_neighbors=None, radius=1.0).fit(X)
    np.testing.assert_allclose(np.abs(given.embedding_), np.abs(searched.embedding_), atol=1e-8)
    manhattan = Isomap(n_neighbors=6, metric=lambda a, b: np.abs(a - b).sum()).fit(X[:80])
    np.testing.assert_allclose(
        np.abs(manhattan.embedding_),
        np.abs(Isomap(n_neighbors=6, metric="manhattan").fit(X[:80]).embedding_),
        atol=1e-8,
    )


def test_a_sparse_graph_in_pieces_that_stores_no_joining_distance_is_refused():
    from sklearn.neighbors import kneighbors_graph

    from lowdim.exceptions import DisconnectedGraphError

    X = np.array([0.0, 1, 2, 5, 6, 7])[:, None]
    with pytest.raises(DisconnectedGraphError, match="number of connected components 2 > 1.*no distance between them"):
        Isomap(n_neighbors=1, metric="precomputed").fit(kneighbors_graph(X, n_neighbors=2, mode="distance"))
