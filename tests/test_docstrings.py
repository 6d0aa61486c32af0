"""Every public name's docstring, checked with numpydoc's validator: a docstring, every
parameter documented (and none that does not exist), a Returns section where something
is returned, an example for every class and function; the fitted attributes of every
estimator documented; result containers document their fields (as parameters or
attributes)."""

import dataclasses
import importlib
import inspect

import numpy as np
import pytest
from numpydoc.docscrape import ClassDoc
from numpydoc.validate import validate

MODULES = [
    "lowdim",
    "lowdim.decomposition",
    "lowdim.manifold",
    "lowdim.embedding",
    "lowdim.cluster",
    "lowdim.metrics",
    "lowdim.neighbors",
    "lowdim.linalg",
    "lowdim.images",
    "lowdim.io",
    "lowdim.datasets",
    "lowdim.plot",
    "lowdim.distributed",
]
METHODS = (
    "fit",
    "transform",
    "fit_transform",
    "inverse_transform",
    "predict",
    "predict_proba",
    "fit_predict",
    "score",
    "score_samples",
    "partial_fit",
    "query",
    "build",
    "sample",
    "bic",
    "aic",
)


def _public_objects():
    seen = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                seen.setdefault(id(obj), (f"{obj.__module__}.{obj.__qualname__}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


PUBLIC = _public_objects()


def _methods(cls):
    """``(path, method)`` of the public methods lowdim itself defines for ``cls``."""
    for name in METHODS:
        for klass in cls.__mro__:
            if name in klass.__dict__ and klass.__module__.startswith("lowdim"):
                yield f"{klass.__module__}.{klass.__qualname__}.{name}"
                break


def _errors(path, codes):
    return [f"{code}: {message}" for code, message in validate(path)["errors"] if code in codes]


@pytest.mark.parametrize("path, obj", PUBLIC, ids=[p for p, _ in PUBLIC])
def test_public_docstring(path, obj):
    codes = {"GL08", "PR02", "RT01", "EX01"}
    if not dataclasses.is_dataclass(obj):
        codes.add("PR01")
    errors = _errors(path, codes)
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        for method in _methods(obj):
            errors += [f"{method}: {e}" for e in _errors(method, {"GL08", "PR01", "PR02", "RT01"})]
    assert not errors, errors


@pytest.mark.parametrize(
    "path, obj",
    [(p, o) for p, o in PUBLIC if dataclasses.is_dataclass(o)],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_result_containers_document_their_fields(path, obj):
    doc = ClassDoc(obj)
    items = list(doc["Attributes"]) + list(doc["Parameters"])
    documented = {name.strip() for item in items for name in item.name.split(",")}
    fields = {f.name for f in dataclasses.fields(obj)}
    assert fields <= documented, sorted(fields - documented)


def _estimators():
    import lowdim

    for name in lowdim.__all__:
        obj = getattr(lowdim, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException) and hasattr(obj, "fit"):
            yield pytest.param(obj, id=name)


@pytest.mark.parametrize("cls", list(_estimators()))
@pytest.mark.filterwarnings("ignore")
def test_fitted_attributes_are_documented(cls):
    X = np.random.default_rng(0).random((60, 5)) + np.arange(5)
    y = np.arange(60) % 3
    est = cls(np.eye(5)[:3]) if cls.__name__ == "SparseCoder" else cls()  # the coder is given its atoms
    if "n_components" in est.get_params():
        est.set_params(n_components=2)
    if "perplexity" in est.get_params():  # short fits: the attributes, not the maps, are checked
        est.set_params(perplexity=5.0, **({"n_epochs": 5} if "n_epochs" in est.get_params() else {"max_iter": 250}))
    if cls.__name__ == "LinearDiscriminantAnalysis":
        est.fit(X, y)
    elif cls.__name__ == "AlignedUMAP":  # a sequence of datasets, related row for row
        est.fit([X[:40], X[20:]], relations=[{i + 20: i for i in range(20)}])
    else:
        est.fit(X)
    attributes = {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}
    documented = {name.strip() for item in ClassDoc(cls)["Attributes"] for name in item.name.split(",")}
    assert attributes <= documented, sorted(attributes - documented)
