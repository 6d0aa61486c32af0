"""UMAP.update: rows added to a fitted map land among their kind, the old map stays
put, and the model afterwards is one fitted on all the rows."""

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

from lowdim import UMAP, load, save
from lowdim.metrics import knn_accuracy


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(X))
    return X[order], y[order]


@pytest.fixture(scope="module")
def updated(digits):
    X, _ = digits
    model = UMAP(random_state=0, n_epochs=200).fit(X[:1200])
    before = model.embedding_.copy()
    return model.update(X[1200:]), before


def test_update_makes_a_model_of_all_the_rows(digits, updated):
    X, _ = digits
    model, _ = updated
    assert model.embedding_.shape == (1797, 2) and model.graph_.shape == (1797, 1797)
    np.testing.assert_array_equal(model.X_fit_, X)
    assert model.transform(X[:3]).shape == (3, 2)  # the index covers every row now


def test_new_rows_land_among_their_kind_and_the_old_map_stays(digits, updated):
    _, y = digits
    model, before = updated
    Y = model.embedding_
    # each new point's nearest old points in the map carry its label
    old, new = Y[:1200], Y[1200:]
    nearest = np.argsort(((new[:, None] - old[None]) ** 2).sum(-1), axis=1)[:, :10]
    votes = np.array([np.bincount(y[:1200][row], minlength=10).argmax() for row in nearest])
    assert (votes == y[1200:]).mean() > 0.9
    assert knn_accuracy(Y, y, n_neighbors=10, random_state=0) > 0.95
    # the old points keep their arrangement: Procrustes disparity (1 - R^2 after the
    # best rotation and scaling) between their positions before and after
    _, _, disparity = procrustes(before, Y[:1200])
    assert disparity < 0.03
    # a larger step lets the map rearrange more
    X, _ = digits
    model = UMAP(random_state=0, n_epochs=200).fit(X[:1200])
    freer = model.update(X[1200:], learning_rate=1.0).embedding_
    assert procrustes(before, freer[:1200])[2] > disparity


def test_a_model_fitted_from_a_graph_searches_the_new_rows(digits):
    from lowdim.neighbors import NeighborGraph

    X, _ = digits
    graph = NeighborGraph.build(X[:500], 14)
    model = UMAP(n_epochs=30, random_state=0, precomputed_knn=graph).fit(X[:500]).update(X[500:600])
    assert model.embedding_.shape == (600, 2) and model.graph_.shape == (600, 600)


def test_update_refuses_models_it_cannot_extend(digits):
    X, y = digits
    with pytest.raises(ValueError, match="fitted with a supervised fit"):
        UMAP(n_epochs=20, random_state=0).fit(X[:300], y[:300]).update(X[300:400])
    with pytest.raises(ValueError, match="fitted with unique=True"):
        UMAP(n_epochs=20, random_state=0, unique=True).fit(X[:300]).update(X[300:400])
    D = np.sqrt(((X[:300, None] - X[None, :300]) ** 2).sum(-1))
    with pytest.raises(ValueError, match="fitted with metric='precomputed'"):
        UMAP(n_epochs=20, random_state=0, metric="precomputed").fit(D).update(D[:10])
    with pytest.raises(ValueError, match="features"):
        UMAP(n_epochs=20, random_state=0).fit(X[:300]).update(X[300:400, :10])


def test_a_loaded_model_updates_as_the_fitted_one(tmp_path, digits):
    X, _ = digits
    model = UMAP(random_state=0, n_epochs=50).fit(X[:500])
    save(model, tmp_path / "m.lowdim")
    loaded = load(tmp_path / "m.lowdim")
    np.testing.assert_allclose(loaded.update(X[500:600]).embedding_, model.update(X[500:600]).embedding_)
