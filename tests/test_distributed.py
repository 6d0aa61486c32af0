"""lowdim on dask arrays: same results as in memory, lazy transforms, no step that
builds the whole array, clear failures; checked with Dask's local threads and with a
real ``dask.distributed.LocalCluster`` of 2 worker processes."""

import json
import os
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from sklearn.datasets import load_digits

from lowdim import PCA, KMeans, MiniBatchKMeans


def _low_rank(n=6000, d=24, dtype=np.float64, seed=0, offset=3.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)) @ rng.normal(size=(6, d)) * 3 + rng.normal(size=(n, d)) + offset
    return X.astype(dtype)


def _blobs(n=8000, d=12, k=6, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(k, d)) * 6
    return (centers[rng.integers(0, k, size=n)] + rng.normal(size=(n, d))).astype(dtype)


def _same_subspace(A, B):
    """Largest deviation of |cos| between matching components from 1."""
    return float(np.max(np.abs(np.abs(np.sum(A * B, axis=1)) - 1)))


# ----------------------------------------------------------------------------- PCA
@pytest.mark.parametrize("solver", ["covariance", "svd"])
@pytest.mark.parametrize("n_components", [4, 0.9, "mle"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pca_matches_in_memory_for_every_n_components_form(solver, n_components, dtype):
    Xn = _low_rank(dtype=dtype)
    X = da.from_array(Xn, chunks=(700, 24))
    dist = PCA(n_components, solver=solver).fit(X)
    mem = PCA(n_components, solver="svd").fit(Xn)
    tol = 2e-5 if dtype == np.float32 else 1e-10
    assert dist.n_components_ == mem.n_components_
    assert dist.components_.dtype == dtype and dist.solver_ == solver
    np.testing.assert_allclose(dist.explained_variance_, mem.explained_variance_, rtol=tol)
    np.testing.assert_allclose(dist.mean_, mem.mean_, rtol=tol)
    assert _same_subspace(dist.components_[:4], mem.components_[:4]) < 10 * tol
    assert dist.noise_variance_ == pytest.approx(mem.noise_variance_, rel=1e-3 if dtype == np.float32 else 1e-8)


def test_pca_randomized_with_power_iterations_matches():
    Xn = _low_rank(d=60)
    X = da.from_array(Xn, chunks=(1000, 60))
    dist = PCA(5, solver="randomized", random_state=0).fit(X)
    mem = PCA(5, solver="svd").fit(Xn)
    np.testing.assert_allclose(dist.explained_variance_, mem.explained_variance_, rtol=1e-8)
    assert _same_subspace(dist.components_, mem.components_) < 1e-8
    assert dist.n_iter_ >= 2  # at least one power iteration after the first product


def test_pca_standardize_and_column_chunks_are_handled():
    Xn = _low_rank() * np.linspace(1, 50, 24)
    X = da.from_array(Xn, chunks=(1000, 8))  # several column chunks: merged into whole rows
    for solver in ("covariance", "svd", "randomized"):
        dist = PCA(3, solver=solver, standardize=True, random_state=0).fit(X)
        mem = PCA(3, solver="svd", standardize=True).fit(Xn)
        np.testing.assert_allclose(dist.scale_, mem.scale_, rtol=1e-10)
        np.testing.assert_allclose(dist.explained_variance_, mem.explained_variance_, rtol=1e-8)


def test_pca_auto_picks_covariance_for_moderate_width():
    X = da.from_array(_low_rank(), chunks=1000)
    assert PCA(2).fit(X).solver_ == "covariance"


def test_pca_transform_is_lazy_and_equals_in_memory():
    Xn = _low_rank(dtype=np.float32)
    X = da.from_array(Xn, chunks=(1000, 24))
    pca = PCA(3, whiten=True).fit(X)
    Z = pca.transform(X)
    assert isinstance(Z, da.Array) and Z.chunks[0] == X.chunks[0] and Z.dtype == np.float32
    np.testing.assert_array_equal(Z.compute(), pca.transform(Xn))
    back = pca.inverse_transform(Z)
    assert isinstance(back, da.Array)
    np.testing.assert_allclose(back.compute(), pca.inverse_transform(pca.transform(Xn)), rtol=1e-6)
    assert isinstance(PCA(2).fit_transform(X), da.Array)


def test_pca_refuses_what_cannot_run_on_dask():
    X = da.from_array(_low_rank(), chunks=1000)
    with pytest.raises(ValueError, match="does not run on dask arrays"):
        PCA(2, solver="gram").fit(X)
    with pytest.raises(ValueError, match="needs the whole spectrum"):
        PCA(0.9, solver="randomized").fit(X)
    with pytest.raises(ValueError, match="has 5 features, but PCA was fitted with 24"):
        PCA(2).fit(X).transform(da.ones((10, 5)))
    with pytest.raises(ValueError, match="2-D dask array"):
        PCA(2).fit(da.ones(10))
    with pytest.raises(TypeError, match="numeric dask array"):
        PCA(2).fit(da.from_array(np.array([["a", "b"], ["c", "d"]])))


def test_nan_in_a_later_block_is_reported_with_its_global_row():
    Xn = _low_rank()
    Xn[4321, 5] = np.nan
    X = da.from_array(Xn, chunks=(1000, 24))
    with pytest.raises(ValueError, match=r"starts at row 4000.*NaN at row 321, column 5"):
        PCA(2).fit(X)
    with pytest.raises(ValueError, match=r"starts at row 4000"):
        KMeans(3, random_state=0).fit(X)


# ----------------------------------------------------------------------------- k-means
@pytest.mark.parametrize("algorithm", ["lloyd", "hamerly", "elkan"])
def test_kmeans_same_start_gives_the_in_memory_result(algorithm):
    Xn = _blobs(dtype=np.float32)
    X = da.from_array(Xn, chunks=(900, 12))
    start = Xn[:6].astype(np.float64)
    dist = KMeans(6, init=start, algorithm=algorithm).fit(X)
    mem = KMeans(6, init=start, algorithm=algorithm).fit(Xn)
    np.testing.assert_array_equal(dist.labels_, mem.labels_)
    np.testing.assert_allclose(dist.cluster_centers_, mem.cluster_centers_, rtol=1e-6, atol=1e-6)
    assert dist.inertia_ == pytest.approx(mem.inertia_, rel=1e-9)
    assert dist.n_iter_ == mem.n_iter_


def test_kmeans_parallel_seeding_is_as_good_as_in_memory():
    Xn = _blobs(n=20000, k=10, d=8, seed=3)
    X = da.from_array(Xn, chunks=(2500, 8))
    dist = [KMeans(10, init="k-means||", random_state=s).fit(X).inertia_ for s in range(4)]
    mem = [KMeans(10, init="k-means||", random_state=s).fit(Xn).inertia_ for s in range(4)]
    assert np.median(dist) <= 1.01 * np.median(mem)


def test_kmeans_is_reproducible_and_independent_of_block_layout_for_the_iterations():
    Xn = _blobs()
    a = KMeans(6, random_state=1).fit(da.from_array(Xn, chunks=1000))
    b = KMeans(6, random_state=1).fit(da.from_array(Xn, chunks=1000))
    np.testing.assert_array_equal(a.labels_, b.labels_)
    start = a.cluster_centers_
    c = KMeans(6, init=start).fit(da.from_array(Xn, chunks=3000))
    np.testing.assert_array_equal(a.labels_, c.labels_)


def test_kmeans_sample_weight_equals_repeated_rows():
    Xn = _blobs(n=3000)
    w = np.random.default_rng(0).integers(1, 4, size=3000)
    start = Xn[:6].astype(np.float64)
    weighted = KMeans(6, init=start).fit(da.from_array(Xn, chunks=500), sample_weight=da.from_array(w, chunks=700))
    repeated = KMeans(6, init=start).fit(np.repeat(Xn, w, axis=0))
    np.testing.assert_allclose(weighted.cluster_centers_, repeated.cluster_centers_, rtol=1e-10)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-10)
    with pytest.raises(ValueError, match="non-negative"):
        KMeans(2).fit(da.from_array(Xn, chunks=500), sample_weight=-np.ones(3000))


def test_kmeans_relocates_an_empty_cluster():
    Xn = _blobs(n=2000, k=2)
    start = np.vstack([Xn[:2], np.full((1, 12), 1e3)])  # the third centre attracts nothing
    X = da.from_array(Xn, chunks=500)
    dist = KMeans(3, init=start, max_iter=50).fit(X)
    assert np.bincount(dist.labels_, minlength=3).min() > 0
    assert np.all(np.abs(dist.cluster_centers_) < 100)


def test_kmeans_predict_and_transform_are_lazy():
    Xn = _blobs()
    X = da.from_array(Xn, chunks=1500)
    km = KMeans(6, random_state=0).fit(X)
    labels, dists = km.predict(X), km.transform(X)
    assert isinstance(labels, da.Array) and labels.dtype == np.int64
    np.testing.assert_array_equal(labels.compute(), km.labels_)
    np.testing.assert_allclose(dists.compute(), km.transform(Xn), rtol=1e-10)
    with pytest.raises(TypeError, match="callable init needs the data in memory"):
        KMeans(2, init=lambda X, k, rng: X[:k]).fit(X)


def test_minibatch_streams_blocks_through_partial_fit():
    Xn = _blobs(n=12000, k=5, seed=2)
    X = da.from_array(Xn, chunks=2000)
    mb = MiniBatchKMeans(5, batch_size=500, random_state=0).fit(X)
    full = KMeans(5, random_state=0).fit(Xn)
    assert mb.n_iter_ == 1 and mb.labels_.shape == (12000,)
    assert mb.inertia_ <= 1.02 * full.inertia_
    # the first step initialises on 3 * batch_size rows, then batch_size rows per step
    assert mb.n_steps_ == 1 + (2000 - 1500) // 500 + 5 * 4
    grown = MiniBatchKMeans(5, batch_size=500, random_state=0).partial_fit(X[:6000]).partial_fit(X[6000:])
    assert grown.n_steps_ == mb.n_steps_
    w = np.random.default_rng(1).integers(1, 4, size=12000).astype(float)
    weighted = MiniBatchKMeans(5, batch_size=500, random_state=0).fit(X, sample_weight=da.from_array(w, chunks=3000))
    squared = ((Xn[:, None, :] - weighted.cluster_centers_[None]) ** 2).sum(axis=2).min(axis=1)
    assert weighted.inertia_ == pytest.approx(float(w @ squared), rel=1e-9)
    np.testing.assert_array_equal(weighted.labels_, weighted.predict(Xn))


def test_minibatch_gathers_blocks_smaller_than_its_first_batch_and_names_a_gap_by_its_row():
    # blocks of 30 rows, 50 clusters: the first block alone could not place the centres
    Xn = _blobs(n=3000, k=5, seed=3)
    mb = MiniBatchKMeans(50, batch_size=100, random_state=0).fit(da.from_array(Xn, chunks=30))
    # the first step reads the first 300 rows (3 * batch_size), gathered over ten blocks; then a step a block
    assert mb.cluster_centers_.shape == (50, Xn.shape[1]) and mb.n_steps_ == 1 + (3000 - 300) // 30
    holed = Xn.copy()
    holed[1234, 1] = np.nan
    with pytest.raises(ValueError, match=r"block of the dask array that starts at row 1230 .* NaN at row 4, column 1"):
        MiniBatchKMeans(5, batch_size=100, random_state=0).fit(da.from_array(holed, chunks=30))


# ----------------------------------------------------------------------------- no full array
class _ResultSizes(dask.callbacks.Callback):
    """Largest result of any task run by Dask's local scheduler (bytes)."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def _posttask(self, key, result, dsk, state, worker_id):
        self.largest = max(self.largest, _nbytes(result))


def _nbytes(obj):
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(o) for o in obj)
    return sum(_nbytes(v) for v in vars(obj).values()) if hasattr(obj, "__dict__") else 0


def _generated(n_blocks=12, rows=2000, d=30, dtype=np.float32):
    """A dask array generated block by block (never in memory as a whole)."""

    def block(block_id=None):
        rng = np.random.default_rng(block_id[0])
        return (rng.normal(size=(rows, 4)) @ np.arange(4 * d).reshape(4, d) / 50 + rng.normal(size=(rows, d))).astype(
            dtype
        )

    return da.map_blocks(block, dtype=dtype, chunks=((rows,) * n_blocks, (d,)))


@pytest.mark.parametrize(
    "fit",
    [
        lambda X: PCA(5, solver="covariance").fit(X),
        lambda X: PCA(5, solver="svd").fit(X),
        lambda X: PCA(5, solver="randomized", random_state=0).fit(X),
        lambda X: KMeans(8, random_state=0, algorithm="elkan").fit(X),
        lambda X: MiniBatchKMeans(8, random_state=0).fit(X),
    ],
    ids=["covariance", "tsqr", "randomized", "kmeans", "minibatch"],
)
def test_no_task_result_is_larger_than_a_block(fit):
    X = _generated()
    block = 2000 * 30 * 4
    with _ResultSizes() as sizes, dask.config.set(scheduler="threads"):
        fit(X)
    assert 0 < sizes.largest <= 1.3 * block < X.nbytes / 8


# ----------------------------------------------------------------------------- LocalCluster
def _local_cluster():
    """Two one-thread worker processes; a task may kill one worker and is then retried once."""
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
            cl = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="3GiB"
            )
            client = distributed.Client(cl)
            yield cl, client
            client.close()
            cl.close()


cluster = pytest.fixture(scope="module")(_local_cluster)
# a task that kills a worker may leave a cluster whose nannies do not all come back (seen on
# a loaded machine, after a single death too: the nanny closed as it restarted its worker):
# those tests get a cluster of their own
cluster_to_break = pytest.fixture(_local_cluster)


def test_local_cluster_fits_equal_the_in_memory_fits(cluster):
    _, client = cluster
    X = _generated(dtype=np.float64)
    Xn = X.compute()
    assert len(client.scheduler_info()["workers"]) == 2
    dist = PCA(0.8).fit(X)
    mem = PCA(0.8, solver="svd").fit(Xn)
    assert dist.n_components_ == mem.n_components_
    np.testing.assert_allclose(dist.explained_variance_, mem.explained_variance_, rtol=1e-10)
    start = Xn[::3000][:8]
    # ten iterations, not the 64 these unclustered rows take to converge: every pass is a
    # round of tasks, and equal labels after each pass are the property
    km = KMeans(8, init=start, algorithm="hamerly", max_iter=10).fit(X)
    np.testing.assert_array_equal(km.labels_, KMeans(8, init=start, algorithm="hamerly", max_iter=10).fit(Xn).labels_)
    Z = PCA(3).fit(X).transform(X)
    assert isinstance(Z, da.Array) and Z.compute().shape == (24000, 3)


def test_local_cluster_knn_graph_recall_against_exact_neighbours(cluster):
    from lowdim.datasets._fashion_mnist import load_fashion_mnist
    from lowdim.neighbors import ExactIndex, dask_self_neighbors

    Xn = PCA(50, random_state=0).fit_transform(load_fashion_mnist()[0][:16000])
    dist, idx = dask_self_neighbors(da.from_array(Xn, chunks=(4000, 50)), 15, algorithm="approximate")
    assert dist.dtype == np.float32 and idx.dtype == np.int32 and idx.shape == (16000, 15)
    sample = np.random.default_rng(0).choice(16000, 1000, replace=False)
    exact = ExactIndex().build(Xn)
    _, truth = exact.query(Xn[sample], 16)
    recall = np.mean([len(set(idx[i]) & set(t[t != i][:15])) / 15 for i, t in zip(sample, truth)])
    assert recall >= 0.98
    assert (np.diff(dist, axis=1) >= 0).all() and not (idx == np.arange(16000)[:, None]).any()


@pytest.mark.parametrize("method", ["UMAP", "TSNE"])
def test_local_cluster_embedding_equals_the_in_memory_one_in_quality(cluster, method):
    import lowdim
    from lowdim.metrics import knn_accuracy, trustworthiness

    Xn, y = load_digits(return_X_y=True)
    Xn = Xn[:, Xn.std(axis=0) > 0]
    Estimator = getattr(lowdim, method)
    on_cluster = Estimator(random_state=0).fit(da.from_array(Xn, chunks=(450, Xn.shape[1])))
    in_memory = Estimator(random_state=0).fit(Xn)
    for model in (on_cluster, in_memory):
        # one split for both: knn_accuracy draws its 80/20 split from random_state
        model.quality = (
            trustworthiness(Xn, model.embedding_, n_neighbors=10),
            knn_accuracy(model.embedding_, y, random_state=0),
        )
    assert abs(on_cluster.quality[0] - in_memory.quality[0]) < 0.005
    assert abs(on_cluster.quality[1] - in_memory.quality[1]) < 0.01
    assert on_cluster.n_features_in_ == Xn.shape[1]
    if method == "UMAP":  # exact neighbours both ways: the same graph, the same layout
        np.testing.assert_allclose(on_cluster.embedding_, in_memory.embedding_)
    placed = on_cluster.transform(Xn[:20])  # the training rows are read in for the index
    assert placed.shape == (20, 2) and np.isfinite(placed).all()


def test_neighbor_embeddings_on_dask_refuse_what_needs_rows_in_memory():
    import lowdim

    X = da.from_array(_blobs(n=600), chunks=(200, 12))
    with pytest.raises(ValueError, match="unique=False"):
        lowdim.UMAP(unique=True).fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        lowdim.TSNE(metric="precomputed").fit(X)


class _LargestResult:
    """A scheduler plugin recording the largest task result held in worker memory."""

    name = "lowdim-largest-result"

    def __init__(self):
        self.largest = 0

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            ts = self.scheduler.tasks.get(key)
            if ts is not None:
                self.largest = max(self.largest, ts.nbytes)

    async def start(self, scheduler):
        self.scheduler = scheduler


def test_local_cluster_never_holds_more_than_a_block_per_task(cluster):
    cl, client = cluster
    plugin = _LargestResult()
    cl.scheduler.add_plugin(plugin)
    plugin.scheduler = cl.scheduler
    try:
        X = _generated(n_blocks=16)
        PCA(4, solver="covariance").fit(X)
        KMeans(6, random_state=0, max_iter=5).fit(X)  # the tasks of every pass are alike
    finally:
        cl.scheduler.remove_plugin(name=plugin.name)
    block = 2000 * 30 * 4
    assert 0 < plugin.largest <= 1.3 * block < X.nbytes / 10


def test_progress_bar_per_pass_on_the_cluster(cluster, capsys):
    from lowdim.distributed import pass_progress

    X = _generated(n_blocks=6)
    with pass_progress("fit"):
        pca = PCA(3, solver="randomized", iterated_power=2, random_state=0).fit(X)
        MiniBatchKMeans(4, batch_size=1000, random_state=0, compute_labels=False).fit(X)
    err = capsys.readouterr().err
    passes = [f"fit: pass {i}" in err for i in range(1, pca.n_iter_ + 2)]
    assert passes == [True] * pca.n_iter_ + [False], err  # one bar per pass over the data
    # tqdm may shorten a long description to the terminal width and skips redraws within
    # its minimum interval: look for the units and the block count, not the whole line
    assert "task" in err and "block" in err and "/6" in err
    quiet = PCA(3, solver="randomized", iterated_power=2, random_state=0).fit(X)
    assert "pass" not in capsys.readouterr().err  # no bars unless asked for
    np.testing.assert_array_equal(pca.components_, quiet.components_)
    KMeans(4, random_state=0, verbose=1, max_iter=2).fit(X)
    assert "lowdim on Dask: pass 1" in capsys.readouterr().err


def _dying_blocks(marker_dir, always):
    """Blocks whose generation kills the worker process: once (the first attempt of
    block 3) or every time."""

    def block(block_id=None):
        marker = os.path.join(marker_dir, f"died-{block_id[0]}")
        if block_id[0] == 3 and (always or not os.path.exists(marker)):
            open(marker, "w").close()
            os._exit(1)
        return np.random.default_rng(block_id[0]).normal(size=(1000, 6))

    return da.map_blocks(block, dtype=np.float64, chunks=((1000,) * 8, (6,)))


def test_fit_completes_when_a_worker_dies_once(cluster_to_break, tmp_path):
    X = _dying_blocks(str(tmp_path), always=False)
    pca = PCA(3).fit(X)
    assert (tmp_path / "died-3").exists()  # a worker really died
    expected = np.vstack([np.random.default_rng(i).normal(size=(1000, 6)) for i in range(8)])
    np.testing.assert_allclose(
        pca.explained_variance_, PCA(3, solver="svd").fit(expected).explained_variance_, rtol=1e-10
    )


@pytest.mark.parametrize("ext", [".csv", ".npy", ".parquet", ".zarr"])
def test_writing_survives_one_worker_death(cluster_to_break, tmp_path, ext):
    from lowdim.io._lazy import write_blocks

    out = tmp_path / f"z{ext}"
    write_blocks(str(out), _dying_blocks(str(tmp_path), always=False), [f"c{j}" for j in range(6)])
    assert (tmp_path / "died-3").exists()
    expected = np.vstack([np.random.default_rng(i).normal(size=(1000, 6)) for i in range(8)])
    if ext == ".npy":
        np.testing.assert_array_equal(np.load(out), expected)
    elif ext == ".zarr":
        np.testing.assert_array_equal(da.from_zarr(str(out)).compute(), expected)
    elif ext == ".csv":
        np.testing.assert_allclose(np.loadtxt(out, delimiter=",", skiprows=1), expected, rtol=1e-15)
    else:
        import pyarrow.parquet as pq

        np.testing.assert_array_equal(np.column_stack(list(pq.read_table(out).to_pydict().values())), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["died-3", out.name]  # no temporary left


def test_a_write_that_fails_leaves_the_previous_file_and_no_partial_one(cluster_to_break, tmp_path):
    from lowdim.io._lazy import write_blocks

    out = tmp_path / "z.npy"
    np.save(out, np.arange(3.0))
    with pytest.raises(RuntimeError, match="a Dask worker died"):
        write_blocks(str(out), _dying_blocks(str(tmp_path), always=True), [f"c{j}" for j in range(6)])
    np.testing.assert_array_equal(np.load(out), np.arange(3.0))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["died-3", "z.npy"]


def test_fit_fails_clearly_when_workers_keep_dying(cluster_to_break, tmp_path):
    X = _dying_blocks(str(tmp_path), always=True)
    km = KMeans(3, random_state=0)
    with pytest.raises(RuntimeError, match="a Dask worker died"):
        km.fit(X)
    assert not hasattr(km, "cluster_centers_")


# ----------------------------------------------------------------------------- CLI --dask
def _cli(*argv):
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "lowdim")
    result = subprocess.run([exe, *map(str, argv)], capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """The same 12,000 x 8 float32 data as a Zarr store, a folder of Parquet files (with
    a label column) and an HDF5 dataset."""
    import h5py
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zarr

    root = tmp_path_factory.mktemp("stored")
    X = _blobs(n=12000, d=8, k=4, dtype=np.float32)
    z = zarr.open(str(root / "x.zarr"), mode="w", shape=X.shape, chunks=(2500, 8), dtype="f4")
    z[:] = X
    (root / "parts").mkdir()
    for i in range(3):
        part = X[4000 * i : 4000 * (i + 1)]
        columns = {f"g{j}": part[:, j] for j in range(8)}
        columns["kind"] = np.array(["a", "=b"])[np.arange(4000) % 2]
        pq.write_table(pa.table(columns), str(root / "parts" / f"{i}.parquet"), row_group_size=1500)
    with h5py.File(root / "x.h5", "w") as fh:
        fh.create_dataset("data/X", data=X, chunks=(1000, 8))
    return root, X


def test_cli_pca_on_a_zarr_store_writes_the_projection_block_by_block(cluster, stored, tmp_path):
    cl, _ = cluster
    root, X = stored
    out = tmp_path / "pcs.npy"
    code, stdout, stderr = _cli(
        "pca", root / "x.zarr", "--dask", cl.scheduler_address, "-k", "3", "-o", out, "--scree", tmp_path / "scree.png"
    )
    assert code == 0, stderr
    assert "lazily: 12000 x 8 in 5 row blocks" in stdout and "block by block" in stdout
    assert "PCA on Dask: pass 1" in stderr  # a bar per pass over the store
    expected = PCA(3).fit(X).transform(X)
    np.testing.assert_allclose(np.load(out), expected, rtol=1e-4, atol=1e-4)
    assert (tmp_path / "scree.png").stat().st_size > 1000


def test_cli_cluster_on_a_parquet_folder_keeps_labels(cluster, stored, tmp_path):
    import pyarrow.parquet as pq

    cl, _ = cluster
    root, X = stored
    out = tmp_path / "clusters.parquet"
    code, stdout, stderr = _cli(
        "cluster",
        root / "parts",
        "--dask",
        cl.scheduler_address,
        "-k",
        "4",
        "--label-column",
        "kind",
        "-o",
        out,
        "--seed",
        "1",
    )
    assert code == 0, stderr
    table = pq.read_table(out)
    assert table.column_names == ["cluster", "kind"] and table.num_rows == 12000
    assert table.column("kind").to_pylist()[:2] == ["a", "=b"]
    found = np.asarray(table.column("cluster"))
    assert len(np.unique(found)) == 4
    mem = KMeans(4, random_state=0).fit(X)
    from lowdim.metrics import adjusted_rand_score

    assert adjusted_rand_score(mem.labels_, found) > 0.99


def test_cli_hdf5_on_a_local_cluster_and_csv_output(stored, tmp_path):
    import socket

    root, X = stored
    out = tmp_path / "p.csv"
    holder = socket.socket()  # another cluster's dashboard port, taken
    try:
        holder.bind(("0.0.0.0", 8787))
        holder.listen()
    except OSError:
        pass  # already taken by something else: just as good
    try:
        code, stdout, stderr = _cli(
            "pca", root / "x.h5", "--key", "data/X", "--dask", "--variance", "0.6", "-o", out, "--json"
        )
    finally:
        holder.close()
    assert code == 0, stderr
    assert "already in use" not in stderr  # the local cluster takes a free port, silently
    summary = json.loads(stdout)
    assert summary["dask"] == "local" and summary["n_components"] == PCA(0.6).fit(X).n_components_
    rows = open(out).read().splitlines()
    assert len(rows) == 12001 and rows[0].startswith("PC1,")


def test_cli_failure_leaves_the_previous_output_intact(cluster, tmp_path):
    import zarr

    cl, _ = cluster
    X = _blobs(n=6000, d=5, dtype=np.float64)
    X[5500, 2] = np.nan
    z = zarr.open(str(tmp_path / "bad.zarr"), mode="w", shape=X.shape, chunks=(1000, 5), dtype="f8")
    z[:] = X
    out = tmp_path / "old.csv"
    out.write_text("previous result\n")
    code, _, stderr = _cli(
        "pca", tmp_path / "bad.zarr", "--dask", cl.scheduler_address, "-k", "2", "-o", out, "--overwrite"
    )
    assert code == 2 and "starts at row 5000" in stderr and "NaN at row 500, column 2" in stderr
    assert out.read_text() == "previous result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.zarr", "old.csv"]


def test_cli_dask_usage_errors(stored, capsys, monkeypatch):
    from lowdim.cli.main import main

    root, _ = stored  # in this process: each command would otherwise spend seconds importing dask
    monkeypatch.setattr("lowdim.cli._dask.CONNECT_TIMEOUT", "1s")  # nothing listens there: no need to wait 10 s
    assert main(["pca", str(root / "x.zarr"), "--dask", "tcp://127.0.0.1:9", "-k", "2"]) == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert main(["cluster", str(root / "x.zarr"), "--dask", "tcp://127.0.0.1:9", "-m", "gmm"]) == 2
    assert "-m gmm needs the data in memory" in capsys.readouterr().err
    assert main(["pca", "--dataset", "iris", "--dask", "tcp://127.0.0.1:9"]) == 2
    assert "built-in datasets fit in memory" in capsys.readouterr().err
