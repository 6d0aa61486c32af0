"""Exception and warning classes raised by lowdim."""

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative method stopped at ``max_iter`` before reaching ``tol``, or a
    clustering found fewer distinct clusters than asked for.

    A subclass of scikit-learn's ``ConvergenceWarning`` (itself a ``UserWarning``), so
    filters and ``pytest.warns`` written for scikit-learn's class catch it.

    Examples
    --------
    >>> import warnings
    >>> import sklearn.exceptions
    >>> from lowdim.exceptions import ConvergenceWarning
    >>> issubclass(ConvergenceWarning, sklearn.exceptions.ConvergenceWarning)
    True
    """


class DataShapeError(ValueError):
    """The input array has a shape the method cannot work with.

    Examples
    --------
    >>> from lowdim.exceptions import DataShapeError
    >>> issubclass(DataShapeError, ValueError)
    True
    """


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter has a value outside its allowed set; ``param`` names it
    (None when not known).

    Examples
    --------
    >>> from lowdim.exceptions import InvalidParameterError
    >>> issubclass(InvalidParameterError, ValueError)
    True
    """

    def __init__(self, message, param=None):
        super().__init__(message)
        self.param = param


class UntrustedModelError(ValueError):
    """A saved model file names a class outside lowdim's registry, or is corrupt.

    Examples
    --------
    >>> from lowdim.exceptions import UntrustedModelError
    >>> issubclass(UntrustedModelError, ValueError)
    True
    """


class MemoryBudgetError(MemoryError):
    """The requested computation would need more memory than is available.

    Examples
    --------
    >>> from lowdim.exceptions import MemoryBudgetError
    >>> issubclass(MemoryBudgetError, MemoryError)
    True
    """


class DataFileError(ValueError):
    """A data file cannot be read as a numeric table; the message says where and why.

    Examples
    --------
    >>> from lowdim.exceptions import DataFileError
    >>> issubclass(DataFileError, ValueError)
    True
    """


class UnsupportedBySolver(ValueError, NotImplementedError):
    """A parameter the chosen solver does not implement, or a method the model's
    options leave out (UMAP's ``inverse_transform`` of a map fitted on distances): a
    ``ValueError`` (a wrong combination of parameters) and the ``NotImplementedError``
    scikit-learn raises.

    Examples
    --------
    >>> from lowdim.exceptions import UnsupportedBySolver
    >>> issubclass(UnsupportedBySolver, ValueError) and issubclass(UnsupportedBySolver, NotImplementedError)
    True
    """


class DisconnectedGraphError(ValueError, RuntimeError):
    """A neighbour graph in pieces that cannot be joined: nothing says how far apart the
    pieces are (a sparse distance matrix storing no distance between them). A
    ``ValueError`` (the data given cannot do it) and the ``RuntimeError`` scikit-learn
    raises for it.

    Examples
    --------
    >>> from lowdim.exceptions import DisconnectedGraphError
    >>> issubclass(DisconnectedGraphError, ValueError) and issubclass(DisconnectedGraphError, RuntimeError)
    True
    """
