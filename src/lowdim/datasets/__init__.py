"""Built-in datasets: the small real datasets that ship with scikit-learn."""

_LOADERS = {"digits": "load_digits", "iris": "load_iris", "wine": "load_wine",
            "breast_cancer": "load_breast_cancer"}

BUILTIN = tuple(_LOADERS)


def load_builtin(name):
    """Return ``(X, y, feature_names)`` of a built-in dataset.

    Parameters
    ----------
    name : {'digits', 'iris', 'wine', 'breast_cancer'}

    Examples
    --------
    >>> X, y, names = load_builtin("iris")
    >>> X.shape
    (150, 4)
    """
    if name not in _LOADERS:
        raise ValueError(f"unknown built-in dataset {name!r}; choose from {', '.join(BUILTIN)}.")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, _LOADERS[name])()
    names = [str(n) for n in getattr(bunch, "feature_names", [])] or [f"x{i}" for i in range(bunch.data.shape[1])]
    return bunch.data, bunch.target, names
