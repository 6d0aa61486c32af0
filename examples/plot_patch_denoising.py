"""
Image denoising with patch PCA
==============================

Noise spreads over every direction of patch space, the image's structure over a few.
Projecting every overlapping patch on its leading principal components and averaging
the overlaps removes most of the noise and keeps the edges.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.images import denoise_image

images, _ = lowdim.load_orl_faces()
clean = np.hstack([images[3], images[33]])
noisy = clean + np.random.default_rng(0).normal(scale=0.1, size=clean.shape)


def psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


results = {k: denoise_image(noisy, n_components=k, patch=8) for k in (4, 10, 25)}
for k, img in results.items():
    print(f"k={k}: PSNR {psnr(img, clean):.1f} dB (noisy: {psnr(noisy, clean):.1f} dB)")

fig, axes = plt.subplots(1, 3, figsize=(9, 3))
for ax, img, title in zip(axes, [clean, noisy, results[10]], ["clean", "noisy", "denoised, k=10"]):
    ax.imshow(img, cmap="gray", vmin=0, vmax=1)
    ax.set_title(title)
    ax.axis("off")
fig.tight_layout()
plt.show()
