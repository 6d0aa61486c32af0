"""Input validation: what bad arrays get (see docs/reliability.md).

``check_array`` converts array-likes to float32/float64 numpy arrays (or sparse
matrices where allowed) and raises errors that name the problem, where it is and what
to do. ``check_features`` keeps the number and names of features consistent between
``fit`` and later calls. Inputs are never modified.
"""

import numpy as np
import scipy.sparse as sp

from ._messages import listed, shown
from ._warnings import warn_user
from .exceptions import DataShapeError

_FLOATS = (np.float32, np.float64)
_SPARSE_FORMATS = ("csr", "csc")


def _as_float_dtype(dtype):
    """float32 stays float32, everything else numeric becomes float64."""
    return np.float32 if dtype in (np.float16, np.float32) else np.float64


# what to do with a table of categories or dates, for an estimator that compares numbers
MIXED_TABLE_HINT = (
    "a table of categories and numbers is read as it is by FAMD, MCA and KPrototypes, and by the methods that "
    "compare rows by Gower's distance (metric='gower': UMAP, TSNE, PaCMAP, HDBSCAN, KMedoids, ...); elsewhere "
    "code it first (codes = lowdim.mixed_codes(X), then codes.X with codes.metric_params): see the guide's "
    "'Categorical and mixed data'"
)


def _is_pandas_gap(value):
    """pandas' missing value of its nullable dtypes (``pd.NA``, from ``Int64``,
    ``Float64``, ``boolean`` columns), without importing pandas."""
    return type(value).__name__ == "NAType" and type(value).__module__.startswith("pandas")


def check_labels_given(labels, function_name):
    """Refuse labels with a gap (``missing_labels``), naming the first row and the fix:
    a score against labels has no answer for a row without one (scikit-learn refuses
    NaN the same way).

    Examples
    --------
    >>> check_labels_given([1, 2, 2], "knn_accuracy")
    >>> try:
    ...     check_labels_given([1.0, float("nan")], "knn_accuracy")
    ... except ValueError as error:
    ...     print(str(error).split(";")[0])
    knn_accuracy: the labels have 1 missing value(s), the first at row 1
    """
    gaps = missing_labels(labels)
    if gaps.any():
        raise ValueError(
            f"{function_name}: the labels have {int(gaps.sum())} missing value(s), the first at row "
            f"{int(np.argmax(gaps))}; score the labelled rows only (lowdim.methods.labelled(y) selects them)."
        )


def missing_labels(labels):
    """Which labels are missing: NaN, None, pandas' NA, or an empty cell (a table's label
    column with gaps reads as empty strings).

    Parameters
    ----------
    labels : array-like (n,)

    Returns
    -------
    ndarray of bool (n,)

    Examples
    --------
    >>> missing_labels(["a", "", None, float("nan"), "b"]).tolist()
    [False, True, True, True, False]
    """
    values = np.asarray(labels).reshape(-1)
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "US":
        return values == ""
    if values.dtype.kind == "O":
        return np.array([_is_label_gap(v) for v in values], dtype=bool)
    return np.zeros(values.shape, dtype=bool)


def _is_label_gap(value):
    if value is None or _is_pandas_gap(value):
        return True
    return (isinstance(value, str) and value == "") or (isinstance(value, float) and value != value)


def _convert_object_array(X, name, columns=None):
    """Convert an object array of numbers to float64, naming the first bad cell (and
    its column's name, ``columns``, for a DataFrame); pandas' ``NA`` (a nullable
    column's gap) becomes NaN, a gap like any other."""
    flat = X.reshape(X.shape[0], -1) if X.ndim >= 1 else X.reshape(1, 1)
    gaps = []
    for idx, value in np.ndenumerate(flat):
        if _is_pandas_gap(value):
            gaps.append(idx)
            continue
        try:
            if isinstance(value, (complex, np.complexfloating)) and value.imag != 0:
                raise TypeError("float() argument must be a string or a real number, not complex")
            float(value)
        except (TypeError, ValueError) as exc:
            where = f"row {idx[0]}, column {idx[1]}" if len(idx) == 2 else f"index {idx}"
            if columns is not None and len(idx) == 2 and idx[1] < len(columns):
                where += f" ({shown(columns[idx[1]])})"
            fix = "convert it to a number"
            if isinstance(value, str):  # a category
                fix = MIXED_TABLE_HINT
            elif hasattr(value, "isoformat"):  # a date or time
                fix = "lowdim.preprocessing.as_days(column) turns dates into days since 1970-01-01 (numbers)"
            raise type(exc)(
                f"{name} contains a non-numeric value {value!r} (type {type(value).__name__}) at {where} "
                f"({exc}); {fix}, or drop that column before fitting."
            ) from None
    if gaps:
        X = X.copy()
        X.reshape(flat.shape)[tuple(np.array(gaps).T)] = np.nan
    return X.astype(np.float64)


def _first_nonfinite(X, name, columns=None):
    """Raise naming the first NaN or infinity (row, column, and the column's name when
    ``columns`` gives it) and how many there are."""
    bad = ~np.isfinite(X)
    rows, cols = np.nonzero(bad)
    r, c = int(rows[0]), int(cols[0])
    kind = "NaN" if np.isnan(X[r, c]) else "infinity"
    column = f"column {c}" + (f" ({shown(columns[c])})" if columns is not None and c < len(columns) else "")
    raise ValueError(
        f"Input {name} contains {kind} at row {r}, {column} ({rows.size} non-finite "
        "value(s) in all). Remove or impute missing values first, or use a method "
        "documented to accept NaN."
    )


TINY = np.sqrt(np.finfo(np.float64).tiny)  # about 1.5e-154: smaller values square to nothing


def _check_magnitude(X, lo, hi, name):
    """Refuse values so large that squared sums overflow during centering/scaling, or
    all so small that their squares underflow (every variance would read 0)."""
    big = max(abs(float(lo)), abs(float(hi)))
    if 0 < big < TINY:
        raise ValueError(
            f"underflow while centering/scaling: {name} has no value larger than {big:.3g} in magnitude, "
            f"too small to square (below about {TINY:.1g}, squares vanish in float64 and every variance "
            "would read 0); rescale the data, e.g. divide by its largest absolute value."
        )
    limit = np.sqrt(np.finfo(np.float64).max / max(1, X.size))
    if big > limit:
        raise ValueError(
            f"overflow while centering/scaling: {name} has values as large as {big:.3g}, "
            f"too large to square and sum (limit about {limit:.3g}); rescale the data, "
            "e.g. divide by its largest absolute value."
        )


def _check_finite_dense(X, name, allow_nan, columns=None):
    if X.size == 0:
        return
    lo, hi = X.min(), X.max()  # NaN propagates, so one reduction each finds both
    if np.isfinite(lo) and np.isfinite(hi):
        _check_magnitude(X, lo, hi, name)
        return
    if allow_nan:
        if np.isinf(X).any():
            _first_nonfinite(np.where(np.isnan(X), 0, X), name, columns)
        finite = X[np.isfinite(X)]
        if finite.size:
            _check_magnitude(X, finite.min(), finite.max(), name)
        return
    _first_nonfinite(X, name, columns)


def _check_shape(shape, name, estimator_name, min_samples, min_features):
    if len(shape) != 2:
        if len(shape) == 1:
            raise DataShapeError(
                f"Expected a 2D array for {name}, got a 1D array of shape {shape}. Reshape "
                "your data either using array.reshape(-1, 1) if it has a single feature "
                "or array.reshape(1, -1) if it contains a single sample."
            )
        raise DataShapeError(
            f"Expected a 2D array for {name}, got an array of shape {shape}. Reshape your "
            "data to (n_samples, n_features)."
        )
    who = f" by {estimator_name}" if estimator_name else ""
    if shape[0] < min_samples:
        raise DataShapeError(
            f"Found array with {shape[0]} sample(s) (shape={shape}) while a minimum of "
            f"{min_samples} is required{who}. Reshape your data or pass more rows."
        )
    if shape[1] < min_features:
        raise DataShapeError(
            f"Found array with {shape[1]} feature(s) (shape={shape}) while a minimum of "
            f"{min_features} is required{who}. Reshape your data or pass more columns."
        )


def _check_sparse(X, name, estimator_name, accept_sparse, allow_nan):
    if not accept_sparse:
        raise TypeError(
            f"{estimator_name or 'This method'} does not accept sparse input ({name} is a "
            f"{type(X).__name__}); convert it with X.toarray() if it fits in memory."
        )
    if X.format not in _SPARSE_FORMATS:
        X = X.tocsr()
    if not X.has_canonical_format:  # a repeated entry is their sum (scipy's reading); kernels read each once
        X = X.copy()
        X.sum_duplicates()
    if np.iscomplexobj(X.data):
        raise ValueError(f"Complex data not supported: {name} has dtype {X.dtype}.")
    dtype = _as_float_dtype(X.dtype.type)
    if X.dtype != dtype:
        X = X.astype(dtype)
    _check_finite_dense(X.data.reshape(1, -1), name + ".data", allow_nan)
    return X


def check_array(
    X,
    *,
    name="X",
    estimator_name=None,
    accept_sparse=False,
    allow_nan=False,
    min_samples=1,
    min_features=1,
):
    """Validate and convert ``X`` to a 2-D float32/float64 array.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        The data. DataFrames, lists and memory maps are accepted.
    name : str
        How to call ``X`` in messages.
    estimator_name : str, optional
        The caller, named in messages.
    accept_sparse : bool
        Whether scipy.sparse input is allowed (returned as CSR/CSC, not densified).
    allow_nan : bool
        Whether NaN is allowed (infinity never is).
    min_samples, min_features : int
        Smallest allowed shape.
    Returns
    -------
    ndarray or sparse matrix
        float32 if the input was float16/float32, float64 otherwise. The input itself
        is returned when no conversion is needed; callers must not write to it.

    Examples
    --------
    >>> check_array([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    columns = feature_names_of(X)  # a DataFrame's: a gap is named by its column
    X = convert_array(
        X,
        name=name,
        estimator_name=estimator_name,
        accept_sparse=accept_sparse,
        allow_nan=allow_nan,
        min_samples=min_samples,
        min_features=min_features,
    )
    if not sp.issparse(X):  # sparse data had their stored values checked
        _check_finite_dense(X, name, allow_nan, columns)
    return X


def is_anndata(obj):
    """Whether ``obj`` is an AnnData object (by its parts: anndata need not be installed).

    Parameters
    ----------
    obj : object

    Returns
    -------
    bool

    Examples
    --------
    >>> is_anndata(np.zeros((2, 2)))
    False
    """
    return all(hasattr(obj, part) for part in ("X", "obs", "obsm", "var_names", "uns"))


def _refuse_anndata(X, estimator_name):
    """An AnnData object holds several matrices: say which to pass, and where the
    AnnData-in, AnnData-out functions are."""
    if is_anndata(X):
        who = estimator_name or "this estimator"
        method = (estimator_name or "pca").lower()
        raise TypeError(
            f"{who} got an AnnData object, which holds several matrices; pass the one to use (adata.X, "
            f"adata.layers['counts'], adata.obsm['X_pca']), or call lowdim.anndata.{method}(adata) where it exists, "
            "which writes its results into the AnnData as scanpy does."
        )


def convert_array(
    X, *, name="X", estimator_name=None, accept_sparse=False, allow_nan=False, min_samples=1, min_features=1
):
    """``check_array`` without the NaN/infinity scan of dense data: for a caller whose
    first pass reads every entry into sums (column moments, ``X^T X``), which are
    finite exactly when the data are, and which calls ``check_finite(X)`` to name the
    bad entry only when they are not (PCA: ``checked_moments``). The scan is a full
    pass over the data; this saves it.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
    name, estimator_name, accept_sparse, allow_nan, min_samples, min_features
        As in ``check_array``.

    Returns
    -------
    ndarray or sparse matrix

    Examples
    --------
    >>> convert_array([[1.0, float("inf")]]).shape  # not scanned: the caller's sums will show it
    (1, 2)
    """
    _refuse_anndata(X, estimator_name)
    if sp.issparse(X):
        X = _check_sparse(X, name, estimator_name, accept_sparse, allow_nan)
        _check_shape(X.shape, name, estimator_name, min_samples, min_features)
        return X
    columns = feature_names_of(X)
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    X = X if isinstance(X, np.memmap) else np.asarray(X)  # memory maps stay lazy
    if np.iscomplexobj(X):
        raise ValueError(
            f"Complex data not supported: {name} has dtype {X.dtype}; pass the real part, "
            "the absolute value, or real and imaginary parts as separate features."
        )
    if X.dtype.kind in "OUSV":
        if X.dtype.kind != "O":
            raise ValueError(
                f"{name} has non-numeric dtype {X.dtype} (first value {shown(X.flat[0])} if any); "
                f"convert the text columns to numbers or drop them; {MIXED_TABLE_HINT}."
                if X.size
                else f"{name} has non-numeric dtype {X.dtype}."
            )
        X = _convert_object_array(X, name, columns)
    elif X.dtype.kind not in "biuf":
        raise ValueError(f"{name} has unsupported dtype {X.dtype}; pass numeric data.")
    _check_shape(X.shape, name, estimator_name, min_samples, min_features)
    dtype = _as_float_dtype(X.dtype.type)
    if X.dtype != dtype:
        X = X.astype(dtype)
    return X


def check_finite(X, name="X", columns=None):
    """Raise naming the first NaN/infinity (and its column's name, given ``columns``),
    or values too large to square and sum.

    Examples
    --------
    >>> check_finite(np.ones((2, 2)))
    """
    if sp.issparse(X):
        X, columns = X.data.reshape(1, -1), None  # stored values: their column is not the array's
    _check_finite_dense(X, name, allow_nan=False, columns=columns)


def feature_names_of(X):
    """Column names of a DataFrame-like ``X`` as an object array, or None.

    Examples
    --------
    >>> feature_names_of([[1.0]]) is None
    True
    """
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "to_numpy"):
        return None
    names = np.asarray(list(columns), dtype=object)
    kinds = {type(n) for n in names}
    if names.size and all(isinstance(n, str) for n in names):
        return names
    if len(kinds) > 1 and any(isinstance(n, str) for n in names):
        raise TypeError(
            "Feature names are only supported if all input features have string names, "
            f"but your input has {sorted(t.__name__ for t in kinds)} as feature name / "
            "column name types. Convert them all to str, e.g. X.columns = X.columns.astype(str)."
        )
    return None


def _compare_names(fitted, names, estimator_name):
    if fitted is None and names is not None:
        warn_user(f"X has feature names, but {estimator_name} was fitted without feature names", UserWarning)
        return
    if fitted is not None and names is None:
        warn_user(
            f"X does not have valid feature names, but {estimator_name} was fitted with feature names", UserWarning
        )
        return
    if fitted is None or (len(fitted) == len(names) and (fitted == names).all()):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    if unseen:
        message += "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + "".join(f"- {n}\n" for n in missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def check_features(estimator, X_raw, X, *, reset):
    """Record (``reset=True``) or check the feature count and names of ``X``.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_`` and, for DataFrames, ``feature_names_in_``.
    X_raw : array-like
        The input as the user passed it (for column names).
    X : ndarray or sparse matrix
        The validated array.
    reset : bool
        True in ``fit``; False in ``transform`` and later ``partial_fit`` calls.

    Examples
    --------
    >>> class E: pass
    >>> e = E(); check_features(e, [[1, 2]], np.ones((1, 2)), reset=True); e.n_features_in_
    2
    """
    names = feature_names_of(X_raw)
    cls = type(estimator).__name__
    if reset:
        estimator.n_features_in_ = X.shape[1]
        if names is not None:
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return
    _compare_names(getattr(estimator, "feature_names_in_", None), names, cls)
    expected = estimator.n_features_in_
    if X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {cls} is expecting {expected} features as "
            f"input ({cls} was fitted with {expected}); pass data with the same columns "
            "as in fit."
        )


def check_no_underflow(X, columns, estimator_name):
    """Raise when one of ``columns`` (whose variance read 0) is not constant: its
    values are too small for their squares to register in float64.

    Examples
    --------
    >>> check_no_underflow(np.array([[1.0, 2.0], [1.0, 3.0]]), [0], "PCA")
    """
    block = X[:, columns]
    if sp.issparse(block):
        lo, hi = block.min(axis=0).toarray().ravel(), block.max(axis=0).toarray().ravel()
    else:
        lo, hi = np.nanmin(block, axis=0), np.nanmax(block, axis=0)
    varying = np.flatnonzero(hi > lo)
    if varying.size:
        j = int(np.asarray(columns)[varying[0]])
        raise ValueError(
            f"underflow: {estimator_name}'s input column {j} varies (from {lo[varying[0]]:.3g} to "
            f"{hi[varying[0]]:.3g}) but its variance underflows to 0 in float64; rescale the data, "
            "e.g. divide each column by its largest absolute value."
        )


def warn_constant_features(
    variances, estimator_name, identical_note="the components are arbitrary and explain no variance", X=None
):
    """Warn naming the zero-variance features (or that all rows are identical). With the
    data ``X``, a zero variance that is really an underflow (a column that varies at
    about 1e-300) is an error instead of a false warning.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_constant_features(np.array([1.0, 0.0]), "PCA")
    >>> "columns 1" in str(w[0].message)
    True
    """
    zero = np.flatnonzero(np.asarray(variances) == 0)
    if zero.size == 0:
        return
    if X is not None:
        check_no_underflow(X, zero, estimator_name)
    if zero.size == np.size(variances):
        warn_user(
            f"{estimator_name}: all rows of X are identical (every feature has zero variance); {identical_note}.",
            UserWarning,
        )
        return
    warn_user(
        f"{estimator_name}: {zero.size} feature(s) have zero variance (columns {listed(zero)}); "
        "they carry no information, consider dropping them.",
        UserWarning,
    )


def check_reduced_rows(estimator, rows_name):
    """A loaded model's stored rows (``rows_name``) must be as wide as what its new rows
    become: the features, or with ``pca_components_`` that many principal components
    (with the ``pca_mean_`` they are centred by; a mean may also come alone).

    Examples
    --------
    >>> class Fitted:
    ...     n_features_in_, pca_mean_, pca_components_ = 3, None, None
    ...     X_fit_ = np.zeros((4, 3))
    >>> check_reduced_rows(Fitted(), "X_fit_")
    """
    mean, components = estimator.pca_mean_, estimator.pca_components_
    if components is not None and mean is None:
        raise ValueError("pca_components_ come with the pca_mean_ they are centred by: the file holds no pca_mean_")
    width = estimator.n_features_in_ if components is None else components.shape[0]
    rows = getattr(estimator, rows_name)
    if rows.shape[1] != width:
        held = "features" if components is None else "principal components"
        raise ValueError(f"{rows_name} has {rows.shape[1]} columns where the model's rows have {width} {held}")


def check_sample_count(n_samples, estimator_name, n_components=None):
    """The check every embedding makes before its work: at least 2 samples, and (for
    methods whose output is bounded by the points) at most ``n_samples`` components.

    Examples
    --------
    >>> check_sample_count(10, "UMAP", n_components=2)
    """
    if n_samples < 2:
        raise ValueError(f"{estimator_name} needs at least 2 samples; got {n_samples} sample.")
    if n_components is not None:
        check_at_most_samples(n_components, n_samples)


def check_at_most_samples(value, n_samples, name="n_components"):
    """An output bounded by the points (embedding coordinates, mixture components):
    ``name=value`` at most ``n_samples``, or an error naming both.

    Examples
    --------
    >>> check_at_most_samples(5, 4, "n_dims")
    Traceback (most recent call last):
    ...
    ValueError: n_dims=5 must be at most n_samples=4; lower n_dims or pass more samples.
    """
    if value > n_samples:
        raise ValueError(f"{name}={value} must be at most n_samples={n_samples}; lower {name} or pass more samples.")


def check_n_components(n_components, n_samples, n_features, estimator_name, *, below_features=False):
    """Errors naming both numbers when ``n_components`` does not fit the data shape.

    Examples
    --------
    >>> check_n_components(2, 10, 5, "PCA")
    """
    if n_samples < 2:
        raise ValueError(
            f"{estimator_name} needs at least 2 samples to estimate variance; got "
            f"{n_samples} sample (n_samples = {n_samples}). Pass more rows."
        )
    if below_features and n_features < 2:
        raise ValueError(
            f"{estimator_name} needs at least 2 features, one latent and one for the "
            f"noise; got n_features = {n_features}."
        )
    if n_components is None:
        return
    if n_components > min(n_samples, n_features):
        raise ValueError(
            f"n_components={n_components} must be at most min(n_samples, n_features) = "
            f"min({n_samples}, {n_features}) = {min(n_samples, n_features)}; lower "
            "n_components."
        )
    if below_features and n_components >= n_features:
        raise ValueError(
            f"{estimator_name} needs n_components < n_features (n_features = "
            f"{n_features}) to leave room for the noise; got n_components={n_components}."
        )


def check_sample_weight(sample_weight, n_samples):
    """Sample weights as float64: ones when None, else finite, non-negative, not all zero.

    Examples
    --------
    >>> check_sample_weight(None, 3)
    array([1., 1., 1.])
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:  # one weight for every sample, checked as the array it stands for
        w = np.full(n_samples, float(w))
    if w.shape != (n_samples,):
        raise ValueError(f"sample_weight has shape {w.shape}; expected ({n_samples},), one weight per sample.")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise ValueError(
            f"sample_weight must be finite and non-negative; got {w[bad][0]:g} at sample "
            f"{np.flatnonzero(bad)[0]} ({int(bad.sum())} such weights)."
        )
    if w.sum() <= 0:
        raise ValueError(
            "Sample weights must have a positive sum: every weight is zero; give some samples a positive weight."
        )
    return w


_SINGULAR = {"distances": "distance", "dissimilarities": "dissimilarity"}


def check_affinities(A, name):
    """Refuse a negative affinity (a graph's edge weight), naming it: a negative weight
    makes the graph Laplacian indefinite, and its eigenvectors mean nothing.

    Examples
    --------
    >>> check_affinities(np.array([[0.0, 1.0], [1.0, 0.0]]), "SpectralEmbedding").shape
    (2, 2)
    """
    values = A.data if sp.issparse(A) else np.asarray(A)
    if values.size and values.min() < 0:
        i, j = _cell(A, int(np.argmin(values)))
        raise ValueError(
            f"{name}: affinities must be non-negative; the graph has {values.min():g} at [{i}, {j}]. Pass similarities "
            "(a kernel such as exp(-d^2 / s^2)), not distances or correlations."
        )
    return A


def check_precomputed(D, *, what="distances", symmetric=False, parameter="metric='precomputed'"):
    """``D`` as a precomputed matrix of ``what`` (dense, or scipy.sparse: its stored
    entries): square and non-negative; with ``symmetric`` (a method that reads each pair
    once, or whose algorithm assumes ``D[i, j] == D[j, i]``) the same both ways up to
    rounding (dense only: a sparse one stores each row's nearest). A dense matrix whose
    every row is largest on its diagonal is refused: a point is nearest itself in
    distances, farthest in similarities (a kernel, correlations, a cosine similarity),
    which is what such a matrix holds.

    Examples
    --------
    >>> check_precomputed(np.array([[0.0, 2.0], [2.0, 0.0]]), symmetric=True).shape
    (2, 2)
    >>> check_precomputed(np.array([[1.0, 0.3], [0.3, 1.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: metric='precomputed' needs distances, but every row of X is largest on its diagonal ...
    """
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(
            f"The precomputed {_SINGULAR[what]} matrix is expected to be square, however it has shape {D.shape} "
            f"({parameter}); pass one row and one column per sample."
        )
    values = D.data if sp.issparse(D) else D
    if values.size and np.nanmin(values) < 0:
        i, j = _cell(D, np.nanargmin(values))
        raise ValueError(
            f"All distances should be positive, the precomputed distances given as X is not correct: {parameter} "
            f"needs non-negative {what}, and X has negative entries (X[{i}, {j}] = {np.nanmin(values):g})."
        )
    if not sp.issparse(D):  # a sparse matrix stores each row's nearest: unstored is not asymmetric
        if symmetric:
            _check_symmetric(np.asarray(D), what, parameter)
        if D.shape[0] > 1:
            _refuse_similarities(np.asarray(D), what, parameter)
    return D


def _cell(D, flat):
    """``(row, column)`` of entry ``flat`` of a dense array, or of a sparse matrix's data."""
    if sp.issparse(D):
        coo = D.tocoo()
        return int(coo.row[flat]), int(coo.col[flat])
    return tuple(int(i) for i in np.unravel_index(flat, D.shape))


def _check_symmetric(D, what, parameter):
    """The same value both ways up to a relative 1e-8 of the largest finite entry (two
    infinite entries are equal)."""
    with np.errstate(invalid="ignore"):  # inf - inf: both infinite, symmetric
        gap = np.where(D == D.T, 0.0, np.abs(D - D.T))
    flat = int(np.argmax(gap))
    largest = float(np.abs(D[np.isfinite(D)]).max(initial=0.0))
    if gap.flat[flat] > 1e-8 * max(largest, 1e-300):
        i, j = _cell(D, flat)
        raise ValueError(
            f"The precomputed {_SINGULAR[what]} matrix is expected to be symmetric, however it has different values: "
            f"X[{i}, {j}] = {D[i, j]:g} but X[{j}, {i}] = {D[j, i]:g} ({parameter}); pass (X + X.T) / 2 if that is "
            "noise."
        )


def _refuse_similarities(D, what, parameter):
    """Refuse a matrix whose every row is largest on its (positive) diagonal."""
    diagonal = np.diagonal(D)
    if not diagonal.max() > 0 or np.any(diagonal < np.nanmax(D, axis=1)):
        return
    other = 1 if D.shape[1] > 1 else 0
    raise ValueError(
        f"{parameter} needs {what}, but every row of X is largest on its diagonal (X[0, 0] = {D[0, 0]:g}, "
        f"X[0, {other}] = {D[0, other]:g}): these look like similarities; pass distances (1 - S for correlations or "
        "cosine similarities, sqrt(2 - 2 S) for a kernel with ones on its diagonal)."
    )
