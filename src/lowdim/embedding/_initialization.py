"""Starting embeddings for neighbour embeddings: PCA or spectral coordinates rescaled
to a small spread (so early exaggeration acts as intended), Gaussian noise, or the
user's array."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence

from .._threads import blas_limit
from .._validation import check_array
from .._warnings import warn_user
from ..decomposition import principal_scores
from ..manifold import laplacian_eigenmap
from ..neighbors import ExactIndex, StoredDistances, join_components
from ._component_start import component_start

INIT_STD = 1e-4  # standard deviation of the first coordinate after rescaling
SPECTRAL_TOL = 1e-4  # relative accuracy of a spectral start (umap-learn uses the same): it is
# only where the optimisation begins, and tol=0 could cost a 70,000-point graph minutes


def rescale(Y, rng, std=INIT_STD):
    """``Y`` scaled so its first column has standard deviation ``std``; a degenerate
    ``Y`` (no spread: identical points) is replaced by noise of that size.

    Examples
    --------
    >>> Y = rescale(np.array([[0.0, 1.0], [2.0, 3.0]]), np.random.default_rng(0))
    >>> float(Y[:, 0].std())
    0.0001
    """
    spread = float(np.std(Y[:, 0])) if Y.shape[0] > 1 else 0.0
    if not np.isfinite(spread) or spread <= 0.0:
        return rng.normal(0.0, std, size=Y.shape)
    return Y * (std / spread)


def _joined(affinities, X, precomputed, index=None):
    """The affinity graph with its components joined (``join_components``, with the
    graph's weakest weight), so that the spectral start places them apart along their
    shortest links instead of solving for a degenerate eigenvalue. ``index``: a built
    index of ``X`` (its metric; it serves the small components' search)."""
    if precomputed:
        index = StoredDistances() if sp.issparse(X) else ExactIndex("precomputed").build(X)
    weakest = affinities.data.min(initial=1.0)
    return join_components(affinities, X, name="spectral start's affinity graph", index=index, edge_weight=weakest)


def featureless_start(init, metric):
    """``(init, distances)`` for a metric: with 'precomputed' the rows are distances
    (``distances`` True: the PCA start is refused with a message); with 'gower' they are
    a mixed table's codes, no points of one vector space, so the PCA start becomes the
    spectral layout of the affinities (whose components the caller joins with a Gower
    index).

    Parameters
    ----------
    init : str or array-like
    metric : str

    Returns
    -------
    init : str or array-like
    distances : bool

    Examples
    --------
    >>> featureless_start("pca", "gower"), featureless_start("pca", "precomputed")
    (('spectral', False), ('pca', True))
    """
    if metric == "gower" and isinstance(init, str) and init == "pca":
        init = "spectral"
    return init, metric == "precomputed"


def check_init_for_metric(init, metric):
    """Refuse init='pca' for distances (metric 'precomputed'): PCA needs feature vectors.

    Examples
    --------
    >>> check_init_for_metric("pca", "euclidean")
    """
    if isinstance(init, str) and init == "pca" and metric == "precomputed":
        raise ValueError(
            'The parameter init="pca" cannot be used with metric="precomputed": PCA needs feature vectors, and '
            "precomputed distances have none; use init='spectral' or 'random'."
        )


def initial_embedding(init, X, affinities, n_components, rng, *, precomputed=False, index=None, on_product=None):
    """The starting embedding.

    Parameters
    ----------
    init : {'pca', 'spectral', 'random'} or array-like (n, n_components)
        'pca': the top principal components of ``X``; 'spectral': Laplacian eigenmaps of
        the affinity graph; both rescaled by ``rescale``. 'random': N(0, 1e-4^2). An
        array is used as given (checked: shape, finite values).
    X : ndarray (n, d)
    affinities : sparse (n, n)
    n_components : int
    rng : numpy.random.Generator
    precomputed : bool
        ``X`` holds distances ('pca' is then refused).
    index : KNNIndex, optional
        'spectral': a built index of ``X``, whose metric joins the graph's components.
    on_product : callable, optional
        'spectral': ``on_product(done, most)`` after each product of the sparse
        eigensolver, for a progress bar (``laplacian_eigenmap``).

    Returns
    -------
    ndarray (n, n_components), float64, a new array

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(20, 4))
    >>> initial_embedding("pca", X, None, 2, np.random.default_rng(0)).shape
    (20, 2)
    """
    n = X.shape[0]
    if not isinstance(init, str):
        Y = check_array(init, name="init", estimator_name="the initial embedding").astype(np.float64, copy=True)
        if Y.shape != (n, n_components):
            raise ValueError(f"init has shape {Y.shape}; it must be (n_samples, n_components) = {(n, n_components)}.")
        return Y
    if init == "random":
        return rng.normal(0.0, INIT_STD, size=(n, n_components))
    # one BLAS thread: the start must not depend on the thread count in its last bits,
    # which t-SNE and UMAP would amplify into a different embedding
    if init == "pca":
        check_init_for_metric(init, "precomputed" if precomputed else None)

        with blas_limit(1):
            return rescale(principal_scores(X, n_components, rng), rng)
    if init == "spectral":
        if n_components >= n - 1:
            return rng.normal(0.0, INIT_STD, size=(n, n_components))
        affinities = sp.csr_matrix(affinities)
        from .._kernels.components import connected_components

        count, labels = connected_components(affinities)
        coded = getattr(index, "metric", None) == "gower"  # a mixed table's codes: no centroids either
        if count > 1 and not precomputed and not coded and isinstance(X, np.ndarray):  # pieces laid out apart
            with blas_limit(1):
                return rescale(component_start(affinities, X, labels, n_components, rng, SPECTRAL_TOL), rng)
        if count > 1:  # distances, not rows: no centroids; the pieces joined by their shortest edges
            affinities = _joined(affinities, X, precomputed, index)
        try:
            with blas_limit(1):
                Y, _ = laplacian_eigenmap(
                    affinities, n_components, rng, tol=SPECTRAL_TOL, bounded=True, on_product=on_product
                )
        except ArpackNoConvergence:
            fallback = "pca" if isinstance(X, np.ndarray) and not precomputed else "random"
            warn_user(
                f"the spectral start did not converge within its budget of Lanczos products (the graph has "
                f"weakly joined parts, whose eigenvalues are nearly equal); starting from '{fallback}' instead. "
                f"Pass init='{fallback}' to skip the attempt.",
                UserWarning,
            )
            return initial_embedding(fallback, X, affinities, n_components, rng, precomputed=precomputed)
        return rescale(Y, rng)
    raise ValueError(f"init must be 'pca', 'spectral', 'random' or an array; got {init!r}.")
