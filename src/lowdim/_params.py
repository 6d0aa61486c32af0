"""Declarative parameter validation.

Each estimator class declares ``_parameter_constraints``: a dict from parameter name
to a list of constraints, any one of which may accept the value. ``validate_params``
runs once at the start of ``fit`` and raises an error naming the parameter, the value
and what would be valid.
"""

import functools
import numbers

import numpy as np

from .exceptions import InvalidParameterError


class Interval:
    """Numbers of a given kind within bounds.

    Parameters
    ----------
    kind : {int, float}
        ``int`` accepts integers only; ``float`` accepts any real number.
    low, high : float or None
        Bounds; None means unbounded.
    closed : {"both", "left", "right", "neither"}
        Which bounds are included.

    Examples
    --------
    >>> Interval(int, 1, None, closed="left").accepts(3)
    True
    >>> Interval(float, 0, 1, closed="neither").accepts(1.0)
    False
    """

    def __init__(self, kind, low, high, *, closed="both"):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value):
        if isinstance(value, bool):
            return False
        if self.kind is int and not isinstance(value, numbers.Integral):
            return False
        if not isinstance(value, numbers.Real):
            return False
        # A Python int beyond float range is a valid Real; only floats can be NaN.
        if not isinstance(value, numbers.Integral) and np.isnan(value):
            return False
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (value == self.low and not left)):
            return False
        if self.high is not None and (value > self.high or (value == self.high and not right)):
            return False
        return True

    def __str__(self):
        kind = "an int" if self.kind is int else "a float"
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        lb = "[" if self.closed in ("both", "left") and self.low is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


class Options:
    """One of a fixed set of values (typically strings).

    Examples
    --------
    >>> Options({"auto", "svd"}).accepts("svd")
    True
    """

    def __init__(self, values):
        self.values = frozenset(values)

    def accepts(self, value):
        try:
            return value in self.values
        except TypeError:
            return False

    def __str__(self):
        return "a str among " + ", ".join(repr(v) for v in sorted(self.values, key=str))


class InstanceOf:
    """An instance of one of the given types (bools excluded unless ``bool`` is named).

    Examples
    --------
    >>> InstanceOf(bool).accepts(True)
    True
    """

    def __init__(self, *types, label=None):
        self.types, self.label = types, label

    def accepts(self, value):
        if isinstance(value, bool) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def __str__(self):
        return self.label or "an instance of " + " or ".join(t.__name__ for t in self.types)


class _NoneConstraint:
    def accepts(self, value):
        return value is None

    def __str__(self):
        return "None"


class _RandomStateConstraint:
    def accepts(self, value):
        if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
            return True
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0

    def __str__(self):
        return "None, a non-negative int, a numpy RandomState or Generator"


class _CallableConstraint:
    def accepts(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"


class _CallableListConstraint:
    def accepts(self, value):
        return isinstance(value, (list, tuple)) and all(callable(c) for c in value)

    def __str__(self):
        return "a list of callables"


class HasMethods:
    """An object with all the named methods (duck typing, e.g. an estimator with ``fit``).

    Examples
    --------
    >>> HasMethods(["fit"]).accepts(object())
    False
    """

    def __init__(self, methods):
        self.methods = list(methods)

    def accepts(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        return "an object with " + ", ".join(f"a {m}() method" for m in self.methods)


NONE = _NoneConstraint()
ARRAY_LIKE = InstanceOf(list, tuple, np.ndarray, label="an array-like")
BOOLEAN = InstanceOf(bool, np.bool_, label="a bool")
RANDOM_STATE = _RandomStateConstraint()
CALLABLE = _CallableConstraint()
# every estimator's ``verbose``: a level (scikit-learn's int) or on/off (umap-learn's bool)
VERBOSE = [Interval(int, 0, None, closed="left"), BOOLEAN]
# ``callbacks``: ``callback(iteration, objective, state)``, alone or in a list (``_iterative.callback_list``)
CALLBACKS = [NONE, CALLABLE, _CallableListConstraint()]


@functools.cache
def _parameter_names(cls):
    """The class's parameters, once per class: scikit-learn reads them from the
    signature of ``__init__`` on every ``get_params`` (a tenth of a millisecond, a
    quarter of a PCA of a small table)."""
    return tuple(cls._get_param_names())


def validate_params(estimator):
    """Check every parameter of ``estimator`` against its class's constraint table.

    Parameters
    ----------
    estimator : object
        An object with ``get_params`` and a ``_parameter_constraints`` class attribute.

    Raises
    ------
    InvalidParameterError
        Naming the first parameter whose value no constraint accepts.

    Examples
    --------
    >>> from lowdim import PCA
    >>> validate_params(PCA(solver="magic"))  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    InvalidParameterError: The 'solver' parameter of PCA must be ...
    """
    table = type(estimator)._parameter_constraints
    name_of = type(estimator).__name__
    for param in _parameter_names(type(estimator)):
        constraints = table.get(param)
        if constraints is None:
            continue
        value = getattr(estimator, param)  # as get_params(deep=False) reads it
        if any(c.accepts(value) for c in constraints):
            continue
        allowed = " or ".join(str(c) for c in constraints)
        raise InvalidParameterError(
            f"The {param!r} parameter of {name_of} must be {allowed}. Got {value!r} instead.", param
        )
