"""
Eigenfaces: one face space, or one subspace per person
======================================================

Turk and Pentland's eigenfaces on the ORL faces (400 images of 40 people, shipped with
lowdim). PCA of the training faces gives the *eigenfaces*; a new face is recognised
either by its nearest training face in the shared space, or by the person whose own
subspace reconstructs it best.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.images import EigenfaceClassifier, split_per_class
from lowdim.plot import image_grid

images, person = lowdim.load_orl_faces()
X = images.reshape(len(images), -1)
train = split_per_class(person, 5, random_state=0)  # 5 training images per person

# %%
# The mean face and the first eigenfaces.
pca = lowdim.PCA(n_components=40).fit(X[train])
fig = image_grid(
    np.vstack([pca.mean_, pca.components_[:11]]),
    images.shape[1:],
    n_cols=6,
    titles=["mean"] + [f"PC{i + 1}" for i in range(11)],
)

# %%
# Reconstructions of one face from more and more components.
face = X[~train][0]
ks = [5, 20, 80, 199]
recs = []
for k in ks:
    model = lowdim.PCA(k).fit(X[train])
    recs.append(model.inverse_transform(model.transform(face[None]))[0])
fig = image_grid(np.vstack([face] + recs), images.shape[1:], n_cols=5, titles=["original"] + [f"k={k}" for k in ks])

# %%
# Recognition accuracy on the held-out faces against the number of components.
ks = [2, 5, 10, 20, 40, 80]
shared = [
    EigenfaceClassifier(k, method="shared").fit(X[train], person[train]).score(X[~train], person[~train]) for k in ks
]
per_person = [
    EigenfaceClassifier(k, method="per-class").fit(X[train], person[train]).score(X[~train], person[~train]) for k in ks
]
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(ks, shared, "o-", label="shared face space")
ax.plot(ks, per_person, "s-", label="one subspace per person")
ax.set_xscale("log")
ax.set_xlabel("components")
ax.set_ylabel("accuracy")
ax.legend()
fig.tight_layout()
plt.show()
