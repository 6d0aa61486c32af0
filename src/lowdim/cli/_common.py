"""Options shared by every command that reads data, loading what they name, progress
and the JSON summary."""

import argparse
import json
import os
from importlib import import_module

import numpy as np

from .._messages import listed

DATASETS = ("digits", "iris", "wine", "breast_cancer", "fashion-mnist", "uk-food", "orl-faces", "penguins")
# built-in datasets whose rows are images: (height, width) of each
MAX_DEFAULT_COLUMNS = 10  # tables this narrow show every column on hover by default
IMAGE_SHAPES = {"digits": (8, 8), "fashion-mnist": (28, 28), "orl-faces": (112, 92)}
FASHION_CLASSES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)


class UsageError(ValueError):
    """Bad input or usage: reported in one sentence with exit code 2."""


OUTPUT_HELP = {
    "table": "where to write the result (.csv, .tsv, either may end in .gz; .parquet, .npy, .h5ad or .xlsx; - for "
    "CSV on standard output)",
    "page": "the HTML page to write (.html)",
}


def add_data_arguments(parser, *, needs_output=False, output="table"):
    """Input, output and the common options of every data-reading command; ``output``:
    what ``-o`` writes ('table', 'page'), or None for a command that writes nothing."""
    parser.add_argument(
        "input",
        nargs="?",
        help="data file: .csv .tsv .npy .npz .parquet .h5 .h5ad .xlsx .ods .dta .sav; - for a CSV table piped in",
    )
    parser.add_argument("--dataset", choices=DATASETS, help="use a built-in dataset instead of INPUT")
    if output is not None:
        parser.add_argument("-o", "--output", required=needs_output, help=OUTPUT_HELP[output])
    parser.add_argument("--label-column", help="column (name or 1-based number) holding labels")
    parser.add_argument(
        "--index-column",
        help="CSV, Parquet or Excel column (name or 1-based number) holding row names, kept as "
        "the row ids of every output (default: a first column of "
        "distinct text, under an empty header field or a name; a Parquet file's pandas index)",
    )
    parser.add_argument(
        "--transpose",
        action="store_true",
        help="samples are the file's columns (genes x cells, foods x countries): transpose "
        "after reading, before any scaling",
    )
    parser.add_argument(
        "--exclude", action="append", default=[], help="column (name or 1-based number) to ignore; repeatable"
    )
    parser.add_argument(
        "--categorical",
        action="append",
        default=[],
        metavar="COLUMN",
        help="CSV, Parquet or Excel column of numbers (or ISO dates) that are category codes (text columns are "
        "categories already); repeatable",
    )
    parser.add_argument(
        "--ordinal",
        action="append",
        default=[],
        metavar="COLUMN=LOW,...,HIGH",
        help="CSV or Parquet column of ordered categories, listed lowest first (--ordinal size=S,M,L); repeatable",
    )
    _add_text_arguments(parser)
    parser.add_argument(
        "--key",
        help="array name in an .npz archive, dataset path in an HDF5 file, or sheet of a spreadsheet (.xlsx, .ods)",
    )
    parser.add_argument("--layer", help=".h5ad: read this layer instead of X")
    parser.add_argument("--use-raw", action="store_true", help=".h5ad: read raw.X (and raw.var names) instead of X")
    parser.add_argument("--obsm", metavar="KEY", help=".h5ad: run on a stored embedding or PCA, e.g. X_pca or X_umap")
    parser.add_argument(
        "--mask-var",
        metavar="COLUMN",
        help=".h5ad: read only the genes this boolean adata.var column marks, e.g. highly_variable (scanpy's mask_var)",
    )
    parser.add_argument(
        "--missing",
        choices=["error", "drop", "impute", "keep"],
        default="error",
        help="missing values: error (default), drop rows, impute column means, or keep (methods that model them)",
    )
    parser.add_argument("--standardize", action="store_true", help="scale features to unit variance")
    add_run_arguments(parser)


def _add_text_arguments(parser):
    """How a CSV/TSV file's text is read: --header, --delimiter, --decimal, --na-values,
    --encoding."""
    parser.add_argument(
        "--header",
        choices=["auto", "yes", "no"],
        default="auto",
        help="whether the CSV's (or spreadsheet's) first row is a header (auto: decided and announced)",
    )
    parser.add_argument(
        "--delimiter",
        help="CSV field separator: one character, or 'whitespace' for runs of spaces and tabs (default: ',', tab "
        "for .tsv, ';' with --decimal ',')",
    )
    parser.add_argument(
        "--decimal",
        choices=[".", ","],
        default=".",
        help="CSV decimal mark: ',' reads 1,5 and 1.234,5 as numbers (spreadsheets of countries that write a "
        "decimal comma; their fields are then separated by ';')",
    )
    parser.add_argument(
        "--na-values",
        action="append",
        default=[],
        metavar="TEXT",
        help="a text that marks a missing value in this file, such as '?' (besides empty, NA, NaN, NULL, None, "
        "N/A); CSV and Parquet text cells; repeatable",
    )
    parser.add_argument(
        "--encoding",
        default="utf-8",
        help="CSV text encoding (default utf-8; e.g. latin-1 or cp1252 for older spreadsheets)",
    )


def add_run_arguments(parser):
    """--seed, --threads, --overwrite, --quiet, --json and --debug: every command has them."""
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--threads", type=int, help="BLAS/numba threads (default: all cores)")
    parser.add_argument("--overwrite", action="store_true", help="replace existing output files")
    parser.add_argument(
        "--overwrite-key",
        action="store_true",
        help="-o OUT.h5ad from an .h5ad input: replace an obsm/obs entry of the same name the input holds",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--json", action="store_true", help="print a machine-readable summary only")
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks instead of one-sentence errors"
    )


def _builtin(name, say):
    """``(X, names, labels, row_ids, kinds, levels)`` of a built-in dataset."""
    if name == "penguins":
        from ..datasets import load_penguins

        say("Palmer penguins: 344 penguins, 4 measurements, island, sex, year (with gaps); the species are the labels")
        table, species = load_penguins()
        return table.X, table.names, species, None, table.kinds, table.levels
    return (*_numeric_builtin(name, say), None, {})


# what each built-in dataset's labels are, the name of their column in every output
BUILTIN_LABELS = {
    "iris": "species",
    "wine": "cultivar",
    "breast_cancer": "diagnosis",
    "digits": "digit",
    "fashion-mnist": "class",
    "orl-faces": "person",
    "penguins": "species",
}


def _dataset_columns(args, data, say):
    """``(X, names, labels, kinds, levels)`` of a built-in dataset after --exclude and
    --label-column, which name its columns as they name a file's: a column left out, or
    its values (a category's name, a gap as no label) as the labels in place of the
    dataset's own."""
    from ..io import column_index, column_indices, refuse_transposed_labels

    X, names, labels, kinds, levels = data
    source = f"--dataset {args.dataset}"
    spec = getattr(args, "label_column", None)
    refuse_transposed_labels(source, getattr(args, "transpose", False), spec)
    label = None if spec is None else column_index(spec, names, source)
    drop = column_indices(getattr(args, "exclude", None) or [], names, source)
    if label is not None:
        values = X[:, label]
        cats = levels.get(names[label])
        labels = np.array(
            ["" if v != v else (cats[int(v)] if cats else f"{v:g}") for v in values.tolist()], dtype=object
        ).astype(str)
        own = BUILTIN_LABELS.get(args.dataset)
        say(f"{source}: labels from column {names[label]!r}" + (f", in place of the dataset's {own}." if own else "."))
    gone = drop | ({label} if label is not None else set())
    if not gone:
        return X, names, labels, kinds, levels
    if drop:
        say(f"{source}: left out {listed([names[j] for j in sorted(drop)])}.")
    keep = [j for j in range(len(names)) if j not in gone]
    kept = [names[j] for j in keep]
    kinds = None if kinds is None else [kinds[j] for j in keep]
    return X[:, keep], kept, labels, kinds, {k: v for k, v in levels.items() if k in kept}


def _numeric_builtin(name, say):
    if name == "fashion-mnist":
        from ..datasets import load_fashion_mnist

        say("loading Fashion-MNIST (70,000 x 784) from the Debian package dataset-fashion-mnist")
        X, y = load_fashion_mnist()
        return X, [f"pixel{j + 1}" for j in range(X.shape[1])], np.array(FASHION_CLASSES)[y], None
    if name == "orl-faces":
        from ..datasets import load_orl_faces

        say("ORL faces: 400 grey 112 x 92 images of 40 people (the labels)")
        images, person = load_orl_faces()
        names = [f"pixel{j + 1}" for j in range(images[0].size)]
        return images.reshape(len(images), -1), names, np.array([f"person {p + 1}" for p in person]), None
    if name == "uk-food":
        from ..datasets import load_uk_food

        say("UK food: 4 countries x 17 food groups (grams per person per week; the countries are the row ids)")
        X, countries, foods = load_uk_food()
        return X, foods, None, countries
    from ..datasets import load_builtin

    X, y, names = load_builtin(name, class_names=True)
    return X, names, y, None


def method_name(text):
    """argparse type of a method name, as the registry spells it however the user
    wrote it (``UMAP``, ``t-SNE``, ``KMeans`` -> ``umap``, ``tsne``, ``kmeans``).

    Examples
    --------
    >>> method_name(" UMAP"), method_name("nosuch")
    ('umap', 'nosuch')
    """
    from ..methods import canonical_name

    return canonical_name(text.strip())


def method_names(text):
    """argparse type of comma-separated method names (``method_name`` each).

    Examples
    --------
    >>> method_names("PCA, t-SNE,UMAP")
    'pca,tsne,umap'
    """
    return ",".join(method_name(name) for name in text.split(",") if name.strip())


def positive_int(text):
    """argparse type of a count (-k, --pca): a whole number of at least 1.

    Examples
    --------
    >>> positive_int("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {value}")
    return value


def add_pca_argument(parser):
    """--pca K: the commands that can work on principal-component scores."""
    parser.add_argument(
        "--pca",
        type=positive_int,
        metavar="K",
        help="first reduce the data to K principal components by exact PCA streamed in row blocks "
        "(an .npy file is memory-mapped and read once, so it may be larger than memory), then "
        "run the method on the scores",
    )


def read_data(args, say):
    """``(X, feature_names, labels, row_ids, (kinds, levels, dates))`` as read (and
    transposed), before scaling; ``kinds`` per column ('numeric', 'categorical',
    'ordinal') or None, ``levels`` the categories of each category column, in code order,
    ``dates`` the columns of days since 1970-01-01."""
    transpose = getattr(args, "transpose", False)
    ordinal = getattr(args, "ordinal", [])
    ordinal = ordinal if isinstance(ordinal, dict) else ordinal_columns(ordinal)  # a model's own orders
    if args.dataset and (ordinal or getattr(args, "categorical", [])):
        raise UsageError(
            "--categorical and --ordinal describe the columns of a CSV or Parquet file; a --dataset has its own."
        )
    if args.dataset:
        if args.input:
            raise UsageError(
                f"pass a data file or --dataset, not both (got {args.input} and --dataset {args.dataset})."
            )
        X, names, labels, row_ids, kinds, levels = _builtin(args.dataset, say)
        X, names, labels, kinds, levels = _dataset_columns(args, (X, names, labels, kinds, levels), say)
        dates = []
        if getattr(args, "missing", "error") in ("drop", "impute"):  # the penguins' gaps, as a file's (else: kept)
            from ..io import apply_missing_policy

            X, labels, note = apply_missing_policy(args.dataset, X, names, labels, args.missing, kinds)
            if note:
                say(note)
        if transpose:
            from ..io import transposed

            X, names, row_ids = transposed(X, names, row_ids)
            labels = None
            say(f"transposed: {X.shape[0]} samples x {X.shape[1]} features.")
    else:
        from ..io import read_table

        if not args.input:
            raise UsageError("no input: pass a data file (CSV/TSV/NPY/NPZ/Parquet/HDF5/h5ad) or --dataset NAME.")
        streamed = bool(getattr(args, "pca", None)) and args.missing == "error"
        table = read_table(
            args.input,
            max_bytes=float("inf") if streamed else None,  # a memory map need not fit in memory
            header=args.header,
            delimiter=args.delimiter,
            label_column=args.label_column,
            exclude=args.exclude,
            key=args.key,
            # PCA's moments find NaN and infinity in the same pass (and name the cell)
            missing="keep" if streamed else args.missing,
            index_column=getattr(args, "index_column", None),
            transpose=transpose,
            encoding=getattr(args, "encoding", "utf-8"),
            layer=args.layer,
            use_raw=args.use_raw,
            obsm=args.obsm,
            mask_var=args.mask_var,
            categorical=getattr(args, "categorical", []),
            ordinal=ordinal,
            na_values=getattr(args, "na_values", []),
            decimal=getattr(args, "decimal", "."),
        )
        for note in table.notes:
            say(note)
        X, names, labels, row_ids, kinds = table.X, table.feature_names, table.labels, table.row_ids, table.kinds
        levels, dates = table.levels, table.dates
    return X, names, labels, row_ids, (kinds, levels, dates)


def add_columns_argument(parser):
    """--columns: the table's columns (an .h5ad file's obs columns and genes too) shown
    on hover in the interactive map and offered for colouring it."""
    parser.add_argument(
        "--columns",
        help="comma-separated columns to show on hover and offer for colouring (of an .h5ad file also obs "
        f"columns and genes; 'none' for none; default: every column of tables with at most {MAX_DEFAULT_COLUMNS})",
    )


def hover_columns(args, X, names, levels=None, dates=()):
    """``{name: values}`` of the columns named by --columns (or every one of a narrow
    table); a category column (``levels``: its categories in code order) by its
    categories' names, so that the map colours it by category; a date column
    (``dates``: days since 1970-01-01) as ``datetime64``, shown as dates; for an
    ``.h5ad`` input also any obs column or gene."""
    if args.columns is None:
        chosen = list(names) if len(names) <= MAX_DEFAULT_COLUMNS else []
    elif args.columns.strip().lower() == "none":
        chosen = []
    else:
        chosen = [c.strip() for c in args.columns.split(",") if c.strip()]
    where = {name: j for j, name in enumerate(names)}
    _refuse_ambiguous(chosen, list(names), args.input)
    levels = levels or {}
    found = {c: _named(np.asarray(X[:, where[c]]), levels.get(c)) for c in chosen if c in where}
    found.update({c: _moments(found[c]) for c in dates if c in found})
    missing = [c for c in chosen if c not in where]
    h5ad = bool(args.input) and str(args.input).lower().endswith(".h5ad") and not getattr(args, "transpose", False)
    if missing and h5ad:  # a cell's obs columns and genes, beside the matrix read
        from ..io import h5ad_columns

        extra = h5ad_columns(args.input, missing)
        if any(len(v) != X.shape[0] for v in extra.values()):
            raise UsageError(f"--columns: {args.input} has a value per cell, but rows were dropped (--missing drop).")
        found.update(extra)
        missing = [c for c in missing if c not in found]
    if missing:
        shown = listed(names, 8)
        where_else = " (nor an obs column or gene of the .h5ad file)" if h5ad else ""
        left_out = [c for c in missing if c in _excluded_names(args)]
        if left_out:
            raise UsageError(
                f"--columns: {', '.join(left_out)} left out by --exclude; the map shows the columns it reads. Name an "
                "id column with --index-column and a class column with --label-column (shown, not mapped), or drop "
                "it from --exclude."
            )
        raise UsageError(f"--columns: no column named {', '.join(missing)}{where_else}; the columns are {shown}.")
    return {c: found[c] for c in chosen}


def _excluded_names(args):
    """The names --exclude gave, comma lists split (as the readers read them)."""
    from ..io import spec_names

    return spec_names(getattr(args, "exclude", None) or [])


def _refuse_ambiguous(chosen, names, path):
    """A --columns name that several columns carry (a table's repeated header, an
    .h5ad file's repeated gene names) would show one of them, whichever came last."""
    for c in chosen:
        if (count := names.count(c)) > 1:
            numbers = ", ".join(str(j + 1) for j, n in enumerate(names) if n == c)
            fix = (
                "make the names unique with adata.var_names_make_unique()"
                if str(path).endswith(".h5ad")
                else "rename them"
            )
            raise UsageError(f"--columns: {c!r} names {count} columns of {path} (columns {numbers}); {fix}.")


def _moments(days):
    """Days since 1970-01-01 as ``datetime64[s]`` (NaT for a gap)."""
    seconds = np.where(np.isnan(days), 0, np.round(days * 86400.0)).astype(np.int64)
    return np.where(np.isnan(days), np.datetime64("NaT"), seconds.astype("datetime64[s]"))


def _named(values, levels):
    """Category codes as their names ('missing' for a gap); other columns as they are."""
    if levels is None:
        return values
    names = np.array([*levels, "missing"], dtype=object)
    return names[np.where(np.isnan(values), len(levels), values).astype(np.int64)].astype(str)


def ordinal_columns(specs):
    """--ordinal COLUMN=LOW,...,HIGH options as ``{column: [categories]}``.

    Examples
    --------
    >>> ordinal_columns(["size=S,M,L"])
    {'size': ['S', 'M', 'L']}
    """
    out = {}
    for spec in specs:
        column, sep, order = spec.partition("=")
        levels = [v.strip() for v in order.split(",") if v.strip()]
        if not sep or not column.strip() or len(levels) < 2:
            raise UsageError(
                f"--ordinal {spec!r}: write the column and its categories in order, lowest first, "
                "as --ordinal size=S,M,L."
            )
        out[column.strip()] = levels
    return out


def label_name(args):
    """The output column for labels: the input's label column name, a built-in
    dataset's name for its labels ('species'), else 'label'."""
    column = getattr(args, "label_column", None)
    if not column and getattr(args, "dataset", None):
        return BUILTIN_LABELS.get(args.dataset, "label")
    return column if column and not column.isdigit() else "label"


def require_columns(X, names, source, what):
    """Refuse a table of one column for a command whose maps are 2-D: there is nothing
    to reduce (PCA failed with "lower n_components", an option the command lacks)."""
    if X.shape[1] < 2:
        shown = f" ({names[0]!r})" if names is not None and len(names) == 1 else ""  # not a column --pca replaced
        raise UsageError(
            f"{source}: the table to map has {X.shape[1]} column{shown}; {what} shows 2-D maps of tables of 2 or "
            "more columns, and a single column is its own 1-D map: there is nothing to reduce."
        )


def check_outputs(args, *paths, tables=(), figures=(), pages=()):
    """Before any work: refuse two outputs naming one file, existing files (without
    --overwrite), formats that cannot be written (``tables``: ``io._writers.table_format``;
    ``figures``: matplotlib's formats; ``pages``: .html) and folders that cannot be
    written to; make missing parent folders. A table may go to standard output ('-',
    CSV; then not with --json, and the messages go to stderr)."""
    from ..io import STDOUT

    named = [p for p in paths if p and p != STDOUT]
    for path in paths:
        if path == STDOUT and path not in tables:
            raise UsageError(
                "standard output (-) takes the table of results only; name a file for the figure, page or model."
            )
    if STDOUT in tables and getattr(args, "json", False):
        raise UsageError("-o - writes the table to standard output, where --json would print too; drop one.")
    seen = {}
    for path in named:
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(
                f"{path} is named for two outputs ({seen[key]} and {path}); give each output its own file."
            )
        seen[key] = path
    _check_formats(tables, figures, pages)
    if any(figures):
        require_plotting("writing a figure")
    source = getattr(args, "input", None)
    for path in named:
        if source and os.path.exists(source) and os.path.realpath(path) == os.path.realpath(source):
            raise UsageError(f"{path} is the input file; write the output to another file.")
        if os.path.lexists(path) and not os.path.isfile(path):
            raise UsageError(f"{path} is not a regular file (a folder, device or pipe); name a file to write.")
        if os.path.exists(path) and not args.overwrite:
            raise UsageError(f"{path} exists; pass --overwrite to replace it.")
    for path in named:
        _check_writable_folder(path)


def require_plotting(what):
    """Before any work: matplotlib (the ``plot`` extra) is there for ``what``."""
    try:
        import_module("matplotlib")
    except ImportError:
        raise UsageError(f"{what} needs matplotlib: pip install 'lowdim[plot]'.") from None


def _check_writable_folder(path):
    """Make the output's folder if missing, and prove a file can be created there (as
    root, ``os.access`` says yes to /proc and read-only mounts)."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the folder {folder} for {path}: {exc.strerror}; choose another output path."
        ) from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(
            f"cannot write {path}: the folder {folder} does not take new files ({exc.strerror}); "
            "choose another output path."
        ) from None


def _check_formats(tables, figures, pages):
    from ..io import table_format, unwritable_message

    for path in (p for p in tables if p):
        if table_format(path)[0] is None:
            raise UsageError(unwritable_message(path))
    for path in (p for p in pages if p):
        if os.path.splitext(path)[1].lower() not in (".html", ".htm"):
            raise UsageError(f"{path}: the report is an HTML page; name it *.html.")
    figures = [p for p in figures if p]
    if figures:
        from matplotlib.backend_bases import FigureCanvasBase

        known = FigureCanvasBase.get_supported_filetypes()
        for path in figures:
            if os.path.splitext(path)[1].lower().lstrip(".") not in known:
                raise UsageError(
                    f"{path}: cannot draw a figure in this format; use one of "
                    f"{', '.join('.' + k for k in sorted(known))}."
                )


def output_name(path):
    """How messages name an output: its path, or standard output for '-'."""
    from ..io import STDOUT

    return "standard output" if path == STDOUT else path


def emit_json(args, summary):
    """Print the machine-readable summary when --json was given."""
    if args.json:
        print(json.dumps(summary, default=_plain))


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)
