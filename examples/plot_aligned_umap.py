"""
Maps that follow data: AlignedUMAP and UMAP.update
==================================================

The digits ordered by how much ink they use, cut into ten overlapping windows of 400
images (each 150 images on from the last): a dataset that drifts. Fitted one by one,
the ten UMAP maps land at arbitrary rotations and arrangements, and a digit's cluster
jumps from map to map. **AlignedUMAP** lays the ten windows out together, pulling each
image towards its own position in the neighbouring windows, so the maps share one
frame and a cluster moves only as its data change. The number over each map is the
Procrustes disparity between its shared images and the previous map's (0: the same
arrangement up to rotation and scale).

Below: **UMAP.update** adds the last 600 digits to a map fitted on the first 1,197.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial import procrustes
from sklearn.datasets import load_digits

import lowdim

X, y = load_digits(return_X_y=True)
order = np.argsort(X.sum(axis=1), kind="stable")
windows = [X[order][150 * i : 150 * i + 400] for i in range(10)]
labels = [y[order][150 * i : 150 * i + 400] for i in range(10)]
relations = [{i + 150: i for i in range(250)} for _ in range(9)]

aligned = lowdim.AlignedUMAP(random_state=0).fit_transform(windows, relations=relations)
apart = [lowdim.UMAP(random_state=0).fit_transform(w) for w in windows]

fig, axes = plt.subplots(2, 10, figsize=(16, 3.6))
for row, (name, maps) in enumerate((("one by one", apart), ("AlignedUMAP", aligned))):
    for t, (ax, Y) in enumerate(zip(axes[row], maps)):
        ax.scatter(Y[:, 0], Y[:, 1], c=labels[t], cmap="tab10", vmin=0, vmax=9, s=1)
        ax.set_xticks([])
        ax.set_yticks([])
        if t:
            shared = procrustes(maps[t - 1][150:], Y[:250])[2]
            ax.set_title(f"{shared:.2f}", fontsize=8)
    axes[row, 0].set_ylabel(name, fontsize=9)
fig.tight_layout()

# %%
# ``UMAP.update``: the new rows are placed as ``transform`` places them, then the map
# is optimised over the graph of all rows from where it was; the first 1,197 points
# keep their arrangement (left: before, right: after, new points in black outline).
shuffled = np.random.default_rng(0).permutation(len(X))
model = lowdim.UMAP(random_state=0).fit(X[shuffled[:1197]])
before = model.embedding_.copy()
after = model.update(X[shuffled[1197:]]).embedding_
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
axes[0].scatter(*before.T, c=y[shuffled[:1197]], cmap="tab10", s=3)
axes[0].set_title("fitted on 1,197 digits", fontsize=9)
axes[1].scatter(*after[:1197].T, c=y[shuffled[:1197]], cmap="tab10", s=3)
axes[1].scatter(*after[1197:].T, c=y[shuffled[1197:]], cmap="tab10", s=6, edgecolors="black", linewidths=0.3)
disparity = procrustes(before, after[:1197])[2]
axes[1].set_title(f"after update with 600 more (old points' disparity {disparity:.3f})", fontsize=9)
for ax in axes:
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
