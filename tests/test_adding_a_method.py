"""docs/architecture.md's "Adding a method", done as a newcomer would: a toy method added to a
copy of the package by editing only the files that section names, then reached through
every front end the section promises (the public name, the command line, model files,
``lowdim info`` and the common suite)."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

TOY = '''"""``CentredColumns``: the first columns of the data, centred (a toy method)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._estimator import ComponentTransformer
from .._params import Interval, validate_params
from .._validation import check_n_components


def centred_columns(X, k):
    """The column means and the first ``k`` columns minus their means."""
    mean = X.mean(axis=0)
    return mean, X[:, :k] - mean[:k]


class CentredColumns(ComponentTransformer):
    """The first ``n_components`` columns, centred.

    Parameters
    ----------
    n_components : int, default=2

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
    n_components_ : int

    Examples
    --------
    >>> import numpy as np
    >>> CentredColumns(1).fit_transform(np.array([[1.0, 5.0], [3.0, 7.0]])).ravel().tolist()
    [-1.0, 1.0]
    """

    _parameter_constraints = {"n_components": [Interval(int, 1, None, closed="left")]}

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        """Learn the column means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._validate_input(X, reset=True)
        check_n_components(self.n_components, *X.shape, "CentredColumns")
        self.mean_, _ = centred_columns(X, self.n_components)
        self.n_components_ = self.n_components
        return self

    def transform(self, X):
        """The first ``n_components_`` columns minus the training means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        X = self._validate_input(X, reset=False)
        return X[:, : self.n_components_] - self.mean_[: self.n_components_]
'''


def _edit(path, anchor, addition):
    """Insert ``addition`` after the first line containing ``anchor`` (a newcomer's edit)."""
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if anchor in line)
    lines.insert(at + 1, addition)
    path.write_text("\n".join(lines))


def _add_the_toy_method(src):
    package = src / "lowdim"
    (package / "decomposition" / "_centred_columns.py").write_text(TOY)
    init = package / "decomposition" / "__init__.py"
    init.write_text(
        init.read_text().replace(
            "__all__ = [", 'from ._centred_columns import CentredColumns\n\n__all__ = [\n    "CentredColumns",', 1
        )
    )
    _edit(package / "_exports.py", "EXPORTS = {", '    "CentredColumns": "lowdim.decomposition",')
    _edit(
        package / "methods.py",
        "EMBEDDINGS = {",
        '    "centred-columns": Method("CentredColumns", memory="pca", summary="the first columns, centred"),',
    )
    return {
        "decomposition/_centred_columns.py",
        "decomposition/__init__.py",
        "_exports.py",
        "methods.py",
        "io/_fitted_table.py",
    }


def _run(args, src, cwd):
    env = {**os.environ, "PYTHONPATH": str(src)}
    result = subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    assert result.returncode == 0, (args, result.stdout[-3000:], result.stderr[-3000:])
    return result.stdout


def _named_in_the_guide(relative):
    """Whether docs/architecture.md's "Adding a method" names the file, the package and
    the method's module written as ``<package>`` and ``_<method>.py``."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Adding a method")[1].split("\n## ")[0]
    generic = re.sub(r"^decomposition/", "<package>/", relative).replace("_centred_columns.py", "_<method>.py")
    return f"`{generic}`" in section


def test_a_toy_method_reaches_every_front_end_by_editing_the_named_files(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "lowdim", src / "lowdim", ignore=shutil.ignore_patterns("__pycache__"))
    touched = _add_the_toy_method(src)
    X = np.random.default_rng(0).normal(size=(40, 5))
    np.save(tmp_path / "x.npy", X)
    lowdim = [sys.executable, "-m", "lowdim.cli.main"]
    # before step 3 its model files are refused, with the command that makes them possible
    refused = subprocess.run(
        [*lowdim, "embed", "x.npy", "-m", "centred-columns", "-k", "2", "-o", "r.csv", "--save-model", "r.lowdim"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert refused.returncode != 0 and "python tests/test_model_schema.py CentredColumns" in refused.stderr, (
        refused.stderr
    )
    assert not (tmp_path / "r.lowdim").exists()
    # step 3: the fitted-attribute table, written by the command the guide gives
    _run([sys.executable, str(ROOT / "tests" / "test_model_schema.py"), "CentredColumns"], src, tmp_path)
    changed = {
        str(path.relative_to(src / "lowdim"))
        for path in (src / "lowdim").rglob("*.py")
        if not (ROOT / "src" / path.relative_to(src)).exists()
        or path.read_bytes() != (ROOT / "src" / path.relative_to(src)).read_bytes()
    }
    assert changed == touched
    assert all(_named_in_the_guide(path) for path in touched), [p for p in touched if not _named_in_the_guide(p)]

    # the command line and a model file of it, applied by transform
    _run(
        [*lowdim, "embed", "x.npy", "-m", "centred-columns", "-k", "2", "-o", "z.csv", "--save-model", "m.lowdim"],
        src,
        tmp_path,
    )
    Z = np.loadtxt(tmp_path / "z.csv", delimiter=",", skiprows=1, usecols=(-2, -1))
    np.testing.assert_allclose(Z, X[:, :2] - X[:, :2].mean(axis=0), atol=1e-6)
    _run([*lowdim, "transform", "m.lowdim", "x.npy", "-o", "t.csv"], src, tmp_path)
    T = np.loadtxt(tmp_path / "t.csv", delimiter=",", skiprows=1, usecols=(-2, -1))
    np.testing.assert_allclose(T, Z, atol=1e-6)
    info = json.loads(_run([*lowdim, "info", "x.npy", "--json"], src, tmp_path))
    assert "centred-columns" in json.dumps(info)
    # the public name and the common suite pick it up with no further change: the suite's
    # tables list it, and scikit-learn's checks are generated for it
    listed = _run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); import lowdim, test_common\n"
            "print(lowdim.CentredColumns.__name__ in test_common.IDS)\n"
            "print(sum(type(getattr(item, 'values', item)[0]).__name__ == 'CentredColumns'\n"
            "          for item in test_common._sklearn_checks()))",
        ],
        src,
        tmp_path,
    ).split()
    assert listed[0] == "True" and int(listed[1]) >= 20, listed
