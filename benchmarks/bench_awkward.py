"""The awkward shapes users bring, against the reference libraries in the same run.

'tiny': the small tables of teaching and first tries (iris 150 x 4, wine 178 x 13
standardised), one call at a time as an interactive user makes them: PCA(2), KMeans(3),
HDBSCAN(min_cluster_size=5) against scikit-learn, UMAP against umap-learn, TSNE against
openTSNE, all with their defaults. Warm (one untimed call each), then calls alternate;
medians of ``repeats * 7`` calls. Quality: PCA's explained variance, k-means' inertia,
HDBSCAN's ARI between the two libraries, the maps' trustworthiness (10 neighbours).

'small': t-SNE of the first 500 and 1,000 digits (64 pixels), the size of a first try on
one's own table, defaults, against openTSNE (2 threads) and scikit-learn, alternating;
medians of ``repeats * 3`` runs. Quality: trustworthiness (10 neighbours).

'copies': 20,000 Fashion-MNIST training images (PCA-50 scores) with the first 2,000 of
them repeated 5 more times each (30,000 rows, a third of them copies: a cell barcode
read twice, a stuck sensor, a table joined twice). UMAP against umap-learn, TSNE against
openTSNE (both 2 threads), KMeans(10) against scikit-learn (k-means++, one start each),
HDBSCAN(min_cluster_size=50) against the hdbscan package. Quality: maps, the 10-NN
accuracy of the classes (80/20 split) and the copies' spread (the 99th percentile over
the 2,000 groups of the largest distance of a copy from its group's mean, as a share
of the map's extent: 0 is every copy on its row); clusterings, the ARI against the
classes and the share of copy groups split between clusters (noise included).
Warm-up on the first 5,000 rows, then runs alternate; medians.

'wide': far more columns than rows (``wide_tables``: 100 x 200,000 probes, 200 x 20,000
genes), defaults: UMAP, PaCMAP, TSNE against umap-learn, pacmap, openTSNE, HDBSCAN
(min_cluster_size=5) against scikit-learn; one warm-up run each, then runs alternate.
Quality: trustworthiness (10 neighbours) of the maps, ARI of the clusters against the groups.

'files': reading CSV files (``csv_tables``): 20,000 x 200 numbers, the genes table with
sample names (200 x 20,000), and 20,000 rows of 150 numeric columns with 5 % gaps and
10 text columns of 4 levels and gaps, and 1,000,000 rows of 20 numbers with a label
column (a long export); ``lowdim.io.read_table`` against
``pandas.read_csv``. Quality: the numbers read are the same.

'spreadsheet': an Excel workbook (``spreadsheet``): 20,000 rows of 20 numbers with 5 %
gaps, 3 text columns and a date column, as a spreadsheet saved it (a cached value for
each of 2,000 formula cells); ``read_table`` against ``pandas.read_excel`` (both by
openpyxl). Quality: the numbers read are the same.
Run:  scripts/bench.sh awkward [CASE ...] [--repeats 3]
"""

import os
import re
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import _data  # noqa: E402
from bench_pca import compare, row, run_cli  # noqa: E402

warnings.filterwarnings("ignore")
N_DISTINCT, N_COPIED, EXTRA_COPIES = 20_000, 2_000, 5


def _tiny_tables():
    from sklearn.datasets import load_iris, load_wine

    wine = load_wine().data
    return {"iris": load_iris().data, "wine": (wine - wine.mean(0)) / wine.std(0)}


def _trust(X, Y):
    from lowdim.metrics import trustworthiness

    return trustworthiness(X, np.asarray(Y), n_neighbors=10)


def _tiny_pairs():
    """name -> (lowdim call, reference call, quality(ours, theirs, X) text)."""
    import hdbscan  # noqa: F401 - imported once, outside the timed calls
    import openTSNE
    import sklearn.cluster as skc
    import sklearn.decomposition as skd
    import umap

    import lowdim
    from lowdim.metrics import adjusted_rand_score

    return {
        "PCA(2)": (
            lambda X: lowdim.PCA(2).fit(X),
            lambda X: skd.PCA(2).fit(X),
            lambda a, b, X: (
                f"explained variance {a.explained_variance_.sum():.6g} vs {b.explained_variance_.sum():.6g}"
            ),
        ),
        "KMeans(3)": (
            lambda X: lowdim.KMeans(3, random_state=0).fit(X),
            lambda X: skc.KMeans(3, random_state=0).fit(X),
            lambda a, b, X: f"inertia {a.inertia_:.6g} vs {b.inertia_:.6g}",
        ),
        "HDBSCAN": (
            lambda X: lowdim.HDBSCAN(min_cluster_size=5).fit(X),
            lambda X: skc.HDBSCAN(min_cluster_size=5).fit(X),
            lambda a, b, X: f"ARI between them {adjusted_rand_score(a.labels_, b.labels_):.4f}",
        ),
        "UMAP": (
            lambda X: lowdim.UMAP(random_state=0).fit_transform(X),
            lambda X: umap.UMAP(random_state=0).fit_transform(X),
            lambda a, b, X: f"trustworthiness {_trust(X, a):.4f} vs {_trust(X, b):.4f}",
        ),
        "TSNE": (
            lambda X: lowdim.TSNE(random_state=0).fit_transform(X),
            lambda X: openTSNE.TSNE(random_state=0, n_jobs=2).fit(X),
            lambda a, b, X: f"trustworthiness {_trust(X, a):.4f} vs {_trust(X, b):.4f}",
        ),
    }


def case_tiny(repeats):
    rows = []
    for table, X in _tiny_tables().items():
        for name, (ours, theirs, quality) in _tiny_pairs().items():
            t_o, t_t, a, b, runs_o, runs_t = compare(
                lambda ours=ours, X=X: ours(X), lambda theirs=theirs, X=X: theirs(X), repeats * 7
            )
            reference = {"UMAP": "umap-learn", "TSNE": "openTSNE"}.get(name, "scikit-learn")
            case = f"{name}, {table} {X.shape[0]} x {X.shape[1]} (against {reference}; ms)"
            in_ms = ([1e3 * t for t in runs_o], [1e3 * t for t in runs_t])
            rows.append(row(case, 1e3 * t_o, 1e3 * t_t, quality(a, b, X), 1.0, True, in_ms))
    return rows


def case_small(repeats):
    import openTSNE
    from sklearn.datasets import load_digits
    from sklearn.manifold import TSNE as SkTSNE

    import lowdim

    X = load_digits().data
    rows = []
    for n in (500, 1000):
        for reference, theirs in (
            ("openTSNE", lambda X: openTSNE.TSNE(random_state=0, n_jobs=2).fit(X)),
            ("scikit-learn", lambda X: SkTSNE(random_state=0).fit_transform(X)),
        ):
            t_o, t_t, a, b, runs_o, runs_t = compare(
                lambda n=n: lowdim.TSNE(random_state=0).fit_transform(X[:n]),
                lambda n=n, theirs=theirs: theirs(X[:n]),
                repeats * 3,
            )
            quality = f"trustworthiness {_trust(X[:n], a):.4f} vs {_trust(X[:n], b):.4f}"
            rows.append(row(f"TSNE, digits {n} x 64 (against {reference})", t_o, t_t, quality, 1.0, True,
                            (runs_o, runs_t)))  # fmt: skip
    return rows


def copied_rows():
    """(rows, classes, group of each row: the copied row's index, -1 for the others)."""
    from lowdim import PCA

    images, labels = _data.fashion_mnist()[:N_DISTINCT], _data.fashion_mnist_labels()[:N_DISTINCT]
    X = PCA(50, random_state=0).fit_transform(images)
    copied = np.tile(np.arange(N_COPIED), EXTRA_COPIES)
    group = np.r_[np.where(np.arange(N_DISTINCT) < N_COPIED, np.arange(N_DISTINCT), -1), copied]
    return np.r_[X, X[copied]], np.r_[labels, labels[copied]], group


def _spread(Y, group):
    """99th percentile over the copy groups of a copy's largest distance from its group's
    mean, as a share of the map's extent."""
    Y = np.asarray(Y, dtype=np.float64)
    keep = group >= 0
    ids, Yg = group[keep], Y[keep]
    means = np.zeros((N_COPIED, Y.shape[1]))
    np.add.at(means, ids, Yg)
    means /= np.bincount(ids, minlength=N_COPIED)[:, None]
    far = np.zeros(N_COPIED)
    np.maximum.at(far, ids, np.linalg.norm(Yg - means[ids], axis=1))
    return float(np.percentile(far, 99) / np.ptp(Y, axis=0).max())


def _split(labels, group):
    """Share of the copy groups whose rows are not all in one cluster."""
    keep = group >= 0
    ids, lab = group[keep], np.asarray(labels)[keep]
    lowest = np.full(N_COPIED, np.iinfo(np.int64).max)
    highest = np.full(N_COPIED, np.iinfo(np.int64).min)
    np.minimum.at(lowest, ids, lab)
    np.maximum.at(highest, ids, lab)
    return float(np.mean(lowest != highest))


def _copies_pairs():
    import hdbscan
    import openTSNE
    import sklearn.cluster as skc
    import umap

    import lowdim

    return {
        "UMAP": (
            "umap-learn",
            lambda X: lowdim.UMAP(random_state=0, n_jobs=2).fit_transform(X),
            lambda X: umap.UMAP(n_jobs=2).fit_transform(X),
        ),
        "TSNE": (
            "openTSNE",
            lambda X: lowdim.TSNE(random_state=0, n_jobs=2).fit_transform(X),
            lambda X: np.asarray(openTSNE.TSNE(random_state=0, n_jobs=2).fit(X)),
        ),
        "KMeans(10)": (
            "scikit-learn",
            lambda X: lowdim.KMeans(10, n_init=1, random_state=0).fit(X).labels_,
            lambda X: skc.KMeans(10, n_init=1, random_state=0).fit(X).labels_,
        ),
        "HDBSCAN(min_cluster_size=50)": (
            "hdbscan",
            lambda X: lowdim.HDBSCAN(min_cluster_size=50).fit(X).labels_,
            lambda X: hdbscan.HDBSCAN(min_cluster_size=50, core_dist_n_jobs=2).fit(X).labels_,
        ),
    }


def case_copies(repeats):
    from lowdim.metrics import adjusted_rand_score, knn_accuracy

    X, y, group = copied_rows()
    rows = []
    for name, (reference, ours, theirs) in _copies_pairs().items():
        ours(X[:5000]), theirs(X[:5000])  # kernels compiled or loaded, threads started
        t_o, t_t, a, b, runs_o, runs_t = compare(
            lambda ours=ours: ours(X), lambda theirs=theirs: theirs(X), repeats, warm_up=False
        )
        if np.asarray(a).ndim == 2:
            acc = [knn_accuracy(np.asarray(Y, dtype=np.float64), y, n_neighbors=10, random_state=0) for Y in (a, b)]
            quality = (
                f"10-NN accuracy {acc[0]:.4f} vs {acc[1]:.4f}; copies' spread {_spread(a, group):.4f} vs "
                f"{_spread(b, group):.4f} of the extent"
            )
        else:
            ari = [adjusted_rand_score(y, labels) for labels in (a, b)]
            quality = (
                f"ARI {ari[0]:.4f} vs {ari[1]:.4f}; copy groups split {_split(a, group):.4f} vs {_split(b, group):.4f}"
            )
        case = f"{name}, 30,000 x 50 with 10,000 copies of 2,000 rows (against {reference})"
        rows.append(row(case, t_o, t_t, quality, 1.0, True, (runs_o, runs_t)))
        print(
            f"  {case}: {statistics.median(runs_o):.2f} s vs {statistics.median(runs_t):.2f} s; {quality}", flush=True
        )
    return rows


def wide_tables():
    """name -> (rows, groups): far more columns than rows, as arrays of probes and genes
    give them. 'probes': 100 samples x 200,000 float32 values (a methylation array's
    shape), 4 groups apart on 2 % of the probes; 'genes': 200 samples x 20,000 genes,
    negative-binomial counts of 4 group profiles, normalised and log1p (bulk RNA-seq)."""
    rng = np.random.default_rng(0)
    group = np.arange(100) % 4
    shift = np.zeros((4, 200_000), dtype=np.float32)
    for g in range(4):
        shift[g, rng.choice(200_000, 4_000, replace=False)] = 1.5
    probes = rng.normal(size=(100, 200_000)).astype(np.float32) + shift[group]
    genes_group = np.arange(200) % 4
    profile = rng.gamma(0.5, 4.0, size=(4, 20_000))
    counts = rng.negative_binomial(5, 5 / (5 + profile[genes_group]))
    genes = np.log1p(1e4 * counts / counts.sum(axis=1, keepdims=True)).astype(np.float32)
    return {"probes": (probes, group), "genes": (genes, genes_group)}


def _wide_pairs():
    import openTSNE
    import pacmap
    import sklearn.cluster as skc
    import umap

    import lowdim

    return {
        "UMAP": (
            "umap-learn",
            lambda X: lowdim.UMAP(random_state=0).fit_transform(X),
            lambda X: umap.UMAP(random_state=0).fit_transform(X),
        ),
        "PaCMAP": (
            "pacmap",
            lambda X: lowdim.PaCMAP(random_state=0).fit_transform(X),
            lambda X: pacmap.PaCMAP(random_state=0).fit_transform(X),
        ),
        "TSNE": (
            "openTSNE",
            lambda X: lowdim.TSNE(random_state=0).fit_transform(X),
            lambda X: np.asarray(openTSNE.TSNE(random_state=0, n_jobs=2).fit(X)),
        ),
        "HDBSCAN": (
            "scikit-learn",
            lambda X: lowdim.HDBSCAN(min_cluster_size=5).fit(X).labels_,
            lambda X: skc.HDBSCAN(min_cluster_size=5).fit(X).labels_,
        ),
    }


def case_wide(repeats):
    from lowdim.metrics import adjusted_rand_score

    rows = []
    for table, (X, groups) in wide_tables().items():
        for name, (reference, ours, theirs) in _wide_pairs().items():
            t_o, t_t, a, b, runs_o, runs_t = compare(
                lambda ours=ours, X=X: ours(X), lambda theirs=theirs, X=X: theirs(X), repeats
            )
            if np.asarray(a).ndim == 2:
                quality = f"trustworthiness {_trust(X, a):.4f} vs {_trust(X, b):.4f}"
            else:
                quality = f"ARI {adjusted_rand_score(groups, a):.4f} vs {adjusted_rand_score(groups, b):.4f}"
            case = f"{name}, {table} {X.shape[0]} x {X.shape[1]:,} (against {reference})"
            rows.append(row(case, t_o, t_t, quality, 1.0, True, (runs_o, runs_t)))
            print(f"  {case}: {t_o:.2f} s vs {t_t:.2f} s; {quality}", flush=True)
    return rows


def csv_tables(folder):
    """name -> path of the CSV files of 'files' (written once into ``folder``)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(20_000, 200)).round(4), columns=[f"x{j}" for j in range(200)])
    genes, _ = wide_tables()["genes"]
    wide = pd.DataFrame(genes.round(4), columns=[f"gene{j}" for j in range(genes.shape[1])])
    wide.index = [f"sample{i}" for i in range(genes.shape[0])]
    mixed = numbers.iloc[:, :150].mask(rng.random((20_000, 150)) < 0.05)  # 5 % gaps
    for j in range(10):
        mixed[f"group{j}"] = rng.choice(["alpha", "beta", "gamma", "delta", ""], 20_000)
    long = pd.DataFrame(rng.normal(size=(1_000_000, 20)).round(6), columns=[f"x{j}" for j in range(20)])
    long["label"] = rng.choice(["a", "b", "c"], len(long))
    paths = {}
    tables = (("numbers", numbers, False), ("wide", wide, True), ("mixed", mixed, False), ("long", long, False))
    for name, frame, index in tables:
        paths[name] = os.path.join(folder, f"{name}.csv")
        frame.to_csv(paths[name], index=index, index_label="sample" if index else None)
    return paths


def case_files(repeats):
    """Reading the CSV files users bring: lowdim's reader (types found, categories coded,
    gaps kept as NaN) against pandas' C parser (types found) on the same file."""
    import tempfile

    import pandas as pd

    from lowdim.io import read_table

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, path in csv_tables(folder).items():
            index = 0 if name == "wide" else None
            t_o, t_t, ours, theirs, runs_o, runs_t = compare(
                lambda path=path, name=name: read_table(path, missing="keep",
                                                        label_column="label" if name == "long" else None),
                lambda path=path, index=index: pd.read_csv(path, index_col=index),
                repeats,
            )  # fmt: skip
            numeric = theirs.select_dtypes("number")
            same = np.array_equal(ours.X[:, : numeric.shape[1]], numeric.to_numpy(), equal_nan=True)
            quality = f"same numbers: {'yes' if same else 'NO'}"
            case = f"read {name}.csv, {theirs.shape[0]:,} x {theirs.shape[1]:,} (against pandas.read_csv)"
            rows.append(row(case, t_o, t_t, quality, 1.0, same, (runs_o, runs_t)))
            print(f"  {case}: {t_o:.2f} s vs {t_t:.2f} s; {quality}", flush=True)
    return rows


def spreadsheet(folder):
    """The path of 'spreadsheet''s workbook (written into ``folder``): numbers with gaps,
    text, dates, and formula cells with their values saved in the file's XML, as a
    spreadsheet program stores them (openpyxl writes formulas without values)."""
    import datetime
    import zipfile

    import openpyxl

    rng = np.random.default_rng(0)
    numbers = rng.normal(size=(20_000, 20)).round(4)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append([f"x{j}" for j in range(20)] + ["site", "kind", "grade", "day"])
    for i, values in enumerate(numbers):
        cells = [None if rng.random() < 0.05 else float(v) for v in values]
        day = datetime.date(2020, 1, 1) + datetime.timedelta(days=int(i % 700))
        sheet.append([*cells, ["north", "south", "east"][i % 3], "ab"[i % 2], ["low", "mid", "high"][i % 3], day])
    for i in range(2, 2002):
        sheet.cell(i, 1, f"=B{i}*2")
    plain = os.path.join(folder, "plain.xlsx")
    book.save(plain)
    path = os.path.join(folder, "sheet.xlsx")
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":  # each formula with its value, as Excel saves it
                data = re.sub(rb"(<c r=\"A(\d+)\"[^>]*><f>[^<]*</f>)(<v>[^<]*</v>|<v\s*/>)?", rb"\1<v>1.5</v>", data)
            target.writestr(item, data)
    return path


def case_spreadsheet(repeats):
    """Reading an Excel sheet: ``read_table`` against ``pandas.read_excel``."""
    import tempfile

    import pandas as pd

    from lowdim.io import read_table

    with tempfile.TemporaryDirectory() as folder:
        path = spreadsheet(folder)
        t_o, t_t, ours, theirs, runs_o, runs_t = compare(
            lambda: read_table(path, missing="keep"), lambda: pd.read_excel(path, engine="openpyxl"), repeats
        )
    numeric = theirs.iloc[:, :20].to_numpy(dtype=float)
    same = np.array_equal(ours.X[:, :20], numeric, equal_nan=True)
    quality = f"same numbers: {'yes' if same else 'NO'}"
    case = f"read an Excel sheet, {theirs.shape[0]:,} x {theirs.shape[1]:,} (against pandas.read_excel)"
    print(f"  {case}: {t_o:.2f} s vs {t_t:.2f} s; {quality}", flush=True)
    return [row(case, t_o, t_t, quality, 1.0, same, (runs_o, runs_t))]


CASES = {
    "tiny": case_tiny,
    "small": case_small,
    "copies": case_copies,
    "wide": case_wide,
    "files": case_files,
    "spreadsheet": case_spreadsheet,
}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
