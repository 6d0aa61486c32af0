"""SpectralEmbedding / Laplacian eigenmaps."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.manifold import SpectralEmbedding as SkSpectral

import lowdim
from lowdim.linalg import sq_euclidean
from lowdim.manifold import SpectralEmbedding
from lowdim.metrics import trustworthiness


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(c, 1.0, (150, 5)) for c in (0.0, 1.5, 3.0)])  # one connected graph


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_matches_sklearn_up_to_sign(blobs, solver):
    ours = SpectralEmbedding(2, n_neighbors=12, eigen_solver=solver, random_state=0).fit(blobs)
    ref = SkSpectral(2, n_neighbors=12, random_state=0).fit(blobs)
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(ref.embedding_), rtol=1e-5, atol=1e-7)
    assert np.all(np.diff(ours.eigenvalues_) >= 0) and ours.eigenvalues_[0] > 0


def test_lanczos_and_its_shift_invert_fallback_agree(blobs, monkeypatch):
    # plain Lanczos within its product budget, or (budget too small) shift-invert on the LU
    import lowdim.manifold._spectral as spectral

    def fit():
        return SpectralEmbedding(2, n_neighbors=12, eigen_solver="arpack", random_state=0).fit(blobs)

    lanczos = fit()
    monkeypatch.setattr(spectral, "LANCZOS_PRODUCTS", 1)
    fallback = fit()
    np.testing.assert_allclose(np.abs(lanczos.embedding_), np.abs(fallback.embedding_), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lanczos.eigenvalues_, fallback.eigenvalues_, rtol=1e-8)
    # large graphs (here: LU_BELOW lowered) never factorise: Lanczos goes on without a budget
    monkeypatch.setattr(spectral, "LU_BELOW", 100)
    monkeypatch.setattr(spectral, "smallest_eigh", lambda *a, **k: pytest.fail("sparse LU on a large graph"))
    unbudgeted = fit()
    np.testing.assert_allclose(np.abs(unbudgeted.embedding_), np.abs(lanczos.embedding_), rtol=1e-6, atol=1e-9)


def test_eigen_tol_auto_agrees_with_machine_precision(blobs):
    # 'auto' stops at a 1e-10 residual: eigenvalues to ~1e-20, vectors to 1e-10 / gap
    def fit(tol):
        return SpectralEmbedding(2, n_neighbors=12, eigen_solver="arpack", eigen_tol=tol, random_state=0).fit(blobs)

    auto, exact = fit("auto"), fit(0.0)
    np.testing.assert_allclose(auto.eigenvalues_, exact.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(np.abs(auto.embedding_), np.abs(exact.embedding_), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="eigen_tol"):
        fit(-1.0)


def test_float32_and_float64_rows_give_the_same_graph(blobs):
    # the float32 kNN is certified against float64 rounding: the same neighbours
    a = SpectralEmbedding(2, n_neighbors=12, random_state=0).fit(blobs.astype(np.float32))
    b = SpectralEmbedding(2, n_neighbors=12, random_state=0).fit(blobs.astype(np.float32).astype(np.float64))
    assert (a.affinity_matrix_ != b.affinity_matrix_).nnz == 0


def test_spectral_start_of_neighbor_embeddings_uses_a_loose_tolerance(blobs, monkeypatch):
    from lowdim.embedding._initialization import SPECTRAL_TOL, initial_embedding
    from lowdim.manifold import laplacian_eigenmap
    from lowdim.neighbors import kneighbors_graph

    seen = []
    exact = laplacian_eigenmap

    def spy(*args, **kwargs):
        seen.append(kwargs.get("tol"))
        return exact(*args, **kwargs)

    monkeypatch.setattr("lowdim.embedding._initialization.laplacian_eigenmap", spy)
    A = kneighbors_graph(blobs, 12, mode="connectivity")
    A = A.maximum(A.T)
    Y = initial_embedding("spectral", blobs, A, 2, np.random.default_rng(0))
    assert seen == [SPECTRAL_TOL] and Y.shape == (450, 2) and np.isfinite(Y).all()


def test_rbf_and_precomputed_affinities_agree(blobs):
    a = SpectralEmbedding(2, affinity="rbf", gamma=0.1).fit(blobs)
    A = np.exp(-0.1 * ((blobs[:, None] - blobs[None]) ** 2).sum(-1))
    b = SpectralEmbedding(2, affinity="precomputed").fit(A)
    np.testing.assert_allclose(np.abs(a.embedding_), np.abs(b.embedding_), rtol=1e-6, atol=1e-9)
    ref = SkSpectral(2, affinity="rbf", gamma=0.1, random_state=0).fit(blobs)
    np.testing.assert_allclose(np.abs(a.embedding_), np.abs(ref.embedding_), rtol=1e-5, atol=1e-7)


def test_a_precomputed_affinity_is_checked_and_made_symmetric_as_in_sklearn(blobs):
    """A negative affinity makes the Laplacian indefinite (the map held values of 1e151):
    refused. An asymmetric one is averaged with its transpose, with scikit-learn's
    warning; the eigensolvers read one triangle of it before."""
    A = np.exp(-0.1 * ((blobs[:, None] - blobs[None]) ** 2).sum(-1))
    negative = A.copy()
    negative[3, 4] = negative[4, 3] = -0.5
    with pytest.raises(ValueError, match=r"affinities must be non-negative; the graph has -0.5 at \[3, 4\]"):
        SpectralEmbedding(2, affinity="precomputed").fit(negative)
    lopsided = A + np.triu(np.random.default_rng(0).uniform(0, 0.2, A.shape), 1)
    with pytest.warns(UserWarning, match="Array is not symmetric, and will be converted to symmetric") as caught:
        a = SpectralEmbedding(2, affinity="precomputed").fit(lopsided)
    assert caught[0].filename == __file__
    b = SpectralEmbedding(2, affinity="precomputed").fit((lopsided + lopsided.T) / 2)
    np.testing.assert_allclose(a.embedding_, b.embedding_, rtol=1e-10, atol=1e-12)
    with pytest.warns(UserWarning, match="Array is not symmetric"):
        ref = SkSpectral(2, affinity="precomputed", random_state=0).fit(lopsided)
    np.testing.assert_allclose(np.abs(a.embedding_), np.abs(ref.embedding_), rtol=1e-5, atol=1e-7)


def test_keeps_neighborhoods_of_a_swiss_roll():
    rng = np.random.default_rng(1)
    t = 1.5 * np.pi * (1 + 2 * rng.uniform(size=1200))
    X = np.c_[t * np.cos(t), 20 * rng.uniform(size=1200), t * np.sin(t)]
    Y = SpectralEmbedding(2, n_neighbors=10, random_state=0).fit_transform(X)
    assert trustworthiness(X, Y, n_neighbors=10) > 0.85


def test_disconnected_graph_warns_and_model_file_keeps_sparse_affinity(tmp_path):
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(size=(40, 3)), 60 + rng.normal(size=(40, 3))]
    with pytest.warns(UserWarning, match="2 connected components"):
        se = SpectralEmbedding(2, n_neighbors=5, random_state=0).fit(X)
    assert np.isfinite(se.embedding_).all()
    lowdim.save(se, tmp_path / "se.lowdim")
    back = lowdim.load(tmp_path / "se.lowdim")
    assert (back.affinity_matrix_ != se.affinity_matrix_).nnz == 0
    np.testing.assert_array_equal(back.embedding_, se.embedding_)


@pytest.fixture(scope="module")
def jittered_digits():
    from sklearn.datasets import load_digits

    X = load_digits().data[:500]
    return X + 1e-3 * np.random.default_rng(0).normal(size=X.shape)  # no tied distances


@pytest.mark.parametrize("as_sparse", [True, False])
def test_precomputed_nearest_neighbors_as_sklearn(jittered_digits, as_sparse):
    from scipy.spatial.distance import cdist
    from sklearn.manifold import SpectralEmbedding as SkSpectral
    from sklearn.neighbors import kneighbors_graph as sk_kneighbors_graph

    X = jittered_digits
    D = sk_kneighbors_graph(X, 30, mode="distance") if as_sparse else cdist(X, X)
    ours = SpectralEmbedding(affinity="precomputed_nearest_neighbors", n_neighbors=10, random_state=0).fit(D)
    theirs = SkSpectral(affinity="precomputed_nearest_neighbors", n_neighbors=10, random_state=0).fit(D)
    assert abs(ours.affinity_matrix_ - theirs.affinity_matrix_).max() == 0
    np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(theirs.embedding_), atol=1e-6)
    assert ours.n_neighbors_ == 10


def test_lobpcg_callable_affinity_and_float32(jittered_digits):
    from scipy.spatial.distance import cdist

    X = jittered_digits
    lanczos = SpectralEmbedding(n_neighbors=10, eigen_solver="arpack", random_state=0).fit(X)
    lobpcg = SpectralEmbedding(n_neighbors=10, eigen_solver="lobpcg", random_state=0).fit(X)
    np.testing.assert_allclose(np.abs(lobpcg.embedding_), np.abs(lanczos.embedding_), atol=1e-6)
    kernel = SpectralEmbedding(affinity=lambda Z: np.exp(-(cdist(Z, Z) ** 2) / 500.0), random_state=0).fit(X)
    rbf = SpectralEmbedding(affinity="rbf", gamma=1 / 500.0, random_state=0).fit(X)
    np.testing.assert_allclose(np.abs(kernel.embedding_), np.abs(rbf.embedding_), rtol=1e-6, atol=1e-9)
    single = SpectralEmbedding(n_neighbors=10, random_state=0).fit(X.astype(np.float32))
    assert single.affinity_matrix_.dtype == single.embedding_.dtype == np.float32


def test_amg_preconditioned_lobpcg_finds_the_dense_solvers_map(blobs, monkeypatch):
    import lowdim.manifold._spectral as spectral

    X = blobs
    converged = []
    solve = spectral.ITERATIVE["amg"]
    monkeypatch.setitem(spectral.ITERATIVE, "amg", lambda *args: converged.append(solve(*args)) or converged[-1])
    dense = SpectralEmbedding(n_components=2, eigen_solver="dense", random_state=0).fit(X)
    amg = SpectralEmbedding(n_components=2, eigen_solver="amg", random_state=0).fit(X)
    assert len(converged) == 1 and converged[0] is not None  # the multigrid path, not the fallback
    np.testing.assert_allclose(amg.eigenvalues_, dense.eigenvalues_, atol=1e-6)
    for a, b in zip(amg.embedding_.T, dense.embedding_.T):  # each column up to its sign
        assert min(np.abs(a - b).max(), np.abs(a + b).max()) < 1e-4 * np.abs(b).max()
    monkeypatch.setitem(__import__("sys").modules, "pyamg", None)  # as if not installed
    with pytest.raises(ValueError, match="The eigen_solver was set to 'amg', but pyamg is not available"):
        SpectralEmbedding(eigen_solver="amg").fit(X)


def test_a_sparse_graph_in_pieces_is_joined_by_fixed_weight_edges():
    """Joining edges of an affinity graph take a fixed weight, so pieces with no stored
    distance between them are joined all the same (Isomap, which needs the lengths,
    refuses such a graph)."""
    from sklearn.neighbors import kneighbors_graph

    X = np.vstack([np.random.default_rng(0).normal(c, 0.1, (30, 2)) for c in (0.0, 50.0)])
    graph = kneighbors_graph(X, 5, mode="distance")
    with pytest.warns(UserWarning, match="2 connected components"):
        Y = SpectralEmbedding(affinity="precomputed_nearest_neighbors", n_neighbors=5, random_state=0).fit_transform(
            graph
        )
    assert np.isfinite(Y).all()


def test_a_dense_kernels_clustered_bottom_converges_in_few_products(monkeypatch):
    # an rbf kernel narrow against the spacing of the rows: the Laplacian's bottom
    # eigenvalues lie within 1e-8 of each other, where plain Lanczos ran out of its
    # 1.6e5 products
    import scipy.sparse.linalg as spla

    from lowdim.manifold._spectral import laplacian_eigenmap

    X = load_digits().data[:1100]
    A = np.exp(-np.maximum(sq_euclidean(X, X), 0.0) / 30.0)
    products, eigsh = [0], spla.eigsh

    def counted(op):
        def apply(v):
            products[0] += 1 if v.ndim == 1 else v.shape[1]
            return op @ v

        return spla.LinearOperator(op.shape, matvec=apply, matmat=apply, dtype=np.float64)

    def counting_eigsh(M, *args, OPinv=None, **kwargs):
        return eigsh(counted(M), *args, OPinv=None if OPinv is None else counted(OPinv), **kwargs)

    monkeypatch.setattr(spla, "eigsh", counting_eigsh)
    Y, lam = laplacian_eigenmap(A.copy(), 4, np.random.default_rng(0), solver="arpack", tol=0.0)
    assert products[0] < 2_000
    degree = A.sum(axis=1) - np.diag(A)
    L = np.eye(len(A)) - (A - np.diag(np.diag(A))) / np.sqrt(np.outer(degree, degree))
    exact = np.linalg.eigvalsh(L)[1:5]
    assert np.ptp(exact) < 1e-3  # the clustered case this test is about
    np.testing.assert_allclose(lam, exact, atol=1e-10)  # ||L|| <= 2: LAPACK's and ARPACK's rounding


def test_scikit_learns_default_neighbours_on_many_rows_are_warned_of_at_the_users_line(blobs, monkeypatch):
    # n_samples // 10 neighbours grow with the square of the rows: 100,000 rows ran over
    # 5 minutes in silence; here the threshold is lowered so that 450 rows (45 each) cross it
    import lowdim.manifold._spectral as spectral

    monkeypatch.setattr(spectral, "LARGE_DEFAULT_GRAPH", 20_000)
    with pytest.warns(
        UserWarning, match=r"n_neighbors defaults to n_samples // 10 = 45 .* 20,250 neighbour pairs"
    ) as w:
        SpectralEmbedding(2, random_state=0).fit(blobs)
    assert w[0].filename == __file__ and "pass n_neighbors" in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SpectralEmbedding(2, n_neighbors=45, random_state=0).fit(blobs)  # chosen: nothing to say


@pytest.mark.parametrize("keep_diagonal", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_small_graph_is_normalised_by_numpy_to_the_kernels_values(monkeypatch, keep_diagonal, dtype):
    # small graphs skip the kernels (nothing to compile on a first call); both sum each
    # row's degree in its entries' order and scale in the same order: the same bits
    import scipy.sparse as sp

    from lowdim._kernels import normalized_graph

    A = sp.random(300, 300, density=0.05, random_state=1, format="csr", dtype=dtype)
    A = (A + A.T).tocsr()
    A.setdiag(0.5)
    A = A.tocsr()
    A.data[::7] = 0.0  # a stored zero, and rows of few entries
    small = normalized_graph.normalized_values(A.indptr, A.indices, A.data, keep_diagonal)
    monkeypatch.setattr(normalized_graph, "SMALL_GRAPH", -1)
    for got, kernel in zip(small, normalized_graph.normalized_values(A.indptr, A.indices, A.data, keep_diagonal)):
        np.testing.assert_array_equal(got, kernel)
    values = small[0]
    dense = A.toarray().astype(np.float64)
    if not keep_diagonal:
        np.fill_diagonal(dense, 0.0)
    scale = 1 / np.sqrt(dense.sum(axis=1))
    expected = dense * scale[:, None] * scale[None, :]
    got = sp.csr_matrix((values, A.indices, A.indptr), shape=A.shape).toarray()
    np.testing.assert_allclose(got, expected, rtol=1e-12)
