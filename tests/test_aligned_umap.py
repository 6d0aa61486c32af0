"""AlignedUMAP on umap-learn's sliding-window digits: consecutive maps agree on their
shared rows, each map is still a faithful UMAP of its window."""

import inspect

import numpy as np
import pytest
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

from lowdim import UMAP, AlignedUMAP
from lowdim.embedding._aligned_umap import related_pairs
from lowdim.metrics import trustworthiness


def sliding_digits():
    """umap-learn's example: the digits ordered by ink, windows of 400 rows 150 apart."""
    X = load_digits().data
    X = X[np.argsort(X.sum(axis=1), kind="stable")]
    slices = [X[150 * i : 150 * i + 400] for i in range(10)]
    relations = [{i + 150: i for i in range(250)} for _ in range(9)]
    return slices, relations


def consecutive_disparity(maps, relations):
    """Mean Procrustes disparity (1 - R^2 after the best rotation and scale) between
    the shared rows of consecutive maps."""
    values = []
    for t, rel in enumerate(relations):
        rows, partners = np.array(list(rel)), np.array(list(rel.values()))
        values.append(procrustes(maps[t][rows], maps[t + 1][partners])[2])
    return float(np.mean(values))


@pytest.fixture(scope="module")
def aligned():
    slices, relations = sliding_digits()
    model = AlignedUMAP(random_state=0).fit(slices, relations=relations)
    return model, slices, relations


def test_consecutive_maps_agree_on_their_shared_rows(aligned):
    model, slices, relations = aligned
    apart = [UMAP(random_state=0).fit_transform(X) for X in slices]
    together = consecutive_disparity(model.embeddings_, relations)
    alone = consecutive_disparity(apart, relations)
    # umap-learn's AlignedUMAP on these windows: 0.0080 (BENCHMARKS.md)
    assert together < 0.0085 and together < 0.05 * alone, (together, alone)


def test_each_map_stays_a_faithful_umap(aligned):
    model, slices, _ = aligned
    for X, Y in zip(slices, model.embeddings_):
        assert Y.shape == (400, 2) and trustworthiness(X, Y, n_neighbors=10) > 0.93
    assert model.n_models_ == 10 and len(model.mappers_) == 10
    # each dataset's mapper places new rows in its aligned map
    placed = model.mappers_[3].transform(slices[3][:5])
    assert np.linalg.norm(placed - model.embeddings_[3][:5], axis=1).max() < 2.0


def test_update_adds_an_aligned_map_and_leaves_the_others(aligned):
    model, slices, relations = aligned
    first = AlignedUMAP(n_neighbors=[10, 10, 10], random_state=0, n_epochs=100).fit(slices[:3], relations=relations[:2])
    before = [Y.copy() for Y in first.embeddings_]
    given = list(relations[:2])
    first.update(slices[3], relations=relations[2], n_neighbors=10)
    assert len(first.embeddings_) == 4 and first.n_models_ == 4 and len(given) == 2
    assert first.n_neighbors == [10, 10, 10]  # the constructor's list is not extended
    for old, new in zip(before, first.embeddings_):
        np.testing.assert_array_equal(old, new)
    # the new map agrees with the one before on their shared rows as the fitted ones do
    added = consecutive_disparity(first.embeddings_[2:], relations[2:3])
    fitted = consecutive_disparity(first.embeddings_[:3], relations[:2])
    alone = consecutive_disparity([first.embeddings_[2], UMAP(random_state=0).fit_transform(slices[3])], relations[2:3])
    assert added < 0.1 * alone and added < 3 * fitted + 0.005, (added, fitted, alone)
    assert trustworthiness(slices[3], first.embeddings_[3], n_neighbors=10) > 0.93
    with pytest.raises(ValueError, match="pass update\\(n_neighbors=...\\)"):
        first.update(slices[4], relations=relations[3])


def test_per_dataset_parameters_and_the_window():
    slices, relations = sliding_digits()
    model = AlignedUMAP(n_neighbors=[10] * 3, n_epochs=30, random_state=0).fit(slices[:3], relations=relations[:2])
    assert [m.n_neighbors for m in model.mappers_] == [10, 10, 10]
    pairs = related_pairs(relations[:2], [400, 400, 400], 3)
    # rows 300..399 of the first window are rows 0..99 of the third
    np.testing.assert_array_equal(pairs[(0, 2)][0], np.arange(300, 400))
    np.testing.assert_array_equal(pairs[(0, 2)][1], np.arange(100))
    assert set(related_pairs(relations[:2], [400, 400, 400], 2)) == {(0, 1), (1, 1)}
    assert set(related_pairs(relations[:2], [400, 400, 400], 1)) == {(0, 1), (1, 1)}


def test_bad_sequences_are_refused_with_the_fix():
    slices, relations = sliding_digits()
    with pytest.raises(ValueError, match="needs relations between consecutive datasets: 2 dicts for 3 datasets"):
        AlignedUMAP().fit(slices[:3], relations=relations[:1])
    with pytest.raises(ValueError, match="relations\\[0\\] maps row 500 to row 0, outside"):
        AlignedUMAP().fit(slices[:2], relations=[{500: 0}])
    with pytest.raises(ValueError, match="n_neighbors lists 2 values for 3 datasets"):
        AlignedUMAP(n_neighbors=[10, 10]).fit(slices[:3], relations=relations[:2])
    with pytest.raises(ValueError, match="a list of at least 2 datasets"):
        AlignedUMAP().fit(slices[0], relations=[])


# umap-learn's AlignedUMAP parameters lowdim does not take, and why
MISSING = {
    "low_memory": "pynndescent's memory/speed switch; lowdim's searches have no such mode",
    "transform_queue_size": "pynndescent's search queue; lowdim's transform queries its own index",
    "angular_rp_forest": "pynndescent's random-projection forest; not used by lowdim",
    "unique": "relations name the rows as given; merging duplicate rows would renumber them",
}


def _umap_learns_aligned_parameters():
    """umap-learn's ``AlignedUMAP.__init__`` parameters and defaults, read from its
    source: importing umap-learn compiles its numba kernels (half a minute on a fresh
    machine) for a signature."""
    import ast
    import importlib.util
    import pathlib

    source = pathlib.Path(importlib.util.find_spec("umap").origin).with_name("aligned_umap.py").read_text()
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "AlignedUMAP")
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__").args
    positional = [a.arg for a in init.args[1:]]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(init.defaults)) + init.defaults
    # a keyword-only parameter without a default has None in kw_defaults
    keyword = [(a.arg, inspect.Parameter.empty if d is None else d) for a, d in zip(init.kwonlyargs, init.kw_defaults)]
    return {
        name: d if d is inspect.Parameter.empty else ast.literal_eval(d)
        for name, d in [*zip(positional, defaults), *keyword]
    }


def test_constructor_takes_umap_learns_parameters_and_defaults():
    ours = {k: p.default for k, p in inspect.signature(AlignedUMAP.__init__).parameters.items() if k != "self"}
    theirs = _umap_learns_aligned_parameters()
    assert {p for p in theirs if p not in ours} == set(MISSING)
    assert {p for p in theirs if p in ours and ours[p] != theirs[p]} == set()


def test_supervised_maps_take_one_label_array_per_dataset():
    X, y = load_digits(return_X_y=True)
    slices, labels = [X[:300], X[150:450]], [y[:300], y[150:450]]
    relations = [{i + 150: i for i in range(150)}]
    maps = AlignedUMAP(n_epochs=50, random_state=0).fit_transform(slices, labels, relations=relations)
    assert [m.shape for m in maps] == [(300, 2), (300, 2)]
    with pytest.raises(ValueError, match="one label array per dataset \\(2\\); got 1"):
        AlignedUMAP().fit(slices, labels[:1], relations=relations)


def test_zero_variance_columns_are_one_warning_for_the_sequence_at_the_users_line():
    # digits windows each hold a few blank pixels, different ones: one warning per window
    # (ten for the guide's example) told the same thing ten times
    import warnings

    X = load_digits().data
    windows = [X[100 * i : 100 * i + 150] for i in range(4)]
    relations = [{j + 100: j for j in range(50)} for _ in range(3)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        AlignedUMAP(n_epochs=10, random_state=0).fit(windows, relations=relations)
    constant = [w for w in caught if "zero variance" in str(w.message)]
    assert len(constant) == 1, [str(w.message) for w in constant]
    message = str(constant[0].message)
    assert message.startswith("AlignedUMAP: 4 of the 4 datasets have features of zero variance (dataset 0: columns 0")
    assert constant[0].filename == __file__
