"""AlignedUMAP: maps of a sequence of datasets (time points, sliding windows, batches)
with relations between consecutive ones, each laid out by UMAP and kept close to its
neighbours in the sequence, so that a point's place changes only where its data do."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from .._messages import listed
from .._params import RANDOM_STATE, InstanceOf, Interval, validate_params
from .._random import check_random_state
from .._warnings import warn_user
from ..linalg import column_moments, procrustes_fit
from ._umap import UMAP
from ._umap_layout import Layout

# UMAP's parameters that may differ per dataset (a list with one value each)
PER_DATASET = (
    "n_neighbors",
    "min_dist",
    "spread",
    "repulsion_strength",
    "negative_sample_rate",
    "local_connectivity",
    "set_op_mix_ratio",
)
SHARED = ("n_components", "metric", "metric_kwds", "learning_rate", "init", "a", "b", "transform_seed")
SHARED += ("target_n_neighbors", "target_metric", "target_metric_kwds", "target_weight")
SHARED += ("force_approximation_algorithm", "neighbors_algorithm", "verbose")
MAX_PULL = 0.5  # of the gap between two related points, closed by one epoch's alignment step at most
# The pull per unit of alignment_regularisation, scaled so that the default means about
# what it means to umap-learn's: on its sliding-window digits example, consecutive maps'
# Procrustes disparity 0.0073 here vs 0.0080 there (unscaled: 0.035).
ALIGNMENT_SCALE = 4.0


def _constraints():
    ours = UMAP._parameter_constraints
    table = {name: ours[name] + [InstanceOf(list, tuple)] for name in PER_DATASET}
    table |= {name: ours[name] for name in SHARED}
    return table | {
        "n_epochs": ours["n_epochs"],
        "alignment_regularisation": [Interval(float, 0, None, closed="left")],
        "alignment_window_size": [Interval(int, 1, None, closed="left")],
        "random_state": [RANDOM_STATE],
    }


class AlignedUMAP(BaseEstimator):
    """UMAP maps of a sequence of datasets, aligned along the sequence (umap-learn's
    ``AlignedUMAP``).

    Each dataset gets its own UMAP graph. ``relations[t]`` says which rows of dataset
    ``t`` are which rows of dataset ``t + 1`` (the same sample seen twice); related rows
    up to ``alignment_window_size - 1`` datasets apart are pulled towards each other
    while every map is laid out, so the maps share one frame: a point moves between
    maps only as far as its neighbourhood changes. Each dataset's start is its spectral
    map, rotated and scaled onto the previous one's (Procrustes on the related rows),
    and all maps advance together epoch by epoch.

    Parameters
    ----------
    n_neighbors, min_dist, spread, repulsion_strength, negative_sample_rate, local_connectivity, set_op_mix_ratio
        As for ``UMAP``; each may also be a list with one value per dataset.
    n_components : int, default=2
    metric : str, default='euclidean'
    metric_kwds : dict, optional
    n_epochs : int, optional
        Epochs of the joint layout; default 200.
    learning_rate : float, default=1.0
    init : {'spectral', 'random', 'pca'}, default='spectral'
    alignment_regularisation : float, default=0.01
        Strength of the pull between related rows of neighbouring maps, per sampled
        edge of a row (as umap-learn's); weighed by how much of the two rows'
        neighbourhoods are related rows (Jaccard) and by ``exp(-(gap - 1))`` for maps
        ``gap`` apart.
    alignment_window_size : int, default=3
        Maps up to ``alignment_window_size - 1`` apart (consecutive ones at least) are
        aligned, relations composed along the sequence.
    a, b : float, optional
    random_state : None, int or Generator
    target_n_neighbors, target_metric, target_metric_kwds, target_weight
        Supervised maps (``fit`` with one label array per dataset), as for ``UMAP``.
    transform_seed : int, default=42
    force_approximation_algorithm : bool, default=False
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
    verbose : bool, default=False

    Attributes
    ----------
    embeddings_ : list of ndarray (n_t, n_components)
        One map per dataset, in one frame.
    mappers_ : list of UMAP
        One fitted UMAP per dataset (its ``embedding_`` is the aligned map, so
        ``mappers_[t].transform`` places new rows of dataset ``t`` in it).
    n_models_ : int
    dict_relations_ : list of dict

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> X = load_digits().data[:600]
    >>> slices = [X[:400], X[200:600]]
    >>> relations = [{i + 200: i for i in range(200)}]
    >>> maps = AlignedUMAP(n_epochs=50, random_state=0).fit_transform(slices, relations=relations)
    >>> [m.shape for m in maps]
    [(400, 2), (400, 2)]
    """

    _parameter_constraints = _constraints()

    def __init__(
        self,
        n_neighbors=15,
        n_components=2,
        metric="euclidean",
        metric_kwds=None,
        n_epochs=None,
        learning_rate=1.0,
        init="spectral",
        alignment_regularisation=1e-2,
        alignment_window_size=3,
        min_dist=0.1,
        spread=1.0,
        set_op_mix_ratio=1.0,
        local_connectivity=1.0,
        repulsion_strength=1.0,
        negative_sample_rate=5,
        a=None,
        b=None,
        random_state=None,
        target_n_neighbors=-1,
        target_metric="categorical",
        target_metric_kwds=None,
        target_weight=0.5,
        transform_seed=42,
        force_approximation_algorithm=False,
        neighbors_algorithm="auto",
        verbose=False,
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.metric = metric
        self.metric_kwds = metric_kwds
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.init = init
        self.alignment_regularisation = alignment_regularisation
        self.alignment_window_size = alignment_window_size
        self.min_dist = min_dist
        self.spread = spread
        self.set_op_mix_ratio = set_op_mix_ratio
        self.local_connectivity = local_connectivity
        self.repulsion_strength = repulsion_strength
        self.negative_sample_rate = negative_sample_rate
        self.a = a
        self.b = b
        self.random_state = random_state
        self.target_n_neighbors = target_n_neighbors
        self.target_metric = target_metric
        self.target_metric_kwds = target_metric_kwds
        self.target_weight = target_weight
        self.transform_seed = transform_seed
        self.force_approximation_algorithm = force_approximation_algorithm
        self.neighbors_algorithm = neighbors_algorithm
        self.verbose = verbose

    def _mapper(self, t, n_models):
        """Dataset ``t``'s UMAP (a per-dataset parameter's ``t``-th value)."""
        values = {}
        for name in PER_DATASET:
            value = getattr(self, name)
            if isinstance(value, list | tuple):
                if len(value) != n_models:
                    raise ValueError(f"{name} lists {len(value)} values for {n_models} datasets; give one per dataset.")
                value = value[t]
            values[name] = value
        return self._umap(values)

    def fit(self, X, y=None, relations=None):
        """Lay out every dataset of ``X``, aligned along the sequence.

        Parameters
        ----------
        X : list of array-like (n_t, n_features)
        y : list of array-like (n_t,), optional
            Labels of each dataset's rows (-1 = unknown): supervised maps.
        relations : list of dict
            ``relations[t][i] = j``: row ``i`` of ``X[t]`` is row ``j`` of ``X[t + 1]``;
            ``len(X) - 1`` of them.

        Returns
        -------
        self
        """
        validate_params(self)
        n_models = _check_sequence(X, relations)
        self.mappers_ = [self._mapper(t, n_models) for t in range(n_models)]
        rng = check_random_state(self.random_state)
        if y is not None and len(y) != n_models:
            raise ValueError(f"y must hold one label array per dataset ({n_models}); got {len(y)}.")
        labels = [None] * n_models if y is None else list(y)
        with warnings.catch_warnings():  # one warning for the sequence, not one per dataset
            warnings.filterwarnings(
                "ignore", message=r"UMAP: \d+ feature\(s\) have zero variance", category=UserWarning
            )
            rows = [m._fit_graph(Xt, yt)[0] for m, Xt, yt in zip(self.mappers_, X, labels)]
        if self.metric != "precomputed":
            _warn_constant_columns(rows)
        links = related_pairs(relations, [r.shape[0] for r in rows], self.alignment_window_size)
        graphs = [m.graph_ for m in self.mappers_]
        strength = ALIGNMENT_SCALE * self.alignment_regularisation
        weights = {
            key: strength * np.exp(-(key[1] - 1)) * neighbourhood_overlap(graphs, key, *pairs)
            for key, pairs in links.items()
        }
        maps = self._initial_maps(rows, links, rng)
        n_epochs = self.n_epochs or 200
        self._joint_layout(maps, links, weights, n_epochs, rng)
        for m, Xt, Yt in zip(self.mappers_, rows, maps):
            m.n_epochs_ = n_epochs
            m._keep(Xt, Yt)
        self.embeddings_ = [m.embedding_ for m in self.mappers_]
        self.n_models_, self.dict_relations_ = n_models, list(relations)
        return self

    def fit_transform(self, X, y=None, relations=None):
        """``fit``, then the aligned maps.

        Parameters
        ----------
        X : list of array-like
        y : list of array-like, optional
        relations : list of dict

        Returns
        -------
        list of ndarray
        """
        return self.fit(X, y, relations=relations).embeddings_

    def update(self, X, y=None, relations=None, **params):
        """Add a dataset after the fitted ones and lay out its map, aligned to the maps
        before it, which stay as they are (umap-learn's ``update``).

        Parameters
        ----------
        X : array-like (n, n_features)
        y : array-like (n,), optional
            Its labels, for a supervised map.
        relations : dict
            ``relations[i] = j``: row ``i`` of the last fitted dataset is row ``j`` of ``X``.
        **params
            Per-dataset parameters for the new map (``n_neighbors=10``); required for
            those given as lists to the constructor, default: the constructor's value.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_digits
        >>> X = load_digits().data[:600]
        >>> shift = {i + 150: i for i in range(150)}  # rows 150.. of one window are rows 0.. of the next
        >>> model = AlignedUMAP(n_epochs=30, random_state=0).fit([X[:300], X[150:450]], relations=[shift])
        >>> len(model.update(X[300:], relations=shift).embeddings_)
        3
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "embeddings_")
        t = self.n_models_
        _check_sequence([self.mappers_[-1].X_fit_, X], [relations])
        mapper = self._new_mapper(t, params)
        rng = check_random_state(self.random_state)
        new_rows = mapper._fit_graph(X, y)[0]
        self.mappers_.append(mapper)
        sizes = [m.embedding_.shape[0] for m in self.mappers_[:-1]] + [new_rows.shape[0]]
        every = related_pairs([*self.dict_relations_, relations], sizes, self.alignment_window_size)
        links = {key: pairs for key, pairs in every.items() if key[0] + key[1] == t}  # those reaching the new map
        graphs = [m.graph_ for m in self.mappers_]
        strength = ALIGNMENT_SCALE * self.alignment_regularisation
        weights = {
            key: strength * np.exp(-(key[1] - 1)) * neighbourhood_overlap(graphs, key, *pairs)
            for key, pairs in links.items()
        }
        start = mapper._initial(new_rows, mapper.graph_, rng)
        maps = [m.embedding_.astype(np.float32) for m in self.mappers_[:-1]]
        maps.append(np.ascontiguousarray(procrustes_onto(maps[-1], start, *links[(t - 1, 1)]), dtype=np.float32))
        n_epochs = self.n_epochs or 200
        self._joint_layout(maps, links, weights, n_epochs, rng, moving=t)
        mapper.n_epochs_ = n_epochs
        mapper._keep(new_rows, maps[-1])
        self.embeddings_ = [*self.embeddings_, mapper.embedding_]
        self.n_models_, self.dict_relations_ = t + 1, [*self.dict_relations_, dict(relations)]
        return self

    def _new_mapper(self, t, params):
        """The UMAP of dataset ``t``, added by ``update``: ``params`` over the
        constructor's values (a list-valued one must be given)."""
        unknown = sorted(set(params) - set(PER_DATASET))
        if unknown:
            raise ValueError(
                f"update takes the per-dataset parameters {', '.join(PER_DATASET)}; got {', '.join(unknown)}."
            )
        values = {name: params.get(name, getattr(self, name)) for name in PER_DATASET}
        for name, value in values.items():
            if isinstance(value, list | tuple):
                raise ValueError(f"{name} was given one value per dataset; pass update({name}=...) for dataset {t}.")
        return self._umap(values)

    def _umap(self, values):
        """A UMAP with the shared parameters and one dataset's ``values``."""
        return UMAP(**{name: getattr(self, name) for name in SHARED}, **values, random_state=self.random_state)

    def _initial_maps(self, rows, links, rng):
        """Each dataset's own start, rotated and scaled onto the previous map through
        the rows related to it."""
        maps = []
        for t, (m, Xt) in enumerate(zip(self.mappers_, rows)):
            Y = m._initial(Xt, m.graph_, rng)
            if t and (t - 1, 1) in links:
                before, after = links[(t - 1, 1)]
                Y = procrustes_onto(maps[-1], Y, before, after)
            maps.append(np.ascontiguousarray(Y, dtype=np.float32))
        return maps

    def _joint_layout(self, maps, links, weights, n_epochs, rng, moving=None):
        """Every map (or only map ``moving``) advances one UMAP epoch, then related rows
        pull together; repeat."""
        from .._progress import progress_bar

        layouts = {}
        for t in range(len(maps)) if moving is None else [moving]:
            m = self.mappers_[t]
            m.layout_seed_ = int(rng.integers(2**62))
            gamma, rate, step = m.repulsion_strength, m.negative_sample_rate, m.learning_rate
            layouts[t] = Layout(maps[t], m.graph_, n_epochs, m.a_, m.b_, m.layout_seed_, gamma, rate, step, None, None)
        # a row moves about 2 sum(w) / max(w) times an epoch (each of its edges sampled
        # sum(w) / max(w) times, moving both ends), each move pulling it towards its
        # related rows (umap-learn's regularisation per sampled edge)
        visits = {t: 2.0 * np.asarray(L.W.sum(axis=1)).ravel() / L.heaviest for t, L in layouts.items()}
        first = next(iter(layouts.values()))
        for epoch in progress_bar(range(1, n_epochs + 1), desc="AlignedUMAP", unit="epoch", disable=not self.verbose):
            for layout in layouts.values():
                layout.step(epoch)
            align(maps, links, weights, visits, first.alpha(epoch))


def _check_sequence(X, relations):
    """The number of datasets, after checking that ``relations`` link them in order."""
    if not isinstance(X, list | tuple) or len(X) < 2:
        raise ValueError("AlignedUMAP fits a list of at least 2 datasets; got " + type(X).__name__ + ".")
    if relations is None or len(relations) != len(X) - 1:
        given = "none" if relations is None else len(relations)
        raise ValueError(
            f"AlignedUMAP needs relations between consecutive datasets: {len(X) - 1} dicts for {len(X)} "
            f"datasets (relations[t][i] = j: row i of X[t] is row j of X[t + 1]); got {given}."
        )
    for t, rel in enumerate(relations):
        if not isinstance(rel, dict):
            raise ValueError(f"relations[{t}] must be a dict {{row of X[{t}]: row of X[{t + 1}]}}; got {rel!r}.")
        for i, j in rel.items():
            if not (0 <= int(i) < len(X[t]) and 0 <= int(j) < len(X[t + 1])):
                raise ValueError(
                    f"relations[{t}] maps row {i} to row {j}, outside X[{t}] ({len(X[t])} rows) or "
                    f"X[{t + 1}] ({len(X[t + 1])} rows)."
                )
    return len(X)


def related_pairs(relations, sizes, window):
    """``{(t, gap): (rows of map t, rows of map t + gap)}`` for every pair of maps
    fewer than ``window`` apart (consecutive ones at least), the relations composed
    along the sequence.

    Examples
    --------
    >>> related_pairs([{0: 1, 1: 0}, {1: 2}], [2, 2, 3], 3)[(0, 2)]
    (array([0]), array([2]))
    """
    steps = []
    for t, rel in enumerate(relations):
        step = np.full(sizes[t], -1, dtype=np.int64)
        step[np.fromiter(rel.keys(), dtype=np.int64, count=len(rel))] = np.fromiter(rel.values(), np.int64, len(rel))
        steps.append(step)
    pairs = {}
    for t in range(len(relations)):
        reach = steps[t]
        for gap in range(1, min(max(window, 2), len(relations) - t + 1)):
            if gap > 1:
                reach = np.where(reach >= 0, steps[t + gap - 1][np.maximum(reach, 0)], -1)
            rows = np.flatnonzero(reach >= 0)
            if rows.size:
                pairs[(t, gap)] = (rows, reach[rows])
    return pairs


def neighbourhood_overlap(graphs, key, rows, partners):
    """For each related pair, the Jaccard overlap of the two rows' graph
    neighbourhoods (a row's neighbours carried over by the relation): pairs whose
    surroundings changed are held together less.

    Examples
    --------
    >>> G = sp.csr_matrix(np.array([[0, 1.0], [1.0, 0]]))
    >>> neighbourhood_overlap([G, G], (0, 1), np.array([0, 1]), np.array([0, 1])).tolist()
    [1.0, 1.0]
    """
    t, gap = key
    A, B = (graphs[t] > 0).astype(np.float64).tocsr(), (graphs[t + gap] > 0).astype(np.float64).tocsr()
    carry = sp.csr_matrix((np.ones(rows.size), (rows, partners)), shape=(A.shape[0], B.shape[0]))
    carried = (A @ carry).tocsr()[rows]  # each row's related neighbours, as rows of map t + gap
    has_partner = np.zeros(B.shape[0])
    has_partner[partners] = 1.0
    shared = np.asarray(carried.multiply(B[partners]).sum(axis=1)).ravel()
    # only related neighbours count: a neighbour without a partner cannot be compared
    sizes = np.asarray(carried.sum(axis=1)).ravel() + B[partners] @ has_partner
    return np.where(sizes > 0, shared / np.maximum(sizes - shared, 1.0), 1.0)


def procrustes_onto(reference, moving, ref_rows, moving_rows):
    """``moving`` rotated (or reflected), scaled and shifted so that its rows
    ``moving_rows`` fit ``reference``'s rows ``ref_rows`` best in least squares.

    Examples
    --------
    >>> ref = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> moved = procrustes_onto(ref, 3 * ref[:, ::-1] + 5, np.arange(3), np.arange(3))
    >>> bool(np.allclose(moved, ref))
    True
    """
    if len(ref_rows) <= moving.shape[1]:
        return moving
    rotation, scale, q0, p0 = procrustes_fit(reference[ref_rows], moving[moving_rows])
    return (moving - q0) @ rotation * scale + p0


def align(maps, links, weights, visits, alpha):
    """One epoch's alignment step: each related pair of rows moves towards each other
    by ``alpha x weight x visits`` of its gap (at most ``MAX_PULL``), in place; only
    the maps ``visits`` has an entry for move (a list: all).

    Examples
    --------
    >>> maps = [np.zeros((1, 2)), np.ones((1, 2))]
    >>> links, weights = {(0, 1): (np.array([0]), np.array([0]))}, {(0, 1): np.array([0.25])}
    >>> align(maps, links, weights, [np.ones(1), np.ones(1)], 1.0)
    >>> maps[0].tolist(), maps[1].tolist()
    ([[0.25, 0.25]], [[0.75, 0.75]])
    """
    for (t, gap), (rows, partners) in links.items():
        A, B = maps[t], maps[t + gap]
        gaps = A[rows] - B[partners]
        w = alpha * weights[(t, gap)]
        moves = range(len(visits)) if isinstance(visits, list) else visits
        if t in moves:
            np.subtract.at(A, rows, np.minimum(w * visits[t][rows], MAX_PULL)[:, None] * gaps)
        if t + gap in moves:
            np.add.at(B, partners, np.minimum(w * visits[t + gap][partners], MAX_PULL)[:, None] * gaps)


def _warn_constant_columns(rows):
    """One warning naming the datasets with zero-variance columns, and the columns (a
    dataset whose rows are all the same point has UMAP's own warning).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _warn_constant_columns([np.array([[0.0, 1.0], [0.0, 2.0]]), np.eye(2)])
    >>> str(caught[0].message)[:68]
    'AlignedUMAP: 1 of the 2 datasets have features of zero variance (dat'
    """
    found = []
    for t, R in enumerate(rows):
        zero = np.flatnonzero(column_moments(R)[1] == 0)
        if 0 < zero.size < R.shape[1]:
            found.append(f"dataset {t}: columns {listed(zero)}")
    if found:
        shown = "; ".join(found[:3]) + ("; ..." if len(found) > 3 else "")  # each names its own columns
        warn_user(
            f"AlignedUMAP: {len(found)} of the {len(rows)} datasets have features of zero variance ({shown}); "
            "they carry no information there, consider dropping the columns that are constant in every dataset.",
            UserWarning,
        )
