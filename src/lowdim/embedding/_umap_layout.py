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
    W, heaviest, keys = _sampled_edges(W, n_epochs, self_embedding)
    # when each edge is next due for a sample and for its negative samples
    next_sample = heaviest / W.data.astype(np.float64)
    next_negative = next_sample / negative_sample_rate
    for epoch in range(1, n_epochs + 1):
        ref = Y.copy() if self_embedding else reference
        alpha = learning_rate * (1.0 - (epoch - 1) / n_epochs)
        layout_epoch(
            Y,
            ref,
            self_embedding,
            W.indptr,
            W.indices,
            W.data,
            float(heaviest),
            keys,
            next_sample,
            next_negative,
            float(negative_sample_rate),
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


def _sampled_edges(W, n_epochs, self_embedding):
    """The edges the layout samples (those too weak to be sampled once in ``n_epochs``
    dropped; in the graph's own dtypes), the heaviest weight (an edge of weight w is
    sampled every heaviest / w epochs) and the edges' random-number keys (empty: keyed
    by position)."""
    W = sp.csr_matrix(W, copy=True)
    heaviest = float(W.data.max(initial=0.0)) if self_embedding else 1.0
    W.data[W.data < heaviest / n_epochs] = 0
    W.eliminate_zeros()
    W.sort_indices()
    keys = np.zeros(0, dtype=np.int64) if self_embedding else _end_keys(W)
    return W, heaviest, keys


def _end_keys(W):
    """Random-number keys from each edge's end and its rank in the row (independent of
    which other rows are in ``W``)."""
    rank = np.arange(W.nnz) - np.repeat(W.indptr[:-1], np.diff(W.indptr))
    return W.indices.astype(np.int64) * 4096 + rank
