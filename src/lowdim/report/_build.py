"""Fit several methods on one table, judge them, and lay the results out as one page."""

import time
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from ..decomposition import PCA
from ..methods import (
    CLUSTER_ALIASES,
    CLUSTERINGS,
    EMBEDDINGS,
    fit_labels,
    fit_supervised,
    labelled,
    lookup,
    make_estimator,
    sized_params,
)
from ..metrics import continuity, knn_accuracy, qnx_curve, trustworthiness
from . import _html


@dataclass
class MethodResult:
    """One method's embedding, time and quality figures."""

    name: str
    embedding: np.ndarray
    seconds: float
    metrics: dict = field(default_factory=dict)
    qnx: np.ndarray = None  # Q_NX(K) for K = 1, 2, ... (the share of K-neighbourhoods kept)


@dataclass
class Report:
    """What :func:`build_report` made: the page and the numbers in it."""

    html: str
    results: list
    summary: dict
    pca: object = None
    k90: object = None
    clusters: object = None
    notes: list = field(default_factory=list)


@dataclass
class Clustering:
    """A clustering shown in the report: its labels (-1 noise) and what it ran on."""

    name: str
    on: str
    labels: np.ndarray
    seconds: float


MAX_QUERIES = 5000  # rank metrics are exact averages over this many random query points


def quality_neighbors(n_neighbors, n_samples):
    """The neighbourhood the rank metrics can use on ``n_samples`` rows (fewer than
    half of them); 0 when there are too few rows to judge a map."""
    return max(0, min(n_neighbors, (n_samples - 1) // 2))


def _quality(X, Z, labels, n_neighbors, seed, metric=None):
    n_neighbors = quality_neighbors(n_neighbors, X.shape[0])
    if n_neighbors == 0:
        return {}
    sample = {"n_neighbors": n_neighbors, "max_queries": MAX_QUERIES, "random_state": seed, **(metric or {})}
    scores = {"trustworthiness": trustworthiness(X, Z, **sample), "continuity": continuity(X, Z, **sample)}
    if labels is not None:
        # 5 voters, as the default, or fewer on a table too small for them (a fifth held
        # out); among the rows that have a label
        known = labelled(labels)
        # of a single class every vote is right: 1.0 says nothing of the map
        if known.sum() >= 5 and np.unique(np.asarray(labels)[known]).size >= 2:
            voters = min(5, n_neighbors, int(0.8 * known.sum()) - 1)
            scores["knn_accuracy"] = knn_accuracy(
                Z[known], np.asarray(labels)[known], n_neighbors=voters, random_state=seed
            )
    return scores


def run_method(name, X, labels, *, seed=0, params=None, n_neighbors=10, progress=None, prepare=None, metric=None):
    """Fit registered method ``name`` to 2-D and score it; ``progress(estimator, name)`` is an
    optional context manager factory (the CLI's progress bar), ``prepare(name, estimator)``
    sets the estimator to the table's columns (False: the method cannot read them, and
    None is returned), ``metric`` the quality scores' ``metric`` and ``metric_params``."""
    method = lookup(name, EMBEDDINGS)
    estimator = make_estimator(name, n_components=2, params=(params or {}).get(name), seed=seed, table=EMBEDDINGS)
    if prepare is not None and not prepare(name, estimator):
        return None
    if method.supervised and labels is None:
        raise ValueError(f"{name} is supervised and the data have no labels; pass a label column.")
    start = time.perf_counter()
    with progress(estimator, name) if progress else nullcontext():
        Z = fit_supervised(estimator, X, labels) if method.supervised else estimator.fit_transform(X)
    seconds = time.perf_counter() - start
    with progress(None, f"quality of {name}") if progress else nullcontext():
        scores = _quality(X, Z, labels, n_neighbors, seed, metric)
        curve = _qnx(X, Z, seed, metric)
    return MethodResult(name, np.asarray(Z), seconds, scores, curve)


QNX_RANKS = 100  # the report's Q_NX curve runs up to this neighbourhood size


def _qnx(X, Z, seed, metric=None):
    """Q_NX(K) up to ``QNX_RANKS`` (or half the rows), None for a table too small."""
    ranks = min(QNX_RANKS, (X.shape[0] - 1) // 2)
    if ranks < 2:
        return None
    options = {"max_queries": MAX_QUERIES, "random_state": seed, **(metric or {})}
    return qnx_curve(X, Z, max_rank=ranks, **options)[1]


def run_clustering(name, X, results, *, on=None, seed=0, params=None, n_clusters=8, progress=None, prepare=None):
    """Fit registered clustering ``name`` on ``X``, or on the embedding of method ``on``
    among ``results``; ``n_clusters`` for those that take k; ``prepare`` as for
    ``run_method`` (for the data, not an embedding)."""
    name = CLUSTER_ALIASES.get(name, name)
    method = lookup(name, CLUSTERINGS)
    data = X
    if on is not None:
        found = [r for r in results if r.name == on]
        if not found:
            raise ValueError(f"cluster_on={on!r} is not among the methods ({', '.join(r.name for r in results)}).")
        data = found[0].embedding
    estimator = make_estimator(
        name,
        n_components=n_clusters if method.size else None,
        params=(params or {}).get(name),
        seed=seed,
        table=CLUSTERINGS,
    )
    if on is None and prepare is not None and not prepare(name, estimator):
        raise ValueError(
            f"{name} compares numbers, and the table has category columns; cluster a map instead (cluster_on) "
            "or use hdbscan, kmedoids or kprototypes."
        )
    start = time.perf_counter()
    with progress(estimator, name) if progress else nullcontext():
        labels = fit_labels(estimator, data)
    return Clustering(name, on or "the data", np.asarray(labels, dtype=np.int64), time.perf_counter() - start)


def _cluster_section(clustering, results, labels):
    from ..metrics import adjusted_rand_score
    from ..plot import embedding_scatter

    c = clustering.labels
    k, noise = int(c.max()) + 1, int(np.sum(c < 0))
    sizes = np.bincount(c[c >= 0], minlength=k)
    rows = [["method", clustering.name], ["clustered", clustering.on], ["clusters", k]]
    rows += [["noise (label -1)", f"{noise} ({noise / c.size:.1%})"], ["time (s)", f"{clustering.seconds:.2f}"]]
    if labels is not None:
        known = labelled(labels)
        ari = adjusted_rand_score(np.asarray(labels)[known], c[known])
        rows.append(["adjusted Rand index with the labels", f"{ari:.4f}"])
    size_rows = [[str(j), int(sizes[j]), f"{sizes[j] / c.size:.1%}"] for j in np.argsort(-sizes, kind="stable")]
    figures = []
    for r in results:
        ax = embedding_scatter(r.embedding, c, title=f"{r.name}, coloured by {clustering.name}")
        figures.append(_html.figure(_html.figure_uri(ax.figure), f"{r.name}: {k} clusters, {noise} noise points"))
    return (
        _html.table(["", ""], rows)
        + '<div class="grid">'
        + "".join(figures)
        + "</div>"
        + _html.table(["cluster", "size", "share"], size_rows)
    )


def _data_table(summary):
    rows = [
        ["rows", summary["n_samples"]],
        ["features", summary["n_features"]],
        ["dtype", summary["dtype"]],
        ["missing values", summary["missing"]],
    ]
    if "classes" in summary:
        rows.append(["classes", f"{len(summary['classes'])} ({', '.join(list(summary['classes'])[:12])})"])
    if summary.get("unlabelled"):
        rows.append(["rows without a label", f"{summary['unlabelled']} (left out of the scores against the labels)"])
    return _html.table(["", ""], rows)


def _summary(X, labels, source):
    X = np.asarray(X)
    summary = {
        "source": source,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "dtype": str(X.dtype),
        "missing": int(np.isnan(X).sum()) if X.dtype.kind == "f" else 0,
    }
    if labels is not None:
        known = labelled(labels)
        classes, counts = np.unique(np.asarray(labels)[known], return_counts=True)
        summary["classes"] = {str(c): int(k) for c, k in zip(classes, counts)}
        summary["unlabelled"] = int(np.sum(~known))
    return summary


def variance_profile(X, seed, categorical=None):
    """PCA of up to 50 components (FAMD's for a table with ``categorical`` columns) and
    the number explaining 90% of the variance (inertia; None when those components
    explain less)."""
    if categorical:
        from ..decomposition import FAMD

        model = FAMD(n_components=min(50, *np.shape(X)), categorical=categorical).fit(X)
    else:
        model = PCA(n_components=min(50, *np.shape(X)), random_state=seed).fit(X)
    cumulative = np.cumsum(_explained(model))
    return model, (int(np.searchsorted(cumulative, 0.9) + 1) if cumulative[-1] >= 0.9 else None)


def _explained(model):
    """The share of the variance (PCA) or inertia (FAMD) of each component."""
    ratio = getattr(model, "explained_variance_ratio_", None)
    return model.explained_inertia_ratio_ if ratio is None else ratio


def _scree_section(model, k90):
    from ..plot import scree_plot

    kind = type(model).__name__
    ratio = _explained(model)
    ax = scree_plot(ratio, n_chosen=k90, title=f"{kind} scree plot")
    what = "variance" if kind == "PCA" else "inertia (FAMD: numbers and categories together)"
    note = (
        f"{k90} components explain 90% of the {what}."
        if k90
        else f"the first {ratio.size} components explain {ratio.sum():.1%} of the {what}."
    )
    return (
        _html.figure(_html.figure_uri(ax.figure), "explained variance per component", narrow=True)
        + f'<p class="note">{note}</p>'
    )


def _embedding_section(results, labels, clustering=None, label_name="label", columns=None):
    """The interactive map of every embedding (linked hover and selection; ``columns``
    shown on hover and offered for colouring), with the static PNGs kept for printing."""
    from ..plot import embedding_scatter, explorer_fragment

    figures = []
    for r in results:
        ax = embedding_scatter(r.embedding, labels, title=r.name, label_name=label_name)
        figures.append(_html.figure(_html.figure_uri(ax.figure), f"{r.name} ({r.seconds:.1f} s)"))
    maps = {f"{r.name} ({r.seconds:.1f} s)": r.embedding for r in results}
    interactive = explorer_fragment(
        maps, labels, clusters=None if clustering is None else clustering.labels, label_name=label_name, columns=columns
    )
    return interactive + '<div class="grid print-only">' + "".join(figures) + "</div>"


def _metrics_section(results, n_neighbors):
    keys = [k for k in ("trustworthiness", "continuity", "knn_accuracy") if any(k in r.metrics for r in results)]
    rows = [
        [r.name] + [f"{r.metrics[k]:.4f}" if k in r.metrics else "" for k in keys] + [f"{r.seconds:.2f}"]
        for r in results
    ]
    n = results[0].embedding.shape[0] if results else 0
    sample = (
        "every point"
        if n <= MAX_QUERIES
        else f"a random sample of {MAX_QUERIES:,} query points, each ranked against all {n:,}"
    )
    note = (
        f'<p class="note">Trustworthiness and continuity with {n_neighbors} neighbours over {sample}; '
        "kNN accuracy: held-out 5-NN classifier in the embedding (20% test).</p>"
    )
    return (
        _html.table(["method"] + [k.replace("_", " ") for k in keys] + ["time (s)"], rows) + note + _qnx_figure(results)
    )


def _qnx_figure(results):
    """Q_NX(K) of every map against K: the share of each point's K nearest neighbours that
    stay among its K nearest, from local (left) to global (right)."""
    import matplotlib.pyplot as plt

    curves = [(r.name, r.qnx) for r in results if r.qnx is not None]
    if not curves:
        return ""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for name, qnx in curves:
        ax.plot(np.arange(1, qnx.size + 1), qnx, label=name)
    ax.set(xscale="log", xlabel="neighbourhood size K", ylabel="Q_NX(K)", ylim=(0, 1), title="Neighbourhoods kept")
    ax.legend()
    fig.tight_layout()
    caption = "share of each point's K nearest neighbours kept among its K nearest in the map"
    return _html.figure(_html.figure_uri(fig), caption, narrow=True)


def _sized(methods, n_samples, params):
    """Every method's parameters fitted to the number of rows, and the notes saying so."""
    params = dict(params or {})
    notes = []
    for name in methods:
        params[name], note = sized_params(name, n_samples, params.get(name))
        notes += [note] if note else []
    return params, notes


def build_report(
    X,
    labels=None,
    methods=("pca", "tsne", "umap"),
    *,
    source="data",
    seed=0,
    params=None,
    n_neighbors=10,
    progress=None,
    cluster=None,
    cluster_on=None,
    n_clusters=8,
    label_name="label",
    columns=None,
    metric_params=None,
    prepare=None,
):
    """Fit ``methods`` to 2-D, score them and return a self-contained HTML report.

    Parameters
    ----------
    X : array-like of shape (n, d)
    labels : array-like of shape (n,), optional
        Colours the embeddings and enables kNN accuracy.
    methods : sequence of str
        Registered method names (see ``lowdim.methods.EMBEDDINGS``).
    source : str
        Where the data came from (shown in the page).
    seed : int
    params : dict, optional
        ``{method: {param: value}}``.
    n_neighbors : int, default=10
    progress : callable, optional
        ``progress(estimator, name)``: a context manager around each fit (and
        ``progress(None, name)`` around each quality computation).
    cluster, cluster_on, n_clusters : optional
        A registered clustering ('hdbscan', 'leiden', 'kmeans', ...) shown on every
        embedding, run on the data or on the embedding of ``cluster_on``, with k for those
        that take it.
    label_name : str, default="label"
        What the labels are called in legends and the interactive map.
    columns : dict, optional
        ``{name: values}`` shown on hover in the interactive map and offered for colouring.
    metric_params : dict, optional
        For a mixed table (``lowdim.mixed_codes``): maps scored by Gower's distance, FAMD's
        scree plot; ``prepare(name, estimator)`` then sets each method to the table (False:
        the method cannot read it and is left out, with a note).
    prepare : callable, optional

    Returns
    -------
    Report

    Examples
    --------
    >>> from lowdim.datasets import load_builtin
    >>> X, y, _ = load_builtin("iris")
    >>> report = build_report(X, y, methods=["pca"], source="iris")
    >>> report.html.startswith("<!DOCTYPE html>"), round(report.results[0].metrics["trustworthiness"], 2)
    (True, 0.98)
    """
    X = np.asarray(X)
    params, notes = _sized(methods, X.shape[0], params)
    metric = None if metric_params is None else {"metric": "gower", "metric_params": metric_params}
    kw = {"seed": seed, "params": params, "n_neighbors": n_neighbors, "progress": progress, "prepare": prepare}
    results = _run_methods(methods, X, labels, notes, metric=metric, **kw)
    used = quality_neighbors(n_neighbors, X.shape[0])
    if used < n_neighbors:
        notes.append(f"quality: {used} neighbours instead of {n_neighbors} for {X.shape[0]} rows")
    clustering = None
    if cluster is not None:
        options = {"on": cluster_on, "seed": seed, "params": params, "n_clusters": n_clusters}
        clustering = run_clustering(cluster, X, results, progress=progress, prepare=prepare, **options)
    categorical = None if metric_params is None else list(metric_params.get("categorical", []))
    profile = variance_profile(X, seed, categorical)
    report = Report("", results, _summary(X, labels, source), *profile, clustering, notes)
    report.html = _page(report, [r.name for r in results], source, labels, used, label_name, columns)
    return report


def _run_methods(methods, X, labels, notes, **kw):
    """Every method that can read the table, fitted and scored (``run_method``'s
    keywords); one that cannot is left out with a note, and none is an error."""
    results = []
    for name in methods:
        result = run_method(name, X, labels, **kw)
        if result is None:
            notes.append(f"{name} left out: it compares numbers, and the table has category columns")
        else:
            results.append(result)
    if not results:
        raise ValueError(f"none of the methods ({', '.join(methods)}) can read this table; try famd, umap or tsne.")
    return results


def _page(report, methods, source, labels, n_neighbors, label_name, columns=None):
    """The report's HTML: its sections in reading order."""
    summary, clustering = report.summary, report.clusters
    sections = [
        ("Data", _data_table(summary)),
        ("Principal components", _scree_section(report.pca, report.k90)),
        ("Embeddings", _embedding_section(report.results, labels, clustering, label_name, columns)),
        ("Quality", _metrics_section(report.results, n_neighbors)),
    ]
    if clustering is not None:
        sections.append(("Clusters", _cluster_section(clustering, report.results, labels)))
    if report.notes:  # what the small table changed, where a reader looks for the settings
        sections.insert(1, ("Adapted to the data", _html.bullets(report.notes)))
    return _html.page(
        f"lowdim report: {source}",
        f"{summary['n_samples']} x {summary['n_features']}; methods: {', '.join(methods)}",
        sections,
    )
