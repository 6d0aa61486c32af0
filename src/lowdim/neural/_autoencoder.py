"""``AutoEncoder``: PCA's encoder/decoder picture with neural networks for f and g.

The data are centred and divided by one overall scale (so the linear autoencoder's
optimum is PCA's subspace of the data as given); encoder and decoder are multilayer
perceptrons (``_mlp``) trained together on the mean squared reconstruction error by
mini-batch AdamW (``_training``), with early stopping on held-out rows.
"""

import functools

import numpy as np

from .._estimator import ComponentTransformer
from .._iterative import callback_list
from .._params import Interval, validate_params
from .._random import check_random_state
from .._validation import check_n_components
from ._mlp import forward, initial_weights, n_weights
from ._network_model import NETWORK_PARAMETERS, NetworkModel, require_jax
from ._training import Schedule, train


@functools.lru_cache(maxsize=32)
def reconstruction_loss(encoder_widths, decoder_widths, activation, dropout):
    """``row_loss(weights, rows, key)``: each row's mean squared reconstruction error
    through the encoder and the decoder, whose weights are ``weights`` split at the
    encoder's size (one function per architecture, so its compilation is reused).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> loss = reconstruction_loss((3, 2), (2, 3), "identity", 0.0)
    >>> loss(jnp.zeros(n_weights([3, 2]) + n_weights([2, 3])), jnp.ones((4, 3)), None).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    import jax
    import jax.numpy as jnp

    split = n_weights(encoder_widths)

    def row_loss(w, rows, key):
        keys = (None, None) if key is None else jax.random.split(key)  # the two networks' own masks
        codes = forward(w[:split], encoder_widths, rows, activation, xp=jnp, dropout=dropout, key=keys[0])
        out = forward(w[split:], decoder_widths, codes, activation, xp=jnp, dropout=dropout, key=keys[1])
        return jnp.mean((out - rows) ** 2, axis=1)

    return row_loss


class AutoEncoder(NetworkModel, ComponentTransformer):
    """A nonlinear autoencoder: an encoder network to ``n_components`` codes and a decoder
    back, trained to reconstruct the data.

    With ``activation='identity'`` the best encoder spans PCA's subspace (PCA is the
    best linear autoencoder); a nonlinear one reconstructs better at the same code
    size. Training needs JAX (``pip install 'lowdim[neural]'``) and runs in float32; a
    trained model is applied by numpy (in float64), so a saved model transforms without
    JAX.

    Parameters
    ----------
    n_components : int, default=2
        Size of the code.
    hidden_layer_sizes : tuple of int, default=(256, 128)
        Widths of the encoder's hidden layers; the decoder mirrors them.
    activation : {'relu', 'tanh', 'elu', 'gelu', 'sigmoid', 'identity'}, default='relu'
        Between layers (none on the code and on the reconstruction).
    dropout : float in [0, 1), default=0.0
        Fraction of hidden units dropped in each training step.
    weight_decay : float, default=0.0
        AdamW's decoupled weight decay.
    learning_rate : float, default=1e-3
        AdamW's step size.
    batch_size : int, default=256
    max_iter : int, default=200
        Most epochs (passes over the training rows).
    tol : float, default=1e-4
        An epoch improves when the held-out loss drops by more than ``tol`` times the best.
    n_iter_no_change : int, default=10
        Epochs without improvement that end the training.
    validation_fraction : float in [0, 1), default=0.1
        Rows held out for early stopping (0: the training loss decides).
    random_state : None, int or Generator
        Initial weights, the split, the visiting orders and dropout.
    verbose : int or bool, default=0
        A progress bar over the epochs with the losses.
    callbacks : callable or list of callables, optional
        ``callback(epoch, held_out_loss, weights)`` after every epoch; True stops.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
    scale_ : float
        The data's overall standard deviation (the networks see ``(X - mean_) / scale_``).
    encoder_widths_, decoder_widths_ : ndarray of int
        The networks' layer widths, input first.
    encoder_weights_, decoder_weights_ : ndarray of float32
        Each network's weights, flat (``lowdim.neural.layers`` shapes them).
    n_components_ : int
    n_iter_ : int
        Epochs run.
    loss_curve_ : ndarray
        Training loss per epoch (mean squared error of the scaled data).
    validation_scores_ : ndarray
        Held-out loss per epoch.
    best_loss_ : float
        The held-out loss of the kept weights.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.neural import AutoEncoder
    >>> X = np.random.default_rng(0).normal(size=(200, 6))
    >>> ae = AutoEncoder(n_components=2, hidden_layer_sizes=(16,), max_iter=5, random_state=0).fit(X)
    >>> ae.transform(X).shape, ae.inverse_transform(ae.transform(X)).shape
    ((200, 2), (200, 6))
    """

    _parameter_constraints = {
        **NETWORK_PARAMETERS,
        "n_components": [Interval(int, 1, None, closed="left")],
        "dropout": [Interval(float, 0, 1, closed="left")],
        "batch_size": [Interval(int, 1, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "n_iter_no_change": [Interval(int, 1, None, closed="left")],
        "validation_fraction": [Interval(float, 0, 1, closed="left")],
    }
    transform = NetworkModel.transform  # defined in the class, so that set_output wraps it

    def __init__(
        self,
        n_components=2,
        *,
        hidden_layer_sizes=(256, 128),
        activation="relu",
        dropout=0.0,
        weight_decay=0.0,
        learning_rate=1e-3,
        batch_size=256,
        max_iter=200,
        tol=1e-4,
        n_iter_no_change=10,
        validation_fraction=0.1,
        random_state=None,
        verbose=0,
        callbacks=None,
    ):
        self.n_components = n_components
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.dropout = dropout
        self.weight_decay = weight_decay
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    def fit(self, X, y=None):
        """Train the encoder and decoder on ``X``.

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
        require_jax("AutoEncoder")
        X = self._validate_input(X, reset=True)
        n, d = X.shape
        check_n_components(self.n_components, n, d, "AutoEncoder")
        rng = check_random_state(self.random_state)
        self._fit_scaling(X, "every code is the same and explains nothing")
        order = rng.permutation(n)
        n_val = int(round(self.validation_fraction * n))
        n_val = n_val if n - n_val >= 1 else 0
        self.encoder_widths_ = np.array([d, *hidden, self.n_components])
        self.decoder_widths_ = self.encoder_widths_[::-1].copy()
        start = np.concatenate([initial_weights(self.encoder_widths_, rng), initial_weights(self.decoder_widths_, rng)])
        rows_of = lambda rows: self._scaled(X[rows]).astype(np.float32)  # noqa: E731 - one batch, scaled
        self._train(start, rows_of, np.sort(order[n_val:]), np.sort(order[:n_val]), rng)
        return self

    def _check_loaded(self):
        """A loaded model's networks must fit together: widths from the features to the
        code and back, as many weights as those widths hold, a positive scale."""
        expected = [self.n_features_in_, *self._check_widths(), self.n_components_]
        self._check_network("encoder", self.encoder_widths_, expected)
        self._check_network("decoder", self.decoder_widths_, expected[::-1])
        self._check_scaling()

    def _row_loss(self):
        """The reconstruction loss of this architecture and where its flat weights
        split into the encoder's and the decoder's."""
        enc, dec = tuple(int(w) for w in self.encoder_widths_), tuple(int(w) for w in self.decoder_widths_)
        return reconstruction_loss(enc, dec, self.activation, float(self.dropout)), n_weights(enc)

    def _train(self, start, rows_of, fit_rows, held_out, rng):
        from .._progress import progress_bar

        row_loss, split = self._row_loss()
        schedule = Schedule(
            learning_rate=self.learning_rate,
            weight_decay=self.weight_decay,
            batch_size=self.batch_size,  # fewer rows are padded: one compiled shape per width
            max_epochs=self.max_iter,
            tol=self.tol,
            patience=self.n_iter_no_change,
        )
        with progress_bar(total=self.max_iter, desc="AutoEncoder", unit="epoch", disable=not self.verbose) as bar:
            out = train(
                row_loss, start, rows_of, fit_rows, held_out, schedule, rng, keyed=self.dropout > 0, progress=bar,
                callbacks=callback_list(self.callbacks), name="AutoEncoder",
            )  # fmt: skip
        self.encoder_weights_, self.decoder_weights_ = out.weights[:split].copy(), out.weights[split:].copy()
        self.n_components_ = int(self.encoder_widths_[-1])
        self.n_iter_ = out.n_epochs
        self.loss_curve_ = np.asarray(out.loss_curve)
        self.validation_scores_ = np.asarray(out.validation_curve)
        self.best_loss_ = out.best_loss

    def inverse_transform(self, X):
        """Reconstructions of codes (the decoder), in the units of the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components_)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        return self._decode(self._validate_codes(X))

    def reconstruction_error(self, X):
        """Mean squared error per entry of ``inverse_transform(transform(X))``, in the
        units of the data (comparable with PCA's at the same number of components).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        X_checked = self._validate_input(X, reset=False)
        return float(np.mean((self.inverse_transform(self.transform(X_checked)) - X_checked) ** 2))
