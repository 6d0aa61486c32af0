"""Choosing a clustering's scale by stability: the value whose clusters random subsets
find again, trivial partitions never chosen, graphs subsampled on both axes."""

import numpy as np
import pytest

from lowdim import HDBSCAN, Leiden
from lowdim.cluster import select_by_stability
from lowdim.datasets import make_blobs
from lowdim.neighbors import KNeighborsTransformer
from lowdim.plot import stability_curve


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(600, centers=4, cluster_std=1.0, random_state=3)
    return X, y


def test_hdbscan_min_cluster_size_settles_on_the_real_groups(blobs):
    X, _ = blobs
    values = [5, 40, 350]
    # leaf selection: small sizes cut the blobs into many pieces that differ from sample to sample
    model = HDBSCAN(cluster_selection_method="leaf")
    choice = select_by_stability(model, X, "min_cluster_size", values, n_resamples=4, random_state=0)
    assert choice.value == 40 and choice.n_clusters[1] == 4 and choice.n_clusters[0] > 10
    assert choice.stability[1] > 0.9 > 0.7 > choice.stability[0]
    assert np.isnan(choice.stability[2])  # no cluster at all says nothing, and is not chosen
    assert choice.details["scores"].shape == (3, 4)
    full = HDBSCAN(cluster_selection_method="leaf", min_cluster_size=40).fit(X).labels_
    assert choice.n_clusters[1] == full.max() + 1


def test_leiden_resolution_on_a_precomputed_graph(blobs):
    X, _ = blobs
    graph = KNeighborsTransformer(n_neighbors=15, mode="connectivity").fit_transform(X)
    graph = graph.maximum(graph.T)
    values = [0.1, 1.0, 20.0]
    leiden = Leiden(graph="precomputed")
    choice = select_by_stability(leiden, graph, "resolution", values, n_resamples=4, random_state=0)
    assert choice.n_clusters[0] <= choice.n_clusters[1] < choice.n_clusters[2]  # finer with the resolution
    assert choice.value != 20.0 and choice.stability[2] < np.nanmax(choice.stability)
    ax = stability_curve(choice)
    assert ax.get_title() == "Choosing resolution by stability"


def test_bad_settings_are_named(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match="fraction must be between 0 and 1"):
        select_by_stability(HDBSCAN(), X, "min_cluster_size", [5], fraction=1.5)
    with pytest.raises(ValueError, match="fewer than two clusters"):
        select_by_stability(HDBSCAN(), X, "min_cluster_size", [350], n_resamples=2)
