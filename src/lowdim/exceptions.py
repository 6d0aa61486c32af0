"""Exception and warning classes raised by lowdim."""


class ConvergenceWarning(UserWarning):
    """An iterative method stopped at ``max_iter`` before reaching ``tol``.

    Examples
    --------
    >>> import warnings
    >>> from lowdim.exceptions import ConvergenceWarning
    >>> warnings.simplefilter("error", ConvergenceWarning)
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
    """A constructor parameter has a value outside its allowed set.

    Examples
    --------
    >>> from lowdim.exceptions import InvalidParameterError
    >>> issubclass(InvalidParameterError, ValueError)
    True
    """


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
