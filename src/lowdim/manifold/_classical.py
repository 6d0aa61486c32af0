"""Classical (Torgerson) MDS and landmark MDS (de Silva & Tenenbaum), as pure functions.

Classical MDS double-centres the squared dissimilarities, ``B = -J D^2 J / 2``, and
embeds with the top eigenvectors scaled by the square roots of their eigenvalues. A new
point is placed from its squared dissimilarities ``d2`` to the reference points by
Gower's formula ``y = Lambda^{-1/2} V^T (mean_sq - d2) / 2``, which is also how landmark
MDS places every non-landmark point.
"""

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import aslinearoperator

from ..linalg import flip_signs, lanczos_eigh, sq_euclidean, top_eigh


@dataclass
class ClassicalModel:
    """What out-of-sample placement needs.

    Attributes
    ----------
    vectors : ndarray (m, k)
        Eigenvectors of the double-centred matrix of the reference points.
    eigenvalues : ndarray (k,)
    mean_sq : ndarray (m,)
        Column means of the reference points' squared dissimilarities.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    >>> embedding, model = classical_mds(D, 2)
    >>> model.vectors.shape, model.eigenvalues.shape
    ((30, 2), (2,))
    """

    vectors: np.ndarray
    eigenvalues: np.ndarray
    mean_sq: np.ndarray

    def place(self, d2):
        """Coordinates of points with squared dissimilarities ``d2`` (rows) to the
        reference points (Gower's formula)."""
        scale = 1.0 / np.sqrt(np.maximum(self.eigenvalues, np.finfo(np.float64).tiny))
        return 0.5 * (self.mean_sq - np.asarray(d2, dtype=np.float64)) @ self.vectors * scale


def classical_mds(D, n_components, *, squared=False, overwrite=False, solver="auto", tol=0.0, max_iter=None):
    """Classical MDS of a square dissimilarity matrix.

    Parameters
    ----------
    D : ndarray (n, n)
        Symmetric dissimilarities (squared ones with ``squared=True``).
    n_components : int
    squared : bool
    overwrite : bool
        With ``squared``, ``D`` (float64) may be overwritten by the double-centred matrix.
    solver : {'auto', 'arpack', 'dense'}
        'dense': LAPACK; 'arpack': Lanczos to ``tol`` within ``max_iter`` restarts;
        'auto': Lanczos for a few eigenpairs of a matrix above 500 rows, else LAPACK.
    tol, max_iter : float, int or None
        'arpack' settings (0 and None: machine precision, ARPACK's default cap).

    Returns
    -------
    embedding : ndarray (n, n_components)
    model : ClassicalModel
        Eigenvalues (all reported, negative ones included: they measure how far D is
        from Euclidean) and what ``model.place`` needs for new points. Components with
        a non-positive eigenvalue get zero coordinates.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    >>> D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    >>> Y, model = classical_mds(D, 2)
    >>> np.allclose(np.sqrt(((Y[:, None] - Y[None]) ** 2).sum(-1)), D)
    True
    """
    if squared:
        B = np.array(D, dtype=np.float64, copy=not overwrite)
    else:
        B = np.square(np.asarray(D, dtype=np.float64))
    mean_sq = B.mean(axis=0)
    # B = -(D2 - row means - column means + grand mean) / 2, in place (n^2 passes, no copies)
    B -= mean_sq[None, :]
    B -= mean_sq[:, None]
    B += mean_sq.mean()
    B *= -0.5
    if solver == "auto":  # a few eigenpairs of a large matrix: Lanczos
        solver = "arpack" if B.shape[0] > 500 and n_components < B.shape[0] // 10 else "dense"
    if solver == "arpack" and n_components < B.shape[0]:
        w, V = lanczos_eigh(aslinearoperator(B), n_components, rng=np.random.default_rng(0), tol=tol, max_iter=max_iter)
    else:
        w, V = top_eigh(B, n_components)
    (Vt,) = flip_signs(V.T)
    V = Vt.T
    embedding = V * np.sqrt(np.maximum(w, 0.0))
    return embedding, ClassicalModel(V, w, mean_sq)


def farthest_points(X, n_points, rng):
    """Max-min (farthest-point) landmarks: a random first point, then repeatedly the
    point farthest from those chosen; spreads landmarks over the data.

    Parameters
    ----------
    X : ndarray (n, d)
    n_points : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int (n_points,)
        Row indices of the landmarks.

    Examples
    --------
    >>> farthest_points(np.array([[0.0], [1.0], [10.0]]), 2, np.random.default_rng(0)).size
    2
    """
    X = np.asarray(X, dtype=np.float64)
    chosen = [int(rng.integers(X.shape[0]))]
    x_sq = np.einsum("ij,ij->i", X, X)
    closest = sq_euclidean(X[chosen], X, x_sq[chosen], x_sq)[0]
    for _ in range(1, n_points):
        chosen.append(int(np.argmax(closest)))
        closest = np.minimum(closest, sq_euclidean(X[chosen[-1:]], X, x_sq[chosen[-1:]], x_sq)[0])
    return np.asarray(chosen, dtype=np.int64)


def landmark_mds(X, n_components, n_landmarks, rng):
    """Landmark MDS of the Euclidean distances of the rows of ``X``: classical MDS of
    ``n_landmarks`` farthest-point landmarks, every point placed by Gower's formula from
    its distances to them. O(n m) memory instead of O(n^2).

    Parameters
    ----------
    X : ndarray (n, d)
    n_components : int
    n_landmarks : int
    rng : numpy.random.Generator

    Returns
    -------
    embedding : ndarray (n, n_components)
    model : ClassicalModel
    landmarks : ndarray of int64 (n_landmarks,)

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> Y, _, _ = landmark_mds(X, 2, 20, np.random.default_rng(0))
    >>> D = lambda A: np.sqrt(((A[:, None] - A[None]) ** 2).sum(-1))
    >>> np.allclose(D(Y), D(X))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    landmarks = farthest_points(X, n_landmarks, rng)
    L = X[landmarks]
    _, model = classical_mds(sq_euclidean(L, L), n_components, squared=True)
    embedding = np.vstack([model.place(sq_euclidean(X[s : s + 8192], L)) for s in range(0, X.shape[0], 8192)])
    return embedding, model, landmarks
