"""``lowdim pca``: fit PCA, print the variance table, write projection and scree plot."""

import numpy as np

from ._common import UsageError, add_data_arguments, check_outputs, emit_json, label_name, output_name, positive_int
from ._dask import add_dask_argument, run_pca
from ._fitting import check_memory, use_gower
from ._pipeline import load_data

HELP = "principal component analysis with a variance table and scree plot"


def add_arguments(parser):
    add_data_arguments(parser)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("-k", "--n-components", type=positive_int, help="number of components")
    size.add_argument("--variance", type=float, help="keep the smallest k explaining this fraction (0-1)")
    size.add_argument("--select", choices=["mle", "cv"], help="choose k by Minka's MLE or cross-validation")
    parser.add_argument(
        "--solver", default="auto", choices=["auto", "covariance", "gram", "svd", "randomized", "power", "lanczos"]
    )
    parser.add_argument("--scree", metavar="PNG", help="write a scree plot")
    parser.add_argument(
        "--loadings",
        metavar="FILE",
        help="write the loadings (.csv/.parquet): a row per input column, a column per component "
        "(the unit directions, as R's prcomp calls rotation)",
    )
    parser.add_argument(
        "--embedding-dims", type=int, help="write only the first D projected coordinates (default: all kept)"
    )
    add_dask_argument(parser)


def _n_components(args, X):
    if args.variance is not None:
        if not 0 < args.variance < 1:
            raise UsageError(f"--variance must be between 0 and 1; got {args.variance}.")
        return args.variance
    if args.select == "mle":
        return "mle"
    if args.select == "cv":
        from ..decomposition import select_n_components

        return select_n_components(X, "cv", random_state=args.seed).n_components
    if args.n_components is not None:
        return args.n_components
    return min(10, *X.shape)


def format_table(pca):
    """The explained-variance table as text."""
    lines = [f"{'component':>9}  {'variance':>12}  {'ratio':>8}  {'cumulative':>10}"]
    cumulative = np.cumsum(pca.explained_variance_ratio_)
    for i, (v, r, c) in enumerate(zip(pca.explained_variance_, pca.explained_variance_ratio_, cumulative)):
        lines.append(f"{i + 1:>9}  {v:>12.6g}  {r:>8.4f}  {c:>10.4f}")
    return "\n".join(lines)


def run(args, say):
    from ..decomposition import PCA

    if args.dask is not None:
        return run_pca(args, say, _n_components, summarize, finish)
    check_outputs(
        args, args.output, args.scree, args.loadings, tables=[args.output, args.loadings], figures=[args.scree]
    )
    data = load_data(args, say)
    X, labels, row_ids = data.X, data.labels, data.row_ids
    pca = PCA(solver=args.solver, random_state=args.seed, verbose=not (args.quiet or args.json))
    use_gower("pca", pca, data.kinds, data.names)  # refuses category columns by name: PCA would read their codes
    k = _n_components(args, X)
    check_memory("pca", X, k if isinstance(k, int) else min(X.shape), {})
    pca.set_params(n_components=k)
    Z = pca.fit_transform(X)
    dims = summarize(args, say, pca, X)
    if args.output:
        from ..io import write_table

        write_table(
            args.output,
            Z[:, :dims],
            [f"PC{i + 1}" for i in range(dims)],
            labels=labels,
            label_name=label_name(args),
            row_ids=row_ids,
            overwrite=args.overwrite,
        )
        say(f"wrote {output_name(args.output)} ({Z.shape[0]} rows x {dims} columns)")
    if args.loadings:
        _write_loadings(args, pca, data.names, say)
    return finish(args, say, pca, X)


def _write_loadings(args, pca, names, say):
    """Components as columns, input columns as rows (named by the table's header)."""
    from ..io import write_table

    k = pca.n_components_
    write_table(
        args.loadings,
        pca.components_.T,
        [f"PC{i + 1}" for i in range(k)],
        row_ids=[str(n) for n in names],
        id_name="feature",
        overwrite=args.overwrite,
    )
    say(f"wrote {args.loadings} ({len(names)} features x {k} components)")


def finish(args, say, pca, X, **summary):
    """The scree plot (which may fit up to 50 components on ``X``) and the JSON summary."""
    if args.scree:
        _scree(args, X, pca)
        say(f"wrote {args.scree}")
    emit_json(
        args,
        {
            "command": "pca",
            **summary,
            "solver": pca.solver_,
            "n_components": pca.n_components_,
            "explained_variance_ratio": pca.explained_variance_ratio_,
            "output": args.output,
            "scree": args.scree,
        },
    )
    return 0


def summarize(args, say, pca, X, how=""):
    """Print what was kept and the variance table; return the number of coordinates to
    write (``--embedding-dims``, checked)."""
    say(
        f"PCA of {X.shape[0]} x {X.shape[1]} data{how}, solver '{pca.solver_}', kept {pca.n_components_} "
        f"components explaining {pca.explained_variance_ratio_.sum():.2%} of the variance"
    )
    say(format_table(pca))
    dims = pca.n_components_ if args.embedding_dims is None else args.embedding_dims
    if not 1 <= dims <= pca.n_components_:
        raise UsageError(f"--embedding-dims must be between 1 and {pca.n_components_}; got {dims}.")
    return dims


def _scree(args, X, pca):
    """Scree plot of up to 50 components with the kept number marked."""
    from ..decomposition import PCA
    from ..plot import scree_plot

    shown = min(50, *X.shape)
    full = pca if pca.n_components_ >= shown else PCA(shown, random_state=args.seed).fit(X)
    scree_plot(
        full.explained_variance_ratio_[:shown],
        args.scree,
        n_chosen=pca.n_components_,
        title="PCA scree plot",
        overwrite=args.overwrite,
    )
