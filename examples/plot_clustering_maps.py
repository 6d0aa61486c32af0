"""
Clustering a map: k-means, a Gaussian mixture, HDBSCAN and Leiden
=================================================================

The usual workflow after an embedding: cluster it. Four clusterings of the same UMAP map
of the handwritten digits, scored against the true digits with the adjusted Rand index.
k-means and the mixture are told k = 10; HDBSCAN and Leiden find the number of clusters
themselves, HDBSCAN leaving low-density points out as noise (grey). Then G-means grows k
from one cluster by splitting every cluster that does not look Gaussian.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import lowdim
from lowdim.datasets import make_blobs
from lowdim.metrics import adjusted_rand_score
from lowdim.plot import embedding_scatter

X, y = load_digits(return_X_y=True)
umap = lowdim.UMAP(random_state=0).fit(X)
Y = umap.embedding_

# %%
# The four clusterings. Leiden partitions UMAP's own fuzzy graph, so map and
# communities come from the same neighbours.
clusterings = {
    "k-means (k=10)": lowdim.KMeans(10, random_state=0).fit(Y).labels_,
    "Gaussian mixture (k=10)": lowdim.GaussianMixture(10, random_state=0).fit(Y).predict(Y),
    "HDBSCAN": lowdim.HDBSCAN(min_cluster_size=30).fit(Y).labels_,
    "Leiden (UMAP graph)": lowdim.Leiden(graph="precomputed", resolution=0.5, random_state=0).fit(umap.graph_).labels_,
}
fig, axes = plt.subplots(2, 2, figsize=(10, 8))
for ax, (name, labels) in zip(axes.ravel(), clusterings.items()):
    k, noise = labels.max() + 1, int(np.sum(labels < 0))
    title = f"{name}: {k} clusters" + (f", {noise} noise" if noise else "")
    embedding_scatter(Y, labels, ax=ax, title=f"{title}\nARI {adjusted_rand_score(y, labels):.3f}")
fig.tight_layout()

# %%
# G-means: every round splits the clusters whose points, projected on the line
# through their two halves, fail an Anderson-Darling test of normality. On six
# Gaussian blobs it stops at six.
B, _ = make_blobs(1200, centers=6, cluster_std=1.0, random_state=3)
choice = lowdim.select_n_clusters(B, "gmeans", k_range=range(1, 30), random_state=0)
for k, inertia, split in zip(choice.candidates, choice.scores, choice.details["splits"]):
    print(f"k = {k:>2}: inertia {inertia:9.1f}, {split} cluster(s) split")
fig, ax = plt.subplots(figsize=(5, 4))
embedding_scatter(B, lowdim.KMeans(choice.n_clusters, init=choice.details["centers"]).fit(B).labels_, ax=ax)
ax.set_title(f"G-means: k = {choice.n_clusters}")

# %%
# The UMAP map's clusters are not Gaussian blobs: there G-means keeps splitting up to
# the top of its range, the sign that k-means' model does not fit these data.
umap_choice = lowdim.select_n_clusters(Y, "gmeans", k_range=range(1, 40), random_state=0)
print(f"G-means on the UMAP map: k = {umap_choice.n_clusters} (range 1-39)")
plt.show()
