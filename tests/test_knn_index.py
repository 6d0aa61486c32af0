"""The KNNIndex extension point: a user's own neighbour search, accepted by every method
that uses neighbours."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

import lowdim
from lowdim.metrics import trustworthiness
from lowdim.neighbors import (
    ExactIndex,
    HNSWIndex,
    KNNIndex,
    PairwiseIndex,
    SparseIndex,
    kneighbors_graph,
    nearest_neighbors,
)

X = load_digits().data[:300] / 16.0


class BruteForce(KNNIndex):
    """All distances at once, counting the queries it answers."""

    metrics = ("euclidean",)
    queries = 0

    def _build(self, X):
        self.X_ = np.asarray(X, dtype=np.float64)

    def query(self, Q, k, *, exclude_self=False):
        type(self).queries += 1
        Q = np.asarray(Q, dtype=np.float64)
        D = np.sqrt(np.maximum(((Q[:, None, :] - self.X_[None]) ** 2).sum(-1), 0.0))
        if exclude_self:
            np.fill_diagonal(D, np.inf)
        idx = np.argsort(D, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(D, idx, axis=1), idx


def test_lowdim_indexes_implement_the_interface():
    for cls in (ExactIndex, HNSWIndex, PairwiseIndex, SparseIndex):
        assert issubclass(cls, KNNIndex) and cls.metrics
    with pytest.raises(TypeError, match="abstract"):
        KNNIndex()


def test_functions_use_the_given_index():
    D, idx = nearest_neighbors(X, 5, algorithm=BruteForce())
    D_ref, idx_ref = nearest_neighbors(X, 5, algorithm="exact")
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_allclose(D, D_ref, rtol=1e-10)
    G = kneighbors_graph(X, 5, index=BruteForce())
    assert abs(G - kneighbors_graph(X, 5)).max() < 1e-10


@pytest.mark.parametrize(
    "make",
    [
        lambda a: lowdim.Isomap(n_neighbors=8, neighbors_algorithm=a),
        lambda a: lowdim.SpectralEmbedding(n_neighbors=8, neighbors_algorithm=a, random_state=0),
        lambda a: lowdim.LocallyLinearEmbedding(n_neighbors=12, neighbors_algorithm=a, random_state=0),
    ],
    ids=["Isomap", "SpectralEmbedding", "LLE"],
)
def test_deterministic_methods_give_the_exact_result_through_a_user_index(make):
    before = BruteForce.queries
    ours = make(BruteForce()).fit_transform(X)
    assert BruteForce.queries > before  # the user's search answered
    ref = make("exact").fit_transform(X)
    np.testing.assert_allclose(np.abs(ours), np.abs(ref), atol=1e-6)  # up to sign


@pytest.mark.parametrize("name", ["TSNE", "UMAP"])
def test_neighbor_embeddings_run_on_a_user_index(name):
    index = BruteForce()
    before = BruteForce.queries
    est = getattr(lowdim, name)(n_components=2, neighbors_algorithm=index, random_state=0)
    if name == "TSNE":
        est.set_params(perplexity=10, max_iter=300)
    Y = est.fit_transform(X)
    assert BruteForce.queries > before
    assert not hasattr(index, "X_")  # the estimator built its own copy
    assert trustworthiness(X, Y, n_neighbors=5) > 0.9


def test_index_metric_must_match_and_custom_index_models_are_not_saved(tmp_path):
    with pytest.raises(ValueError, match="has metric 'euclidean', but metric='cosine'"):
        lowdim.UMAP(metric="cosine", neighbors_algorithm=BruteForce()).fit(X)
    with pytest.raises(ValueError, match="supports metric 'euclidean'; got 'cosine'"):
        BruteForce("cosine")
    model = lowdim.Isomap(n_neighbors=8, neighbors_algorithm=BruteForce()).fit(X)
    with pytest.raises(TypeError, match="cannot save parameter neighbors_algorithm"):
        lowdim.save(model, tmp_path / "isomap.lowdim")
