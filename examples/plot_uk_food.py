"""
PCA of the UK food table
========================

The classic first example of PCA: how many grams of each of 17 food groups a person
eats per week in England, Wales, Scotland and Northern Ireland (DEFRA's Family Food
survey). Seventeen numbers per country are hard to compare by eye; the first principal
component sums them up in one.
"""

import matplotlib.pyplot as plt
import numpy as np

import lowdim

X, countries, foods = lowdim.load_uk_food()
print(X.shape)  # 4 countries x 17 food groups

# %%
# Two components keep almost all of the variance of four points.
pca = lowdim.PCA(n_components=2).fit(X)
Z = pca.transform(X)
print(pca.explained_variance_ratio_.round(3))

fig, ax = plt.subplots(figsize=(6, 3))
ax.scatter(Z[:, 0], Z[:, 1])
for (x, y), name in zip(Z, countries):
    ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 5))
ax.set_xlabel("PC1")
ax.set_ylabel("PC2")
ax.set_title("Northern Ireland sits alone at one end of PC1")
fig.tight_layout()

# %%
# The loadings say why: the foods whose weights on PC1 are largest are those in
# which Northern Ireland differs most (fresh potatoes up, fresh fruit and alcoholic
# drinks down).
order = np.argsort(pca.components_[0])
fig, ax = plt.subplots(figsize=(6, 4))
ax.barh(np.array(foods)[order], pca.components_[0][order])
ax.set_xlabel("loading on PC1")
fig.tight_layout()
plt.show()
