"""
t-SNE perplexity and UMAP n_neighbors, from one neighbour graph
===============================================================

Both parameters set the scale of the structure a map keeps. Small values keep fine
local detail and can split a class into islands; large values show more of how the
classes are arranged. The digits (1,797 images of 8 x 8 pixels) through both sweeps,
with trustworthiness (local faithfulness) and kNN accuracy of the known digit labels.

The costly step of every one of these fits is the same: each point's nearest
neighbours. A :class:`lowdim.neighbors.NeighborGraph` finds them once, with as many
neighbours as the largest setting needs (t-SNE reads 3 x perplexity + 1 of them, UMAP
``n_neighbors - 1``), and every fit reads its first columns: the maps are the ones each
fit's own search would give. :func:`lowdim.sweep` does the same in one call, and can
warm-start each map from the one before.
"""

import matplotlib.pyplot as plt
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

import lowdim
from lowdim.metrics import continuity, knn_accuracy, trustworthiness
from lowdim.neighbors import NeighborGraph

X, y = load_digits(return_X_y=True)
graph = NeighborGraph.build(X, 3 * 100 + 1)  # perplexity 100 is the largest need
print(graph)

runs = [("t-SNE", "perplexity", p, lambda p=p: lowdim.TSNE(perplexity=p, random_state=0)) for p in (5, 30, 100)]
runs += [("UMAP", "n_neighbors", k, lambda k=k: lowdim.UMAP(n_neighbors=k, random_state=0)) for k in (5, 15, 100)]

fig, axes = plt.subplots(2, 3, figsize=(10, 6.5))
for ax, (name, param, value, make) in zip(axes.ravel(), runs):
    Y = make().set_params(precomputed_knn=graph).fit_transform(X)
    ax.scatter(Y[:, 0], Y[:, 1], c=y, s=2, cmap="tab10")
    ax.set_xticks([])
    ax.set_yticks([])
    # continuity reads the data's neighbours from the graph too
    scores = f"T={trustworthiness(X, Y):.3f}, C={continuity(graph, Y):.3f}, kNN acc={knn_accuracy(Y, y):.3f}"
    ax.set_title(f"{name}, {param}={value}\n{scores}", fontsize=9)
fig.tight_layout()

# %%
# The same graph clusters the digits with HDBSCAN (core distances and the spanning
# tree over its edges, no search of its own) and lays them out with Isomap; the
# clusters are drawn on the UMAP map with n_neighbors=15.
clusters = lowdim.HDBSCAN(min_cluster_size=20, precomputed_knn=graph).fit_predict(X)
umap_map = lowdim.UMAP(random_state=0, precomputed_knn=graph).fit_transform(X)
isomap_map = lowdim.Isomap(n_neighbors=10, precomputed_knn=graph).fit_transform(X)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
for ax, Y, title in ((axes[0], umap_map, "UMAP"), (axes[1], isomap_map, "Isomap (10 neighbours)")):
    ax.scatter(Y[:, 0], Y[:, 1], c=clusters, s=3, cmap="tab20")
    ax.scatter(*Y[clusters < 0].T, c="lightgrey", s=3)
    ax.set_title(f"{title}: {clusters.max() + 1} HDBSCAN clusters from the same graph", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

# %%
# :func:`lowdim.sweep` runs a sweep from one graph in one call. With
# ``warm_start=True`` each map starts from the one before and runs a short schedule
# (UMAP: a tenth of its epochs at a quarter of its learning rate), so the maps keep
# one orientation and the sweep costs little more than its first fit. The Procrustes
# disparity to the previous map (0 = the same picture up to rotation and scale) shows
# how much each step moved.
maps = lowdim.sweep(lowdim.UMAP(random_state=0), "n_neighbors", [15, 50, 100], X, graph=graph, warm_start=True)
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
for i, (ax, model) in enumerate(zip(axes, maps)):
    Y = model.embedding_
    ax.scatter(Y[:, 0], Y[:, 1], c=y, s=2, cmap="tab10")
    moved = f", disparity to the last {procrustes(maps[i - 1].embedding_, Y)[2]:.3f}" if i else " (full fit)"
    ax.set_title(f"n_neighbors={model.n_neighbors}{moved}\nT={trustworthiness(X, Y):.3f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
