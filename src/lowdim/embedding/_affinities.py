"""Input affinities of t-SNE and SNE: Gaussian conditional probabilities over each
point's nearest neighbours, bandwidths matched to a perplexity, then symmetrised."""

import numpy as np
import scipy.sparse as sp

from .._threads import blas_limit
from .._warnings import warn_user
from ..neighbors import make_index, self_neighbors
from ._graph_arrays import float64_row_blocks, row_progress, symmetric_graph

ENTROPY_TOL = 1e-5  # nats: the bisection stops within this of log(perplexity)
BISECTION_STEPS = 200


def effective_perplexity(perplexity, n_samples, name="TSNE"):
    """``perplexity``, lowered with a warning to ``(n_samples - 1) / 3`` when the data
    has too few points for it (each point needs about 3 x perplexity neighbours); a
    perplexity of at least the number of samples is an error, as in scikit-learn.

    Examples
    --------
    >>> effective_perplexity(30.0, 1000), effective_perplexity(1.0, 2)
    (30.0, 1.0)
    """
    if 3 * perplexity <= n_samples - 1:
        return float(perplexity)
    if perplexity >= n_samples:
        raise ValueError(
            f"perplexity ({perplexity:g}) must be less than n_samples ({n_samples}): {name}'s "
            f"perplexity={perplexity:g} is an effective number of neighbours among the other samples ({n_samples}); "
            f"lower perplexity (at most about {max((n_samples - 1) / 3.0, 1.0):g} for this data)."
        )
    lowered = max((n_samples - 1) / 3.0, 1.0)
    if lowered >= perplexity:  # at the floor of one neighbour already: nothing to lower, nothing to say
        return float(perplexity)
    warn_user(
        f"{name}: perplexity={perplexity:g} is too large for {n_samples} samples (it needs about "
        f"3 x perplexity neighbours per point); using perplexity={lowered:g}. Lower perplexity to "
        "silence this.",
        UserWarning,
    )
    return lowered


def conditional_probabilities(distances, perplexity, bar=None):
    """Gaussian conditional probabilities p(j | i) over each row's neighbours.

    Parameters
    ----------
    distances : ndarray (n, k)
        Distances from each point to its k neighbours (the Gaussian is in their square).
    perplexity : float
        Target ``exp(entropy)`` of every row.
    bar : tqdm, optional
        Advanced by the rows calibrated (``row_progress``).

    Returns
    -------
    P : ndarray (n, k), rows summing to one
        In the distances' dtype (float32 distances give float32 probabilities, each
        row computed in float64).
    beta : ndarray (n,)
        Precision ``1 / (2 sigma^2)`` of each row's Gaussian.

    Examples
    --------
    >>> P, beta = conditional_probabilities(np.array([[1.0, 2.0, 3.0, 4.0]]), 2.0)
    >>> round(float(np.exp(-(P * np.log(P)).sum())), 4)
    2.0
    """
    from .._kernels.perplexity import calibrate_rows

    P, blocks = float64_row_blocks(distances, bar)
    beta = np.empty(P.shape[0])
    for rows, block in blocks:
        sq = np.square(block)
        calibrate_rows(sq, float(np.log(perplexity)), ENTROPY_TOL, BISECTION_STEPS, block, beta[rows])
        P[rows] = block
    return P, beta


KERNELS = ("perplexity", "multiscale", "uniform")


def kernel_neighbors(perplexity, kernel, n_samples):
    """Neighbours per point that ``kernel`` needs: 3 x perplexity + 1 (multiscale: of the
    largest), or round(perplexity) for the uniform kernel (a uniform distribution over k
    points has perplexity k); at most n_samples - 1."""
    if kernel == "uniform":
        k = max(1, int(round(perplexity)))
    else:
        k = int(3 * max(np.atleast_1d(perplexity)) + 1)
    return min(n_samples - 1, k)


def row_affinities(distances, perplexity, kernel="perplexity", bar=None):
    """p(j | i) over each row's neighbours: Gaussian calibrated to ``perplexity``
    ('perplexity'), the mean of such Gaussians at each of several perplexities
    ('multiscale', ``perplexity`` a sequence; Lee et al. 2015, as openTSNE's), or equal
    weights ('uniform'); ``bar`` advanced by the rows calibrated (``row_progress``).

    Examples
    --------
    >>> row_affinities(np.array([[1.0, 2.0, 4.0, 8.0]]), None, "uniform").tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    >>> P = row_affinities(np.array([[1.0, 2.0, 4.0, 8.0]]), (1.5, 3.0), "multiscale")
    >>> round(float(P.sum()), 6)
    1.0
    """
    if kernel == "uniform":
        return np.full(distances.shape, 1.0 / distances.shape[1], dtype=np.result_type(distances.dtype, np.float32))
    if kernel == "multiscale":
        scales = [conditional_probabilities(distances, p, bar)[0] for p in perplexity]
        return sum(scales[1:], scales[0]) / len(scales)
    if kernel != "perplexity":
        raise ValueError(f"affinity must be one of {', '.join(KERNELS)}; got {kernel!r}.")
    return conditional_probabilities(distances, perplexity, bar)[0]


def joint_probabilities(indices, conditional, n_samples, bar=None):
    """Symmetric joint affinities ``(p(j|i) + p(i|j)) / (2 n)`` as a CSR matrix summing
    to one (in the conditionals' dtype, int32 indices, sorted, no explicit zeros).

    Parameters
    ----------
    indices : ndarray of int (n, k)
        Each point's neighbours.
    conditional : ndarray (n, k)
        ``p(j | i)`` for those neighbours.
    n_samples : int
    bar : tqdm, optional
        Advanced by the symmetrisation's passes' rows (``row_progress``).

    Returns
    -------
    P : scipy.sparse.csr_matrix (n, n)

    Examples
    --------
    >>> P = joint_probabilities(np.array([[1], [0], [1]]), np.ones((3, 1)), 3)
    >>> P.toarray().round(4).tolist()
    [[0.0, 0.3333, 0.0], [0.3333, 0.0, 0.1667], [0.0, 0.1667, 0.0]]
    """
    P = symmetric_graph(indices, conditional, n_samples, "sum", bar=bar)
    P.data /= P.data.sum(dtype=np.float64)
    return P


def neighbor_affinities(
    X,
    perplexity,
    n_neighbors,
    *,
    metric="euclidean",
    algorithm="auto",
    joint=True,
    metric_params=None,
    verbose=False,
    keep_index=True,
    kernel="perplexity",
):
    """t-SNE's input affinities of ``X``: kNN (``n_neighbors``, usually 3 x perplexity)
    by the chosen index, perplexity-calibrated conditionals, symmetrised.

    Parameters
    ----------
    X : ndarray (n, d), or (n, n) distances with metric='precomputed'
    perplexity : float
    n_neighbors : int
    metric : str
        'euclidean', 'cosine', 'precomputed' or one of ``neighbors.PAIRWISE_METRICS``.
    algorithm : {'auto', 'exact', 'approximate'}
    joint : bool, default=True
        False: return the conditionals p(j | i) themselves (rows sum to one).
    metric_params : dict, optional
        Keyword arguments of the metric (``{'p': 3}`` for 'minkowski').
    verbose : bool, default=False
        Progress bars over building the kNN index and querying it.
    keep_index : bool, default=True
        False: the index is released as soon as the neighbours are found, before the
        affinities are built (at a million points it holds about 0.7 GB), and None is
        returned in its place.
    kernel : {'perplexity', 'multiscale', 'uniform'}, default='perplexity'
        See ``row_affinities`` (multiscale: ``perplexity`` is a sequence).

    Returns
    -------
    P : CSR (n, n), symmetric, sums to one (or the conditionals); float32 data, int32
        indices (the compact graph millions of points need)
    index : the built kNN index (for placing new points), or None
    nearest : ndarray of float32 (n,)
        Each point's distance to its nearest neighbour (0: it has a duplicate).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> P, index, nearest = neighbor_affinities(X, 5.0, 15)
    >>> bool(abs(P.sum() - 1) < 1e-6 and abs(P - P.T).max() == 0)
    True
    """
    n = X.shape[0]
    index = make_index(algorithm, metric, n, metric_params, sparse=sp.issparse(X), verbose=verbose).build(X)
    if n_neighbors >= n - 1 and hasattr(index, "pairwise"):  # every other point: no selection needed
        others = ~np.eye(n, dtype=bool)
        with blas_limit(1):  # a threaded product rounds by thread count; t-SNE would amplify it
            distances = index.pairwise(X)[others].reshape(n, n - 1).astype(np.float32)
        indices = np.broadcast_to(np.arange(n, dtype=np.int32), (n, n))[others].reshape(n, n - 1)
    else:
        distances, indices = self_neighbors(index, X, n_neighbors, verbose=verbose)
    if not keep_index:
        index = None
    scales = len(perplexity) if kernel == "multiscale" else 1
    with row_progress("t-SNE affinities", n * scales if kernel != "uniform" else 0, verbose, scales) as bar:
        conditional = row_affinities(distances, perplexity, kernel, bar)
    nearest = distances.min(axis=1)
    del distances  # the graph is built from the probabilities alone
    return _joint_or_conditional(indices, conditional, joint, verbose), index, nearest


def affinities_from_neighbors(distances, indices, perplexity, *, joint=True, kernel="perplexity"):
    """t-SNE's input affinities from a kNN graph found elsewhere (a dask cluster, a
    user's search): perplexity-calibrated conditionals over each row's neighbours,
    symmetrised.

    Parameters
    ----------
    distances : ndarray (n, k)
    indices : ndarray of int (n, k)
    perplexity : float
    joint : bool, default=True
        False: the conditionals p(j | i) themselves (rows sum to one).
    kernel : {'perplexity', 'multiscale', 'uniform'}, default='perplexity'

    Returns
    -------
    P : CSR (n, n)
    nearest : ndarray (n,)
        Each point's distance to its nearest neighbour.

    Examples
    --------
    >>> P, nearest = affinities_from_neighbors(np.array([[1.0], [1.0], [2.0]]), np.array([[1], [0], [1]]), 1.0)
    >>> P.toarray().round(4).tolist(), nearest.tolist()
    ([[0.0, 0.3333, 0.0], [0.3333, 0.0, 0.1667], [0.0, 0.1667, 0.0]], [1.0, 1.0, 2.0])
    """
    conditional = row_affinities(distances, perplexity, kernel)
    return _joint_or_conditional(indices, conditional, joint), distances.min(axis=1)


def _joint_or_conditional(indices, conditional, joint, verbose=False):
    """The symmetrised joint affinities (with ``verbose``, under a bar over its passes),
    or (``joint=False``) the conditionals as CSR."""
    from .._kernels.symmetric_graph import SYMMETRIC_PASSES

    n, k = indices.shape
    if joint:
        with row_progress("t-SNE symmetrisation", n * SYMMETRIC_PASSES, verbose, SYMMETRIC_PASSES) as bar:
            return joint_probabilities(indices, conditional, n, bar)
    C = sp.csr_matrix((conditional.ravel(), indices.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))
    C.sort_indices()
    return C
