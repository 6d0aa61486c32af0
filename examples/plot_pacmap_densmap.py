"""
Global structure and density: PaCMAP and densMAP next to UMAP
=============================================================

Two answers to what plain neighbour maps lose. UMAP keeps neighbourhoods but evens out
density and places clusters more or less arbitrarily. **PaCMAP** adds mid-near pairs
that fix the overall arrangement first (random-triplet accuracy measures it: the share
of random triplets whose order of distances the map keeps). **densMAP** adds a term that
keeps each point's local radius, so a tight cluster stays tight and a diffuse one
diffuse (the correlation between the radii in the data and in the map measures it).

The data: the handwritten digits, whose classes differ in spread (zeros and sixes are
written much alike; eights vary most).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import lowdim
from lowdim.metrics import knn_accuracy, random_triplet_accuracy
from lowdim.plot import embedding_scatter

X, y = load_digits(return_X_y=True)
X = X[:, X.std(axis=0) > 0]  # three pixels are blank in every image

umap_map, r_data, r_umap = lowdim.UMAP(random_state=0, output_dens=True).fit_transform(X)
dens_map, _, r_dens = lowdim.UMAP(random_state=0, densmap=True, output_dens=True).fit_transform(X)
pacmap_map = lowdim.PaCMAP(random_state=0).fit_transform(X)

maps = {"UMAP": (umap_map, r_umap), "densMAP": (dens_map, r_dens), "PaCMAP": (pacmap_map, None)}
fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
for ax, (name, (Y, radii)) in zip(axes, maps.items()):
    triplets = random_triplet_accuracy(X, Y, random_state=0)
    title = f"{name}\n10-NN accuracy {knn_accuracy(Y, y, n_neighbors=10, random_state=0):.3f}, triplets {triplets:.3f}"
    if radii is not None:
        title += f"\nradius correlation {np.corrcoef(r_data, radii)[0, 1]:.2f}"
    embedding_scatter(Y, y, ax=ax, title=title)
fig.tight_layout()

# %%
# Each digit's spread in the data (mean local radius) against its spread in the map:
# densMAP keeps the order, UMAP flattens it.
fig, ax = plt.subplots(figsize=(5.5, 4))
data_spread = np.array([r_data[y == d].mean() for d in range(10)])
for name, radii, marker in (("UMAP", r_umap, "o"), ("densMAP", r_dens, "s")):
    ax.scatter(data_spread, [radii[y == d].mean() for d in range(10)], marker=marker, label=name)
for d in range(10):
    ax.annotate(str(d), (data_spread[d], r_dens[y == d].mean()), textcoords="offset points", xytext=(4, 2))
ax.set_xlabel("mean local radius in the data (log)")
ax.set_ylabel("mean local radius in the map (log)")
ax.legend()
fig.tight_layout()
