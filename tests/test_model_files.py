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
    with pytest.raises(UntrustedModelError, match="which lowdim never saves \\(no pickle"):
        lowdim.load(path)


def test_not_a_model_file_and_bad_attribute_names(saved, tmp_path):
    junk = tmp_path / "junk.lowdim"
    junk.write_bytes(b"\x00garbage")
    with pytest.raises(UntrustedModelError, match="not a readable lowdim model file"):
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


def test_parameters_given_as_arrays_round_trip(tmp_path):
    """A k-means start, a mixture's initial means, a coder's atoms: stored as arrays beside
    the fitted ones (format version 3); a model without one keeps the older version."""
    from sklearn.pipeline import make_pipeline

    X = np.random.default_rng(0).normal(size=(60, 5))
    atoms = np.random.default_rng(1).normal(size=(7, 5))
    cases = [
        (lowdim.KMeans(2, init=X[:2].copy(), n_init=1), "init", "predict"),
        (lowdim.GaussianMixture(2, means_init=X[:2].copy(), random_state=0), "means_init", "predict_proba"),
        (lowdim.SparseCoder(atoms, transform_algorithm="lasso_lars"), "dictionary", "transform"),
        (lowdim.SparseCoder(atoms.astype(np.float32)), "dictionary", "transform"),
    ]
    for i, (model, param, method) in enumerate(cases):
        path = tmp_path / f"{i}.lowdim"
        lowdim.save(model.fit(X), path)
        loaded = lowdim.load(path)
        kept = getattr(loaded, param)
        assert isinstance(kept, np.ndarray) and kept.dtype == getattr(model, param).dtype
        np.testing.assert_array_equal(kept, getattr(model, param))
        np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(model, method)(X))
        assert _manifest(path)["format_version"] == 3
    coder = lowdim.SparseCoder(atoms, transform_algorithm="lasso_lars", transform_alpha=0.01)
    chain = make_pipeline(lowdim.StandardScaler(), coder, lowdim.KMeans(3, random_state=0)).fit(X)
    lowdim.save(chain, tmp_path / "chain.lowdim")
    np.testing.assert_array_equal(lowdim.load(tmp_path / "chain.lowdim").predict(X), chain.predict(X))
    lowdim.save(lowdim.KMeans(2, n_init=1, random_state=0).fit(X), tmp_path / "plain.lowdim")
    assert _manifest(tmp_path / "plain.lowdim")["format_version"] == 1


def _npy(array):
    import io

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def _sha(data):
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_flipped_byte_in_the_archive_is_a_corrupt_file(saved):
    path, _ = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("arrays/components_.npy")
    data[info.header_offset + 30 + len(info.filename) + 10] ^= 0xFF  # inside the compressed data
    path.write_bytes(bytes(data))
    with pytest.raises(UntrustedModelError, match="corrupt|checksum|truncated|header"):
        lowdim.load(path)


def test_huge_declared_shape_is_refused_before_allocating(saved):
    import tracemalloc

    path, _ = saved
    header = _npy(np.zeros((2, 2)))  # then declare 10^6 x 10^6 in the header text
    fake = header.replace(b"(2, 2)", b"(1000000, 1000000)".ljust(6)).replace(b"(2, 2)", b"")
    fake = _npy(np.zeros(0))[:10] + fake[10:]
    import numpy.lib.format as npy

    buf = __import__("io").BytesIO()
    npy.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    member = buf.getvalue() + b"\0" * 64
    manifest = _manifest(path)
    manifest["arrays"]["components_"].update(shape=[10**6, 10**6], sha256=_sha(member))
    _rewrite(path, manifest, {"arrays/components_.npy": member})
    tracemalloc.start()
    with pytest.raises(UntrustedModelError, match="declares 8000000000000 bytes of data"):
        lowdim.load(path)
    assert tracemalloc.get_traced_memory()[1] < 50 << 20
    tracemalloc.stop()


def test_zip_bomb_is_refused_without_unpacking_it(saved):
    import tracemalloc

    path, _ = saved
    member = _npy(np.zeros(1 << 27, dtype=np.uint8))  # 128 MiB of zeros, about 130 kB packed
    manifest = _manifest(path)
    manifest["arrays"]["components_"].update(shape=[1 << 27], dtype="|u1", sha256=_sha(member))
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    entries["manifest.json"] = json.dumps(manifest).encode()
    entries["arrays/components_.npy"] = member
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    del member, entries
    tracemalloc.start()
    with pytest.raises(UntrustedModelError, match="zip bomb"):
        lowdim.load(path)
    assert tracemalloc.get_traced_memory()[1] < 20 << 20
    tracemalloc.stop()


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda m: m.update(arrays=["x"]), "'arrays' must be a mapping"),
        (lambda m: m.update(params=json.loads("[" * 100 + "]" * 100)), "'params' must be a mapping"),
        (lambda m: m["params"].update(n_components=json.loads("[" * 50 + "1" + "]" * 50)), "nested at most"),
        (lambda m: m["arrays"]["components_"].update(shape="big"), "needs a shape"),
        (lambda m: m["arrays"]["components_"].update(shape=[-3, 6]), "needs a shape"),
        (lambda m: m.update({"class": ["PCA"]}), "'class' must be a class name"),
    ],
)
def test_malformed_manifests_are_refused_by_their_schema(saved, edit, words):
    path, _ = saved
    manifest = _manifest(path)
    edit(manifest)
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match=words):
        lowdim.load(path)


def test_deeply_nested_manifest_is_a_clear_error(saved):
    path, _ = saved
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    entries["manifest.json"] = b'{"format": "lowdim-model", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(UntrustedModelError, match="corrupt manifest"):
        lowdim.load(path)


@pytest.mark.parametrize("other", ["KMeans", "TSNE", "GaussianMixture", "UMAP", "NMF"])
def test_relabelled_model_is_refused(saved, other):
    path, _ = saved
    manifest = _manifest(path)
    manifest["class"], manifest["params"] = other, {}
    _rewrite(path, manifest)
    with pytest.raises(UntrustedModelError, match=f"do not make a working {other}"):
        lowdim.load(path)


def test_attributes_that_disagree_are_refused(saved):
    path, X = saved
    model = lowdim.load(path)
    for name, value, words in [
        ("components_", model.components_[:2], "working PCA"),
        ("mean_", model.mean_[:4], "working PCA"),
        ("explained_variance_", np.array(["a", "b", "c"]), "text where lowdim saves numbers"),
    ]:
        fresh = path.with_name(f"edited-{name}.lowdim")
        fresh.write_bytes(path.read_bytes())
        manifest = _manifest(fresh)
        member = _npy(value)
        manifest["arrays"][name].update(shape=list(value.shape), dtype=value.dtype.str, sha256=_sha(member))
        _rewrite(fresh, manifest, {f"arrays/{name}.npy": member})
        with pytest.raises(UntrustedModelError, match=words):
            lowdim.load(fresh)


def test_fewer_components_than_declared_is_refused(tmp_path):
    X = np.random.default_rng(0).normal(size=(50, 6))
    path = tmp_path / "plain.lowdim"
    lowdim.save(lowdim.PCA(5).fit(X), path)
    manifest = _manifest(path)
    cut = lowdim.load(path).components_[:3]
    member = _npy(cut)
    manifest["arrays"]["components_"].update(shape=[3, 6], sha256=_sha(member))
    _rewrite(path, manifest, {"arrays/components_.npy": member})
    with pytest.raises(UntrustedModelError, match="the components do not agree"):
        lowdim.load(path)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
@pytest.mark.parametrize("name", ["GaussianMixture", "BayesianGaussianMixture"])
def test_mixtures_of_every_covariance_type_round_trip(tmp_path, name, covariance_type):
    # the covariances' layout follows covariance_type: a 'diag' mixture was refused on load
    X = np.random.default_rng(0).normal(size=(60, 3))
    model = getattr(lowdim, name)(n_components=2, covariance_type=covariance_type, random_state=0).fit(X)
    lowdim.io.save(model, tmp_path / "m.lowdim")
    loaded = lowdim.io.load(tmp_path / "m.lowdim")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    other = "diag" if covariance_type != "diag" else "full"
    model.covariance_type = other  # a relabelled file: the arrays no longer fit the parameter
    lowdim.io.save(model, tmp_path / "bad.lowdim")
    with pytest.raises(UntrustedModelError, match="covariances_ has shape"):
        lowdim.io.load(tmp_path / "bad.lowdim")


def test_a_two_class_discriminant_round_trips_and_its_rows_are_checked(tmp_path):
    # two classes make one decision function (coef_ of one row, as scikit-learn's): such a
    # model was refused on load ("the classes do not agree")
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat(["a", "b"], 20)
    model = lowdim.LinearDiscriminantAnalysis().fit(X, y)
    path = tmp_path / "lda.lowdim"
    lowdim.save(model, path)
    loaded = lowdim.load(path)
    assert loaded.coef_.shape == (1, 3) and loaded.predict(X).tolist() == model.predict(X).tolist()
    manifest = _manifest(path)
    member = _npy(np.vstack([model.coef_, model.coef_, model.coef_]))  # three decision rows for two classes
    manifest["arrays"]["coef_"].update(shape=[3, 3], sha256=_sha(member))
    _rewrite(path, manifest, {"arrays/coef_.npy": member})
    with pytest.raises(UntrustedModelError, match="do not make a working LinearDiscriminantAnalysis"):
        lowdim.load(path)


def test_hdbscan_of_data_with_copies_round_trips_and_a_nan_tree_is_refused(tmp_path):
    # a row repeated beyond min_samples has a lambda of 1 / 0 in the condensed tree: such a
    # model was saved, then refused on load ("condensed_tree_ holds NaN or infinity")
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(4, 0.3, (40, 2)), np.repeat([[0.1, 0.1]], 20, axis=0)])
    model = lowdim.HDBSCAN(min_cluster_size=10, prediction_data=True).fit(X)
    assert np.isposinf(model.condensed_tree_).any()
    path = tmp_path / "h.lowdim"
    lowdim.save(model, path)
    loaded = lowdim.load(path)
    np.testing.assert_array_equal(loaded.labels_, model.labels_)
    assert loaded.approximate_predict(X[:3])[0].tolist() == model.approximate_predict(X[:3])[0].tolist()
    manifest = _manifest(path)
    tree = model.condensed_tree_.copy()
    tree[0, 2] = np.nan
    member = _npy(tree)
    manifest["arrays"]["condensed_tree_"].update(sha256=_sha(member))
    _rewrite(path, manifest, {"arrays/condensed_tree_.npy": member})
    with pytest.raises(UntrustedModelError, match="condensed_tree_ holds NaN"):
        lowdim.load(path)


def test_a_model_whose_description_load_would_refuse_is_not_saved(tmp_path):
    # MCA of 130 columns of distinct numbers: 20,800 categories, a 1.1 MiB manifest that
    # save wrote and load then refused as oversized (a file that could never be used)
    X = np.abs(np.random.default_rng(0).normal(size=(160, 130))) + 0.1
    model = lowdim.MCA(2).fit(X)
    path = tmp_path / "m.lowdim"
    with pytest.raises(
        ValueError, match=r"cannot save this MCA: its description takes 1\.1 MiB.*category_names_, of 20,800"
    ):
        lowdim.save(model, path)
    assert not path.exists()
    lowdim.save(lowdim.MCA(2).fit(X[:, :10]), path)  # 1,600 categories: saved, and loaded
    assert lowdim.load(path).category_names_ == lowdim.MCA(2).fit(X[:, :10]).category_names_
