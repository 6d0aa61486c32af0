"""
Choosing the number of components and of clusters
==================================================

How many principal components does a data set need, and how many clusters does it
have? Each criterion answers from a curve; lowdim returns the curve with the choice, so
you can see how sure the answer is.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import lowdim
from lowdim.datasets import make_blobs
from lowdim.plot import scree_plot, selection_curve

X = load_digits().data

# %%
# Principal components: the scree plot and three criteria.
pca = lowdim.PCA().fit(X)
fig = scree_plot(pca)
for method in ("variance", "mle", "cv"):
    choice = lowdim.select_n_components(X, method=method, random_state=0)
    print(f"{method:>8}: k = {choice.n_components}")

# %%
# Clusters: four well-separated blobs, and the criteria that look for them.
B, _ = make_blobs(1000, centers=4, random_state=0)
fig, axes = plt.subplots(1, 3, figsize=(10, 3))
for ax, method in zip(axes, ("elbow", "silhouette", "bic")):
    choice = lowdim.select_n_clusters(B, method=method, k_range=range(2, 9), random_state=0)
    selection_curve(choice, ax=ax, title=f"{method}: k = {choice.n_clusters}")
fig.tight_layout()
plt.show()
