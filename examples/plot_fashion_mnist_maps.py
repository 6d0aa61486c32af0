"""
Maps of Fashion-MNIST, judged
=============================

Ten kinds of clothing, 28 x 28 grey images (Fashion-MNIST, from the Debian package
``dataset-fashion-mnist``). PCA, t-SNE and UMAP of 5,000 images (the latter two on the
top 50 principal components, as is usual for wide data), each judged by
trustworthiness, continuity and the kNN accuracy of the known classes.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.metrics import continuity, knn_accuracy, trustworthiness

X, y = lowdim.datasets.load_fashion_mnist()
pick = np.random.default_rng(0).choice(len(X), 5000, replace=False)
X, y = X[pick], y[pick]
X50 = lowdim.PCA(50, random_state=0).fit_transform(X)

maps = {}
for name, make, data in (
    ("PCA", lambda: lowdim.PCA(2), X),
    ("t-SNE", lambda: lowdim.TSNE(random_state=0), X50),
    ("UMAP", lambda: lowdim.UMAP(random_state=0), X50),
):
    start = time.perf_counter()
    maps[name] = (make().fit_transform(data), time.perf_counter() - start)

fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, (name, (Y, seconds)) in zip(axes, maps.items()):
    scores = (trustworthiness(X, Y), continuity(X, Y), knn_accuracy(Y, y))
    print(f"{name}: trustworthiness {scores[0]:.3f}, continuity {scores[1]:.3f}, kNN accuracy {scores[2]:.3f}")
    ax.scatter(Y[:, 0], Y[:, 1], c=y, s=2, cmap="tab10")
    ax.set_title(f"{name} ({seconds:.1f} s)\nT={scores[0]:.3f} C={scores[1]:.3f} acc={scores[2]:.3f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
