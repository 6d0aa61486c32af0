"""k-means clustering (Lloyd, Elkan and Hamerly iterations)."""

import numpy as np
import scipy.sparse as sp

from .._iterative import best_of_restarts, callback_list, iteration_bar
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLABLE,
    CALLBACKS,
    RANDOM_STATE,
    VERBOSE,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_array, check_sample_weight, warn_constant_features
from .._warnings import warn_user
from ..distributed import check_dask_array, is_dask_array, progress_wanted
from ._base import (
    CLUSTER_NOTE,
    CentroidClusterer,
    check_n_clusters,
    resolve_n_init,
    same_clusters,
    warn_fewer_clusters,
)
from ._kmeans_dask import dask_kmeans
from ._kmeans_init import kmeans_parallel, kmeans_plusplus, random_partition, random_rows
from ._lloyd import kmeans_single
from ._products_lloyd import by_products, products_kmeans

INITS = ("k-means++", "random", "random-partition", "k-means||")


def resolve_algorithm(algorithm, n_clusters, n_features):
    """The iteration 'auto' stands for. Bounds beat plain Lloyd at every size measured
    (BENCHMARKS.md); Elkan keeps a bound per centre, which pays when a distance is
    expensive next to ``k`` bound updates (``n_features >= 16 * n_clusters``: raw
    Fashion-MNIST, k = 10), Hamerly keeps one, which wins otherwise (PCA-50
    Fashion-MNIST, k = 10 and 100; BENCHMARKS.md, Clustering).

    Examples
    --------
    >>> resolve_algorithm("auto", 10, 50), resolve_algorithm("auto", 10, 784)
    ('hamerly', 'elkan')
    """
    if algorithm == "elkan" and n_clusters == 1:
        warn_user(
            "algorithm='elkan' doesn't make sense for a single cluster. Using 'lloyd' instead (Elkan's bounds "
            "compare distances between centres).",
            RuntimeWarning,
        )
        return "lloyd"
    if algorithm != "auto":
        return algorithm
    return "elkan" if n_features >= 16 * n_clusters else "hamerly"


def initial_centers(init, X, n_clusters, rng, weights, x_sq, offset, progress=False):
    """Starting centres (float64, in the centred coordinates of ``X``) for any ``init``
    (``progress``: k-means++ shows a bar over its centres).

    Examples
    --------
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> initial_centers(np.zeros((2, 2)), X, 2, None, None, None, np.ones(2)).tolist()
    [[-1.0, -1.0], [-1.0, -1.0]]
    """
    if callable(init):
        init = init(X if sp.issparse(X) else X + offset.astype(X.dtype), n_clusters, rng)
    if not isinstance(init, str):
        C = check_array(init, name="init", estimator_name="KMeans")
        if C.shape != (n_clusters, X.shape[1]):
            wrong = f"the number of clusters {n_clusters}" if C.shape[0] != n_clusters else None
            wrong = wrong or f"the number of features of the data {X.shape[1]}"
            raise ValueError(
                f"init has shape {C.shape}; it must be (n_clusters, n_features) = ({n_clusters}, {X.shape[1]}) "
                f"(The shape of the initial centers {C.shape} does not match {wrong})."
            )
        return C.astype(np.float64) - offset
    if init == "random":
        return random_rows(X, n_clusters, rng, weights=weights)
    if init == "random-partition":
        return random_partition(X, n_clusters, rng, weights=weights)
    if init == "k-means||":
        return kmeans_parallel(X, n_clusters, rng, weights=weights, x_sq=x_sq)
    return kmeans_plusplus(X, n_clusters, rng, weights=weights, x_sq=x_sq, progress=progress)[0]


class KMeans(CentroidClusterer):
    """k-means clustering, a drop-in for ``sklearn.cluster.KMeans``.

    Minimises the within-cluster sum of squared distances (inertia). Distances for
    Lloyd iterations are computed by BLAS in row blocks; Elkan and Hamerly iterations
    skip the distances the triangle inequality rules out and give the same clusters.
    Sums are reduced over a fixed set of row chunks, so a seed gives identical labels
    whatever the number of threads.

    Parameters
    ----------
    n_clusters : int, default=8
    init : {'k-means++', 'random', 'random-partition', 'k-means||'}, callable or array of shape (n_clusters, n_features)
        'k-means++' is greedy k-means++ with ``2 + log(k)`` local trials; 'random'
        (Forgy) takes k random rows; 'random-partition' puts every row in a random
        cluster and starts from their means; 'k-means||' samples candidates in 5
        passes (for large data); a callable is called as ``init(X, n_clusters, rng)``.
    n_init : int or 'auto', default='auto'
        Restarts (best inertia kept); 'auto' is 1 for 'k-means++' / 'k-means||' and an
        array, 10 for 'random' and 'random-partition'. Restarts draw from the one
        random state.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when the summed squared centre shift is at most ``tol`` times the mean
        feature variance (or when no label changes).
    algorithm : {'auto', 'lloyd', 'elkan', 'hamerly'}, default='auto'
        'auto' is Lloyd for a small fit (rows x clusters x features up to 2^23) and
        for sparse rows, iterated by library products that need no compilation on a
        first call; above, ``resolve_algorithm``'s bounds. The choice is ``algorithm_``.
        All give the same clusters from the same start.
    verbose : int, default=0
        1: progress bars with an ETA over k-means++'s centres (each a pass over the
        data) and over the iterations (up to ``max_iter``, so the ETA is an upper
        bound; a dask array: a bar per pass); 2: also a line per iteration.
    random_state : None, int, RandomState or Generator
    copy_x : bool, default=True
        Accepted for scikit-learn compatibility. scikit-learn with False centres X in
        place during fit and shifts it back (saving a copy, changing the last digits
        of the caller's data); lowdim never modifies its input and always clusters a
        centred copy in X's dtype (which keeps float32 data far from the origin
        precise), so both values behave as True.
    callbacks : list of callables, optional
        ``callback(iteration, inertia, state) -> stop?`` after every iteration.

    Attributes
    ----------
    cluster_centers_ : ndarray (n_clusters, n_features), in X's dtype
    labels_ : ndarray of int64 (n_samples,)
    inertia_ : float
        Weighted sum of squared distances to the nearest centre.
    n_iter_ : int
    algorithm_ : str
    n_init_ : int
    offset_ : ndarray (n_features,)
        Column means in X's dtype; distances are computed on ``X - offset_``.
    offset_centers_ : ndarray (n_clusters, n_features), float64
        The centres in those coordinates.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import KMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(X)
    >>> sorted(km.cluster_centers_[:, 0].tolist())
    [1.0, 10.0]
    """

    _stage_bars = True  # verbose shows a bar with an ETA for every stage (the CLI uses them)
    _parameter_constraints = {
        "n_clusters": [Interval(int, 1, None, closed="left")],
        "init": [Options(set(INITS)), CALLABLE, ARRAY_LIKE],
        "n_init": [Options({"auto"}), Interval(int, 1, None, closed="left")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "tol": [Interval(float, 0, None, closed="left")],
        "algorithm": [Options({"auto", "lloyd", "elkan", "hamerly"})],
        "verbose": VERBOSE,
        "random_state": [RANDOM_STATE],
        "copy_x": [BOOLEAN],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        copy_x=True,
        algorithm="auto",
        callbacks=None,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.algorithm = algorithm
        self.verbose = verbose
        self.random_state = random_state
        self.copy_x = copy_x
        self.callbacks = callbacks

    def _fit_dask(self, X, sample_weight):
        """Map-reduce over the row blocks; fitted attributes are numpy arrays."""
        name = type(self).__name__
        X = check_dask_array(X, name)
        n, d = X.shape
        check_n_clusters(self.n_clusters, n)
        init = self.init
        if callable(init):
            raise TypeError(
                "a callable init needs the data in memory; on a dask array use "
                "'k-means||' (or 'k-means++', which runs as it), 'random' or an array."
            )
        if not isinstance(init, str):
            init = check_array(init, name="init", estimator_name=name)
            if init.shape != (self.n_clusters, d):
                raise ValueError(
                    f"init has shape {init.shape}; it must be (n_clusters, n_features) = ({self.n_clusters}, {d})."
                )
        self.algorithm_ = resolve_algorithm(self.algorithm, self.n_clusters, d)
        self.n_init_ = self._resolve_n_init()
        with progress_wanted(self.verbose):
            fit = dask_kmeans(
                X,
                sample_weight,
                n_clusters=self.n_clusters,
                init=init,
                algorithm=self.algorithm_,
                n_init=self.n_init_,
                max_iter=self.max_iter,
                tol=self.tol,
                rng=check_random_state(self.random_state),
                callbacks=callback_list(self.callbacks),
                verbose=self.verbose,
            )
        warn_constant_features(fit.variances, name, CLUSTER_NOTE)
        self.n_features_in_, self.offset_ = d, fit.offset
        self.labels_ = self._store_centers(fit.centers, X.dtype, fit.labels)
        self.inertia_, self.n_iter_ = fit.inertia, fit.n_iter
        warn_fewer_clusters(self.cluster_centers_, self.n_clusters, name)
        return self

    def _resolve_n_init(self):
        return resolve_n_init(self.n_init, self.init, 10)

    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A ``dask.array`` is clustered by map-reduce over its row blocks (see
            ``lowdim.distributed``); 'k-means++' then runs as 'k-means||'.
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        validate_params(self)
        if is_dask_array(X):
            return self._fit_dask(X, sample_weight)
        X = self._validate_input(X, reset=True, accept_sparse=True)
        check_n_clusters(self.n_clusters, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0])
        Xc, x_sq, mean_var = self._prepare(X, reset=True)
        # sparse rows (the bounds' kernels need dense ones) and small data: Lloyd by products
        products = by_products(X, self.n_clusters, self.algorithm)
        self.algorithm_ = "lloyd" if products else resolve_algorithm(self.algorithm, self.n_clusters, X.shape[1])
        self.n_init_ = self._resolve_n_init()
        rng = check_random_state(self.random_state)

        def run_once(rng):
            start = initial_centers(self.init, Xc, self.n_clusters, rng, weights, x_sq, self.offset_, self.verbose > 0)
            with iteration_bar(f"KMeans ({self.algorithm_})", self.max_iter, self.verbose > 0) as tick:
                loop = {
                    "max_iter": self.max_iter,
                    "tol": self.tol * mean_var,
                    "callbacks": [*callback_list(self.callbacks), *tick],
                    "verbose": self.verbose >= 2,
                }
                if products:
                    return products_kmeans(Xc, weights, start, x_sq, **loop)
                return kmeans_single(Xc, weights, start, x_sq, algorithm=self.algorithm_, **loop)

        best = best_of_restarts(run_once, self.n_init_, rng, same=same_clusters)
        self.labels_ = self._store_centers(best.state.centers, X.dtype, best.state.labels)
        self.inertia_ = float(best.objective)
        self.n_iter_ = int(best.n_iter)
        warn_fewer_clusters(self.cluster_centers_, self.n_clusters, "KMeans")
        return self
