"""Fitting an estimator from the command line: the memory check before any work, the
estimator's progress shown, supervised labels and missing values checked."""

import threading
import time
from contextlib import contextmanager

import numpy as np

from ._common import UsageError


def build(method_name, args, table):
    """The estimator for ``method_name`` with --param, -k and --seed applied."""
    from ..methods import make_estimator, parse_params

    return make_estimator(
        method_name, n_components=args.n_components, params=parse_params(args.param), seed=args.seed, table=table
    )


def use_gower(name, estimator, kinds, names, say=None):
    """Fit ``estimator`` to a table's column ``kinds``: a neighbour method compares rows
    by Gower's distance when some columns hold categories (announced), FAMD is told which
    columns are categories, MCA refuses numeric columns; a method that needs numbers is
    refused, naming the category columns.

    Parameters
    ----------
    name : str
        The method's CLI name.
    estimator : estimator
    kinds : list of str or None
        'numeric', 'categorical' or 'ordinal' per column (None: all numeric).
    names : list of str
        The column names.
    say : callable, optional

    Returns
    -------
    bool
        Whether the method now takes the table's gaps itself (Gower's distance, FAMD, MCA).

    Examples
    --------
    >>> from lowdim import UMAP
    >>> umap = UMAP()
    >>> use_gower("umap", umap, ["categorical", "numeric"], ["island", "mass"]), umap.metric
    (True, 'gower')
    """
    from ..methods import lookup

    reads = lookup(name).columns
    kinds = kinds or ["numeric"] * len(names)
    categories = [j for j, k in enumerate(kinds) if k != "numeric"]
    if reads == "categorical":
        numbers = [names[j] for j, k in enumerate(kinds) if k == "numeric"]
        if numbers:
            raise UsageError(
                f"{name} reads categories, but columns {', '.join(numbers[:5])} hold numbers; use famd for a mixed "
                "table, --categorical COLUMN if the numbers are codes, or drop them with --exclude."
            )
        return True
    if reads == "mixed":
        estimator.set_params(categorical=categories)
        return True
    if not categories:
        return False
    return _set_gower(name, estimator, kinds, [names[j] for j in categories], say)


def _gower_keys(estimator):
    """``(metric, metric-parameters)`` parameter names of an estimator that can compare
    rows by Gower's distance (its metric's constraints admit 'gower'), or None."""
    from .._estimator import metric_parameter

    params = estimator.get_params()
    key = "metric_kwds" if "metric_kwds" in params else "metric_params"
    metric = metric_parameter(params)
    if metric not in params or key not in params:
        return None
    constraints = getattr(type(estimator), "_parameter_constraints", {}).get(metric, [])
    return (metric, key) if any(c.accepts("gower") for c in constraints) else None


def _mixed_alternatives(name, numbers):
    """The registry's methods of ``name``'s kind (embedding or clustering) that take the
    table: those that read numbers and categories (or, when it has no ``numbers``,
    categories only), and those that compare rows by Gower's distance."""
    from ..methods import CLUSTERINGS, EMBEDDINGS

    table = CLUSTERINGS if name in CLUSTERINGS else EMBEDDINGS
    reading = [other for other, method in table.items() if reads_table(method, numbers)]
    gower, classes = [], set()
    for other, method in table.items():  # one name per class (not each LLE variant)
        if method.path not in classes and takes_table(method, numbers) and not reads_table(method, numbers):
            gower.append(other)
        classes.add(method.path)
    return reading, gower


def reads_table(method, numbers):
    """Whether a registry method reads a table with category columns itself (FAMD,
    k-prototypes; MCA and k-modes only without ``numbers``)."""
    return method.columns in (("mixed",) if numbers else ("mixed", "categorical"))


def takes_table(method, numbers):
    """Whether a registry method takes a table with category columns (and, with
    ``numbers``, number columns too): it reads one, or compares rows by Gower's distance.

    Examples
    --------
    >>> from lowdim.methods import CLUSTERINGS, EMBEDDINGS
    >>> [takes_table(m, True) for m in (EMBEDDINGS["umap"], EMBEDDINGS["pca"], CLUSTERINGS["kprototypes"])]
    [True, False, True]
    """
    return reads_table(method, numbers) or (method.columns == "numeric" and _gower_keys(method.cls()) is not None)


def _set_gower(name, estimator, kinds, columns, say):
    """Set a neighbour method to Gower's distance over ``kinds``, or refuse one that compares numbers."""
    params = estimator.get_params()
    keys = _gower_keys(estimator)
    if keys is None or params[keys[0]] not in ("euclidean", "minkowski", "gower"):
        fix = "drop them with --exclude" + ("" if keys is None else f" or leave --param {keys[0]} unset")
        reading, gower = _mixed_alternatives(name, "numeric" in kinds)
        raise UsageError(
            f"{name} compares numbers, but {len(columns)} column(s) hold categories ({', '.join(columns[:5])}); "
            f"use {' or '.join(reading)}, or a method that works from distances between rows ({', '.join(gower)}: "
            f"Gower's distance for mixed tables), or {fix}; a column of class labels is named with --label-column "
            f"({columns[-1]}?)."
        )
    metric, key = keys
    from ..preprocessing import gower_params

    estimator.set_params(**{metric: "gower", key: gower_params(kinds)})
    ward = params.get("linkage") == "ward"  # Ward's linkage needs Euclidean distances: R's hclust of daisy's
    if ward:
        estimator.set_params(linkage="average")
    if say is not None:
        say(
            f"{name}: rows compared by Gower's distance (numbers over their range, categories equal or not, "
            f"gaps skipped pair by pair), as {len(columns)} column(s) hold categories ({', '.join(columns[:5])}; "
            "class labels among them are named with --label-column)"
            + ("; average linkage, as Ward's needs Euclidean distances (--param linkage=complete or single "
               "for another)" if ward else "")
        )  # fmt: skip
    return True


def fit_method(
    name, method, estimator, X, labels, args, *, output="transform", columns=(None, ()), say=None, options=("-k N", "")
):
    """Fit with a progress bar; supervised methods get the labels; a table with
    category columns (``columns``: their kinds and names) is compared by Gower's
    distance (``use_gower``). ``options``: how this command sets the method's size and
    parameters, for the fix a refusal names (``cli_options``).

    Returns ``(output, seconds)``: the embedding, or the cluster labels with
    ``output='labels'``."""
    from ..methods import fit_labels, fit_supervised

    if method.supervised and labels is None:
        raise UsageError(f"{name} is supervised: name the label column with --label-column.")
    gower = use_gower(name, estimator, *columns, say)
    if not (method.missing_ok or gower) and np.asarray(X).dtype.kind == "f" and np.isnan(X).any():
        raise UsageError(f"{name} cannot use missing values; pass --missing drop or impute.")
    params = estimator.get_params()
    check_memory(name, X, params.get(method.size) or 2, params)
    start = time.perf_counter()
    with progress(estimator, args, name), _options_named(estimator, method, options):
        if output == "labels":
            out = fit_labels(estimator, X)
        elif method.supervised:
            out = fit_supervised(estimator, X, labels)
        else:
            out = estimator.fit_transform(X)
    return out, time.perf_counter() - start


@contextmanager
def _options_named(estimator, method, options):
    """An estimator's refusal names the parameter to change ("lower perplexity"); on the
    command line that is ``-k`` or ``--param NAME=VALUE``, said after the message."""
    try:
        yield
    except ValueError as exc:
        named = cli_options(str(exc), estimator.get_params(), method.size, *options)
        if not named:
            raise
        raise UsageError(f"{exc} On the command line: {', '.join(named)}.") from exc


def cli_options(message, params, size, size_option="-k N", prefix=""):
    """The command-line options that set the parameters ``message`` asks to change:
    ``size_option`` for the method's size (None where no option helps),
    ``--param {prefix}NAME=VALUE`` for the others (a prefix of None: the command sets
    none of them).

    Examples
    --------
    >>> cli_options("perplexity (30) is too large; lower perplexity.", {"perplexity": 30.0}, "n_components")
    ['--param perplexity=VALUE']
    >>> cli_options("n_components=3 > 2 features; lower n_components.", {"n_components": 3}, "n_components")
    ['-k N']
    >>> cli_options("lower perplexity or n_components.", {"perplexity": 30.0}, "n_components", None, "tsne.")
    ['--param tsne.perplexity=VALUE']
    """
    import re

    asked = re.findall(r"\b(?:lower|raise|increase|decrease|reduce|set|pass)\s+(?:the\s+)?(\w+)", message)
    named = [name for name in dict.fromkeys(asked) if name in params]
    sized = [size_option] if size in named and size_option is not None else []
    others = [] if prefix is None else [f"--param {prefix}{name}=VALUE" for name in named if name != size]
    return sized + others


def check_memory(name, X, n_components, params, table=None):
    """Before a fit: refuse, with the estimate and the fix, a method whose working
    memory (``methods.memory_estimate``) exceeds 80 % of what is available."""
    from .._memory import require_memory
    from .._memory_models import fix_for
    from ..methods import lookup, memory_estimate

    n, d = X.shape
    if n_components > max(n, d):
        # The estimator names its own limit in fit; a memory estimate for an absurd
        # size would hide that behind a size no machine has.
        raise UsageError(f"-k {n_components} is more than {name} can make of {n} x {d} data; lower -k.")
    need = memory_estimate(name, n, d, n_components, params, np.dtype(X.dtype).itemsize, table)
    require_memory(need, f"{name} on {n} x {d}", fix_for(lookup(name, table).memory))


@contextmanager
def progress(estimator, args, description):
    """A tqdm bar while ``estimator`` fits: the estimator's own bars, stage by stage
    (estimators that declare ``_stage_bars``: UMAP, t-SNE, SNE, KMeans), else per iteration where the estimator reports
    them (callbacks), else (and for ``estimator=None``, any other work) a ticking
    elapsed-time bar."""
    from .._progress import progress_bar

    quiet = args.quiet or args.json
    if estimator is None:
        with _ticking(description, disable=quiet):
            yield
        return
    params = estimator.get_params()
    name = type(estimator).__name__
    if getattr(estimator, "_stage_bars", False) and not quiet:  # their own bars, stage by stage
        estimator.set_params(verbose=params["verbose"] or (True if name == "UMAP" else 1))
        try:
            yield
        finally:
            estimator.set_params(verbose=params["verbose"])
        return
    if "callbacks" in params and not quiet:
        total = params.get("max_iter") or None
        with progress_bar(total=total, desc=description, unit="it", leave=False, mininterval=0.5) as bar:

            def tick(iteration, *_):
                bar.update(max(0, min(iteration, total or iteration) - bar.n))

            estimator.set_params(callbacks=[*(params["callbacks"] or []), tick])
            try:
                yield
            finally:  # the bar's callback is not part of the model (and cannot be saved)
                estimator.set_params(callbacks=params["callbacks"])
        return
    with _ticking(description, disable=quiet):
        yield


@contextmanager
def _ticking(description, *, disable):
    from .._progress import progress_bar

    bar = progress_bar(desc=description, bar_format="{desc}: {elapsed}", disable=disable, leave=False)
    done = threading.Event()

    def tick():
        while not done.wait(0.5):
            bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    with bar:  # its exit says done, or nothing when the work stopped on an error
        try:
            yield
        finally:
            done.set()
            thread.join()
