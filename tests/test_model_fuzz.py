"""Fuzzing model files: random byte flips, truncations and edited manifests of a saved
model of every class end in ``UntrustedModelError`` or in a model that works, never in
another exception, and never cost much memory."""

import json
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from estimator_args import required_args

import lowdim
from lowdim.exceptions import UntrustedModelError
from lowdim.io._model_files import REGISTRY


def _fitted(name):
    cls = getattr(lowdim, name)
    required = required_args(name, 5)
    params = cls(**required).get_params()
    chosen = {
        k: v
        for k, v in {
            "n_components": 2,
            "n_clusters": 2,
            "perplexity": 5.0,
            "random_state": 0,
            "n_neighbors": 5,
            "max_iter": 50,
            "n_epochs": 20,
        }.items()
        if k in params
    }
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(40, 5))) + 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**chosen, **required).fit(X, np.arange(40) % 3)


def _mutations(data, manifest, rng):
    """(label, bytes of a mutated file) pairs."""
    for _ in range(10):
        flipped = bytearray(data)
        for position in rng.integers(0, len(data), size=rng.integers(1, 4)):
            flipped[position] ^= int(rng.integers(1, 256))
        yield "flip", bytes(flipped)
    for cut in rng.integers(1, len(data), size=3):
        yield "truncate", data[:cut]
    names = sorted(manifest.get("arrays", {}))
    edits = [
        lambda m: m.update({"class": str(rng.choice(sorted(REGISTRY)))}),
        lambda m: m["arrays"].pop(str(rng.choice(names))) if names else None,
        lambda m: m["arrays"][str(rng.choice(names))].update(shape=[int(rng.integers(0, 9))]) if names else None,
        lambda m: m["attributes"].update({str(rng.choice(sorted(m["attributes"]) or ["n_features_in_"])): "x"}),
    ]
    for edit in edits:
        edited = json.loads(json.dumps(manifest))
        edit(edited)
        yield "manifest", edited


def _write(path, original, mutation):
    if isinstance(mutation, bytes):
        path.write_bytes(mutation)
        return
    with zipfile.ZipFile(original) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    entries["manifest.json"] = json.dumps(mutation).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in entries.items():
            zf.writestr(name, content)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_mutated_model_files_give_documented_errors_only(name, tmp_path):
    rng = np.random.default_rng(sorted(REGISTRY).index(name))
    original = tmp_path / "model.lowdim"
    lowdim.save(_fitted(name), original)
    data = original.read_bytes()
    with zipfile.ZipFile(original) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    outcomes = {"refused": 0, "loaded": 0}
    for i, (_, mutation) in enumerate(_mutations(data, manifest, rng)):
        path = tmp_path / f"mutated-{i}.lowdim"
        _write(path, original, mutation)
        tracemalloc.start()
        try:
            lowdim.load(path)
            outcomes["loaded"] += 1  # load checked that the model works
        except UntrustedModelError:
            outcomes["refused"] += 1
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak < 100 << 20, f"mutation {i} of {name} cost {peak} bytes"
    assert outcomes["refused"] >= 10  # most mutations break the file; some (flips in unused bytes) do not
