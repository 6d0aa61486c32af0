"""
Sparse codes: a dictionary of face patches, and sparse PCA
==========================================================

PCA describes every patch with all of its components. Dictionary learning keeps more
atoms than PCA would (here 64 for 8 x 8 = 64 pixels) but describes each patch with a
few of them: the atoms come out as edges and blobs at many positions. Sparse PCA turns
the same idea on the features: each component uses a few pixels, so it points at a
region of the face instead of spreading over all of it.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.images import patch_grid
from lowdim.plot import image_grid

images, _ = lowdim.load_orl_faces()
patches = np.vstack([patch_grid(face, 8, 4)[0] for face in images[:10]])
patches -= patches.mean(axis=1, keepdims=True)
patches /= patches.std()

# %%
# The atoms, learnt online from 5,940 patches, and how few each patch uses.
learner = lowdim.MiniBatchDictionaryLearning(64, alpha=1.0, batch_size=200, max_iter=5, random_state=0)
codes = learner.fit(patches).transform(patches)  # OMP: a tenth of the pixels' count of atoms
print(f"atoms per patch: {np.count_nonzero(codes, axis=1).mean():.1f} of 64")
fig = image_grid(learner.components_, (8, 8), n_cols=16, title="dictionary atoms (8 x 8 patches)")

# %%
# Sparse PCA of the faces next to PCA: the same number of components, each reading a
# few regions of the face.
X = images.reshape(len(images), -1)[:, ::2]  # every other pixel, for speed
shape = (images.shape[1], images.shape[2] // 2)
pca = lowdim.PCA(6).fit(X)
spca = lowdim.MiniBatchSparsePCA(6, alpha=0.5, max_iter=50, batch_size=3, random_state=0).fit(X)
print(f"zero loadings: PCA {np.mean(pca.components_ == 0):.0%}, sparse PCA {np.mean(spca.components_ == 0):.0%}")
fig, axes = plt.subplots(2, 6, figsize=(9, 4))
for row, (model, name) in enumerate(((pca, "PCA"), (spca, "sparse PCA"))):
    for ax, component in zip(axes[row], model.components_):
        ax.imshow(component.reshape(shape), cmap="RdBu", vmin=-np.abs(component).max(), vmax=np.abs(component).max())
        ax.axis("off")
    axes[row, 0].set_title(name, loc="left")
fig.tight_layout()
plt.show()
