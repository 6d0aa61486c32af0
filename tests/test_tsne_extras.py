"""openTSNE's conveniences in TSNE: uniform and multiscale affinities (as defined),
exaggeration in the main phase, and continuing the descent of a fitted map."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from lowdim import TSNE, load
from lowdim import save as save_model
from lowdim.embedding import conditional_probabilities, joint_probabilities
from lowdim.neighbors import nearest_neighbors


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:500, load_digits().data.std(axis=0) > 0], y[:500]


def fitted(X, **params):
    params = {"random_state": 0, "max_iter": 300, "neighbors_algorithm": "exact", **params}
    return TSNE(**params).fit(X)


def test_uniform_affinities_weigh_each_of_k_neighbours_equally(digits):
    X, _ = digits
    model = fitted(X, affinity="uniform", perplexity=12.0)
    _, idx = nearest_neighbors(X, 12, algorithm="exact")
    expected = joint_probabilities(idx, np.full(idx.shape, 1 / 12), len(X))
    assert abs(model.affinities_ - expected).max() < 1e-7
    assert model.affinities_.getnnz(axis=1).min() >= 12


def test_multiscale_affinities_average_the_gaussians(digits):
    X, _ = digits
    model = fitted(X, affinity="multiscale", perplexities=(5, 20), method="barnes_hut")
    assert model.perplexities_ == (5.0, 20.0)
    d, idx = nearest_neighbors(X, 61, algorithm="exact")  # 3 x the largest + 1
    mixed = (conditional_probabilities(d, 5.0)[0] + conditional_probabilities(d, 20.0)[0]) / 2
    expected = joint_probabilities(idx, mixed, len(X))
    assert abs(model.affinities_ - expected).max() < 1e-5 * expected.max()  # float32 affinities
    assert model.transform(X[:5]).shape == (5, 2)


def test_exaggeration_in_the_main_phase_tightens_clusters(digits):
    X, y = digits

    def tightness(Y):
        centres = np.array([Y[y == c].mean(0) for c in range(10)])
        within = np.mean([np.linalg.norm(Y[y == c] - centres[c], axis=1).mean() for c in range(10)])
        between = np.mean(np.linalg.norm(centres[:, None] - centres[None], axis=-1)[np.triu_indices(10, 1)])
        return within / between

    plain, exaggerated = fitted(X).embedding_, fitted(X, exaggeration=4.0).embedding_
    assert tightness(exaggerated) < 0.7 * tightness(plain)


def test_optimize_continues_the_descent(digits, tmp_path):
    X, _ = digits
    model = fitted(X, max_iter=260)  # 10 iterations after early exaggeration: far from done
    before, kl_before = model.embedding_.copy(), model.kl_divergence_
    model.optimize(300)
    assert model.n_iter_ == 560 and model.kl_divergence_ < kl_before
    assert not np.allclose(model.embedding_, before)
    # the affinities travel with the model: a loaded map continues too
    save_model(model, tmp_path / "tsne.lowdim")
    loaded = load(tmp_path / "tsne.lowdim")
    assert sp.issparse(loaded.affinities_)
    np.testing.assert_allclose(loaded.optimize(50).embedding_, model.optimize(50).embedding_)
    with pytest.raises(ValueError, match="n_iter must be a positive integer; got 0"):
        model.optimize(0)


def test_a_precomputed_neighbour_graph_gives_the_same_map(digits):
    X, _ = digits
    d, idx = nearest_neighbors(X, 91, algorithm="exact")  # 3 x 30 + 1
    rows = np.arange(len(X))[:, None]
    knn = (np.hstack([rows, idx]), np.hstack([np.zeros((len(X), 1)), d]))
    searched = fitted(X, method="barnes_hut")
    given = fitted(X, method="barnes_hut", precomputed_knn=knn)
    assert abs(given.affinities_ - searched.affinities_).max() == 0
    np.testing.assert_array_equal(given.embedding_, searched.embedding_)
    assert given.transform(X[:3]).shape == (3, 2)  # the index for new points is built when needed
    with pytest.raises(ValueError, match="precomputed_knn describes 5 points but X has 500 rows"):
        fitted(X, precomputed_knn=(knn[0][:5], knn[1][:5]))
