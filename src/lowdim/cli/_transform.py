"""``lowdim transform``: apply a saved model to new data."""

from ._common import UsageError, add_data_arguments, check_outputs, emit_json, label_name, load_data

HELP = "apply a saved model (from --save-model) to new data"


def add_arguments(parser):
    parser.add_argument("model", help="model file written by --save-model")
    add_data_arguments(parser, needs_output=True)


def run(args, say):
    import os

    from ..io import load, write_table

    if not os.path.isfile(args.model):
        raise UsageError(f"{args.model}: no such model file; write one with --save-model.")
    check_outputs(args, args.output, tables=[args.output])
    model = load(args.model)
    X, _, labels, row_ids = load_data(args, say)
    name = type(model).__name__
    if hasattr(model, "transform"):
        out, kind = model.transform(X), "transform"
    elif hasattr(model, "predict"):
        out, kind = model.predict(X)[:, None], "predict"
    else:
        raise UsageError(f"{args.model}: a {name} model cannot be applied to new data.")
    columns = [f"z{i + 1}" for i in range(out.shape[1])] if kind == "transform" else ["cluster"]
    write_table(
        args.output, out, columns, labels=labels, label_name=label_name(args), row_ids=row_ids, overwrite=args.overwrite
    )
    say(f"{name}.{kind} of {X.shape[0]} rows -> {args.output}")
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
