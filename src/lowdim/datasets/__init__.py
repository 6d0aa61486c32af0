"""Datasets: generators with known structure, the small real datasets that ship with
scikit-learn or with lowdim (ORL faces, UK food, Palmer penguins), and Fashion-MNIST from its Debian package."""

import os

import numpy as np

from ..io import read_image_folder
from ._fashion_mnist import load_fashion_mnist
from ._generators import make_blobs, make_s_curve, make_sources, make_swiss_roll

_LOADERS = {"digits": "load_digits", "iris": "load_iris", "wine": "load_wine", "breast_cancer": "load_breast_cancer"}

BUILTIN = tuple(_LOADERS)


def load_builtin(name, *, class_names=False):
    """Return ``(X, y, feature_names)`` of a built-in dataset.

    Parameters
    ----------
    name : {'digits', 'iris', 'wine', 'breast_cancer'}
    class_names : bool, default=False
        ``y`` as the classes' names (iris: 'setosa', ...; breast cancer: 'malignant',
        'benign'; digits: '0' to '9') instead of their codes.

    Returns
    -------
    X : ndarray (n, d)
    y : ndarray (n,)
    feature_names : list of str

    Examples
    --------
    >>> X, y, names = load_builtin("iris")
    >>> X.shape, int(y[0])
    ((150, 4), 0)
    >>> str(load_builtin("breast_cancer", class_names=True)[1][0])
    'malignant'
    """
    if name not in _LOADERS:
        raise ValueError(f"unknown built-in dataset {name!r}; choose from {', '.join(BUILTIN)}.")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, _LOADERS[name])()
    names = [str(n) for n in getattr(bunch, "feature_names", [])] or [f"x{i}" for i in range(bunch.data.shape[1])]
    if class_names:
        return bunch.data, np.asarray(bunch.target_names).astype(str)[bunch.target], names
    return bunch.data, bunch.target, names


def load_digits():
    """The 1797 8x8 digit images of scikit-learn as ``(X, y)`` (X: 1797 x 64 floats).

    Returns
    -------
    X : ndarray (1797, 64)
    y : ndarray (1797,)

    Examples
    --------
    >>> X, y = load_digits()
    >>> X.shape, int(y.max())
    ((1797, 64), 9)
    """
    X, y, _ = load_builtin("digits")
    return X, y


__all__ = [
    "BUILTIN",
    "load_builtin",
    "load_digits",
    "load_fashion_mnist",
    "load_orl_faces",
    "load_penguins",
    "load_uk_food",
    "make_blobs",
    "make_s_curve",
    "make_sources",
    "make_swiss_roll",
]

_DATA = os.path.join(os.path.dirname(__file__), "data")


def load_orl_faces():
    """The ORL (AT&T) faces shipped with lowdim: 400 grey 112 x 92 images of 40 people.

    Returns
    -------
    images : ndarray of shape (400, 112, 92), floats in [0, 1]
    person : ndarray of shape (400,) of int, 0..39

    Examples
    --------
    >>> images, person = load_orl_faces()
    >>> images.shape, len(set(person.tolist()))
    ((400, 112, 92), 40)
    """
    images, folders = read_image_folder(os.path.join(_DATA, "orl_faces"))
    return images, np.array([int(f.lstrip("s")) - 1 for f in folders])


def load_uk_food():
    """The UK food table shipped with lowdim: 4 countries x 17 food groups.

    Grams per person per week of 17 food groups in England, Wales, Scotland and
    Northern Ireland, from the Family Food survey of the UK's Department for
    Environment, Food and Rural Affairs (DEFRA); the classic first example of PCA
    (provenance in ``datasets/data/uk_food/README.md``).

    Returns
    -------
    X : ndarray of shape (4, 17), float64
        Consumption, one row per country.
    countries : ndarray of shape (4,) of str
        The row names: England, Wales, Scotland, N.Ireland.
    foods : list of str
        The column names (food groups).

    Examples
    --------
    >>> X, countries, foods = load_uk_food()
    >>> X.shape, str(countries[-1]), foods[0]
    ((4, 17), 'N.Ireland', 'Cheese')
    """
    path = os.path.join(_DATA, "uk_food", "uk_food.csv")
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        rows = [line.strip().split(",") for line in fh if line.strip()]
    countries = np.array([row[0] for row in rows])
    X = np.array([[float(v) for v in row[1:]] for row in rows])
    return X, countries, header[1:]


def load_penguins(*, as_frame=False):
    """The Palmer penguins shipped with lowdim: 344 penguins, numbers, categories and gaps.

    Bill length and depth, flipper length, body mass (numbers), island and sex
    (categories) and the year of observation of penguins of three species, with missing
    cells (provenance in ``datasets/data/penguins/README.md``): the usual first example
    of a mixed table.

    Parameters
    ----------
    as_frame : bool, default=False
        Return the table as a pandas DataFrame (numbers as floats with NaN gaps, island
        and sex as 'category' columns), as the methods of ``metric='gower'`` read it.

    Returns
    -------
    table : lowdim.preprocessing.MixedCodes or pandas.DataFrame
        The 7 feature columns coded as numbers (island and sex as category codes, NaN
        for a gap); ``table.metric_params`` describes them for ``metric='gower'``.
        With ``as_frame``, the DataFrame of the same columns.
    species : ndarray of str (344,)

    Examples
    --------
    >>> table, species = load_penguins()
    >>> table.X.shape, table.kinds[0], table.levels["island"], str(species[0])
    ((344, 7), 'categorical', ['Biscoe', 'Dream', 'Torgersen'], 'Adelie')
    >>> frame, _ = load_penguins(as_frame=True)
    >>> frame.shape, str(frame["sex"].dtype), int(frame["sex"].isna().sum())
    ((344, 7), 'category', 11)
    """
    import csv

    from ..preprocessing import mixed_codes

    with open(os.path.join(_DATA, "penguins", "penguins.csv"), encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    names, rows = rows[0], rows[1:]
    species = np.array([row[0] for row in rows])
    table = mixed_codes([row[1:] for row in rows], names=names[1:])
    return (_as_frame(table) if as_frame else table), species


def _as_frame(codes):
    """A coded mixed table as a DataFrame: numbers as they are, categories as pandas
    'category' columns of their levels (a gap missing)."""
    import pandas as pd

    columns = {}
    for j, (name, kind) in enumerate(zip(codes.names, codes.kinds)):
        values = codes.X[:, j]
        if kind == "numeric":
            columns[name] = values
        else:
            ranks = np.where(np.isnan(values), -1, values).astype(np.int64)
            columns[name] = pd.Categorical.from_codes(ranks, codes.levels[name], ordered=kind == "ordinal")
    return pd.DataFrame(columns)
