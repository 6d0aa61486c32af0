"""``--dask [SCHEDULER_ADDRESS]`` for ``lowdim pca`` and ``lowdim cluster``: read INPUT
lazily, fit on a Dask cluster, write the result block by block."""

import os
import time
from contextlib import contextmanager, nullcontext

from ._common import UsageError, check_outputs, emit_json, label_name

LAZY_METHODS = ("kmeans", "minibatch-kmeans")

CONNECT_TIMEOUT = "10s"  # how long a scheduler's address is retried before the command gives up


def add_dask_argument(parser):
    """The ``--dask`` option (no value: a local cluster of this machine's cores)."""
    parser.add_argument(
        "--dask",
        nargs="?",
        const="local",
        metavar="SCHEDULER_ADDRESS",
        help="read INPUT lazily (Zarr store, Parquet file or folder of them, HDF5 "
        "dataset) and compute on a Dask cluster: the scheduler at the address "
        "given, or a local cluster of this machine's cores; the output is "
        "written block by block (.csv .parquet .npy .zarr)",
    )


@contextmanager
def dask_client(address, say):
    """A ``distributed.Client`` for the run: connected to ``address``, or to a local
    cluster (one single-threaded worker process per core) closed afterwards."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs Dask: pip install 'lowdim[dask]'.") from None
    cluster = None
    try:
        if address == "local":
            # the scheduler's HTTP server on any free port: with None it still tries 8787
            # and warns through the CLI when another cluster holds it
            cluster = LocalCluster(
                n_workers=os.cpu_count() or 1, threads_per_worker=1, dashboard_address=":0", processes=True
            )
            client = Client(cluster)
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise UsageError(
            f"cannot reach the Dask scheduler at {address} ({exc}); start one with "
            "'dask scheduler', or give --dask without an address for a local "
            "cluster."
        ) from None
    try:
        workers = len(client.scheduler_info()["workers"])
        say(f"Dask: {'local cluster' if cluster else 'scheduler'} at {client.scheduler.address}, {workers} worker(s)")
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def check_lazy_arguments(args):
    """Refuse what --dask cannot do before any cluster is started or reached."""
    from ..io import STDOUT, lazy_format

    if args.dataset or not args.input:
        raise UsageError(
            "--dask reads INPUT from disk (Zarr, Parquet, HDF5); built-in datasets fit in memory: drop --dask."
        )
    if args.missing != "error":
        raise UsageError(
            f"--missing {args.missing} is not available with --dask; remove or impute "
            "missing values first (a NaN stops the fit naming its row)."
        )
    if not os.path.exists(args.input):
        raise UsageError(f"{args.input}: no such file or folder.")
    if getattr(args, "output", None) == STDOUT:
        raise UsageError("with --dask the table is written block by block to a file (-o OUT.csv, .parquet); name one.")
    lazy_format(args.input)


def load_lazy(args, say):
    """``(X, feature_names, labels)`` with X (and labels) as dask arrays."""
    from ..io import read_lazy

    table = read_lazy(args.input, key=args.key, label_column=args.label_column, exclude=args.exclude)
    X = table.X
    say(f"reading {table.source} lazily: {X.shape[0]} x {X.shape[1]} in {X.numblocks[0]} row blocks")
    return X, table.feature_names, table.labels


def fit_progress(args, description):
    """A progress bar per pass of the fit (per row block when streaming), unless quiet."""
    from ..distributed import pass_progress

    return nullcontext() if args.quiet or args.json else pass_progress(description)


def _write(args, Z, names, labels, say):
    from .._progress import progress_bar
    from ..io import write_blocks

    quiet = args.quiet or args.json
    with progress_bar(total=Z.shape[0], desc="writing", unit="row", disable=quiet) as bar:
        write_blocks(args.output, Z, names, labels=labels, label_name=label_name(args), progress=bar.update)
    say(f"wrote {args.output} ({Z.shape[0]} rows x {Z.shape[1]} columns, block by block)")


def run_pca(args, say, n_components_of, summarize, finish):
    """``lowdim pca --dask``."""
    from ..decomposition import PCA

    if args.select == "cv":
        raise UsageError(
            "--select cv refits on folds of in-memory data; with --dask use -k, --variance or --select mle."
        )
    check_lazy_arguments(args)
    check_outputs(args, args.output, args.scree)
    with dask_client(args.dask, say):
        X, _, labels = load_lazy(args, say)
        start = time.perf_counter()
        with fit_progress(args, "PCA on Dask"):
            pca = PCA(
                n_components_of(args, X), solver=args.solver, standardize=args.standardize, random_state=args.seed
            ).fit(X)
        dims = summarize(args, say, pca, X, f" on Dask in {time.perf_counter() - start:.1f} s")
        if args.output:
            _write(args, pca.transform(X)[:, :dims], [f"PC{i + 1}" for i in range(dims)], labels, say)
        return finish(args, say, pca, X, dask=args.dask)


def run_cluster(args, say):
    """``lowdim cluster --dask`` (k-means and mini-batch k-means)."""
    from ..io import save
    from ..methods import CLUSTERINGS, make_estimator, parse_params

    if args.method not in LAZY_METHODS:
        raise UsageError(f"-m {args.method} needs the data in memory; with --dask use {' or '.join(LAZY_METHODS)}.")
    for option in ("select", "plot", "curve"):
        if getattr(args, option):
            raise UsageError(f"--{option} works on in-memory data; with --dask give -k.")
    if args.standardize:
        raise UsageError("--standardize is not available for clustering with --dask; scale the stored data first.")
    check_lazy_arguments(args)
    check_outputs(args, args.output, args.save_model)
    k = args.n_clusters or 8
    estimator = make_estimator(
        args.method, n_components=k, params=parse_params(args.param), seed=args.seed, table=CLUSTERINGS
    )
    with dask_client(args.dask, say):
        X, _, labels = load_lazy(args, say)
        start = time.perf_counter()
        with fit_progress(args, f"{args.method} on Dask"):
            estimator.fit(X)
        say(
            f"{args.method} on Dask: {k} clusters of {X.shape[0]} rows in "
            f"{time.perf_counter() - start:.1f} s, {getattr(estimator, 'n_iter_', 1)} iteration(s), "
            f"inertia {estimator.inertia_:.6g}"
        )
        if args.output:
            _write(args, estimator.predict(X)[:, None], ["cluster"], labels, say)
    if args.save_model:
        save(estimator, args.save_model, overwrite=args.overwrite)
        say(f"wrote {args.save_model}")
    emit_json(
        args,
        {
            "command": "cluster",
            "dask": args.dask,
            "method": args.method,
            "n_clusters": k,
            "inertia": estimator.inertia_,
            "output": args.output,
        },
    )
    return 0
