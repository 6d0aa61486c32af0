"""The dictionary half of dictionary learning: block coordinate descent over the atoms
with the codes' statistics ``A = c^T c`` and ``B = c^T X`` (Mairal, Bach, Ponce &
Sapiro 2009, algorithm 2), and the objective both halves decrease."""

import numpy as np

from ..linalg import flip_signs


def update_atoms(D, A, B, rng, X, positive=False):
    """One pass of block coordinate descent over the atoms (rows of D), in place: each
    atom is the exact minimiser of ``0.5 tr(D^T A D) - tr(D^T B)`` with the others fixed,
    then projected onto the unit ball (and the non-negative orthant with
    ``positive``). An atom no code uses (``A[k, k]`` about 0) has no minimiser: it is
    replaced by a data row with a little noise, so it can be used again. Returns the
    number of atoms replaced.

    Examples
    --------
    >>> X = np.array([[2.0, 0.0], [0.0, 3.0]]); code = np.eye(2)
    >>> D = np.full((2, 2), 0.5)
    >>> update_atoms(D, code.T @ code, code.T @ X, np.random.default_rng(0), X)
    0
    >>> D.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    replaced = 0
    for k in range(D.shape[0]):
        if A[k, k] > 1e-6:
            D[k] += (B[k] - A[k] @ D) / A[k, k]
        else:
            row = X[rng.integers(X.shape[0])]
            noise = 0.01 * (float(np.std(row)) or 1.0)
            D[k] = row + rng.normal(0.0, noise, size=row.size)
            replaced += 1
        if positive:
            np.maximum(D[k], 0.0, out=D[k])
        D[k] /= max(float(np.linalg.norm(D[k])), 1.0)
    return replaced


def objective(X, code, D, alpha):
    """``0.5 ||X - code D||^2 + alpha ||code||_1``.

    Examples
    --------
    >>> objective(np.ones((1, 2)), np.ones((1, 1)), np.ones((1, 2)), 0.5)
    0.5
    """
    residual = X - code @ D
    return 0.5 * float(np.einsum("ij,ij->", residual, residual)) + alpha * float(np.abs(code).sum())


def svd_start(X, n_components):
    """Codes and dictionary from the SVD (``X = U (S V^T)``): the first ``n_components``
    singular pairs (the largest entry of each atom positive), padded with zeros when
    the data have fewer."""
    U, S, Vt = np.linalg.svd(X, full_matrices=False)
    # lowdim's sign convention, so that every LAPACK gives the same start
    D, code = flip_signs(S[:n_components, None] * Vt[:n_components], U[:, :n_components])
    missing = n_components - D.shape[0]
    if missing > 0:
        code = np.hstack([code, np.zeros((X.shape[0], missing))])
        D = np.vstack([D, np.zeros((missing, X.shape[1]))])
    return code, D
