"""Placing points in a fitted UMAP map and going back: ``transform`` (each new point's
memberships to its nearest training points, then SGD moving only it) and
``inverse_transform`` (a kernel regression over the training points nearest in the map)."""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from .._kernels.output_spaces import CODES as OUTPUT_METRICS
from .._validation import check_array
from .._warnings import warn_user
from ..distributed import is_dask_array
from ..exceptions import UnsupportedBySolver
from ..neighbors import ExactIndex
from ._base import sparse_input, training_index
from ._umap_graph import local_memberships
from ._umap_layout import optimize_layout

MAX_EPOCHS = 100_000  # far beyond any map's need; a loaded model's stored epochs size its transform


class UMAPPlacement:
    """``transform`` and ``inverse_transform`` of a fitted ``UMAP`` (its ``embedding_``,
    ``X_fit_``, ``a_``, ``b_``, ``n_epochs_`` and parameters)."""

    def _reference(self):
        """The embedding of the rows of ``X_fit_`` (``embedding_`` has one row per input
        row, which differs with ``unique=True``)."""
        if getattr(self, "unique_inverse_", None) is None:
            return self.embedding_
        ref = np.empty((self.X_fit_.shape[0], self.embedding_.shape[1]), dtype=self.embedding_.dtype)
        ref[self.unique_inverse_] = self.embedding_
        return ref

    def _check_loaded(self):
        """A loaded model's epochs are what a fit sets (transform runs a third of them), and
        its rows agree: ``X_fit_`` has a row per row of ``embedding_``, or with
        ``unique_inverse_`` one per distinct row, each the copy of at least one."""
        epochs = self.n_epochs_
        if not (isinstance(epochs, numbers.Integral) and not isinstance(epochs, bool) and 1 <= epochs <= MAX_EPOCHS):
            raise ValueError(f"n_epochs_ must be an integer from 1 to {MAX_EPOCHS}; got {epochs!r}")
        n_fit, n_rows = np.shape(self.X_fit_)[0], np.shape(self.embedding_)[0]
        inverse = getattr(self, "unique_inverse_", None)
        if inverse is None:
            if n_fit != n_rows:
                raise ValueError(f"X_fit_ has {n_fit} rows and embedding_ {n_rows}, with no unique_inverse_")
            return
        inverse = np.asarray(inverse)
        if inverse.shape != (n_rows,) or inverse.min() < 0 or inverse.max() >= n_fit:
            raise ValueError(f"unique_inverse_ must give each of the {n_rows} rows one of the {n_fit} distinct rows")
        if np.count_nonzero(np.bincount(inverse, minlength=n_fit)) != n_fit:
            raise ValueError("unique_inverse_ leaves a distinct row of X_fit_ without an input row")

    def transform(self, X, ensure_all_finite=True):
        """Place new points in the fixed training embedding.

        Each new point's memberships to its ``n_neighbors`` nearest training points
        (smooth-kNN with local connectivity reduced by one, as umap-learn), a start at
        their weighted mean position, then SGD moving only the new point for a third of
        the training epochs (at least 30). Points do not interact, so a batch gives the
        same result as one point at a time.

        Parameters
        ----------
        X : array-like (m, n_features)
        ensure_all_finite : bool or 'allow-nan', default=True
            As in ``fit``.

        Returns
        -------
        ndarray (m, n_components), or with ``transform_mode='graph'`` the sparse (m,
        n_samples) memberships. NaN (with a warning) for a row whose every neighbour is
        at the disconnection distance: it shares nothing with the training rows.
        """
        X = self._validate_input(X, reset=False, accept_sparse=sparse_input(self, X), **self._finite(ensure_all_finite))
        if sp.issparse(X) != sp.issparse(self.X_fit_) and self.metric != "precomputed":
            X = sp.csr_matrix(X) if sp.issparse(self.X_fit_) else X.toarray()  # the training rows' form
        return self._placed(X, graph_only=self.transform_mode == "graph")

    def _placed_for_update(self, X):
        """``update``'s start for the new rows: placed as ``transform`` places them, in a
        map fitted on the rows themselves, each linked to the map by some edge."""
        reasons = {
            "metric='precomputed'": self.metric == "precomputed",
            "a supervised fit (y)": getattr(self, "supervised_", False),
            "unique=True": self.unique_inverse_ is not None,
            "a dask array": is_dask_array(self.X_fit_),
        }
        for what, applies in reasons.items():
            if applies:
                raise ValueError(
                    f"UMAP.update adds rows to a map fitted on the rows themselves; this model was fitted with "
                    f"{what}. Fit a new model on all the rows."
                )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="UMAP.transform: .* new rows are")  # an error here, below
            placed = self._placed(X)
        unplaced = np.flatnonzero(np.isnan(placed).any(axis=1))
        if unplaced.size:
            raise ValueError(
                f"UMAP.update: {unplaced.size} new row(s) (first: row {unplaced[0]}) share nothing with the map's rows "
                "(every neighbour at the disconnection distance), so they have no place to be added at; leave them "
                "out, or fit a new map with them."
            )
        return placed

    def _probe_rows(self, n_features):
        """Rows a loaded model is tried on: with a bounded metric its first two training
        rows, as a row of zeros may share nothing with them (Jaccard's empty set) and
        come out NaN by design; zeros and ones otherwise."""
        fitted = getattr(self, "X_fit_", None)
        if getattr(self, "_disconnection_limit", None) is None or fitted is None or fitted.shape[0] < 2:
            return np.vstack([np.zeros(n_features), np.ones(n_features)])
        return fitted[:2]

    def _placed(self, X, graph_only=False):
        """``transform`` of validated rows: their memberships to the training points
        (``graph_only``), or their positions."""
        reference = self._reference()
        n_train = reference.shape[0]
        if self.metric == "precomputed" and X.shape[1] != n_train:
            raise ValueError(
                f"with metric='precomputed', X must hold distances to the {n_train} training points; "
                f"got {X.shape[1]} columns."
            )
        k = min(self.n_neighbors, n_train)
        distances, indices = training_index(self).query(X, k)
        limit = getattr(self, "_disconnection_limit", None)  # AlignedUMAP's slices have none
        if limit is not None:  # as in the training graph: edges this long link nothing
            distances = np.where(distances >= limit, np.inf, distances)
        memberships, _, _ = local_memberships(distances, k, max(self.local_connectivity - 1.0, 0.0))
        memberships = np.nan_to_num(memberships, copy=False)
        W = sp.csr_matrix(
            (memberships.ravel(), indices.ravel(), np.arange(0, X.shape[0] * k + 1, k)), shape=(X.shape[0], n_train)
        )
        if graph_only:
            return W
        weights = memberships / np.maximum(memberships.sum(axis=1, keepdims=True), np.finfo(float).tiny)
        ref = np.ascontiguousarray(reference, dtype=np.float32)
        Y = np.einsum("mk,mkd->md", weights, ref[indices]).astype(np.float32)
        optimize_layout(
            Y,
            W,
            max(self.n_epochs_ // 3, 30),
            self.a_,
            self.b_,
            seed=self.transform_seed,
            gamma=self.repulsion_strength,
            negative_sample_rate=self.negative_sample_rate,
            learning_rate=self.learning_rate / 4.0,
            reference=ref,
            output_metric=self._output_space(),
        )
        return _unlinked_as_nan(Y, np.isinf(distances).all(axis=1), limit).astype(X.dtype)

    def inverse_transform(self, Y):
        """Points of the data space for embedding coordinates: the average of the
        training points nearest in the embedding, weighted by the output similarity
        ``1 / (1 + a d^(2b))`` (a local kernel regression; exact at the training
        points' own positions up to their neighbours' weights).

        Parameters
        ----------
        Y : array-like (m, n_components)

        Returns
        -------
        ndarray (m, n_features)
            With ``metric='gower'``: a number column is the weighted mean over the
            neighbours that hold a value (NaN where none does), a category or ordered
            category column the code with the largest weight among them.
        """
        Y = check_array(Y, name="Y", estimator_name="UMAP")
        if Y.shape[1] != self.n_components_:
            raise ValueError(f"Y has {Y.shape[1]} columns; the embedding has {self.n_components_}.")
        if self.metric == "precomputed":
            raise UnsupportedBySolver(
                "inverse_transform needs the data's coordinates; with metric='precomputed' UMAP was "
                "given distances only."
            )
        if OUTPUT_METRICS[self.output_metric]:
            raise UnsupportedBySolver(
                f"inverse_transform weighs neighbours by Euclidean distances in the map; this map's space is "
                f"output_metric={self.output_metric!r}."
            )
        reference = self._reference()
        k = min(self.n_neighbors, reference.shape[0])
        dist, idx = ExactIndex().build(reference.astype(np.float64)).query(Y.astype(np.float64), k)
        w = 1.0 / (1.0 + self.a_ * dist ** (2.0 * self.b_))
        w /= w.sum(axis=1, keepdims=True)
        near = np.asarray(self.X_fit_, dtype=np.float64)[idx]
        if self._uses_gower:
            params = self._distance_params() or {}
            levels = sorted({*(params.get("categorical") or ()), *(params.get("ordinal") or ())})
            return _table_preimage(w, near, levels).astype(self.X_fit_.dtype)
        return np.einsum("mk,mkd->md", w, near).astype(self.X_fit_.dtype)


def _unlinked_as_nan(Y, unlinked, limit):
    """NaN for the new rows that no edge links to the training rows (every neighbour at
    the disconnection distance: they share nothing with them under the metric; or, given
    distances, at infinity), as umap-learn leaves such points; one warning counting them."""
    if unlinked.any():
        far = "infinitely far" if limit is None else f"at least disconnection_distance={limit:g}"
        warn_user(
            f"UMAP.transform: {int(unlinked.sum())} of the {len(unlinked)} new rows are {far} from every training "
            "row (they share nothing with them under the metric), so nothing places them: their coordinates are NaN.",
            UserWarning,
        )
        Y[unlinked] = np.nan
    return Y


def _table_preimage(w, near, levels):
    """Rows of a mixed table from neighbours ``near`` (m, k, d) weighted by ``w`` (m, k):
    a gap leaves its neighbour out of that column; the columns ``levels`` (category
    codes) take the code of largest total weight, not a mean of codes."""
    held = ~np.isnan(near)
    weight = w[:, :, None] * held
    total = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.einsum("mkd,mkd->md", weight, np.where(held, near, 0.0)) / total
    rows = np.broadcast_to(np.arange(near.shape[0])[:, None], near.shape[:2])
    for j in levels:
        codes, at = np.unique(np.where(held[:, :, j], near[:, :, j], np.inf), return_inverse=True)
        votes = np.zeros((near.shape[0], codes.size))
        np.add.at(votes, (rows, at.reshape(rows.shape)), weight[:, :, j])  # a gap's weight is 0
        out[:, j] = np.where(total[:, j] > 0, codes[np.argmax(votes, axis=1)], np.nan)
    return out
