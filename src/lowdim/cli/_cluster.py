"""``lowdim cluster``: k-means, k-medoids, a Gaussian mixture or spectral clustering with k
given or chosen; HDBSCAN, Leiden or Louvain finding k themselves; on the data or on an
embedding of it (``--on umap``)."""

import numpy as np

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
from ._dask import add_dask_argument
from ._dask import run_cluster as run_dask_cluster
from ._pipeline import load_data, save_model

HELP = (
    "cluster with kmeans, kmedoids, gmm, spectral, agglomerative, bisecting-kmeans (-k N or --select "
    "elbow|silhouette|bic|aic|gap|gmeans) or hdbscan, optics, dbscan, leiden, louvain; --on umap clusters an embedding"
)
SELECTIONS = ["elbow", "silhouette", "bic", "aic", "gap", "gmeans"]
# methods.CLUSTERINGS's names, written out: importing the registry to build the parser would
# load numpy and scipy for every command, --version included (a test keeps the two equal)
CLUSTERING_NAMES = (
    "kmeans", "minibatch-kmeans", "kprototypes", "kmodes", "kmedoids", "gmm", "bayesian-gmm", "hdbscan", "optics",
    "dbscan", "agglomerative", "bisecting-kmeans", "leiden", "louvain", "spectral-clustering",
)  # fmt: skip


def add_arguments(parser):
    add_data_arguments(parser)
    add_pca_argument(parser)
    parser.add_argument(
        "-m",
        "--method",
        default="kmeans",
        type=method_name,
        help=f"clustering method (default kmeans): {', '.join(CLUSTERING_NAMES)}",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("-k", "--n-clusters", type=positive_int, help="number of clusters")
    size.add_argument(
        "--select",
        choices=SELECTIONS,
        help="choose k from a curve over --k-range (gmeans: grow k while clusters fail a normality test)",
    )
    parser.add_argument(
        "--on",
        metavar="METHOD",
        type=method_name,
        help="cluster a 2-D embedding by this method (umap, tsne, pca, ...) instead of the data",
    )
    parser.add_argument("--k-range", default="1-10", help="candidates for --select, e.g. 2-12 (default 1-10)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="method parameter, e.g. --param n_init=4; repeatable",
    )
    parser.add_argument("--plot", metavar="PNG", help="scatter of the first two principal components by cluster")
    parser.add_argument("--curve", metavar="PNG", help="the selection curve (with --select)")
    parser.add_argument("--save-model", metavar="PATH", help="save the fitted model")
    add_dask_argument(parser)


def _k_range(text):
    lo, sep, hi = text.partition("-")
    try:
        ks = range(int(lo), int(hi) + 1) if sep else range(1, int(lo) + 1)
    except ValueError:
        raise UsageError(f"--k-range {text!r} is not a range; write for example 2-12.") from None
    if len(ks) < 2 or ks.start < 1:
        raise UsageError(f"--k-range {text!r} must hold at least two counts from 1 up.")
    return ks


def _summary(method, clusters, asked, seconds):
    """What the clustering found: the sizes of the clusters that hold rows (an empty
    one, which duplicated rows leave when k is more than the distinct points, is
    counted apart), the noise, and the sentence that says so.

    Examples
    --------
    >>> _summary("gmm", np.array([0, 0, 7, 7]), 8, 0.1)[2]
    'gmm: 2 clusters of 4 rows in 0.1 s; sizes [2, 2]; 6 of the 8 asked for hold no row'
    """
    sizes = np.bincount(clusters[clusters >= 0], minlength=max(int(clusters.max()) + 1, 0))
    found, noise = sizes[sizes > 0].tolist(), int(np.sum(clusters < 0))
    empty = (asked or sizes.size) - len(found)
    plural = "" if len(found) == 1 else "s"
    return (
        found,
        noise,
        (
            f"{method}: {len(found)} cluster{plural} of {clusters.size} rows in {seconds:.1f} s; sizes {found}"
            + (f"; {empty} of the {asked or sizes.size} asked for hold no row" if empty > 0 else "")
            + (f"; noise {noise}" if noise else "")
        ),
    )


# what sets the number of clusters of a method that finds it, as --param names it
KNOBS = {
    "hdbscan": "min_cluster_size=N (larger: fewer clusters)",
    "dbscan": "eps=R (the neighbourhood radius: larger joins more) or min_samples=N",
    "optics": "min_samples=N or xi=F (larger: fewer clusters)",
    "leiden": "resolution=R (larger: more clusters)",
    "louvain": "resolution=R (larger: more clusters)",
}


def _choose_k(args, X, say, params, kinds=None):
    """k from -k, or chosen by --select (on a table with category columns, ``kinds``:
    the elbow of the k-prototypes cost)."""
    from ..cluster import select_n_clusters

    if args.select is None:
        if args.n_clusters is not None and not _finds_k(args.method):
            knob = KNOBS.get(args.method, "its parameters")
            raise UsageError(
                f"{args.method} finds the number of clusters itself; drop -k (tune it with --param {knob})."
            )
        return args.n_clusters or 8, None
    if args.select in ("bic", "aic") and args.method != "gmm":
        raise UsageError(f"--select {args.select} scores Gaussian mixtures; use -m gmm or --select elbow.")
    if not _finds_k(args.method):
        raise UsageError(f"--select chooses k, which {args.method} finds by itself; drop --select.")
    mixed = kinds is not None and any(k != "numeric" for k in kinds)
    selection = select_n_clusters(
        X,
        args.select,
        k_range=_k_range(args.k_range),
        random_state=args.seed,
        covariance_type=params.get("covariance_type", "full"),
        categorical=[j for j, k in enumerate(kinds) if k != "numeric"] if mixed else None,
    )
    say(
        f"--select {args.select}: k = {selection.n_clusters} (candidates "
        f"{selection.candidates[0]}-{selection.candidates[-1]})"
    )
    return selection.n_clusters, selection


def _finds_k(name):
    """Whether the clustering takes k (rather than finding it)."""
    from ..methods import CLUSTERINGS

    return bool(CLUSTERINGS[name].size)


def _embedded(args, X, say, columns=(None, ())):
    """The 2-D embedding ``--on`` names, for clustering it, and its fitted estimator
    (``columns``: the table's column kinds and names, for Gower's distance)."""
    from ..methods import EMBEDDINGS, lookup
    from ._fitting import build, fit_method

    method = lookup(args.on, EMBEDDINGS)
    estimator = build(args.on, argparse_namespace(args, n_components=2, param=[]), EMBEDDINGS)
    # the map is 2-D with the method's defaults: no option of this command sets its size or parameters
    fixed = (f"another --on method than {args.on} (the map is 2-D)", None)
    Z, seconds = fit_method(args.on, method, estimator, X, None, args, columns=columns, say=say, options=fixed)
    say(f"{args.on}: embedded {X.shape[0]} rows in 2-D in {seconds:.1f} s; clustering the embedding")
    return Z, estimator


def argparse_namespace(args, **changes):
    import argparse

    return argparse.Namespace(**{**vars(args), **changes})


def run(args, say):
    from ..methods import (
        CLUSTER_ALIASES,
        CLUSTERINGS,
        EMBEDDINGS,
        check_available,
        make_estimator,
        parse_params,
    )
    from ._fitting import fit_method

    args.method = CLUSTER_ALIASES.get(args.method, args.method)
    method = check_available(args.method, CLUSTERINGS)
    if args.on:
        check_available(args.on, EMBEDDINGS)
    if args.dask is not None:
        return run_dask_cluster(args, say)
    if args.curve and not args.select:
        raise UsageError("--curve draws the --select curve; pass --select too.")
    check_outputs(
        args, args.output, args.plot, args.curve, args.save_model, tables=[args.output], figures=[args.plot, args.curve]
    )
    from ._embed import check_result_h5ad, keep_input_graph

    # Leiden and Louvain build a neighbour graph of the rows: written as scanpy's (not one of a map, with --on)
    input_graph = check_result_h5ad(args, args.method, "clusters")
    own_graph = not args.on and keep_input_graph(args, input_graph, method.cls(), say)
    if args.on:  # the map the clusters were found on is written beside them
        check_result_h5ad(args, f"X_{args.on}", "embedding")
    loaded = load_data(args, say)
    X, labels, row_ids = loaded.X, loaded.labels, loaded.row_ids
    columns = (loaded.kinds, loaded.names)
    mixed = loaded.kinds is not None and any(k != "numeric" for k in loaded.kinds)
    if args.select and not args.on and mixed and args.method not in ("kprototypes", "kmodes"):
        raise UsageError(
            "--select compares clusterings of numbers, but the table has category columns; use -m kprototypes "
            "(--select elbow reads the knee of its cost) or add --on umap."
        )
    embedding, embedder = _embedded(args, X, say, columns) if args.on else (None, None)
    data = X if embedding is None else embedding
    params = parse_params(args.param)
    k, selection = _choose_k(args, data, say, params, loaded.kinds if embedding is None else None)
    estimator = make_estimator(args.method, n_components=k, params=params, seed=args.seed, table=CLUSTERINGS)
    clusters, seconds = fit_method(
        args.method,
        method,
        estimator,
        data,
        None,
        args,
        output="labels",
        say=say,
        columns=columns if embedding is None else (None, ()),
    )
    clusters = np.asarray(clusters, dtype=np.int64)
    sizes, noise, summary = _summary(args.method, clusters, k if method.size else None, seconds)
    say(summary)
    scores = _agreement(clusters, labels, say)
    _write(args, X, clusters, labels, selection, say, row_ids, embedding, estimator if own_graph else None)
    if args.save_model:
        on = [(args.on, embedder)] if embedder is not None else []
        save_model(args, loaded, *on, (args.method, estimator), say=say)
    emit_json(
        args,
        {
            "command": "cluster",
            "method": args.method,
            "n_clusters": len(sizes),
            "sizes": sizes,
            "noise": noise,
            "on": args.on,
            "seconds": round(seconds, 3),
            "selection": None
            if selection is None
            else {"method": selection.method, "candidates": selection.candidates, "scores": selection.scores},
            **scores,
            "output": args.output,
        },
    )
    return 0


def _agreement(clusters, labels, say):
    if labels is None:
        return {}
    from ..methods import labelled
    from ..metrics import adjusted_rand_score, normalized_mutual_info_score

    known = labelled(labels)  # rows without a label are no class of their own
    labels, clusters = np.asarray(labels)[known], clusters[known]
    scores = {
        "adjusted_rand": adjusted_rand_score(labels, clusters),
        "normalized_mutual_info": normalized_mutual_info_score(labels, clusters),
    }
    on = "" if known.all() else f" (the {int(known.sum())} rows that have one)"
    say(f"agreement with the labels{on}: ARI {scores['adjusted_rand']:.3f}, NMI {scores['normalized_mutual_info']:.3f}")
    return scores


def _write(args, X, clusters, labels, selection, say, row_ids=None, embedding=None, graph_of=None):
    from ..io import write_table
    from ..plot import embedding_scatter, selection_curve

    if args.output and args.output.lower().endswith(".h5ad"):
        from ._embed import GRAPH_KEYS, scanpy_graph, write_result_h5ad

        extra = [] if embedding is None else [(f"X_{args.on}", embedding, "embedding")]
        graph = None if graph_of is None else scanpy_graph(graph_of, args)
        write_result_h5ad(args, args.method, clusters, "clusters", labels, row_ids, graph=graph, extra=extra)
        beside = (f", obsm['X_{args.on}']" if extra else "") + (GRAPH_KEYS if graph else "")
        say(f"wrote {args.output} (obs[{args.method!r}]{beside})")
    elif args.output:
        write_table(
            args.output,
            clusters[:, None],
            ["cluster"],
            labels=labels,
            label_name=label_name(args),
            row_ids=row_ids,
            overwrite=args.overwrite,
        )
        say(f"wrote {output_name(args.output)}")
    if args.plot:
        from ..decomposition import PCA
        from ._embed import axis_labels

        if embedding is None:
            pca = PCA(n_components=2, random_state=args.seed)
            Z, where = pca.fit_transform(X), "PC1-PC2"
            axes = axis_labels("pca", pca)
        else:
            Z, where, axes = embedding, f"the {args.on} embedding", axis_labels(args.on, None)
        embedding_scatter(
            Z,
            clusters,
            args.plot,
            title=f"{args.method} clusters on {where}",
            overwrite=args.overwrite,
            ids=row_ids,
            axis_labels=axes,
        )
        say(f"wrote {args.plot}")
    if args.curve:
        selection_curve(selection, args.curve, overwrite=args.overwrite)
        say(f"wrote {args.curve}")
