"""
PCA on a Dask cluster
=====================

The same estimator fits a ``dask.array``: every row block's moments are computed where
the block lives and merged exactly in a tree, so only small arrays reach the client,
and the result equals the in-memory fit. A local cluster stands in for a real one here
(``Client("tcp://scheduler:8786")`` connects to one).
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

import lowdim

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
client = Client(cluster)

X = da.random.default_rng(0).normal(size=(200_000, 50), chunks=(25_000, 50))
X = X @ da.from_array(np.random.default_rng(1).normal(size=(50, 50)))  # correlated columns
pca = lowdim.PCA(n_components=5).fit(X)  # attributes are numpy arrays
print(pca.solver_, pca.explained_variance_ratio_.round(4))

# %%
# The scores stay lazy: a dask array with X's row blocks.
Z = pca.transform(X)
print(type(Z).__name__, Z.shape, Z.chunks[0][:3])

# %%
# The in-memory fit of the same numbers agrees.
dense = lowdim.PCA(n_components=5).fit(X.compute())
print(np.abs(dense.explained_variance_ - pca.explained_variance_).max() / dense.explained_variance_[0])
fig, ax = plt.subplots(figsize=(5, 3))
ks = np.arange(1, 6)
ax.bar(ks - 0.2, dense.explained_variance_ratio_, width=0.4, label="in memory")
ax.bar(ks + 0.2, pca.explained_variance_ratio_, width=0.4, label="dask, row blocks on 2 workers")
ax.set_xlabel("component")
ax.set_ylabel("explained variance ratio")
ax.legend()
fig.tight_layout()
client.close()
cluster.close()
