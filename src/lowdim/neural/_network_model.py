"""What every estimator with networks shares: the scaling its networks read, hidden
widths checked, the networks applied by numpy, and the message when JAX is missing."""

import numpy as np

from .._params import CALLBACKS, RANDOM_STATE, VERBOSE, InstanceOf, Interval, Options
from .._validation import warn_constant_features
from ..linalg import column_moments
from ._mlp import ACTIVATIONS, forward, n_weights

# the constraints of the parameters every network estimator has
NETWORK_PARAMETERS = {
    "hidden_layer_sizes": [InstanceOf(list, tuple, label="a tuple of layer widths")],
    "activation": [Options(set(ACTIVATIONS))],
    "learning_rate": [Interval(float, 0, None, closed="neither")],
    "weight_decay": [Interval(float, 0, None, closed="left")],
    "random_state": [RANDOM_STATE],
    "verbose": VERBOSE,
    "callbacks": CALLBACKS,
}


def require_jax(name):
    """Import JAX, or say which extra brings it.

    Examples
    --------
    >>> require_jax("AutoEncoder").__name__
    'jax'
    """
    try:
        import jax
    except ImportError:
        raise ImportError(f"{name} trains with JAX: pip install 'lowdim[neural]'.") from None
    return jax


class NetworkModel:
    """Mixin of the estimators whose models are networks (``AutoEncoder``,
    ``ParametricUMAP``): the networks read ``(X - mean_) / scale_``, one overall scale,
    so that a network's first layer sees numbers of order one without reweighting the
    features against one another."""

    def _check_widths(self):
        widths = list(self.hidden_layer_sizes)
        if not all(isinstance(w, int | np.integer) and not isinstance(w, bool) and w >= 1 for w in widths):
            raise ValueError(
                f"hidden_layer_sizes must hold positive integers (layer widths); got {self.hidden_layer_sizes!r}."
            )
        return [int(w) for w in widths]

    def _fit_coding(self, X):
        """With Gower's distance, set ``gower_levels_``, ``gower_offset_``,
        ``gower_scale_`` and ``gower_codebook_`` (``GowerEncoding.state``) and return the
        rows' Gower encoding, which the networks then read: numbers over their range and
        categories as vectors 1 apart, as the graph compares them. Read as they are,
        category codes would be numbers in an order they do not have, and a column in
        dollars would take all the scale (a map of a mixed table lost its groups). Other
        metrics: None, and ``X`` as it is."""
        self.gower_levels_ = self.gower_offset_ = self.gower_scale_ = self.gower_codebook_ = None
        if getattr(self, "metric", None) != "gower":
            return X
        from ..neighbors import gower_encoding

        encoding = gower_encoding(np.asarray(X, dtype=np.float64), self._distance_params())
        self.gower_levels_, self.gower_offset_, self.gower_scale_, self.gower_codebook_ = encoding.state()
        return encoding.encode(X)

    def _coding(self):
        """The fit's ``GowerEncoding`` (None without Gower's distance)."""
        if getattr(self, "gower_levels_", None) is None:
            return None
        from ..neighbors import GowerEncoding

        return GowerEncoding.from_state(self.gower_levels_, self.gower_offset_, self.gower_scale_, self.gower_codebook_)

    def _fit_scaling(self, X, consequence):
        """Set ``mean_`` and ``scale_`` from ``X`` in one pass (no n x d temporary),
        warning about constant features with ``consequence``."""
        n = X.shape[0]
        self.mean_, variances = column_moments(X)
        variances *= (n - 1) / n  # the population variance
        warn_constant_features(variances, self._shown_name, consequence, X=X)
        spread = float(np.sqrt(np.mean(variances)))
        self.scale_ = spread if spread > 0 else 1.0

    def _fit_projection(self, X, n_components, rng):
        """With more features than ``n_components``, set ``projection_`` to the top
        principal directions of ``X`` (columns, by ``PCA``) and ``scale_`` to the overall
        spread of the rows' scores on them: the networks then read those scores, and
        their first layer costs ``n_components / n_features`` of its full size. Else
        ``projection_`` is None and the networks read every feature."""
        self.projection_ = None
        if n_components is None or X.shape[1] <= n_components:
            return
        from ..decomposition import PCA

        pca = PCA(n_components, random_state=rng).fit(X)
        self.projection_ = np.ascontiguousarray(pca.components_.T, dtype=np.float64)
        spread = float(np.sqrt(np.mean(pca.explained_variance_) * (X.shape[0] - 1) / X.shape[0]))
        self.scale_ = spread if spread > 0 else 1.0

    def _coded_width(self):
        """How many numbers a row is before any projection: its features, or the width
        of their Gower encoding."""
        coding = self._coding()
        return self.n_features_in_ if coding is None else coding.width

    def _input_width(self):
        """How many numbers a row gives the networks: its features (or their Gower
        encoding), or its scores on ``projection_``."""
        projection = getattr(self, "projection_", None)  # models saved before projections had none
        return self._coded_width() if projection is None else int(np.shape(projection)[1])

    def _scaled(self, X):
        """What the networks read: ``(X - mean_) / scale_``, or the rows' scores on
        ``projection_`` over ``scale_`` (float32 in training); with Gower's distance, of
        the rows' Gower encoding."""
        coding = self._coding()
        if coding is not None:
            X = coding.encode(X)
        projection = getattr(self, "projection_", None)
        if projection is None:
            return (X - self.mean_) / self.scale_
        return ((X - self.mean_) @ projection.astype(X.dtype, copy=False)) / self.scale_

    def _apply(self, weights, widths, n_rows, rows_of):
        """One network on ``n_rows`` rows read by ``rows_of(indices)``, in float64 numpy
        blocks: a row's output does not depend on its neighbours in the block (as float32
        products by position could), and applying a model needs no JAX."""
        widths = [int(w) for w in widths]
        w = np.asarray(weights, dtype=np.float64)
        out = np.empty((n_rows, widths[-1]), dtype=np.float64)
        for start in range(0, n_rows, 4096):
            rows = np.arange(start, min(start + 4096, n_rows))
            out[rows] = forward(w, widths, rows_of(rows).astype(np.float64), self.activation)
        return out

    def transform(self, X):
        """The encoder's output for the rows of ``X``: their codes, or their places on
        the map (one forward pass, by numpy).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        X = self._validate_input(X, reset=False)
        return self._encode(X)

    def _encode(self, X):
        """The encoder's output for the rows of ``X`` (validated), in ``X``'s dtype."""
        codes = self._apply(self.encoder_weights_, self.encoder_widths_, X.shape[0], lambda rows: self._scaled(X[rows]))
        return codes.astype(X.dtype, copy=False)

    def _decode(self, Z):
        """The decoder's reconstruction of the codes ``Z``, in the units of the data
        (with ``projection_``: the point of the principal subspace it gives)."""
        out = self._apply(self.decoder_weights_, self.decoder_widths_, Z.shape[0], Z.__getitem__) * self.scale_
        projection = getattr(self, "projection_", None)
        if projection is not None:
            out = out @ projection.T
        out += self.mean_
        coding = self._coding()
        if coding is not None:  # the coded rows nearest to the decoder's vectors
            out = coding.decode(out)
        return out.astype(Z.dtype, copy=False)

    def _check_network(self, name, widths, expected):
        """A loaded network: its widths are ``expected`` and its weights as many as
        those widths hold."""
        widths = np.asarray(widths)
        if widths.tolist() != list(expected):
            raise ValueError(
                f"the {name}'s widths {widths.tolist()} do not run from {expected[0]} through "
                f"hidden_layer_sizes={tuple(self.hidden_layer_sizes)} to {expected[-1]}"
            )
        weights = getattr(self, f"{name}_weights_")
        if np.size(weights) != n_weights(list(expected)):
            raise ValueError(
                f"{name}_weights_ holds {np.size(weights)} numbers; widths {list(expected)} need "
                f"{n_weights(list(expected))}"
            )

    def _check_coded_rows(self):
        """A loaded model's ``mean_`` (and ``projection_``'s rows) hold one number per
        number of a row: a feature, or with Gower's distance a number of the features'
        coding (``GowerEncoding.from_state`` refuses a coding whose arrays disagree)."""
        width = self._coded_width()
        projection = getattr(self, "projection_", None)
        rows = {"mean_": np.shape(self.mean_)[0]}
        if projection is not None:
            rows["projection_"] = np.shape(projection)[0]
        wrong = {name: n for name, n in rows.items() if n != width}
        if wrong:
            found = ", ".join(f"{name} {n}" for name, n in wrong.items())
            raise ValueError(f"a row gives the networks {width} numbers before any projection, but {found}")

    def _check_scaling(self):
        if not (np.isfinite(self.scale_) and self.scale_ > 0):
            raise ValueError(f"scale_ must be a positive number; got {self.scale_!r}")
