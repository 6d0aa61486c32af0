"""A sweep over one setting of a neighbour method: one neighbour graph for every map,
and (optionally, for the neighbour embeddings) each map warm-started from the one before."""

import numpy as np
from sklearn.base import clone

from ..neighbors import resolve_metric
from ._affinities import kernel_neighbors
from ._base import shared_rows
from ._gradients import choose_repulsion
from ._pacmap_pairs import EXTRA_NEIGHBORS
from ._umap_layout import default_epochs

WARM_UMAP_EPOCHS = 10  # a warm map runs 1/10 of UMAP's epochs ...
WARM_UMAP_RATE = 4  # ... at 1/4 of its learning rate (transform's gentler schedule)
WARM_TSNE_ITERATIONS = 15  # and 1/15 of t-SNE's main phase, without early exaggeration
WARM_METHODS = ("UMAP", "TSNE", "SNE")


def graph_width(estimator, n_samples):
    """Neighbour columns a fit of ``estimator`` on ``n_samples`` rows reads from a
    ``precomputed_knn`` graph (the point itself not counted).

    Parameters
    ----------
    estimator : UMAP, TSNE, SNE, PaCMAP, Isomap, SpectralEmbedding or LocallyLinearEmbedding
    n_samples : int

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an estimator whose width depends on what it finds in the data (HDBSCAN, or
        n_neighbors=None): build the graph and pass it to ``sweep``.

    Examples
    --------
    >>> from lowdim import TSNE, UMAP
    >>> graph_width(UMAP(n_neighbors=15), 5000), graph_width(TSNE(perplexity=30), 5000)
    (14, 91)
    """
    name, p = type(estimator).__name__, estimator.get_params()
    largest = n_samples - 1
    if name == "UMAP":
        return min(largest, p["n_neighbors"] - 1)
    if name in ("TSNE", "SNE"):
        kernel = p.get("affinity", "perplexity")
        repulsion = choose_repulsion(p["method"], n_samples, p["n_components"], p["angle"]) if name == "TSNE" else None
        if repulsion is not None and repulsion.name == "exact" and kernel != "uniform":  # every other point
            return largest
        perplexity = p["perplexity"]
        if kernel == "multiscale":
            perplexity = p["perplexities"] or (perplexity, 10 * perplexity)
        return kernel_neighbors(perplexity, kernel, n_samples)
    if name == "PaCMAP" and p["n_neighbors"] is not None:
        return min(largest, p["n_neighbors"] + EXTRA_NEIGHBORS)
    if name in ("Isomap", "LocallyLinearEmbedding") and p.get("n_neighbors"):
        return min(largest, p["n_neighbors"])
    if name == "SpectralEmbedding" and p.get("n_neighbors"):
        return min(largest, p["n_neighbors"] - 1)
    given = f" with n_neighbors={p['n_neighbors']!r}" if "n_neighbors" in p else ""
    raise ValueError(
        f"sweep cannot tell how many neighbours {name}{given} reads; build the graph yourself with as many as "
        "the widest setting needs (lowdim.NeighborGraph.build(X, k)) and pass graph=."
    )


def _graph_metric(estimator):
    """(metric, metric parameters) of the neighbours ``estimator`` reads."""
    p = estimator.get_params()
    if type(estimator).__name__ == "PaCMAP":  # its own searches' metrics ('angular': unit rows)
        metric = {"euclidean": "euclidean", "gower": "gower"}.get(p["distance"], "cosine")
        return metric, p["metric_params"] if metric == "gower" else None
    metric = p.get("metric", "euclidean")
    if metric == "precomputed":
        raise ValueError(
            "sweep builds its graph from rows, not from a distance matrix: pass "
            "graph=lowdim.NeighborGraph.from_distances(D, k) and the estimator with its default metric, "
            "or fit each setting with metric='precomputed'."
        )
    return resolve_metric(metric, p.get("p", 2), p.get("metric_params") or p.get("metric_kwds"))


def _warm(estimator, previous, n_samples):
    """``estimator`` set to continue from the map ``previous`` on a short schedule."""
    if type(estimator).__name__ == "UMAP":
        epochs = estimator.n_epochs or default_epochs(n_samples)
        return estimator.set_params(
            init=previous,
            n_epochs=max(10, epochs // WARM_UMAP_EPOCHS),
            learning_rate=estimator.learning_rate / WARM_UMAP_RATE,
        )
    main_phase = max(estimator.max_iter - estimator.early_exaggeration_iter, 1)
    return estimator.set_params(
        init=previous, early_exaggeration_iter=0, max_iter=max(25, main_phase // WARM_TSNE_ITERATIONS)
    )


def sweep(estimator, param, values, X, *, graph=None, warm_start=False, verbose=0):
    """Fit ``estimator`` once for every value of ``param``, all from one neighbour graph.

    The graph is built once, as wide as the widest setting needs, and each fit reads
    its first columns: the maps equal fits from graphs of their own width.

    With ``warm_start=True`` (UMAP, TSNE, SNE), every map after the first starts from
    the one before it and runs a short schedule: UMAP a tenth of its epochs at a
    quarter of its learning rate, t-SNE and SNE a fifteenth of the main phase without
    early exaggeration. The maps then keep the previous map's orientation and
    arrangement (they can be read side by side) and cost a fraction of a fit, but are
    no longer independent fits: a first map in pieces (a graph that falls apart at a
    small n_neighbors) hands its pieces on. Order ``values`` as the maps should follow
    one another; starting from a connected map is safest.

    Parameters
    ----------
    estimator : UMAP, TSNE, SNE, PaCMAP, Isomap, SpectralEmbedding, LocallyLinearEmbedding or HDBSCAN
        The template (left unfitted); each value fits a clone of it.
    param : str
        The parameter swept, e.g. 'n_neighbors', 'perplexity' or 'min_dist'.
    values : sequence
    X : array-like of shape (n_samples, n_features)
    graph : NeighborGraph or (indices, distances), optional
        Built from ``X`` with the estimator's metric when not given (HDBSCAN, and
        estimators left to choose their own number of neighbours, need it given).
    warm_start : bool, default=False
        Continue each map from the previous one (UMAP, TSNE and SNE); False: each map
        is an independent fit from the shared graph.
    verbose : int, default=0
        Passed to the graph build and to every fit.

    Returns
    -------
    list of fitted estimators, in the order of ``values``

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from lowdim import UMAP
    >>> X = load_digits().data[:500]
    >>> maps = sweep(UMAP(random_state=0), "n_neighbors", [5, 15, 30], X)
    >>> [m.embedding_.shape for m in maps]
    [(500, 2), (500, 2), (500, 2)]
    """
    from ..neighbors import NeighborGraph

    values, name = list(values), type(estimator).__name__
    if not values:
        raise ValueError("sweep needs at least one value; got an empty sequence.")
    if param not in estimator.get_params():
        raise ValueError(f"{name} has no parameter {param!r}; its parameters: {sorted(estimator.get_params())}.")
    if "precomputed_knn" not in estimator.get_params():
        raise ValueError(f"{name} cannot be fitted from a neighbour graph; sweep works with neighbour methods.")
    warm = bool(warm_start)
    if warm and name not in WARM_METHODS:
        raise ValueError(
            f"warm_start=True continues an iterative layout, which {name} has not; use warm_start=False "
            f"(warm starts work for {', '.join(WARM_METHODS)})."
        )
    if isinstance(X, np.ndarray):  # one read-only copy that every fit keeps, not one each
        X = shared_rows(X)
    shown = {"verbose": verbose} if "verbose" in estimator.get_params() else {}
    templates = [clone(estimator).set_params(**{param: v}, **shown) for v in values]
    if graph is None:
        width = max(graph_width(t, len(X)) for t in templates)
        metric, metric_params = _graph_metric(estimator)
        rows = X
        if metric == "gower":  # a table of categories: coded as each fit codes it
            coder = clone(estimator)
            rows = coder._gower_numbers(X, reset=True)
            metric_params = coder._distance_params()
        graph = NeighborGraph.build(rows, width, metric=metric, metric_params=metric_params, verbose=verbose)
    fitted = []
    for template in templates:
        template.set_params(precomputed_knn=graph)
        if warm and fitted:
            _warm(template, fitted[-1].embedding_, len(X))
        fitted.append(template.fit(X))
    return fitted
