"""
NMF parts of faces, next to eigenfaces
======================================

PCA's components (eigenfaces) are whole-face patterns with positive and negative
parts that cancel. NMF's are non-negative and can only add up, so they come out as
*parts*: eyes, brows, a nose, a mouth, the outline of the hair.
"""

import lowdim
from lowdim.plot import image_grid

images, _ = lowdim.load_orl_faces()
X = images.reshape(len(images), -1)

pca = lowdim.PCA(16).fit(X)
nmf = lowdim.NMF(16, init="nndsvda", max_iter=300, random_state=0).fit(X)
print(f"NMF relative error {nmf.reconstruction_err_ / (X**2).sum() ** 0.5:.3f}")

fig = image_grid(pca, images.shape[1:], n_cols=8, title="PCA: eigenfaces")
fig = image_grid(nmf, images.shape[1:], n_cols=8, title="NMF: parts")
