"""Safe model files: what corrupt or hostile files get (docs/reliability.md, saved models)."""

import json
import zipfile

import numpy as np
import pytest

import lowdim
from lowdim.exceptions import UntrustedModelError


@pytest.fixture
def saved(tmp_path):
    X = np.random.default_rng(0).normal(size=(50, 6))
    path = tmp_path / "pca.lowdim"
    lowdim.save(lowdim.PCA(3, whiten=True).fit(X), path)
    return path, X


def _rewrite(path, manifest=None, arrays=None):
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    if manifest is not None:
        entries["manifest.json"] = json.dumps(manifest).encode()
    entries.update(arrays or {})
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def _manifest(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("manifest.json"))


def test_round_trip_keeps_params_and_is_bit_identical(saved):
    path, X = saved
    model = lowdim.load(path)
    assert model.whiten is True and model.n_components == 3
    assert (model.transform(X) == lowdim.PCA(3, whiten=True).fit(X).transform(X)).all()


def test_untrusted_class_is_refused_without_running_anything(saved):
    path, _ = saved
    manifest = _manifest(path)
    manifest["class"] = "os.system"
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match="untrusted type 'os.system'"):
        lowdim.load(path)


def test_newer_format_version_is_refused(saved):
    path, _ = saved
    manifest = _manifest(path)
    manifest["format_version"] = 99
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match="unsupported format version 99"):
        lowdim.load(path)


def test_checksum_shape_and_pickle_are_checked(saved, tmp_path):
    path, _ = saved
    import io

    buf = io.BytesIO()
    np.save(buf, np.zeros((3, 6)))
    _rewrite(path, arrays={"arrays/components_.npy": buf.getvalue()})
    with pytest.raises(UntrustedModelError, match="wrong checksum for array 'components_'"):
        lowdim.load(path)
    manifest = _manifest(path)
    manifest["arrays"]["components_"]["sha256"] = __import__("hashlib").sha256(buf.getvalue()).hexdigest()
    manifest["arrays"]["components_"]["shape"] = [4, 6]
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match="inconsistent shape for array 'components_'"):
        lowdim.load(path)
    obj = io.BytesIO()
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    manifest["arrays"]["components_"].update(sha256=__import__("hashlib").sha256(obj.getvalue()).hexdigest())
    _rewrite(path, manifest, {"arrays/components_.npy": obj.getvalue()})
    with pytest.raises(UntrustedModelError, match="cannot be read without pickle"):
        lowdim.load(path)


def test_not_a_model_file_and_bad_attribute_names(saved, tmp_path):
    junk = tmp_path / "junk.lowdim"
    junk.write_bytes(b"\x00garbage")
    with pytest.raises(UntrustedModelError, match="not a zip archive"):
        lowdim.load(junk)
    path, _ = saved
    manifest = _manifest(path)
    manifest["attributes"]["__class__"] = 1
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match="not a fitted-attribute name"):
        lowdim.load(path)


def test_only_lowdim_estimators_and_json_params_can_be_saved(tmp_path):
    from sklearn.preprocessing import StandardScaler

    with pytest.raises(TypeError, match="only lowdim estimators"):
        lowdim.save(StandardScaler().fit(np.ones((3, 2))), tmp_path / "x.lowdim")
    model = lowdim.PCA(2, random_state=np.random.default_rng(0)).fit(np.random.default_rng(0).normal(size=(9, 3)))
    lowdim.save(model, tmp_path / "g.lowdim")  # a Generator is stored as None
    assert lowdim.load(tmp_path / "g.lowdim").random_state is None


def test_dictionary_parameters_round_trip(tmp_path):
    import numpy as np

    import lowdim

    X = np.random.default_rng(0).normal(size=(80, 5))
    model = lowdim.TSNE(metric="minkowski", metric_params={"p": 3}, random_state=0, max_iter=300).fit(X)
    path = tmp_path / "tsne.lowdim"
    lowdim.save(model, path)
    loaded = lowdim.load(path)
    assert loaded.metric_params == {"p": 3}
    np.testing.assert_array_equal(loaded.transform(X[:4]), model.transform(X[:4]))
