"""densMAP: the data's and the embedding's local radii as defined, the step's gradient
against finite differences of the correlation it raises, and maps that keep dense
clusters dense where plain UMAP evens them out."""

import numpy as np
import pytest
import scipy.sparse as sp

from lowdim import UMAP
from lowdim._kernels.umap_sgd import _density
from lowdim.embedding._umap_layout import Density, data_radii, embedding_radii


def small_graph(n=25, seed=0):
    rng = np.random.default_rng(seed)
    W = sp.random(n, n, density=0.3, random_state=seed, format="csr")
    W = (W + W.T).tocsr()
    W.data = np.minimum(W.data, 1.0).astype(np.float32)
    return W, rng.normal(scale=2.0, size=(n, 2)).astype(np.float32), rng.normal(size=n)


def scaled_correlation(Y, W, a, b, density):
    """n * Corr(r(Y), R) with the variance shift, as the layout's objective defines it."""
    r = embedding_radii(Y, W, a, b)
    centred = (r - r.mean()) / np.sqrt(r.var() + density.var_shift)
    return len(r) * np.mean(centred * density.standard)


def test_radii_follow_their_definitions():
    W, Y, _ = small_graph()
    a, b = 1.58, 0.9
    D2 = ((Y[:, None, :].astype(np.float64) - Y[None, :, :]) ** 2).sum(-1)
    q = 1 / (1 + a * D2**b)
    Wd = W.toarray()
    np.testing.assert_allclose(embedding_radii(Y, W, a, b), np.log((Wd * q * D2).sum(1) / (Wd * q).sum(1)), rtol=1e-4)
    dist = sp.csr_matrix((np.abs(np.sin(W.data)) + 0.1, W.indices, W.indptr), shape=W.shape)
    expected = np.log((Wd * dist.toarray() ** 2).sum(1) / Wd.sum(1))
    np.testing.assert_allclose(data_radii(W, dist), expected, rtol=1e-6)


def test_density_step_is_the_gradient_of_the_correlation():
    W, Y, R = small_graph()
    a, b = 1.2, 0.8
    density = Density(R, 2.0, 0.3, 0.1)
    dens = density.coefficients(Y, W, a, b)
    step = np.zeros(Y.shape)
    for i in range(Y.shape[0]):
        for e in range(W.indptr[i], W.indptr[i + 1]):
            j = W.indices[e]
            d2 = np.float32(((Y[i] - Y[j]) ** 2).sum())
            coef = _density(d2, np.float32(a), np.float32(b), i, j, dens)
            step[i] += W.data[e] * coef * (Y[i] - Y[j])  # the sampling rate carries the weight
    numeric = np.zeros(Y.shape)
    eps = 1e-3
    for i in range(Y.shape[0]):
        for c in range(2):
            up, down = Y.astype(np.float64), Y.astype(np.float64)
            up[i, c] += eps
            down[i, c] -= eps
            numeric[i, c] = (
                scaled_correlation(up.astype(np.float32), W, a, b, density)
                - scaled_correlation(down.astype(np.float32), W, a, b, density)
            ) / (2 * eps)
    np.testing.assert_allclose(step, numeric, rtol=0.02, atol=0.02 * np.abs(numeric).max())


@pytest.fixture(scope="module")
def three_densities():
    """Three Gaussian clusters whose spreads differ by 10x, in 10 dimensions."""
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=20.0, size=(3, 10))
    X = np.vstack([c + rng.normal(scale=s, size=(300, 10)) for c, s in zip(centres, (0.3, 1.0, 3.0))])
    return X, np.repeat([0, 1, 2], 300)


def test_densmap_keeps_the_clusters_densities(three_densities):
    X, group = three_densities
    plain, plain_orig, plain_emb = UMAP(random_state=0, output_dens=True).fit_transform(X)
    dens_model = UMAP(random_state=0, densmap=True)
    Y, orig, emb = dens_model.set_params(output_dens=True).fit_transform(X)
    assert Y.shape == (900, 2) and orig.shape == emb.shape == (900,)
    assert np.allclose(orig, plain_orig)  # the data's radii do not depend on the layout
    r_plain, r_dens = np.corrcoef(plain_orig, plain_emb)[0, 1], np.corrcoef(orig, emb)[0, 1]
    assert r_dens > 0.8 and r_dens > r_plain + 0.3, (r_plain, r_dens)

    def spread(Z, g):
        return np.sqrt(((Z[group == g] - Z[group == g].mean(0)) ** 2).sum(1).mean())

    # the widest cluster is several times wider than the tightest in the densMAP map
    assert spread(Y, 2) / spread(Y, 0) > 2 * spread(plain, 2) / spread(plain, 0)
    assert dens_model.rad_emb_.shape == (900,)
