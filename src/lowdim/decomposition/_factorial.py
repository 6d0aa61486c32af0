"""The factorial methods for categories (the FactoMineR family): correspondence analysis
of a contingency table (CA), of many categorical variables (MCA), and factor analysis of
mixed data (FAMD). Categories are one-hot coded as sparse indicator matrices, never
densified."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._estimator import ValidatedInputMixin
from .._mixed_input import MixedInputMixin
from .._params import ARRAY_LIKE, NONE, Interval, Options, validate_params
from .._validation import check_array, check_sample_count
from .._warnings import warn_user
from ..linalg import column_moments, flip_signs, top_eigh
from ._correspondence import CorrespondenceResult, _masses, chi_square_svd, supplementary_rows
from ._n_components import explained_shares


class _FactorialBase(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """``fit_transform`` (the rows' coordinates) and the output names of the factorial methods."""

    @property
    def _n_features_out(self):
        return self.row_coordinates_.shape[1]

    def fit_transform(self, X, y=None):
        """Fit and return the principal coordinates of the rows.

        Parameters
        ----------
        X : array-like or DataFrame
        y : ignored

        Returns
        -------
        ndarray (n_rows, k)
        """
        return self.fit(X).row_coordinates_

    def _keep_result(self, result):
        """Store a ``CorrespondenceResult`` as fitted attributes."""
        self.eigenvalues_ = result.eigenvalues
        self.total_inertia_ = result.total_inertia
        self.explained_inertia_ratio_ = explained_shares(result.eigenvalues, result.total_inertia)
        self.row_coordinates_ = result.row_coordinates
        self.column_coordinates_ = result.column_coordinates
        self.column_standard_coordinates_ = result.column_standard
        self.row_contributions_ = result.row_contributions
        self.column_contributions_ = result.column_contributions
        self.row_cos2_ = result.row_cos2
        self.column_cos2_ = result.column_cos2
        self.n_components_ = result.eigenvalues.size


class CA(ValidatedInputMixin, _FactorialBase):
    """Correspondence analysis of a contingency table (counts of rows x columns).

    The rows' and columns' profiles are compared by the chi-square distance; the
    standardised residuals ``D_r^{-1/2} (P - r c^T) D_c^{-1/2}`` are decomposed by an SVD
    (from the Gram matrix of the smaller side; a sparse table stays sparse). Rows and
    columns get principal coordinates in one space (the symmetric map), contributions
    and squared cosines; new rows (``transform``) and new columns
    (``transform_columns``) are placed as supplementary points.

    Parameters
    ----------
    n_components : int, default=2
        Dimensions kept (at most min(rows, columns) - 1; fewer when the table's rank is lower).

    Attributes
    ----------
    eigenvalues_ : ndarray (k,)
        Principal inertias, descending (k = ``n_components_``).
    total_inertia_ : float
        Chi-square statistic over the grand total (the sum of all principal inertias).
    explained_inertia_ratio_ : ndarray (k,)
    row_coordinates_, column_coordinates_ : ndarray (n_rows, k), (n_columns, k)
        Principal coordinates.
    column_standard_coordinates_ : ndarray (n_columns, k)
        What a new row's profile is multiplied by (``transform``).
    row_standard_coordinates_ : ndarray (n_rows, k)
        What a new column's profile is multiplied by (``transform_columns``).
    row_contributions_, column_contributions_ : ndarray
        Share of each dimension's inertia due to each row (column); columns sum to 1.
    row_cos2_, column_cos2_ : ndarray
        Squared cosines: how much of each row's (column's) inertia each dimension shows.
    n_components_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.decomposition import CA
    >>> smoke = np.array([[4, 2, 3, 2], [4, 3, 7, 4], [25, 10, 12, 4], [18, 24, 33, 13], [10, 6, 7, 2]])
    >>> ca = CA(n_components=3).fit(smoke)   # Greenacre's staff groups x smoking
    >>> ca.eigenvalues_.round(5).tolist(), round(ca.total_inertia_, 5)
    ([0.07476, 0.01002, 0.00041], 0.08519)
    """

    _parameter_constraints = {"n_components": [Interval(int, 1, None, closed="left")]}

    def __init__(self, n_components=2):
        self.n_components = n_components

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y=None):
        """Fit on a contingency table of non-negative counts.

        Parameters
        ----------
        X : array-like or sparse matrix (n_rows, n_columns)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        N = _check_counts(self._validate_input(X, reset=True, accept_sparse=("csr", "csc")))
        rows, cols = _with_counts(N, 1), _with_counts(N, 0)
        _check_table_size(self.n_components, rows.size, cols.size)
        P, r, c = _masses(N[rows][:, cols])
        result = CorrespondenceResult(P, r, c, self.n_components)
        if result.total_inertia == 0:
            warn_user(
                "CA: every row of the table has the same profile (the same shares of its columns), so the "
                "table has no inertia: its axes are arbitrary and explain none of it.",
                UserWarning,
            )
        self._keep_result(result)
        self.row_standard_coordinates_ = result.row_standard
        self._scatter_back(N.shape, rows, cols)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the principal coordinates of the rows (in X's float dtype).

        Parameters
        ----------
        X : array-like or sparse matrix (n_rows, n_columns)
        y : ignored

        Returns
        -------
        ndarray (n_rows, k)
        """
        dtype = np.float32 if getattr(X, "dtype", None) == np.float32 else np.float64
        return self.fit(X).row_coordinates_.astype(dtype, copy=False)

    def _scatter_back(self, shape, rows, cols):
        """Rows and columns without counts take no part: zeros in every per-row and per-column result."""
        if rows.size == shape[0] and cols.size == shape[1]:
            return
        warn_user(
            f"CA: {shape[0] - rows.size} row(s) and {shape[1] - cols.size} column(s) of the table have no counts; "
            "they take no part in the analysis and are placed at the origin.",
            UserWarning,
        )
        for name, index, size in (
            ("row_coordinates_", rows, shape[0]),
            ("row_standard_coordinates_", rows, shape[0]),
            ("row_contributions_", rows, shape[0]),
            ("row_cos2_", rows, shape[0]),
            ("column_coordinates_", cols, shape[1]),
            ("column_standard_coordinates_", cols, shape[1]),
            ("column_contributions_", cols, shape[1]),
            ("column_cos2_", cols, shape[1]),
        ):
            full = np.zeros((size, self.n_components_))
            full[index] = getattr(self, name)
            setattr(self, name, full)

    def transform(self, X):
        """Principal coordinates of new rows (supplementary rows) from their counts.

        Parameters
        ----------
        X : array-like or sparse matrix (m, n_columns)

        Returns
        -------
        ndarray (m, k)
        """
        N = _check_counts(self._validate_input(X, reset=False, accept_sparse=("csr", "csc")))
        return supplementary_rows(N, self.column_standard_coordinates_).astype(N.dtype, copy=False)

    def transform_columns(self, Y):
        """Principal coordinates of new columns (supplementary columns) from their counts
        over the fitted rows.

        Parameters
        ----------
        Y : array-like (n_rows, m)

        Returns
        -------
        ndarray (m, k)
        """
        check_is_fitted(self)
        Y = _check_counts(check_array(Y, estimator_name="CA", accept_sparse=("csr", "csc")))
        if Y.shape[0] != self.row_standard_coordinates_.shape[0]:
            raise ValueError(
                f"new columns need one count per fitted row ({self.row_standard_coordinates_.shape[0]}); "
                f"got {Y.shape[0]}."
            )
        return supplementary_rows(Y.T, self.row_standard_coordinates_)


def _check_counts(N):
    """Counts must be non-negative."""
    values = N.data if sp.issparse(N) else N
    if values.size and values.min() < 0:
        where = "" if sp.issparse(N) else " at row {}, column {}".format(*np.argwhere(N < 0)[0])
        raise ValueError(f"Negative values in data passed to CA: a contingency table holds counts{where}.")
    return sp.csr_matrix(N) if sp.issparse(N) else N


def _check_table_size(n_components, rows, cols):
    """At least 2 rows and 2 columns with counts; at most min(rows, columns) - 1 dimensions."""
    if rows < 2:
        raise ValueError(f"CA needs at least 2 rows with counts; got {rows} sample(s) (n_samples = {rows}).")
    if cols < 2:
        raise ValueError(f"CA needs at least 2 columns with counts; got {cols} feature(s) (n_features = {cols}).")
    if n_components > min(rows, cols) - 1:
        raise ValueError(
            f"n_components={n_components} must be at most min(n_rows - 1, n_columns - 1) = "
            f"min({rows - 1}, {cols - 1}) = {min(rows, cols) - 1} (the rows and columns with counts); lower "
            "n_components."
        )


def _with_counts(N, axis):
    """Indices of the rows (axis 1) or columns (axis 0) with a positive total."""
    return np.flatnonzero(np.asarray(N.sum(axis=axis)).ravel() > 0)


def indicator_matrix(codes, columns, n_levels):
    """The sparse one-hot (indicator) matrix of the category ``columns`` of ``codes``
    (NaN: no 1 in that column's block), and how many cells held a category beyond
    ``n_levels``.

    Parameters
    ----------
    codes : ndarray (n, d)
    columns : list of int
    n_levels : list of int
        Levels per listed column; a code beyond them (a category the model was not
        fitted on) gets no 1, like a gap.

    Returns
    -------
    Z : scipy.sparse.csr_matrix (n, sum(n_levels))
    unseen : int
        How many cells held such a new category.

    Examples
    --------
    >>> Z, unseen = indicator_matrix(np.array([[0.0], [1.0], [0.0]]), [0], [2])
    >>> Z.toarray().tolist()
    [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    """
    n = codes.shape[0]
    offsets = np.concatenate([[0], np.cumsum(n_levels)]).astype(np.int64)
    rows, cols, unseen = [], [], 0
    for b, j in enumerate(columns):
        with np.errstate(invalid="ignore"):
            known = codes[:, j] < n_levels[b]  # False for NaN and for new categories
        unseen += int(np.sum(~np.isnan(codes[:, j]) & ~known))
        rows.append(np.flatnonzero(known))
        cols.append(offsets[b] + codes[known, j].astype(np.int64))
    rows = np.concatenate(rows) if rows else np.empty(0, np.int64)
    cols = np.concatenate(cols) if cols else np.empty(0, np.int64)
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, int(offsets[-1]))), unseen


def _warn_unseen(count, method, how):
    """New rows with categories the model was not fitted on: say how many, and what is done."""
    if count:
        warn_user(
            f"{method}: {count} cell(s) hold a category the model was not fitted on; those rows are {how}.", UserWarning
        )


def _with_missing_level(codes, names, levels):
    """Category codes where a gap becomes a level of its own ('missing'), as FactoMineR's
    MCA reads NA; returns the codes and the levels per column."""
    codes = codes.copy()
    out = []
    for j, name in enumerate(names):
        found = list(levels.get(name, []))
        holes = np.isnan(codes[:, j])
        if holes.any():
            if "missing" not in found:
                found.append("missing")
            codes[holes, j] = found.index("missing")
        out.append(found)
    return codes, out


class MCA(MixedInputMixin, _FactorialBase):
    """Multiple correspondence analysis of categorical variables.

    The correspondence analysis of the indicator matrix (one column per category, sparse):
    rows are placed by the categories they take, categories at the barycentres of their
    rows (up to the dimension's scale). Every column is read as categories (numbers are
    codes); a gap is a category of its own ('missing'). The raw principal inertias of
    an MCA understate how much each dimension explains: Benzécri's correction and
    Greenacre's adjusted total give the figures to read.

    Parameters
    ----------
    n_components : int, default=2
    correction : {None, 'benzecri', 'greenacre'}, default=None
        What ``explained_inertia_ratio_`` reports: raw inertias over the total, Benzécri's
        corrected inertias over their sum, or over Greenacre's adjusted total inertia.

    Attributes
    ----------
    eigenvalues_ : ndarray (k,)
        Principal inertias of the indicator matrix, descending (k = ``n_components_``).
    corrected_eigenvalues_ : ndarray (k,)
        Benzécri: ``(K / (K - 1))^2 (lambda - 1 / K)^2`` for inertias above 1 / K (0 below).
    total_inertia_ : float
        ``(J - K) / K`` for J categories of K variables.
    explained_inertia_ratio_ : ndarray (k,)
        As ``correction`` says.
    row_coordinates_, column_coordinates_ : ndarray
        Principal coordinates of the rows and of the categories (``category_names_`` order).
    column_standard_coordinates_ : ndarray (n_categories, k)
        The categories' standard coordinates: a new row's coordinates are their mean over
        its categories (``transform``).
    row_contributions_, column_contributions_, row_cos2_, column_cos2_ : ndarray
    categories_ : list of list of str
        The levels of each column, in code order.
    category_names_ : list of str
        'column=level' for each category column.
    column_names_ : list of str
    n_components_, n_features_in_ : int

    Examples
    --------
    >>> from lowdim.decomposition import MCA
    >>> rows = [["a", "x"], ["a", "y"], ["b", "y"], ["b", "y"], ["a", "x"]]
    >>> mca = MCA(n_components=1).fit(rows)
    >>> mca.row_coordinates_.shape, mca.category_names_[:2]
    ((5, 1), ['x0=a', 'x0=b'])
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "correction": [NONE, Options({"benzecri", "greenacre"})],
    }

    def __init__(self, n_components=2, correction=None):
        self.n_components = n_components
        self.correction = correction

    def _indicator(self, X, reset):
        codes = self._codes(X, reset=reset, categorical="all")
        values, levels = _with_missing_level(codes.X, codes.names, codes.levels)
        if reset:
            self.column_names_, self.categories_ = codes.names, levels
        Z, unseen = indicator_matrix(values, list(range(values.shape[1])), [len(v) for v in self.categories_])
        _warn_unseen(unseen, "MCA", "placed by their other categories")
        return Z

    def fit(self, X, y=None):
        """Fit on a table of categorical variables.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (n, K)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        Z = self._indicator(X, reset=True)
        K, J = len(self.categories_), Z.shape[1]
        _check_levels(self.column_names_, self.categories_, np.asarray(Z.sum(axis=0)).ravel(), "MCA")
        check_sample_count(Z.shape[0], "MCA")
        self.category_names_ = [f"{n}={v}" for n, levels in zip(self.column_names_, self.categories_) for v in levels]
        P, r, c = _masses(Z)
        self._keep_result(CorrespondenceResult(P, r, c, min(self.n_components, max(J - K, 1))))
        lam = self.eigenvalues_
        self.corrected_eigenvalues_ = np.where(lam > 1.0 / K, (K / max(K - 1, 1) * (lam - 1.0 / K)) ** 2, 0.0)
        self.explained_inertia_ratio_ = self._ratio(lam, K, J, P, r, c)
        return self

    def _ratio(self, lam, K, J, P, r, c):
        """Explained inertia as ``correction`` asks."""
        if self.correction is None:
            return explained_shares(lam, self.total_inertia_)
        if self.correction == "benzecri":
            return explained_shares(self.corrected_eigenvalues_, self.corrected_eigenvalues_.sum())
        all_lam = chi_square_svd(P, r, c, J - K)[0] ** 2  # Greenacre needs every inertia
        adjusted = K / (K - 1) * (np.sum(all_lam**2) - (J - K) / K**2) if K > 1 else np.sum(all_lam)
        return explained_shares(self.corrected_eigenvalues_, adjusted)

    def transform(self, X):
        """Coordinates of new rows (supplementary individuals): their categories'
        standard coordinates averaged.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (m, K)

        Returns
        -------
        ndarray (m, k)
        """
        return supplementary_rows(self._indicator(X, reset=False), self.column_standard_coordinates_)


def _check_levels(names, categories, counts, method):
    """A column with one category carries nothing, and a category of a single row pulls
    a dimension of its own: say so, once per fit, naming them."""
    single = [n for n, levels in zip(names, categories) if len(levels) < 2]
    if single:
        warn_user(
            f"{method}: column {single[0]!r} has a single category ({len(single)} such column(s)); it separates no "
            "rows and adds nothing: drop it.",
            UserWarning,
        )
    labels = [f"{n}={v}" for n, levels in zip(names, categories) for v in levels]
    lonely = [label for label, count in zip(labels, counts) if count == 1]
    if lonely and counts.size > 2:
        shown = ", ".join(lonely[:5]) + (f" and {len(lonely) - 5} more" if len(lonely) > 5 else "")
        warn_user(
            f"{method}: {len(lonely)} categor{'y has' if len(lonely) == 1 else 'ies have'} a single row ({shown}); "
            "such rare categories dominate the first dimensions of a correspondence analysis: merge them into "
            "larger ones or drop them"
            + (
                " (missing values form a category of their own)."
                if any(v.endswith("=missing") for v in lonely)
                else "."
            ),
            UserWarning,
        )


class FAMD(MixedInputMixin, _FactorialBase):
    """Factor analysis of mixed data (Pagès): PCA of numbers and categories together.

    Numbers are standardised (as in a normed PCA); each category's indicator column is
    divided by the square root of its frequency and centred (as in MCA), so that both
    kinds weigh alike; the principal components of the result are found from its Gram
    matrix (the indicator block sparse). A gap in a number is its column's mean, a gap
    in a category a category of its own ('missing').

    Parameters
    ----------
    n_components : int, default=2
    categorical : sequence of int or str, optional
        Columns of numbers that are category codes; text, boolean and pandas category
        columns are categories already.

    Attributes
    ----------
    eigenvalues_ : ndarray (k,)
        Variances of the components, descending (k = ``n_components_``).
    total_inertia_ : float
        Sum of all eigenvalues: the number of numeric columns plus J - Q for J categories
        of Q categorical columns.
    explained_inertia_ratio_ : ndarray (k,)
    row_coordinates_ : ndarray (n, k)
    column_coordinates_ : ndarray (n_numeric + J, k)
        Numeric columns: their correlations with the components; categories: the mean
        coordinates of their rows.
    column_contributions_ : ndarray (n_numeric + J, k)
        Share of each component due to each numeric column and category (columns sum to 1).
    column_names_ : list of str
    kinds_ : list of str
        'numeric' or 'categorical' per input column.
    categories_ : list of list of str or None
    category_names_ : list of str
    mean_, scale_ : ndarray (n_numeric,)
    frequencies_ : ndarray (J,)
    components_ : ndarray (k, n_numeric + J)
    n_components_, n_features_in_ : int

    Examples
    --------
    >>> from lowdim.decomposition import FAMD
    >>> rows = [["a", 1.0], ["b", 2.5], ["a", 0.5], ["b", 3.0], ["a", 1.5]]
    >>> famd = FAMD(n_components=2).fit(rows)
    >>> famd.kinds_, round(famd.total_inertia_, 6)
    (['categorical', 'numeric'], 2.0)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "categorical": [ARRAY_LIKE],
    }

    def __init__(self, n_components=2, categorical=()):
        self.n_components = n_components
        self.categorical = categorical

    def _blocks(self, X, reset):
        """The standardised numbers (dense) and the indicator matrix (sparse)."""
        codes = self._codes(X, reset=reset, categorical=list(self.categorical))
        if reset:
            self.column_names_ = codes.names
            self.kinds_ = ["numeric" if k == "numeric" else "categorical" for k in codes.kinds]
        numeric = [j for j, k in enumerate(self.kinds_) if k == "numeric"]
        cats = [j for j, k in enumerate(self.kinds_) if k != "numeric"]
        values, levels = _with_missing_level(codes.X, codes.names, codes.levels)
        if reset:
            self.categories_ = [levels[j] if j in cats else None for j in range(len(levels))]
        A = codes.X[:, numeric]
        if reset:
            # moments about each column's first value: a constant column has variance 0
            # exactly (numpy's nanstd gave 1e-17 for a column of 0.1, which then counted
            # as a column of ones)
            mean, variance = column_moments(A, ddof=0, skip_nan=True) if A.size else (np.zeros(0), np.zeros(0))
            self.mean_, self.scale_ = mean, np.sqrt(variance)
        A = np.nan_to_num((A - self.mean_) / np.where(self.scale_ > 0, self.scale_, 1.0))
        Z, unseen = indicator_matrix(values, cats, [len(self.categories_[j]) for j in cats])
        _warn_unseen(unseen, "FAMD", "read as none of the fitted categories")
        return A, Z

    def fit(self, X, y=None):
        """Fit on a mixed table.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (n, d)
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        A, Z = self._blocks(X, reset=True)
        counts = np.asarray(Z.sum(axis=0)).ravel()
        self._check_kinds(A, counts)
        n = A.shape[0]
        self.frequencies_ = counts / n
        root = np.sqrt(self.frequencies_)
        B = Z @ sp.diags(1.0 / root)
        gram = _mixed_gram(A, B, root, n)
        k = min(self.n_components, gram.shape[0])
        w, V = top_eigh(gram, k)  # descending
        w = np.maximum(w, 0.0)
        (self.components_,) = flip_signs(V.T)
        self.eigenvalues_ = w
        self.total_inertia_ = float(np.trace(gram))
        self.explained_inertia_ratio_ = explained_shares(w, self.total_inertia_)
        self.n_components_ = k
        self.row_coordinates_ = self._project(A, B, root)
        self._describe_columns(Z, counts)
        return self

    def _check_kinds(self, A, counts):
        if A.shape[1] == 0:
            raise ValueError("FAMD needs numeric columns beside the categories; for categories alone use MCA.")
        check_sample_count(A.shape[0], "FAMD")
        _check_levels(
            [n for n, k in zip(self.column_names_, self.kinds_) if k != "numeric"],
            [c for c in self.categories_ if c is not None],
            counts,
            "FAMD",
        )
        numeric = [n for n, k in zip(self.column_names_, self.kinds_) if k == "numeric"]
        constant = [n for n, s in zip(numeric, self.scale_) if s == 0]
        if constant:
            warn_user(
                f"FAMD: numeric column {constant[0]!r} is constant ({len(constant)} such column(s)); it separates no "
                "rows and adds nothing: drop it.",
                UserWarning,
            )

    def _project(self, A, B, root):
        """Coordinates of rows: the centred blocks times the components."""
        p = A.shape[1]
        Va, Vb = self.components_[:, :p].T, self.components_[:, p:].T
        return A @ Va + np.asarray(B @ Vb) - root @ Vb

    def _describe_columns(self, Z, counts):
        """Correlations of the numbers, barycentres of the categories (``counts``: rows
        per category), contributions."""
        p = self.mean_.size
        self.category_names_ = [
            f"{n}={v}" for n, levels in zip(self.column_names_, self.categories_) if levels is not None for v in levels
        ]
        correlations = self.components_[:, :p].T * np.sqrt(self.eigenvalues_)
        barycentres = np.asarray(Z.T @ self.row_coordinates_) / counts[:, None]
        self.column_coordinates_ = np.vstack([correlations, barycentres])
        self.column_contributions_ = (self.components_**2).T

    def transform(self, X):
        """Coordinates of new rows, with the fitted means, scales and frequencies.

        Parameters
        ----------
        X : DataFrame, array-like or list of rows (m, d)

        Returns
        -------
        ndarray (m, k)
        """
        A, Z = self._blocks(X, reset=False)
        root = np.sqrt(self.frequencies_)
        return self._project(A, Z @ sp.diags(1.0 / root), root)


def _mixed_gram(A, B, root, n):
    """``X_c^T X_c / n`` for ``X = [A, B]`` with A centred (dense) and B's columns
    centred by ``root`` (sparse B: ``B^T B - n root root^T``), without forming X_c."""
    top = A.T @ A
    cross = np.asarray((B.T @ A).T)  # A is centred: its column sums are 0
    bottom = np.asarray((B.T @ B).toarray()) - n * np.outer(root, root)
    return np.block([[top, cross], [cross.T, bottom]]) / n
