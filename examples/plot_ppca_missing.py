"""
Missing data with probabilistic PCA
===================================

Probabilistic PCA has a likelihood for the observed entries of a row alone, so it
learns from incomplete rows instead of filling them in first. Here 10 % to 50 % of the
digits' pixels are removed at random; PPCA (EM over the missing entries) predicts them
better than filling each pixel with its column mean, or than PCA on mean-filled data.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import lowdim

X = load_digits().data
rng = np.random.default_rng(0)
fractions = [0.1, 0.2, 0.3, 0.5]
errors = {"column means": [], "PCA on mean-filled data": [], "probabilistic PCA (EM)": []}
for fraction in fractions:
    holes = rng.random(X.shape) < fraction
    missing = np.where(holes, np.nan, X)
    means = np.nanmean(missing, axis=0)
    filled = np.where(holes, means, missing)
    pca = lowdim.PCA(10).fit(filled)
    ppca = lowdim.ProbabilisticPCA(10, random_state=0).fit(missing)
    guesses = {
        "column means": filled,
        "PCA on mean-filled data": pca.inverse_transform(pca.transform(filled)),
        "probabilistic PCA (EM)": ppca.inverse_transform(ppca.transform(missing)),
    }
    for name, guess in guesses.items():
        errors[name].append(np.sqrt(np.mean((guess[holes] - X[holes]) ** 2)))

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, values in errors.items():
    ax.plot(fractions, values, "o-", label=name)
ax.set_xlabel("fraction of pixels missing")
ax.set_ylabel("RMS error on the missing pixels")
ax.legend()
fig.tight_layout()
plt.show()
