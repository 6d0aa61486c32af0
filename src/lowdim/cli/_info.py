"""``lowdim info``: what a data file holds and what each method would need."""

import numpy as np

from ._common import add_data_arguments, emit_json
from ._pipeline import load_data

HELP = "shape, types, missing values and the working memory each method would need"


def add_arguments(parser):
    add_data_arguments(parser, output=None)  # it prints; --json is its machine-readable form


def _size(nbytes):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if nbytes < 1024 or unit == "TB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024


def column_kinds(data):
    """The columns by kind: ``{'numeric': [...], 'categorical': [...], 'ordinal': [...],
    'date': [...]}`` (dates are numbers of days, listed apart)."""
    kinds = data.kinds if data.kinds and not data.steps else ["numeric"] * len(data.names)  # --pca: scores
    found = {kind: [] for kind in ("numeric", "categorical", "ordinal", "date")}
    for name, kind in zip(data.names, kinds):
        found["date" if name in data.dates else kind].append(name)
    return found


def _columns_text(found):
    """'6 columns: 3 of numbers, 2 of categories (city, member), 1 of dates (joined)'."""
    total = sum(len(names) for names in found.values())
    if total == len(found["numeric"]):
        return f"{total} numeric columns"
    what = {"numeric": "numbers", "categorical": "categories", "ordinal": "ordered categories", "date": "dates"}
    parts = [
        f"{len(names)} of {what[kind]}" + ("" if kind == "numeric" else f" ({', '.join(names[:5])})")
        for kind, names in found.items()
        if names
    ]
    return f"{total} columns: {', '.join(parts)}"


def _refusing(found):
    """The registry's methods that refuse some columns of a table with categories, and
    which (none for a table of numbers).

    Examples
    --------
    >>> table = {"numeric": ["mass"], "categorical": ["island"], "ordinal": [], "date": []}
    >>> refusing = _refusing(table)
    >>> refusing["pca"], refusing["kmodes"], "umap" in refusing
    ('numbers: refuses the category columns', 'categories: refuses the number columns', False)
    """
    from ..methods import CLUSTERINGS, EMBEDDINGS
    from ._fitting import takes_table

    if not (found["categorical"] or found["ordinal"]):
        return {}
    numbers = bool(found["numeric"] or found["date"])
    return {
        name: "categories: refuses the number columns"
        if method.columns == "categorical"
        else "numbers: refuses the category columns"
        for name, method in {**EMBEDDINGS, **CLUSTERINGS}.items()
        if not takes_table(method, numbers)
    }


def run(args, say):
    from .._memory import available_bytes
    from ..methods import CLUSTERINGS, EMBEDDINGS, memory_estimate

    if args.missing == "error":
        args.missing = "keep"  # info reports missing values instead of refusing them
    data = load_data(args, say)
    X, names, labels = data.X, data.names, data.labels
    X = np.asarray(X)
    holes = np.isnan(X).sum(axis=0) if X.dtype.kind == "f" else np.zeros(X.shape[1], int)
    n, d = X.shape
    avail = available_bytes()
    estimates = {name: memory_estimate(name, n, d, itemsize=X.dtype.itemsize) for name in {**EMBEDDINGS, **CLUSTERINGS}}
    found = column_kinds(data)
    refusing = _refusing(found)
    if not (args.quiet or args.json):
        print(f"{n} rows x {_columns_text(found)}, dtype {X.dtype}, {_size(X.nbytes)} in memory")
        print(
            f"missing values: {int(holes.sum())}"
            + (
                " (" + ", ".join(f"{names[j]}: {holes[j]}" for j in np.flatnonzero(holes)[:8]) + ")"
                if holes.any()
                else ""
            )
        )
        if labels is not None:
            classes, counts = np.unique(labels, return_counts=True)
            print(
                f"labels: {classes.size} classes ("
                + ", ".join(f"{c}: {k}" for c, k in zip(classes[:10], counts[:10]))
                + (", ..." if classes.size > 10 else "")
                + ")"
            )
        print(f"working memory per method beyond the data (available: {_size(avail)}):")
        for name, need in estimates.items():
            flag = "" if need < 0.8 * avail else "  <- exceeds available memory"
            flag += f"  (reads {refusing[name]})" if name in refusing else ""
            print(f"  {name:<18} {_size(need):>10}{flag}")
    emit_json(
        args,
        {
            "command": "info",
            "n_samples": n,
            "n_features": d,
            "dtype": str(X.dtype),
            "missing": int(holes.sum()),
            "missing_per_column": {names[j]: int(holes[j]) for j in np.flatnonzero(holes)},
            "n_classes": None if labels is None else int(np.unique(labels).size),
            "columns": column_kinds(data),
            "memory_bytes": estimates,
            "refuse_categories": refusing,
            "available_bytes": avail,
        },
    )
    return 0
