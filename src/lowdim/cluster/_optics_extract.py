"""Clusters from an OPTICS reachability plot: the xi method's steep areas (Ankerst,
Breunig, Kriegel & Sander 1999, section 4.3, with the predecessor correction of Schubert
& Gertz 2018) and DBSCAN's cut at one eps."""

from dataclasses import dataclass

import numpy as np


def resolve_size(size, n_samples, name):
    """An absolute count from a count or a fraction of the rows (at least 2), as
    scikit-learn reads ``min_samples`` and ``min_cluster_size``.

    Parameters
    ----------
    size : int or float
        A count above 1, or a fraction of ``n_samples`` in (0, 1].
    n_samples : int
    name : str
        The parameter, for the message.

    Returns
    -------
    int

    Examples
    --------
    >>> resolve_size(0.1, 200, "min_samples"), resolve_size(5, 200, "min_samples")
    (20, 5)
    """
    if size > n_samples:
        raise ValueError(
            f"{name} must be no greater than the number of samples ({n_samples}). Got {size}; "
            f"lower {name} or pass a fraction of the rows."
        )
    return max(2, int(size * n_samples)) if size <= 1 else int(size)


def cluster_optics_dbscan(*, reachability, core_distances, ordering, eps):
    """DBSCAN's clusters at ``eps`` read from an OPTICS ordering: a point whose
    reachability exceeds ``eps`` starts a cluster if it is core at ``eps``, and is noise
    otherwise; every other point joins the cluster before it in the ordering.

    The clusters are DBSCAN's for core points; a border point may join another cluster
    than DBSCAN gives it.

    Parameters
    ----------
    reachability, core_distances : ndarray (n_samples,)
        In row order (``OPTICS.reachability_``, ``OPTICS.core_distances_``).
    ordering : ndarray of int (n_samples,)
    eps : float

    Returns
    -------
    labels : ndarray of int64 (n_samples,)
        -1 for noise.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import OPTICS
    >>> X = np.array([[1, 2], [2, 5], [3, 6], [8, 7], [8, 8], [7, 3]])
    >>> o = OPTICS(min_samples=2).fit(X)
    >>> cluster_optics_dbscan(reachability=o.reachability_, core_distances=o.core_distances_,
    ...                       ordering=o.ordering_, eps=2).tolist()
    [-1, 0, 0, 1, 1, -1]
    """
    reach, core = np.asarray(reachability)[ordering], np.asarray(core_distances)[ordering]
    starts = (reach > eps) & (core <= eps)
    in_order = np.cumsum(starts) - 1  # the last cluster started at or before each point
    in_order[(reach > eps) & ~starts] = -1
    labels = np.empty(len(ordering), dtype=np.int64)
    labels[ordering] = in_order
    return labels


@dataclass
class _SteepDown:
    start: int
    end: int
    mib: float  # the largest reachability seen since the area ended


def _area_end(steep, against, start, min_samples):
    """Last point of the steep area starting at ``start``: it runs over steep points and
    over at most ``min_samples`` points in a row that are neither steep nor against its
    direction, and a point against its direction ends it."""
    end, flat = start, 0
    for i in range(start, steep.size):
        if steep[i]:
            end, flat = i, 0
        elif against[i]:
            break
        else:
            flat += 1
            if flat > min_samples:
                break
    return end


def _keep_open(downs, mib, plot, keep):
    """Drop the steep-down areas a maximum ``mib`` between them and here has closed
    (their start no longer ``1 / keep`` above it) and raise the others' ``mib``."""
    if np.isinf(mib):
        return []
    kept = [d for d in downs if mib <= plot[d.start] * keep]
    for d in kept:
        d.mib = max(d.mib, mib)
    return kept


def _corrected_end(plot, pred_plot, ordering, start, end):
    """Shorten a cluster from the right until its last point's predecessor is inside it
    (or its first point lies higher than its last); None when nothing remains."""
    while start < end:
        if plot[start] > plot[end] or pred_plot[end] in ordering[start:end]:
            return end
        end -= 1
    return None


def _bounds(plot, d, up_start, up_end, keep):
    """The cluster between a steep-down area and a steep-up area, its ends moved to a
    common level (criterion 4 of Definition 11)."""
    start, end = d.start, up_end
    top, after = plot[d.start], plot[up_end + 1]
    if top * keep >= after:  # the start is much higher: begin where the plot falls to the end's level
        while plot[start + 1] > after and start < d.end:
            start += 1
    elif after * keep >= top:  # the end is much higher: stop where the plot rises past the start
        while plot[end - 1] > top and end > up_start:
            end -= 1
    return start, end


def _clusters_closed_by(plot, pred_plot, ordering, downs, up, sizes, keep, correct):
    """Every cluster a steep-up area ``up = (start, end)`` closes with an open steep-down
    area, the last-opened (innermost) first."""
    found = []
    for d in downs:
        if plot[up[1] + 1] * keep < d.mib:
            continue
        start, end = _bounds(plot, d, up[0], up[1], keep)
        if correct:
            end = _corrected_end(plot, pred_plot, ordering, start, end)
            if end is None:
                continue
        if end - start + 1 >= sizes[1] and start <= d.end and end >= up[0]:
            found.append((start, end))
    return found[::-1]


def xi_clusters(plot, pred_plot, ordering, xi, min_samples, min_cluster_size, correct=True):
    """The xi method's clusters as ``[start, end]`` positions in the ordering,
    inner clusters before the clusters that contain them.

    Parameters
    ----------
    plot, pred_plot : ndarray (n,)
        Reachability and predecessor in ordering order.
    ordering : ndarray of int (n,)
    xi : float
    min_samples, min_cluster_size : int
    correct : bool, default=True
        The predecessor correction.

    Returns
    -------
    ndarray of int64 (n_clusters, 2)

    Examples
    --------
    >>> plot = np.array([np.inf, 1, 1, 1, 9, 1, 1, 1])
    >>> xi_clusters(plot, np.array([-1, 0, 1, 2, 3, 4, 5, 6]), np.arange(8), 0.05, 2, 2).tolist()
    [[0, 3], [4, 7], [0, 7]]
    """
    keep = 1 - xi
    plot = np.append(plot, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = plot[:-1] / plot[1:]
    up, down = ratio <= keep, ratio >= 1 / keep
    downs, clusters, index, mib = [], [], 0, 0.0
    for steep in np.flatnonzero(up | down):
        if steep < index:
            continue
        mib = max(mib, plot[index : steep + 1].max())
        downs = _keep_open(downs, mib, plot, keep)
        if down[steep]:
            end = _area_end(down, ratio < 1, steep, min_samples)
            downs.append(_SteepDown(int(steep), end, 0.0))
        else:
            end = _area_end(up, ratio > 1, steep, min_samples)
            sizes = (min_samples, min_cluster_size)
            clusters += _clusters_closed_by(plot, pred_plot, ordering, downs, (steep, end), sizes, keep, correct)
        index = end + 1
        mib = plot[index]
    return np.array(clusters, dtype=np.int64).reshape(-1, 2)


def _leaf_labels(ordering, clusters):
    """Label each cluster (in the given order) that overlaps no cluster labelled
    before it: the leaves of the hierarchy; the rest is noise."""
    in_order = np.full(len(ordering), -1, dtype=np.int64)
    label = 0
    for start, end in clusters:
        if (in_order[start : end + 1] == -1).all():
            in_order[start : end + 1] = label
            label += 1
    labels = np.empty_like(in_order)
    labels[ordering] = in_order
    return labels


def cluster_optics_xi(
    *, reachability, predecessor, ordering, min_samples, min_cluster_size=None, xi=0.05, predecessor_correction=True
):
    """Clusters from the steep areas of an OPTICS reachability plot (the xi method).

    A cluster starts in a steep-down area (the reachability falls by a factor ``1 - xi``
    from one point to the next) and ends in a steep-up area at about the same level;
    clusters nest. The labels are the leaves: every cluster that contains no smaller one.

    Parameters
    ----------
    reachability, predecessor : ndarray (n_samples,)
        In row order (``OPTICS.reachability_``, ``OPTICS.predecessor_``).
    ordering : ndarray of int (n_samples,)
    min_samples : int or float
        The steep areas' tolerance of flat points; a float in (0, 1] is a fraction of
        the rows.
    min_cluster_size : int or float, optional
        Smallest cluster (default ``min_samples``).
    xi : float, default=0.05
        The steepness, in (0, 1).
    predecessor_correction : bool, default=True

    Returns
    -------
    labels : ndarray of int64 (n_samples,)
        -1 for noise.
    clusters : ndarray of int64 (n_clusters, 2)
        ``[start, end]`` of every cluster in the ordering, inner clusters first.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim.cluster import OPTICS
    >>> X = np.array([[1, 2], [2, 5], [3, 6], [8, 7], [8, 8], [7, 3]])
    >>> o = OPTICS(min_samples=2).fit(X)
    >>> labels, clusters = cluster_optics_xi(reachability=o.reachability_, predecessor=o.predecessor_,
    ...                                      ordering=o.ordering_, min_samples=2)
    >>> labels.tolist(), clusters.tolist()
    ([0, 0, 0, 1, 1, 1], [[0, 2], [3, 5], [0, 5]])
    """
    n = len(reachability)
    min_samples = resolve_size(min_samples, n, "min_samples")
    size = resolve_size(min_samples if min_cluster_size is None else min_cluster_size, n, "min_cluster_size")
    ordering = np.asarray(ordering)
    plot, pred_plot = np.asarray(reachability)[ordering], np.asarray(predecessor)[ordering]
    clusters = xi_clusters(plot, pred_plot, ordering, xi, min_samples, size, predecessor_correction)
    return _leaf_labels(ordering, clusters), clusters
