"""
t-SNE perplexity and UMAP n_neighbors
=====================================

Both parameters set the scale of the structure a map keeps. Small values keep fine
local detail and can split a class into islands; large values show more of how the
classes are arranged. The digits (1,797 images of 8 x 8 pixels) through both sweeps,
with trustworthiness (local faithfulness) and kNN accuracy of the known digit labels.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import lowdim
from lowdim.metrics import knn_accuracy, trustworthiness

X, y = load_digits(return_X_y=True)
runs = [("t-SNE", "perplexity", p, lambda p=p: lowdim.TSNE(perplexity=p, random_state=0)) for p in (5, 30, 100)]
runs += [("UMAP", "n_neighbors", k, lambda k=k: lowdim.UMAP(n_neighbors=k, random_state=0)) for k in (5, 15, 100)]

fig, axes = plt.subplots(2, 3, figsize=(10, 6.5))
for ax, (name, param, value, make) in zip(axes.ravel(), runs):
    Y = make().fit_transform(X)
    ax.scatter(Y[:, 0], Y[:, 1], c=y, s=2, cmap="tab10")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(
        f"{name}, {param}={value}\nT={trustworthiness(X, Y):.3f}, kNN acc={knn_accuracy(Y, y):.3f}", fontsize=9
    )
fig.tight_layout()
plt.show()
