"""What the parametric neighbour embeddings share (``ParametricUMAP``,
``ParametricTSNE``): a neighbour graph built by the non-parametric method, an encoder
(and optionally a decoder) trained by mini-batch AdamW on that method's loss over edges
drawn in proportion to their weights, ``transform`` as one forward pass."""

import numpy as np
from sklearn.exceptions import NotFittedError

from .._estimator import ComponentTransformer
from .._iterative import callback_list
from .._mixed_input import GowerTableMixin
from .._params import BOOLEAN, NONE, Interval, validate_params
from .._random import check_random_state
from .._validation import check_sample_count
from ._mlp import initial_weights, n_weights
from ._network_model import NETWORK_PARAMETERS, NetworkModel, require_jax
from ._training import Schedule, train

# the constraints of the parameters every parametric map has
PARAMETRIC_PARAMETERS = {
    **NETWORK_PARAMETERS,
    "n_components": [Interval(int, 1, None, closed="left")],
    "n_epochs": [Interval(int, 1, None, closed="left"), NONE],
    "batch_size": [Interval(int, 2, None, closed="left")],
    "parametric_reconstruction": [BOOLEAN],
    "parametric_reconstruction_loss_weight": [Interval(float, 0, None, closed="left")],
    "input_components": [Interval(int, 1, None, closed="left"), NONE],
}


class EdgeSampler:
    """The training rows of a batch: edges of ``graph`` drawn with replacement in
    proportion to their weights, each read as its two ends' rows side by side; with
    ``uniform``, a third block of rows drawn uniformly without replacement (whose pairs
    estimate a normaliser over all pairs of distinct points). The slots it is asked for
    only count the rows.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> graph = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> rows = np.array([[10.0], [20.0]])
    >>> sampler = EdgeSampler(graph, rows.__getitem__, np.random.default_rng(0), uniform=True)
    >>> batch = sampler(np.arange(4))
    >>> batch.shape, sorted(set((batch[:, 0] + batch[:, 1]).tolist()))  # every edge joins the two rows
    ((4, 3), [30.0])
    """

    def __init__(self, graph, rows_of, rng, *, uniform=False):
        # the graph's own CSR arrays name each edge's ends, so the sampler adds only the
        # cumulative weights (8 bytes an edge; COO's row and column arrays would add 8 more)
        graph = graph.tocsr()
        self.indptr, self.indices = graph.indptr, graph.indices
        self.cumulative = np.cumsum(graph.data, dtype=np.float64)
        self.rows_of, self.rng, self.uniform, self.n = rows_of, rng, uniform, graph.shape[0]
        self.drawn = np.zeros(0, dtype=np.intp)  # the edges of the last batch

    def _ends(self, edges):
        """(heads, tails) of stored edges, by their positions in the CSR arrays."""
        return np.searchsorted(self.indptr, edges, side="right") - 1, self.indices[edges]

    def __call__(self, slots):
        edges = np.searchsorted(self.cumulative, self.rng.random(len(slots)) * self.cumulative[-1], side="right")
        edges = np.minimum(edges, self.cumulative.size - 1)
        self.drawn = edges
        heads, tails = self._ends(edges)
        blocks = [self.rows_of(heads), self.rows_of(tails)]
        if self.uniform:
            blocks.append(self.rows_of(self._distinct(len(slots))))
        return np.hstack(blocks)

    def describe(self, slot):
        """The edge drawn last into ``slot``, by its two rows (for training's messages)."""
        heads, tails = self._ends(self.drawn[slot : slot + 1])
        return f"the edge between rows {heads[0]} and {tails[0]}"

    def _distinct(self, size):
        """``size`` uniformly drawn rows, distinct within each run of ``n``: the first
        ``min(n, size)`` are distinct rows, whose pairs are pairs of different points
        (the pairs the normaliser sums over)."""
        runs = [self.rng.choice(self.n, min(self.n, size - at), replace=False) for at in range(0, size, self.n)]
        return np.concatenate(runs)


class ParametricMap(GowerTableMixin, NetworkModel, ComponentTransformer):
    """Base of the parametric neighbour embeddings. A subclass checks its graph's
    parameters before the data are read (``_check_graph_parameters``), builds its graph
    (``_fit_graph(X, rng) -> edge weights``), gives its loss
    (``_row_loss(encoder_widths, decoder_widths)``, ``row_loss(weights, rows, key)``
    over the sampler's rows), the edges an epoch draws (``_edges_per_epoch``), its
    default epochs (``_default_epochs(n_rows)``), whether the loss needs uniformly
    drawn rows (``_uniform_rows``) and, if any, the constant its row losses leave out
    (``_loss_offset()``, added to the losses reported)."""

    _uniform_rows = False
    transform = NetworkModel.transform  # defined in the class, so that set_output wraps it

    def fit(self, X, y=None):
        """Build the method's neighbour graph of ``X`` and train the encoder (and
        decoder) on the method's loss over it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        hidden = self._check_widths()
        name = type(self).__name__
        if self.metric == "precomputed":
            raise ValueError(
                f"{name} encodes rows of features; metric='precomputed' gives none. "
                f"Pass the rows, or use {name.removeprefix('Parametric')}."
            )
        self._check_graph_parameters()
        require_jax(name)
        X = self._validate_input(X, reset=True)
        check_sample_count(X.shape[0], name, self.n_components)
        rng = check_random_state(self.random_state)
        edges = self._fit_graph(X, rng)
        coded = self._fit_coding(X)
        self._fit_scaling(coded, "it moves no point and only slows training")
        self._fit_projection(coded, self.input_components, rng)
        self.encoder_widths_ = np.array([self._input_width(), *hidden, self.n_components])
        self.decoder_widths_ = self.encoder_widths_[::-1].copy() if self.parametric_reconstruction else None
        start = initial_weights(self.encoder_widths_, rng)
        if self.parametric_reconstruction:
            start = np.concatenate([start, initial_weights(self.decoder_widths_, rng)])
        self._train(X, edges, start, rng)
        self.embedding_ = self._encode(X)
        return self

    def _loss_offset(self):
        """A constant of the method's loss that its row losses leave out (none here)."""
        return 0.0

    def _epochs(self, n_rows):
        """``n_epochs``, or the method's default for ``n_rows`` rows."""
        return self.n_epochs if self.n_epochs is not None else self._default_epochs(n_rows)

    def _train(self, X, edges, start, rng):
        from .._progress import progress_bar

        name = type(self).__name__
        enc = tuple(int(w) for w in self.encoder_widths_)
        dec = () if self.decoder_widths_ is None else tuple(int(w) for w in self.decoder_widths_)
        sampler = EdgeSampler(edges, self._training_rows(X), rng, uniform=self._uniform_rows)
        epochs = self._epochs(X.shape[0])
        # every step draws batch_size edges (a short last batch masks the rest out of the
        # loss, and they serve as its negatives): one compiled shape for the fit
        schedule = Schedule(learning_rate=self.learning_rate, weight_decay=self.weight_decay,
                            batch_size=self.batch_size, max_epochs=epochs, patience=None, anneal=True)  # fmt: skip
        with progress_bar(total=epochs, desc=name, unit="epoch", disable=not self.verbose) as bar:
            out = train(
                self._row_loss(enc, dec), start, sampler, np.arange(self._edges_per_epoch(edges)), None, schedule,
                rng, keyed=True, progress=bar, callbacks=callback_list(self.callbacks), name=name,
                offset=self._loss_offset(),
            )  # fmt: skip
        split = n_weights(enc)
        self.encoder_weights_ = out.weights[:split].copy()
        self.decoder_weights_ = out.weights[split:].copy() if dec else None
        self.n_components_ = self.n_components
        self.n_iter_ = out.n_epochs
        self.loss_curve_ = np.asarray(out.loss_curve)

    def _training_rows(self, X):
        """``rows_of(indices)``: what the networks read of those rows, in float32. Scores
        on ``projection_`` are computed once for all rows (n x input_components float32,
        a fraction of X), so that no step projects its batch again."""
        if getattr(self, "projection_", None) is None:
            return lambda rows: self._scaled(X[rows]).astype(np.float32)
        scores = np.empty((X.shape[0], self.projection_.shape[1]), dtype=np.float32)
        for start in range(0, X.shape[0], 4096):
            scores[start : start + 4096] = self._scaled(X[start : start + 4096])
        return scores.__getitem__

    def _check_loaded(self):
        """A loaded model's encoder (and decoder) run between the features and the
        codes, with as many weights as their widths hold, and a positive scale."""
        self._check_coded_rows()
        expected = [self._input_width(), *self._check_widths(), self.n_components_]
        self._check_network("encoder", self.encoder_widths_, expected)
        if self.decoder_widths_ is not None:
            self._check_network("decoder", self.decoder_widths_, expected[::-1])
        self._check_scaling()

    def fit_transform(self, X, y=None):
        """Fit and return ``embedding_`` (the encoder's output for the rows of ``X``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y).embedding_

    def inverse_transform(self, X):
        """Rows of the data for points of the map, through the decoder (trained with
        ``parametric_reconstruction=True``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components_)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        Z = self._validate_codes(X)
        if self.decoder_weights_ is None:  # not fitted with one: the method is left out, as KernelPCA's
            raise NotFittedError(
                f"This {type(self).__name__} was trained without a decoder, so it cannot map points back to the "
                "data; fit it with parametric_reconstruction=True."
            )
        return self._decode(Z)
