"""lowdim: dimensionality reduction and unsupervised structure discovery.

The public names are loaded on first use, so ``import lowdim`` stays fast
(scikit-learn, numba and matplotlib are imported only by the code that needs them).

Examples
--------
>>> import numpy as np
>>> import lowdim
>>> X = np.random.default_rng(0).normal(size=(100, 5))
>>> lowdim.PCA(n_components=2).fit_transform(X).shape
(100, 2)
"""

from importlib import import_module

from ._exports import EXPORTS as _EXPORTS
from ._version import __version__

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lowdim' has no attribute {name!r}")
    value = import_module(module) if module == f"lowdim.{name}" else getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
