"""``lowdim report``: several methods on one table, as one self-contained HTML page."""

import numpy as np

from ._common import (
    UsageError,
    add_columns_argument,
    add_data_arguments,
    check_outputs,
    emit_json,
    hover_columns,
    label_name,
    method_name,
    method_names,
    positive_int,
    read_data,
    require_columns,
    require_plotting,
)
from ._fitting import check_memory, progress, use_gower
from ._pipeline import prepare_data

HELP = "fit several methods and write one HTML page: summary, scree plot, embeddings, quality table"


def add_arguments(parser):
    add_data_arguments(parser, needs_output=True, output="page")
    parser.add_argument(
        "-m",
        "--methods",
        default="pca,tsne,umap",
        type=method_names,
        help="comma-separated method names (default pca,tsne,umap)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="METHOD.NAME=VALUE",
        help="a method's parameter, e.g. --param tsne.perplexity=50; repeatable",
    )
    parser.add_argument(
        "--cluster",
        metavar="METHOD",
        type=method_name,
        help="also cluster (hdbscan, leiden, kmeans, ...) and colour every embedding by the clusters",
    )
    parser.add_argument(
        "--cluster-on",
        metavar="METHOD",
        type=method_name,
        help="cluster this embedding (one of --methods), not the data",
    )
    parser.add_argument(
        "-k", "--n-clusters", type=positive_int, default=8, help="k for --cluster methods that take it (default 8)"
    )
    add_columns_argument(parser)


def method_params(pairs):
    """``['tsne.perplexity=50']`` -> ``{'tsne': {'perplexity': 50}}``."""
    from ..methods import parse_params

    grouped = {}
    for pair in pairs:
        method, dot, rest = pair.partition(".")
        if not dot or "=" not in rest:
            raise UsageError(f"--param {pair!r} must be METHOD.NAME=VALUE, e.g. tsne.perplexity=50.")
        grouped.setdefault(method, []).append(rest)
    return {m: parse_params(p) for m, p in grouped.items()}


def write_report(args, X, labels, methods, source, say, columns=None, table=None):
    """Build the report with progress bars, write it, print the quality table; returns it.
    ``columns``: hover and colour columns; ``table``: ``(kinds, names)`` of a table with
    category columns, whose maps then compare rows by Gower's distance."""
    from ..methods import EMBEDDINGS
    from ..report import build_report

    params = method_params(args.param)
    for name in methods:  # refuse at the start, before the first fit, a method that will not fit
        check_memory(name, X, 2, params.get(name, {}), table=EMBEDDINGS)
    mixed = {}
    if table is not None:
        from ..preprocessing import gower_params

        mixed["metric_params"] = gower_params(table[0])
        mixed["prepare"] = lambda name, estimator: _reads_table(name, estimator, table, say)
    report = build_report(
        X,
        labels,
        methods,
        source=source,
        seed=args.seed,
        params=params,
        progress=lambda est, name: progress(est, args, name),
        cluster=getattr(args, "cluster", None),  # the demo's arguments have no clustering
        cluster_on=getattr(args, "cluster_on", None),
        n_clusters=getattr(args, "n_clusters", 8),
        label_name=label_name(args),
        columns=columns,
        **mixed,
    )
    from ..io import atomic_path

    with atomic_path(args.output, overwrite=args.overwrite) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(report.html)
    for note in report.notes:
        say(f"  adapted to the data: {note}")
    width = max([10, *(len(r.name) for r in report.results)])  # method names line up (parametric-umap)
    for r in report.results:
        say(f"  {r.name:<{width}} " + "  ".join(f"{k} {v:.3f}" for k, v in r.metrics.items()) + f"  {r.seconds:.1f} s")
    if report.clusters is not None:
        c = report.clusters.labels
        say(f"  {report.clusters.name}: {int(c.max()) + 1} clusters, {int((c < 0).sum())} noise points")
    say(f"wrote {args.output}")
    return report


def _reads_table(name, estimator, table, say):
    """Set a method to a table with category columns; False for one that compares numbers."""
    try:
        use_gower(name, estimator, *table, say)
    except UsageError:
        return False
    return True


def check_methods(args):
    """The embedding methods of --methods (each known), with --cluster and --cluster-on
    checked; before any data is read."""
    from ..methods import CLUSTER_ALIASES, CLUSTERINGS, EMBEDDINGS, check_available

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise UsageError("--methods is empty; name at least one method, e.g. --methods pca,umap.")
    for name in methods:
        check_available(name, EMBEDDINGS)
    if args.cluster is not None:
        check_available(CLUSTER_ALIASES.get(args.cluster, args.cluster), CLUSTERINGS)
    if args.cluster_on is not None and (args.cluster is None or args.cluster_on not in methods):
        raise UsageError("--cluster-on names one of --methods, and needs --cluster.")
    return methods


def run(args, say):
    methods = check_methods(args)
    check_outputs(args, args.output, pages=[args.output])
    require_plotting("the report (its static pictures)")
    raw, names, labels, _, (kinds, levels, dates) = read_data(args, say)
    columns = hover_columns(args, raw, names, levels, dates)
    X, _, _ = prepare_data(raw, names, args, say, kinds)
    require_columns(X, names, args.dataset or args.input, "the report")
    table = None
    if kinds and any(k != "numeric" for k in kinds):
        table = (kinds, names)
        if "pca" in methods and "famd" not in methods:
            methods = ["famd" if m == "pca" else m for m in methods]
            say("  famd in place of pca: the table has category columns (FAMD weighs numbers and categories alike)")
    report = write_report(args, X, labels, methods, args.dataset or args.input, say, columns, table)
    emit_json(
        args,
        {
            "command": "report",
            "output": args.output,
            "summary": report.summary,
            "methods": {r.name: {**r.metrics, "seconds": round(r.seconds, 3)} for r in report.results},
            "clusters": None
            if report.clusters is None
            else {
                "method": report.clusters.name,
                "on": report.clusters.on,
                "sizes": np.bincount(report.clusters.labels[report.clusters.labels >= 0]),
                "noise": int((report.clusters.labels < 0).sum()),
            },
        },
    )
    return 0
