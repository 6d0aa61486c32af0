"""``lowdim transform``: apply a saved model, with the preprocessing it carries, to new data."""

from .._messages import listed
from ._common import UsageError, add_data_arguments, check_outputs, emit_json, label_name, output_name, read_data
from ._pipeline import model_reading, recode_categories, select_columns

HELP = (
    "apply a saved model (from --save-model) to new data, with the scaling and PCA it was fitted with: a map's "
    "coordinates, or a clustering's labels (k-means, mixtures, HDBSCAN)"
)


def add_arguments(parser):
    parser.add_argument("model", help="model file written by --save-model")
    add_data_arguments(parser, needs_output=True)


def _refuse_refitting(args):
    """Options that would fit preprocessing again on the new data's own statistics."""
    if args.standardize:
        raise UsageError(
            "--standardize would rescale the new data by its own statistics; the model file carries the "
            "training data's scaling (and PCA) and applies them: drop --standardize."
        )
    if args.missing == "impute":
        raise UsageError(
            "--missing impute would fill gaps with the new data's own means, which the model was not fitted "
            "with; fill them beforehand or pass --missing drop."
        )


def _say_unseen(path, levels, categories, say):
    """Name, per column, the categories of the new file the model never saw (each is
    read as unlike every fitted one)."""
    for name, fitted in categories.items():
        known = set(fitted["levels"])
        new = [level for level in levels.get(name, ()) if level not in known]
        if new:
            say(
                f"{path}: column {name!r} holds {len(new)} categor{'y' if len(new) == 1 else 'ies'} the model never "
                f"saw ({listed(new, 5)}), each read as unlike every fitted one."
            )


def _read_labelled(args, label, say):
    """``(read_data's result, the args it was read with)``: the new data, its column
    named as the model's label column (``label``) read as the labels when it has one,
    as at training; an explicit --label-column wins."""
    from argparse import Namespace

    from ..exceptions import DataFileError

    if label is None or args.label_column is not None or args.dataset:
        return read_data(args, say), args
    labelled = Namespace(**{**vars(args), "label_column": label})
    try:
        return read_data(labelled, say), labelled
    except DataFileError:
        read = read_data(args, say)
        if label in read[1]:  # the label column is there: the failure was something else
            raise
    say(f"{args.input}: no column {label!r} (the model's label column); rows written without labels.")
    return read, args


def model_name(model):
    """The model as the user fitted it: a pipeline by its method and the steps before it
    (``UMAP after StandardScaler, PCA``), not as scikit-learn's ``Pipeline``.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from lowdim import PCA
    >>> model_name(make_pipeline(StandardScaler(), PCA(2))), model_name(PCA(2))
    ('PCA after StandardScaler', 'PCA')
    """
    steps = getattr(model, "steps", None)
    if not steps:
        return type(model).__name__
    before = [type(step).__name__ for _, step in steps[:-1]]
    return type(steps[-1][1]).__name__ + (f" after {', '.join(before)}" if before else "")


def _output_prefix(model):
    """Columns named as ``embed`` names them, by the method's registered name (pca1,
    kernel-pca1, ltsa1, ...): a pipeline's last step is saved under it (with '_' for
    '-'), a model saved alone is found by its class and fixed parameters; a model no name
    registers, by its step name or class."""
    from ..methods import canonical_name, method_name

    steps = getattr(model, "steps", None)
    if steps:
        return canonical_name(steps[-1][0])
    return method_name(model) or type(model).__name__.lower()


def _apply(model, X, path, name):
    """``(output, 'transform' or 'predict', its column names)`` of the model on ``X``: a
    clustering's labels (HDBSCAN's by ``approximate_predict``, as the hdbscan package
    places new points), a map's coordinates; a clustering with no rule for new rows is
    refused with the ones that have one."""
    from sklearn.base import is_clusterer

    method = model.steps[-1][1] if hasattr(model, "steps") else model
    if getattr(method, "training_points_", None) is not None:  # HDBSCAN fitted with prediction_data
        rows = model[:-1].transform(X) if hasattr(model, "steps") else X
        return method.approximate_predict(rows)[0][:, None], "predict", ["cluster"]
    if hasattr(model, "predict") and (is_clusterer(model) or not hasattr(model, "transform")):
        return model.predict(X)[:, None], "predict", ["cluster"]
    if hasattr(model, "transform"):
        out = model.transform(X)
        return out, "transform", [f"{_output_prefix(model)}{i + 1}" for i in range(out.shape[1])]
    if is_clusterer(method):
        raise UsageError(
            f"{path}: the {name} model has no rule for new rows (it labels the rows it was fitted on only); "
            "cluster the new rows with lowdim cluster, or fit kmeans, gmm or hdbscan, whose models label new rows."
        )
    raise UsageError(f"{path}: the {name} model cannot be applied to new data.")


def _write_h5ad(args, model, out, kind, labels, row_ids):
    """-o OUT.h5ad as ``embed`` and ``cluster`` write it: the map in ``obsm['X_<method>']``
    or the clusters in ``obs['<method>']``, in a copy of an .h5ad input (its content kept;
    a key it holds refused unless ``--overwrite-key``) or in a new AnnData of the rows."""
    import os

    from ._embed import check_result_h5ad, write_result_h5ad

    method = _output_prefix(model)
    key, what = (f"X_{method}", "embedding") if kind == "transform" else (method, "clusters")
    check_result_h5ad(args, key, what)
    values = out if kind == "transform" else out[:, 0]
    params = {"method": method, "model": os.path.basename(args.model)}
    write_result_h5ad(args, key, values, what, labels, row_ids, params=params)


def run(args, say):
    import os

    from ..io import load, saved_columns, write_table

    if os.path.isdir(args.model):
        raise UsageError(f"{args.model} is a folder, not a model file; pass the file --save-model wrote (.lowdim).")
    if not os.path.isfile(args.model):
        raise UsageError(f"{args.model}: no such model file; write one with --save-model.")
    _refuse_refitting(args)
    check_outputs(args, args.output, tables=[args.output])
    model = load(args.model)
    columns, categories, label = saved_columns(args.model, categories=True, label=True)
    reading = model_reading(args, categories) if categories and not args.dataset else args
    (raw, names, labels, row_ids, (kinds, levels, _)), reading = _read_labelled(reading, label, say)
    used = set(names if columns is None else columns)
    stray = [n for n, k in zip(names, kinds or ()) if k != "numeric" and n not in categories and n in used]
    if stray:
        raise UsageError(
            f"{args.input}: columns {', '.join(stray)} hold categories, but the model was fitted on numbers there; "
            "pass the columns the model was fitted on."
        )
    if categories:
        raw = recode_categories(raw, names, levels or {}, categories)
        _say_unseen(args.input, levels or {}, categories, say)
    X = select_columns(raw, names, columns, args.model)
    left_out = [n for n in names if n not in used]
    if left_out:  # taken by name, so a column of another table must not pass unseen
        say(f"{args.input}: {len(left_out)} column(s) the model was not fitted on left out ({listed(left_out, 8)}).")
    name = model_name(model)
    out, kind, columns = _apply(model, X, args.model, name)
    if args.output.lower().endswith(".h5ad"):
        _write_h5ad(reading, model, out, kind, labels, row_ids)
    else:
        write_table(
            args.output,
            out,
            columns,
            labels=labels,
            label_name=label_name(reading),
            row_ids=row_ids,
            overwrite=args.overwrite,
        )
    say(f"{name}: {kind} of {X.shape[0]} rows -> {output_name(args.output)}")
    emit_json(
        args,
        {
            "command": "transform",
            "model": name,
            "n_samples": X.shape[0],
            "n_outputs": out.shape[1],
            "output": args.output,
        },
    )
    return 0
