"""``ParametricUMAP`` (Sainburg, McInnes & Gentner 2021): UMAP's cross-entropy over its
fuzzy neighbour graph, minimised by an encoder network instead of by moving points, so
that the map is a function and new rows are placed by one forward pass.

The graph is UMAP's own (``embedding/_umap``: the same neighbours, memberships and
union); each training step reads a batch of edges drawn in proportion to their
weights, and each edge's head is pushed away from the tails of ``negative_sample_rate``
other edges of the batch (negative samples without extra forward passes).
"""

import functools

from .._params import Interval, validate_params
from ..embedding import UMAP, curve_parameters
from ._mlp import forward, n_weights
from ._parametric import PARAMETRIC_PARAMETERS, ParametricMap

# the graph's parameters, passed to the UMAP that builds it
GRAPH_PARAMETERS = ("n_neighbors", "metric", "metric_kwds", "min_dist", "spread", "a", "b", "local_connectivity",
                    "set_op_mix_ratio")  # fmt: skip
SMALLEST = 1e-4  # 1 - the output's membership is clipped here in the repulsion (as umap-learn's)


@functools.lru_cache(maxsize=32)
def edge_loss(encoder_widths, decoder_widths, activation, a, b, rate, gamma, reconstruction_weight, draws=1):
    """``row_loss(weights, rows, key)`` for rows ``[head, tail]`` (the two ends of a
    sampled edge, side by side): UMAP's attraction of the two ends' codes, plus ``gamma``
    times the repulsion of the head from ``rate`` negative samples, each the mean over
    ``draws`` tails of other rows of the batch (random rows with a key, the next ones
    without); with a decoder, plus ``reconstruction_weight`` times the head's mean
    squared reconstruction error. The tails are encoded for their own edges already, so
    more draws cost little and lower the noise of the repulsion, not its weight.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> loss = edge_loss((2, 2), (), "identity", 1.0, 1.0, 1, 1.0, 0.0)
    >>> w = jnp.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])  # the identity map
    >>> rows = jnp.array([[0.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0]])  # ends at one place
    >>> [round(float(v), 2) for v in loss(w, rows, None)]  # only the far negative remains
    [0.02, 0.02]
    """
    import jax
    import jax.numpy as jnp

    d, split = encoder_widths[0], n_weights(encoder_widths)

    def cross_entropy_terms(u, v):
        s = a * (jnp.sum((u - v) ** 2, axis=-1) + 1e-8) ** b  # the output membership is 1 / (1 + s)
        return jnp.log1p(s), jnp.log1p(1.0 / jnp.maximum(s, SMALLEST / (1.0 - SMALLEST)))

    def row_loss(w, rows, key):
        n_rows = rows.shape[0]
        codes = forward(w[:split], encoder_widths, jnp.concatenate([rows[:, :d], rows[:, d:]]), activation, xp=jnp)
        heads, tails = codes[:n_rows], codes[n_rows:]
        if key is None:
            others = (jnp.arange(n_rows)[None, :] + jnp.arange(1, rate * draws + 1)[:, None]) % n_rows
        else:
            others = jax.random.randint(key, (rate * draws, n_rows), 0, n_rows)
        repulsion = cross_entropy_terms(heads[None, :, :], tails[others])[1].sum(axis=0)
        loss = cross_entropy_terms(heads, tails)[0] + (gamma / draws) * repulsion
        if decoder_widths:
            out = forward(w[split:], decoder_widths, heads, activation, xp=jnp)
            loss = loss + reconstruction_weight * jnp.mean((out - rows[:, :d]) ** 2, axis=1)
        return loss

    return row_loss


class ParametricUMAP(ParametricMap):
    """UMAP whose map is an encoder network: ``transform`` of new rows is one forward
    pass, and the map is a model that can be saved and reused.

    The neighbour graph is UMAP's (the same parameters and result); the encoder is
    trained on UMAP's cross-entropy over it by mini-batch AdamW, reading edges drawn in
    proportion to their weights. With ``parametric_reconstruction`` a decoder is
    trained beside it and ``inverse_transform`` maps codes back to the data. Training
    needs JAX (``pip install 'lowdim[neural]'``); a trained model is applied by numpy.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors, metric, metric_kwds, min_dist, spread, a, b, local_connectivity, set_op_mix_ratio
        The graph and the output curve, as ``UMAP``'s (``metric='precomputed'`` has no
        rows to encode and is refused).
    negative_sample_rate : int, default=5
        Negative samples per edge.
    repulsion_strength : float, default=1.0
        Weight of the negative samples' term.
    repulsion_draws : int, default=4
        Each negative sample's repulsion is the mean over this many tails of other
        edges of the batch. They are encoded for their own edges already, so more draws
        cost little; they lower the noise of the gradient, not the weight of the
        repulsion (umap-learn's parametric map: 1).
    n_epochs : int, optional
        Training length in UMAP's epochs: each epoch draws as many edges as the graph
        weighs relative to its heaviest edge. Default: 100 up to 100,000 rows, then
        fewer, down to 30 from 333,000 rows (an epoch of more rows takes more steps;
        UMAP's own layout runs 500 or 200 epochs).
    hidden_layer_sizes : tuple of int, default=(100, 100, 100)
        The encoder's hidden widths (umap-learn's default network); the decoder
        mirrors them.
    activation : {'relu', 'tanh', 'elu', 'gelu', 'sigmoid', 'identity'}, default='gelu'
        umap-learn's network uses 'relu'; the smoother 'gelu' places new rows better
        at the same cost (BENCHMARKS.md, Neural encoders).
    input_components : int or None, default=100
        With more features, the encoder reads the rows' scores on their first
        ``input_components`` principal components (``PCA`` of the training rows,
        kept in the model): its first layer, most of the work on wide data, shrinks to
        ``input_components / n_features`` of its size. None: every feature. The graph
        is built on the features themselves either way.
    learning_rate : float, default=3e-3
        AdamW's first step size; it falls linearly to zero over the epochs.
    weight_decay : float, default=0.0
    batch_size : int, default=1000
        Edges per step.
    parametric_reconstruction : bool, default=False
        Train a decoder too (umap-learn's name), so that ``inverse_transform`` works.
    parametric_reconstruction_loss_weight : float, default=1.0
        Weight of the decoder's mean squared error of the scaled rows.
    random_state : None, int or Generator
    verbose : int or bool, default=0
    callbacks : callable or list of callables, optional
        ``callback(epoch, loss, weights)`` after every epoch; True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The encoder's output for the training rows.
    graph_ : sparse matrix of shape (n_samples, n_samples)
        UMAP's fuzzy graph of the training rows.
    a_, b_ : float
        The output curve ``1 / (1 + a d^(2b))``.
    mean_, scale_, encoder_widths_, encoder_weights_, decoder_widths_, decoder_weights_
        As ``AutoEncoder``'s (the decoder's are None without ``parametric_reconstruction``).
    projection_ : ndarray of shape (n_coded, input_components) or None
        The principal directions on which the encoder reads the rows' scores (None: it
        reads the features); the decoder's output is mapped back through them.
    gower_levels_, gower_offset_, gower_scale_, gower_codebook_ : ndarray or None
        With ``metric='gower'``, the rows' Gower coding the networks read instead of the
        codes (``lowdim.neighbors.GowerEncoding``: numbers over their range, each
        category as a vector 1 from the others, as the graph compares them; ``n_coded``
        numbers a row): each column's levels (0 for numbers), the numbers' offsets and
        multipliers, the categories' vectors. ``inverse_transform`` gives codes back
        (a category's nearest level). None for other metrics.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them. Gaps are read where the Gower coding
        puts them (a number at its mean, a category halfway between its levels).
    n_components_, n_iter_ : int
        Code size and epochs run.
    loss_curve_ : ndarray
        Mean loss per edge of each epoch.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from lowdim.neural import ParametricUMAP
    >>> X = load_digits().data
    >>> model = ParametricUMAP(n_epochs=5, random_state=0).fit(X[:1000])
    >>> model.transform(X[1000:]).shape
    (797, 2)
    """

    _parameter_constraints = {
        **PARAMETRIC_PARAMETERS,
        **{name: UMAP._parameter_constraints[name] for name in GRAPH_PARAMETERS},
        "negative_sample_rate": [Interval(int, 1, None, closed="left")],
        "repulsion_strength": [Interval(float, 0, None, closed="left")],
        "repulsion_draws": [Interval(int, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=15,
        metric="euclidean",
        metric_kwds=None,
        min_dist=0.1,
        spread=1.0,
        a=None,
        b=None,
        local_connectivity=1.0,
        set_op_mix_ratio=1.0,
        negative_sample_rate=5,
        repulsion_strength=1.0,
        repulsion_draws=4,
        n_epochs=None,
        hidden_layer_sizes=(100, 100, 100),
        activation="gelu",
        learning_rate=3e-3,
        weight_decay=0.0,
        batch_size=1000,
        parametric_reconstruction=False,
        parametric_reconstruction_loss_weight=1.0,
        input_components=100,
        random_state=None,
        verbose=0,
        callbacks=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.metric_kwds = metric_kwds
        self.min_dist = min_dist
        self.spread = spread
        self.a = a
        self.b = b
        self.local_connectivity = local_connectivity
        self.set_op_mix_ratio = set_op_mix_ratio
        self.negative_sample_rate = negative_sample_rate
        self.repulsion_strength = repulsion_strength
        self.repulsion_draws = repulsion_draws
        self.n_epochs = n_epochs
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.parametric_reconstruction = parametric_reconstruction
        self.parametric_reconstruction_loss_weight = parametric_reconstruction_loss_weight
        self.input_components = input_components
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    def _graph_builder(self):
        """The UMAP whose graph this map is trained on."""
        builder = UMAP(**{name: getattr(self, name) for name in GRAPH_PARAMETERS}, verbose=self.verbose)
        builder._part_of = type(self).__name__  # its warnings name this map, the user's estimator
        return builder

    def _check_graph_parameters(self):
        builder = self._graph_builder()
        validate_params(builder)
        builder._check_relations()

    def _fit_graph(self, X, rng):
        """UMAP's graph of ``X`` (``graph_``) and its output curve (``a_``, ``b_``)."""
        builder = self._graph_builder()
        builder.random_state, builder.metric_kwds = rng, self._distance_params()  # a table's coded columns
        # the search's index is not kept: transform encodes
        pieces = "the encoder places them all, kept apart only by the negative samples"
        self.graph_ = builder._graph(X, None, components=pieces)[0]
        curve = (self.a, self.b) if self.a is not None else curve_parameters(self.spread, self.min_dist)
        self.a_, self.b_ = float(curve[0]), float(curve[1])
        return self.graph_

    @staticmethod
    def _default_epochs(n_rows):
        return min(100, max(30, round(10_000_000 / n_rows)))

    def _edges_per_epoch(self, graph):
        """As many edges as UMAP's epoch samples on average."""
        return max(int(round(graph.sum() / graph.max())), 1)

    def _row_loss(self, enc, dec):
        weights = float(self.repulsion_strength), float(self.parametric_reconstruction_loss_weight)
        rate, draws = self.negative_sample_rate, self.repulsion_draws
        return edge_loss(enc, dec, self.activation, self.a_, self.b_, rate, *weights, draws)
