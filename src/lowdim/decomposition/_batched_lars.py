"""Least-angle regression of many rows at once, by numpy: the path of every row advanced
together, one equiangular step per round (each row adds or drops one atom), the active
sets as masks. The same path as the numba kernel ``_kernels/sparse_coding._lars_row``
(equal up to rounding: here each row's inverse of its active atoms' Gram matrix, grown and
shrunk by rank-one updates, there a Cholesky factor grown atom by atom); for fits whose
coding is too small to be worth that kernel's compilation (``CodingBudget``)."""

import numpy as np


class CodingBudget:
    """The coding one fit may still do by numpy before the numba kernel is worth its
    price: its compilation on a first call, and in a new process its loading from numba's
    cache, most of which is numba's own start, which a fit by numpy never pays
    (BENCHMARKS.md, Cold start). Calls of at most 50 ms each, a second in all
    (estimated): about that price, so a fit whose coding by numpy ends within it is
    faster without the kernel even when the kernel is cached. Each coding call asks with
    its size; a larger call, or one past the budget, closes it, and every later call of
    the fit goes to the kernel: a long fit pays the kernel's price once, a short one
    never. The choice depends only on the calls' sizes, so the same fit takes the same
    path.

    Examples
    --------
    >>> budget = CodingBudget()
    >>> budget.take(50, 10), budget.take(10**6, 10), budget.take(50, 10)
    (True, False, False)
    """

    SECONDS, LARGEST_CALL = 1.0, 0.05

    def __init__(self):
        self.left = self.SECONDS

    @classmethod
    def closed(cls):
        """A budget already spent: every call to the kernel.

        Examples
        --------
        >>> CodingBudget.closed().take(1, 1)
        False
        """
        budget = cls()
        budget.left = 0.0
        return budget

    def take(self, n_rows, n_atoms):
        """Whether ``n_rows`` rows of ``n_atoms`` atoms are coded by numpy (spending the
        estimate of their time from the budget)."""
        # at most about 1.2 rounds an atom (every atom entering), each 0.15 ms of numpy
        # calls and 2 ns a row and squared atom for the rank-one updates (measured for 10-40
        # atoms and 64-1,000 rows: at or above the time taken, up to about twice it)
        cost = 1.2 * n_atoms * (1.5e-4 + 2e-9 * n_rows * n_atoms**2)
        if cost > min(self.left, self.LARGEST_CALL):
            self.left = 0.0
            return False
        self.left -= cost
        return True


def batched_lars(G, C, alpha, n_nonzero, lasso, positive):
    """The least-angle path of every row of C along ``0.5 c^T G c - C[i] . c``, as
    ``_lars_row`` walks it: lasso stops at correlation ``alpha`` (an active coefficient
    reaching zero leaves the set), plain LARS at ``n_nonzero`` atoms.

    Parameters
    ----------
    G : ndarray of shape (k, k)
    C : ndarray of shape (n, k)
    alpha : float
    n_nonzero : int
    lasso, positive : bool

    Returns
    -------
    ndarray of shape (n, k)

    Examples
    --------
    >>> batched_lars(np.eye(2), np.array([[3.0, -0.5]]), 1.0, 2, True, False).tolist()
    [[2.0, 0.0]]
    """
    n, k = C.shape
    coef = np.zeros((n, k))
    if n == 0 or k == 0:
        return coef
    # each row holds the inverse of its active Gram block, k x k: chunks bound the memory
    step = max(1, 2**21 // (k * k))
    for lo in range(0, n, step):
        coef[lo : lo + step] = _lars_chunk(G, C[lo : lo + step], alpha, n_nonzero, lasso, positive)
    return coef


def _lars_chunk(G, C, alpha, n_nonzero, lasso, positive):
    """``batched_lars`` of rows whose inverses fit in memory together."""
    n, k = C.shape
    out = np.zeros((n, k))
    value = C if positive else np.abs(C)
    first = np.argmax(value, axis=1)
    best = value[np.arange(n), first]
    diag = np.diag(G)
    has_path = (best > 0.0) & ~(lasso & (best <= alpha)) & (diag[first] > 1e-12 * np.maximum(diag[first], 1e-300))
    index = np.flatnonzero(has_path)  # the rows worked on (the others' codes are zero)
    state = _start(G, C[index], first[index])
    running = np.ones(index.size, dtype=bool)
    for _ in range(8 * k + 8):
        rows = np.flatnonzero(running)
        if rows.size == 0:
            break
        if rows.size <= running.size // 2:  # every round costs its rows': keep the running ones only
            out[index] = state[1]
            state, index, running = [part[rows] for part in state], index[rows], running[rows]
            rows = np.arange(rows.size)
        stopped = _round(G, state, rows, alpha, n_nonzero, lasso, positive)
        running[stopped] = False
    out[index] = state[1]
    return out


def _start(G, C, first):
    """The paths' state after their first atom: ``[corr, coef, active, signs, lead,
    dropped, passed, inverse]``."""
    n, k = C.shape
    at = np.arange(n)
    active = np.zeros((n, k), dtype=bool)
    active[at, first] = True
    signs = np.zeros((n, k))
    signs[at, first] = np.sign(C[at, first])
    # per row, the inverse of G on its active atoms, the identity elsewhere: grown and
    # shrunk by rank-one updates, as the kernel grows its Cholesky factor, where a solve
    # per round costs a LAPACK call per row
    inverse = np.broadcast_to(np.eye(k), (n, k, k)).copy()
    inverse[at, first, first] = 1.0 / G[first, first]
    # lead: the first atom to enter (its correlation is the active ones'); passed: atoms
    # in the span of the active ones, until a drop
    lead, dropped, passed = first.copy(), np.full(n, -1), np.zeros((n, k), dtype=bool)
    return [np.array(C, dtype=np.float64), np.zeros((n, k)), active, signs, lead, dropped, passed, inverse]


def _round(G, state, rows, alpha, n_nonzero, lasso, positive):
    """One equiangular step of the running ``rows`` (``state`` updated in place); the
    rows whose path ends."""
    corr, coef, active, signs, lead, dropped, passed, inverse = state
    A, s, c = active[rows], signs[rows], corr[rows]
    # every row's inverse, the finished ones' too: cheaper than copying the running ones'
    w = np.matmul(inverse, signs[:, :, None])[rows, :, 0]  # zero off the active atoms, as s
    scale = np.einsum("rp,rp->r", s, w)
    ok = scale > 0.0
    norm = 1.0 / np.sqrt(np.where(ok, scale, 1.0))
    top = np.abs(c[np.arange(rows.size), lead[rows]])
    # a product per row, not one of the block: a row's sums whatever rows are beside it
    rate = np.matmul(w[:, None, :], G)[:, 0] * norm[:, None]
    gamma = (top - alpha) / norm if lasso else np.full(rows.size, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        free = ~A & ~passed[rows]
        # an atom just dropped ties on its own sign's side at the step's start (linear in
        # the step, never again in it); it may cross on the other side
        just = np.arange(G.shape[0])[None] == dropped[rows][:, None]
        step, allowed = (top[:, None] - c) / (norm[:, None] - rate), free & ~(just & (c > 0))
        if not positive:  # the falling side after the rising one: a tie goes to the rising
            step = np.hstack([step, (top[:, None] + c) / (norm[:, None] + rate)])
            allowed = np.hstack([allowed, free & ~(just & (c < 0))])
        enter, gamma = _first_tie(step, allowed, gamma, G.shape[0])
        drop = np.full(rows.size, -1)
        if lasso:  # an active coefficient that reaches zero first leaves the set
            zero = -coef[rows] / (w * norm[:, None])
            candidate, reach = _first_tie(zero, A & (w != 0.0), gamma, G.shape[0])
            leaves = candidate >= 0
            gamma, enter, drop = reach, np.where(leaves, -1, enter), candidate
    gamma = np.where(np.isfinite(gamma), gamma, top / norm)  # no atom can enter: the least-squares fit
    moving = rows[ok]
    corr[moving] -= (gamma[:, None] * rate)[ok]
    coef[moving] += (gamma[:, None] * w * norm[:, None])[ok]
    dropped[rows] = np.where(ok, drop, dropped[rows])
    stop = ~ok
    out = drop >= 0
    if np.any(out & ok):
        r, atoms = rows[out & ok], drop[out & ok]
        active[r, atoms], signs[r, atoms], coef[r, atoms] = False, 0.0, 0.0
        _shrink(inverse, r, atoms)
        passed[r] = False  # a smaller set: atoms passed over may now add a direction
        lost = r[~active[r].any(axis=1)]
        stop |= np.isin(rows, lost)
        _new_leads(active, lead, r)
    adds = ok & ~out
    size = A.sum(axis=1)
    stop |= adds & ((enter < 0) | ((not lasso) & (size >= n_nonzero)))
    adding = adds & ~stop
    if np.any(adding):
        r, atoms = rows[adding], enter[adding]
        independent = _grow(G, inverse, A[adding], r, atoms)
        passed[r[~independent], atoms[~independent]] = True  # passed over, not the end of the path
        r, atoms = r[independent], atoms[independent]
        active[r, atoms], signs[r, atoms], coef[r, atoms] = True, np.sign(corr[r, atoms]), 0.0
    return rows[stop]


def _first_tie(step, allowed, gamma, k):
    """Per row, the atom whose step (``step``: the ``k`` atoms' step lengths, one block
    of columns per side) is the smallest allowed above 1e-15 and below ``gamma`` (-1:
    none), and the step length."""
    step = np.where(allowed & (step > 1e-15), step, np.inf)
    at = np.argmin(step, axis=1)
    low = step[np.arange(gamma.size), at]
    better = low < gamma
    return np.where(better, at % k, -1), np.where(better, low, gamma)


def _grow(G, inverse, mask, rows, atoms):
    """Add each atom to its row's inverse where it adds a direction to the row's active
    atoms (``mask``): its residual against their span (a Schur complement, as a Cholesky
    factor's next pivot) is above rounding. Whether it did, per row."""
    entering = G[:, atoms].T * mask
    column = np.zeros(inverse.shape[:2])
    column[rows] = entering
    solved = np.matmul(inverse, column[:, :, None])[rows, :, 0]
    pivot = G[atoms, atoms] - np.einsum("rp,rp->r", entering, solved)
    independent = pivot > 1e-12 * np.maximum(G[atoms, atoms], 1e-300)
    r, j = rows[independent], atoms[independent]
    # block inversion: the new inverse is H - e_j e_j^T + v v^T / pivot, v = H b - e_j;
    # the rows that add nothing add zeros (cheaper than copying the others' out and back)
    v = np.zeros_like(column)
    v[r] = solved[independent] / np.sqrt(pivot[independent])[:, None]
    v[r, j] = -1.0 / np.sqrt(pivot[independent])
    inverse[r, j, j] = 0.0
    inverse += np.einsum("rp,rq->rpq", v, v)
    return independent


def _shrink(inverse, rows, atoms):
    """Drop each atom from its row's inverse: ``H - h h^T / h_jj`` with h the atom's
    column (the inverse of the smaller block), the identity on the atom."""
    h = np.zeros(inverse.shape[:2])
    h[rows] = inverse[rows, :, atoms] / np.sqrt(inverse[rows, atoms, atoms])[:, None]
    inverse -= np.einsum("rp,rq->rpq", h, h)
    inverse[rows, atoms, :] = inverse[rows, :, atoms] = 0.0  # exactly: rounding left there would move the atom
    inverse[rows, atoms, atoms] = 1.0


def _new_leads(active, lead, rows):
    """After a drop, each row's first remaining active atom leads (its correlation is
    read as the active ones')."""
    has = active[rows].any(axis=1)
    lead[rows[has]] = np.argmax(active[rows[has]], axis=1)
