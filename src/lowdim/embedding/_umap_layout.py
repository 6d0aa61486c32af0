"""UMAP's layout optimisation: edges sampled in proportion to their weight, negative
samples, a linearly decaying learning rate (the kernel is ``_kernels/umap_sgd``)."""

import numpy as np
import scipy.sparse as sp


def optimize_layout(
    Y, W, n_epochs, a, b, *, seed, gamma=1.0, negative_sample_rate=5, learning_rate=1.0, reference=None, callbacks=()
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
        one point at a time. None: the points embed themselves (``W`` symmetric, each
        edge's attraction counts twice for its row's point, the share of umap-learn's
        move-the-other-end-too; random numbers keyed by edge position).
    callbacks : sequence of callables
        ``callback(epoch, Y) -> stop?`` after every epoch.

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
    from .._kernels.umap_sgd import layout_epoch

    self_embedding = reference is None
    W, epochs_per_sample, epochs_per_negative, keys = _edge_schedule(W, n_epochs, negative_sample_rate, self_embedding)
    state = (epochs_per_sample.copy(), epochs_per_negative.copy())
    for epoch in range(1, n_epochs + 1):
        ref = Y.copy() if self_embedding else reference
        alpha = learning_rate * (1.0 - (epoch - 1) / n_epochs)
        layout_epoch(
            Y,
            ref,
            self_embedding,
            W.indptr,
            W.indices,
            keys,
            epochs_per_sample,
            state[0],
            state[1],
            epochs_per_negative,
            float(a),
            float(b),
            float(gamma),
            alpha,
            epoch,
            int(seed),
            2 if self_embedding else 1,
        )
        if any(cb(epoch, Y) for cb in callbacks):
            return epoch
    return n_epochs


def _edge_schedule(W, n_epochs, negative_sample_rate, self_embedding):
    """The edges the layout samples (those too weak to be sampled once in ``n_epochs``
    dropped), how often each is sampled and its negative samples drawn, and each edge's
    random-number key."""
    W = sp.csr_matrix(W, dtype=np.float64, copy=True)
    heaviest = W.data.max(initial=0.0) if self_embedding else 1.0
    W.data[W.data < heaviest / n_epochs] = 0.0
    W.eliminate_zeros()
    W.sort_indices()
    epochs_per_sample = heaviest / W.data
    keys = np.arange(W.nnz, dtype=np.int64) if self_embedding else _end_keys(W)
    return W, epochs_per_sample, epochs_per_sample / negative_sample_rate, keys


def _end_keys(W):
    """Random-number keys from each edge's end and its rank in the row (independent of
    which other rows are in ``W``)."""
    rank = np.arange(W.nnz) - np.repeat(W.indptr[:-1], np.diff(W.indptr))
    return W.indices.astype(np.int64) * 4096 + rank
