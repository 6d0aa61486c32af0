"""The spectral start of a graph in pieces: each connected component laid out by its
own Laplacian eigenmap, shrunk to 0.4 of the distance to its nearest neighbouring
piece and placed where a layout of the pieces' centroids puts it (umap-learn's
arrangement, with metric MDS of the centroids where umap-learn takes their
eigenmap). Solving one eigenproblem for the whole graph instead would meet an
eigenvalue near zero per piece, and pieces would start on top of one another."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence

from ..decomposition import principal_scores
from ..linalg import group_row_sums, sq_euclidean
from ..manifold import laplacian_eigenmap, smacof

GAP_SHARE = 0.4  # a piece's radius: this share of the distance to the nearest other piece (a margin between)
DENSE_META_UPTO = 3_000  # pieces: up to here, their places are refined by MDS (a dense C x C matrix)


def component_start(A, X, labels, n_components, rng, tol=1e-4):
    """Starting coordinates for the graph ``A`` whose connected components are
    ``labels``, from the rows ``X`` (their centroids place the pieces).

    Parameters
    ----------
    A : sparse matrix (n, n)
        Symmetric affinities.
    X : ndarray or sparse matrix (n, d)
    labels : ndarray of int (n,)
        Component of each row, numbered from 0.
    n_components : int
        Dimensions of the start.
    rng : numpy.random.Generator
    tol : float
        The eigensolvers' relative accuracy (a start needs little).

    Returns
    -------
    ndarray (n, n_components), float64

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = np.r_[np.zeros((5, 2)), np.ones((5, 2)) * 10]
    >>> A = sp.block_diag([np.ones((5, 5)) - np.eye(5)] * 2).tocsr()
    >>> Y = component_start(A, X, np.repeat([0, 1], 5), 2, np.random.default_rng(0))
    >>> bool(np.abs(Y[:5].mean(0) - Y[5:].mean(0)).max() > 1)
    True
    """
    count = int(labels.max()) + 1
    centres = _centroids(X, labels, count)
    places = _place_pieces(centres, n_components, rng)
    radius = _radii(places, np.bincount(labels, minlength=count))
    order = np.argsort(labels, kind="stable")
    A = sp.csr_matrix(A)[order][:, order].tocsr()  # each piece a diagonal block
    bounds = np.r_[0, np.cumsum(np.bincount(labels, minlength=count))]
    Y = np.empty((labels.size, n_components))
    for c in range(count):
        start, stop = bounds[c], bounds[c + 1]
        Y[order[start:stop]] = places[c] + radius[c] * _piece_layout(A[start:stop, start:stop], n_components, rng, tol)
    return Y


def _radii(places, sizes):
    """Each piece's radius: its share, in proportion to the square root of its size (a
    map gives a piece room in proportion to its points), of twice ``GAP_SHARE`` of the
    distance to each other piece, at the nearest such bound. Two pieces' discs so keep
    at least a fifth of their distance apart, and a large piece next to small ones
    starts nearly as large as it will grow (with equal radii it grew over them)."""
    scale = np.sqrt(sizes.astype(np.float64))
    gaps = np.sqrt(np.maximum(sq_euclidean(places, places), 0.0))
    np.fill_diagonal(gaps, np.inf)
    share = 2.0 * scale[:, None] / (scale[:, None] + scale[None, :])
    return np.maximum(GAP_SHARE * (share * gaps).min(axis=1), 1e-3)  # pieces placed on one spot still get some extent


def _centroids(X, labels, count):
    """Mean row of each component, (count, d) float64."""
    sums, sizes = group_row_sums(X, labels, count)
    return sums / sizes[:, None]


def _place_pieces(centres, n_components, rng):
    """Positions of the pieces, spread over about [-1, 1]: opposite unit vectors for
    at most 2 x n_components pieces (all equally apart), else the principal coordinates
    of the centroids refined by metric MDS on their distances (a projection alone puts
    pieces that differ along other axes on one spot; stress keeps them apart), for very
    many pieces the principal coordinates alone."""
    count = centres.shape[0]
    if count <= 2 * n_components:
        axes = np.eye((count + 1) // 2, n_components)
        return np.r_[axes, -axes][:count]
    places = principal_scores(centres, n_components, rng)
    places += rng.normal(0.0, 1e-6 * max(np.abs(places).max(), 1e-12), size=places.shape)  # no two on one spot
    if count <= DENSE_META_UPTO:
        distances = np.sqrt(np.maximum(sq_euclidean(centres, centres), 0.0))
        places = smacof(distances, n_components, places, max_iter=100, eps=1e-4).state
    span = np.abs(places).max()
    return places / span if span > 0 else rng.normal(size=places.shape)


def _piece_layout(A, n_components, rng, tol):
    """One piece's own eigenmap scaled into the unit disc (small pieces, or pieces
    whose eigensolver does not converge, a random cloud in it)."""
    n = A.shape[0]
    Y = None
    if n > n_components + 1:
        try:
            Y, _ = laplacian_eigenmap(A, n_components, rng, tol=tol, bounded=True)
        except ArpackNoConvergence:
            pass
    if Y is None or not np.any(Y):
        Y = rng.uniform(-1.0, 1.0, size=(n, n_components))
    return Y / np.sqrt((Y**2).sum(axis=1).max())
