"""lowdim: dimensionality reduction and unsupervised structure discovery.

The public names are loaded on first use, so ``import lowdim`` stays fast
(scikit-learn, numba and matplotlib are imported only by the code that needs them).

Examples
--------
>>> import numpy as np
>>> import lowdim
>>> X = np.random.default_rng(0).normal(size=(100, 5))
>>> lowdim.PCA(n_components=2).fit_transform(X).shape
(100, 2)
"""

from importlib import import_module

from ._version import __version__

# public name -> module that defines it (the single registry of exports)
_EXPORTS = {
    "PCA": "lowdim.decomposition",
    "CA": "lowdim.decomposition",
    "KPrototypes": "lowdim.cluster",
    "KModes": "lowdim.cluster",
    "MCA": "lowdim.decomposition",
    "FAMD": "lowdim.decomposition",
    "IncrementalPCA": "lowdim.decomposition",
    "TruncatedSVD": "lowdim.decomposition",
    "GaussianRandomProjection": "lowdim.decomposition",
    "SparseRandomProjection": "lowdim.decomposition",
    "ProbabilisticPCA": "lowdim.decomposition",
    "FactorAnalysis": "lowdim.decomposition",
    "FastICA": "lowdim.decomposition",
    "KernelPCA": "lowdim.decomposition",
    "NMF": "lowdim.decomposition",
    "MiniBatchNMF": "lowdim.decomposition",
    "SparsePCA": "lowdim.decomposition",
    "MiniBatchSparsePCA": "lowdim.decomposition",
    "DictionaryLearning": "lowdim.decomposition",
    "MiniBatchDictionaryLearning": "lowdim.decomposition",
    "SparseCoder": "lowdim.decomposition",
    "MatrixFactorization": "lowdim.decomposition",
    "LinearDiscriminantAnalysis": "lowdim.decomposition",
    "select_n_components": "lowdim.decomposition",
    "StandardScaler": "lowdim.preprocessing",
    "mixed_codes": "lowdim.preprocessing",
    "KMeans": "lowdim.cluster",
    "MiniBatchKMeans": "lowdim.cluster",
    "BisectingKMeans": "lowdim.cluster",
    "KMedoids": "lowdim.cluster",
    "GaussianMixture": "lowdim.cluster",
    "BayesianGaussianMixture": "lowdim.cluster",
    "DBSCAN": "lowdim.cluster",
    "AgglomerativeClustering": "lowdim.cluster",
    "HDBSCAN": "lowdim.cluster",
    "OPTICS": "lowdim.cluster",
    "Leiden": "lowdim.cluster",
    "Louvain": "lowdim.cluster",
    "SpectralClustering": "lowdim.cluster",
    "select_n_clusters": "lowdim.cluster",
    "Isomap": "lowdim.manifold",
    "LocallyLinearEmbedding": "lowdim.manifold",
    "MDS": "lowdim.manifold",
    "MaximumVarianceUnfolding": "lowdim.manifold",
    "SpectralEmbedding": "lowdim.manifold",
    "DiffusionMap": "lowdim.diffusion",
    "PHATE": "lowdim.diffusion",
    "TSNE": "lowdim.embedding",
    "SNE": "lowdim.embedding",
    "UMAP": "lowdim.embedding",
    "AlignedUMAP": "lowdim.embedding",
    "PaCMAP": "lowdim.embedding",
    "TriMap": "lowdim.embedding",
    "sweep": "lowdim.embedding",
    "datasets": "lowdim.datasets",
    "load_orl_faces": "lowdim.datasets",
    "load_uk_food": "lowdim.datasets",
    "load_penguins": "lowdim.datasets",
    "metrics": "lowdim.metrics",
    "anndata": "lowdim.anndata",
    "neighbors": "lowdim.neighbors",
    "NeighborGraph": "lowdim.neighbors",
    "save": "lowdim.io",
    "load": "lowdim.io",
    "ConvergenceWarning": "lowdim.exceptions",
    "DataShapeError": "lowdim.exceptions",
    "UntrustedModelError": "lowdim.exceptions",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lowdim' has no attribute {name!r}")
    value = import_module(module) if module == f"lowdim.{name}" else getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
