"""Behaviour shared by lowdim's clusterers: argument checks and the centroid
interface (predict, transform, score) of k-means-like models."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin

from .._estimator import ValidatedInputMixin
from .._validation import check_sample_weight, warn_constant_features
from .._warnings import warn_user
from ..distributed import is_dask_array, map_rows
from ..exceptions import ConvergenceWarning
from ..linalg import column_moments, row_norms_sq, shifted_copy_with_norms, sq_euclidean
from ._lloyd import assign

# what the all-rows-identical warning says for clusterers
CLUSTER_NOTE = "every sample sits at one point, so there is a single distinct cluster"


def warn_constant_columns(X, name):
    """Warn about zero-variance columns of ``X`` (or that all its rows are identical).

    Examples
    --------
    >>> warn_constant_columns(np.array([[0.0, 1.0], [1.0, 2.0]]), "HDBSCAN")
    """
    _, var = column_moments(X)
    warn_constant_features(var, name, CLUSTER_NOTE, X=X)


def gower_comparable(D):
    """Gower's distances with a pair sharing no column (NaN) set to the largest
    distance, 1: such rows are never grouped for their likeness. In place (``D`` is a
    fresh n x n matrix: a copy would double the memory).

    Examples
    --------
    >>> gower_comparable(np.array([[0.0, np.nan], [np.nan, 0.0]])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    D[np.isnan(D)] = 1.0
    return D


def same_partition(x, y):
    """Whether two label arrays make the same clusters, up to their names.

    Examples
    --------
    >>> a = np.array([0, 0, 1])
    >>> same_partition(a, np.array([1, 1, 0])), same_partition(a, np.array([0, 1, 1]))
    (True, False)
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return False
    size = int(max(x.max(initial=-1), y.max(initial=-1))) + 1
    to_y, to_x = np.full(size, -1), np.full(size, -1)
    to_y[x], to_x[y] = y, x  # a label's last partner; one partner each both ways iff the same clusters
    return bool(np.array_equal(to_y[x], y) and np.array_equal(to_x[y], x))


def same_clusters(a, b):
    """``best_of_restarts``' ``same`` for k-means runs (``LoopResult`` of a state with
    ``labels``): whether they end in the same clusters.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> run = lambda labels: S(state=S(labels=np.array(labels)))
    >>> same_clusters(run([0, 0, 1]), run([1, 1, 0]))
    True
    """
    return same_partition(a.state.labels, b.state.labels)


def check_n_clusters(n_clusters, n_samples):
    """Raise when there are fewer samples than clusters.

    Examples
    --------
    >>> check_n_clusters(2, 5)
    """
    if n_clusters > n_samples:
        raise ValueError(
            f"n_clusters={n_clusters} must be at most n_samples={n_samples} (n_samples={n_samples} should be "
            f">= n_clusters={n_clusters}); lower n_clusters or pass more samples."
        )


def resolve_n_init(n_init, init, random_starts):
    """How many starts to run: one for an explicit array of centres (the same start every
    time); for ``n_init='auto'``, ``random_starts`` with a random start ('random',
    'random-partition') and one with
    the other named starts (scikit-learn's rule: 10 for KMeans, 3 for MiniBatchKMeans).

    Examples
    --------
    >>> resolve_n_init("auto", np.zeros((3, 2)), 10), resolve_n_init("auto", "random", 3)
    (1, 3)
    """
    if not isinstance(init, str):
        if n_init not in ("auto", 1):
            warn_user(
                f"Explicit initial center position passed: performing only one init instead of n_init={n_init} "
                "(every start from the same centres ends the same); leave n_init='auto' with an array init.",
                RuntimeWarning,
            )
        return 1
    if n_init == "auto":
        return random_starts if init in ("random", "random-partition") else 1
    return n_init


TWIN_TOLERANCE = 1e-9  # centres this close, relative to the largest coordinate, are one point up to rounding


def twin_roots(centers):
    """For each centre, the first centre equal to it up to rounding (itself if none).

    Means of copies of one row (the centres duplicated rows leave) differ in their last
    bits, and the copies were then split between such twins by rounding. Twins have
    norms within ``TWIN_TOLERANCE * scale * sqrt(d)`` of each other, so only centres
    adjacent in the order of their norms are compared.

    Parameters
    ----------
    centers : ndarray (k, d)

    Returns
    -------
    ndarray of int (k,)

    Examples
    --------
    >>> twin_roots(np.array([[1.0, 2.0], [5.0, 5.0], [1.0, 2.0 + 1e-15]])).tolist()
    [0, 1, 0]
    """
    k, d = centers.shape
    roots = np.arange(k)
    tol = TWIN_TOLERANCE * float(np.abs(centers).max(initial=0.0))
    norms = np.sqrt(np.einsum("ij,ij->i", centers, centers))
    order = np.argsort(norms, kind="stable")
    reach = tol * np.sqrt(d)
    if not np.any(np.diff(norms[order]) <= reach):  # the common case, and each step of a stream: no twins
        return roots
    for a in range(k - 1):
        b = a + 1
        while b < k and norms[order[b]] - norms[order[a]] <= reach:
            i, j = order[a], order[b]
            if np.abs(centers[i] - centers[j]).max() <= tol:
                low, high = sorted((_root(roots, i), _root(roots, j)))
                roots[high] = low
            b += 1
    return np.array([_root(roots, i) for i in range(k)])


def _root(roots, i):
    while roots[i] != i:
        i = roots[i]
    return i


def merge_twin_centers(centers, labels):
    """``(centers, labels)`` with every twin (``twin_roots``) made the exact copy of its
    first, and the rows of a twin given to that first, so that copies of a row share one
    cluster (as every later ``predict`` gives them: ties go to the lowest index)."""
    roots = twin_roots(centers)
    if np.array_equal(roots, np.arange(roots.size)):
        return centers, labels
    return centers[roots], roots[labels]


def warn_fewer_clusters(representatives, n_clusters, name):
    """Warn when fewer distinct clusters than asked for were found (duplicate points):
    ``representatives`` are the centres (rows) or, without coordinates, the labels."""
    representatives = np.asarray(representatives)
    if representatives.ndim == 1:
        found = np.unique(representatives).size
    else:  # rows' bytes (-0.0 made 0.0): numpy's unique over rows of many columns sorts them as records, slowly
        found = len({row.tobytes() for row in np.ascontiguousarray(representatives + 0.0)})
    warn_found_fewer(found, n_clusters, name)


def warn_found_fewer(found, n_clusters, name):
    """``warn_fewer_clusters`` for ``found`` distinct clusters, counted by the caller."""
    if found < n_clusters:
        warn_user(
            f"Number of distinct clusters ({found}) found smaller than n_clusters ({n_clusters}). Possibly due to "
            f"duplicate points in X. {name} found only {found} distinct clusters: X has fewer distinct points "
            "than clusters (a row of zero sample_weight counts for none); lower n_clusters.",
            ConvergenceWarning,
        )


def check_shown_centres(model, shown, used):
    """Raise ValueError unless a loaded ``model``'s centres as users read them
    (attribute ``shown``, in the data's dtype) are those its predictions use (``used``,
    float64, relative to ``offset_``), as a fit stores them: ``(used + offset_)`` cast to
    the dtype, the same arithmetic everywhere. A file that shows one and computes with
    the other answers wrongly without a sign.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> check_shown_centres(SimpleNamespace(c=np.array([[2.0]]), u=np.array([[1.0]]), offset_=np.ones(1)), "c", "u")
    """
    centres = np.asarray(getattr(model, shown))
    expected = np.asarray(getattr(model, used), dtype=np.float64) + np.asarray(model.offset_, dtype=np.float64)
    if expected.shape != centres.shape or not np.array_equal(expected.astype(centres.dtype), centres):
        raise ValueError(
            f"{shown} are not {used} + offset_: the centres the model shows are not those it assigns rows to"
        )


class CentroidClusterer(
    ValidatedInputMixin, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator
):
    """Clusters represented by centres: distances to them are computed on ``X - offset_``
    (the column means, in X's dtype), which keeps float32 data far from the origin
    precise; ``offset_centers_`` are the centres in those coordinates (float64)."""

    @property
    def _n_features_out(self):
        return self.n_clusters

    def _prepare(self, X, reset):
        """Centred copy of ``X`` and its squared row norms; at fit (``reset``) also
        warns about constant features and returns the mean column variance. Sparse
        ``X`` is not centred (that would fill it): it is used as it is (CSR), with
        ``offset_`` zero."""
        mean_var = None
        if reset:
            mean, var = column_moments(X)
            if X.shape[0] > 1:  # one row (a stream's first batch) says nothing of the columns' variation
                warn_constant_features(var, self._shown_name, CLUSTER_NOTE, X=X)
            self.offset_ = np.zeros(X.shape[1]) if sp.issparse(X) else mean.astype(X.dtype).astype(np.float64)
            mean_var = float(np.mean(var) * (X.shape[0] - 1) / max(X.shape[0], 1))
        if sp.issparse(X):  # compared with the centres in absolute coordinates (``_centered_input``)
            Xc = sp.csr_matrix(X)
            return Xc, row_norms_sq(Xc), mean_var
        Xc, norms = np.empty(X.shape, dtype=X.dtype), np.empty(X.shape[0])
        shifted_copy_with_norms(X, self.offset_.astype(X.dtype), Xc, norms)
        return Xc, norms, mean_var

    def _store_centers(self, offset_centers, dtype, labels=None):
        """Keep the centres (twins merged, ``merge_twin_centers``) and return ``labels``
        (if given) with a twin's rows given to its first."""
        offset_centers, labels = merge_twin_centers(
            np.asarray(offset_centers, dtype=np.float64), np.zeros(0, dtype=np.int64) if labels is None else labels
        )
        self.offset_centers_ = offset_centers
        self.cluster_centers_ = (self.offset_centers_ + self.offset_).astype(dtype)
        return labels

    def _check_loaded(self):
        """A loaded model's centres as users read them are the ones its predictions use."""
        check_shown_centres(self, "cluster_centers_", "offset_centers_")

    def _lazy(self, method, X, n_out, dtype):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return map_rows(method, X, n_out, dtype, n_features=self.n_features_in_, estimator_name=type(self).__name__)

    def _centered_input(self, X):
        """Validated new data, its centred copy (sparse data as they are) and squared
        row norms, and the centres in the same coordinates."""
        X = self._validate_input(X, reset=False, accept_sparse=True)
        Xc, x_sq, _ = self._prepare(X, reset=False)
        centers = self.cluster_centers_.astype(np.float64) if sp.issparse(X) else self.offset_centers_
        return X, Xc, x_sq, centers

    def _nearest(self, X):
        X, Xc, x_sq, centers = self._centered_input(X)
        labels, dist = assign(Xc, centers, x_sq)
        return X, labels, dist

    def predict(self, X):
        """Index of the nearest centre of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            A lazy dask array when ``X`` is one.
        """
        if is_dask_array(X):
            return self._lazy(self.predict, X, None, np.int64)
        return self._nearest(X)[1]

    def transform(self, X):
        """Euclidean distance of each sample to every centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters), in X's dtype
            A lazy dask array when ``X`` is one.
        """
        if is_dask_array(X):
            # integer input is validated to float64 block by block: declare what comes out
            return self._lazy(self.transform, X, self.n_clusters, X.dtype if X.dtype.kind == "f" else np.float64)

        X, Xc, x_sq, centers = self._centered_input(X)
        X64 = Xc.astype(np.float64)
        c_sq = np.einsum("ij,ij->i", centers, centers)
        D = sq_euclidean(X64, centers, x_sq, c_sq)
        # where the GEMM expansion cancels (a point at or near a centre) it keeps only its
        # rounding, about 1e-8 of the norms after the root: those few from differences
        rows, cols = np.nonzero(D <= 1e-6 * (x_sq[:, None] + c_sq[None, :]))
        if rows.size:
            Xr = X64[rows].toarray() if sp.issparse(X64) else X64[rows]
            D[rows, cols] = np.einsum("ij,ij->i", Xr - centers[cols], Xr - centers[cols])
        return np.sqrt(D).astype(X.dtype, copy=False)

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit, then return the distances of ``X`` to the centres.

        Parameters
        ----------
        X : array-like or sparse matrix (n_samples, n_features)
        y : ignored
        sample_weight : array-like (n_samples,), optional

        Returns
        -------
        ndarray (n_samples, n_clusters)
            Euclidean distances to the centres.
        """
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the (weighted) inertia of ``X`` on the fitted centres.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        X, _, dist = self._nearest(X)
        return -float(check_sample_weight(sample_weight, X.shape[0]) @ dist)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True
        return tags
