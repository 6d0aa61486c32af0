"""
Maps of a mixed table: the Palmer penguins
==========================================

344 penguins of three species, each with four measurements (numbers), its island and its
sex (categories), and gaps: two birds were never measured, eleven have no recorded sex.
The table goes in as it is. UMAP compares the rows by Gower's distance (each number
over its range, categories equal or not, gaps skipped pair by pair); FAMD, the PCA of
mixed data, gives a linear map with the categories placed among their rows;
ParametricUMAP learns the Gower map as a function that places new rows; k-prototypes
and hierarchical clustering by Gower's distance (R's ``hclust(daisy(df))``) group them.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.cluster.hierarchy import dendrogram

import lowdim

frame, species = lowdim.load_penguins(as_frame=True)  # island and sex: 'category' columns
print(frame.dtypes.to_dict())
print(int(frame.isna().sum().sum()), "missing cells")

# %%
# A UMAP map by Gower's distance, from the DataFrame as it is: its column types say
# which columns are categories (``umap.kinds_``), gaps are compared pair by pair.
umap = lowdim.UMAP(metric="gower", random_state=0).fit(frame)
Y = umap.embedding_
print(umap.kinds_)

# %%
# FAMD: numbers standardised, categories coded as in MCA, one PCA of both. Each
# category sits at the centre of its rows.
famd = lowdim.FAMD(n_components=2).fit(frame)  # categories named by the frame: 'island=Biscoe', ...
print("FAMD explained inertia:", famd.explained_inertia_ratio_.round(3))
n_numeric = famd.mean_.size

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
for name in sorted(set(species)):
    rows = species == name
    axes[0].scatter(Y[rows, 0], Y[rows, 1], s=8, label=name)
    axes[1].scatter(famd.row_coordinates_[rows, 0], famd.row_coordinates_[rows, 1], s=8, label=name)
for (x, y), label in zip(famd.column_coordinates_[n_numeric:], famd.category_names_):
    axes[1].annotate(label, (x, y), fontsize=8, weight="bold")
axes[0].set_title("UMAP, Gower's distance")
axes[1].set_title("FAMD, with the categories")
axes[1].set_xlabel("dimension 1")
axes[1].set_ylabel("dimension 2")
axes[0].legend(title="species", markerscale=2)
fig.tight_layout()

# %%
# The same table through a network: ``ParametricUMAP`` trains an encoder on the Gower
# graph, from the DataFrame as it is, so that a new penguin is placed by one forward
# pass. The encoder reads a gap where the Gower coding puts it (a number at its mean, a
# category halfway between its levels); ringed: the 11 birds with a gap, among their
# own species.
parametric = lowdim.ParametricUMAP(metric="gower", random_state=0).fit(frame)
P, gaps = parametric.embedding_, frame.isna().any(axis=1).to_numpy()
fig, ax = plt.subplots(figsize=(5, 4.5))
for name in sorted(set(species)):
    rows = species == name
    ax.scatter(P[rows, 0], P[rows, 1], s=8, label=name)
ax.scatter(P[gaps, 0], P[gaps, 1], s=60, facecolors="none", edgecolors="black", label="with a gap")
ax.set_title("ParametricUMAP, Gower's distance")
ax.legend(markerscale=1.5)
print("placed by the encoder:", parametric.transform(frame.iloc[:3]).round(2).tolist())

# %%
# k-prototypes finds three groups among the same rows, from the numbers (standardised,
# so that grams and millimetres weigh alike) and the categories.
numbers = frame.select_dtypes("number").columns
scaled = frame.assign(**{c: (frame[c] - frame[c].mean()) / frame[c].std(ddof=0) for c in numbers})
clusters = lowdim.KPrototypes(n_clusters=3, random_state=0).fit_predict(scaled)
print("agreement with the species (ARI):", round(lowdim.metrics.adjusted_rand_score(species, clusters), 2))

# %%
# Hierarchical clustering by the same distance: average linkage over Gower's distances
# (Ward's needs Euclidean ones). The whole tree is kept (``children_``, ``distances_``);
# scipy draws it once each merge carries its size.
tree = lowdim.AgglomerativeClustering(3, metric="gower", linkage="average", compute_distances=True).fit(frame)
n = len(frame)
sizes = np.zeros(n - 1)
for i, pair in enumerate(tree.children_):
    sizes[i] = sum(1 if node < n else sizes[node - n] for node in pair)
fig, ax = plt.subplots(figsize=(10, 3.5))
dendrogram(np.column_stack([tree.children_, tree.distances_, sizes]), ax=ax, no_labels=True,
           color_threshold=tree.distances_[-2])  # fmt: skip
ax.set_ylabel("Gower's distance (average linkage)")
ax.set_title("The penguins' merge tree, cut into three clusters")
print("tree's clusters against the species (ARI):", round(lowdim.metrics.adjusted_rand_score(species, tree.labels_), 2))
plt.show()
