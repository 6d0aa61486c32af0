"""``ParametricTSNE`` (van der Maaten 2009): t-SNE's KL divergence over its joint
affinities P, minimised by an encoder network, so that the map is a function and new
rows are placed by one forward pass.

P is t-SNE's own (``embedding/_tsne``: the same kNN, perplexity calibration and
symmetrisation). KL(P || Q) = sum P log P - sum P log K(y_i, y_j) + log Z, with Z the
kernel summed over all pairs; each step estimates the middle term from edges drawn in
proportion to P and log Z from all pairs of as many uniformly drawn rows (batch^2
kernel values, cheap beside the network's passes, where a few pairings per row would
leave the estimate of Z too noisy to place clusters), so the loss of a batch estimates
the KL divergence itself and no step sees more than its batch.
"""

import functools

import numpy as np

from .._params import Interval, validate_params
from ..embedding import TSNE
from ._mlp import forward, n_weights
from ._parametric import PARAMETRIC_PARAMETERS, ParametricMap

# the affinities' parameters, passed to the TSNE that builds P
AFFINITY_PARAMETERS = ("perplexity", "metric", "metric_params", "affinity", "perplexities")


@functools.lru_cache(maxsize=32)
def kl_loss(encoder_widths, decoder_widths, activation, dof, exaggeration, reconstruction_weight, distinct):
    """``row_loss(weights, rows, key)`` for rows ``[head, tail, other]`` (the two ends of
    an edge drawn in proportion to P, and a uniformly drawn row): ``exaggeration`` times
    ``-log K`` of the edge, plus the log of the mean kernel over the pairs of the
    batch's first ``distinct`` other rows (distinct rows: a batch larger than the data
    repeats them), so that the mean over a batch plus ``kl_constant(P)`` estimates
    KL(P || Q); with a decoder, plus ``reconstruction_weight`` times the head's mean
    squared reconstruction error. The constant, which no weight moves, is left out: the
    loss, and the step compiled from it, depend on the architecture only, so fits on
    other data reuse them.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> loss = kl_loss((1, 1), (), "identity", 1.0, 1.0, 0.0, 2)
    >>> w = jnp.array([1.0, 0.0])  # the identity map
    >>> rows = jnp.array([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # edges of length 0; others 1 apart
    >>> [round(float(v), 4) for v in loss(w, rows, None)]  # log K(1) = log(1 / 2)
    [-0.6931, -0.6931]
    """
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    d, split = encoder_widths[0], n_weights(encoder_widths)

    def log_kernel(squared):  # Student-t: K = (1 + d2 / dof) ** (-(dof + 1) / 2)
        return -0.5 * (dof + 1.0) * jnp.log1p(squared / dof)

    def row_loss(w, rows, key):
        n_rows = rows.shape[0]
        blocks = jnp.concatenate([rows[:, :d], rows[:, d : 2 * d], rows[:, 2 * d :]])
        codes = forward(w[:split], encoder_widths, blocks, activation, xp=jnp)
        heads, tails, others = codes[:n_rows], codes[n_rows : 2 * n_rows], codes[2 * n_rows : 2 * n_rows + distinct]
        # every pair of the others (distinct uniform draws): batch^2 kernel values cost
        # little beside the network's passes and estimate Z far better than a few pairings
        norms = jnp.sum(others**2, axis=1)
        squared = jnp.maximum(norms[:, None] + norms[None, :] - 2.0 * others @ others.T, 0.0)
        logs = log_kernel(squared) - jnp.where(jnp.eye(distinct, dtype=bool), jnp.inf, 0.0)
        log_mean = logsumexp(logs) - jnp.log(float(distinct * (distinct - 1)))
        loss = log_mean - exaggeration * log_kernel(jnp.sum((heads - tails) ** 2, axis=1))
        if decoder_widths:
            out = forward(w[split:], decoder_widths, heads, activation, xp=jnp)
            loss = loss + reconstruction_weight * jnp.mean((out - rows[:, :d]) ** 2, axis=1)
        return loss

    return row_loss


class ParametricTSNE(ParametricMap):
    """t-SNE whose map is an encoder network (parametric t-SNE): ``transform`` of new
    rows is one forward pass, and the map is a model that can be saved and reused.

    The affinities P are t-SNE's (``TSNE``'s perplexity calibration over each point's
    ``3 x perplexity`` nearest neighbours, symmetrised); the encoder is trained on the
    KL divergence by mini-batch AdamW. Each step reads ``batch_size`` edges drawn in
    proportion to P (the attraction) and as many uniformly drawn rows whose pairs
    estimate the normaliser Z over all pairs (the repulsion), so memory does not grow
    with the rows beyond P's. With ``parametric_reconstruction`` a decoder is trained
    beside it and ``inverse_transform`` maps codes back to the data. Training needs JAX
    (``pip install 'lowdim[neural]'``); a trained model is applied by numpy.

    Parameters
    ----------
    n_components : int, default=2
    perplexity, metric, metric_params, affinity, perplexities
        The affinities, as ``TSNE``'s (``metric='precomputed'`` has no rows to encode
        and is refused).
    dof : float, default=1.0
        Degrees of freedom of the Student-t output kernel (1: t-SNE's Cauchy kernel).
    exaggeration : float, default=1.0
        The attraction multiplied by this (above 1: tighter clusters, more of the
        global arrangement).
    n_epochs : int, optional
        Training length: each epoch draws as many edges as there are rows. Default:
        200 up to 45,000 rows, then fewer, down to 50 from 180,000 rows (an epoch of
        more rows takes more steps).
    hidden_layer_sizes : tuple of int, default=(100, 100, 100)
        The encoder's hidden widths; the decoder mirrors them.
    activation : {'relu', 'tanh', 'elu', 'gelu', 'sigmoid', 'identity'}, default='gelu'
        The smooth 'gelu' places new rows better than 'relu' at the same cost
        (BENCHMARKS.md, Neural encoders).
    learning_rate : float, default=3e-3
        AdamW's first step size; it falls linearly to zero over the epochs.
    weight_decay : float, default=0.0
    batch_size : int, default=1000
        Edges (and uniformly drawn rows) per step.
    parametric_reconstruction : bool, default=False
        Train a decoder too, so that ``inverse_transform`` works.
    parametric_reconstruction_loss_weight : float, default=1.0
        Weight of the decoder's mean squared error of the scaled rows.
    input_components : int or None, default=100
        With more features, the encoder reads the rows' scores on their first
        ``input_components`` principal components (``PCA`` of the training rows,
        kept in the model): its first layer, most of the work on wide data, shrinks to
        ``input_components / n_features`` of its size. None: every feature. The
        affinities are computed from the features themselves either way.
    random_state : None, int or Generator
    verbose : int or bool, default=0
    callbacks : callable or list of callables, optional
        ``callback(epoch, loss, weights)`` after every epoch; True stops.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The encoder's output for the training rows.
    affinities_ : sparse matrix of shape (n_samples, n_samples)
        t-SNE's joint affinities P of the training rows (summing to one).
    perplexity_ : float
        The perplexity used (lowered on small data, as ``TSNE``'s).
    mean_, scale_, encoder_widths_, encoder_weights_, decoder_widths_, decoder_weights_
        As ``AutoEncoder``'s (the decoder's are None without ``parametric_reconstruction``).
    projection_ : ndarray of shape (n_coded, input_components) or None
        The principal directions on which the encoder reads the rows' scores (None: it
        reads the features); the decoder's output is mapped back through them.
    gower_levels_, gower_offset_, gower_scale_, gower_codebook_ : ndarray or None
        With ``metric='gower'``, the Gower coding the networks read, as
        ``ParametricUMAP``'s (``n_coded`` numbers a row). None for other metrics.
    column_names_, kinds_, categories_ : list
        After a fit with ``metric='gower'`` on a table of text, category, boolean or
        date columns, its coding, as ``ParametricUMAP``'s.
    n_components_, n_iter_ : int
        Code size and epochs run.
    loss_curve_ : ndarray
        Each epoch's mean batch loss: an estimate of KL(P || Q) (with exaggeration 1).
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from lowdim.neural import ParametricTSNE
    >>> X = load_digits().data
    >>> model = ParametricTSNE(n_epochs=5, random_state=0).fit(X[:1000])
    >>> model.transform(X[1000:]).shape
    (797, 2)
    """

    _uniform_rows = True

    _parameter_constraints = {
        **PARAMETRIC_PARAMETERS,
        **{name: TSNE._parameter_constraints[name] for name in AFFINITY_PARAMETERS},
        "dof": [Interval(float, 0, None, closed="neither")],
        "exaggeration": [Interval(float, 0, None, closed="neither")],
    }

    def __init__(
        self,
        n_components=2,
        *,
        perplexity=30.0,
        metric="euclidean",
        metric_params=None,
        affinity="perplexity",
        perplexities=None,
        dof=1.0,
        exaggeration=1.0,
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
        self.perplexity = perplexity
        self.metric = metric
        self.metric_params = metric_params
        self.affinity = affinity
        self.perplexities = perplexities
        self.dof = dof
        self.exaggeration = exaggeration
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

    def _affinity_builder(self):
        """The TSNE whose affinities this map is trained on: always over each point's
        nearest neighbours (never all pairs), as its Barnes-Hut and FFT methods."""
        builder = TSNE(**{name: getattr(self, name) for name in AFFINITY_PARAMETERS}, method="barnes_hut",
                       verbose=int(self.verbose))  # fmt: skip
        builder._part_of = type(self).__name__  # its warnings name this map, the user's estimator
        return builder

    def _check_graph_parameters(self):
        validate_params(self._affinity_builder())

    def _fit_graph(self, X, rng):
        """t-SNE's joint affinities of ``X`` (``affinities_``, ``perplexity_``)."""
        builder = self._affinity_builder()
        builder.random_state, builder.metric_params = rng, self._distance_params()  # a table's coded columns
        builder.method_ = "barnes_hut"
        self.affinities_ = builder._input_affinities(np.asarray(X, dtype=np.float64))[0]
        self.perplexity_ = builder.perplexity_
        return self.affinities_

    @staticmethod
    def _default_epochs(n_rows):
        return min(200, max(50, round(9_000_000 / n_rows)))

    def _edges_per_epoch(self, graph):
        """As many edges as rows."""
        return graph.shape[0]

    def _row_loss(self, enc, dec):
        weights = float(self.exaggeration), float(self.parametric_reconstruction_loss_weight)
        distinct = min(self.affinities_.shape[0], self.batch_size)
        return kl_loss(enc, dec, self.activation, float(self.dof), *weights, distinct)

    def _loss_offset(self):
        """``sum P log P + log n(n - 1)``: what the batch losses leave out of KL(P || Q)."""
        n = self.affinities_.shape[0]
        return float(TSNE._p_log_p(self.affinities_) + np.log(n * (n - 1.0)))
