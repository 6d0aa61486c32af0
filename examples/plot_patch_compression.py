"""
Image compression with patch PCA
================================

Cut an image into 8 x 8 patches, treat every patch as a 64-dimensional point, and keep
only ``k`` principal components of them: each patch is then stored as ``k`` numbers
instead of 64 (plus the shared basis). The error falls quickly with ``k``, because
natural images are smooth within small patches.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.images import compress_image
from lowdim.plot import error_curve

images, _ = lowdim.load_orl_faces()
image = np.hstack([images[0], images[10], images[20]])  # a 112 x 276 strip of three faces

result = compress_image(image, patch=8, n_components=8, ks=[1, 2, 4, 8, 16, 32])
print(f"k=8: relative error {result.relative_error:.3f}, compression ratio {result.compression_ratio:.1f}")

# %%
# The reconstruction next to the original.
fig, axes = plt.subplots(2, 1, figsize=(7, 5))
for ax, img, title in zip(axes, [image, result.reconstruction], ["original", "8 of 64 components per patch"]):
    ax.imshow(img, cmap="gray")
    ax.set_title(title)
    ax.axis("off")
fig.tight_layout()

# %%
# Error and compression ratio against k.
ks = result.curve["k"]
fig = error_curve(ks, result.curve["relative_error"], chosen=8)
ratios = {k: round(compress_image(image, patch=8, n_components=k).compression_ratio, 1) for k in ks}
print("compression ratio by k:", ratios)
plt.show()
