"""``lowdim explore``: several maps of one table as one interactive HTML page."""

import re

import numpy as np

from ._common import (
    IMAGE_SHAPES,
    UsageError,
    add_columns_argument,
    add_data_arguments,
    add_pca_argument,
    check_outputs,
    emit_json,
    hover_columns,
    label_name,
    method_name,
    method_names,
    positive_int,
    read_data,
    require_columns,
)
from ._pipeline import prepare_data

HELP = "fit several 2-D maps and write one interactive page: hover, select across maps, colour, search"


def add_arguments(parser):
    add_data_arguments(parser, needs_output=True, output="page")
    add_pca_argument(parser)
    parser.add_argument(
        "-m",
        "--methods",
        default="pca,umap",
        type=method_names,
        help="comma-separated method names (default pca,umap)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="METHOD.NAME=VALUE",
        help="a method's parameter, e.g. --param umap.n_neighbors=30; repeatable",
    )
    add_columns_argument(parser)
    parser.add_argument(
        "--images",
        metavar="WxH",
        help="rows are W x H images (WxHx3 for colour): show each row's image on hover "
        "(built-in digits, fashion-mnist and orl-faces are known)",
    )
    parser.add_argument("--no-images", action="store_true", help="no thumbnails, even for built-in image data")
    parser.add_argument(
        "--max-image-mb",
        type=float,
        default=64,
        help="thumbnail budget in MB, one byte per pixel and channel; beyond it a random subset (default 64)",
    )
    parser.add_argument(
        "--cluster",
        metavar="METHOD",
        type=method_name,
        help="also cluster (hdbscan, leiden, kmeans, ...): colour by it",
    )
    parser.add_argument(
        "--cluster-on", metavar="METHOD", type=method_name, help="cluster this map (one of --methods), not the data"
    )
    parser.add_argument("-k", "--n-clusters", type=positive_int, default=8, help="k for --cluster methods that take it")
    parser.add_argument("--title", help="page title (default: the input's name)")


def image_shape(args, n_features):
    """(height, width[, 3]) from --images WxH[x3], the built-in dataset, or None."""
    if args.no_images:
        return None
    if args.images is None:
        return IMAGE_SHAPES.get(args.dataset)
    match = re.fullmatch(r"(\d+)x(\d+)(x3)?", args.images.strip().lower())
    if not match:
        raise UsageError(f"--images {args.images!r} must be WIDTHxHEIGHT (e.g. 28x28) or WIDTHxHEIGHTx3 for colour.")
    width, height = int(match[1]), int(match[2])
    shape = (height, width, 3) if match[3] else (height, width)
    if int(np.prod(shape)) != n_features:
        raise UsageError(
            f"--images {args.images}: {int(np.prod(shape))} values per image, but the rows have {n_features} "
            "columns; check the width and height (and --exclude non-pixel columns)."
        )
    return shape


def _maps(args, X, labels, methods, say, columns=(None, ())):
    """The maps of ``methods``; with category ``columns`` (kinds, names), those that
    compare numbers are skipped (said) and the others use Gower's distance."""
    from ..methods import EMBEDDINGS, lookup, make_estimator, sized_params
    from ._fitting import fit_method, use_gower
    from ._report import method_params

    params = method_params(args.param)
    maps, seconds = {}, {}
    for name in methods:
        params[name], note = sized_params(name, X.shape[0], params.get(name))
        if note:
            say(f"  adapted to the data: {note}")
        estimator = make_estimator(name, n_components=2, params=params.get(name), seed=args.seed, table=EMBEDDINGS)
        try:
            use_gower(name, estimator, *columns)  # a method that cannot read the table is skipped
        except UsageError:
            say(f"  skipped {name}: it compares numbers, and the table has category columns")
            continue
        maps[name], seconds[name] = fit_method(
            name,
            lookup(name, EMBEDDINGS),
            estimator,
            X,
            labels,
            args,
            columns=columns,
            say=say,
            options=(f"--methods without {name} (the maps are 2-D)", f"{name}."),
        )
        say(f"  {name:<15} {seconds[name]:.1f} s")  # the longest method names (parametric-umap) line up
    return maps, seconds, params


def _clusters(args, X, maps, params, say):
    from ..methods import CLUSTER_ALIASES, CLUSTERINGS, lookup, make_estimator
    from ._fitting import fit_method

    name = CLUSTER_ALIASES.get(args.cluster, args.cluster)
    method = lookup(name, CLUSTERINGS)
    data = maps[args.cluster_on] if args.cluster_on else X
    estimator = make_estimator(
        name,
        n_components=args.n_clusters if method.size else None,
        params=params.get(name),
        seed=args.seed,
        table=CLUSTERINGS,
    )
    labels, seconds = fit_method(
        name, method, estimator, data, None, args, output="labels", options=("-k N", f"{name}.")
    )
    labels = np.asarray(labels, dtype=np.int64)
    say(f"  {name}: {int(labels.max()) + 1} clusters, {int((labels < 0).sum())} noise points, {seconds:.1f} s")
    return labels


def run(args, say):
    from ..plot import explore
    from ._report import check_methods

    methods = check_methods(args)
    check_outputs(args, args.output, pages=[args.output])
    raw, names, labels, row_ids, (kinds, levels, dates) = read_data(args, say)
    shape = image_shape(args, raw.shape[1])
    columns = hover_columns(args, raw, names, levels, dates)
    X, _, _ = prepare_data(raw, names, args, say, kinds)
    require_columns(X, names, args.dataset or args.input, "the interactive map")
    maps, seconds, params = _maps(args, X, labels, methods, say, (kinds, names))
    clusters = _clusters(args, X, maps, params, say) if args.cluster else None
    page = explore(
        maps,
        labels,
        clusters=clusters,
        ids=row_ids,
        columns=columns,
        images=raw if shape else None,
        image_shape=shape,
        title=args.title or f"lowdim map: {args.dataset or args.input}",
        max_image_bytes=int(args.max_image_mb * 1e6),
        random_state=args.seed,
        label_name=label_name(args),
    )
    page.save(args.output, overwrite=args.overwrite)
    say(f"wrote {args.output} ({len(page) / 1e6:.1f} MB)")
    emit_json(
        args,
        {
            "command": "explore",
            "output": args.output,
            "n_samples": int(X.shape[0]),
            "methods": {m: {"seconds": round(s, 3)} for m, s in seconds.items()},
            "columns": list(columns),
            "images": list(shape) if shape else None,
            "clusters": None if clusters is None else int(clusters.max()) + 1,
            "bytes": len(page),
        },
    )
    return 0
