"""Sparse input (text, counts, single-cell data) is used without densifying it and gives
what the same data as a dense array gives."""

import numpy as np
import pytest
import scipy.sparse as sp

import lowdim
from lowdim.neighbors import SparseIndex, make_index


@pytest.fixture(scope="module")
def counts():
    """Sparse non-negative weights (counts scaled by a per-entry factor, as tf-idf, so
    no two distances tie): 400 documents x 300 terms, about 5 % filled, in three
    topics (so there is structure to find)."""
    rng = np.random.default_rng(0)
    topics = rng.integers(0, 3, 400)
    profile = rng.random((3, 300)) ** 6
    dense = rng.poisson(4 * profile[topics] + 0.02) * rng.uniform(0.5, 1.5, size=(400, 300))
    return sp.csr_matrix(dense), dense, topics


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine"])
def test_sparse_index_matches_the_dense_one(counts, metric):
    S, D, _ = counts
    sparse_dist, sparse_idx = SparseIndex(metric).build(S).query(S, 8, exclude_self=True)
    dense_dist, dense_idx = make_index("exact", metric, len(D)).build(D).query(D, 8, exclude_self=True)
    np.testing.assert_allclose(sparse_dist, dense_dist, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(sparse_idx, dense_idx)
    with pytest.raises(ValueError, match="sparse input supports the metrics"):
        SparseIndex("manhattan")


def test_sparse_and_dense_searches_break_ties_alike():
    # small integers: many rows at exactly the k-th distance, where a partial selection
    # picks any of them
    X = np.random.default_rng(0).integers(0, 3, size=(300, 6)).astype(np.float64)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(D, np.inf)
    lowest = np.argsort(D, axis=1, kind="stable")[:, :10]
    for rows, index in ((sp.csr_matrix(X), SparseIndex()), (X, make_index("exact", "euclidean", len(X)))):
        np.testing.assert_array_equal(index.build(rows).query(rows, 10, exclude_self=True)[1], lowest)
    dense = lowdim.UMAP(n_neighbors=10, n_epochs=20, random_state=0).fit_transform(X)
    np.testing.assert_array_equal(
        lowdim.UMAP(n_neighbors=10, n_epochs=20, random_state=0).fit_transform(sp.csr_matrix(X)), dense
    )


def _formats(S):
    return [S.tocsr(), S.tocsc(), S.tocoo()]


def test_tsne_on_sparse_rows_uses_the_same_affinities(counts):
    from lowdim.embedding._affinities import neighbor_affinities

    S, D, topics = counts
    P_sparse = neighbor_affinities(S, 20.0, 60)[0]
    P_dense = neighbor_affinities(D, 20.0, 60)[0]
    assert abs(P_sparse - P_dense).max() < 1e-9
    for X in _formats(S):
        tsne = lowdim.TSNE(random_state=0, max_iter=400).fit(X)
        assert lowdim.metrics.knn_accuracy(tsne.embedding_, topics, n_neighbors=10, random_state=0) > 0.9
    assert tsne.transform(S[:5]).shape == (5, 2)


def test_umap_and_spectral_embedding_on_sparse_rows(counts):
    S, D, topics = counts
    umap = lowdim.UMAP(random_state=0, n_epochs=100).fit(S)
    assert abs(umap.graph_ - lowdim.UMAP(random_state=0, n_epochs=1).fit(D).graph_).max() < 1e-9
    assert lowdim.metrics.knn_accuracy(umap.embedding_, topics, n_neighbors=10, random_state=0) > 0.9
    assert umap.transform(S[:5]).shape == (5, 2)
    for affinity in ("nearest_neighbors", "rbf"):
        a = lowdim.SpectralEmbedding(affinity=affinity, gamma=1e-3, random_state=0).fit(S)
        b = lowdim.SpectralEmbedding(affinity=affinity, gamma=1e-3, random_state=0).fit(D)
        np.testing.assert_allclose(np.abs(a.embedding_), np.abs(b.embedding_), atol=1e-6)


@pytest.mark.parametrize("init", ["k-means++", "random", "k-means||"])
def test_kmeans_on_sparse_rows_equals_dense_lloyd(counts, init):
    from sklearn.cluster import KMeans as SkKMeans

    S, D, topics = counts
    for X in _formats(S):
        sparse = lowdim.KMeans(3, init=init, random_state=0).fit(X)
        assert sparse.algorithm_ == "lloyd"
    dense = lowdim.KMeans(3, init=sparse.cluster_centers_, algorithm="lloyd").fit(D)
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    start = D[[0, 1, 2]]
    ours = lowdim.KMeans(3, init=start, n_init=1).fit(S)
    theirs = SkKMeans(3, init=start, n_init=1, algorithm="lloyd").fit(S)
    np.testing.assert_allclose(ours.inertia_, theirs.inertia_, rtol=1e-10)
    np.testing.assert_array_equal(ours.predict(S), theirs.predict(S))
    np.testing.assert_allclose(ours.transform(S[:4]), theirs.transform(S[:4]), rtol=1e-9)
    assert lowdim.metrics.adjusted_rand_score(topics, ours.labels_) > 0.9


def test_minibatch_kmeans_on_sparse_rows_equals_dense(counts):
    S, D, _ = counts
    sparse = lowdim.MiniBatchKMeans(3, batch_size=64, random_state=0).fit(S)
    dense = lowdim.MiniBatchKMeans(3, batch_size=64, random_state=0).fit(D)
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-9, atol=1e-12)
    streamed = lowdim.MiniBatchKMeans(3, random_state=0)
    for start in range(0, 400, 100):
        streamed.partial_fit(
            S[start : start + 100] if start % 200 else D[start : start + 100]
        )  # sparse and dense mixed
    np.testing.assert_array_equal(streamed.predict(S), streamed.predict(D))


@pytest.mark.parametrize(
    "params", [{"solver": "cd"}, {"solver": "mu"}, {"solver": "mu", "beta_loss": "kullback-leibler"}]
)
def test_nmf_on_sparse_rows_equals_dense_from_the_same_start(counts, params):
    S, D, _ = counts
    rng = np.random.default_rng(0)
    W0, H0 = rng.random((400, 4)) + 0.1, rng.random((4, 300)) + 0.1
    sparse = lowdim.NMF(4, init="custom", max_iter=50, tol=0.0, **params)
    dense = lowdim.NMF(4, init="custom", max_iter=50, tol=0.0, **params)
    W_sparse = sparse.fit_transform(S, W=W0.copy(), H=H0.copy())
    W_dense = dense.fit_transform(D, W=W0.copy(), H=H0.copy())
    np.testing.assert_allclose(W_sparse, W_dense, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(sparse.reconstruction_err_, dense.reconstruction_err_, rtol=1e-10)
    np.testing.assert_allclose(sparse.transform(S[:5]), dense.transform(D[:5]), rtol=1e-6, atol=1e-10)
    assert lowdim.NMF(4, random_state=0, **params).fit(S).components_.shape == (4, 300)


def test_nmf_with_other_betas_densifies_and_refuses_negative_entries(counts):
    S, D, _ = counts  # beta 0.5 needs W H at every entry: the dense fit, as scikit-learn's
    sparse = lowdim.NMF(2, solver="mu", beta_loss=0.5, init="random", random_state=0).fit(S)
    dense = lowdim.NMF(2, solver="mu", beta_loss=0.5, init="random", random_state=0).fit(D)
    np.testing.assert_allclose(sparse.components_, dense.components_, rtol=1e-10)
    negative = S.copy()
    negative.data[3] = -1.0
    with pytest.raises(ValueError, match="Negative values"):
        lowdim.NMF(2).fit(negative)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid", "cosine"])
def test_kernel_pca_on_sparse_rows_equals_dense(counts, kernel):
    S, D, _ = counts
    sparse = lowdim.KernelPCA(4, kernel=kernel, gamma=1e-2, random_state=0).fit(S)
    dense = lowdim.KernelPCA(4, kernel=kernel, gamma=1e-2, random_state=0).fit(D)
    np.testing.assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    for a, b in ((S[:5], D[:5]), (D[:5], S[:5])):  # new rows sparse or dense, either model
        np.testing.assert_allclose(np.abs(sparse.transform(a)), np.abs(dense.transform(b)), rtol=1e-8, atol=1e-10)
    landmarks = lowdim.KernelPCA(4, kernel=kernel, gamma=1e-2, n_landmarks=100, random_state=0)
    np.testing.assert_allclose(
        np.abs(landmarks.fit(S).transform(S[:5])), np.abs(landmarks.fit(D).transform(D[:5])), rtol=1e-8, atol=1e-10
    )
    with pytest.raises(ValueError, match="pass a dense array"):
        lowdim.KernelPCA(2, kernel=kernel, fit_inverse_transform=True).fit(S)


def _repeated_entries(S):
    """``S`` with every stored entry split into two halves stored side by side, in
    reversed column order: a CSR matrix scipy reads as ``S`` (a repeated entry is the
    sum), as ``coo_matrix`` built from pieces or hand-made ``indptr`` arrays give."""
    coo = S.tocoo()
    rows = np.r_[coo.row, coo.row]
    order = np.lexsort((-np.r_[coo.col, coo.col], rows))
    data, cols = np.r_[coo.data, coo.data][order] / 2, np.r_[coo.col, coo.col][order]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=S.shape[0]))]
    return sp.csr_matrix((data, cols, indptr), shape=S.shape)


@pytest.mark.filterwarnings("ignore:KMeans.*zero variance")  # rare terms absent from these 120 rows
def test_repeated_and_unsorted_entries_are_read_as_scipy_reads_them(counts):
    """Kernels read each stored value once: a repeated entry was taken as two (KMeans
    put 298 of 300 rows in one cluster at zero inertia); it is summed first."""
    S = counts[0][:120]
    split = _repeated_entries(S)
    assert not split.has_canonical_format and np.array_equal(split.toarray(), S.toarray())
    kmeans = lowdim.KMeans(3, n_init=1, random_state=0)
    assert np.array_equal(kmeans.fit(split).labels_, kmeans.fit(S).labels_)
    assert kmeans.fit(split).inertia_ == pytest.approx(kmeans.fit(S).inertia_, rel=1e-12)
    dbscan = lowdim.DBSCAN(eps=float(np.median(sp.linalg.norm(S, axis=1))), min_samples=3)
    assert np.array_equal(dbscan.fit(split).labels_, dbscan.fit(S).labels_)
    pca = lowdim.PCA(3).fit(S)
    np.testing.assert_allclose(lowdim.PCA(3).fit(split).explained_variance_, pca.explained_variance_, rtol=1e-10)
    assert split.nnz == 2 * S.nnz  # the caller's matrix is left as it was


@pytest.mark.parametrize("name", ["UMAP", "TSNE", "SNE", "Isomap"])
def test_sparse_rows_with_a_metric_they_cannot_take_name_the_metrics_that_can(name):
    # the message said the method takes no sparse input at all, while it takes them by cosine
    X = sp.random(60, 12, density=0.3, random_state=0, format="csr")
    with pytest.raises(TypeError, match=f"{name} takes sparse rows with metric 'euclidean'.*got metric='manhattan'"):
        getattr(lowdim, name)(metric="manhattan").fit(X)


def test_sparse_new_rows_for_a_dense_metric_name_the_metrics_that_can():
    X = sp.random(60, 12, density=0.3, random_state=0, format="csr")
    model = lowdim.UMAP(metric="manhattan", n_epochs=20, random_state=0).fit(X.toarray())
    with pytest.raises(TypeError, match="UMAP takes sparse rows with metric.*got metric='manhattan'"):
        model.transform(X[:3])
