"""What the commands do to a table before a method sees it (--standardize, --pca K), kept
as fitted steps: ``--save-model`` writes them into the model file with the method and
the input's column names, and ``lowdim transform`` applies them to new data."""

import time
from dataclasses import dataclass, field

import numpy as np

from .._messages import listed
from ._common import UsageError, read_data


@dataclass
class LoadedData:
    """A table ready for a method: ``X`` after the preprocessing ``steps`` (``(name,
    fitted estimator)`` pairs), the table's own ``columns`` before them, and the
    ``names`` of X's columns."""

    X: object
    names: list
    labels: object
    row_ids: object
    columns: list
    steps: list = field(default_factory=list)
    kinds: object = None
    levels: dict = field(default_factory=dict)
    dates: list = field(default_factory=list)


DOMINANT_SHARE = 0.99  # one column's share of the total variance past which the others barely count
SAMPLE_ROWS = 100_000


def load_data(args, say):
    """A built-in dataset or a data file (transposed first with --transpose), then
    standardised with --standardize, or with --pca the principal-component scores."""
    X, names, labels, row_ids, (kinds, levels, dates) = read_data(args, say)
    Z, out_names, steps = prepare_data(X, names, args, say, kinds)
    return LoadedData(Z, out_names, labels, row_ids, list(names), steps, kinds, levels or {}, list(dates))


def prepare_data(X, names, args, say, kinds=None):
    """``(X, names, steps)`` after --standardize, or the principal-component scores with
    --pca; neither applies to category columns (``kinds``), which are refused by name."""
    if (getattr(args, "pca", None) or args.standardize) and kinds and any(k != "numeric" for k in kinds):
        columns = ", ".join(n for n, k in zip(names, kinds) if k != "numeric")
        option = "--pca" if getattr(args, "pca", None) else "--standardize"
        raise UsageError(
            f"{option} works on numbers, but columns {columns} hold categories; leave {option} out (a neighbour "
            "method then compares rows by Gower's distance, which scales each column by its range) or drop "
            "those columns with --exclude."
        )
    if getattr(args, "pca", None):
        pca = fitted_pca(X, args, say)
        return pca.transform(X), [f"PC{j + 1}" for j in range(args.pca)], [("reduce", pca)]
    if args.standardize:
        scaler = _fitted_scaler(X, names)
        return scaler.transform(X), names, [("standardize", scaler)]
    if not kinds or all(k == "numeric" for k in kinds):  # Gower's distance scales each column itself
        _say_one_column_dominates(X, names, say)
    return X, names, []


def _say_one_column_dominates(X, names, say):
    """Say when one column holds nearly all the rows' variance (incomes beside ages and
    scores): distances, components and clusters then follow it alone, which the user
    who did not mean it learns only from the picture."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.shape[1] < 2 or X.shape[0] < 2:
        return
    import warnings

    with warnings.catch_warnings(), np.errstate(invalid="ignore", over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a column of gaps only: no variance, left out
        # the first rows tell it (a memory map is not read whole)
        variances = np.nanvar(np.asarray(X[:SAMPLE_ROWS], dtype=np.float64), axis=0)
    total = float(np.nansum(variances))
    if not np.isfinite(total) or total <= 0:
        return
    j = int(np.nanargmax(variances))
    if variances[j] > DOMINANT_SHARE * total:
        others = float(np.nanmedian(np.delete(variances, j)))
        say(
            f"column {names[j]!r} holds {100 * variances[j] / total:.2f} % of the rows' variance (sd "
            f"{np.sqrt(variances[j]):.3g}, the other columns' median sd {np.sqrt(others):.3g}): distances, "
            "components and clusters follow it alone; --standardize gives every column the same weight."
        )


def _fitted_scaler(X, names):
    import warnings

    from ..preprocessing import StandardScaler

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant columns are refused below, by name
        scaler = StandardScaler().fit(X)
    constant = np.flatnonzero(scaler.var_ == 0)
    if constant.size:
        listed = ", ".join(names[j] for j in constant[:5])
        raise UsageError(
            f"--standardize: {constant.size} constant column(s) ({listed}) cannot be scaled; drop them with --exclude."
        )
    return scaler


def fitted_pca(X, args, say):
    """--pca K: exact PCA fitted in row blocks (a memory map is read once to fit, once
    to project; memory holds one block and the scores)."""
    from ..decomposition import PCA

    k = args.pca
    if not 1 <= k < X.shape[1]:
        raise UsageError(f"--pca {k} must be between 1 and the number of features minus one ({X.shape[1] - 1}).")
    start = time.perf_counter()
    quiet = args.quiet or args.json
    pca = PCA(k, solver="covariance", standardize=args.standardize, verbose=int(not quiet)).fit(X)
    mapped = " (memory-mapped, one pass to fit)" if isinstance(X, np.memmap) else ""
    say(
        f"PCA: {X.shape[0]} x {X.shape[1]} -> {k} components{mapped} keeping "
        f"{100 * pca.explained_variance_ratio_.sum():.1f}% of the variance, {time.perf_counter() - start:.1f} s"
    )
    return pca


def save_model(args, data, *named, say):
    """Write ``--save-model``: the method alone, or a pipeline of the preprocessing
    steps and the fitted ``named`` ``(name, estimator)`` pairs, with the input's column
    names (``lowdim transform`` picks a new table's columns by them) and its label
    column (carried into the output of ``lowdim transform``)."""
    from sklearn.pipeline import Pipeline

    from ..io import save

    steps = list(data.steps) + [(name.replace("-", "_"), est) for name, est in named]
    model = Pipeline(steps) if len(steps) > 1 else steps[0][1]
    categories = {
        name: {"levels": list(data.levels[name]), "ordered": kind == "ordinal"}
        for name, kind in zip(data.columns, data.kinds or ())
        if kind != "numeric"
    }  # a new file's categories are coded by these levels, not by its own
    label = getattr(args, "label_column", None) if data.labels is not None else None
    save(
        model,
        args.save_model,
        overwrite=args.overwrite,
        columns=data.columns,
        categories=categories or None,
        label_column=label,
    )
    shown = " -> ".join(name for name, _ in steps)
    say(f"wrote {args.save_model} ({shown}, {len(data.columns)} input columns)")


def recode_categories(X, names, levels, categories):
    """A new table's category columns coded by a model's levels (``categories``, as
    ``saved_columns(..., categories=True)`` gives them) instead of the table's own
    (``levels``: its categories in code order): a category the model never saw gets a
    code of its own, equal to none of the model's."""
    from ..preprocessing import code_categories

    X = np.array(X, dtype=np.float64)
    for j, name in enumerate(names):
        if name not in categories or categories[name]["ordered"]:  # ranks follow the model's order already
            continue
        own = np.array([*levels.get(name, []), None], dtype=object)
        codes = X[:, j]
        cells = own[np.where(np.isnan(codes), own.size - 1, codes).astype(np.int64)]
        X[:, j] = code_categories(cells, name, known=categories[name]["levels"])[0]
    return X


def model_reading(args, categories):
    """``args`` with the model's category columns read as categories (its ordered ones
    in its order), whatever the new file's cells look like."""
    from argparse import Namespace

    unordered = [n for n, c in categories.items() if not c["ordered"]]
    ordered = {n: c["levels"] for n, c in categories.items() if c["ordered"]}
    return Namespace(
        **{**vars(args), "categorical": [*(getattr(args, "categorical", None) or []), *unordered], "ordinal": ordered}
    )


def _obsm_hint(columns):
    """The --obsm a model fitted on an .h5ad's stored embedding reads (its columns are named
    ``KEY_1 .. KEY_k``, as ``read_table`` names them), or ''.

    Examples
    --------
    >>> _obsm_hint(["X_pca_1", "X_pca_2"]), _obsm_hint(["a", "b"])
    (" (an .h5ad's obsm['X_pca']: pass --obsm X_pca)", '')
    """
    key = str(columns[0]).rpartition("_")[0]
    if not key or [f"{key}_{j + 1}" for j in range(len(columns))] != list(columns):
        return ""
    return f" (an .h5ad's obsm[{key!r}]: pass --obsm {key})"


def _near_names(missing, names, columns):
    """The table's columns that look like the missing ones (another case, spaces for
    underscores, a typo), as a clause of the message; '' when none does.

    Examples
    --------
    >>> _near_names(["alcohol"], ["Alcohol", "hue"], ["alcohol", "hue"])
    "; the table has 'Alcohol'"
    """
    import difflib

    taken = set(columns)
    free = [n for n in names if n not in taken]
    simple = {str(n).lower().replace(" ", "_"): n for n in free}
    near = []
    for name in missing:
        key = str(name).lower().replace(" ", "_")
        close = [key] if key in simple else difflib.get_close_matches(key, list(simple), n=1, cutoff=0.8)
        near += [repr(simple[close[0]])] if close else []
    if not near:
        return ""
    return "; the table has " + (" and ".join(near) if len(near) < 3 else ", ".join(near[:8]))


def select_columns(X, names, columns, model_path):
    """The columns of a new table the model was fitted on, in the model's order (by
    name; other columns, such as a label column, are left out)."""
    if columns is None:  # a model saved without its column names: take the table as it is
        return X
    where = {name: j for j, name in enumerate(names)}
    missing = [c for c in columns if c not in where]
    if missing:
        shown = listed(missing, 8)
        raise UsageError(
            f"{model_path} was fitted on columns this table lacks ({shown}){_near_names(missing, names, columns)}; "
            f"the model takes {len(columns)} columns named as in its training data{_obsm_hint(columns)}."
        )
    order = [where[c] for c in columns]
    return X if order == list(range(X.shape[1])) else np.asarray(X)[:, order]
