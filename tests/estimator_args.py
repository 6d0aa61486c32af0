"""What the suites that build every estimator (the common suite, the model-file schema and
fuzz tests) pass to a constructor argument without a default."""

import numpy as np


def required_args(name, n_features):
    """Keyword arguments the class ``name`` needs for data of ``n_features`` columns:
    SparseCoder's atoms (4 of them, as wide as the data); nothing for other classes."""
    if name == "SparseCoder":
        return {"dictionary": np.random.default_rng(0).normal(size=(4, n_features))}
    return {}
