"""Correspondence analysis: the chi-square geometry of a contingency table, its SVD from
the Gram matrix of the smaller side (sparse tables stay sparse), and the coordinates,
contributions and squared cosines that read it (Benzecri; Greenacre, 1984)."""

import numpy as np
import scipy.sparse as sp

from .._memory import require_memory
from ..linalg import flip_signs, top_eigh

# principal inertias below this share of the largest, or of the trivial one (1, which the
# Gram matrix has subtracted), are zero: round-off of that matrix
RANK_TOL = 1e-10


def _masses(N):
    """Correspondence matrix P (sparse CSR or dense float64), row and column masses."""
    N = sp.csr_matrix(N, dtype=np.float64) if sp.issparse(N) else np.asarray(N, dtype=np.float64)
    total = float(N.sum())
    P = N / total
    r = np.asarray(P.sum(axis=1)).ravel()
    c = np.asarray(P.sum(axis=0)).ravel()
    return P, r, c


def _scaled(P, left, right):
    """``diag(left) P diag(right)`` for sparse or dense P."""
    if sp.issparse(P):
        return sp.diags(left) @ P @ sp.diags(right)
    return left[:, None] * P * right[None, :]


def chi_square_svd(P, r, c, n_components):
    """The largest ``n_components`` singular triplets of the standardised residuals
    ``S = D_r^{-1/2} (P - r c^T) D_c^{-1/2}`` without forming S: the Gram matrix of the
    smaller side, ``D_c^{-1/2} (P^T D_r^{-1} P - c c^T) D_c^{-1/2}`` (a sparse product for
    a sparse P), and its top eigenpairs.

    Parameters
    ----------
    P : ndarray or sparse matrix (I, J)
        Correspondence matrix (sums to 1); every row and column mass positive.
    r, c : ndarray (I,), (J,)
        Row and column masses.
    n_components : int

    Returns
    -------
    sigma : ndarray (k,)
        Singular values (square roots of the principal inertias), descending; inertias
        below ``RANK_TOL`` (of the trivial one, 1) are dropped, so k can be below
        n_components, and 0 for a table without inertia.
    U : ndarray (I, k)
    V : ndarray (J, k)

    Examples
    --------
    >>> P = np.array([[0.3, 0.1], [0.1, 0.5]])
    >>> sigma, U, V = chi_square_svd(P, P.sum(1), P.sum(0), 1)
    >>> round(float(sigma[0] ** 2), 6)  # chi-square / n of the 2 x 2 table
    0.340278
    """
    transpose = P.shape[0] < P.shape[1]
    if transpose:
        P, r, c = P.T, c, r
    J = P.shape[1]
    require_memory(8 * J * J * 3, f"correspondence analysis of {J} columns", "reduce the number of categories")
    inv_sqrt_c = 1.0 / np.sqrt(c)
    Q = _scaled(P, 1.0 / np.sqrt(r), inv_sqrt_c)
    G = Q.T @ Q
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    root_c = np.sqrt(c)
    G -= np.outer(root_c, root_c)  # the trivial dimension (singular value 1) removed
    if not np.any(G):
        raise ValueError(
            "every row of the table has the same profile (identical rows, or proportional ones): there is no "
            "inertia to analyse."
        )
    w, V = top_eigh(G, min(n_components, J))  # descending
    keep = w > RANK_TOL * max(float(w[0]), 1.0) if w.size else w > 0
    sigma, V = np.sqrt(w[keep]), V[:, keep]
    U = (Q @ V - np.outer(np.sqrt(r), root_c @ V)) / sigma  # S V = U sigma
    U = np.asarray(U)
    return (sigma, V, U) if transpose else (sigma, U, V)


def row_profile_norms(P, r, c):
    """Squared chi-square distance of each row profile to the average profile,
    ``sum_j (p_ij / r_i - c_j)^2 / c_j`` (the denominator of a row's squared cosines)."""
    A = _scaled(P, 1.0 / r, 1.0 / np.sqrt(c))
    squares = A.multiply(A).sum(axis=1) if sp.issparse(A) else (A * A).sum(axis=1)
    return np.maximum(np.asarray(squares).ravel() - 1.0, 0.0)


class CorrespondenceResult:
    """What a correspondence analysis of P gives: principal coordinates of rows and
    columns, the standard coordinates that place new rows and columns, contributions and
    squared cosines, from ``P`` and its masses."""

    def __init__(self, P, r, c, n_components):
        sigma, U, V = chi_square_svd(P, r, c, n_components)
        V, U = flip_signs(V.T, U)
        # axes beyond the table's inertia (none at all: every profile the average) are
        # zero: inertia 0, every row and column at 0 on them, new ones too
        pad = max(n_components - sigma.size, 0)
        sigma, U, V = np.pad(sigma, (0, pad)), np.pad(U, ((0, 0), (0, pad))), np.pad(V.T, ((0, 0), (0, pad)))
        self.sigma = sigma
        self.eigenvalues = sigma**2
        self.column_standard = V / np.sqrt(c)[:, None]  # a new row's profile times these: its coordinates
        self.row_standard = U / np.sqrt(r)[:, None]
        self.row_coordinates = self.row_standard * sigma
        self.column_coordinates = self.column_standard * sigma
        self.row_contributions = _shares(r[:, None] * self.row_coordinates**2, self.eigenvalues)
        self.column_contributions = _shares(c[:, None] * self.column_coordinates**2, self.eigenvalues)
        row_norms = row_profile_norms(P, r, c)
        self.row_cos2 = _cos2(self.row_coordinates, row_norms)
        self.column_cos2 = _cos2(self.column_coordinates, row_profile_norms(P.T, c, r))
        self.total_inertia = float(row_norms @ r)


def _shares(parts, totals):
    """``parts / totals`` by column, 0 on an axis of no inertia."""
    return np.divide(parts, totals, out=np.zeros_like(parts), where=totals > 0)


def _cos2(coordinates, norms):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms[:, None] > 0, coordinates**2 / norms[:, None], 0.0)


def supplementary_rows(counts, column_standard):
    """Principal coordinates of new rows from their counts: their profiles (each row
    divided by its sum) times the columns' standard coordinates (the transition formula);
    a row without counts has no profile and sits at the origin.

    Parameters
    ----------
    counts : ndarray or sparse matrix (m, J)
    column_standard : ndarray (J, k)

    Returns
    -------
    ndarray (m, k)

    Examples
    --------
    >>> supplementary_rows(np.array([[1.0, 1.0]]), np.array([[1.0], [-1.0]])).tolist()
    [[0.0]]
    """
    counts = sp.csr_matrix(counts, dtype=np.float64) if sp.issparse(counts) else np.asarray(counts, dtype=np.float64)
    sums = np.asarray(counts.sum(axis=1)).ravel()
    inverse = np.where(sums > 0, 1.0 / np.where(sums > 0, sums, 1.0), 0.0)  # no counts: no profile, the origin
    profiles = _scaled(counts, inverse, np.ones(counts.shape[1])) if sp.issparse(counts) else counts * inverse[:, None]
    return np.asarray(profiles @ column_standard)
