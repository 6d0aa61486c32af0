"""``set_output(transform='pandas')`` is honoured by every estimator that offers it: a
method inherited from a mixin is not wrapped by scikit-learn, and UMAP, the autoencoders,
dictionary learning and five embeddings returned arrays without a word."""

import importlib
import warnings

import numpy as np
import pytest

from lowdim.io._model_files import REGISTRY

pd = pytest.importorskip("pandas")
SHORT = {"n_components": 2, "n_clusters": 3, "n_epochs": 5, "max_iter": 20, "perplexity": 5.0, "n_neighbors": 8}


def _offering():
    for name, module in sorted(REGISTRY.items()):
        cls = getattr(importlib.import_module(module), name)
        if hasattr(cls, "set_output") and name != "SparseCoder":  # the coder is given its atoms
            yield pytest.param(cls, id=name)


@pytest.mark.parametrize("cls", list(_offering()))
def test_pandas_output_keeps_the_rows_index(cls):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(np.abs(rng.normal(size=(60, 5))) + 0.1, columns=list("abcde"))
    frame.index = [f"row{i}" for i in range(60)]
    est = cls()
    est.set_params(**{k: v for k, v in SHORT.items() if k in est.get_params()})
    est.set_output(transform="pandas")
    y = np.arange(60) % 3 if cls.__name__ == "LinearDiscriminantAnalysis" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short fits: the output's form is checked, not the fit
        outputs = {"fit_transform": est.fit_transform(frame, y)} if hasattr(est, "fit_transform") else {}
        if hasattr(est, "transform"):
            outputs["transform"] = est.transform(frame)
    for method, out in outputs.items():
        assert isinstance(out, pd.DataFrame), f"{method} returned {type(out).__name__}"
        assert list(out.index) == list(frame.index)
        assert list(out.columns) == list(est.get_feature_names_out())
