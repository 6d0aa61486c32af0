"""One suite over every public estimator of lowdim (docs/reliability.md, array rows).

Estimators are discovered from ``lowdim.__all__``: every class added there is covered
by scikit-learn's checks, the bad-input matrix, save/load, float32 preservation and
"input not modified" without touching this file.
"""

import inspect
import warnings

import numpy as np
import pytest
from estimator_args import required_args
from sklearn.base import BaseEstimator, ClusterMixin, clone, is_classifier
from sklearn.exceptions import NotFittedError

import lowdim

# Estimators that fit something other than one array, with where they are tested.
NOT_ONE_ARRAY = {
    "AlignedUMAP": "fits a list of datasets with relations between them; each dataset's map is a "
    "UMAP (covered here), the sequence is tested in tests/test_aligned_umap.py",
}
# Estimators with a required argument (SparseCoder's atoms): given for 5 columns, the
# width of the suite's data, and set again by _fit for data of another width.
REQUIRED = {"SparseCoder"}
# Estimators that read tables of categories (every number a category code, or numbers beside
# categories): scikit-learn's checks apply, the numeric bad-input matrix does not (a number
# is a level, a gap a category of its own). Their promises are tested in tests/test_factorial.py.
READS_CATEGORIES = {"MCA", "FAMD", "KPrototypes", "KModes"}
# A contingency table (CA): a column of equal counts is a profile like any other, not a
# feature without variance; identical rows are refused (tests/test_factorial.py).
COUNT_TABLES = {"CA"}


def _default(cls):
    """An instance with its defaults (and the suite's value of a required argument)."""
    return cls(**required_args(cls.__name__, 5))


def _public_estimators():
    found = []
    for name in lowdim.__all__:
        obj = getattr(lowdim, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and name not in NOT_ONE_ARRAY:
            found.append(obj)
    return found


ESTIMATORS = _public_estimators()
IDS = [cls.__name__ for cls in ESTIMATORS]
NUMERIC = [cls for cls in ESTIMATORS if cls.__name__ not in READS_CATEGORIES]
NUMERIC_IDS = [cls.__name__ for cls in NUMERIC]


# What the common checks must know about each estimator (scikit-learn keeps the same kind
# of table beside its checks, not in the estimators).
# Fitted by iteration to a tolerance: runs agree to about that tolerance, not to rounding.
ITERATIVE = {
    "AutoEncoder",
    "BayesianGaussianMixture",
    "DictionaryLearning",
    "MiniBatchDictionaryLearning",
    "SparsePCA",
    "MiniBatchSparsePCA",
    "FactorAnalysis",
    "FastICA",
    "GaussianMixture",
    "KMeans",
    "KMedoids",
    "MDS",
    "MatrixFactorization",
    "MaximumVarianceUnfolding",
    "MiniBatchKMeans",
    "MiniBatchNMF",
    "NMF",
    "PaCMAP",
    "ParametricTSNE",
    "ParametricUMAP",
    "ProbabilisticPCA",
    "SNE",
    "TSNE",
    "UMAP",
}
# Chaotic: a difference in the last bit of the input grows to whole units of the output
# (the autoencoder: float32 training steps from a last-bit difference in the scaled data).
AMPLIFIES_ROUNDING = {"PaCMAP", "SNE", "TSNE", "UMAP", "TriMap", "AutoEncoder", "ParametricUMAP", "ParametricTSNE"}
# Seeded draws that follow the rows' order (PHATE's SGD visits the pairs by index, its
# landmark k-means samples rows; the autoencoder's held-out rows and batches and parametric
# UMAP's and t-SNE's edges are drawn by position): permuted rows are another draw of the same
# structure.
ROW_ORDER_DRAWS = {"PHATE", "AutoEncoder", "ParametricUMAP", "ParametricTSNE"}
# The largest n_components: bounded by the points ('samples'), or unbounded ('none': an
# overcomplete factorisation is valid; 'projection': a random matrix needs only the shape,
# more outputs than features is warned); min(n_samples, n_features) otherwise.
COMPONENTS_LIMIT = {
    "Isomap": "samples",
    "LocallyLinearEmbedding": "samples",
    "MDS": "samples",
    "MaximumVarianceUnfolding": "samples",
    "SNE": "samples",
    "SpectralEmbedding": "samples",
    "DiffusionMap": "samples",
    "PHATE": "samples",
    "TSNE": "samples",
    "UMAP": "samples",
    "ParametricUMAP": "samples",
    "ParametricTSNE": "samples",
    "NMF": "none",
    "MiniBatchNMF": "none",
    "DictionaryLearning": "none",
    "MiniBatchDictionaryLearning": "none",
    "SparsePCA": "none",
    "MiniBatchSparsePCA": "none",
    "GaussianRandomProjection": "projection",
    "SparseRandomProjection": "projection",
}
# No mean is removed: the first factor (or every random direction) carries any offset.
UNCENTERED = {
    "MatrixFactorization",
    "NMF",
    "MiniBatchNMF",
    "DictionaryLearning",
    "MiniBatchDictionaryLearning",
    "TruncatedSVD",
    "GaussianRandomProjection",
    "SparseRandomProjection",
    "SparseCoder",
}
# fit reads only the shape of X: a constant column is projected (or coded) like any other, unwarned.
SHAPE_ONLY = {"GaussianRandomProjection", "SparseRandomProjection", "SparseCoder"}
# Communities found by visiting the nodes in a seeded random order: permuted rows are
# visited in another order, and partitions of near-equal quality resolve differently;
# OPTICS's ordering starts at the first row, and where a valley's wall is cut depends on it.
ORDER_DEPENDENT = {"Leiden", "Louvain", "OPTICS"}
# One output per input feature: a missing value stays missing (in the same cell).
PASSES_MISSING = {"StandardScaler"}
# n_neighbors counts each point itself (umap-learn's convention): n_neighbors = n_samples is valid.
COUNTS_SELF = {"UMAP", "ParametricUMAP", "Leiden", "Louvain", "SpectralClustering", "DiffusionMap"}
CUTS_AS_UMAP_LEARN = {"UMAP", "ParametricUMAP"}  # more neighbours than rows: a warning and n - 1
# Online fits whose running sums forget: each step moves the factors by a share of
# themselves, so a tol of 1e-10 is never met; a fixed number of passes instead (each
# would otherwise run its default 200 or 1,000 passes, a step per batch).
_PASSES = {"tol": 0.0, "max_no_improvement": None, "max_iter": 100}
FIXED_PASSES = dict.fromkeys(("MiniBatchNMF", "MiniBatchDictionaryLearning", "MiniBatchSparsePCA"), _PASSES)
# Small networks trained briefly: the checks test the estimator's protocol, and a fit of
# the default 256- and 128-wide layers for 200 epochs per check would dominate the suite.
SMALL = {
    "AutoEncoder": {"hidden_layer_sizes": (8,), "max_iter": 30, "n_iter_no_change": 3, "tol": 0.05},
    "ParametricUMAP": {"hidden_layer_sizes": (8,), "n_epochs": 30, "batch_size": 64},
    "ParametricTSNE": {"hidden_layer_sizes": (8,), "n_epochs": 30, "batch_size": 64},
}
# A prior estimated from the data (the covariance of X): one sample is too few by default.
PRIOR_FROM_DATA = {"BayesianGaussianMixture"}
# Spread of trustworthiness over local optima, where wider than the default 0.02.
STRUCTURE_TOLERANCE = {"SNE": 0.1}
_SEEDING = "weighted seeding draws differ from seeding on repeated rows (as in scikit-learn)"
_TRANSFORM = (
    "transform places new points against the fixed training embedding: a training point lands "
    "near its fitted position, not within 0.01 of it"
)
EXPECTED_FAILED_CHECKS = {
    "KMeans": dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"), _SEEDING
    ),
    "MiniBatchKMeans": dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"), _SEEDING
    ),
    "BisectingKMeans": dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"), _SEEDING
    ),
    "TSNE": dict.fromkeys(("check_transformer_general", "check_transformer_data_not_an_array"), _TRANSFORM),
    "PaCMAP": dict.fromkeys(("check_transformer_general", "check_transformer_data_not_an_array"), _TRANSFORM),
    "UMAP": dict.fromkeys(("check_transformer_general", "check_transformer_data_not_an_array"), _TRANSFORM),
    "PHATE": dict.fromkeys(
        ("check_transformer_general", "check_transformer_data_not_an_array"),
        "transform averages the landmarks' places by a new point's own kernel (one-sided, as the phate "
        "package's); a training point's place came from the symmetric kernel: close, not within 0.01",
    ),
    "DiffusionMap": dict.fromkeys(
        ("check_transformer_general", "check_transformer_data_not_an_array"),
        "the Nystrom extension of a training row sees its own neighbours, not the points that have it as "
        "a neighbour (the fitted kernel is symmetric): close, not within 0.01; with every training point a "
        "neighbour it is exact (test_diffusion_map.py)",
    ),
    "KModes": dict.fromkeys(
        ("check_clustering",),
        "k-modes reads every number as a category of its own: points of continuous blobs share no category, "
        "so no partition of them is better than another",
    ),
}


def _instance(cls, **params):
    est = _default(cls)
    if "random_state" in est.get_params():
        params.setdefault("random_state", 0)
    if "n_components" in est.get_params():
        params.setdefault("n_components", 2)
    if "n_clusters" in est.get_params():
        params.setdefault("n_clusters", 2)
    if "perplexity" in est.get_params():  # 30 needs about 90 neighbours; the suite's data has 40 rows
        params.setdefault("perplexity", 5.0)
    if isinstance(est.get_params().get("init"), str) and est.get_params()["init"] == "warn":
        params.setdefault("init", "classical_mds")  # scikit-learn 1.9's transitional default (random, warned)
    if "transform_algorithm" in est.get_params():  # dictionary learners: the fit codes by the lasso,
        # transform by OMP unless told otherwise (scikit-learn's check instances do the same)
        params.setdefault("transform_algorithm", "lasso_lars")
    for name, value in {**FIXED_PASSES.get(cls.__name__, {}), **SMALL.get(cls.__name__, {})}.items():
        params.setdefault(name, value)
    if cls.__name__ in ITERATIVE and "tol" in est.get_params():
        params.setdefault("tol", 1e-10)  # converge fully, so runs can be compared closely
    return est.set_params(**params)


def _tiny(cls, **params):
    """An instance for data of 6 to 10 rows: neighbour methods ask for 5 (UMAP's default
    15, PaCMAP's 10 and TriMap's 12 are refused on fewer rows)."""
    if "n_neighbors" in _default(cls).get_params():
        params.setdefault("n_neighbors", 5)
    if "n_inliers" in _default(cls).get_params():  # TriMap's neighbours per point (12 by default)
        params.setdefault("n_inliers", 3)
    return _instance(cls, **params)


def _data(n=40, d=5, seed=0, dtype=np.float64):
    """Mixed uniform (non-Gaussian, so ICA is identifiable) sources, shifted."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.7, 1.7, size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)
    return (X - X.min() + 0.5).astype(dtype)  # positive, for methods that need it (NMF)


def _labels(X):
    """Three classes from the first column, a function of each row (so permutations
    and subsets of the rows carry their labels along)."""
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError):  # non-numeric test input: labels do not matter
        return np.arange(len(X)) % 3
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        return np.zeros(X.shape[0] if X.ndim else 0, dtype=int)
    col = np.nan_to_num(X[:, 0])
    if np.ptp(col) == 0:
        return np.arange(X.shape[0]) % 3
    return np.digitize(col, np.quantile(col, [1 / 3, 2 / 3])) if X.shape[0] > 2 else np.arange(X.shape[0]) % 2


def _fit(est, X):
    name = type(est).__name__
    if name in REQUIRED and len(np.shape(X)) == 2:  # an argument as wide as the data
        est.set_params(**required_args(name, np.shape(X)[1]))
    if is_classifier(est):
        return est.fit(X, _labels(X))
    return est.fit(X)


def _amplifies_rounding(cls):
    """Neighbour embeddings (t-SNE, UMAP) are chaotic: a difference in the last bit of
    the input grows to whole units of the output within a hundred iterations, so runs on
    float32-rounded or permuted data are compared by what they preserve (their
    trustworthiness), not entry by entry."""
    return cls.__name__ in AMPLIFIES_ROUNDING


def _same_structure(X, a, b, cls):
    """Equal trustworthiness up to the class's spread over local optima (default 0.02)."""
    from lowdim.metrics import trustworthiness

    tol = STRUCTURE_TOLERANCE.get(cls.__name__, 0.02)
    assert abs(trustworthiness(X, a, n_neighbors=5) - trustworthiness(X, b, n_neighbors=5)) < tol


def _rtol(cls):
    """Methods fitted by iteration to a tolerance agree across runs only to about that
    tolerance (a flat likelihood amplifies rounding differences); direct ones to rounding."""
    return 1e-3 if cls.__name__ in ITERATIVE else 1e-10


def _is_clusterer(cls):
    return (
        "n_clusters" in _default(cls).get_params() or hasattr(cls, "predict_proba") and not is_classifier(_default(cls))
    )


def _labels_only(cls):
    """Clusterers whose result is the labels of their training data (HDBSCAN, Leiden)."""
    return issubclass(cls, ClusterMixin) and _fit_only(_default(cls))


def _fit_only(est):
    """Estimators that embed their training data only (no transform or predict)."""
    return not (hasattr(est, "transform") or hasattr(est, "predict") or hasattr(est, "predict_proba"))


def _output(est, X):
    if hasattr(est, "transform"):
        return est.transform(X)
    if hasattr(est, "predict_proba"):  # mixtures: the soft assignment
        return est.predict_proba(X)
    if hasattr(est, "predict"):
        return est.predict(X)
    return _fitted(est)


def _fitted(est):
    """What a fit-only estimator produced: a clusterer's labels, an embedding's coordinates."""
    return est.labels_ if isinstance(est, ClusterMixin) else est.embedding_


def test_estimators_are_discovered():
    assert {"PCA", "IncrementalPCA", "ProbabilisticPCA", "FactorAnalysis"} <= set(IDS)


def test_check_tables_name_existing_estimators():
    named = (
        ITERATIVE
        | AMPLIFIES_ROUNDING
        | UNCENTERED
        | SHAPE_ONLY
        | ORDER_DEPENDENT
        | set(COMPONENTS_LIMIT)
        | set(STRUCTURE_TOLERANCE)
        | COUNTS_SELF
        | PASSES_MISSING
        | set(EXPECTED_FAILED_CHECKS)
    )
    assert named <= set(IDS), sorted(named - set(IDS))


def _sklearn_checks():
    """scikit-learn's checks for every estimator, without the array-API ones: lowdim
    works on numpy and scipy.sparse, and those checks only skip themselves (a skipped
    test is no test)."""
    from functools import partial

    from sklearn.utils.estimator_checks import estimator_checks_generator

    for cls in ESTIMATORS:
        # one component keeps the embeddings cheap; a clusterer's n_components is its own choice
        small = "n_components" in _default(cls).get_params() and not _is_clusterer(cls)
        est = _tiny(cls, n_components=1) if small else _tiny(cls)
        for item in estimator_checks_generator(
            est, legacy=True, mark="xfail", expected_failed_checks=EXPECTED_FAILED_CHECKS.get(cls.__name__, {})
        ):
            check = item.values[1] if hasattr(item, "values") else item[1]
            name = (check.func if isinstance(check, partial) else check).__name__
            if "array_api" not in name:
                yield _with_required(item, cls, name)


def _with_required(item, cls, check_name):
    """scikit-learn's checks fit data of several widths; an estimator with a required
    argument of the data's width (SparseCoder's atoms) gets the value scikit-learn's own
    tables give its estimator of the same name for that check."""
    import sklearn.decomposition
    from sklearn.utils._test_common.instance_generator import INIT_PARAMS, PER_ESTIMATOR_CHECK_PARAMS

    if cls.__name__ not in REQUIRED:
        return item
    reference = getattr(sklearn.decomposition, cls.__name__)
    params = {**INIT_PARAMS[reference], **PER_ESTIMATOR_CHECK_PARAMS.get(reference, {}).get(check_name, {})}
    if hasattr(item, "values"):
        return pytest.param(clone(item.values[0]).set_params(**params), item.values[1], marks=item.marks)
    return clone(item[0]).set_params(**params), item[1]


@pytest.mark.parametrize(
    "estimator, check",
    list(_sklearn_checks()),
    ids=lambda value: (
        value.__class__.__name__
        if not callable(value)
        else getattr(getattr(value, "func", value), "__name__", str(value))
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


LABELS_NONFINITE_ROWS = {"HDBSCAN"}  # rows with infinity or NaN labelled -2 / -3, not refused


def _allows_nan(cls):
    return _default(cls).__sklearn_tags__().input_tags.allow_nan


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
def test_nonfinite_named_with_position(cls, bad, word):
    X = _data()
    X[7, 3] = bad
    if cls.__name__ in LABELS_NONFINITE_ROWS:  # as scikit-learn's: such a row gets a label of its own
        assert _fit(_instance(cls), X).labels_[7] == (-3 if word == "NaN" else -2)
        return
    if word == "NaN" and _allows_nan(cls):  # documented missing-value support
        est = _fit(_instance(cls), X)
        out = _output(est, X)
        if cls.__name__ in PASSES_MISSING:  # the gap stays where it was, every other cell is filled
            assert np.array_equal(np.isnan(out), np.isnan(X))
            out = np.nan_to_num(out)
        assert np.isfinite(out).all()
        return
    with pytest.raises(ValueError, match=rf"{word} at row 7, column 3"):
        _fit(_instance(cls), X)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the message, not numpy's overflow warnings first
@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_huge_values_overflow_message(cls):
    X = _data()
    X[0, 0] = 1e308
    with pytest.raises(ValueError, match="overflow while centering/scaling.*rescale"):
        _fit(_instance(cls), X)


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
@pytest.mark.parametrize(
    "shape, words",
    [
        ((0, 3), r"0 sample\(s\).*shape=\(0, 3\)"),
        ((5, 0), r"0 feature\(s\).*shape=\(5, 0\)"),
        ((6,), "1D array.*[Rr]eshape your data"),
    ],
)
def test_empty_and_1d_shapes(cls, shape, words):
    with pytest.raises(ValueError, match=words):
        _fit(_instance(cls), np.zeros(shape))


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_too_many_components_names_both_numbers(cls):
    X = _data(n=4, d=3)
    if "n_dims" in _default(cls).get_params():  # TriMap's name (the trimap package's); at least 2
        with pytest.raises(ValueError, match=r"n_dims=5 must be at most n_samples=4"):
            _fit(_instance(cls, n_dims=5), X)
        with pytest.raises(ValueError, match="1 sample"):
            _fit(_instance(cls), X[:1])
        return
    if cls.__name__ in REQUIRED:  # given atoms (SparseCoder): any number, overcomplete too; one row is data
        assert _output(_fit(_instance(cls), X), X).shape == (4, 4)
        assert _output(_fit(_instance(cls), X[:1]), X).shape == (4, 4)
        return
    if not {"n_components", "n_clusters"} & set(_default(cls).get_params()) and not _labels_only(cls):
        # one output per feature (a scaler): nothing to choose, and one row is data too
        assert _output(_fit(_instance(cls), X), X).shape == X.shape
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one row has zero variance: warned, not refused
            assert np.isfinite(_output(_fit(_instance(cls), X[:1]), X)).all()
        return
    if COMPONENTS_LIMIT.get(cls.__name__) == "samples":  # embeddings: bounded by the points
        with pytest.raises(ValueError, match=r"n_components=5 must be at most n_samples=4"):
            extra = {"n_neighbors": 2} if "n_neighbors" in _default(cls).get_params() else {}
            _fit(_instance(cls, n_components=5, **extra), X)
        with pytest.raises(ValueError, match="1 sample"):
            _fit(_instance(cls, n_components=1), X[:1])
        return
    if COMPONENTS_LIMIT.get(cls.__name__) == "none":  # overcomplete factorisations (NMF) are valid
        est = _fit(_instance(cls, n_components=5), X)
        assert est.n_components_ == 5 and np.isfinite(_output(est, X)).all()
        with pytest.raises(ValueError, match="1 sample"):
            _fit(_instance(cls, n_components=1), X[:1])
        return
    if COMPONENTS_LIMIT.get(cls.__name__) == "projection":
        with pytest.warns(UserWarning, match="n_components=5 is larger than n_features=3"):
            est = _fit(_instance(cls, n_components=5), X)
        assert _output(est, X).shape == (4, 5)
        assert _output(_fit(_instance(cls, n_components=1), X[:1]), X).shape == (4, 1)
        return
    if _labels_only(cls) and "n_clusters" not in _default(cls).get_params():  # the data decide the count
        with pytest.raises(ValueError, match="1 sample"):
            _fit(_instance(cls), X[:1])
        return
    if _is_clusterer(cls):  # k groups need k samples; one sample in one group is fine
        name = "n_clusters" if "n_clusters" in _default(cls).get_params() else "n_components"
        with pytest.raises(ValueError, match=rf"{name}=5 must be at most n_samples=4"):
            _fit(_instance(cls, **{name: 5}), X)
        if cls.__name__ in PRIOR_FROM_DATA:
            with pytest.raises(ValueError, match="1 sample"):
                _fit(_instance(cls, **{name: 1}), X[:1])
            return
        assert np.isfinite(_output(_fit(_instance(cls, **{name: 1}), X[:1]), X)).all()
        return
    with pytest.raises(ValueError, match=r"n_components=5 must be at most min\(.*\) = min\(\d+, \d+\)"):
        _fit(_instance(cls, n_components=5), X)
    with pytest.raises(ValueError, match="1 sample"):
        _fit(_instance(cls, n_components=1), X[:1])


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_non_numeric_values_named(cls):
    X = _data(n=6, d=2).astype(object)
    X[2, 1] = "abc"
    with pytest.raises(ValueError, match=r"'abc'.*row 2, column 1"):
        _fit(_tiny(cls), X)
    with pytest.raises(ValueError, match="Complex data not supported"):
        _fit(_tiny(cls), _data() + 1j)
    numbers_as_objects = _data(n=6, d=3).astype(object)
    assert _output(_fit(_tiny(cls), numbers_as_objects), _data(n=6, d=3)).shape[0] == 6


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_wrong_feature_count_and_unfitted(cls):
    est = _instance(cls)
    if _fit_only(est):  # nothing applies to new data: refitting on other columns must work
        assert not hasattr(est, "embedding_") and not hasattr(est, "labels_")
        assert _fitted(_fit(est, _data(d=4))).shape[0] == _fitted(_fit(est, _data(d=3))).shape[0]
        assert est.n_features_in_ == 3
        return
    if est.__sklearn_tags__().requires_fit:
        with pytest.raises(NotFittedError):
            _output(est, _data())
    else:  # stateless (SparseCoder): the same output unfitted as fitted
        unfitted = _output(clone(est), _data())
        np.testing.assert_array_equal(unfitted, _output(_fit(clone(est), _data()), _data()))
    _fit(est, _data(d=4))
    with pytest.raises(ValueError, match=r"X has 3 features, but \w+ .*expecting 4.*fitted with 4"):
        _output(est, _data(d=3))


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_float32_preserved_and_close_to_float64(cls):
    X64 = _data(n=200, d=6)
    out32 = _output(_fit(_instance(cls), X64.astype(np.float32)), X64.astype(np.float32))
    out64 = _output(_fit(_instance(cls), X64), X64)
    if _labels_only(cls):  # the same clusters from float32 data
        from lowdim.metrics import adjusted_rand_score

        assert adjusted_rand_score(out64, out32) == 1.0
        return
    assert out32.dtype == np.float32 and out64.dtype == np.float64
    if _amplifies_rounding(cls):
        return _same_structure(X64, out32, out64, cls)
    scale = np.abs(out64).max()
    np.testing.assert_allclose(out32, out64, atol=max(1e-4, _rtol(cls)) * scale)


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_float32_far_from_origin_matches_float64(cls):
    rng = np.random.default_rng(1)
    X64 = 1e6 + rng.uniform(-1.7, 1.7, size=(500, 4)) * np.array([3.0, 2.0, 1.0, 0.5])
    X32 = X64.astype(np.float32)
    a = _fit(_instance(cls), X32)
    b = _fit(_instance(cls), X32.astype(np.float64))  # same data values, float64 arithmetic
    if hasattr(b, "mean_"):
        np.testing.assert_allclose(a.mean_, b.mean_, rtol=1e-6)
    # outputs up to a constant offset per column: a float32 mean_ near 1e6 is rounded to
    # half a unit in the last place (0.03), which shifts every projection alike
    out_a, out_b = _output(a, X32), _output(b, X32.astype(np.float64))
    if _labels_only(cls):
        from lowdim.metrics import adjusted_rand_score

        assert adjusted_rand_score(out_a, out_b) == 1.0
        return
    if _amplifies_rounding(cls):
        return _same_structure(X64, out_a, out_b, cls)
    if type(b).__name__ in UNCENTERED:
        # an uncentred factorisation spends its first factor on the offset: what float32
        # must keep is the reconstruction, to float32 precision of the data
        rec_a, rec_b = a.inverse_transform(out_a), b.inverse_transform(out_b)
        np.testing.assert_allclose(rec_a, rec_b, rtol=1e-5)
        return
    out_a, out_b = out_a - out_a.mean(axis=0), out_b - out_b.mean(axis=0)
    np.testing.assert_allclose(out_a, out_b, rtol=1e-3, atol=1e-3 * np.abs(out_b).max())
    if hasattr(b, "explained_variance_"):
        np.testing.assert_allclose(a.explained_variance_, b.explained_variance_, rtol=1e-4)
        np.testing.assert_allclose(np.abs(a.components_ @ b.components_.T), np.eye(2), atol=1e-3)


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_input_not_modified_in_any_layout(cls, tmp_path):
    X = _data(n=50, d=6)
    variants = {"c": X.copy(), "fortran": np.asfortranarray(X), "strided": _data(n=50, d=12)[:, ::2]}
    path = tmp_path / "x.npy"
    np.save(path, X)
    variants["memmap"] = np.load(path, mmap_mode="r")
    reference = None
    for name, data in variants.items():
        before = np.array(data, copy=True)
        est = _fit(_instance(cls), data)
        out = _output(est, data)
        np.testing.assert_array_equal(np.asarray(data), before, err_msg=name)
        if name != "strided":
            reference = out if reference is None else reference
            scale = np.abs(reference).max()
            np.testing.assert_allclose(out, reference, rtol=_rtol(cls), atol=_rtol(cls) * scale, err_msg=name)


@pytest.mark.parametrize("cls", [c for c in NUMERIC if c.__name__ not in COUNT_TABLES], ids=lambda c: c.__name__)
def test_constant_column_warns_and_stays_finite(cls):
    X = _data()
    X[:, 2] = 4.0
    if cls.__name__ in SHAPE_ONLY:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.isfinite(_output(_fit(_instance(cls), X), X)).all()
        return
    with pytest.warns(UserWarning, match=r"zero variance \(columns 2\)"):
        est = _fit(_instance(cls), X)
    assert np.isfinite(_output(est, X)).all()
    same = np.ones((10, 3))
    with pytest.warns(UserWarning, match="identical"):
        try:
            est = _fit(_tiny(cls), same)
        except ValueError as exc:  # a method that cannot proceed says so (no crash, no NaN)
            assert "identical" in str(exc)
            return
    assert np.isfinite(_output(est, same)).all()
    for attr in ("explained_variance_ratio_", "noise_variance_"):
        if hasattr(est, attr):
            assert np.isfinite(getattr(est, attr)).all()


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_save_load_round_trip_bit_identical(cls, tmp_path):
    for dtype in (np.float64, np.float32):
        X = _data(dtype=dtype)
        est = _fit(_instance(cls), X)
        path = tmp_path / f"model-{np.dtype(dtype).name}.lowdim"
        lowdim.save(est, path)
        loaded = lowdim.load(path)
        assert type(loaded) is cls
        a, b = _output(est, X), _output(loaded, X)
        assert a.dtype == b.dtype == (np.int64 if _labels_only(cls) else dtype)
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_deterministic_and_row_permutation(cls):
    X = _data(n=60)
    a = _output(_fit(_instance(cls), X), X)
    b = _output(_fit(clone(_instance(cls)), X), X)
    np.testing.assert_array_equal(a, b)
    if _is_clusterer(cls) or _labels_only(cls):  # clusters, not their numbering, are invariant
        from lowdim.metrics import adjusted_rand_score

        rng = np.random.default_rng(3)
        blobs = np.vstack([rng.normal(c, 0.5, (30, 4)) for c in (0.0, 6.0)])
        perm = rng.permutation(blobs.shape[0])
        if _labels_only(cls):
            first = _fit(_instance(cls), blobs).labels_
            again = _fit(_instance(cls), blobs[perm]).labels_[np.argsort(perm)]
        else:
            first = _fit(_instance(cls), blobs).predict(blobs)
            again = _fit(_instance(cls), blobs[perm]).predict(blobs)
        if cls.__name__ in ORDER_DEPENDENT:  # no cluster (noise aside) spans both blobs, in either order
            blob = np.repeat([0, 1], 30)
            for labels in (first, again):
                assert all(np.unique(blob[labels == c]).size == 1 for c in np.unique(labels[labels >= 0]))
            return
        assert adjusted_rand_score(first, again) == 1.0
        return
    perm = np.random.default_rng(3).permutation(X.shape[0])
    c = _output(_fit(_instance(cls), X[perm]), X)
    if _fit_only(_instance(cls)):  # the embedding comes in the permuted order
        c = c[np.argsort(perm)]
    if _amplifies_rounding(cls) or cls.__name__ in ROW_ORDER_DRAWS:
        return _same_structure(X, a, c, cls)
    tol = max(_rtol(cls), 1e-7)
    np.testing.assert_allclose(np.abs(c), np.abs(a), rtol=tol, atol=tol * np.abs(a).max())


APPLIED = [cls for cls in ESTIMATORS if not _fit_only(_instance(cls))]


@pytest.mark.parametrize("cls", APPLIED, ids=[c.__name__ for c in APPLIED])
def test_transform_rowwise_equals_batch(cls):
    X = _data(n=30)
    est = _fit(_instance(cls), X)
    batch = _output(est, X)
    rows = np.concatenate([_output(est, X[i : i + 1]) for i in range(X.shape[0])])  # 2-D rows or 1-D labels
    tol = 1e-12 if cls.__name__ not in ITERATIVE else 1e-6  # iterative transforms
    np.testing.assert_allclose(rows, batch, rtol=tol, atol=tol * np.abs(batch).max())


def test_no_warning_on_clean_data():
    # DBSCAN's default eps (0.5) leaves every row of this data noise, and says so: an eps at its scale
    fitting = {"DBSCAN": {"eps": 4.0}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for cls in NUMERIC:
            _fit(_instance(cls, **fitting.get(cls.__name__, {})), _data())
    assert not caught, [f"{w.category.__name__}: {w.message}" for w in caught]


@pytest.mark.parametrize("cls", NUMERIC, ids=NUMERIC_IDS)
def test_same_seed_one_thread_and_all_threads(cls, machine_threads):
    from threadpoolctl import threadpool_limits

    X = _data(n=400, d=30)
    # rows about 1,500 apart in squared distance: the default gamma=1 joins none of them
    params = {"gamma": 1e-3} if cls.__name__ == "SpectralClustering" else {}
    with threadpool_limits(limits=1):
        one = _output(_fit(_instance(cls, **params), X), X)
    every = _output(_fit(_instance(cls, **params), X), X)
    if _amplifies_rounding(cls):  # chaotic: any thread-dependent rounding would show as whole units
        np.testing.assert_array_equal(one, every)
        return
    tol = max(_rtol(cls), 1e-9)
    np.testing.assert_allclose(one, every, rtol=tol, atol=tol * np.abs(every).max())


@pytest.mark.parametrize("cls", APPLIED, ids=[c.__name__ for c in APPLIED])
def test_model_owns_what_it_keeps_of_the_training_data(cls):
    """A caller who reuses its training array after fit must not change the model."""
    X, Q = _data(n=30), _data(n=6, seed=1)
    est = _fit(_instance(cls), X)
    before = _output(est, Q)
    X[:] = X[::-1] * 3.0  # overwrite the caller's buffer in place
    np.testing.assert_array_equal(_output(est, Q), before)


def test_a_count_beyond_float_range_is_refused_by_name():
    """A Python int of 10**20 is a valid number; the size check must name it, not fail
    inside NaN detection."""
    from lowdim import KMeans

    with pytest.raises(ValueError, match="n_clusters=100000000000000000000 must be at most n_samples=6"):
        KMeans(n_clusters=10**20).fit(np.arange(12.0).reshape(6, 2))


@pytest.mark.parametrize(
    "cls",
    [c for c in ESTIMATORS if {"n_neighbors", "perplexity"} & set(_default(c).get_params())],
    ids=lambda c: c.__name__,
)
def test_more_neighbours_than_samples_names_both_numbers(cls):
    """n_neighbors or perplexity of at least the number of samples is an error naming
    both numbers (UMAP counts each point among its own neighbours: n_neighbors = n is
    the most it can use), never a silent cut; UMAP cuts more to n - 1 as umap-learn
    does, with a warning naming both."""
    X = _data(n=12)
    name = "perplexity" if "perplexity" in _default(cls).get_params() else "n_neighbors"
    size = 13 if cls.__name__ in COUNTS_SELF else 12
    extra = {"affinity": "nearest_neighbors"} if cls.__name__ == "SpectralClustering" else {}
    if cls.__name__ in CUTS_AS_UMAP_LEARN:  # umap-learn's rule: cut to n - 1, with its warning naming both
        with pytest.warns(UserWarning, match=rf"truncating to X.shape\[0\] - 1 .*n_neighbors={size} with 12 rows"):
            _fit(_instance(cls, **{name: size}, **extra), X)
        return
    with pytest.raises(ValueError, match=rf"{name}={size}\b.*\(12\b"):
        _fit(_instance(cls, **{name: size}, **extra), X)


TAKES_CALLBACKS = [cls for cls in ESTIMATORS if "callbacks" in _default(cls).get_params()]
# Settings under which a fit iterates at least twice: probabilistic PCA's closed form has no
# iterations (its EM does), and two medoids of these rows settle in one swap.
CALLBACK_RUNS = {
    "ProbabilisticPCA": {"method": "em"},
    "KMedoids": {"n_clusters": 6, "init": "random"},
    "BisectingKMeans": {"n_clusters": 4},  # an iteration is a split
}


def test_the_documented_callback_list_is_every_estimator_that_takes_callbacks():
    import pathlib
    import re

    doc = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()
    bullet = doc.split("- **Callbacks**:")[1].split("\n- ")[0].split("take")[0]
    assert set(re.findall(r"`(\w+)`", bullet)) == {cls.__name__ for cls in TAKES_CALLBACKS}


@pytest.mark.parametrize("cls", TAKES_CALLBACKS, ids=lambda c: c.__name__)
def test_a_callback_sees_every_iteration_and_stops_the_run(cls):
    X = np.random.default_rng(0).normal(size=(60, 4))
    calls = []

    def second_stops(iteration, objective, state):
        calls.append((iteration, objective))
        return len(calls) == 2

    params = {"n_init": 1} if "n_init" in _default(cls).get_params() else {}
    if "early_exaggeration_iter" in _default(cls).get_params():
        params["early_exaggeration_iter"] = 1  # the callback's second call is in the first phase otherwise
    params.update(CALLBACK_RUNS.get(cls.__name__, {}))
    if cls.__name__ in UNCENTERED:  # non-negative factorisations: the same rows, shifted
        X = X - X.min()
    _instance(cls, callbacks=second_stops, **params).fit(X)
    assert [iteration for iteration, _ in calls] == [1, 2]
    assert all(isinstance(objective, float) for _, objective in calls)
    with pytest.raises(lowdim.exceptions.InvalidParameterError, match="callbacks"):
        _instance(cls, callbacks=[second_stops, 3]).fit(X)
