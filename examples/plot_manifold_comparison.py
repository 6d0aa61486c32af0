"""
Every manifold method on the Swiss roll, the S-curve and the Swiss roll with a hole
===================================================================================

Three surfaces rolled or bent in 3-D, coloured by their position along the surface.
A method that unrolls the surface shows the colours (the position along the roll)
as a smooth gradient; one that
squashes it overlays different colours. PCA (linear) cannot unroll anything; Isomap
keeps geodesic distances but a hole bends its map; Hessian LLE and LTSA recover the
rectangle, hole included; maximum variance unfolding (20 landmarks here) pulls the
sheet flat; t-SNE and UMAP keep neighbourhoods but not the shape.
"""

import time

import matplotlib.pyplot as plt

import lowdim
from lowdim.datasets import make_s_curve, make_swiss_roll
from lowdim.metrics import trustworthiness

n = 1000
datasets = {
    "Swiss roll": make_swiss_roll(n, random_state=0),
    "S-curve": make_s_curve(n, random_state=0),
    "Swiss roll with a hole": make_swiss_roll(n, hole=True, random_state=0),
}
methods = {
    "PCA": lambda: lowdim.PCA(2),
    "Isomap": lambda: lowdim.Isomap(n_neighbors=10),
    "LLE": lambda: lowdim.LocallyLinearEmbedding(n_neighbors=12, random_state=0),
    "Hessian LLE": lambda: lowdim.LocallyLinearEmbedding(n_neighbors=12, method="hessian", random_state=0),
    "LTSA": lambda: lowdim.LocallyLinearEmbedding(n_neighbors=12, method="ltsa", random_state=0),
    "Spectral": lambda: lowdim.SpectralEmbedding(n_neighbors=10, random_state=0),
    "MVU": lambda: lowdim.MaximumVarianceUnfolding(n_neighbors=8, random_state=0),
    "MDS": lambda: lowdim.MDS(n_init=1, random_state=0),
    "t-SNE": lambda: lowdim.TSNE(perplexity=30, random_state=0),
    "UMAP": lambda: lowdim.UMAP(n_neighbors=15, random_state=0),
}

fig, axes = plt.subplots(len(datasets), len(methods), figsize=(2.2 * len(methods), 2.4 * len(datasets)))
for row, (data_name, (X, t)) in enumerate(datasets.items()):
    for col, (name, make) in enumerate(methods.items()):
        start = time.perf_counter()
        Y = make().fit_transform(X)
        seconds = time.perf_counter() - start
        ax = axes[row, col]
        ax.scatter(Y[:, 0], Y[:, 1], c=t[:, 0], s=3, cmap="Spectral")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{name}\nT={trustworthiness(X, Y, n_neighbors=10):.3f}, {seconds:.1f} s", fontsize=8)
        if col == 0:
            ax.set_ylabel(data_name)
fig.tight_layout()
plt.show()
