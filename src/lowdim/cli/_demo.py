"""``lowdim demo``: the whole tool on built-in real data, written to one folder."""

import os

from ._common import DATASETS, add_run_arguments, check_outputs, emit_json, method_names
from ._pipeline import load_data

HELP = "run PCA, t-SNE, UMAP and k-means on built-in data; write a report and plots"


def add_arguments(parser):
    parser.add_argument(
        "--dataset",
        choices=DATASETS,
        default="digits",
        help="built-in data (default digits; fashion-mnist needs the Debian package dataset-fashion-mnist)",
    )
    parser.add_argument("-o", "--output", default="lowdim-demo", help="output folder (default lowdim-demo)")
    parser.add_argument(
        "-m",
        "--methods",
        default="pca,tsne,umap",
        type=method_names,
        help="embedding methods (default pca,tsne,umap)",
    )
    add_run_arguments(parser)


def _defaults(args):
    """The data-option defaults ``load_data`` expects (the demo reads no file)."""
    for name, value in {"input": None, "standardize": False, "param": []}.items():
        setattr(args, name, getattr(args, name, value))


def run(args, say):
    from argparse import Namespace

    from ..plot import embedding_scatter
    from ._report import write_report

    _defaults(args)
    folder = args.output
    files = {"report": "report.html", "scree": "scree.png", "clusters": "kmeans.png"}
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    paths = {k: os.path.join(folder, v) for k, v in files.items()}
    paths.update({m: os.path.join(folder, f"{m}.png") for m in methods})
    check_outputs(args, *paths.values())
    data = load_data(args, say)
    X, labels = data.X, data.labels
    say(f"{args.dataset}: {X.shape[0]} x {X.shape[1]}, {len(set(labels.tolist()))} classes")
    report = write_report(Namespace(**{**vars(args), "output": paths["report"]}), X, labels, methods, args.dataset, say)
    for r in report.results:
        embedding_scatter(r.embedding, labels, paths[r.name], title=f"{r.name} of {args.dataset}")
    _scree_and_clusters(args, X, labels, report, paths, say)
    say(f"\nopen {os.path.abspath(paths['report'])}\nfigures in {os.path.abspath(folder)}/")
    emit_json(
        args,
        {
            "command": "demo",
            "dataset": args.dataset,
            "folder": os.path.abspath(folder),
            "files": {k: os.path.abspath(v) for k, v in paths.items()},
            "methods": {r.name: {**r.metrics, "seconds": round(r.seconds, 3)} for r in report.results},
        },
    )
    return 0


def _scree_and_clusters(args, X, labels, report, paths, say):
    from ..cluster import KMeans
    from ..plot import embedding_scatter, scree_plot
    from ._cluster import _agreement

    scree_plot(report.pca, paths["scree"], n_chosen=report.k90, title=f"PCA of {args.dataset}")
    k = len(set(labels.tolist()))
    clusters = KMeans(n_clusters=k, random_state=args.seed).fit_predict(X)
    shown = report.results[-1]
    embedding_scatter(
        shown.embedding, clusters, paths["clusters"], title=f"k-means (k={k}) clusters on the {shown.name} map"
    )
    say(f"k-means with k = {k} (the number of classes):")
    _agreement(clusters, labels, say)
