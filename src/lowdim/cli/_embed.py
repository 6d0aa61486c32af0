"""``lowdim embed``: any registered embedding method, written as a table, plot and model."""

from ._common import (
    UsageError,
    add_data_arguments,
    add_pca_argument,
    check_outputs,
    emit_json,
    label_name,
    method_name,
    output_name,
    positive_int,
)
from ._fitting import build, fit_method
from ._pipeline import load_data, save_model

HELP = "embed data with any method (pca, tsne, umap, isomap, ...; see --list)"


def add_arguments(parser):
    add_data_arguments(parser)
    add_pca_argument(parser)
    parser.add_argument(
        "-m", "--method", default="pca", type=method_name, help="method name (default pca; --list shows all)"
    )
    parser.add_argument("-k", "--n-components", type=positive_int, default=2, help="output dimensions (default 2)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="method parameter, e.g. --param perplexity=50; repeatable",
    )
    parser.add_argument("--plot", metavar="PNG", help="write a scatter plot of the first two dimensions")
    parser.add_argument("--save-model", metavar="PATH", help="save the fitted model (lowdim transform uses it)")
    parser.add_argument("--list", action="store_true", help="list the methods and exit")


def list_methods(table):
    return "\n".join(f"  {name:<18} {m.summary}" for name, m in table.items())


def run(args, say):
    from ..methods import EMBEDDINGS, check_available

    if args.list:
        print(list_methods(EMBEDDINGS))
        return 0
    method = check_available(args.method, EMBEDDINGS)
    estimator = build(args.method, args, EMBEDDINGS)
    if not args.output and not args.plot and not args.save_model:
        raise UsageError("nothing to write: pass -o OUT (.csv/.tsv/.npy/...), --plot PNG or --save-model PATH.")
    check_outputs(args, args.output, args.plot, args.save_model, tables=[args.output], figures=[args.plot])
    graph = keep_input_graph(args, check_result_h5ad(args, f"X_{args.method}", "embedding"), estimator, say)
    data = load_data(args, say)
    X, labels = data.X, data.labels
    Z, seconds = fit_method(args.method, method, estimator, X, labels, args, columns=(data.kinds, data.names), say=say)
    say(f"{args.method}: embedded {X.shape[0]} x {X.shape[1]} into {Z.shape[1]} dimensions in {seconds:.1f} s")
    axes, points = axis_labels(args.method, estimator), biplot_points(estimator, data)
    _write(args, Z, labels, say, data.row_ids, axes, points, estimator if graph else None)
    if args.save_model:
        save_model(args, data, (args.method, estimator), say=say)
    emit_json(
        args,
        {
            "command": "embed",
            "method": args.method,
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "n_components": Z.shape[1],
            "seconds": round(seconds, 3),
            "output": args.output,
            "plot": args.plot,
            "model": args.save_model,
        },
    )
    return 0


def keep_input_graph(args, input_graph, estimator, say):
    """Whether the neighbour graph ``estimator`` builds (UMAP, Leiden, Louvain) is written to
    the output: not where the .h5ad input holds one and ``--overwrite-key`` is not given
    (the result is the map or the clusters; the input's graph is kept, said)."""
    if not hasattr(type(estimator), "knn_graph_"):
        return False
    if input_graph and not getattr(args, "overwrite_key", False):
        say(f"{args.input}: its neighbour graph is kept in the output (--overwrite-key writes {args.method}'s)")
        return False
    return True


def check_result_h5ad(args, key, kind):
    """-o OUT.h5ad from an .h5ad input: the key checked before any work. Returns whether
    the input holds a neighbour graph."""
    from ..io import check_h5ad_key

    if not (args.output and args.output.lower().endswith(".h5ad")):
        return False
    source = args.input if args.input and args.input.lower().endswith(".h5ad") else None
    return check_h5ad_key(args.output, source, key, kind, getattr(args, "overwrite_key", False))


def write_result_h5ad(args, key, values, kind, labels, row_ids, params=None, graph=None, extra=()):
    """-o OUT.h5ad: the result as scanpy keeps it (and ``graph``, the neighbour graph;
    ``extra``, more ``(key, values, kind)`` results), in a copy of an .h5ad input (its
    content kept) or in a new AnnData of the rows."""
    from ..io import write_h5ad

    source = args.input if args.input and args.input.lower().endswith(".h5ad") else None
    write_h5ad(
        args.output,
        key,
        values,
        kind=kind,
        source=source,
        row_ids=row_ids,
        labels=labels,
        label_name=label_name(args),
        params={**(params or {"method": args.method, "seed": args.seed}), **_matrix_read(args)},
        overwrite=args.overwrite,
        overwrite_key=getattr(args, "overwrite_key", False),
        graph=graph,
        extra=extra,
    )


GRAPH_KEYS = ", obsp['distances'], obsp['connectivities'], uns['neighbors']"


def _matrix_read(args):
    """What of an .h5ad input the result was computed from, in scanpy's words (``use_rep``,
    ``layer``, ``use_raw``, ``mask_var``): only the options given."""
    chosen = {
        "use_rep": getattr(args, "obsm", None),
        "layer": getattr(args, "layer", None),
        "use_raw": getattr(args, "use_raw", False) or None,
        "mask_var": getattr(args, "mask_var", None),
    }
    return {name: value for name, value in chosen.items() if value is not None}


def scanpy_graph(estimator, args):
    """The kNN distances and the affinity graph a fit built (UMAP, Leiden, Louvain) with
    scanpy's ``uns['neighbors']['params']``, or None. 'method' is 'umap' for UMAP's fuzzy
    memberships (scanpy's UMAP warns on anything else); ``use_rep``, the ``--obsm`` key."""
    distances = getattr(estimator, "knn_graph_", None)
    if distances is None:
        return None
    fuzzy = getattr(estimator, "graph", "fuzzy") == "fuzzy"  # Leiden's graph='knn': connectivities of 1
    params = {"n_neighbors": estimator.n_neighbors, "method": "umap" if fuzzy else "knn", "metric": estimator.metric}
    if getattr(args, "obsm", None):
        params["use_rep"] = args.obsm
    return distances, estimator.graph_, params


def axis_labels(name, estimator):
    """What a plot's two axes show: principal components with their share of the
    variance, else the method's coordinates."""
    ratio = getattr(estimator, "explained_variance_ratio_", None)
    if ratio is not None and len(ratio) >= 2:
        return tuple(f"PC{i + 1} ({100 * ratio[i]:.1f} % of the variance)" for i in range(2))
    return (f"{name} 1", f"{name} 2")


def biplot_points(estimator, data):
    """The categories (MCA, FAMD) or columns (CA) a correspondence analysis places among
    the rows, with their names (category codes named by the file's levels), or None.

    Parameters
    ----------
    estimator : fitted estimator
    data : LoadedData

    Returns
    -------
    (ndarray (m, k), list of str) or None

    Examples
    --------
    >>> biplot_points(object(), None) is None
    True
    """
    coordinates = getattr(estimator, "column_coordinates_", None)
    if coordinates is None:
        return None
    if not hasattr(estimator, "category_names_"):  # CA: the table's columns
        return coordinates, list(data.names)
    start = coordinates.shape[0] - len(estimator.category_names_)  # FAMD lists its numbers first
    levels, position = data.levels or {}, {c: j for j, c in enumerate(estimator.column_names_)}
    names = []
    for name in estimator.category_names_:
        column, _, code = name.partition("=")
        column = data.names[position[column]]  # the file's name of the column (the model saw an array)
        known = levels.get(column)
        named = known[int(code)] if known and code.isdigit() and int(code) < len(known) else code
        names.append(f"{column}={named}")
    return coordinates[start:], names


def _write(args, Z, labels, say, row_ids=None, axes=None, categories=None, graph_of=None):
    if args.output and args.output.lower().endswith(".h5ad"):
        graph = None if graph_of is None else scanpy_graph(graph_of, args)
        write_result_h5ad(args, f"X_{args.method}", Z, "embedding", labels, row_ids, graph=graph)
        say(f"wrote {args.output} (obsm['X_{args.method}']{GRAPH_KEYS if graph else ''})")
    elif args.output:
        from ..io import write_table

        write_table(
            args.output,
            Z,
            [f"{args.method}{i + 1}" for i in range(Z.shape[1])],
            labels=labels,
            label_name=label_name(args),
            row_ids=row_ids,
            overwrite=args.overwrite,
        )
        say(f"wrote {output_name(args.output)}")
    if args.plot:
        if Z.shape[1] < 2:
            raise UsageError(f"--plot needs at least 2 dimensions; -k is {Z.shape[1]}.")
        from ..plot import embedding_scatter

        embedding_scatter(
            Z,
            labels,
            args.plot,
            title=f"{args.method} ({Z.shape[0]} points)",
            overwrite=args.overwrite,
            ids=row_ids,
            axis_labels=axes,
            label_name=label_name(args),
            categories=categories,
        )
        say(f"wrote {args.plot}")
