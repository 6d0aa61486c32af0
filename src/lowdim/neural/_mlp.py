"""Multilayer perceptrons whose architecture is data: a network is its layer widths, its
activation and one flat float32 vector of weights (each layer's matrix, then its bias).
The weights start as numpy arrays; the forward pass is traced by JAX."""

import numpy as np

ACTIVATIONS = ("relu", "tanh", "elu", "gelu", "sigmoid", "identity")


def n_weights(widths):
    """How many numbers a network of these layer widths holds.

    Examples
    --------
    >>> n_weights([4, 3, 2])  # 4*3 + 3, then 3*2 + 2
    23
    """
    return sum(a * b + b for a, b in zip(widths[:-1], widths[1:]))


def initial_weights(widths, rng):
    """Glorot-uniform matrices and zero biases, flattened (float32).

    Parameters
    ----------
    widths : sequence of int
        Input width, hidden widths, output width.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_weights(widths),)

    Examples
    --------
    >>> w = initial_weights([4, 3], np.random.default_rng(0))
    >>> w.shape, w.dtype.name, bool(np.all(w[-3:] == 0))
    ((15,), 'float32', True)
    """
    parts = []
    for a, b in zip(widths[:-1], widths[1:]):
        bound = np.sqrt(6.0 / (a + b))
        parts += [rng.uniform(-bound, bound, size=a * b), np.zeros(b)]
    return np.concatenate(parts).astype(np.float32)


def layers(weights, widths):
    """``[(W, b), ...]`` views of a flat weight vector (numpy or JAX).

    Examples
    --------
    >>> [(W.shape, b.shape) for W, b in layers(np.zeros(23), [4, 3, 2])]
    [((4, 3), (3,)), ((3, 2), (2,))]
    """
    out, at = [], 0
    for a, b in zip(widths[:-1], widths[1:]):
        out.append((weights[at : at + a * b].reshape(a, b), weights[at + a * b : at + a * b + b]))
        at += a * b + b
    return out


def activation_function(name, xp=np):
    """An activation as a function of arrays of the module ``xp`` (numpy or
    ``jax.numpy``): the same formula on both, so a network trained by JAX is applied by
    numpy.

    Examples
    --------
    >>> activation_function("relu")(np.array([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    functions = {
        "relu": lambda x: xp.maximum(x, 0),
        "tanh": xp.tanh,
        "elu": lambda x: xp.where(x > 0, x, xp.expm1(xp.minimum(x, 0))),
        # the tanh form of GELU (Hendrycks & Gimpel), as JAX's default; x * x * x, as JAX
        # computes x**3, where numpy's float power takes 30 times as long
        "gelu": lambda x: 0.5 * x * (1 + xp.tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x)))),
        "sigmoid": lambda x: 0.5 * (1 + xp.tanh(0.5 * x)),  # no overflow for large |x|
        "identity": lambda x: x,
    }
    return functions[name]


def forward(weights, widths, x, activation, *, xp=np, dropout=0.0, key=None):
    """The network's output for the rows ``x``: ``activation`` between layers, none after
    the last (codes and reconstructions are unbounded); inverted dropout on every hidden
    layer when ``key`` (a JAX random key, training) is given.

    Parameters
    ----------
    weights : ndarray
        The flat weights (``layers`` shapes them).
    widths : sequence of int
    x : ndarray of shape (n_rows, widths[0])
    activation : str
        One of ``ACTIVATIONS``.
    xp : module
        numpy (applying a trained network) or ``jax.numpy`` (training, traced).
    dropout : float
    key : JAX random key, optional

    Returns
    -------
    ndarray of shape (n_rows, widths[-1])

    Examples
    --------
    >>> w = initial_weights([3, 2], np.random.default_rng(0))
    >>> forward(w, [3, 2], np.ones((5, 3)), "relu").shape
    (5, 2)
    """
    f = activation_function(activation, xp)
    pairs = layers(weights, widths)
    for i, (W, b) in enumerate(pairs):
        x = x @ W + b
        if i < len(pairs) - 1:
            x = f(x)
            if key is not None and dropout > 0:
                import jax

                key, sub = jax.random.split(key)
                keep = jax.random.bernoulli(sub, 1.0 - dropout, x.shape)
                x = xp.where(keep, x / (1.0 - dropout), 0.0)
    return x
