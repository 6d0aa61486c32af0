"""Multidimensional scaling: SMACOF (metric and non-metric), classical and landmark."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._available_if import available_if

from .._estimator import ValidatedInputMixin
from .._iterative import best_of_restarts, callback_list
from .._memory import require_memory
from .._mixed_input import GowerTableMixin
from .._params import (
    ARRAY_LIKE,
    BOOLEAN,
    CALLBACKS,
    NONE,
    RANDOM_STATE,
    VERBOSE,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)
from .._random import check_random_state
from .._validation import check_array, check_precomputed, check_sample_count, warn_constant_features
from .._warnings import warn_user
from ..linalg import column_moments, pairwise_distances, sq_euclidean
from ..metrics import stress
from ..neighbors import GowerIndex
from ._classical import ClassicalModel, classical_mds, landmark_mds
from ._smacof import smacof

_UNPAIRED = (
    "MDS(metric='gower'): {where} share no column with a value, so they have no distance; drop the rows "
    "with few values or fill the gaps"
)


def _placeable(mds):
    return mds.solver == "classical" or mds.n_landmarks is not None


class MDS(GowerTableMixin, ValidatedInputMixin, BaseEstimator):
    """Multidimensional scaling, a drop-in for ``sklearn.manifold.MDS`` plus classical
    and landmark modes.

    - ``solver='smacof'`` (default): stress majorisation from ``init``, metric or
      non-metric (``metric_mds=False``: Kruskal, disparities by isotonic regression),
      optional pair ``weights``, ``n_init`` restarts.
    - ``solver='classical'``: Torgerson scaling (``eigenvalues_``, ``transform``).
    - ``n_landmarks=m``: landmark MDS (de Silva & Tenenbaum) for large n: classical
      scaling of m farthest-point landmarks, every point placed from its distances to
      them; O(n m) memory, ``transform``. Euclidean data only.

    Parameters
    ----------
    n_components : int, default=2
    metric_mds : bool, default=True
    n_init : int, default=1
    init : {'classical_mds', 'random', 'warn'} or array (n_samples, n_components), default='warn'
        Also ``fit(X, init=array)`` / ``fit_transform(X, init=array)``, which take
        precedence (scikit-learn's way). The default 'warn' is scikit-learn 1.9's: a
        random start with a ``FutureWarning`` that the default becomes 'classical_mds'
        (the better start: pass it, as lowdim's command line does).
    max_iter : int, default=300
    eps : float, default=1e-6
        Relative stress decrease below which SMACOF stops.
    random_state : None, int or Generator
    metric : str, default='euclidean'
        Any metric scipy's ``cdist`` accepts, 'gower' for mixed tables (category codes,
        NaN gaps: ``lowdim.mixed_codes``), or 'precomputed' (X is then the n x n
        dissimilarity matrix). With 'gower', SMACOF leaves out a pair of rows that share
        no column with a value.
    metric_params : dict, optional
        Keyword arguments of the metric (``{'p': 3}`` for 'minkowski'; 'categorical',
        'ordinal', 'weights' for 'gower').
    dissimilarity : {'euclidean', 'precomputed'}, optional
        scikit-learn's former name for ``metric`` (deprecated there); when given it
        takes the place of ``metric`` with a ``FutureWarning``.
    verbose : int, default=0
        Print the stress every ``verbose`` SMACOF iterations.
    n_jobs : int, optional
        Accepted for compatibility; SMACOF's passes use numba's thread pool.
    normalized_stress : bool or 'auto', default='auto'
        Report Kruskal's stress-1 instead of raw stress; 'auto' is True for non-metric.
    weights : array (n_samples, n_samples), optional
    solver : {'smacof', 'classical'}, default='smacof'
    n_landmarks : int, optional
    callbacks : callable or list of callables, optional
        ``callback(iteration, raw stress, state) -> stop?`` after every iteration of each start.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    stress_ : float
    n_iter_ : int
    eigenvalues_ : ndarray (classical and landmark modes)
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_components_ : int
        Dimension of the embedding.
    offset_ : ndarray (n_features,)
        Column means the distances are computed about (``X - offset_``, for precision).
    dissimilarity_matrix_ : ndarray (n_samples, n_samples)
        The dissimilarities the embedding fits.
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.manifold import MDS
    >>> X = np.random.default_rng(0).normal(size=(30, 4))
    >>> MDS(n_components=2, init="classical_mds", random_state=0).fit_transform(X).shape
    (30, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(int, 1, None, closed="left")],
        "metric_mds": [BOOLEAN],
        "n_init": [Interval(int, 1, None, closed="left")],
        "init": [Options({"classical_mds", "random", "warn"}), ARRAY_LIKE],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "eps": [Interval(float, 0, None, closed="left")],
        "random_state": [RANDOM_STATE],
        "metric": [InstanceOf(str, label="a metric name"), BOOLEAN],
        "normalized_stress": [BOOLEAN, Options({"auto"})],
        "weights": [NONE, ARRAY_LIKE],
        "solver": [Options({"smacof", "classical"})],
        "n_landmarks": [NONE, Interval(int, 2, None, closed="left")],
        "verbose": VERBOSE,
        "n_jobs": [NONE, Interval(int, None, None)],
        "dissimilarity": [Options({"deprecated", "euclidean", "precomputed"})],
        "metric_params": [NONE, InstanceOf(dict)],
        "callbacks": CALLBACKS,
    }

    def __init__(
        self,
        n_components=2,
        *,
        metric_mds=True,
        n_init=1,
        init="warn",
        max_iter=300,
        verbose=0,
        eps=1e-6,
        n_jobs=None,
        random_state=None,
        dissimilarity="deprecated",
        metric="euclidean",
        metric_params=None,
        normalized_stress="auto",
        weights=None,
        solver="smacof",
        n_landmarks=None,
        callbacks=None,
    ):
        self.n_components = n_components
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dissimilarity = dissimilarity
        self.metric_params = metric_params
        self.metric_mds = metric_mds
        self.n_init = n_init
        self.init = init
        self.max_iter = max_iter
        self.eps = eps
        self.random_state = random_state
        self.metric = metric
        self.normalized_stress = normalized_stress
        self.weights = weights
        self.solver = solver
        self.n_landmarks = n_landmarks
        self.callbacks = callbacks

    def _check(self, X):
        n = X.shape[0]
        check_sample_count(n, "MDS")
        if self._resolved_metric() == "precomputed":  # stress counts each pair once: one value per pair
            check_precomputed(X, what="dissimilarities", symmetric=True)
        check_sample_count(n if self.n_landmarks is None else self.n_landmarks, "MDS", self.n_components)
        if self.n_landmarks is not None and self._resolved_metric() != "euclidean":
            raise ValueError("n_landmarks needs metric='euclidean' (landmarks are placed by Euclidean distances).")
        if self.n_landmarks is None:
            require_memory(
                8 * n * n * 3, f"MDS on {n} samples (n x n matrices)", "set n_landmarks (landmark MDS) or subsample"
            )

    def fit(self, X, y=None, init=None):
        """Compute the embedding.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or (n_samples, n_samples) dissimilarities
        y : ignored
        init : array (n_samples, n_components), optional
            SMACOF's start, in place of the ``init`` parameter.

        Returns
        -------
        self
        """
        self.fit_transform(X, init=init)
        return self

    def fit_transform(self, X, y=None, init=None):
        """Compute and return the embedding (``embedding_``); ``init`` as in ``fit``.

        Parameters
        ----------
        X : array-like (n_samples, n_features), or (n_samples, n_samples) dissimilarities
        y : ignored
        init : ndarray (n_samples, n_components), optional
            The starting configuration (overrides the ``init`` parameter).

        Returns
        -------
        ndarray (n_samples, n_components)
            ``embedding_``.
        """
        validate_params(self)
        self._init_given = init
        self._warn_sklearn_transitions(init)
        if self.dissimilarity != "deprecated":
            warn_user(
                "The `dissimilarity` parameter is deprecated and will be removed in 1.10. Use `metric` instead. "
                "MDS: dissimilarity is scikit-learn's deprecated name for metric; pass "
                f"metric={self.dissimilarity!r} instead.",
                FutureWarning,
            )
        X = self._validate_input(X, reset=True)
        self._check(X)
        if self._resolved_metric() not in ("precomputed", "gower"):
            warn_constant_features(column_moments(X)[1], "MDS", "every sample is the same point", X=X)
        if self.n_landmarks is not None:
            Y = self._fit_landmarks(X)
        else:
            # Euclidean distances do not change with a shift; centring keeps them precise
            metric = self._resolved_metric()
            self.offset_ = X.mean(axis=0, dtype=np.float64) if metric == "euclidean" else np.zeros(X.shape[1])
            delta = X.astype(np.float64) if metric == "precomputed" else self._distances(X)
            self.dissimilarity_matrix_ = delta
            Y = self._fit_classical(delta, X) if self.solver == "classical" else self._fit_smacof(delta)
        self.embedding_ = Y.astype(X.dtype)
        self.n_components_ = self.n_components
        del self._init_given
        return self.embedding_

    def _warn_sklearn_transitions(self, init):
        """scikit-learn 1.9's FutureWarnings, for scripts written against it: the default
        init, and metric=True/False for metric_mds."""
        if isinstance(self.init, str) and self.init == "warn" and init is None:
            warn_user(
                "The default value of `init` will change from 'random' to 'classical_mds' in 1.10. MDS: the "
                "default init is 'random', as in scikit-learn 1.9; pass init='classical_mds' (the better start) or "
                "init='random' to silence this.",
                FutureWarning,
            )
        if self.dissimilarity != "deprecated" and not isinstance(self.metric, bool) and self.metric != "euclidean":
            raise ValueError(
                "You provided both `dissimilarity` and `metric`. Please use only `metric`. MDS: "
                f"dissimilarity={self.dissimilarity!r} and metric={self.metric!r} name the same thing."
            )
        if isinstance(self.metric, bool):
            warn_user(
                f"MDS: Use metric_mds={self.metric} instead of metric={self.metric} (scikit-learn 1.9 drops "
                "metric=True/False in 1.10); metric names the dissimilarity ('euclidean', 'precomputed', ...).",
                FutureWarning,
            )

    def _metric_mds(self):
        """Metric (True) or non-metric (False) MDS: ``metric_mds``, or scikit-learn's
        older ``metric=True/False``."""
        return self.metric if isinstance(self.metric, bool) else self.metric_mds

    def _resolved_metric(self):
        """``metric``, or scikit-learn's deprecated ``dissimilarity`` when that is given
        (Euclidean when ``metric`` holds scikit-learn's older True/False)."""
        if self.dissimilarity != "deprecated":
            return self.dissimilarity
        return "euclidean" if isinstance(self.metric, bool) else self.metric

    def _distances(self, X, reference=None):
        """Distances from the rows of ``X`` to ``reference`` (rows already about
        ``offset_``; default ``X`` itself), computed about ``offset_``; for 'gower' on the
        reference's column ranges, NaN where a pair shares no column."""
        X = X.astype(np.float64) - self.offset_
        reference = X if reference is None else reference
        if self._resolved_metric() == "gower":
            return GowerIndex("gower", self._distance_params()).build(reference).pairwise(X)
        return pairwise_distances(X, reference, metric=self._resolved_metric(), metric_params=self._distance_params())

    def _store_model(self, model):
        self.eigenvectors_, self.eigenvalues_, self.mean_sq_ = model.vectors, model.eigenvalues, model.mean_sq

    def _fit_classical(self, delta, X):
        if np.isnan(delta).any():
            fix = ", or use solver='smacof' (it leaves such pairs out)."
            raise ValueError(_UNPAIRED.format(where="two rows") + fix)
        Y, model = classical_mds(delta, self.n_components)
        self._store_model(model)
        self.reference_ = X.astype(np.float64) - self.offset_ if self._resolved_metric() != "precomputed" else None
        self.stress_, self.n_iter_ = self._report(delta, Y, np.ones_like(delta)), 0
        return Y

    def _fit_landmarks(self, X):
        X64 = np.asarray(X, dtype=np.float64)
        Y, model, refs = landmark_mds(X64, self.n_components, self.n_landmarks, check_random_state(self.random_state))
        self._store_model(model)
        self.reference_, self.offset_ = X64[refs], np.zeros(X.shape[1])
        self.landmark_indices_, self.n_iter_ = refs, 0
        # Kruskal's stress-1, sampled; rows all at one point are fitted exactly (its 0 / 0 is undefined)
        self.stress_ = stress(X64, Y, n_pairs=200_000, random_state=0) if np.ptp(X64, axis=0).any() else 0.0
        return Y

    def _start(self, delta, rng):
        n = delta.shape[0]
        given = self._init_given if self._init_given is not None else self.init
        if isinstance(given, str) and given == "classical_mds":
            return classical_mds(delta, self.n_components)[0]
        if isinstance(given, str):  # 'random', or 'warn' (scikit-learn 1.9's default: random)
            # non-metric: in the disparities' scale (unit mean square), so the run is the same at any data scale
            scale = delta.max() if self._metric_mds() else delta.max() / max(np.sqrt(np.mean(delta**2)), 1e-300)
            return rng.uniform(size=(n, self.n_components)) * scale
        init = check_array(given, name="init", estimator_name="MDS").astype(np.float64)
        if init.shape != (n, self.n_components):
            raise ValueError(
                f"init has shape {init.shape}; expected (n_samples, n_components) = ({n}, {self.n_components})."
            )
        return init

    def _fit_smacof(self, delta):
        W = None if self.weights is None else check_array(self.weights, name="weights", estimator_name="MDS")
        if W is not None and W.shape != delta.shape:
            raise ValueError(f"weights has shape {W.shape}; expected {delta.shape}.")
        unpaired = np.isnan(delta)
        if unpaired.any():  # Gower: a pair with no column in common weighs nothing
            W = np.where(unpaired, 0.0, 1.0 if W is None else W)
            delta = np.where(unpaired, 0.0, delta)
        rng = check_random_state(self.random_state)
        random = self._init_given is None and isinstance(self.init, str) and self.init == "random"
        best = best_of_restarts(
            lambda r: smacof(
                delta,
                self.n_components,
                self._start(delta, r),
                weights=W,
                metric=self._metric_mds(),
                max_iter=self.max_iter,
                eps=self.eps,
                callbacks=callback_list(self.callbacks),
                verbose=int(self.verbose),
            ),
            self.n_init if random else 1,
            rng,
        )
        self.n_iter_ = int(best.n_iter)
        self.stress_ = self._report(delta, best.state, np.ones_like(delta) if W is None else W, best.objective)
        return best.state

    def _report(self, delta, Y, W, raw=None):
        """Raw stress, or Kruskal's stress-1 when normalised (default for non-metric):
        ``sqrt(raw / sum of the squared embedding distances)``, as scikit-learn."""
        d = np.sqrt(sq_euclidean(Y, Y))
        raw = 0.5 * float(np.sum(W * (d - delta) ** 2)) if raw is None else raw
        normalize = (not self._metric_mds()) if self.normalized_stress == "auto" else self.normalized_stress
        return float(np.sqrt(raw / max(0.5 * np.sum(W * d**2), 1e-300))) if normalize else raw

    @available_if(_placeable)
    def transform(self, X):
        """Place new points (classical and landmark modes) from their dissimilarities
        to the reference points by Gower's formula.

        Parameters
        ----------
        X : array-like (n, n_features), or (n, n_train) dissimilarities if precomputed

        Returns
        -------
        ndarray of shape (n, n_components)
        """
        if self._resolved_metric() == "precomputed":
            from sklearn.utils.validation import check_is_fitted

            check_is_fitted(self)
            X = check_array(X, estimator_name="MDS")
            return ClassicalModel(self.eigenvectors_, self.eigenvalues_, self.mean_sq_).place(X**2).astype(X.dtype)
        X = self._validate_input(X, reset=False)
        D = self._distances(X, self.reference_)
        if np.isnan(D).any():
            raise ValueError(_UNPAIRED.format(where="a new row and a training row") + ".")
        model = ClassicalModel(self.eigenvectors_, self.eigenvalues_, self.mean_sq_)
        return model.place(D**2).astype(X.dtype)
