"""Supervised UMAP with umap-learn's discrete target metrics ('ordinal', 'count',
'string'): the distances, and the graph they reweight."""

import numpy as np
import pytest
from scipy.spatial import cKDTree
from scipy.stats import poisson
from sklearn.datasets import load_digits

from lowdim.embedding import UMAP
from lowdim.embedding._umap_graph import weaken_edges
from lowdim.embedding._umap_targets import discrete_edge_distances


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:400] + 1e-3 * np.random.default_rng(0).normal(size=(400, 64)), y[:400]


def _pairs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, 300), rng.integers(0, n, 300)


def _edit_distance(a, b):
    """Levenshtein's distance by the textbook table (insert, delete, substitute: 1 each)."""
    table = np.arange(len(b) + 1, dtype=float)
    for i, ca in enumerate(a, 1):
        row = [float(i)]
        for j, cb in enumerate(b, 1):
            row.append(min(table[j] + 1, row[j - 1] + 1, table[j - 1] + (ca != cb)))
        table = np.array(row)
    return table[-1]


def test_ordinal_distance_is_the_level_gap_over_half_the_range_at_any_scale_or_shift():
    levels = np.random.default_rng(0).integers(0, 9, 50)
    rows, cols = _pairs(50)
    d = discrete_edge_distances("ordinal", levels, rows, cols)
    np.testing.assert_allclose(d, np.abs(levels[rows] - levels[cols]) / ((levels.max() - levels.min()) / 2))
    np.testing.assert_allclose(discrete_edge_distances("ordinal", 7.0 * levels - 3.0, rows, cols), d)


def test_count_distance_sums_poisson_log_probabilities_between_the_counts():
    counts = np.random.default_rng(1).poisson(4.0, 80)
    rows, cols = _pairs(80, 1)
    rate = counts.mean()

    def span(lo, hi):  # the log-probabilities of the counts lo .. hi - 1
        return poisson.logpmf(np.arange(lo, hi), rate).sum()

    expected = [span(min(a, b), max(a, b)) for a, b in zip(counts[rows], counts[cols])]
    expected = np.array(expected) / (span(counts.min(), counts.max()) / 2)
    d = discrete_edge_distances("count", counts, rows, cols)
    np.testing.assert_allclose(d, expected, rtol=1e-10, atol=1e-12)
    assert np.all(d[counts[rows] == counts[cols]] == 0) and np.all(d >= 0)
    assert d.max() <= 2.0 + 1e-12  # the extreme counts are 2 apart
    with pytest.raises(ValueError, match=r"non-negative whole counts; y\[2\] = 1.5"):
        discrete_edge_distances("count", np.array([1.0, 2.0, 1.5]), rows[:1] % 3, cols[:1] % 3)


def test_string_distance_is_the_edit_distance_capped_at_a_third_of_the_longest():
    rng = np.random.default_rng(2)
    alphabet = list("abcé漢 ")
    words = np.array(["".join(rng.choice(alphabet, rng.integers(0, 13))) for _ in range(60)] + [""])
    rows, cols = _pairs(61, 2)
    cap = max(len(w) for w in words) / 3
    expected = [min(_edit_distance(words[i], words[j]), cap) / cap for i, j in zip(rows, cols)]
    np.testing.assert_allclose(discrete_edge_distances("string", words, rows, cols), expected)
    # object arrays of Python strings (what a DataFrame column gives) are the same
    np.testing.assert_allclose(discrete_edge_distances("string", words.astype(object), rows, cols), expected)


@pytest.mark.parametrize(
    ("metric", "target"),
    [
        ("ordinal", lambda y: y // 3),
        ("count", lambda y: y * 2),
        ("string", lambda y: np.array(["digit " + "i" * int(v) for v in y])),
    ],
)
def test_discrete_target_reweights_the_data_graphs_edges_as_umap_learn(digits, metric, target):
    X, y = digits
    t = target(y)
    plain = UMAP(random_state=0, n_epochs=30).fit(X)
    guided = UMAP(random_state=0, n_epochs=30, target_metric=metric, target_weight=0.5).fit(X, t)
    W = plain.graph_.tocoo()
    far = 2.5 / (1 - 0.5)
    expected = weaken_edges(W, np.exp(-far * discrete_edge_distances(metric, t, W.row, W.col)))
    np.testing.assert_allclose(guided.graph_.toarray(), expected.toarray(), rtol=1e-12, atol=1e-15)

    # edges between different targets lose weight: the map's neighbours share targets more often
    def shared(Y):  # the share of a point's 10 nearest in the map with its target
        _, idx = cKDTree(Y).query(Y, 11)
        return (t[idx[:, 1:]] == t[:, None]).mean()

    assert shared(guided.embedding_) > shared(plain.embedding_)


def test_discrete_targets_take_one_value_per_row(digits):
    X, y = digits
    with pytest.raises(ValueError, match=r"expected \(400,\), one label per sample"):
        UMAP(target_metric="count").fit(X, np.c_[y, y])
