"""Drop-in by construction: every public estimator with a scikit-learn (or umap-learn)
namesake takes that namesake's constructor parameters, with its defaults, and sets its
fitted attributes. The differences lowdim keeps on purpose are listed here with their
reasons; anything else that differs (a parameter added upstream, a default changed
here) fails the test, so the lists cannot drift."""

import inspect
import warnings

import numpy as np
import pytest

import lowdim

REFERENCES = {
    "PCA": "sklearn.decomposition.PCA",
    "IncrementalPCA": "sklearn.decomposition.IncrementalPCA",
    "TruncatedSVD": "sklearn.decomposition.TruncatedSVD",
    "GaussianRandomProjection": "sklearn.random_projection.GaussianRandomProjection",
    "SparseRandomProjection": "sklearn.random_projection.SparseRandomProjection",
    "FactorAnalysis": "sklearn.decomposition.FactorAnalysis",
    "FastICA": "sklearn.decomposition.FastICA",
    "KernelPCA": "sklearn.decomposition.KernelPCA",
    "NMF": "sklearn.decomposition.NMF",
    "MiniBatchNMF": "sklearn.decomposition.MiniBatchNMF",
    "SparsePCA": "sklearn.decomposition.SparsePCA",
    "MiniBatchSparsePCA": "sklearn.decomposition.MiniBatchSparsePCA",
    "DictionaryLearning": "sklearn.decomposition.DictionaryLearning",
    "MiniBatchDictionaryLearning": "sklearn.decomposition.MiniBatchDictionaryLearning",
    "SparseCoder": "sklearn.decomposition.SparseCoder",
    "LinearDiscriminantAnalysis": "sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
    "KMeans": "sklearn.cluster.KMeans",
    "MiniBatchKMeans": "sklearn.cluster.MiniBatchKMeans",
    "BisectingKMeans": "sklearn.cluster.BisectingKMeans",
    "GaussianMixture": "sklearn.mixture.GaussianMixture",
    "BayesianGaussianMixture": "sklearn.mixture.BayesianGaussianMixture",
    "DBSCAN": "sklearn.cluster.DBSCAN",
    "OPTICS": "sklearn.cluster.OPTICS",
    "AgglomerativeClustering": "sklearn.cluster.AgglomerativeClustering",
    "HDBSCAN": "sklearn.cluster.HDBSCAN",
    "Isomap": "sklearn.manifold.Isomap",
    "LocallyLinearEmbedding": "sklearn.manifold.LocallyLinearEmbedding",
    "MDS": "sklearn.manifold.MDS",
    "SpectralClustering": "sklearn.cluster.SpectralClustering",
    "SpectralEmbedding": "sklearn.manifold.SpectralEmbedding",
    "TSNE": "sklearn.manifold.TSNE",
    "UMAP": "umap.UMAP",
    "PHATE": "phate.PHATE",
    "TriMap": "trimap.TRIMAP",
}

# Parameters of the namesake that lowdim does not take, and why.
MISSING_PARAMETERS = {
    # pynndescent's and tqdm's knobs: lowdim's neighbour search is exact or faiss HNSW,
    # its progress bar is tqdm's default
    ("UMAP", "low_memory"): "pynndescent's memory/speed switch; lowdim's searches have no such mode",
    ("UMAP", "transform_queue_size"): "pynndescent's search queue; lowdim's transform queries its own index",
    ("UMAP", "angular_rp_forest"): "pynndescent's random-projection forest; not used by lowdim",
    ("UMAP", "tqdm_kwds"): "lowdim's progress bar takes no options (verbose=True shows it)",
}

# Defaults that differ on purpose: (lowdim's, the namesake's) and why.
DIFFERENT_DEFAULTS = {
    ("PCA", "svd_solver"): "None: lowdim's own 'solver' parameter (default 'auto') chooses unless svd_solver is set",
    ("FactorAnalysis", "tol"): "per-sample average log-likelihood here, the total there: 1e-8 per sample is as "
    "tight as 1e-2 on the total for up to a million rows",
    ("FastICA", "whiten_solver"): "'auto' whitens tall data by the covariance (one pass) with the same result",
    ("KMeans", "algorithm"): "'auto' picks Lloyd, Hamerly or Elkan by size (recorded in algorithm_); all give "
    "the same clusters",
    ("SpectralEmbedding", "eigen_solver"): "'auto' (LAPACK below 1000 samples, else Lanczos) is what None means there",
    ("TSNE", "method"): "'auto' picks exact, Barnes-Hut or FFT interpolation by size (recorded in method_)",
    ("UMAP", "n_jobs"): "None: numba's thread pool (all cores); umap-learn's -1 means the same",
    ("PHATE", "verbose"): "0: lowdim estimators are quiet unless asked (the phate package logs each step by default)",
}

# Fitted attributes of the namesake that lowdim does not set, and why.
MISSING_ATTRIBUTES = {
    ("Isomap", "kernel_pca_"): "lowdim runs classical MDS directly (eigenvectors_, eigenvalues_), no KernelPCA",
    ("Isomap", "nbrs_"): "lowdim keeps its own neighbour index (not a NearestNeighbors object)",
    ("LocallyLinearEmbedding", "nbrs_"): "lowdim keeps its own neighbour index (not a NearestNeighbors object)",
}


# Namesakes read from their source instead of imported: importing trimap compiles its
# numba kernels eagerly (their signatures are explicit, uncached): 7 s of every test run.
# The file that defines the class, inside the installed package.
FROM_SOURCE = {"TriMap": "trimap_.py"}


def _reference(name):
    """The namesake class (umap-learn comes with the dev extra: a missing install fails)."""
    from importlib import import_module

    module, _, cls = REFERENCES[name].rpartition(".")
    return getattr(import_module(module), cls)


def _parameters(cls):
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self" and p.kind != p.VAR_KEYWORD
    }


def _source_parameters(name):
    """The namesake's constructor parameters and defaults, read from its installed
    source file without importing the package (a missing install fails)."""
    import ast
    import importlib.util
    import pathlib

    module, _, cls = REFERENCES[name].rpartition(".")
    package = pathlib.Path(importlib.util.find_spec(module).submodule_search_locations[0])
    tree = ast.parse((package / FROM_SOURCE[name]).read_text())
    init = next(
        f
        for c in ast.walk(tree)
        if isinstance(c, ast.ClassDef) and c.name == cls
        for f in c.body
        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
    )
    names = [a.arg for a in init.args.args[1:]]
    defaults = [ast.literal_eval(d) for d in init.args.defaults]
    return dict(zip(names[len(names) - len(defaults) :], defaults)) | {
        n: None for n in names[: len(names) - len(defaults)]
    }


def _same(a, b):
    return a is b or (type(a) is type(b) and a == b)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_constructor_takes_the_namesakes_parameters_and_defaults(name):
    theirs = _source_parameters(name) if name in FROM_SOURCE else _parameters(_reference(name))
    ours = _parameters(getattr(lowdim, name))
    missing = {p for p in theirs if p not in ours}
    assert missing == {p for (cls, p) in MISSING_PARAMETERS if cls == name}
    differ = {p for p in theirs if p in ours and not _same(ours[p], theirs[p])}
    assert differ == {p for (cls, p) in DIFFERENT_DEFAULTS if cls == name}


def _fitted_attributes(estimator):
    return {k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")} | {
        k
        for k, v in inspect.getmembers(type(estimator), lambda m: isinstance(m, property))
        if k.endswith("_") and not k.startswith("_")
    }


@pytest.mark.parametrize("name", sorted(set(REFERENCES) - set(FROM_SOURCE)))
def test_fitted_attributes_include_the_namesakes(name):
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(80, 6))) + 0.1
    y = np.arange(80) % 3
    params = {"n_components": 2} if "n_components" in _parameters(getattr(lowdim, name)) else {}
    if name == "LinearDiscriminantAnalysis":
        params = {}
    if name == "SparseCoder":  # given its atoms
        params = {"dictionary": np.eye(6)[:4]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = getattr(lowdim, name)(**params).fit(X, y)
        reference = _reference(name)(**params)
        theirs = reference.fit(X, y) if "y" in inspect.signature(reference.fit).parameters else reference.fit(X)
    missing = {a for a in _fitted_attributes(theirs) if not hasattr(ours, a)}
    assert missing == {a for (cls, a) in MISSING_ATTRIBUTES if cls == name}


def test_every_listed_difference_has_a_reason():
    for table in (MISSING_PARAMETERS, DIFFERENT_DEFAULTS, MISSING_ATTRIBUTES):
        for (name, _), reason in table.items():
            assert name in REFERENCES and len(reason) > 20


def test_the_coming_from_page_names_every_scikit_learn_namesake():
    import pathlib

    page = (pathlib.Path(__file__).parents[1] / "docs" / "guide" / "coming_from.rst").read_text()
    section = page.split("scikit-learn\n------------")[1].split("Deliberate differences")[0]
    missing = [name for name, ref in REFERENCES.items() if ref.startswith("sklearn.") and f"``{name}``" not in section]
    assert not missing


def test_every_listed_difference_is_in_the_coming_from_page():
    """The guide's page for users of these libraries names each difference kept here."""
    import pathlib

    page = (pathlib.Path(__file__).parents[1] / "docs" / "guide" / "coming_from.rst").read_text()
    for table in (MISSING_PARAMETERS, DIFFERENT_DEFAULTS, MISSING_ATTRIBUTES):
        for name, item in table:
            assert f"``{item}" in page or f"{item}=" in page or f"``{name}({item}" in page, (name, item)
