"""UMAP's layout optimisation: edges sampled in proportion to their weight, negative
samples, a linearly decaying learning rate (the kernel is ``_kernels/umap_sgd``)."""

import numpy as np
import scipy.sparse as sp

from .._iterative import run_loop
from .._threads import in_row_ranges

SGD_RANGE = 1024  # points per range of an epoch: fewer cost less in the caller's thread than a hand-off


def default_epochs(n_samples):
    """umap-learn's default number of epochs: 500 up to 10,000 rows, 200 above.

    Examples
    --------
    >>> default_epochs(5000), default_epochs(70000)
    (500, 200)
    """
    return 500 if n_samples <= 10_000 else 200


def optimize_layout(
    Y,
    W,
    n_epochs,
    a,
    b,
    *,
    seed,
    gamma=1.0,
    negative_sample_rate=5,
    learning_rate=1.0,
    reference=None,
    callbacks=(),
    density=None,
    output_metric=(0, 2.0),
):
    """Run ``n_epochs`` epochs of SGD on ``Y`` (modified in place).

    Parameters
    ----------
    Y : ndarray (m, d) of float32
    W : sparse (m, n)
        Edge weights in [0, 1]; rows are the points that move. Edges lighter than
        ``max / n_epochs`` (max = the heaviest edge; 1 when placing points in a
        ``reference``, so that each point's schedule is its own) are never sampled.
    n_epochs : int
    a, b : float
        The output similarity ``1 / (1 + a d^(2b))``.
    seed : int
        Key of the per-(epoch, edge, sample) random numbers.
    gamma : float
        Weight of the repulsion.
    negative_sample_rate : int
        Negative samples per positive sample.
    learning_rate : float
        Initial step, decaying linearly to 0.
    reference : ndarray (n, d) of float32, optional
        A fixed embedding the rows of ``Y`` are placed in (transform); each point's
        random numbers are keyed by its edges' ends, so a batch gives the same result as
        one point at a time. None: the points embed themselves (``W`` symmetric, so
        each edge pulls both its ends, each at its own row's visit, and each end also
        takes the pull the other end's visit gives it in umap-learn's optimiser;
        random numbers keyed by edge position).
    callbacks : sequence of callables
        ``callback(epoch, objective, Y) -> stop?`` after every epoch (the shared loop's
        signature; UMAP's cross-entropy is not computed, so ``objective`` is NaN).
    density : Density, optional
        densMAP: in its last epochs the layout also raises the correlation between
        the embedding's local radii and the data's.
    output_metric : (int, float)
        The output space's code in ``_kernels.output_metrics.CODES`` (0: the Euclidean
        plane) and Minkowski's exponent.

    Returns
    -------
    int
        Epochs run.

    Examples
    --------
    >>> Y = np.array([[0.0, 0.0], [3.0, 0.0], [10.0, 10.0]], dtype=np.float32)
    >>> W = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]]))
    >>> optimize_layout(Y, W, 50, 1.58, 0.9, seed=0)
    50
    >>> bool(np.linalg.norm(Y[0] - Y[1]) < 3.0)
    True
    """
    layout = Layout(Y, W, n_epochs, a, b, seed, gamma, negative_sample_rate, learning_rate, reference, density)
    layout.output_metric = (int(output_metric[0]), float(output_metric[1]))
    epochs = iter(range(1, n_epochs + 1))

    def step(Y):
        layout.step(next(epochs))
        return Y, float("nan"), float("nan")

    return run_loop(step, Y, max_iter=n_epochs, tol=None, callbacks=callbacks, warn=False, label="UMAP layout").n_iter


class Layout:
    """One layout's SGD state between epochs (``optimize_layout``'s parameters): each
    edge's next sample and negative samples are due at their own epochs, so several
    layouts can advance in step (AlignedUMAP) with every edge sampled at its rate."""

    def __init__(self, Y, W, n_epochs, a, b, seed, gamma, negative_sample_rate, learning_rate, reference, density):
        self.Y, self.reference, self.density = Y, reference, density
        self.self_embedding = reference is None
        self.W, self.heaviest, self.keys = _sampled_edges(W, self.self_embedding)
        self.n_epochs, self.a, self.b, self.seed, self.gamma = n_epochs, float(a), float(b), int(seed), float(gamma)
        self.negative_sample_rate, self.learning_rate = float(negative_sample_rate), float(learning_rate)
        self.output_metric = (0, 2.0)  # the Euclidean plane

    def alpha(self, epoch):
        """The step size of ``epoch`` (1-based): linear decay to 0."""
        return self.learning_rate * (1.0 - (epoch - 1) / self.n_epochs)

    def pull_other(self, epoch):
        """The weight of the other end's pull along each edge (``_kernels/umap_sgd``): 1
        while the step is above 0.5 (half the default start), then falling with it to 0
        (at full weight to the end the two ends' steps overshoot one another). A warm
        start at a fraction of the rate (``sweep``, ``update``) refines its map with less
        of it."""
        return min(1.0, 2.0 * self.alpha(epoch)) if self.self_embedding else 0.0

    def step(self, epoch):
        """Run epoch ``epoch`` (1-based) on ``Y`` in place."""
        from .._kernels.umap_sgd import layout_rows, metric_rows, plane_epoch

        Y, W = self.Y, self.W
        ref = Y.copy() if self.self_embedding else self.reference
        dens, lam = Density.step(self.density, epoch, self.n_epochs, ref, W, self.a, self.b)
        common = (Y, ref, self.self_embedding, W.indptr, W.indices, W.data, float(self.heaviest), self.keys)
        common += (self.negative_sample_rate, self.a, self.b, self.gamma, self.alpha(epoch), epoch, self.seed)
        common += (self.pull_other(epoch),)
        if self.output_metric[0]:
            epoch_rows = lambda lo, hi: metric_rows(*common, *self.output_metric, lo, hi)  # noqa: E731
        elif Y.shape[1] == 2:
            epoch_rows = lambda lo, hi: plane_epoch(*common, dens, float(lam), lo, hi)  # noqa: E731
        else:
            epoch_rows = lambda lo, hi: layout_rows(*common, dens, float(lam), lo, hi)  # noqa: E731
        in_row_ranges("umap-sgd", 0, Y.shape[0], epoch_rows, per_thread=2, min_size=SGD_RANGE)


# The step of n * Corr per unit of dens_lambda, scaled so that a dens_lambda means about
# what it means to umap-learn's densMAP: at the default 2.0 on Fashion-MNIST (PCA-50),
# radius correlation 0.918 here vs 0.909 there (x4: 0.908, more local accuracy lost
# below that margin; x10: 0.95, at 0.06 less 10-NN accuracy).
DENSITY_SCALE = 5.0


class Density:
    """densMAP's term (Narayan, Berger & Cho 2021): the data's local radii, standardised,
    and how strongly (``weight``: dens_lambda), over which final share of the epochs
    (``fraction``: dens_frac) and with which shift of the embedding radii's variance
    (``var_shift``) their correlation with the embedding's radii is raised."""

    def __init__(self, data_radii, weight, fraction, var_shift):
        r = np.asarray(data_radii, dtype=np.float64)
        self.standard = (r - r.mean()) / max(float(r.std()), 1e-12)
        self.weight = DENSITY_SCALE * float(weight)
        self.fraction, self.var_shift = float(fraction), float(var_shift)

    @staticmethod
    def step(density, epoch, n_epochs, Y, W, a, b):
        """What the layout's epoch gets: (coefficients, weight) in the final share of the
        epochs, (placeholder, 0) before it or without densMAP (``density`` None)."""
        if density is None or epoch <= n_epochs - int(round(density.fraction * n_epochs)):
            return np.zeros((1, 3), dtype=np.float32), 0.0
        return density.coefficients(Y, W, a, b), density.weight

    def coefficients(self, Y, W, a, b):
        """Per point (n * dCorr/dr, 1/A, 1/B) at the embedding ``Y`` (the step's kernel reads them)."""
        A, B = _radius_sums(Y, W, a, b)
        r = np.log(A / B)
        sd = np.sqrt(r.var() + self.var_shift)
        centred = (r - r.mean()) / sd
        corr = float(np.mean(centred * self.standard))
        return np.column_stack([(self.standard - corr * centred) / sd, 1.0 / A, 1.0 / B]).astype(np.float32)


def embedding_radii(Y, W, a, b):
    """Each point's local radius in the embedding, ``log(sum w q D / sum w q)`` over its
    edges (densMAP's definition; the data's uses the input distances)."""
    A, B = _radius_sums(np.ascontiguousarray(Y, dtype=np.float32), W, a, b)
    return np.log(A / B)


def _radius_sums(Y, W, a, b):
    """Per point ``A = sum w q D`` and ``B = sum w q`` over its edges (kept above 0)."""
    from .._kernels.umap_sgd import radius_sums

    sums = np.empty((Y.shape[0], 2))
    rows = lambda lo, hi: radius_sums(Y, W.indptr, W.indices, W.data, a, b, sums, lo, hi)  # noqa: E731
    in_row_ranges("umap-sgd", 0, Y.shape[0], rows, min_size=SGD_RANGE)
    return np.maximum(sums[:, 0], 1e-12), np.maximum(sums[:, 1], 1e-12)


def data_radii(W, distances):
    """Each point's local radius in the data: ``log(sum w d^2 / sum w)`` over its edges
    (``distances``: the graph's input distances, same pattern as ``W``)."""
    weights = np.asarray(W.sum(axis=1)).ravel()
    spread = np.asarray(W.multiply(distances.multiply(distances)).sum(axis=1)).ravel()
    return np.log(np.maximum(spread, 1e-12) / np.maximum(weights, 1e-12))


def _sampled_edges(W, self_embedding):
    """The graph the layout samples (CSR, sorted, in its own dtypes: the graph itself,
    not a copy, which would cost 8 bytes an edge), the heaviest weight (an edge of
    weight w is sampled every heaviest / w epochs, so those lighter than heaviest /
    n_epochs never are) and the edges' random-number keys (empty: keyed by position)."""
    W = sp.csr_matrix(W)
    if not W.has_sorted_indices:
        W = W.sorted_indices()
    heaviest = float(W.data.max(initial=0.0)) if self_embedding else 1.0
    keys = np.zeros(0, dtype=np.int64) if self_embedding else _end_keys(W)
    return W, heaviest, keys


def _end_keys(W):
    """Random-number keys from each edge's end and its rank in the row (independent of
    which other rows are in ``W``)."""
    rank = np.arange(W.nnz) - np.repeat(W.indptr[:-1], np.diff(W.indptr))
    return W.indices.astype(np.int64) * 4096 + rank
