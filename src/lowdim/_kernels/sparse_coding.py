"""Sparse codes of many rows against one dictionary, from its Gram matrix: coordinate
descent for the lasso, least-angle regression (plain or lasso) and orthogonal matching
pursuit. Each row is independent (ranges of rows on the thread pool); every kernel reads only
``G = D D^T`` (k x k) and the correlations ``C = X D^T`` (n x k), so the work per row
does not grow with the number of features."""

import numpy as np
from numba import njit

from .._threads import in_row_ranges

ROWS = 64  # rows a thread takes at least: a row's path is microseconds


def lasso_cd(G, C, alpha, positive, max_iter, tol, codes):
    """Coordinate descent on ``0.5 c^T G c - C_i . c + alpha |c|_1`` for every row,
    from ``codes`` (a warm start, updated in place). A row stops when a sweep moves no
    coefficient by more than ``tol`` times its largest coefficient.

    Parameters
    ----------
    G : float64 array (k, k), positive diagonal where an atom is used
    C : float64 array (n, k)
    alpha : float, positive : bool, max_iter : int, tol : float
    codes : float64 array (n, k)

    Returns
    -------
    int: the most sweeps any row took
    """

    def run(lo, hi):
        return _lasso_cd_rows(G, C, alpha, positive, max_iter, tol, codes, lo, hi, np.empty(C.shape[1]))

    return max(in_row_ranges("sparse_coding", 0, C.shape[0], run, min_size=ROWS), default=0)


@njit(cache=True, nogil=True, error_model="numpy")
def _lasso_cd_rows(G, C, alpha, positive, max_iter, tol, codes, lo, hi, grad):
    """``lasso_cd`` for rows lo..hi, ``grad`` (k,) the range's scratch; the most sweeps
    one of them took."""
    k = C.shape[1]
    most = 0
    for i in range(lo, hi):
        c = codes[i]
        for m in range(k):  # C_i - G c, kept current as coefficients change (loops: no BLAS to compile)
            acc = C[i, m]
            for j in range(k):
                acc -= G[m, j] * c[j]
            grad[m] = acc
        for sweep in range(max_iter):
            largest_step = 0.0
            largest = 0.0
            for j in range(k):
                if G[j, j] <= 0.0:
                    continue
                rho = grad[j] + G[j, j] * c[j]
                if positive:
                    new = max(rho - alpha, 0.0) / G[j, j]
                elif rho > alpha:
                    new = (rho - alpha) / G[j, j]
                elif rho < -alpha:
                    new = (rho + alpha) / G[j, j]
                else:
                    new = 0.0
                step = new - c[j]
                if step != 0.0:
                    for m in range(k):
                        grad[m] -= G[m, j] * step
                    c[j] = new
                largest_step = max(largest_step, abs(step))
                largest = max(largest, abs(new))
            most = max(most, sweep + 1)
            if largest_step <= tol * largest:
                break
    return most


@njit(cache=True, error_model="numpy", inline="always")
def _cholesky_append(L, size, G, active, j):
    """Grow the Cholesky factor of ``G[active, active]`` by atom j; False when the atom
    is (numerically) in the span of the active ones."""
    for m in range(size):
        acc = G[active[m], j]
        for p in range(m):
            acc -= L[m, p] * L[size, p]
        L[size, m] = acc / L[m, m]
    diag = G[j, j]
    for p in range(size):
        diag -= L[size, p] * L[size, p]
    if diag <= 1e-12 * max(G[j, j], 1e-300):
        return False
    L[size, size] = np.sqrt(diag)
    return True


@njit(cache=True, error_model="numpy", inline="always")
def _cholesky_solve(L, size, b, out):
    """``out = (L L^T)^-1 b`` for the leading ``size`` block of L."""
    for m in range(size):
        acc = b[m]
        for p in range(m):
            acc -= L[m, p] * out[p]
        out[m] = acc / L[m, m]
    for m in range(size - 1, -1, -1):
        acc = out[m]
        for p in range(m + 1, size):
            acc -= L[p, m] * out[p]
        out[m] = acc / L[m, m]


def omp(G, C, n_nonzero, codes):
    """Orthogonal matching pursuit from the Gram matrix (batch OMP, Rubinstein, Zibulevsky
    & Elad 2008): each step adds the atom most correlated with the residual and refits
    the active atoms by least squares; stops at ``n_nonzero`` atoms, or when no atom is
    correlated with the residual or independent of the chosen ones.

    Parameters
    ----------
    G : float64 array (k, k), C : float64 array (n, k), n_nonzero : int
    codes : float64 array (n, k), zeros on entry; filled in place
    """
    steps = min(n_nonzero, C.shape[1])

    def run(lo, hi):
        work, flags = np.empty((steps + 3, C.shape[1])), np.empty((2, C.shape[1]), dtype=np.int64)
        _omp_rows(G, C, steps, codes, lo, hi, work, flags)

    in_row_ranges("sparse_coding", 0, C.shape[0], run, min_size=ROWS)


@njit(cache=True, nogil=True, error_model="numpy")
def _omp_rows(G, C, steps, codes, lo, hi, work, flags):
    """``omp`` of at most ``steps`` atoms for rows lo..hi, in the range's scratch
    ``work`` (steps + 3, k) and ``flags`` (2, k) (as ``_lars_row``)."""
    k = C.shape[1]
    L, coef, rhs, residual_corr = work[:steps], work[steps], work[steps + 1], work[steps + 2]
    active, chosen = flags[0], flags[1]
    for i in range(lo, hi):
        work[:] = 0.0
        flags[:] = 0
        scale = 1e-300
        for m in range(k):
            residual_corr[m] = C[i, m]
            scale = max(scale, abs(C[i, m]))
        size = 0
        while size < steps:
            j, best = -1, 0.0
            for m in range(k):
                if chosen[m] == 0 and abs(residual_corr[m]) > best:
                    j, best = m, abs(residual_corr[m])
            if j < 0 or best <= 1e-15 * scale:
                break
            if not _cholesky_append(L, size, G, active, j):
                break
            active[size] = j
            chosen[j] = 1
            rhs[size] = C[i, j]
            size += 1
            _cholesky_solve(L, size, rhs, coef)
            for m in range(k):  # C_i - G[:, active] coef
                acc = C[i, m]
                for p in range(size):
                    acc -= G[m, active[p]] * coef[p]
                residual_corr[m] = acc
        for p in range(size):
            codes[i, active[p]] = coef[p]


@njit(cache=True, error_model="numpy", inline="always")
def _direction_rate(G, m, active, w, size, norm):
    """How fast atom m's correlation falls per unit step along the direction."""
    a = 0.0
    for p in range(size):
        a += G[m, active[p]] * w[p]
    return a * norm


@njit(cache=True, error_model="numpy", inline="always")
def _next_entry(G, corr, top, norm, gamma, active, is_active, w, size, dropped, positive):
    """``(step, atom)``: the first inactive atom whose correlation ties with the active
    ones' within ``gamma`` (``(gamma, -1)``: none). An atom just dropped ties on its own
    sign's side at the step's start (linear in the step, never again in it); it may cross
    on the other side."""
    enter = -1
    for m in range(corr.size):
        if is_active[m]:
            continue
        a = _direction_rate(G, m, active, w, size, norm)
        rising = (top - corr[m]) / (norm - a)
        if 1e-15 < rising < gamma and not (m == dropped and corr[m] > 0):
            gamma, enter = rising, m
        falling = (top + corr[m]) / (norm + a)
        if not positive and 1e-15 < falling < gamma and not (m == dropped and corr[m] < 0):
            gamma, enter = falling, m
    return gamma, enter


@njit(cache=True, error_model="numpy")
def _lars_row(G, c_row, alpha, n_nonzero, lasso, positive, out, work, flags):
    """One row's least-angle regression (Efron, Hastie, Johnstone & Tibshirani 2004)
    along the path of ``0.5 c^T G c - c_row . c``: the active atoms' coefficients move
    along the equiangular direction until another atom's correlation ties with theirs.
    With ``lasso`` an active coefficient that reaches zero leaves the set and the path
    stops where the correlation falls to ``alpha``; without, it stops with
    ``n_nonzero`` active atoms, where the next would enter. An atom in the span of the
    active ones (a copy, or a combination) is passed over (``is_active`` 2) until the set
    shrinks, rather than ending the path there. ``work`` (k + 4, k) and
    ``flags`` (2, k) are scratch given by the caller: no allocation here, whose
    compilation would cost a first call more than the path."""
    k = c_row.size
    work[:] = 0.0
    flags[:] = 0
    L, coef, signs, w, corr = work[:k], work[k], work[k + 1], work[k + 2], work[k + 3]  # coef in active order
    active, is_active = flags[0], flags[1]
    for m in range(k):  # not a slice copy: its shape check compiles numba's error formatting
        corr[m] = c_row[m]
    j, best = -1, 0.0
    for m in range(k):
        value = corr[m] if positive else abs(corr[m])
        if value > best:
            j, best = m, value
    if j < 0 or (lasso and best <= alpha) or not _cholesky_append(L, 0, G, active, j):
        return
    active[0], is_active[j], signs[0], size = j, 1, np.sign(corr[j]), 1
    dropped = -1  # the atom the last step dropped (``_next_entry``)
    for _ in range(8 * k + 8):  # each step adds or drops one atom
        top = abs(corr[active[0]])
        _cholesky_solve(L, size, signs, w)
        scale = 0.0
        for p in range(size):
            scale += signs[p] * w[p]
        if scale <= 0.0:
            break
        norm = 1.0 / np.sqrt(scale)
        gamma = (top - alpha) / norm if lasso else np.inf
        gamma, enter = _next_entry(G, corr, top, norm, gamma, active, is_active, w, size, dropped, positive)
        drop = -1
        if lasso:  # an active coefficient that reaches zero first leaves the set
            for p in range(size):
                if w[p] != 0.0:
                    cand = -coef[p] / (w[p] * norm)
                    if 1e-15 < cand < gamma:
                        gamma, enter, drop = cand, -1, p
        if not np.isfinite(gamma):  # no atom can enter: go on to the least-squares fit
            gamma = top / norm
        for m in range(k):
            corr[m] -= gamma * _direction_rate(G, m, active, w, size, norm)
        for p in range(size):
            coef[p] += gamma * w[p] * norm
        dropped = active[drop] if drop >= 0 else -1
        if drop >= 0:
            for m in range(k):  # a smaller set: atoms passed over may now add a direction
                if is_active[m] == 2:
                    is_active[m] = 0
            is_active[active[drop]] = 0
            for p in range(drop, size - 1):
                active[p], coef[p], signs[p] = active[p + 1], coef[p + 1], signs[p + 1]
            size -= 1
            for p in range(size):  # refactor the smaller set
                _cholesky_append(L, p, G, active, active[p])
            if size == 0:
                break
            continue
        if enter < 0 or (not lasso and size >= n_nonzero):
            break
        if not _cholesky_append(L, size, G, active, enter):
            is_active[enter] = 2
            continue
        active[size], is_active[enter], signs[size], coef[size] = enter, 1, np.sign(corr[enter]), 0.0
        size += 1
    for p in range(size):
        out[active[p]] = coef[p]


def lars(G, C, alpha, n_nonzero, lasso, positive, codes):
    """``_lars_row`` for every row of C, into ``codes`` (zeros on entry)."""
    k = C.shape[1]

    def run(lo, hi):
        work, flags = np.empty((k + 4, k)), np.empty((2, k), dtype=np.int64)
        _lars_rows(G, C, alpha, n_nonzero, lasso, positive, codes, lo, hi, work, flags)

    in_row_ranges("sparse_coding", 0, C.shape[0], run, min_size=ROWS)


@njit(cache=True, nogil=True, error_model="numpy")
def _lars_rows(G, C, alpha, n_nonzero, lasso, positive, codes, lo, hi, work, flags):
    """``_lars_row`` for rows lo..hi, with one range's scratch."""
    for i in range(lo, hi):
        _lars_row(G, C[i], alpha, n_nonzero, lasso, positive, codes[i], work, flags)
