"""The registry of lowdim's methods by their command-line names.

The CLI (``lowdim embed -m NAME``, ``lowdim cluster -m NAME``) and the report build
estimators only through this table, so a new estimator becomes available everywhere by
adding one entry.

Examples
--------
>>> from lowdim.methods import make_estimator
>>> make_estimator("tsne", n_components=2, params={"perplexity": 10}, seed=0)
TSNE(perplexity=10, random_state=0)
"""

import ast
import difflib
from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class Method:
    """How to build one method: class, fixed parameters and what it needs.

    Attributes
    ----------
    path : str
        ``module:Class``.
    fixed : dict
        Parameters this name implies (``hessian-lle`` is LLE with method='hessian').
    size : str
        The parameter that sets the output size (n_components or n_clusters).
    supervised : bool
        Needs labels (``fit(X, y)``).
    missing_ok : bool
        Models missing values (NaN) itself.
    summary : str
    memory : str
        Which working-memory model applies (a key of ``MEMORY_MODELS``).
    """

    path: str
    fixed: dict = field(default_factory=dict)
    size: str = "n_components"
    supervised: bool = False
    missing_ok: bool = False
    summary: str = ""
    memory: str = "linear"

    @property
    def cls(self):
        module, name = self.path.split(":")
        return getattr(import_module(module), name)


# Working memory in bytes for n rows, d features and k outputs, beyond the data itself.


def linear_memory(n, d, k):
    """A centred copy of the data, the scores and a d x d covariance."""
    return 8 * (n * d + n * k + d * d)


def kernel_memory(n, d, k):
    """An n x n kernel or distance matrix."""
    return 8 * (n * n + n * d)


def neighbors_memory(n, d, k):
    """The kNN graph, the layout and its buffers."""
    return 8 * (n * d + 100 * n + 40 * n * k)


def local_memory(n, d, k):
    """Local fits on 30 neighbours each, kept in sparse form."""
    return 8 * (n * d + n * 30 * 30 + 30 * n)


def clusters_memory(n, d, k):
    """A centred copy, the distances to k centres and the bounds."""
    return 8 * (2 * n * d + n * k)


MEMORY_MODELS = {
    "linear": linear_memory,
    "kernel": kernel_memory,
    "neighbors": neighbors_memory,
    "local": local_memory,
    "clusters": clusters_memory,
}

EMBEDDINGS = {
    "pca": Method("lowdim.decomposition:PCA", summary="principal component analysis"),
    "incremental-pca": Method("lowdim.decomposition:IncrementalPCA", summary="PCA from exact streamed moments"),
    "kernel-pca": Method(
        "lowdim.decomposition:KernelPCA", {"kernel": "rbf"}, memory="kernel", summary="kernel PCA (rbf by default)"
    ),
    "ppca": Method("lowdim.decomposition:ProbabilisticPCA", missing_ok=True, summary="probabilistic PCA"),
    "factor-analysis": Method("lowdim.decomposition:FactorAnalysis", missing_ok=True, summary="factor analysis"),
    "ica": Method("lowdim.decomposition:FastICA", summary="independent component analysis (FastICA)"),
    "nmf": Method("lowdim.decomposition:NMF", summary="non-negative matrix factorisation"),
    "mf": Method(
        "lowdim.decomposition:MatrixFactorization", summary="matrix factorisation by alternating least squares"
    ),
    "lda": Method(
        "lowdim.decomposition:LinearDiscriminantAnalysis",
        supervised=True,
        summary="Fisher linear discriminant analysis (needs --label-column)",
    ),
    "mds": Method("lowdim.manifold:MDS", memory="kernel", summary="multidimensional scaling"),
    "isomap": Method("lowdim.manifold:Isomap", memory="kernel", summary="Isomap"),
    "lle": Method(
        "lowdim.manifold:LocallyLinearEmbedding",
        {"method": "standard"},
        memory="local",
        summary="locally linear embedding",
    ),
    "hessian-lle": Method(
        "lowdim.manifold:LocallyLinearEmbedding",
        {"method": "hessian", "n_neighbors": 10},
        memory="local",
        summary="Hessian eigenmaps",
    ),
    "modified-lle": Method(
        "lowdim.manifold:LocallyLinearEmbedding",
        {"method": "modified", "n_neighbors": 10},
        memory="local",
        summary="modified LLE",
    ),
    "ltsa": Method(
        "lowdim.manifold:LocallyLinearEmbedding",
        {"method": "ltsa", "n_neighbors": 10},
        memory="local",
        summary="local tangent space alignment",
    ),
    "spectral": Method("lowdim.manifold:SpectralEmbedding", memory="neighbors", summary="Laplacian eigenmaps"),
    "mvu": Method(
        "lowdim.manifold:MaximumVarianceUnfolding",
        memory="kernel",
        summary="maximum variance unfolding (exact up to 300 points; landmarks above, with lowdim[sdp])",
    ),
    "sne": Method(
        "lowdim.embedding:SNE", memory="kernel", summary="stochastic neighbour embedding (Gaussian output kernel)"
    ),
    "tsne": Method("lowdim.embedding:TSNE", memory="neighbors", summary="t-SNE"),
    "umap": Method("lowdim.embedding:UMAP", memory="neighbors", summary="UMAP"),
}

CLUSTERINGS = {
    "kmeans": Method("lowdim.cluster:KMeans", size="n_clusters", memory="clusters", summary="k-means"),
    "minibatch-kmeans": Method(
        "lowdim.cluster:MiniBatchKMeans", size="n_clusters", memory="clusters", summary="mini-batch k-means"
    ),
    "kmedoids": Method("lowdim.cluster:KMedoids", size="n_clusters", memory="kernel", summary="k-medoids (PAM)"),
    "gmm": Method(
        "lowdim.cluster:GaussianMixture", missing_ok=True, memory="clusters", summary="Gaussian mixture (EM)"
    ),
}


def parse_params(pairs):
    """``['perplexity=50', 'init=pca']`` -> ``{'perplexity': 50, 'init': 'pca'}``.

    Values are Python literals when they parse as one (numbers, True/False/None, tuples),
    else strings.

    Examples
    --------
    >>> parse_params(["perplexity=50", "init=pca", "early_exaggeration=12.0", "dof=None"])
    {'perplexity': 50, 'init': 'pca', 'early_exaggeration': 12.0, 'dof': None}
    """
    params = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--param {pair!r} is not name=value; write for example --param perplexity=50.")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            value = text.strip()
        params[name.strip()] = value
    return params


def lookup(name, table=None):
    """The :class:`Method` registered as ``name`` (in ``table``; default: all).

    Examples
    --------
    >>> lookup("hessian-lle").fixed["method"]
    'hessian'
    """
    table = {**EMBEDDINGS, **CLUSTERINGS} if table is None else table
    if name not in table:
        close = difflib.get_close_matches(name, table, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(f"unknown method {name!r}; {hint}choose from {', '.join(table)}.")
    return table[name]


def make_estimator(name, *, n_components=None, params=None, seed=None, table=None):
    """An unfitted estimator for a registered method name.

    Parameters
    ----------
    name : str
        Registered name (``'tsne'``, ``'hessian-lle'``, ``'kmeans'``, ...).
    n_components : int, optional
        Output size (n_clusters for clusterings).
    params : dict, optional
        Further constructor parameters; unknown names are refused with the valid ones.
    seed : int, optional
        ``random_state`` for methods that have one.
    table : dict, optional
        Restrict to ``EMBEDDINGS`` or ``CLUSTERINGS``.

    Examples
    --------
    >>> make_estimator("kmeans", n_components=3, seed=1).get_params()["n_clusters"]
    3
    """
    method = lookup(name, table)
    cls = method.cls
    valid = cls().get_params()
    params = dict(params or {})
    for key in params:
        if key not in valid:
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"{name} has no parameter {key!r}; {hint}valid parameters are {', '.join(sorted(valid))}.")
    chosen = {**method.fixed, **params}
    if n_components is not None:
        chosen.setdefault(method.size, n_components)
    if seed is not None and "random_state" in valid:
        chosen.setdefault("random_state", seed)
    return cls(**chosen)


def memory_estimate(name, n_samples, n_features, n_components=2):
    """Rough peak working memory in bytes of method ``name`` on an n x d table.

    Examples
    --------
    >>> memory_estimate("mds", 10_000, 50) > memory_estimate("pca", 10_000, 50)
    True
    """
    return int(MEMORY_MODELS[lookup(name).memory](n_samples, n_features, n_components))
