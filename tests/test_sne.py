"""SNE (Gaussian output kernel), asymmetric and symmetric."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from lowdim.embedding import SNE, TSNE, GaussianObjective, neighbor_affinities
from lowdim.metrics import knn_accuracy, trustworthiness


@pytest.mark.parametrize("symmetric", [True, False])
def test_gradient_equals_finite_differences(symmetric):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    P, _, _ = neighbor_affinities(X, 5.0, 15, joint=symmetric)
    objective = GaussianObjective(P if symmetric else P / 30, symmetric)
    Y = rng.normal(size=(30, 2))
    grad, _ = objective.gradient(Y, 1.0)
    eps = 1e-6
    numeric = np.zeros_like(Y)
    for i in range(30):
        for a in range(2):
            up, down = Y.copy(), Y.copy()
            up[i, a] += eps
            down[i, a] -= eps
            numeric[i, a] = (objective.final(up) - objective.final(down)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-9)


def test_asymmetric_kl_is_the_mean_of_per_point_divergences():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(25, 3)), rng.normal(size=(25, 2))
    C, _, _ = neighbor_affinities(X, 4.0, 24, joint=False)
    Cd = C.toarray()
    E = np.exp(-((Y[:, None] - Y[None]) ** 2).sum(-1))
    np.fill_diagonal(E, 0)
    Q = E / E.sum(axis=1, keepdims=True)
    mask = Cd > 0
    expected = np.sum(Cd[mask] * np.log(Cd[mask] / Q[mask])) / 25
    # float32 affinities: their rows sum to one within float32 rounding
    assert abs(GaussianObjective(C / 25, False).final(Y) - expected) < 1e-7


@pytest.mark.parametrize("variant", ["asymmetric", "symmetric"])
def test_sne_embeds_digits_but_crowds_more_than_tsne(variant):
    X, y = load_digits(return_X_y=True)
    X, y = X[:800, X.std(axis=0) > 0], y[:800]
    seen = []
    model = SNE(
        variant=variant,
        random_state=0,
        max_iter=600,
        callbacks=[lambda it, kl, state: seen.append(kl) if it % 50 == 0 and it >= 250 else None],
    ).fit(X)
    Y = model.embedding_
    assert np.isfinite(Y).all() and model.method_ == "exact"
    assert knn_accuracy(Y, y, n_neighbors=10, random_state=0) > 0.85
    assert all(b <= a + 1e-4 for a, b in zip(seen, seen[1:])) and model.kl_divergence_ <= seen[0] + 1e-4
    tsne = TSNE(random_state=0, max_iter=600).fit_transform(X)
    assert trustworthiness(X, Y, n_neighbors=10) < trustworthiness(X, tsne, n_neighbors=10)
