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
import math
import re
from dataclasses import dataclass, field
from importlib import import_module

import numpy as np

from ._memory_models import estimate


@dataclass(frozen=True)
class Method:
    """How to build one method: class, fixed parameters and what it needs.

    Attributes
    ----------
    path : str
        The class's public name in ``lowdim`` (``'PCA'``): the export table in
        ``lowdim/__init__.py`` says where it lives.
    fixed : dict
        Parameters this name implies (``hessian-lle`` is LLE with method='hessian').
    size : str
        The parameter that sets the output size (n_components or n_clusters; empty
        for clusterings that find the number of clusters themselves).
    supervised : bool
        Needs labels (``fit(X, y)``).
    missing_ok : bool
        Models missing values (NaN) itself.
    summary : str
    memory : str
        Which working-memory model applies (a key of ``lowdim._memory_models.MODELS``).
    needs : tuple of str
        Optional packages the method imports, and ``extra`` the lowdim extra that
        installs them (checked by :func:`check_available` before any work).
    columns : {'numeric', 'categorical', 'mixed', 'counts'}
        What the method reads: numbers (category columns then need a distance that
        takes them: Gower's), categories (every column), numbers and categories
        together, or a contingency table of counts.
    """

    path: str
    fixed: dict = field(default_factory=dict)
    size: str = "n_components"
    supervised: bool = False
    missing_ok: bool = False
    summary: str = ""
    memory: str = "pca"
    needs: tuple = ()
    extra: str = ""
    columns: str = "numeric"

    @property
    def cls(self):
        return getattr(import_module("lowdim"), self.path)


EMBEDDINGS = {
    "pca": Method("PCA", memory="pca", summary="principal component analysis"),
    "incremental-pca": Method("IncrementalPCA", memory="pca", summary="PCA from exact streamed moments"),
    "kernel-pca": Method(
        "KernelPCA",
        {"kernel": "rbf"},
        memory="kernel_matrix",
        summary="kernel PCA (rbf by default)",
    ),
    "ppca": Method("ProbabilisticPCA", missing_ok=True, memory="latent", summary="probabilistic PCA"),
    "factor-analysis": Method("FactorAnalysis", missing_ok=True, memory="latent", summary="factor analysis"),
    "ca": Method("CA", columns="counts", summary="correspondence analysis of a contingency table"),
    "mca": Method(
        "MCA", columns="categorical", missing_ok=True, summary="multiple correspondence analysis of categories"
    ),
    "famd": Method("FAMD", columns="mixed", missing_ok=True, summary="factor analysis of mixed data"),
    "ica": Method("FastICA", memory="ica", summary="independent component analysis (FastICA)"),
    "nmf": Method("NMF", memory="factorization", summary="non-negative matrix factorisation"),
    "minibatch-nmf": Method(
        "MiniBatchNMF", memory="factorization", summary="non-negative matrix factorisation on mini-batches"
    ),
    "sparse-pca": Method("SparsePCA", memory="factorization", summary="sparse PCA: components of few features"),
    # transform codes rows as the fit did (the lasso at alpha), so that `lowdim transform`
    # of the training rows gives their embedding (scikit-learn's default 'omp' keeps one atom
    # in ten features: another code)
    "dictionary": Method(
        "DictionaryLearning",
        {"transform_algorithm": "lasso_lars"},
        memory="factorization",
        summary="dictionary learning: sparse codes of learnt atoms",
    ),
    "mf": Method(
        "MatrixFactorization",
        memory="factorization",
        summary="matrix factorisation by alternating least squares",
    ),
    "lda": Method(
        "LinearDiscriminantAnalysis",
        supervised=True,
        memory="lda",
        summary="Fisher linear discriminant analysis (needs --label-column)",
    ),
    "mds": Method("MDS", {"init": "classical_mds"}, memory="mds", summary="multidimensional scaling"),
    "isomap": Method("Isomap", memory="isomap", summary="Isomap"),
    "lle": Method(
        "LocallyLinearEmbedding",
        {"method": "standard"},
        memory="local_fits",
        summary="locally linear embedding",
    ),
    "hessian-lle": Method(
        "LocallyLinearEmbedding",
        {"method": "hessian", "n_neighbors": 10},
        memory="local_fits",
        summary="Hessian eigenmaps",
    ),
    "modified-lle": Method(
        "LocallyLinearEmbedding",
        {"method": "modified", "n_neighbors": 10},
        memory="local_fits",
        summary="modified LLE",
    ),
    "ltsa": Method(
        "LocallyLinearEmbedding",
        {"method": "ltsa", "n_neighbors": 10},
        memory="local_fits",
        summary="local tangent space alignment",
    ),
    "spectral": Method("SpectralEmbedding", memory="spectral", summary="Laplacian eigenmaps"),
    "diffusion": Method("DiffusionMap", memory="diffusion", summary="diffusion map (Coifman & Lafon)"),
    "phate": Method("PHATE", memory="phate", summary="PHATE: potential distances of a random walk (trajectories)"),
    "trimap": Method("TriMap", size="n_dims", memory="trimap", summary="TriMap: triplets of near and far points"),
    "mvu": Method(
        "MaximumVarianceUnfolding",
        memory="mvu",
        summary="maximum variance unfolding (exact up to 300 points; landmarks above, with lowdim[sdp])",
    ),
    "sne": Method("SNE", memory="sne", summary="stochastic neighbour embedding (Gaussian output kernel)"),
    "tsne": Method("TSNE", memory="tsne", summary="t-SNE"),
    "umap": Method("UMAP", memory="umap", summary="UMAP"),
    "pacmap": Method("PaCMAP", memory="pacmap", summary="PaCMAP (near, mid-near and further pairs)"),
    "autoencoder": Method(
        "AutoEncoder",
        memory="neural",
        needs=("jax",),
        extra="neural",
        summary="neural autoencoder: encoder and decoder networks trained to reconstruct (JAX)",
    ),
    "parametric-umap": Method(
        "ParametricUMAP",
        memory="parametric_umap",
        needs=("jax",),
        extra="neural",
        summary="UMAP whose map is an encoder network: transform is one forward pass (JAX)",
    ),
    "parametric-tsne": Method(
        "ParametricTSNE",
        memory="parametric_tsne",
        needs=("jax",),
        extra="neural",
        summary="t-SNE whose map is an encoder network: transform is one forward pass (JAX)",
    ),
}

# Leiden and Louvain: k found by themselves, the graph's memory, igraph and leidenalg
_GRAPH_COMMUNITIES = {"size": "", "memory": "graph_clustering", "needs": ("igraph", "leidenalg"), "extra": "graph"}
CLUSTERINGS = {
    "kmeans": Method("KMeans", size="n_clusters", memory="kmeans", summary="k-means"),
    "minibatch-kmeans": Method(
        "MiniBatchKMeans", size="n_clusters", memory="minibatch_kmeans", summary="mini-batch k-means"
    ),
    "kprototypes": Method(
        "KPrototypes",
        size="n_clusters",
        columns="mixed",
        missing_ok=True,
        memory="kmeans",
        summary="k-prototypes: k-means for numbers and categories",
    ),
    "kmodes": Method(
        "KModes",
        size="n_clusters",
        columns="categorical",
        missing_ok=True,
        memory="kmeans",
        summary="k-modes: k-means for categories",
    ),
    "kmedoids": Method("KMedoids", size="n_clusters", memory="kmedoids", summary="k-medoids (PAM)"),
    "gmm": Method("GaussianMixture", missing_ok=True, memory="gmm", summary="Gaussian mixture (EM)"),
    "bayesian-gmm": Method(
        "BayesianGaussianMixture",
        memory="gmm",
        summary="Bayesian Gaussian mixture: at most k components, the unneeded left empty",
    ),
    "hdbscan": Method("HDBSCAN", size="", memory="hdbscan", summary="HDBSCAN: density clusters and noise (label -1)"),
    "optics": Method("OPTICS", size="", memory="optics", summary="OPTICS: clusters at every density, noise -1"),
    "dbscan": Method("DBSCAN", size="", memory="dbscan", summary="DBSCAN: one density (--param eps), noise -1"),
    "agglomerative": Method(
        "AgglomerativeClustering", size="n_clusters", memory="agglomerative", summary="agglomerative clustering (Ward)"
    ),
    "bisecting-kmeans": Method(
        "BisectingKMeans", size="n_clusters", memory="kmeans", summary="bisecting k-means (a tree of 2-means splits)"
    ),
    "leiden": Method("Leiden", summary="Leiden communities of the kNN graph", **_GRAPH_COMMUNITIES),
    "louvain": Method("Louvain", summary="Louvain communities of the kNN graph", **_GRAPH_COMMUNITIES),
    "spectral-clustering": Method(
        "SpectralClustering",
        {"affinity": "nearest_neighbors"},
        size="n_clusters",
        memory="spectral_clustering",
        summary="spectral clustering of the kNN graph (cluster -m spectral)",
    ),
}
# the cluster command's short names for clusterings whose names embeddings also use
CLUSTER_ALIASES = {"spectral": "spectral-clustering"}


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
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = text.strip()
        if isinstance(value, float) and not math.isfinite(value):  # 1e999 reads as infinity
            raise ValueError(f"--param {pair!r}: {name.strip()} must be a finite number; got {text.strip()!r}.")
        params[name.strip()] = value
    return params


def check_available(name, table=None):
    """The :class:`Method` registered as ``name``, once the optional packages it needs
    are there: else ``ImportError`` naming them and the extra that installs them
    (called before any work, so a run does not fail after fitting everything else).

    Examples
    --------
    >>> check_available("pca").summary
    'principal component analysis'
    """
    method = lookup(name, table)
    missing = []
    for module in method.needs:
        try:
            import_module(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise ImportError(
            f"{name} needs the {' and '.join(missing)} package{'s' if len(missing) > 1 else ''}: "
            f"pip install 'lowdim[{method.extra}]'."
        )
    return method


def lookup(name, table=None):
    """The :class:`Method` registered as ``name`` (in ``table``; default: all).

    Examples
    --------
    >>> lookup("hessian-lle").fixed["method"]
    'hessian'
    """
    table = {**EMBEDDINGS, **CLUSTERINGS} if table is None else table
    name = canonical_name(name, table)
    if name not in table:
        close = difflib.get_close_matches(name, table, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(f"unknown method {name!r}; {hint}choose from {', '.join(table)}.")
    return table[name]


def canonical_name(name, table=None):
    """The registered name of a method written as users write it: in capitals, with
    other separators, or as its class (``UMAP``, ``t-SNE``, ``kernel_pca``,
    ``KernelPCA``, ``GaussianMixture``); ``name`` itself when nothing matches.

    Examples
    --------
    >>> [canonical_name(n) for n in ("UMAP", "t-SNE", "kernel_pca", "GaussianMixture", "nosuch")]
    ['umap', 'tsne', 'kernel-pca', 'gmm', 'nosuch']
    """
    table = {**EMBEDDINGS, **CLUSTERINGS} if table is None else table
    if name in table:
        return name

    def key(text):
        return re.sub(r"[-_\s]", "", str(text).lower())

    wanted = key(name)
    # the name itself first, then the class (several names of one class: only the plain one, no fixed parameters)
    found = [other for other in table if key(other) == wanted]
    found = found or [other for other, method in table.items() if key(method.path) == wanted and not method.fixed]
    return found[0] if len(found) == 1 else name


def method_name(model, table=None):
    """The registered name of the method ``model`` is: among the names of its class, the
    one whose fixed parameters it has most of, counting those it overrides against
    (``LocallyLinearEmbedding(method='ltsa', n_neighbors=12)`` is 'ltsa', not 'lle');
    None when its class has no name.

    Examples
    --------
    >>> from lowdim import KernelPCA, LocallyLinearEmbedding
    >>> method_name(KernelPCA(kernel="poly")), method_name(LocallyLinearEmbedding(method="ltsa", n_neighbors=12))
    ('kernel-pca', 'ltsa')
    """
    table = {**EMBEDDINGS, **CLUSTERINGS} if table is None else table
    params = model.get_params(deep=False)

    def agreement(name):
        return sum(1 if params.get(key) == value else -1 for key, value in table[name].fixed.items())

    found = [name for name, method in table.items() if method.path == type(model).__name__]
    return max(found, key=agreement, default=None)


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
    if n_components is not None and method.size:
        chosen.setdefault(method.size, n_components)
    if seed is not None and "random_state" in valid:
        chosen.setdefault("random_state", seed)
    estimator = cls(**chosen)
    _check_given(estimator, params)
    return estimator


def _check_given(estimator, params):
    """Refuse, naming the parameter as the user wrote it, a given value outside the
    class's own constraints (before any data is read)."""
    from ._params import validate_params
    from .exceptions import InvalidParameterError

    try:
        validate_params(estimator)
    except InvalidParameterError as error:
        if error.param not in params:
            raise
        raise ValueError(f"--param {error.param}={params[error.param]!r} is refused: {error}") from None


def sized_params(name, n_samples, given=None):
    """``(params, note)``: ``given`` with the method's neighbourhood (``perplexity``,
    ``n_neighbors``) lowered to what ``n_samples`` rows allow, where its default does
    not fit and the caller did not set it; ``note`` says what changed (or is None).

    Examples
    --------
    >>> sized_params("tsne", 4)
    ({'perplexity': 1.0}, 'tsne: perplexity 30.0 -> 1 for 4 rows')
    >>> sized_params("umap", 1000)
    ({}, None)
    """
    params = dict(given or {})
    defaults = lookup(name, EMBEDDINGS).cls().get_params()
    changed = []
    perplexity = defaults.get("perplexity")
    if "perplexity" not in params and isinstance(perplexity, (int, float)) and 3 * perplexity > n_samples - 1:
        params["perplexity"] = max(1.0, (n_samples - 1) / 3.0)
        changed.append(f"perplexity {perplexity} -> {params['perplexity']:g}")
    k = defaults.get("n_neighbors")
    if "n_neighbors" not in params and isinstance(k, int) and k >= n_samples:
        params["n_neighbors"] = max(2, n_samples - 1)
        changed.append(f"n_neighbors {k} -> {params['n_neighbors']}")
    return params, (f"{name}: {', '.join(changed)} for {n_samples} rows" if changed else None)


def fit_labels(estimator, X):
    """Fit a clustering and return the cluster of each row of ``X``: ``predict`` where
    the method has one, else ``labels_`` (density and graph clusterings label their
    training rows only).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> sorted(set(fit_labels(make_estimator("kmeans", n_components=2, seed=0), X).tolist()))
    [0, 1]
    """
    fitted = estimator.fit(X)
    return fitted.predict(X) if hasattr(fitted, "predict") else fitted.labels_


def fit_supervised(estimator, X, labels):
    """Fit a supervised embedding on the rows that have a label and embed every row (a
    label column with gaps: the unlabelled rows are placed, not taught as a class '').

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1], [0.2, 1.1], [5.0, 0], [5.1, 0.3], [2.5, 0.5]])
    >>> lda = make_estimator("lda", n_components=1)
    >>> fit_supervised(lda, X, np.array(["a", "a", "b", "b", ""])).shape, lda.classes_.tolist()
    ((5, 1), ['a', 'b'])
    """
    labels = np.asarray(labels)
    known = labelled(labels)
    fitted = estimator.fit(X, labels) if known.all() else estimator.fit(X[known], labels[known])
    return fitted.transform(X)


def labelled(labels):
    """The rows that have a label (a bool mask), for scores against the labels.

    Examples
    --------
    >>> labelled(["x", "", "y"]).tolist()
    [True, False, True]
    """
    from ._validation import missing_labels

    return ~missing_labels(labels)


def memory_estimate(name, n_samples, n_features, n_components=2, params=None, itemsize=8, table=None):
    """Peak working memory in bytes of method ``name``'s fit on an n x d table, beyond
    the data (``lowdim._memory_models``; checked against measured peaks).

    Parameters
    ----------
    name : str
        A registered method.
    n_samples, n_features : int
    n_components : int, default=2
        Output dimensions (clusters for the clusterings).
    params : dict, optional
        Method parameters (those that set the size: ``n_neighbors``, ``perplexity``, ...).
    itemsize : int, default=8
        Bytes per entry of the data.
    table : dict, optional
        Restrict to ``EMBEDDINGS`` or ``CLUSTERINGS``.

    Returns
    -------
    int

    Examples
    --------
    >>> memory_estimate("mds", 10_000, 50) > memory_estimate("pca", 10_000, 50)
    True
    """
    method = lookup(name, table)
    chosen = {**method.fixed, **(params or {})}
    return estimate(method.memory, n_samples, n_features, n_components, chosen, itemsize)
