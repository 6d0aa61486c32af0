"""t-SNE's gradient: attraction along the sparse affinities (always exact) plus a
repulsion strategy (docs/design.md): 'exact' (all pairs), 'barnes_hut' (2^d-tree, d <= 3)
or 'fft' (interpolation on a grid and FFT convolution, d <= 2).

A repulsion strategy is called as ``repulsion(Y, dof) -> (R, Z)`` with
``R[i] = sum_{j != i} K1_ij w_ij (y_i - y_j)`` and ``Z = sum_{i != j} K1_ij``, where
``K1 = (1 + d^2 / dof) ** (-(dof + 1) / 2)`` and ``w = 1 / (1 + d^2 / dof)``. The
gradient of KL(P || Q) is then ``2 (dof + 1) / dof * (A - R / Z)`` with ``A`` the
attraction.
"""

import numpy as np
import scipy.fft

ENTROPY_CHUNK = 1 << 22  # affinities per chunk of sum P log P
MAX_BOXES = 512  # per axis: the FFT grid is capped, boxes widen beyond this span
ONE_DIM_REFINEMENT = 8  # 1-D grids are cheap: boxes 8 times narrower (accuracy as a 2-D grid of 1/8)


class ExactRepulsion:
    """All pairs, O(n^2) per call: the reference the others are checked against.

    Examples
    --------
    >>> Y = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> R, Z = ExactRepulsion()(Y, 1.0)
    >>> R.tolist(), Z
    ([[-0.25, 0.0], [0.25, 0.0]], 1.0)
    """

    name = "exact"

    def __call__(self, Y, dof):
        from .._kernels.tsne_forces import exact_repulsion

        R = np.empty_like(Y)
        z_rows = np.empty(Y.shape[0])
        exact_repulsion(Y, float(dof), R, z_rows)
        return R, float(z_rows.sum())


class BarnesHutRepulsion:
    """Barnes-Hut: cells seen under an angle below ``theta`` act as their centre of
    mass; ``theta = 0`` is exact. Embeddings of 1 to 3 dimensions.

    Parameters
    ----------
    theta : float, default=0.5
        Opening angle: a cell whose size over distance is below it acts as one point
        (0: exact).

    Examples
    --------
    >>> Y = np.random.default_rng(0).normal(size=(200, 2))
    >>> R, Z = BarnesHutRepulsion(0.0)(Y, 1.0)
    >>> R0, Z0 = ExactRepulsion()(Y, 1.0)
    >>> bool(np.allclose(R, R0) and np.isclose(Z, Z0))
    True
    """

    name = "barnes_hut"

    def __init__(self, theta=0.5):
        self.theta = theta

    def __call__(self, Y, dof):
        tree = SpaceTree(Y)
        R, z_rows = tree.repulsion(Y, self.theta, dof, exclude_self=True)
        return R, float(z_rows.sum())


class SpaceTree:
    """The 2^d-tree of an embedding (d <= 3), for Barnes-Hut sums from any query points.

    Examples
    --------
    >>> tree = SpaceTree(np.array([[0.0, 0.0], [1.0, 0.0]]))
    >>> R, z = tree.repulsion(np.array([[0.0, 1.0]]), 0.0, 1.0, exclude_self=False)
    >>> round(float(z[0]), 4)  # K1 = 1 / (1 + d^2) at d^2 = 1 and 2
    0.8333
    """

    def __init__(self, Y):
        from .._kernels.tsne_tree import build_tree

        n, d = Y.shape
        capacity = 2 * n + 16
        while True:
            arrays = (
                np.full((capacity, 2**d), -1, dtype=np.int64),
                np.empty((capacity, d)),
                np.empty(capacity),
                np.zeros((capacity, d)),
                np.zeros(capacity),
                np.full(capacity, -1, dtype=np.int64),
            )
            used = build_tree(np.ascontiguousarray(Y, dtype=np.float64), *arrays)
            if used > 0:
                break
            capacity *= 2
        self.child, self.center, self.half, self.com, self.count, self.point = arrays

    def repulsion(self, Q, theta, dof, *, exclude_self):
        """``(R, z_rows)``: per query point, the repulsion sum and its own normaliser."""
        from .._kernels.tsne_tree import tree_repulsion

        Q = np.ascontiguousarray(Q, dtype=np.float64)
        R = np.empty_like(Q)
        z_rows = np.empty(Q.shape[0])
        tree_repulsion(
            Q,
            self.child,
            self.half,
            self.com,
            self.count,
            self.point,
            float(theta),
            float(dof),
            exclude_self,
            R,
            z_rows,
        )
        return R, z_rows


class FFTRepulsion:
    """Interpolation-based repulsion (FIt-SNE): charges ``[1, y]`` spread onto a grid of
    ``n_interpolation_points`` Lagrange nodes per box, boxes about ``interval_width``
    wide (at least ``min_intervals`` per axis, at most 512; in 1-D eight times as many),
    both kernels applied by FFT convolution, potentials read back. O(n + grid log grid);
    1-D and 2-D. The default grid (FIt-SNE's) puts the repulsion of a spread-out
    embedding a few per cent off, which t-SNE tolerates; finer grids converge to exact.

    Parameters
    ----------
    n_interpolation_points : int, default=3
        Interpolation nodes per grid interval.
    min_intervals : int, default=50
        Grid intervals per dimension at least.
    interval_width : float, default=1.0
        Largest width of an interval in embedding units.

    Examples
    --------
    >>> Y = np.random.default_rng(0).normal(size=(500, 2))
    >>> R, Z = FFTRepulsion()(Y, 1.0)
    >>> R0, Z0 = ExactRepulsion()(Y, 1.0)
    >>> bool(np.abs(R - R0).max() < 1e-3 * np.abs(R0).max() and abs(Z / Z0 - 1) < 1e-4)
    True
    """

    name = "fft"

    def __init__(self, n_interpolation_points=3, min_intervals=50, interval_width=1.0):
        self.n_interpolation_points = n_interpolation_points
        self.min_intervals = min_intervals
        self.interval_width = interval_width

    def _boxes(self, Y2, one_dim):
        from .._kernels.tsne_grid import bounding_box

        lo, hi = bounding_box(Y2)
        span = hi - lo
        width = self.interval_width / (ONE_DIM_REFINEMENT if one_dim else 1)
        n_boxes = np.clip(
            np.ceil(span / width).astype(np.int64),
            self.min_intervals,
            MAX_BOXES * (ONE_DIM_REFINEMENT if one_dim else 1),
        )
        if one_dim:  # the second axis is a single box around 0 (only its middle node is used)
            lo[1], span[1], n_boxes[1] = -0.5, 1.0, 1
        h = np.maximum(span, 1e-12) * (1 + 1e-9) / n_boxes
        return lo, h, n_boxes

    def __call__(self, Y, dof):
        from .._kernels.tsne_grid import interpolate, spread

        n, d = Y.shape
        if d > 2:
            raise ValueError(
                f"the FFT repulsion handles 1- or 2-D embeddings; this one has {d} dimensions "
                "(use method='barnes_hut' or 'exact')."
            )
        Y2 = np.zeros((n, 2))
        Y2[:, :d] = Y
        lo, h, n_boxes = self._boxes(Y2, d == 1)
        p = self.n_interpolation_points
        charges = np.ones((n, 1 + d))
        charges[:, 1:] = Y
        grid = np.zeros((1 + d, n_boxes[0] * p, n_boxes[1] * p))
        spread(Y2, charges, lo, h, n_boxes, p, grid)
        potential, z_all = _grid_potentials(grid, h / p, dof)
        phi = np.empty((n, 1 + d))
        interpolate(Y2, lo, h, n_boxes, p, potential, phi)
        # phi = K2 * [1, y]; each point's own K1(0) = 1 is taken out of Z
        return Y * phi[:, :1] - phi[:, 1:], z_all - n


def _grid_potentials(grid, spacing, dof):
    """``K2 * grid[c]`` for every charge channel (zero-padded FFT convolution in
    float32) and ``sum(grid[0] * (K1 * grid[0]))`` by Parseval, without its inverse FFT.

    The kernels are even, so their spectra are real: each is a 2-D DCT-I of one quarter
    of the padded kernel (a quarter of the work of its FFT)."""
    n_ch, g0, g1 = grid.shape
    half = (scipy.fft.next_fast_len(g0), scipy.fft.next_fast_len(g1))  # padded sizes 2 x half >= 2 g - 1
    shape = (2 * half[0], 2 * half[1])
    d2 = (np.arange(half[0] + 1) * spacing[0])[:, None] ** 2 + (np.arange(half[1] + 1) * spacing[1])[None, :] ** 2
    w = 1.0 / (1.0 + d2 / dof)
    k1 = w if dof == 1.0 else w ** (0.5 * (dof + 1.0))
    import numba

    workers = numba.get_num_threads()
    quarter = scipy.fft.dctn(np.stack([k1 * w, k1]).astype(np.float32), type=1, axes=(1, 2), workers=workers)
    kernels = np.concatenate([quarter, quarter[:, -2:0:-1]], axis=1)  # mirror the first axis: (2, L0, L1 / 2 + 1)
    potential = np.empty(grid.shape)
    for c in range(n_ch):  # one channel at a time: the padded spectra of a 1536^2 grid are 100 MB each
        charges = scipy.fft.rfft2(grid[c].astype(np.float32), s=shape, workers=workers)
        potential[c] = scipy.fft.irfft2(charges * kernels[0], s=shape, workers=workers)[:g0, :g1]
        if c == 0:
            power = (charges.real**2 + charges.imag**2) * kernels[1]
            edges = power[:, 0].sum(dtype=np.float64) + power[:, -1].sum(dtype=np.float64)
            total = 2.0 * power.sum(dtype=np.float64) - edges
    return potential, float(total / (shape[0] * shape[1]))


REPULSIONS = ("exact", "barnes_hut", "fft")
# 'auto': exact, then Barnes-Hut, then FFT (d <= 2); the tree's iterations overtake the
# exact O(n^2) ones at a few hundred points, in 2-D and 3-D alike (BENCHMARKS.md, Awkward shapes)
EXACT_UP_TO, TREE_UP_TO = 400, 10_000


def check_method_dimensions(method, n_components):
    """Refuse an output dimension the repulsion ``method`` has no tree or grid for.

    Examples
    --------
    >>> check_method_dimensions("barnes_hut", 3)
    """
    if method == "barnes_hut" and n_components > 3:
        raise ValueError(
            "'n_components' should be inferior to 4 for the barnes_hut algorithm as it relies on quad-tree or "
            f"oct-tree: method='barnes_hut' handles n_components <= 3, got n_components={n_components} "
            "(use method='exact')."
        )
    if method == "fft" and n_components > 2:
        raise ValueError(
            f"method='fft' handles n_components 1 or 2; got n_components={n_components} "
            "(use method='barnes_hut' or 'exact')."
        )


def choose_repulsion(method, n_samples, n_components, angle):
    """The repulsion strategy for ``method`` (resolving 'auto' by size and dimension).

    Examples
    --------
    >>> choose_repulsion("auto", 70000, 2, 0.5).name
    'fft'
    >>> choose_repulsion("auto", 5000, 3, 0.5).name
    'barnes_hut'
    >>> choose_repulsion("auto", 400, 2, 0.5).name, choose_repulsion("auto", 401, 2, 0.5).name
    ('exact', 'barnes_hut')
    """
    if method == "auto":
        if n_samples <= EXACT_UP_TO:
            method = "exact"
        elif n_samples <= TREE_UP_TO or n_components > 2:
            method = "barnes_hut" if n_components <= 3 else "exact"
        else:
            method = "fft"
    check_method_dimensions(method, n_components)
    return {"exact": ExactRepulsion, "fft": FFTRepulsion}.get(method, lambda: BarnesHutRepulsion(angle))()


class StudentObjective:
    """t-SNE's objective KL(P || Q), Q from the Student-t kernel with ``dof`` degrees
    of freedom: exact attraction over the sparse ``P`` plus a repulsion strategy.

    Parameters
    ----------
    P : scipy.sparse.csr_matrix (n, n)
        Joint affinities summing to one.
    repulsion : ExactRepulsion, BarnesHutRepulsion or FFTRepulsion
    dof : float
        Degrees of freedom of the Student-t kernel (1: t-SNE).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> P = sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))
    >>> objective = StudentObjective(P, ExactRepulsion(), 1.0)
    >>> objective.final(np.array([[0.0, 0.0], [1.0, 0.0]]))
    0.0
    """

    def __init__(self, P, repulsion, dof):
        self.P, self.repulsion, self.dof = P, repulsion, float(dof)
        self.p_log_p = entropy_term(P)
        self.scale = 2.0 * (self.dof + 1.0) / self.dof

    def gradient(self, Y, exaggeration):
        """``(gradient, Z)`` with the attraction multiplied by ``exaggeration``."""
        R, Z = self.repulsion(Y, self.dof)
        return self.scale * (exaggeration * attraction(self.P, Y, self.dof) - R / Z), Z

    def value(self, Y, Z):
        """KL divergence given the normaliser ``Z`` of the last gradient."""
        return kl_divergence(self.P, Y, self.dof, Z, self.p_log_p)

    def final(self, Y):
        """KL divergence at ``Y``."""
        return self.value(Y, self.repulsion(Y, self.dof)[1])


def attraction(P, Y, dof):
    """``A[i] = sum_j P_ij w_ij (y_i - y_j)`` over the sparse affinities ``P`` (CSR)."""
    from .._kernels.tsne_forces import attractive_forces

    A = np.empty_like(Y)
    attractive_forces(P.indptr, P.indices, P.data, Y, float(dof), A)
    return A


def kl_divergence(P, Y, dof, Z, p_log_p=None):
    """KL(P || Q) for joint affinities ``P`` summing to one and the embedding's
    normaliser ``Z``; ``p_log_p`` is ``sum P log P`` if already known (it does not
    change during a fit).

    Parameters
    ----------
    P : scipy.sparse.csr_matrix (n, n)
    Y : ndarray (n, d)
    dof : float
    Z : float
        The normaliser ``sum_{i != j} K(y_i, y_j)``.
    p_log_p : float, optional

    Returns
    -------
    float

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> Y = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> P = sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))
    >>> kl_divergence(P, Y, 1.0, ExactRepulsion()(Y, 1.0)[1])
    0.0
    """
    from .._kernels.tsne_forces import kl_edge_terms

    if p_log_p is None:
        p_log_p = entropy_term(P)
    terms = np.empty(Y.shape[0])
    kl_edge_terms(P.indptr, P.indices, P.data, Y, float(dof), terms)
    return max(float(p_log_p + terms.sum() + np.log(Z)), 0.0)


def entropy_term(P):
    """``sum P log P`` over the stored (positive) affinities.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> round(entropy_term(sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))), 4)
    -0.6931
    """
    total = 0.0
    for start in range(0, P.data.size, ENTROPY_CHUNK):  # bounded temporaries on large graphs
        p = P.data[start : start + ENTROPY_CHUNK].astype(np.float64)
        p = p[p > 0]
        total += float(np.dot(p, np.log(p)))
    return total
