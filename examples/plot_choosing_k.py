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

# %%
# A Bayesian mixture chooses for itself: given room for 10 components and a small
# weight concentration, the variational posterior leaves the ones the four blobs do
# not need with weights near zero.
bayes = lowdim.BayesianGaussianMixture(n_components=10, weight_concentration_prior=0.01, random_state=0).fit(B)
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(range(10), sorted(bayes.weights_, reverse=True))
ax.set_xlabel("component (by weight)")
ax.set_ylabel("posterior weight")
ax.set_title(f"BayesianGaussianMixture: {(bayes.weights_ > 0.01).sum()} components used")
fig.tight_layout()
plt.show()
