"""
Trajectories: diffusion maps, PHATE, TriMap and UMAP
====================================================

Data that change continuously along branches (cells differentiating, a process
drifting) are trajectories, not clusters. Here a tree of five curved branches in 30
dimensions, each crowded at its start (as cells are before a branch point), with noise
on every column. A diffusion map's slowest modes follow the branches: each coordinate
is one direction of spread of a random walk on the neighbour graph, and ``t`` (the
diffusion time) fades the fast, local modes. PHATE lays out the walk's potential
distances by MDS, so the whole tree fits in two dimensions. TriMap keeps the order of
distances in sampled triplets, random ones included, which holds the branches' global
arrangement; UMAP keeps each neighbourhood but tears the branches apart where they join.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim
from lowdim.metrics import trustworthiness


def branching_tree(n_per_branch=250, dim=30, noise=1.0, seed=0):
    """Five branches: a stem, two branches from its end, one more from each of those,
    each a bent segment sampled densely near its start. Returns the points and each
    point's branch and progress along it."""
    rng = np.random.default_rng(seed)
    ends, parents = {}, {1: 0, 2: 0, 3: 1, 4: 2}
    points, branch, progress = [], [], []
    for b in range(5):
        start = ends[parents[b]] if b in parents else np.zeros(dim)
        u = np.sort(rng.uniform(0, 1, n_per_branch) ** 2)
        direction, bend = (v / np.linalg.norm(v) for v in rng.normal(size=(2, dim)))
        path = start + 40 * np.outer(u, direction) + 10 * np.outer(np.sin(np.pi * u), bend)
        ends[b] = path[-1]
        points.append(path)
        branch.append(np.full(n_per_branch, b))
        progress.append(u)
    X = np.vstack(points) + rng.normal(scale=noise, size=(5 * n_per_branch, dim))
    return X, np.concatenate(branch), np.concatenate(progress)


X, branch, progress = branching_tree()

# %%
# Four maps of the same tree, coloured by branch (each branch shaded by progress).
methods = {
    "DiffusionMap (alpha=1, t=2)": lowdim.DiffusionMap(n_components=2, n_neighbors=20, t=2, random_state=0),
    "PHATE": lowdim.PHATE(random_state=0),
    "TriMap": lowdim.TriMap(random_state=0),
    "UMAP": lowdim.UMAP(random_state=0),
}
palette = plt.get_cmap("tab10")
colours = np.array([palette(b) for b in branch])
colours[:, :3] *= 0.45 + 0.55 * progress[:, None]  # darker at the start of each branch
fig, axes = plt.subplots(2, 2, figsize=(10, 9))
for ax, (name, est) in zip(axes.ravel(), methods.items()):
    Y = est.fit_transform(X)
    ax.scatter(*Y.T, s=4, c=colours)
    ax.set_title(f"{name}\ntrustworthiness(10) {trustworthiness(X, Y, n_neighbors=10):.3f}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

# %%
# The diffusion time: the same coordinates, each scaled by ``lambda_k ** t``. The
# eigenvalues say how slowly each mode fades; a larger ``t`` leaves the slowest ones.
dm = lowdim.DiffusionMap(n_components=6, n_neighbors=20, random_state=0).fit(X)
print("eigenvalues of the walk:", dm.eigenvalues_.round(4))
fig, ax = plt.subplots(figsize=(5, 3.5))
for t in (1, 4, 16, 64):
    ax.plot(np.arange(1, 7), dm.eigenvalues_**t, marker="o", label=f"t = {t}")
ax.set_xlabel("component")
ax.set_ylabel("scale lambda^t")
ax.legend()
ax.set_title("How the diffusion time weighs the components")
plt.show()
