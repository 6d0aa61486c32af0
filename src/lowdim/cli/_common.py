"""Options shared by every command that reads data, and loading the data they name."""

import os

import numpy as np


class UsageError(ValueError):
    """Bad input or usage: reported in one sentence with exit code 2."""


def add_data_arguments(parser):
    """Input, output and the common options of every data-reading command."""
    parser.add_argument("input", nargs="?", help="data file: .csv, .tsv or .npy")
    parser.add_argument("--dataset", choices=["digits", "iris", "wine", "breast_cancer"],
                        help="use a built-in dataset instead of INPUT")
    parser.add_argument("-o", "--output", help="where to write the result (CSV)")
    parser.add_argument("--label-column", help="CSV column (name or 1-based index) holding labels")
    parser.add_argument("--exclude", action="append", default=[],
                        help="CSV column (name or 1-based index) to ignore; repeatable")
    parser.add_argument("--header", choices=["auto", "yes", "no"], default="auto",
                        help="whether the CSV's first row is a header (auto: announced)")
    parser.add_argument("--delimiter", help="CSV field separator (default: ',' or tab for .tsv)")
    parser.add_argument("--standardize", action="store_true", help="scale features to unit variance")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--threads", type=int, help="BLAS/numba threads (default: all cores)")
    parser.add_argument("--overwrite", action="store_true", help="replace existing output files")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--json", action="store_true", help="print a machine-readable summary")


def _column_index(spec, names, path):
    if spec.isdigit():
        idx = int(spec) - 1
        if not 0 <= idx < len(names):
            raise UsageError(f"{path}: column {spec} does not exist (the file has {len(names)} columns).")
        return idx
    if spec not in names:
        raise UsageError(f"{path}: no column named {spec!r}; columns are {', '.join(names[:10])}.")
    return names.index(spec)


def _load_csv(args, say):
    from ..io._tables import read_csv

    names, rows, first_line = read_csv(args.input, header=args.header, delimiter=args.delimiter)
    width = len(rows[0])
    if names is None:
        if args.header == "auto":
            say(f"{args.input}: first row is numeric, read as data (no header); use --header yes if it is one.")
        names = [f"x{j + 1}" for j in range(width)]
    elif args.header == "auto":
        say(f"{args.input}: first row read as a header ({width} columns).")
    drop = {_column_index(s, names, args.input) for s in args.exclude}
    label_idx = None if args.label_column is None else _column_index(args.label_column, names, args.input)
    keep = [j for j in range(width) if j not in drop and j != label_idx]
    from ..io._tables import _parse_csv_rows

    labels = None
    if label_idx is not None:
        labels = np.array([row[label_idx] if label_idx < len(row) else "" for row in rows])
    body = [[row[j] for j in keep] if len(row) == width else row for row in rows]
    return _parse_csv_rows(args.input, body, first_line), [names[j] for j in keep], labels


def load_data(args, say):
    """``(X, feature_names, labels)`` from a built-in dataset, CSV or NPY file."""
    if args.dataset:
        from ..datasets import load_builtin

        X, y, names = load_builtin(args.dataset)
        return X, names, y
    if not args.input:
        raise UsageError("no input: pass a data file (CSV/TSV/NPY) or --dataset NAME.")
    if not os.path.exists(args.input):
        raise UsageError(f"{args.input}: no such file.")
    if args.input.endswith(".npy"):
        from ..io._tables import read_npy

        X = read_npy(args.input)
        return X, [f"x{j + 1}" for j in range(X.shape[1])], None
    if args.input.endswith((".csv", ".tsv", ".txt")):
        return _load_csv(args, say)
    raise UsageError(f"{args.input}: unknown file type; use .csv, .tsv or .npy.")


def check_outputs(args, *paths):
    """Refuse to overwrite existing files before any work is done."""
    for path in paths:
        if path and os.path.exists(path) and not args.overwrite:
            raise UsageError(f"{path} exists; pass --overwrite to replace it.")
        if path and os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
