"""What a working model of each class holds, held against every loaded file before
anything uses it: for each fitted attribute its kind (float, integer, bool, text; an
array's number of axes, which axes are the features, the training rows, the
components, the clusters or the classes, and whether its floats must be finite, or may
hold NaN gaps when the model compares rows by Gower's distance), and which attributes
every model of the class has.

``FITTED`` is data: ``tests/test_model_schema.py`` derives it from real fits of every
registered class (two fits of different sizes; an axis is tied to a size only where it
equals that size in both) and fails, printing the table, when the two disagree.
"""

import numbers

import numpy as np

from .._estimator import metric_parameter
from ..exceptions import UntrustedModelError
from ._fitted_table import FITTED

# kind of a fitted value: its numpy dtype kind, or its JSON type for plain attributes
FLOAT_DTYPES = ("float32", "float64")
SIZE_NAMES = ("features", "samples", "components", "clusters", "classes")


def _kind(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return {"f": "float", "i": "int", "u": "int", "b": "bool", "U": "text", "O": "text"}.get(
            value.dtype.kind, "other"
        )
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):
        return "int"
    if isinstance(value, numbers.Real):
        return "float"
    return type(value).__name__


def describe(value):
    """``(kind, ndim, finite)`` of a fitted value (``ndim`` None for plain values).

    Examples
    --------
    >>> describe(np.zeros((2, 3), dtype=np.float32)), describe(3)
    (('float', 2, True), ('int', None, True))
    """
    if isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value)
        finite = bool(np.all(np.isfinite(value))) if value.dtype.kind == "f" else True
        return _kind(value), value.ndim, finite
    return _kind(value), None, True


def sizes_of(estimator, n_samples=None):
    """The sizes an axis can be tied to, as this model declares them (None: unknown)."""

    def integer(value):
        return int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None

    params = estimator.get_params(deep=False)
    components = integer(getattr(estimator, "n_components_", None))
    classes = getattr(estimator, "classes_", None)
    return {
        "features": integer(getattr(estimator, "n_features_in_", None)),
        "samples": n_samples,
        "components": components if components is not None else integer(params.get("n_components")),
        "clusters": integer(params.get("n_clusters")),
        "classes": len(classes) if isinstance(classes, np.ndarray) and classes.ndim == 1 else None,
    }


def _refuse(cls, what):
    raise UntrustedModelError(f"the file's attributes do not make a working {cls}: {what}.")


def check_fitted(estimator, attributes):
    """Raise ``UntrustedModelError`` unless the fitted ``attributes`` (name -> value, as
    read from a file) fit the class's entry in ``FITTED``: every attribute the class
    always has is there, each has its kind and number of axes, floats are float32 or
    float64 (and finite where a working model's are), and the axes tied to one size all
    equal it (``n_features_in_``, the components, ...). A class without an entry is
    refused: nothing says what its models hold."""
    cls = type(estimator).__name__
    table = FITTED.get(cls)
    if table is None:
        _refuse(cls, "lowdim has no table of what its fitted models hold (io/_fitted_table.py)")
    missing = sorted(set(table["always"]) - set(attributes))
    if missing:
        _refuse(cls, f"it lacks {', '.join(missing)}")
    held = {name for name, value in attributes.items() if value is not None}  # None: an option left unused
    foreign = sorted(held - set(table["attributes"]) & _ALWAYS_SOMEWHERE)
    if foreign:  # another class's arrays: a model relabelled (a PCA file as MatrixFactorization)
        _refuse(cls, f"it holds {', '.join(foreign)}, which another class's models hold and a {cls} never does")
    seen = {}
    declared = sizes_of(estimator)
    params = estimator.get_params(deep=False)
    gaps = params.get(metric_parameter(params)) == "gower"  # Gower's distance keeps NaN gaps
    for name, value in attributes.items():
        spec = table["attributes"].get(name)
        if spec is None or (value is None and name not in table["always"]):  # an option's array, unused
            continue
        _check_one(cls, name, value, spec, gaps)
        for axis, size in enumerate(spec.get("axes") or ()):
            if size is not None:
                seen.setdefault(size, []).append((name, axis, np.shape(value)[axis]))
    for size, found in seen.items():
        expected = declared.get(size)
        lengths = {length for _, _, length in found}
        if len(lengths) > 1 or (expected is not None and lengths != {expected}):
            listed = ", ".join(f"{name} axis {axis}: {length}" for name, axis, length in found)
            _refuse(cls, f"the {size} do not agree ({listed}{f'; declared {expected}' if expected else ''})")


_ALWAYS_SOMEWHERE = {name for entry in FITTED.values() for name in entry["always"]}


def _check_one(cls, name, value, spec, gaps=False):
    kind, ndim, finite = describe(value)
    want = spec["kind"]
    if kind != want and not (want == "float" and kind == "int" and ndim is None):
        _refuse(cls, f"{name} holds {kind} values where a {cls} holds {want}")
    allowed = spec.get("ndim")  # a tuple where the layout follows a parameter (covariance_type)
    allowed = allowed if isinstance(allowed, tuple) else (allowed,)
    if ndim in (0, None) and set(allowed) & {0, None}:
        pass  # a number, stored as a 0-d array or a plain one (files from before the kind was settled)
    elif ndim not in allowed:
        _refuse(cls, f"{name} has {ndim} axes where a {cls} has {spec.get('ndim')}")
    if ndim is not None and kind == "float" and np.asarray(value).dtype.name not in FLOAT_DTYPES:
        _refuse(cls, f"{name} has dtype {np.asarray(value).dtype.name}; a {cls} holds float32 or float64")
    if spec.get("finite") and not finite and not (gaps and spec.get("gaps") and not np.isinf(value).any()):
        _refuse(cls, f"{name} holds NaN or infinity")
