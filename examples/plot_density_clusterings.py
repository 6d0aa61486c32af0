"""
Density and hierarchy: DBSCAN, OPTICS, HDBSCAN with soft membership, agglomerative
==================================================================================

Four ways to find groups without a model of their shape, on one UMAP map of the
handwritten digits. DBSCAN needs one radius for the whole map; OPTICS orders the points so
that clusters of every density are valleys of its reachability plot, and cuts the
valleys at their steep walls; HDBSCAN finds clusters of different densities and leaves
the rest as noise, and its soft clustering says how surely each point belongs (pale:
unsure) and which cluster a noise point nearly joined; agglomerative clustering builds
the whole tree of merges, here with Ward's linkage along a 10-neighbour graph, and cuts
it at ten clusters. Last, HDBSCAN's ``min_cluster_size`` chosen by the stability of its
clusters under subsampling.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgb
from sklearn.datasets import load_digits

import lowdim
from lowdim.cluster import all_points_membership_vectors, select_by_stability
from lowdim.metrics import adjusted_rand_score
from lowdim.neighbors import KNeighborsTransformer
from lowdim.plot import embedding_scatter, stability_curve

X, y = load_digits(return_X_y=True)
Y = lowdim.UMAP(random_state=0).fit_transform(X)

# %%
# The hard clusterings, scored against the true digits (noise counts as its own group).
hdbscan = lowdim.HDBSCAN(min_cluster_size=30).fit(Y)
optics = lowdim.OPTICS(min_samples=40, xi=0.1, min_cluster_size=100).fit(Y)
graph = KNeighborsTransformer(n_neighbors=10, mode="connectivity").fit_transform(Y)
clusterings = {
    "DBSCAN (eps=0.5)": lowdim.DBSCAN(eps=0.5, min_samples=10).fit_predict(Y),
    "OPTICS (xi=0.1)": optics.labels_,
    "HDBSCAN": hdbscan.labels_,
    "Ward along a 10-NN graph": lowdim.AgglomerativeClustering(10, connectivity=graph).fit(Y).labels_,
}
fig, axes = plt.subplots(2, 2, figsize=(10, 8.6))
for ax, (name, labels) in zip(axes.ravel(), clusterings.items()):
    k, noise = labels.max() + 1, int(np.sum(labels < 0))
    title = f"{name}: {k} clusters" + (f", {noise} noise" if noise else "")
    embedding_scatter(Y, labels, ax=ax, title=f"{title}\nARI {adjusted_rand_score(y, labels):.3f}")
fig.tight_layout()

# %%
# OPTICS's reachability plot: the points in visiting order, each at the distance it was
# reached at. Every valley is a cluster, valleys inside valleys are nested clusters;
# the colours are the clusters the xi method cut (grey: noise). The tallest peaks (the
# jumps between far-apart groups) are cut off to show the valleys.
plot = optics.reachability_[optics.ordering_]
labels = optics.labels_[optics.ordering_]
fig, ax = plt.subplots(figsize=(9, 3))
palette = plt.get_cmap("tab10")
hues = [palette(i) for i in (0, 1, 2, 3, 4, 5, 6, 8, 9)]  # tab10 without its grey, which is noise here
ax.bar(
    np.arange(plot.size),
    np.where(np.isfinite(plot), plot, np.nan),
    width=1.0,
    color=[hues[c % len(hues)] if c >= 0 else "0.8" for c in labels],
)
ax.set_ylim(0, 1.5 * np.quantile(plot[np.isfinite(plot)], 0.99))
ax.set_xlabel("points in OPTICS order")
ax.set_ylabel("reachability distance")
ax.set_title(f"OPTICS reachability plot: {optics.labels_.max() + 1} clusters")
fig.tight_layout()

# %%
# HDBSCAN's soft clustering: each point coloured by its most likely cluster, faded by
# the probability. Noise points (grey before) now lean towards the cluster they nearly
# joined, faintly.
soft = all_points_membership_vectors(hdbscan)
colours = np.array([to_rgb(palette(c % 10)) for c in soft.argmax(axis=1)])
strength = soft.max(axis=1)[:, None]
fig, ax = plt.subplots(figsize=(6, 5))
ax.scatter(*Y.T, s=6, c=colours * strength + (1 - strength))
ax.set_title("HDBSCAN soft membership (pale: unsure)")
ax.set_xticks([])
ax.set_yticks([])
noise = hdbscan.labels_ < 0
print(f"membership of clustered points: median {np.median(soft[~noise].max(axis=1)):.2f}")
print(f"membership of noise points: median {np.median(soft[noise].max(axis=1)):.2f}")

# %%
# Which ``min_cluster_size``? HDBSCAN has no k, but its scale can be chosen by stability:
# the value whose clusters random subsets of the points (80 %) find again, scored by the
# adjusted Rand index; the number above each point is the clusters it finds.
choice = select_by_stability(
    lowdim.HDBSCAN(), Y, "min_cluster_size", [5, 15, 30, 60, 120, 240], n_resamples=5, random_state=0
)
found = choice.n_clusters[choice.candidates.index(choice.value)]
print(f"most stable min_cluster_size: {choice.value} ({found} clusters)")
stability_curve(choice)
plt.show()
