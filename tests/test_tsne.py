"""t-SNE: affinities, gradient strategies, optimiser, estimator."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from lowdim.embedding import (
    TSNE,
    BarnesHutRepulsion,
    ExactRepulsion,
    FFTRepulsion,
    conditional_probabilities,
    kl_divergence,
    neighbor_affinities,
)
from lowdim.embedding._gradients import attraction
from lowdim.metrics import knn_accuracy, trustworthiness


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:, X.std(axis=0) > 0], y  # drop the three constant pixels (they only warn)


def _gradient(P, Y, dof, repulsion):
    R, Z = repulsion(Y, dof)
    return 2 * (dof + 1) / dof * (attraction(P, Y, dof) - R / Z), Z


def _random_problem(n=40, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    P, _, _ = neighbor_affinities(X, 5.0, n - 1)
    return P, rng.normal(size=(n, d))


@pytest.mark.parametrize("dof", [1.0, 0.6, 3.0])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_exact_gradient_equals_finite_differences(dof, d):
    P, Y = _random_problem(d=d)
    grad, _ = _gradient(P, Y, dof, ExactRepulsion())

    def kl(Y):
        return kl_divergence(P, Y, dof, ExactRepulsion()(Y, dof)[1])

    eps = 1e-6
    numeric = np.zeros_like(Y)
    for i in range(Y.shape[0]):
        for a in range(d):
            up, down = Y.copy(), Y.copy()
            up[i, a] += eps
            down[i, a] -= eps
            numeric[i, a] = (kl(up) - kl(down)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def test_barnes_hut_and_fft_approach_the_exact_gradient():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(c, 1.0, (300, 10)) for c in (0, 4, 8)])
    P, _, _ = neighbor_affinities(X, 20.0, 61)
    Y = rng.normal(size=(900, 2)) * 10
    exact, z0 = _gradient(P, Y, 1.0, ExactRepulsion())
    scale = np.linalg.norm(exact)
    errors = {
        theta: np.linalg.norm(_gradient(P, Y, 1.0, BarnesHutRepulsion(theta))[0] - exact) / scale
        for theta in (0.8, 0.5, 0.2, 0.0)
    }
    assert errors[0.8] > errors[0.5] > errors[0.2] > errors[0.0] and errors[0.0] < 1e-12
    assert errors[0.5] < 0.05
    # FIt-SNE's default grid (3 nodes per unit-wide box) is a few per cent off; finer
    # grids converge to the exact gradient
    fft = {
        (p, w): _gradient(P, Y, 1.0, FFTRepulsion(n_interpolation_points=p, interval_width=w))
        for p, w in ((3, 1.0), (4, 0.5), (5, 0.25))
    }
    errors = [np.linalg.norm(g - exact) / scale for g, _ in fft.values()]
    assert errors[0] < 0.06 and errors[1] < 0.01 and errors[2] < 1e-3 and errors == sorted(errors, reverse=True)
    assert abs(fft[5, 0.25][1] / z0 - 1) < 1e-5


def test_fft_in_one_dimension_and_other_dof():
    Y = np.random.default_rng(2).normal(size=(400, 1)) * 8
    for dof in (1.0, 0.5, 4.0):
        R, Z = FFTRepulsion()(Y, dof)
        R0, Z0 = ExactRepulsion()(Y, dof)
        assert np.linalg.norm(R / Z - R0 / Z0) < 0.01 * np.linalg.norm(R0 / Z0) and abs(Z / Z0 - 1) < 1e-3


def test_affinities_have_the_requested_perplexity(digits):
    X, _ = digits
    from lowdim.neighbors import nearest_neighbors

    distances, _ = nearest_neighbors(X, 90)
    P, beta = conditional_probabilities(distances, 30.0)
    perplexity = np.exp(-(P * np.log(np.maximum(P, 1e-300))).sum(axis=1))
    np.testing.assert_allclose(perplexity, 30.0, rtol=1e-4)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    joint, _, _ = neighbor_affinities(X, 30.0, 90)
    assert abs(joint.sum() - 1) < 1e-12 and abs(joint - joint.T).max() == 0


@pytest.mark.parametrize("method", ["barnes_hut", "fft"])
def test_digits_quality(digits, method):
    X, y = digits
    model = TSNE(method=method, random_state=0).fit(X)
    Y = model.embedding_
    assert trustworthiness(X, Y, n_neighbors=10) >= 0.97
    assert knn_accuracy(Y, y, n_neighbors=10, random_state=0) >= 0.95
    assert model.method_ == method and model.n_iter_ == 1000 and model.kl_divergence_ < 1.0


def test_kl_decreases_and_callbacks_see_and_stop_the_run(digits):
    X, _ = digits
    seen = []

    def record(iteration, kl, state):
        if iteration % 50 == 0:
            seen.append((iteration, kl))

    TSNE(random_state=0, max_iter=600, method="barnes_hut", callbacks=[record]).fit(X[:800])
    after_exaggeration = [kl for it, kl in seen if it > 250]
    assert all(b <= a + 1e-3 for a, b in zip(after_exaggeration, after_exaggeration[1:]))
    assert after_exaggeration[-1] < after_exaggeration[0]
    stopped = TSNE(random_state=0, callbacks=[lambda it, kl, state: it == 40]).fit(X[:300])
    assert stopped.n_iter_ == 40


def test_same_seed_same_embedding_across_thread_counts(digits, machine_threads):
    import numba

    X, _ = digits
    a = TSNE(random_state=3, max_iter=300, method="fft").fit_transform(X[:600])
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        b = TSNE(random_state=3, max_iter=300, method="fft").fit_transform(X[:600])
    finally:
        numba.set_num_threads(previous)
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-7)
    np.testing.assert_array_equal(a, TSNE(random_state=3, max_iter=300, method="fft").fit_transform(X[:600]))


def test_transform_places_training_points_near_their_embedding(digits):
    X, y = digits
    model = TSNE(random_state=0, method="barnes_hut").fit(X[:1200])
    Z = model.transform(X[:200])
    span = np.ptp(model.embedding_, axis=0).max()
    moved = np.linalg.norm(Z - model.embedding_[:200], axis=1)
    assert np.median(moved) < 0.02 * span
    one_by_one = np.vstack([model.transform(X[i : i + 1]) for i in range(0, 200, 20)])
    np.testing.assert_allclose(one_by_one, Z[::20], rtol=1e-6, atol=1e-6)
    # unseen digits land among their own class
    W = model.transform(X[1200:1500])
    nearest = np.argmin(((W[:, None] - model.embedding_[None]) ** 2).sum(-1), axis=1)
    assert np.mean(y[:1200][nearest] == y[1200:1500]) > 0.9


def test_learning_rate_auto_and_small_data_perplexity():
    X = np.random.default_rng(0).normal(size=(31, 4))
    with pytest.warns(UserWarning, match="perplexity=30 is too large for 31 samples"):
        model = TSNE(random_state=0, max_iter=300).fit(X)
    assert model.perplexity_ == 10.0 and model.learning_rate_ == 50.0
    assert TSNE(learning_rate=7.0, max_iter=260).fit(X[:, :2] * 0 + X[:, :2]).learning_rate_ == 7.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # perplexity 1 is the floor: it was "lowered" to itself, with a warning
        assert TSNE(perplexity=1.0, random_state=0, max_iter=260).fit(X[:2]).perplexity_ == 1.0


@pytest.mark.parametrize("n", [2, 3, 5])
def test_tiny_constant_and_duplicate_data_give_finite_embeddings(n):
    rng = np.random.default_rng(0)
    small = n - 1.0  # the largest perplexity below the number of samples
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiny = TSNE(random_state=0, max_iter=300, perplexity=small).fit_transform(rng.normal(size=(n, 3)))
        constant = TSNE(random_state=0, max_iter=300, perplexity=small).fit_transform(np.ones((max(n, 4), 3)))
    assert np.isfinite(tiny).all() and np.isfinite(constant).all()
    with pytest.raises(ValueError, match=f"perplexity \\({n}\\) must be less than n_samples \\({n}\\)"):
        TSNE(perplexity=n).fit(rng.normal(size=(n, 3)))
    X = np.repeat(rng.normal(size=(20, 3)), 3, axis=0)
    with pytest.warns(UserWarning, match="60 samples have a duplicate"):
        Y = TSNE(random_state=0, perplexity=5, max_iter=300).fit_transform(X)
    assert np.isfinite(Y).all()


def test_user_init_is_checked():
    X = np.random.default_rng(0).normal(size=(50, 3))
    init = np.zeros((50, 2))
    init[4, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TSNE(init=init, perplexity=5).fit(X)
    with pytest.raises(ValueError, match=r"init has shape \(50, 3\)"):
        TSNE(init=np.zeros((50, 3)), perplexity=5).fit(X)
    with pytest.raises(ValueError, match='The parameter init="pca" cannot be used with metric="precomputed"'):
        TSNE(metric="precomputed", perplexity=5).fit(np.abs(X[:, :1] - X[:, :1].T))
    start = np.random.default_rng(1).normal(size=(50, 2))
    model = TSNE(init=start, perplexity=5, max_iter=1, early_exaggeration_iter=0).fit(X)
    assert np.linalg.norm(model.embedding_ - (start - start.mean(0))) < np.linalg.norm(start)


def test_precomputed_distances_match_features():
    X = np.random.default_rng(4).normal(size=(120, 5))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    P = neighbor_affinities(X, 10.0, 119)[0]
    assert sp.issparse(P) and abs(P - neighbor_affinities(D, 10.0, 119, metric="precomputed")[0]).max() < 1e-15
    # t-SNE amplifies rounding (1e-13 after 10 iterations, whole units after 100), so the
    # two runs are compared by what they preserve
    a = TSNE(perplexity=10, init="random", random_state=0).fit(X).embedding_
    b = TSNE(perplexity=10, init="random", random_state=0, metric="precomputed").fit(D).embedding_
    assert abs(trustworthiness(X, a, n_neighbors=5) - trustworthiness(X, b, n_neighbors=5)) < 0.02


def test_fit_transform_returns_the_fitted_embedding_without_a_transform(digits, monkeypatch):
    X = digits[0][:300]
    monkeypatch.setattr(TSNE, "transform", lambda self, X: pytest.fail("fit_transform called transform"))
    model = TSNE(random_state=0, max_iter=250)
    Y = model.fit_transform(X)
    assert Y is model.embedding_
    np.testing.assert_array_equal(Y, TSNE(random_state=0, max_iter=250).fit(X).embedding_)


def test_kl_divergence_falls_when_the_early_exaggeration_ends():
    """Momentum and gains built under exaggerated attraction are not carried into the
    main phase: there the (unexaggerated) KL divergence falls from the first steps."""
    from sklearn.datasets import load_iris

    from lowdim.embedding._affinities import neighbor_affinities

    X = load_iris().data
    X = X + 1e-6 * np.random.default_rng(0).normal(size=X.shape)  # no duplicate rows
    P = neighbor_affinities(X, 30.0, X.shape[0] - 1)[0].toarray()
    snapshots = {}

    def keep(iteration, objective, state):
        if iteration in (250, 255, 260, 270, 300):
            snapshots[iteration] = state.Y.copy()
        return False

    TSNE(2, method="exact", random_state=0, callbacks=[keep]).fit(X)

    def kl(Y):
        W = 1.0 / (1.0 + np.square(Y[:, None, :] - Y[None, :, :]).sum(-1))
        np.fill_diagonal(W, 0.0)
        Q = W / W.sum()
        mask = P > 0
        return float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))

    curve = [kl(snapshots[i]) for i in (250, 255, 260, 270, 300)]
    assert all(b < a for a, b in zip(curve, curve[1:])), curve


@pytest.mark.parametrize("metric, params", [("manhattan", None), ("minkowski", {"p": 3}), ("correlation", None)])
def test_other_metrics_build_affinities_from_their_neighbors(metric, params):
    from scipy.spatial.distance import cdist
    from sklearn.datasets import load_digits

    from lowdim.metrics import trustworthiness

    X = load_digits().data[:400] + 1e-3 * np.random.default_rng(0).normal(size=(400, 64))
    tsne = TSNE(metric=metric, metric_params=params, method="barnes_hut", random_state=0, max_iter=500).fit(X)
    assert trustworthiness(X, tsne.embedding_, n_neighbors=10) > 0.95
    # the neighbour index is the metric's: a training point's nearest is its nearest in that metric
    D = cdist(X[:5], X, {"manhattan": "cityblock"}.get(metric, metric), **(params or {}))
    dist, idx = tsne._index.query(X[:5], 1)
    np.testing.assert_array_equal(idx[:, 0], np.argmin(D, axis=1))


def test_n_iter_without_progress_minus_one_stops_at_the_first_check_without_progress():
    X = np.random.default_rng(0).normal(size=(120, 5))
    patient = TSNE(random_state=0, method="exact", max_iter=1000).fit(X)
    hasty = TSNE(random_state=0, method="exact", max_iter=1000, n_iter_without_progress=-1).fit(X)
    assert hasty.n_iter_ <= patient.n_iter_ and hasty.n_iter_ < 1000


def test_the_stages_build_a_map_by_hand_and_continue_a_fitted_one():
    from sklearn.datasets import load_digits

    from lowdim.embedding import (
        BarnesHutRepulsion,
        Phase,
        StudentObjective,
        descend,
        initial_embedding,
        neighbor_affinities,
    )

    X = load_digits().data[:500].astype(np.float64)
    P, _, _ = neighbor_affinities(X, 30.0, 91)  # 3 x perplexity + 1 neighbours, as TSNE
    Y = initial_embedding("pca", X, P, 2, np.random.default_rng(0))
    objective = StudentObjective(P, BarnesHutRepulsion(0.5), 1.0)
    start = objective.final(Y)
    descend(Y, objective.gradient, objective.value, [Phase(250, 12.0, 0.5), Phase(300, 1.0, 0.8)], 50.0)
    by_hand = objective.final(Y)
    assert by_hand < 0.5 * start
    fitted = TSNE(random_state=0, max_iter=550).fit(X)
    assert abs(by_hand - fitted.kl_divergence_) < 0.1  # the same problem, the same optimum quality
    # continuing the fitted map lowers its KL divergence further (or keeps it)
    Y = fitted.embedding_.astype(np.float64)
    before = objective.final(Y)
    descend(Y, objective.gradient, objective.value, [Phase(200, 1.0, 0.8)], 50.0)
    assert objective.final(Y) <= before + 1e-3


def test_parameter_relations_are_refused_before_the_data_are_read_in_scikit_learns_words():
    not_square = np.array([[0.0], [1.0]])  # would fail the square check if it were read
    with pytest.raises(ValueError, match='The parameter init="pca" cannot be used with metric="precomputed"'):
        TSNE(metric="precomputed", init="pca").fit(not_square)
    with pytest.raises(ValueError, match="'n_components' should be inferior to 4 for the barnes_hut algorithm"):
        TSNE(n_components=4, method="barnes_hut").fit(not_square)
    with pytest.raises(ValueError, match=r"All distances should be positive.*X has negative entries"):
        TSNE(metric="precomputed", init="random").fit(np.array([[0.0, -1.0], [-1.0, 0.0]]))


def test_verbose_lines_carry_the_error_and_gradient_norm_as_scikit_learn_prints_them(capsys):
    X = np.random.default_rng(0).normal(size=(60, 3))
    model = TSNE(verbose=2, random_state=0, method="exact", max_iter=400).fit(X)
    lines = [line for line in capsys.readouterr().out.splitlines() if "Iteration" in line]
    errors = [float(line.split("error = ")[1].split(",")[0]) for line in lines if "error = " in line]
    norms = [float(line.split("gradient norm = ")[1].split(" ")[0]) for line in lines if "error = " in line]
    assert len(errors) == len(norms) >= 2 and model.kl_divergence_ < errors[0]


def test_a_stalled_descent_says_so_in_scikit_learns_words(capsys):
    from lowdim.embedding import Phase, descend

    # an objective that never falls stalls at the second check, whatever the arithmetic
    Y = np.zeros((4, 2))
    state = descend(
        Y,
        lambda Y, e: (np.ones_like(Y), None),
        lambda Y, aux: 1.0,
        [Phase(400, 1.0, 0.5)],
        1.0,
        n_iter_without_progress=2,
        n_iter_check=50,
        verbose=2,
        label="TSNE",
    )
    lines = capsys.readouterr().out.splitlines()
    assert state.iteration == 100
    assert lines[-1] == "[TSNE] Iteration 100: did not make any progress during the last 2 episodes. Finished."
