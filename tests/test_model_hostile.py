"""Hand-made hostile model files: each ends in ``UntrustedModelError`` before anything
runs on the file's values (no crash, no hang, no gigabytes), never in another
exception and never in a model that loads and answers wrongly."""

import hashlib
import io
import json
import struct
import zipfile

import numpy as np
import pytest

import lowdim
from lowdim.exceptions import UntrustedModelError

X = np.abs(np.random.default_rng(0).normal(size=(60, 5))) + 0.1


def _save(tmp_path, model, name="model.lowdim"):
    path = tmp_path / name
    lowdim.save(model.fit(X), path)
    return path


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _npy(array):
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def _write(path, entries, compression=zipfile.ZIP_STORED):
    """Write ``{member: bytes}`` as the archive at ``path``."""
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def _edit(path, params=None, attributes=None, arrays=None, cls=None, compression=zipfile.ZIP_STORED):
    """Rewrite the model file with parameters, plain attributes or arrays replaced (the
    manifest's shapes, dtypes and checksums kept consistent, as an attacker would)."""
    entries = _members(path)
    manifest = json.loads(entries["manifest.json"])
    manifest["params"].update(params or {})
    manifest["attributes"].update(attributes or {})
    for name, array in (arrays or {}).items():
        data = _npy(array)
        entries[f"arrays/{name}.npy"] = data
        manifest["arrays"][name] = {
            "dtype": array.dtype.str,
            "shape": list(array.shape),
            "scalar": False,
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    if cls is not None:
        manifest["class"] = cls
    entries["manifest.json"] = json.dumps(manifest).encode()
    return _write(path, entries, compression)


def assert_refused(path, match=None):
    with pytest.raises(UntrustedModelError, match=match):
        lowdim.load(path)


def test_kmeans_with_a_huge_feature_count_is_refused_before_any_kernel(tmp_path):
    path = _edit(_save(tmp_path, lowdim.KMeans(3, random_state=0)), attributes={"n_features_in_": 50_000_000})
    assert_refused(path, "features do not agree")


def test_kmeans_with_a_shortened_offset_is_refused(tmp_path):
    path = _save(tmp_path, lowdim.KMeans(3, random_state=0))
    model = lowdim.load(path)
    short = {name: getattr(model, name)[:3] for name in ("offset_",) if hasattr(model, name)}
    assert short, "KMeans keeps offset_"
    assert_refused(_edit(path, arrays=short), "features do not agree")


def test_arrays_that_overflow_on_ordinary_rows_are_refused(tmp_path):
    # components of 1e308 about a zero mean: a row of zeros maps to zero (the load's only
    # trial before), any other row to infinity, written without a word
    path = _save(tmp_path, lowdim.PCA(2))
    huge = np.full((2, 5), 1e308)
    assert_refused(_edit(path, arrays={"components_": huge, "mean_": np.zeros(5)}), "not finite")


@pytest.mark.parametrize(
    "model, shown",
    [
        (lambda: lowdim.KMeans(3, random_state=0), "cluster_centers_"),
        (lambda: lowdim.MiniBatchKMeans(3, random_state=0), "cluster_centers_"),
        (lambda: lowdim.BisectingKMeans(3, random_state=0), "cluster_centers_"),
        (lambda: lowdim.GaussianMixture(3, random_state=0), "means_"),
        (lambda: lowdim.BayesianGaussianMixture(n_components=3, random_state=0), "means_"),
    ],
)
def test_centres_shown_that_are_not_the_centres_used_are_refused(tmp_path, model, shown):
    # k-means' predict reads offset_centers_ + offset_ for dense rows and cluster_centers_
    # for sparse ones, a mixture its offset_means_: a file where they disagree showed
    # centres it never used (and k-means assigned the same rows differently)
    path = _save(tmp_path, model())
    centres = np.array(getattr(lowdim.load(path), shown))  # a fitted model's file loads
    centres[0, 0] += 1.0
    assert_refused(_edit(path, arrays={shown: centres}), "not those it assigns rows to")


@pytest.mark.parametrize(
    "model, edit",
    [
        (lambda: lowdim.UMAP(n_epochs=20, random_state=0), {"attributes": {"n_epochs_": 10**12}}),
        (lambda: lowdim.UMAP(n_epochs=20, random_state=0), {"params": {"n_epochs": 10**12}}),
        (lambda: lowdim.NMF(2, max_iter=20, random_state=0), {"params": {"max_iter": 10**12, "tol": -1}}),
        # each multiplies what the load's trial on two rows runs: both hung the load
        (lambda: lowdim.UMAP(n_epochs=20, random_state=0), {"params": {"negative_sample_rate": 10**9}}),
        (lambda: lowdim.PaCMAP(num_iters=(5, 5, 5), random_state=0), {"params": {"num_iters": [1, 1, 10**12]}}),
        (lambda: lowdim.PaCMAP(num_iters=(5, 5, 5), random_state=0), {"params": {"num_iters": 10**12}}),
    ],
)
def test_stored_amounts_of_work_are_refused_not_run(tmp_path, model, edit):
    assert_refused(_edit(_save(tmp_path, model()), **edit))


def test_an_archive_that_inflates_past_any_model_is_refused_before_inflating(tmp_path):
    path = _save(tmp_path, lowdim.PCA(2))
    zeros = b"\0" * (40 << 20)  # three 40 MiB members of zeros: 120 MiB from about 120 kB
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        for i in range(3):
            zf.writestr(f"arrays/padding{i}.npy", zeros)
    assert_refused(path, "zip bomb")


@pytest.mark.parametrize("shape", [[2**70], [2**63, 1], [2**32, 2**32]])
def test_huge_declared_shapes_are_refused(tmp_path, shape):
    path = _save(tmp_path, lowdim.PCA(2))
    entries = _members(path)
    manifest = json.loads(entries["manifest.json"])
    manifest["arrays"]["components_"]["shape"] = shape
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": tuple(shape)})
    entries["arrays/components_.npy"] = header.getvalue()  # write_array_header_1_0 writes the magic too
    entries["manifest.json"] = json.dumps(manifest).encode()
    assert_refused(_write(path, entries), "manifest says|needs a shape|would need|declares")


def test_npy_header_that_breaks_pythons_parser_is_refused(tmp_path):
    path = _save(tmp_path, lowdim.PCA(2))
    entries = _members(path)
    data = entries["arrays/components_.npy"]
    start = data.index(b"{")
    entries["arrays/components_.npy"] = data[:start] + b"{'descr': '<f8', (((" + data[start + 20 :]
    assert_refused(_write(path, entries), "corrupt .npy header")


@pytest.mark.parametrize("compression", [zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2])
def test_corrupt_lzma_and_bzip2_members_are_refused(tmp_path, compression):
    path = _edit(_save(tmp_path, lowdim.PCA(2)), compression=compression)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("arrays/components_.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for offset in range(start + 8, start + min(info.compress_size, 40)):
        data[offset] ^= 0x5A
    path.write_bytes(bytes(data))
    assert_refused(path)


def test_an_encrypted_member_is_refused(tmp_path):
    path = _save(tmp_path, lowdim.PCA(2))
    data = bytearray(path.read_bytes())
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers
        at = data.find(signature)
        while at >= 0:
            data[at + flag_at] |= 0x01
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    assert_refused(path)


def test_an_end_record_pointing_past_the_file_is_refused(tmp_path):
    path = _save(tmp_path, lowdim.PCA(2))
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 16 : end + 20] = struct.pack("<I", 0xFFFFFFF0)  # offset of the central directory
    path.write_bytes(bytes(data))
    assert_refused(path)


def test_a_read_only_property_in_the_file_is_refused(tmp_path):
    path = _edit(_save(tmp_path, lowdim.Isomap(n_neighbors=5)), attributes={"dist_matrix_": 1})
    assert_refused(path, "dist_matrix_")


@pytest.mark.parametrize(
    "model, attribute",
    [
        (lambda: lowdim.PCA(2), "explained_variance_ratio_"),
        (lambda: lowdim.PCA(2), "singular_values_"),
        (lambda: lowdim.KMeans(3, random_state=0), "cluster_centers_"),
        (lambda: lowdim.HDBSCAN(min_cluster_size=5), "core_distances_"),
        # arrays an option adds, which only the way back reads
        (lambda: lowdim.KernelPCA(2, fit_inverse_transform=True), "dual_coef_"),
        (lambda: lowdim.GaussianRandomProjection(2, compute_inverse_components=True), "inverse_components_"),
        (lambda: lowdim.FactorAnalysis(2, rotation="varimax"), "rotation_matrix_"),
    ],
)
def test_nan_in_a_fitted_array_is_refused(tmp_path, model, attribute):
    path = _save(tmp_path, model())
    values = np.array(getattr(lowdim.load(path), attribute), dtype=np.float64)
    values.flat[0] = np.nan
    assert_refused(_edit(path, arrays={attribute: values}), "NaN")


def test_a_way_back_the_file_promises_but_does_not_hold_is_refused(tmp_path):
    # a projection saved without its inverse, then marked as holding one: loaded, it
    # failed with AttributeError at the user's first inverse_transform
    path = _save(tmp_path, lowdim.GaussianRandomProjection(2, random_state=0))
    assert_refused(_edit(path, params={"compute_inverse_components": True}), "inverse_components_")


def test_a_way_back_of_the_wrong_shape_is_refused(tmp_path):
    path = _save(tmp_path, lowdim.KernelPCA(2, fit_inverse_transform=True))
    dual = lowdim.load(path).dual_coef_
    assert_refused(_edit(path, arrays={"dual_coef_": dual[:, :-1].copy()}), "dual_coef_")
    # a negative width turns the RBF kernel into exp(+d^2): infinite on rows far from zero
    path = _save(tmp_path, lowdim.KernelPCA(2, fit_inverse_transform=True), name="gamma.lowdim")
    assert_refused(_edit(path, attributes={"gamma_": -1.0}), "gamma_")


@pytest.mark.parametrize("dtype", [np.complex128, np.bool_, np.int64, np.float16])
def test_components_of_another_dtype_are_refused(tmp_path, dtype):
    path = _save(tmp_path, lowdim.PCA(2))
    components = lowdim.load(path).components_.astype(dtype)
    assert_refused(_edit(path, arrays={"components_": components}))


@pytest.mark.parametrize(
    "model, other",
    [
        (lambda: lowdim.PCA(2), "FastICA"),
        (lambda: lowdim.PCA(2), "FactorAnalysis"),
        (lambda: lowdim.PCA(2), "MatrixFactorization"),
        (lambda: lowdim.KMeans(3, random_state=0), "HDBSCAN"),
    ],
)
def test_a_model_relabelled_as_another_class_is_refused(tmp_path, model, other):
    path = _save(tmp_path, model())
    entries = _members(path)
    manifest = json.loads(entries["manifest.json"])
    params = set(getattr(lowdim, other)().get_params())
    manifest["params"] = {k: v for k, v in manifest["params"].items() if k in params}
    manifest["class"] = other
    entries["manifest.json"] = json.dumps(manifest).encode()
    assert_refused(_write(path, entries))


@pytest.mark.parametrize(
    "params", [{"n_components": "2"}, {"n_components": -1}, {"n_components": 1e308}, {"whiten": "yes"}]
)
def test_parameters_of_the_wrong_type_or_range_are_refused(tmp_path, params):
    assert_refused(_edit(_save(tmp_path, lowdim.PCA(2)), params=params), "parameters in the manifest")


def test_duplicate_members_are_refused(tmp_path):
    path = _save(tmp_path, lowdim.PCA(2))
    entries = _members(path)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("arrays/components_.npy", entries["arrays/components_.npy"])
    assert_refused(path, "duplicate members")


def test_hdbscan_nan_only_where_a_row_was_left_out(tmp_path):
    """A model fitted on rows with NaN and infinity saves and loads; NaN moved to a row
    that was in the tree is refused."""
    rows = np.random.default_rng(0).normal(size=(60, 2))
    rows[0, 0], rows[1, 1] = np.inf, np.nan
    path = tmp_path / "model.lowdim"
    lowdim.save(lowdim.HDBSCAN(min_cluster_size=5).fit(rows), path)
    loaded = lowdim.load(path)
    assert loaded.labels_[:2].tolist() == [-2, -3]
    core = np.array(loaded.core_distances_)
    core[5] = np.nan
    assert_refused(_edit(path, arrays={"core_distances_": core}), "NaN")


def _edit_param_array(path, key, array, **meta):
    """Put ``array`` as the array parameter ``key`` (consistent checksum unless ``meta``
    overrides a manifest field)."""
    entries = _members(path)
    manifest = json.loads(entries["manifest.json"])
    data = _npy(array)
    entries[f"arrays/params/{key}.npy"] = data
    entry = {"dtype": array.dtype.str, "shape": list(array.shape), "scalar": False}
    manifest.setdefault("param_arrays", {})[key] = {**entry, "sha256": hashlib.sha256(data).hexdigest(), **meta}
    manifest["format_version"] = 3
    entries["manifest.json"] = json.dumps(manifest).encode()
    return _write(path, entries)


@pytest.mark.parametrize(
    "key, array, meta, words",
    [
        ("dictionary", np.array([["a", "b"]]), {}, "holds text where lowdim saves numbers"),
        ("dictionary", np.ones((3, 5)), {"sha256": "0" * 64}, "wrong checksum"),
        ("dictionary", np.ones((3, 5)), {"shape": [10**9, 10**6]}, "inconsistent shape"),
        ("dictionary", np.ones((3, 4)), {}, "features|do not fit|shape"),
        ("not_a_parameter", np.ones(3), {}, "do not fit SparseCoder"),
        ("../escape", np.ones(3), {}, "not an array parameter name"),
    ],
)
def test_hostile_array_parameters_are_refused(tmp_path, key, array, meta, words):
    atoms = np.random.default_rng(2).normal(size=(3, 5))
    path = _edit_param_array(_save(tmp_path, lowdim.SparseCoder(atoms)), key, array, **meta)
    assert_refused(path, words)


def test_an_array_parameter_too_large_for_memory_is_refused_before_allocating(tmp_path):
    path = _save(tmp_path, lowdim.SparseCoder(np.random.default_rng(2).normal(size=(3, 5))))
    entries = _members(path)
    shape = (1_000_000_000, 100_000)
    manifest = json.loads(entries["manifest.json"])
    manifest["param_arrays"]["dictionary"]["shape"] = list(shape)
    text = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}".ljust(117) + "\n"
    entries["arrays/params/dictionary.npy"] = b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + text.encode()
    entries["manifest.json"] = json.dumps(manifest).encode()
    assert_refused(_write(path, entries), "declares|would need")


def test_umap_rows_that_disagree_with_the_distinct_rows_are_refused(tmp_path):
    """A UMAP fitted with unique=True keeps the distinct rows in X_fit_ and one row per
    input row in embedding_: it loads; a map from rows to distinct rows that points
    outside X_fit_ or leaves a distinct row out is refused, as is X_fit_ of another
    row count without that map."""
    rows = np.vstack([X, X[:6]])
    path = tmp_path / "model.lowdim"
    lowdim.save(lowdim.UMAP(n_epochs=20, unique=True, random_state=0).fit(rows), path)
    loaded = lowdim.load(path)
    assert loaded.X_fit_.shape[0] == len(X) and loaded.embedding_.shape[0] == len(rows)
    inverse = np.array(loaded.unique_inverse_)
    for edited, words in [
        (np.where(inverse == 3, len(X), inverse), "one of the 60"),
        (np.where(inverse == 3, 4, inverse), "without"),
    ]:
        assert_refused(_edit(path, arrays={"unique_inverse_": edited}), words)
    plain = tmp_path / "plain.lowdim"
    lowdim.save(lowdim.UMAP(n_epochs=20, random_state=0).fit(X), plain)
    assert_refused(_edit(plain, arrays={"X_fit_": np.array(lowdim.load(plain).X_fit_)[:50]}), "X_fit_ has 50 rows")


@pytest.mark.parametrize(("name", "rows"), [("PaCMAP", "P_fit_"), ("PHATE", "X_fit_")])
def test_a_map_of_rows_reduced_by_pca_loads_and_its_widths_must_agree(tmp_path, name, rows):
    # above 100 columns both keep their training rows as principal components: the file
    # of any such fit (Fashion-MNIST's 784 pixels) was refused as "the features do not agree"
    wide = np.random.default_rng(0).normal(size=(200, 120))
    model = getattr(lowdim, name)(random_state=0).fit(wide)
    assert getattr(model, rows).shape[1] == 100 and model.pca_components_.shape == (100, 120)
    path = tmp_path / "m.lowdim"
    lowdim.save(model, path)
    np.testing.assert_array_equal(lowdim.load(path).transform(wide[:5]), model.transform(wide[:5]))
    narrower = getattr(model, rows)[:, :-1].copy()
    assert_refused(_edit(path, arrays={rows: narrower}), rf"{rows} has 99 columns where the model's rows have 100")
    lowdim.save(model, path, overwrite=True)
    fewer = model.pca_components_[:-1].copy()
    assert_refused(_edit(path, arrays={"pca_components_": fewer}), "have 99 principal components")
