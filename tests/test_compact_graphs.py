"""The compact neighbour graphs that let t-SNE and UMAP hold millions of points: kNN in
row blocks into float32 / int32 arrays, symmetrisation and reordering without scipy's
float64 / int64 intermediates, the t-SNE index released above a size."""

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

import lowdim
import lowdim.neighbors._self_query as self_query
from lowdim._kernels.symmetric_graph import permuted_csr, symmetric_csr
from lowdim.embedding import neighbor_affinities
from lowdim.neighbors import ExactIndex, HNSWIndex, KNNIndex, self_neighbors

X = load_digits().data[:600] / 16.0


def _directed(n=400, k=8, seed=0):
    rng = np.random.default_rng(seed)
    idx = np.array([rng.choice(n, k, replace=False) for _ in range(n)], dtype=np.int32)
    w = rng.random((n, k)).astype(np.float32)
    w[0, 0] = 0.0  # a zero weight is not an edge
    idx[1, 0] = 1  # nor is a self-loop
    idx[2, 0] = -1  # nor a missing neighbour
    A = sp.csr_matrix((w.ravel().astype(np.float64), np.maximum(idx, 0).ravel(), np.arange(0, n * k + 1, k)), (n, n))
    A.data[(np.arange(n * k) // k == idx.ravel()) | (idx.ravel() < 0)] = 0.0
    A.eliminate_zeros()
    return idx, w, A


@pytest.fixture(params=["scipy", "kernels"])
def combined_by(request, monkeypatch):
    """Small graphs are combined by scipy's sparse sums, larger ones by the kernels:
    every symmetric_csr test runs both ways."""
    import lowdim._kernels.symmetric_graph as kernel

    if request.param == "kernels":
        monkeypatch.setattr(kernel, "SCIPY_EDGES", -1)
    return request.param


@pytest.mark.parametrize("mode", ["sum", "fuzzy_union", "maximum"])
def test_symmetric_csr_equals_scipy(mode, combined_by):
    idx, w, A = _directed()
    T = A.T.tocsr()
    expected = {"sum": A + T, "fuzzy_union": A + T - A.multiply(T), "maximum": A.maximum(T)}[mode].tocsr()
    indptr, cols, data = symmetric_csr(idx, w, mode)
    M = sp.csr_matrix((data, cols, indptr), shape=A.shape)
    assert cols.dtype == np.int32 and data.dtype == np.float32 and len(cols) == indptr[-1]
    assert M.nnz == expected.nnz and abs(M - expected).max() < 1e-6
    assert all((np.diff(cols[a:b]) > 0).all() for a, b in zip(indptr[:-1], indptr[1:]))  # sorted, no repeats


def test_symmetric_csr_in_chunks_equals_one_chunk_and_ticks_every_pass(monkeypatch, combined_by):
    import lowdim._kernels.symmetric_graph as kernel

    idx, w, _ = _directed()
    whole = symmetric_csr(idx, w, "fuzzy_union")
    monkeypatch.setattr(kernel, "ROWS_PER_TICK", 7)  # chunks that do not divide the rows
    ticks = []
    chunked = symmetric_csr(idx, w, "fuzzy_union", tick=ticks.append)
    assert all(np.array_equal(a, b) for a, b in zip(whole, chunked))
    assert sum(ticks) == kernel.SYMMETRIC_PASSES * len(idx) and max(ticks) == 7


def test_symmetric_csr_fuzzy_intersection_at_mix_zero(combined_by):
    idx, w, A = _directed()
    indptr, cols, data = symmetric_csr(idx, w, "fuzzy_union", 0.0)
    M = sp.csr_matrix((data, cols, indptr), shape=A.shape)
    assert abs(M - A.multiply(A.T)).max() < 1e-6


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scipys_sums_and_the_kernels_give_the_same_bits(monkeypatch, dtype):
    # the same arithmetic in float64 (each pair's weights, then cast): a map does not
    # depend on which side of SCIPY_EDGES its graph falls
    import lowdim._kernels.symmetric_graph as kernel

    for seed in range(5):
        idx, w, _ = _directed(n=300, k=6, seed=seed)
        w = w.astype(dtype)
        for mode, mix in [("sum", 1.0), ("fuzzy_union", 1.0), ("fuzzy_union", 0.3), ("maximum", 1.0)]:
            by_scipy = symmetric_csr(idx, w, mode, mix)
            with monkeypatch.context() as patch:
                patch.setattr(kernel, "SCIPY_EDGES", -1)
                by_kernels = symmetric_csr(idx, w, mode, mix)
            for a, b in zip(by_scipy, by_kernels):
                assert a.dtype == b.dtype and np.array_equal(a, b)


def test_a_small_graph_is_combined_without_compiling_a_kernel(tmp_path):
    # numba compiled the four passes' kernels on a first call: about a second of a
    # first UMAP of 10,000 rows (BENCHMARKS.md, Cold start)
    script = (
        "import numpy as np\n"
        "from lowdim._kernels import symmetric_graph as kernel\n"
        "idx = np.random.default_rng(0).integers(0, 500, (500, 15))\n"
        "kernel.symmetric_csr(idx, np.ones((500, 15), np.float32), 'fuzzy_union')\n"
        "passes = (kernel._slot_counts, kernel._fill, kernel._merge_rows, kernel._compact)\n"
        "print(sum(len(f.signatures) for f in passes))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "0"


def test_permuted_csr_equals_fancy_indexing():
    _, _, A = _directed()
    P = (A + A.T).tocsr().astype(np.float32)
    order = np.random.default_rng(1).permutation(P.shape[0]).astype(np.int32)
    indptr, cols, data = permuted_csr(P.indptr, P.indices, P.data, order)
    assert abs(sp.csr_matrix((data, cols, indptr), shape=P.shape) - P[order][:, order]).max() == 0


@pytest.mark.parametrize("make", [lambda: ExactIndex(), lambda: HNSWIndex(), lambda: ExactIndex("cosine")])
def test_self_neighbors_in_blocks_equal_the_whole_query(make, monkeypatch):
    monkeypatch.setattr(self_query, "BLOCK_ROWS", 128)  # five blocks, the last one short
    index = make().build(X)
    dist, idx = self_neighbors(index, X, 10)
    whole_dist, whole_idx = index.query(X, 10, exclude_self=True)
    assert dist.dtype == np.float32 and idx.dtype == np.int32
    assert (idx == whole_idx).all() and np.allclose(dist, whole_dist, rtol=1e-6, atol=1e-7)
    assert not (idx == np.arange(len(X))[:, None]).any()


def test_self_neighbors_of_a_user_index_go_through_query():
    class Brute(KNNIndex):
        metrics = ("euclidean",)

        def _build(self, X):
            self.X_ = np.asarray(X, dtype=np.float64)

        def query(self, Q, k, *, exclude_self=False):
            D = np.sqrt(((np.asarray(Q)[:, None] - self.X_[None]) ** 2).sum(-1))
            if exclude_self:
                np.fill_diagonal(D, np.inf)
            order = np.argsort(D, axis=1, kind="stable")[:, :k]
            return np.take_along_axis(D, order, axis=1), order

    dist, idx = self_neighbors(Brute().build(X), X, 5)
    expected = ExactIndex().build(X).query(X, 5, exclude_self=True)[1]
    assert idx.dtype == np.int32 and (idx == expected).mean() > 0.99


def test_tsne_affinities_are_compact_and_still_sum_to_one():
    P, index, nearest = neighbor_affinities(X, 20.0, 61)
    assert P.data.dtype == np.float32 and P.indices.dtype == np.int32
    assert abs(P.sum() - 1) < 1e-5 and abs(P - P.T).max() == 0
    assert nearest.shape == (len(X),) and index is not None
    assert neighbor_affinities(X, 20.0, 61, keep_index=False)[1] is None


def test_tsne_above_the_kept_index_size_rebuilds_it_for_transform(monkeypatch):
    import lowdim.embedding._base as base

    kept = lowdim.TSNE(random_state=0, max_iter=250).fit(X[:500])
    monkeypatch.setattr(base, "KEEP_INDEX_UP_TO", 100)
    released = lowdim.TSNE(random_state=0, max_iter=250).fit(X[:500])
    assert released._index is None
    np.testing.assert_array_equal(released.embedding_, kept.embedding_)
    np.testing.assert_allclose(released.transform(X[500:]), kept.transform(X[500:]), rtol=1e-6, atol=1e-6)


def test_umap_graphs_are_compact_and_the_distance_graph_only_kept_for_the_radii():
    assert lowdim.UMAP(random_state=0, n_epochs=5).fit(X).graph_dists_ is None
    model = lowdim.UMAP(random_state=0, n_epochs=30, output_dens=True).fit(X)
    for graph in (model.graph_, model.graph_dists_):
        assert graph.data.dtype == np.float32 and graph.indices.dtype == np.int32
        assert abs(graph - graph.T).max() == 0
    assert model.graph_.data.max() <= 1.0 and model.graph_.nnz == model.graph_dists_.nnz


def test_hnsw_built_in_blocks_shows_progress_and_finds_the_same_neighbours(monkeypatch, capsys):
    import lowdim.neighbors._approximate as approximate

    exact = ExactIndex().build(X).query(X, 10, exclude_self=True)[1]
    monkeypatch.setattr(approximate, "ADD_ROWS", 128)
    idx = HNSWIndex(verbose=True).build(X).query(X, 10, exclude_self=True)[1]
    assert "kNN index" in capsys.readouterr().err
    assert np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx, exact)]) > 0.97


def test_components_of_millions_are_joined_through_the_index(monkeypatch):
    import warnings

    from scipy.sparse.csgraph import connected_components

    import lowdim.neighbors._join as join
    from lowdim.neighbors import join_components, kneighbors_graph, symmetrize

    rng = np.random.default_rng(0)
    Xb = np.concatenate([rng.normal(size=(300, 3)) + 20 * i for i in range(6)])  # six far blobs
    G = symmetrize(kneighbors_graph(Xb, 5)).astype(np.float32)
    index = ExactIndex().build(Xb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = join_components(G, Xb, index=index)
        monkeypatch.setattr(join, "EXACT_JOIN_UPTO", 0)
        searched = join_components(G, Xb, index=index)
    assert connected_components(searched)[0] == 1 and searched.dtype == np.float32
    added = [(J - G).tocsr() for J in (exact, searched)]
    assert added[1].nnz == added[0].nnz == 10  # five joining edges, both directions
    assert added[1].sum() <= 1.05 * added[0].sum()  # as short as the all-pairs minimum spanning tree


def test_a_spectral_start_that_does_not_converge_falls_back_to_pca(monkeypatch):
    from scipy.sparse.linalg import ArpackNoConvergence

    import lowdim.manifold._spectral as spectral
    from lowdim.embedding import initial_embedding

    def no_convergence(*args):  # as Lanczos on millions of points in weakly joined parts
        raise ArpackNoConvergence("not converged", np.zeros(0), np.zeros((0, 0)))

    monkeypatch.setattr(spectral, "_top_as_bottom", no_convergence)
    monkeypatch.setattr(spectral, "LU_BELOW", 0)  # as for millions of points: no sparse LU
    monkeypatch.setattr(spectral, "DENSE_BELOW", 0)
    P = neighbor_affinities(X, 20.0, 61)[0]
    with pytest.warns(UserWarning, match="spectral start did not converge"):
        Y = initial_embedding("spectral", X, P, 2, np.random.default_rng(0))
    pca = initial_embedding("pca", X, P, 2, np.random.default_rng(0))
    assert all(abs(np.corrcoef(Y[:, c], pca[:, c])[0, 1]) > 0.99 for c in range(2))


def test_the_spectral_start_counts_its_products_against_the_budget_that_bounds_it(monkeypatch, capsys):
    import lowdim.manifold._spectral as spectral
    from lowdim.manifold import laplacian_eigenmap

    monkeypatch.setattr(spectral, "LU_BELOW", 500)  # the bounded Lanczos path of large graphs, on 600 points
    monkeypatch.setattr(spectral, "DENSE_BELOW", 500)
    A = lowdim.neighbors.symmetrize(lowdim.neighbors.kneighbors_graph(X, 10)).tocsr()
    calls = []
    Y, _ = laplacian_eigenmap(
        A, 2, np.random.default_rng(0), tol=1e-4, bounded=True, on_product=lambda *c: calls.append(c)
    )
    quiet, _ = laplacian_eigenmap(A, 2, np.random.default_rng(0), tol=1e-4, bounded=True)
    assert [done for done, _ in calls] == list(range(1, len(calls) + 1)) and len(calls) > 10
    most = {m for _, m in calls}
    assert len(most) == 1 and most.pop() >= len(calls)  # the bar's end holds: Lanczos stops within it
    np.testing.assert_array_equal(Y, quiet)
    lowdim.UMAP(n_epochs=5, random_state=0, verbose=True).fit(X)
    err = capsys.readouterr().err
    assert "UMAP start (spectral)" in err and "product" in err and "UMAP layout" in err


def test_per_row_stages_show_row_bars_and_give_the_same_result(monkeypatch, capsys):
    import lowdim.embedding._graph_arrays as graph_arrays

    monkeypatch.setattr(graph_arrays, "ROWS_PER_BLOCK", 128)  # several blocks: the bar advances block by block
    quiet = lowdim.TSNE(max_iter=250, random_state=0).fit_transform(X)
    shown = lowdim.TSNE(max_iter=250, random_state=0, verbose=1).fit_transform(X)
    lowdim.UMAP(n_epochs=5, random_state=0, verbose=True).fit(X)
    err = capsys.readouterr().err
    n = len(X)
    # a log's lines (standard error is no terminal here): counts with thousands separators
    assert "t-SNE affinities" in err and f"{n:,}/{n:,}" in err
    assert "t-SNE symmetrisation (4 passes over the rows)" in err and f"{4 * n:,}/{4 * n:,}" in err
    assert "TSNE start" in err and "2/2" in err and "TSNE iterations" in err and "250/250" in err and "objective" in err
    assert "UMAP memberships and union (5 passes over the rows)" in err and f"{5 * n:,}/{5 * n:,}" in err
    np.testing.assert_array_equal(shown, quiet)
