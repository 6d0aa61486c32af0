"""The fitted-attribute table that loaded model files are held to
(``lowdim.io._fitted_schema.FITTED``) is what real fits of every registered class hold:
derived here from two fits of different sizes, an axis tied to a size (features,
samples, components, clusters, classes) only where it equals that size in both.

Run as a script to write the table after adding or changing a method:
``python tests/test_model_schema.py [ClassName ...]`` (all registered classes by default)."""

import pathlib
import pprint
import subprocess
import sys
import warnings

import numpy as np
import pytest
from estimator_args import required_args

import lowdim
from lowdim._params import BOOLEAN, Options
from lowdim.io._fitted_schema import FITTED, SIZE_NAMES, describe
from lowdim.io._model_files import REGISTRY, STRING_ATTRIBUTES, _split_state

# two fits whose sizes differ from each other within a fit and between the fits; the
# second on three separated blobs with duplicate rows (clusters to find, zero distances)
SIZES = (
    {"samples": 37, "features": 7, "components": 3, "clusters": 4, "classes": 5, "blobs": False},
    {"samples": 43, "features": 9, "components": 2, "clusters": 6, "classes": 4, "blobs": True},
)


# options under which a class holds arrays its default fit does not (sometimes-attributes:
# checked when present, never required); "gower": the class fitted by Gower's distance to
# a table with a category column and a gap, whose arrays of training rows may hold NaN
GOWER = {"gower": True}
VARIANTS = {
    # a model built by streaming keeps its running moments, for partial_fit after loading
    # (of fewer rows than half the columns, as the rows of a factor)
    "PCA": [{"standardize": True}, {"streamed": True}, {"streamed": True, "wide": True, "few_rows": True}],
    "IncrementalPCA": [{"wide": True, "few_rows": True}],
    # arrays only the way back (or a rotation) reads
    "KernelPCA": [{"fit_inverse_transform": True}],
    **{name: [{"compute_inverse_components": True}] for name in ("GaussianRandomProjection", "SparseRandomProjection")},
    "FactorAnalysis": [{"rotation": "varimax"}],
    "MDS": [{"solver": "classical"}, {"n_landmarks": 12}, {"solver": "classical", **GOWER}],
    **{name: [GOWER] for name in ("TSNE", "Isomap", "KMedoids", "DBSCAN", "DiffusionMap")},
    # above 100 columns the rows kept are principal components (their mean and directions kept too)
    **{name: [GOWER, {"wide": True}] for name in ("PaCMAP", "PHATE")},
    "TriMap": [GOWER, {"return_seq": True}],
    # distinct rows only in X_fit_ and the graph; one kl in a plain float for either objective
    "UMAP": [GOWER, {"unique": True}, {"densmap": True}],
    "SNE": [GOWER, {"variant": "symmetric"}],
    # rows with infinity or NaN are labelled apart: NaN / inf in the per-row arrays; copies
    # of a row: infinite lambdas in the trees
    "HDBSCAN": [GOWER, {"left_out_rows": True}, {"copies": True}, {"store_centers": "both"}],
    # a graph affinity is stored sparse, a kernel dense
    "SpectralEmbedding": [GOWER, {"affinity": "rbf"}],
    "SpectralClustering": [{"affinity": "nearest_neighbors"}],
    # without labels_ or the clusters' hierarchy when not asked for them
    "MiniBatchKMeans": [{"compute_labels": False}],
    "OPTICS": [{"cluster_method": "dbscan"}, GOWER],
    "AgglomerativeClustering": [{"compute_distances": True}, {**GOWER, "linkage": "average"}],
    # the decoder's widths and weights; the principal directions the encoder reads scores on
    # with Gower's distance, the networks read the rows' Gower coding (wider than the features)
    **{
        name: [
            {"input_components": 2, "parametric_reconstruction": True},
            {**GOWER, "input_components": 2, "parametric_reconstruction": True, "complete": True},
        ]
        for name in ("ParametricUMAP", "ParametricTSNE")
    },
    # two classes: one decision function (coef_ and intercept_ of one row), as scikit-learn's
    "LinearDiscriminantAnalysis": [{"binary": True}, {"solver": "lsqr"}],
    # the covariances' layout (and a tied model's one degrees of freedom) follow covariance_type
    "GaussianMixture": [{"covariance_type": t} for t in ("tied", "diag", "spherical")],
    "BayesianGaussianMixture": [
        *({"covariance_type": t} for t in ("tied", "diag", "spherical")),
        {"weight_concentration_prior_type": "dirichlet_distribution"},
    ],
}


def _fit(
    name,
    sizes,
    gower=False,
    left_out_rows=False,
    copies=False,
    constant=False,
    complete=False,
    streamed=False,
    few_rows=False,
    **options,
):
    cls = getattr(lowdim, name)
    required = required_args(name, sizes["features"])
    params = cls(**required).get_params()
    chosen = {
        "n_components": sizes["components"],
        "n_clusters": sizes["clusters"],
        "perplexity": 5.0,
        "random_state": 0,
        "n_neighbors": 5,
        "max_iter": 50,
        "n_epochs": 20,
        "hidden_layer_sizes": (8,),  # the networks' arrays, not what they learn, are checked
    }
    if "hidden_layer_sizes" in params:  # so two epochs: the weights' shapes are set by the first step
        chosen.update(n_epochs=2, max_iter=2)
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(sizes["samples"], sizes["features"]))) + 0.1
    if sizes["blobs"]:
        X += 8.0 * (np.arange(sizes["samples"]) % 3)[:, None]
        X[-3:] = X[:3]
    if "categorical" in params or gower:  # a mixed-data method: one column of 3 category codes
        X[:, 0] = np.arange(sizes["samples"]) % 3
        chosen["categorical"] = [0]
    if gower:
        if not complete:  # complete: for a method that refuses gaps (a network reads every value)
            X[::2, 1] = np.nan  # every other row: medoids and reference rows hold gaps too
        key = next(k for k in ("metric_kwds", "metric_params") if k in params)
        metric = {"PaCMAP": "distance", "TriMap": "distance", "PHATE": "knn_dist"}.get(name, "metric")
        options = {**options, metric: "gower", key: {"categorical": [0]}}
    if left_out_rows:
        X[0, 0], X[1, 1] = np.inf, np.nan
    if copies:  # a row repeated beyond min_samples: a core distance of 0, a lambda of 1 / 0
        X[-12:] = X[0]
    if constant:  # every row the same, exactly (a mean of copies of X[0] may round): no variance
        X[:] = 1.0
    y = np.arange(sizes["samples"]) % sizes["classes"]
    if few_rows:  # a third as many rows as columns
        X, y = X[: sizes["features"] // 3], y[: sizes["features"] // 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**{k: v for k, v in chosen.items() if k in params}, **required, **options)
        return model.fit(iter(np.array_split(X, 2)) if streamed else X, y)


def _sized(sizes, binary=False, wide=False):
    """The sizes of a variant's fit: ``binary``, of two classes and so of one component;
    ``wide``, of 100 more features and rows, so that the maps that read wide rows as 100
    principal components do so."""
    if binary:
        sizes = {**sizes, "components": 1, "classes": 2}
    if wide:
        sizes = {**sizes, "features": sizes["features"] + 100, "samples": sizes["samples"] + 100}
    return sizes


def _one_fit(name, sizes, binary=False, wide=False, **options):
    """name -> (kind, ndim, finite, axes) of what ``save`` stores of one fit of the
    variant's sizes (``_sized``)."""
    sizes = _sized(sizes, binary, wide)
    arrays, plain, _ = _split_state(_fit(name, sizes, **options))
    found = {}
    for attr, value in {**plain, **arrays}.items():
        if value is None or attr in STRING_ATTRIBUTES:
            continue  # set only with some options, or labels of any type: not constrained
        kind, ndim, finite = describe(value)
        if not ndim:  # scalars and lists (ragged ones too: levels per column) have no axes
            found[attr] = (kind, ndim, finite, None)
            continue
        axes = tuple(next((size for size in SIZE_NAMES if sizes[size] == length), None) for length in np.shape(value))
        found[attr] = (kind, ndim, finite, axes)
    return found


def derive(name):
    """The class's entry of ``FITTED``, from two fits (and two of each variant)."""
    attributes = _specs(*(_one_fit(name, sizes) for sizes in SIZES))
    # every model of the class holds these arrays, however it was fitted (scalars such
    # as n_iter_ are diagnostics that partial_fit or a dask fit may not set)
    always = {name for name, spec in attributes.items() if spec["ndim"] is not None}
    for options in VARIANTS.get(name, []):
        found = _specs(*(_one_fit(name, sizes, **options) for sizes in SIZES))
        always &= set(found)  # what every variant holds (a landmark MDS has no n x n matrix)
        if options.get("gower"):  # the same arrays, marked as gaps below; an axis the coding widens is untied
            attributes.update({attr: spec for attr, spec in found.items() if attr not in attributes})
            for attr, spec in found.items():
                if attributes[attr].get("axes") and attributes[attr]["ndim"] == spec["ndim"]:
                    axes = zip(attributes[attr]["axes"], spec["axes"])
                    attributes[attr] = {**attributes[attr], "axes": tuple(a if a == b else None for a, b in axes)}
        else:  # a parameter that changes layouts (covariance_type): admit each variant's
            attributes.update({attr: _either(attributes.get(attr), spec) for attr, spec in found.items()})
        if options.get("gower"):  # finite by default, NaN where Gower's distance kept a gap
            for attr, spec in found.items():
                if attributes[attr].get("finite") and not spec.get("finite", True):
                    attributes[attr] = {**attributes[attr], "gaps": True}
    # what only continues training (PCA's running moments) is kept when held, required of no file
    always -= set(getattr(getattr(lowdim, name), "_resume_attributes", ()))
    return {"always": tuple(sorted(always)), "attributes": dict(sorted(attributes.items()))}


def _either(spec, other):
    """One attribute's spec that admits both variants: the numbers of axes they have
    (a tuple when they differ, with no axis tied to a size) and finite where both are."""
    if spec is None or spec == other:
        return other
    if spec["kind"] != other["kind"]:
        raise AssertionError(f"an attribute holds {spec['kind']} in one variant and {other['kind']} in another")
    ndims = {n for s in (spec, other) for n in (s["ndim"] if isinstance(s["ndim"], tuple) else (s["ndim"],))}
    if len(ndims) == 1:
        merged = {**spec, "axes": tuple(a if a == b else None for a, b in zip(spec["axes"], other["axes"]))}
    else:
        merged = {"kind": spec["kind"], "ndim": tuple(sorted(ndims, key=lambda n: -1 if n is None else n))}
    if "finite" in spec or "finite" in other:
        merged["finite"] = spec.get("finite", True) and other.get("finite", True)
    return merged


def _specs(first, second):
    """The constraints two fits agree on."""
    attributes = {}
    for attr in sorted(set(first) & set(second)):
        (kind, ndim, finite, axes), (kind2, ndim2, finite2, axes2) = first[attr], second[attr]
        if kind != kind2 or ndim != ndim2:
            continue  # differs with the data: not constrained
        spec = {"kind": kind, "ndim": ndim}
        if kind == "float" and ndim is not None:
            spec["finite"] = finite and finite2
        if ndim:
            spec["axes"] = tuple(a if a == b else None for a, b in zip(axes, axes2))
        attributes[attr] = spec
    return attributes


def write_table(names):
    """Rewrite ``io/_fitted_table.py`` with the derived entries of ``names`` (the other
    entries as they are), formatted by ruff when it is installed."""
    import lowdim.io._fitted_table as module

    table = {**FITTED, **{name: derive(name) for name in names}}
    path = pathlib.Path(module.__file__)
    head = path.read_text().split("FITTED = ")[0]
    path.write_text(head + "FITTED = " + pprint.pformat(table, width=110, sort_dicts=True) + "\n")
    subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", str(path)], check=False)
    return path


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_fitted_table_is_what_fits_hold(name):
    derived = derive(name)
    assert FITTED.get(name) == derived, (
        f"FITTED[{name!r}] should be:\n{pprint.pformat(derived, width=110)}\n"
        f"(write it with: python tests/test_model_schema.py {name})"
    )


@pytest.mark.parametrize(
    "name, options", [(name, options) for name, variants in VARIANTS.items() for options in variants], ids=str
)
def test_every_variant_loads_from_its_file(tmp_path, name, options):
    # a model fitted with an option that changes its arrays (a landmark MDS, Gower's
    # distance, a diagonal mixture) is what the loader must accept: the table admits it
    options = dict(options)
    sizes = _sized(SIZES[0], options.pop("binary", False), options.pop("wide", False))  # not parameters
    model = _fit(name, sizes, **options)
    lowdim.io.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.io.load(tmp_path / "m.lowdim")
    assert type(loaded) is type(model)


# options too slow for a test on any data: an SDP by first-order splitting
SLOW_OPTIONS = {("MaximumVarianceUnfolding", "solver", "scs")}
LEFT_AS_IS = {"verbose", "copy", "copy_X", "random_state", "n_jobs", "callbacks", "warm_start"}


def _choices(cls):
    """``(parameter, value)`` for every value of a finite choice a class offers (its
    options and flags) other than its default."""
    defaults = cls(**required_args(cls.__name__, SIZES[1]["features"])).get_params()
    for param, constraints in getattr(cls, "_parameter_constraints", {}).items():
        if param in LEFT_AS_IS:
            continue
        values = [v for c in constraints if isinstance(c, Options) for v in sorted(c.values, key=str)]
        values += [True, False] if BOOLEAN in constraints else []
        for value in values:
            if defaults.get(param) != value and (cls.__name__, param, value) not in SLOW_OPTIONS:
                yield param, value


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_model_fitted_with_any_choice_its_class_offers_loads_from_its_file(tmp_path, name):
    # a graph affinity stored sparse where the table knew a dense one, LDA's 'lsqr', a
    # mini-batch k-means without labels_, UMAP's unique rows: such models were saved and
    # then refused by the loader; a choice that cannot make a usable model fails in fit
    tried = []
    for param, value in [(None, None), *_choices(getattr(lowdim, name))]:
        try:
            model = _fit(name, SIZES[1], **({} if param is None else {param: value}))
        except (ValueError, TypeError, NotImplementedError):
            continue  # the choice needs others with it (NMF's Itakura-Saito needs solver='mu')
        lowdim.io.save(model, tmp_path / "m.lowdim")
        assert type(lowdim.io.load(tmp_path / "m.lowdim")) is type(model), (param, value)
        # an attribute the table does not know is loaded unchecked (NaN in KernelPCA's
        # dual_coef_ made every inverse_transform NaN): each choice's arrays are listed
        arrays, plain, _ = _split_state(model)
        held = {attr for attr, v in {**arrays, **plain}.items() if v is not None} - set(STRING_ATTRIBUTES)
        assert held <= set(FITTED[name]["attributes"]), (param, value, sorted(held - set(FITTED[name]["attributes"])))
        tried.append(param)
    assert None in tried, "the class's default fit failed"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_model_fitted_on_constant_rows_loads_from_its_file(tmp_path, name):
    # PCA's log-density of a row off the data's one point is -inf, not a broken file
    try:
        model = _fit(name, SIZES[0], constant=True)
    except ValueError:
        return  # refused with a message (ICA: no sources to find)
    lowdim.io.save(model, tmp_path / "m.lowdim")
    assert type(lowdim.io.load(tmp_path / "m.lowdim")) is type(model)
    if hasattr(model, "score_samples"):  # -inf off the point, without numpy's overflow warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            scores = model.score_samples(np.zeros((2, model.n_features_in_)))
        assert not np.isnan(scores).any() and not (scores == np.inf).any()


if __name__ == "__main__":
    print(write_table(sys.argv[1:] or sorted(REGISTRY)))
