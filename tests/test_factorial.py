"""CA, MCA and FAMD against published results and against a direct dense computation of
their definitions (the SVD of the standardised residuals; the PCA of the explicitly built
FAMD matrix), their supplementary points, and what they say about bad tables."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import lowdim
from lowdim.cli.main import main
from lowdim.decomposition import CA, FAMD, MCA

# Greenacre (1984), staff groups x smoking (the R package ca's `smoke`): principal
# inertias 0.07476, 0.01002, 0.00041, total 0.08519, as printed there (5 decimals).
SMOKE = np.array([[4, 2, 3, 2], [4, 3, 7, 4], [25, 10, 12, 4], [18, 24, 33, 13], [10, 6, 7, 2]], dtype=float)


def _ca_by_svd(N):
    """Correspondence analysis written out: the dense SVD of the standardised residuals."""
    P = N / N.sum()
    r, c = P.sum(axis=1), P.sum(axis=0)
    S = (P - np.outer(r, c)) / np.sqrt(np.outer(r, c))
    U, sigma, Vt = np.linalg.svd(S, full_matrices=False)
    rows = U / np.sqrt(r)[:, None] * sigma
    cols = Vt.T / np.sqrt(c)[:, None] * sigma
    return sigma**2, rows, cols


def _same_up_to_sign(a, b, tol):
    """Columns equal up to one sign each."""
    signs = np.sign(np.sum(a * b, axis=0))
    np.testing.assert_allclose(a * signs, b, atol=tol * max(1.0, np.abs(b).max()))


def test_ca_gives_greenacres_published_inertias():
    ca = CA(n_components=3).fit(SMOKE)
    np.testing.assert_allclose(ca.eigenvalues_, [0.07476, 0.01002, 0.00041], atol=5e-6)
    assert abs(ca.total_inertia_ - 0.08519) < 5e-6


def test_ca_equals_the_svd_of_the_standardised_residuals():
    rng = np.random.default_rng(0)
    N = rng.poisson(5.0, size=(30, 8)).astype(float) + rng.integers(0, 2, (30, 8)) * 10
    eig, rows, cols = _ca_by_svd(N)
    ca = CA(n_components=4).fit(N)
    np.testing.assert_allclose(ca.eigenvalues_, eig[:4], rtol=1e-10)
    assert np.isclose(ca.total_inertia_, eig.sum(), rtol=1e-12)
    _same_up_to_sign(ca.row_coordinates_, rows[:, :4], 1e-9)
    _same_up_to_sign(ca.column_coordinates_, cols[:, :4], 1e-9)
    np.testing.assert_allclose(ca.row_contributions_.sum(axis=0), 1.0, rtol=1e-10)
    np.testing.assert_allclose(ca.column_contributions_.sum(axis=0), 1.0, rtol=1e-10)
    full = CA(n_components=7).fit(N)
    np.testing.assert_allclose(full.row_cos2_.sum(axis=1), 1.0, rtol=1e-8)  # every dimension: all of it


def test_ca_sparse_equals_dense_and_places_supplementary_points():
    rng = np.random.default_rng(1)
    N = rng.poisson(0.7, size=(60, 12)).astype(float)
    N[:, 0] += 1  # every row has counts
    dense, sparse = CA(n_components=3).fit(N), CA(n_components=3).fit(sp.csr_matrix(N))
    np.testing.assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(sparse.row_coordinates_, dense.row_coordinates_, atol=1e-10)
    np.testing.assert_allclose(dense.transform(N), dense.row_coordinates_, atol=1e-10)
    np.testing.assert_allclose(dense.transform_columns(N), dense.column_coordinates_, atol=1e-10)
    doubled = dense.transform(2 * N[:5])  # a profile does not depend on the row's total
    np.testing.assert_allclose(doubled, dense.row_coordinates_[:5], atol=1e-10)


def test_ca_refuses_what_is_not_a_contingency_table():
    with pytest.raises(ValueError, match="Negative values in data passed to CA"):
        CA().fit(SMOKE - 5)
    with pytest.raises(ValueError, match="same profile"):
        CA().fit(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"n_components=4 must be at most min\(n_rows - 1, n_columns - 1\)"):
        CA(n_components=4).fit(SMOKE)
    table = np.vstack([SMOKE, np.zeros((1, 4))])
    with pytest.warns(UserWarning, match="1 row\\(s\\) and 0 column\\(s\\) of the table have no counts"):
        ca = CA().fit(table)
    assert np.all(ca.row_coordinates_[-1] == 0)


def _indicator(table):
    """The dense indicator matrix of a list of rows of categories."""
    columns = list(zip(*table))
    blocks = []
    for column in columns:
        levels = sorted(set(column))
        blocks.append(np.array([[v == level for level in levels] for v in column], dtype=float))
    return np.hstack(blocks)


def _categories(rng, n=80):
    return [[rng.choice(["a", "b", "c"]), rng.choice(["x", "y"]), rng.choice(["p", "q", "r", "s"])] for _ in range(n)]


def test_a_table_without_inertia_warns_and_its_axes_explain_none_of_it():
    # rows in proportion (counts independent of the columns): the inertia is 0, and the
    # shares were inf or NaN (a model that saved and then failed to load)
    table = np.outer([1, 2, 3, 4, 5], [2, 1, 3])
    with pytest.warns(UserWarning, match="no inertia"):
        model = CA(2).fit(table)
    assert model.total_inertia_ == 0 and np.array_equal(model.explained_inertia_ratio_, np.zeros(2))
    # its axes are zero, not round-off blown up to unit standard coordinates: every row,
    # new or not, sits at the origin (transform gave 1.0 where fit gave 1e-15)
    np.testing.assert_array_equal(model.row_coordinates_, 0.0)
    np.testing.assert_array_equal(model.transform(np.array([[3, 1, 2], [0, 0, 5]])), 0.0)
    with pytest.warns(UserWarning, match="single category"):
        mca = MCA(2).fit(pd.DataFrame({"a": ["x"] * 30}))
    np.testing.assert_array_equal(mca.transform(pd.DataFrame({"a": ["x"] * 3})), 0.0)
    assert np.array_equal(mca.eigenvalues_, [0.0]) and np.isfinite(mca.row_contributions_).all()
    one_level = pd.DataFrame({"a": list("xxxxxxyy"), "b": ["u"] * 8})
    for correction in ("benzecri", "greenacre"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the single-level column's own warning
            ratio = MCA(2, correction=correction).fit(one_level.assign(a=["x"] * 8)).explained_inertia_ratio_
        assert np.isfinite(ratio).all()


def test_mca_is_the_ca_of_the_indicator_matrix_with_benzecri_and_greenacre():
    rng = np.random.default_rng(2)
    table = _categories(rng)
    K = 3
    eig, rows, cols = _ca_by_svd(_indicator(table))
    mca = MCA(n_components=4).fit(table)
    np.testing.assert_allclose(mca.eigenvalues_, eig[:4], rtol=1e-9)
    assert np.isclose(mca.total_inertia_, (9 - K) / K)  # J = 9 categories of K = 3 variables
    _same_up_to_sign(mca.row_coordinates_, rows[:, :4], 1e-9)
    _same_up_to_sign(mca.column_coordinates_, cols[:, :4], 1e-9)
    expected = np.where(eig[:4] > 1 / K, (K / (K - 1) * (eig[:4] - 1 / K)) ** 2, 0.0)
    np.testing.assert_allclose(mca.corrected_eigenvalues_, expected, rtol=1e-9)
    greenacre = MCA(n_components=4, correction="greenacre").fit(table)
    adjusted = K / (K - 1) * (np.sum(eig[: 9 - K] ** 2) - (9 - K) / K**2)
    np.testing.assert_allclose(greenacre.explained_inertia_ratio_, expected / adjusted, rtol=1e-8)
    benzecri = MCA(n_components=4, correction="benzecri").fit(table)
    np.testing.assert_allclose(benzecri.explained_inertia_ratio_, expected / expected.sum(), rtol=1e-9)


def test_mca_places_new_rows_and_takes_dataframes_with_gaps():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(_categories(rng), columns=["u", "v", "w"])
    mca = MCA(n_components=2).fit(frame)
    np.testing.assert_allclose(mca.transform(frame), mca.row_coordinates_, atol=1e-12)
    assert mca.category_names_[:3] == ["u=a", "u=b", "u=c"] and list(mca.feature_names_in_) == ["u", "v", "w"]
    holed = frame.copy()
    holed.loc[0, "v"] = None
    with pytest.warns(UserWarning, match=r"single row \(v=missing\)"):
        assert "missing" in MCA().fit(holed).categories_[1]  # a gap is a category of its own
    new = frame.head(2).assign(u=["zzz", "a"])
    with pytest.warns(UserWarning, match="1 cell\\(s\\) hold a category the model was not fitted on"):
        placed = mca.transform(new)
    assert np.isfinite(placed).all()


def _famd_by_pca(numbers, table):
    """FAMD written out: standardised numbers beside indicator columns divided by the root
    of their frequency and centred, then the eigenvalues of their covariance."""
    A = (numbers - numbers.mean(axis=0)) / numbers.std(axis=0)
    Z = _indicator(table)
    p = Z.mean(axis=0)
    X = np.hstack([A, (Z - p) / np.sqrt(p)])
    eig, V = np.linalg.eigh(X.T @ X / X.shape[0])
    order = np.argsort(eig)[::-1]
    return eig[order], X @ V[:, order]


def test_famd_equals_the_pca_of_its_coded_table():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    table = _categories(rng)
    numbers = rng.normal(size=(80, 2)) * [1.0, 50.0]
    frame = pd.DataFrame({"n1": numbers[:, 0], "c1": [t[0] for t in table], "n2": numbers[:, 1]})
    frame["c2"] = [t[1] for t in table]
    famd = FAMD(n_components=3).fit(frame)
    eig, scores = _famd_by_pca(numbers, [[t[0], t[1]] for t in table])
    np.testing.assert_allclose(famd.eigenvalues_, eig[:3], rtol=1e-9)
    assert np.isclose(famd.total_inertia_, 2 + (5 - 2))  # 2 numbers, 5 categories of 2 variables
    _same_up_to_sign(famd.row_coordinates_, scores[:, :3], 1e-9)
    np.testing.assert_allclose(famd.transform(frame), famd.row_coordinates_, atol=1e-10)
    correlations = [np.corrcoef(numbers[:, 0], famd.row_coordinates_[:, k])[0, 1] for k in range(3)]
    np.testing.assert_allclose(famd.column_coordinates_[0], correlations, atol=1e-9)
    np.testing.assert_allclose(famd.column_contributions_.sum(axis=0), 1.0, rtol=1e-10)


@pytest.mark.parametrize("value", [0.1, 1e-300, 7.0])
def test_a_constant_numeric_column_adds_nothing_to_famd(value):
    # numpy's nanstd of a column of 0.1 is 1e-17, not 0: the column became one of ones
    # and took a dimension of its own (it was refused as constant when it read exactly 0)
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"y": rng.normal(size=60), "z": rng.normal(size=60), "cat": rng.choice(list("abc"), 60)})
    with pytest.warns(UserWarning, match="numeric column 'x' is constant"):
        with_constant = FAMD(2).fit(table.assign(x=value))
    without = FAMD(2).fit(table)
    np.testing.assert_allclose(with_constant.eigenvalues_, without.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(
        np.abs(with_constant.transform(table.assign(x=value + 1.0))), np.abs(without.transform(table)), atol=1e-12
    )


def test_famd_codes_columns_it_is_told_are_categories_and_names_bad_tables():
    codes = np.array([[1, 0.5], [2, 1.5], [1, 0.7], [3, 2.0], [2, 1.1], [3, 0.2]])
    famd = FAMD(n_components=2, categorical=[0]).fit(codes)
    assert famd.kinds_ == ["categorical", "numeric"] and famd.categories_[0] == ["1", "2", "3"]
    with pytest.raises(ValueError, match="FAMD needs numeric columns beside the categories; .* use MCA"):
        FAMD().fit([["a", "x"], ["b", "y"], ["a", "y"]])
    with pytest.warns(UserWarning, match="numeric column 'x1' is constant"):
        FAMD().fit([["a", 1.0], ["b", 1.0], ["a", 1.0]])
    with pytest.warns(UserWarning, match="column 'x0' has a single category"):
        FAMD().fit([["a", 1.0], ["a", 2.0], ["a", 4.0]])
    with pytest.raises(ValueError, match="Input X contains infinity"):
        FAMD().fit([["a", 1.0], ["b", np.inf], ["a", 4.0]])
    with pytest.raises(ValueError, match="X has 1 features, but FAMD is expecting 2 features"):
        famd.transform(codes[:, :1])


def test_mca_warns_about_categories_of_one_row():
    table = [["a", "x"], ["a", "y"], ["b", "x"], ["b", "y"], ["c", "x"]]
    with pytest.warns(UserWarning, match=r"1 category has a single row \(x0=c\)"):
        MCA(n_components=1).fit(table)


def test_famd_names_the_missing_value_of_a_single_row_as_its_category():
    frame = pd.DataFrame(
        {"size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "colour": ["red", "blue", None, "red", "blue", "red"]}
    )
    with pytest.warns(UserWarning, match=r"\(colour=missing\).*missing values form a category of their own"):
        FAMD(n_components=1).fit(frame)


def test_factorial_models_round_trip_through_model_files(tmp_path):
    rng = np.random.default_rng(5)
    table = _categories(rng, n=30)
    mixed = [[a, float(i % 7), b] for i, (a, b, _) in enumerate(table)]
    for model, data in ((MCA().fit(table), table), (FAMD().fit(mixed), mixed), (CA().fit(SMOKE), SMOKE)):
        path = tmp_path / f"{type(model).__name__}.lowdim"
        lowdim.save(model, path)
        loaded = lowdim.load(path)
        np.testing.assert_array_equal(loaded.transform(data), model.transform(data))


def test_rows_in_another_order_give_the_same_coordinates():
    rng = np.random.default_rng(6)
    table = _categories(rng, n=50)
    order = rng.permutation(50)
    a = MCA(n_components=2).fit(table).row_coordinates_
    b = MCA(n_components=2).fit([table[i] for i in order]).row_coordinates_
    signs = np.sign(np.sum(b * a[order], axis=0))  # each dimension up to its sign
    np.testing.assert_allclose(b * signs, a[order], atol=1e-9 * max(1.0, np.abs(a).max()))


@pytest.mark.parametrize(
    "model",
    [lambda: FAMD(2), lambda: MCA(2), lambda: lowdim.KPrototypes(3, random_state=0), lambda: lowdim.KModes(3)],
)
def test_a_table_with_its_columns_in_another_order_is_refused_as_scikit_learn_refuses_it(model):
    """New rows are coded column by column by name but read by position: a table whose
    columns came in another order was placed (or clustered) as another table, silently
    for KPrototypes (a quarter of the rows kept their cluster)."""
    import pandas as pd

    rng = np.random.default_rng(7)
    table = pd.DataFrame(
        {"size": rng.normal(size=60), "city": rng.choice(list("abc"), 60), "kind": rng.choice(list("xy"), 60)}
    )
    if isinstance(model(), (MCA, lowdim.KModes)):
        table = table[["city", "kind"]]
    fitted = model().fit(table)
    apply = fitted.transform if hasattr(fitted, "transform") else fitted.predict
    with pytest.raises(ValueError, match="Feature names must be in the same order as they were in fit"):
        apply(table[table.columns[::-1]])
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing"):
        apply(table.rename(columns={"city": "town"}))
    np.testing.assert_array_equal(apply(table), apply(table.copy()))


def test_cli_runs_famd_and_mca_on_a_mixed_file(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("colour,size,weight\nred,S,1.0\nblue,M,2.5\nred,L,\nblue,S,0.5\ngreen,M,3.0\nred,L,2.0\n")
    out = tmp_path / "famd.csv"
    assert main(["embed", str(path), "-m", "famd", "-o", str(out)]) == 0
    assert np.isfinite(np.loadtxt(out, delimiter=",", skiprows=1)).all()
    assert main(["embed", str(path), "-m", "mca", "--exclude", "weight", "-o", str(tmp_path / "m.csv")]) == 0
    assert main(["embed", str(path), "-m", "mca", "-o", str(tmp_path / "n.csv")]) == 2
    assert "mca reads categories, but columns weight hold numbers" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts = tmp_path / "smoke.csv"
        counts.write_text("none,light,medium,heavy\n" + "\n".join(",".join(str(int(v)) for v in r) for r in SMOKE))
        assert main(["embed", str(counts), "-m", "ca", "-o", str(tmp_path / "ca.csv")]) == 0


def _mixed_blobs(rng, n=90):
    """Three groups apart in two numbers and mostly in one category, with gaps."""
    group = np.repeat([0, 1, 2], n // 3)
    numbers = rng.normal(size=(n, 2)) * 0.5 + group[:, None] * 4.0
    letters = np.where(rng.random(n) < 0.9, np.array(["a", "b", "c"])[group], "d")
    rows = [[x, y, c] for (x, y), c in zip(numbers.tolist(), letters)]
    rows[4][0] = None
    rows[50][2] = None
    return rows, group


def _check_fixed_point(model, rows):
    """The result of k-prototypes: each row at its cheapest prototype, each prototype the
    mean (numbers) and mode (categories) of its rows, the cost their sum; computed here
    from the definition."""
    from lowdim.preprocessing import mixed_codes

    levels = {name: found for name, found in zip(model.column_names_, model.categories_) if found is not None}
    codes = mixed_codes(rows, levels=levels).X
    num = [j for j, k in enumerate(model.kinds_) if k == "numeric"]
    cat = [j for j, k in enumerate(model.kinds_) if k != "numeric"]
    C = model.cluster_centers_
    diff = np.nan_to_num(codes[:, None, num] - C[None, :, num])
    mismatch = (~np.isnan(codes[:, None, cat])) & (codes[:, None, cat] != C[None, :, cat])
    cost = (diff**2).sum(-1) + model.gamma_ * mismatch.sum(-1)
    np.testing.assert_array_equal(np.argmin(cost, axis=1), model.labels_)
    assert np.isclose(cost.min(axis=1).sum(), model.cost_, rtol=1e-10)
    for c in range(C.shape[0]):
        members = codes[model.labels_ == c]
        np.testing.assert_allclose(C[c, num], np.nanmean(members[:, num], axis=0), rtol=1e-10)
        for j in cat:
            values = members[:, j][~np.isnan(members[:, j])].astype(int)
            assert np.bincount(values)[int(C[c, j])] == np.bincount(values).max()


def test_kprototypes_reaches_a_fixed_point_of_its_cost_and_finds_the_groups():
    from lowdim import KPrototypes
    from lowdim.metrics import adjusted_rand_score

    rng = np.random.default_rng(7)
    rows, group = _mixed_blobs(rng)
    for init in ("k-means++", "random"):
        model = KPrototypes(n_clusters=3, init=init, random_state=0).fit(rows)
        _check_fixed_point(model, rows)
        assert adjusted_rand_score(group, model.labels_) == 1.0
        np.testing.assert_array_equal(model.predict(rows), model.labels_)
    assert model.kinds_ == ["numeric", "numeric", "categorical"]
    new = [[0.1, 0.2, "zzz"], [8.0, 8.1, "c"]]  # a category never seen differs from every mode
    assert model.predict(new).tolist() == [model.labels_[0], model.labels_[-1]]


def test_kprototypes_keeps_the_first_start_when_a_later_one_ends_in_the_same_clusters(monkeypatch):
    # a later start that renames the same clusters has a cost an ulp lower or higher by
    # summation order: which one was kept was the CPU's choice
    from lowdim import KPrototypes
    from lowdim.cluster import _kprototypes

    rng = np.random.default_rng(7)
    rows, _ = _mixed_blobs(rng)
    first = KPrototypes(n_clusters=3, n_init=1, random_state=0).fit(rows)
    one_run = _kprototypes._one_run
    calls = []

    def renamed_after_the_first(*args):
        labels, (Cn, Cc), cost, n_iter, converged = one_run(*args)
        calls.append(cost)
        if len(calls) == 1:
            return labels, (Cn, Cc), cost, n_iter, converged
        order = np.array([2, 0, 1])  # the same clusters under other names, an ulp cheaper
        return order[labels], (Cn[np.argsort(order)], Cc[np.argsort(order)]), np.nextafter(cost, 0), n_iter, converged

    monkeypatch.setattr(_kprototypes, "_one_run", renamed_after_the_first)
    model = KPrototypes(n_clusters=3, n_init=3, random_state=0).fit(rows)
    assert len(calls) == 3
    np.testing.assert_array_equal(model.labels_, first.labels_)


def test_kmodes_counts_differing_categories():
    from lowdim import KModes

    rng = np.random.default_rng(8)
    rows = _categories(rng, n=60)
    model = KModes(n_clusters=4, random_state=0).fit(rows)
    _check_fixed_point(model, rows)
    assert model.gamma_ == 1.0 and float(model.cost_).is_integer()
    with pytest.raises(ValueError, match="n_clusters=61 must be at most n_samples=60"):
        KModes(n_clusters=61).fit(rows)
    # measurements read as categories: every row its own category, the column separates nothing
    measured = [[*row, f"{value:.6f}"] for row, value in zip(rows, rng.normal(size=60))]
    with pytest.warns(UserWarning, match="in column 'x3', 60 of 60 rows have a category of their own"):
        KModes(n_clusters=4, random_state=0).fit(measured)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KModes(n_clusters=4, random_state=0).fit(rows)  # categories shared by many rows: no warning


@pytest.mark.parametrize(
    "model, rows",
    [
        (lambda: lowdim.KModes(2, random_state=0), pd.DataFrame({"c": ["a"] * 30})),
        (
            lambda: lowdim.KPrototypes(3, random_state=0),
            pd.DataFrame({"x": np.repeat([0.0, 1.0], 15), "c": ["a"] * 30}),
        ),
    ],
)
def test_fewer_distinct_rows_than_clusters_settle_at_once_with_a_warning(model, rows):
    # an empty cluster took a copy of a row, which went back at the next assignment
    # (ties go to the first cluster): max_iter rounds, then "rows still moved"
    with pytest.warns(UserWarning, match="Number of distinct clusters") as record:
        fitted = model().fit(rows)
    assert not any("still moved" in str(w.message) for w in record)
    assert fitted.n_iter_ == 1 and fitted.cost_ == 0.0
    assert np.unique(fitted.labels_).size == len(rows.drop_duplicates())


def test_cli_clusters_a_mixed_table_with_kprototypes(tmp_path, capsys):
    out = tmp_path / "k.csv"
    assert main(["cluster", "--dataset", "penguins", "-m", "kprototypes", "-k", "3", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 345 and "cluster" in lines[0]
    assert main(["cluster", "--dataset", "penguins", "-m", "kmeans", "-k", "3", "-o", str(tmp_path / "x.csv")]) == 2
    assert "kmeans compares numbers, but 2 column(s) hold categories" in capsys.readouterr().err


def test_choosing_k_for_a_mixed_table_reads_the_knee_of_the_kprototypes_cost(tmp_path, capsys):
    from lowdim.cluster import select_n_clusters

    rows, _ = _mixed_blobs(np.random.default_rng(11), n=150)
    selection = select_n_clusters(rows, "elbow", k_range=range(1, 8), random_state=0)
    assert selection.n_clusters == 3 and np.all(np.diff(selection.scores) <= 1e-9)  # the cost falls with k
    with pytest.raises(ValueError, match="method='silhouette' is defined for numbers"):
        select_n_clusters(rows, "silhouette", random_state=0)
    out = tmp_path / "k.csv"
    code = main(["cluster", "--dataset", "penguins", "-m", "kprototypes", "--select", "elbow", "-o", str(out)])
    assert code == 0 and "--select elbow: k = " in capsys.readouterr().out


def test_the_cli_biplot_names_categories_by_the_files_levels(tmp_path):
    from types import SimpleNamespace

    from lowdim.cli._embed import biplot_points

    table, _ = lowdim.load_penguins()
    famd = FAMD(n_components=2, categorical=[0, 5]).fit(table.X)
    data = SimpleNamespace(names=table.names, levels=table.levels)
    coordinates, names = biplot_points(famd, data)
    assert names[:3] == ["island=Biscoe", "island=Dream", "island=Torgersen"] and "sex=male" in names
    np.testing.assert_array_equal(coordinates, famd.column_coordinates_[5:])  # after the 5 numbers
    ca = CA(n_components=2).fit(SMOKE)
    assert biplot_points(ca, SimpleNamespace(names=list("abcd"), levels={}))[1] == list("abcd")
    png = tmp_path / "famd.png"
    assert main(["embed", "--dataset", "penguins", "-m", "famd", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
