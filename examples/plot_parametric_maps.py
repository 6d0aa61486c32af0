"""
Parametric maps: new images placed by one forward pass
======================================================

UMAP and t-SNE place new rows with ``transform``, a short optimisation against the
fixed map; ``ParametricUMAP`` and ``ParametricTSNE`` train an encoder network on the
method's own graph and loss, so placing new rows is one forward pass of the network.
Fashion-MNIST images: each map fitted on 3,000 training images (the parametric ones
for fewer epochs than their defaults, to keep the gallery quick), then 1,000 other
images placed on it. The printed 10-NN accuracies (a classifier fitted on the training
map, scored on the placed images) and placing times compare them: the networks place
the new images one to two orders of magnitude faster, and ``transform``, which starts
each new image at its nearest training images, places them somewhat more accurately.
The gap narrows with more training images and epochs; on all 60,000 training images
see BENCHMARKS.md.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.neighbors import KNeighborsClassifier

import lowdim
from lowdim.neural import ParametricTSNE, ParametricUMAP

X, y = lowdim.datasets.load_fashion_mnist()
pick = np.random.default_rng(0).choice(len(X), 4000, replace=False)
train, new = pick[:3000], pick[3000:]

maps = {
    "UMAP + transform": lowdim.UMAP(random_state=0).fit(X[train]),
    "ParametricUMAP": ParametricUMAP(n_epochs=20, random_state=0).fit(X[train]),
    "t-SNE + transform": lowdim.TSNE(random_state=0).fit(X[train]),
    "ParametricTSNE": ParametricTSNE(n_epochs=60, random_state=0).fit(X[train]),
}
fig, axes = plt.subplots(2, 2, figsize=(11, 10))
for ax, (name, model) in zip(axes.ravel(), maps.items()):
    start = time.perf_counter()
    placed = model.transform(X[new])
    seconds = time.perf_counter() - start
    accuracy = KNeighborsClassifier(10).fit(model.embedding_, y[train]).score(placed, y[new])
    print(f"{name}: 10-NN accuracy of the placed images {accuracy:.3f}, placed in {seconds:.3f} s")
    ax.scatter(*model.embedding_.T, s=2, c="0.85")
    ax.scatter(*placed.T, s=3, c=y[new], cmap="tab10")
    ax.set_title(f"{name}: 1,000 new images (colour: class)")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
