"""Peak working memory of each method's fit, beyond the data already in memory.

Each model is a few terms, each for a structure the method really allocates (a
float64 copy of the data, the kNN graph, an n x n matrix, BLAS and thread buffers),
with constants measured by ``benchmarks/bench_memory.py`` (resident memory sampled
during the fit, minus what was resident before it); BENCHMARKS.md, "Memory", compares
the models with the measured peaks. The CLI refuses a run whose estimate exceeds the
available memory before it starts, and ``lowdim info`` prints every estimate.
"""

import numpy as np

from .linalg import SMALL_MOMENTS, SPLIT_WORK

MB = 1 << 20
# OpenBLAS's per-thread buffers, numba's runtime and its thread pool, on first use: a fit
# that small data keep to numpy and BLAS never loads them
BLAS_BUFFERS = 100 * MB


def _threads(n, d):
    """The thread buffers, once the fit's products are large enough to run threaded."""
    return BLAS_BUFFERS if n * d * d >= SPLIT_WORK else 0


def _neighbors(params, n, default):
    k = params.get("n_neighbors") or default
    return max(1, min(int(k), n - 1))


def pca(n, d, k, params, itemsize):
    """Moments in d x d float64 (a few copies), the scores, and the thread buffers once
    the column sums run in their parallel kernel (above ``SMALL_MOMENTS`` entries: numpy
    sums fewer, and the thread pool never starts). More columns than rows: the n x n
    Gram matrix (a few copies) and the components instead (``choose_solver``'s 'gram'),
    or above 8,192 rows an SVD of the rows."""
    if d > n:
        own = 24 * n * n + 16 * k * d if n <= 8192 else 24 * n * d
        return own + n * k * itemsize
    return (_threads(n, d) if n * d > SMALL_MOMENTS else 0) + 24 * d * d + n * k * itemsize


def latent(n, d, k, params, itemsize):
    """Probabilistic PCA and factor analysis work on the covariance; with more columns
    than rows on a float64 copy of the centred rows instead (``WideCovariance``), never
    the d x d matrix; EM's loadings and their products, k x d each."""
    own = 8 * n * d if d > n else 24 * d * d
    return 4 * MB + own + 80 * k * d + n * k * 8


def ica(n, d, k, params, itemsize):
    """Whitened float64 data and its projection."""
    return 50 * MB + 16 * n * d


def factorization(n, d, k, params, itemsize):
    """float64 data, factors, products and gradients."""
    return 50 * MB + 32 * n * d + 32 * n * k


def lda(n, d, k, params, itemsize):
    """float64 copies of the data: centred, within-class, projections."""
    return 30 * MB + 48 * n * d


def kernel_matrix(n, d, k, params, itemsize):
    """The n x n kernel (float64), centred in place, and its eigenvectors."""
    if params.get("n_landmarks"):
        m = int(params["n_landmarks"])
        return 24 * n * m + 8 * m * m + 8 * n * d
    return 8.4 * n * n + 8 * n * d


def mds(n, d, k, params, itemsize):
    """Distances, the disparities and the Guttman transform's n x n matrices."""
    if params.get("n_landmarks"):
        return 16 * n * int(params["n_landmarks"]) + 8 * n * d
    return 32 * n * n + 8 * n * d


def isomap(n, d, k, params, itemsize):
    """Geodesic distances (n x n float64) and their double centring."""
    m = params.get("n_landmarks")
    rows = int(m) if m else n
    return 16 * n * rows + 8 * n * d


def local_fits(n, d, k, params, itemsize):
    """LLE and its variants: the neighbours, local Gram matrices, the sparse problem."""
    nn = _neighbors(params, n, 10)
    return _threads(n, d) + n * (8 * d + 48 * nn + 8 * nn * nn)


def spectral(n, d, k, params, itemsize):
    """The kNN affinity graph (scikit-learn's default is n / 10 neighbours) and the
    normalised Laplacian: about 80 bytes per edge."""
    nn = _neighbors(params, n, max(n // 10, 1))
    return 30 * MB + 80 * n * nn + 8 * n * d


def diffusion(n, d, k, params, itemsize):
    """The kernel graph, its density-normalised copy and the walk (about 80 bytes per
    edge, as Laplacian eigenmaps), and the training rows kept for ``transform``."""
    nn = _neighbors(params, n, 15)
    return 30 * MB + 80 * n * nn + 16 * n * d


def phate(n, d, k, params, itemsize):
    """The decay kernel and its walk (about 180 bytes per kernel neighbour), the 100
    diffusion coordinates the landmarks are clustered in, the dense landmark walk, its
    power, potential and distances (L x L each), the rows kept for ``transform`` and,
    above ``n_pca`` columns, the PCA's float64 copy."""
    knn = int(params.get("knn", 5))
    landmarks = min(n, int(params.get("n_landmark") or n))
    n_pca = params.get("n_pca", 100)
    kept = d if n_pca is None else min(d, int(n_pca))
    return 30 * MB + n * (1800 + 8 * kept + 180 * knn) + 48 * landmarks**2 + (8 * n * d if kept < d else 0)


def trimap(n, d, k, params, itemsize):
    """The triplets (int64) and their weights, each point's n_inliers + 50 neighbours,
    the gradient buffers, the rows as float64 (100 principal components of wider data,
    whose reduction keeps a float64 copy)."""
    per_point = int(params.get("n_inliers", 12)) * int(params.get("n_outliers", 4)) + int(params.get("n_random", 3))
    kept = min(d, 100) if params.get("apply_pca", True) else d
    return 20 * MB + n * (32 * per_point + 16 * 62 + 300 + 8 * kept) + (8 * n * d if kept < d else 0)


def mvu(n, d, k, params, itemsize):
    """The exact program's n x n Gram matrices (or the landmark program's)."""
    return 80 * min(n, 2000) ** 2 + 8 * n * d + _threads(n, d)


def sne(n, d, k, params, itemsize):
    """SNE's exact gradient: n x n affinities in float32."""
    return 4 * n * n + 8 * n * d


def tsne(n, d, k, params, itemsize):
    """The kNN graph in compact arrays (3 x perplexity + 1 neighbours) and its
    symmetrisation, or the reordered affinities (two copies): about 24 bytes per
    neighbour; the model's copy of the data and float64 rows for the graph; the kNN
    index up to ``KEEP_INDEX_UP_TO`` points (above, it is released before the graph is
    built)."""
    perplexity = float(params.get("perplexity", 30.0))
    nn = max(1, min(n - 1, int(3 * perplexity + 1)))
    copies = d * itemsize + (8 * d if itemsize != 8 else 0)
    return _threads(n, d) + n * (24 * nn + copies) + _kept_tsne_index(n, d)


def _kept_tsne_index(n, d):
    """The kNN index t-SNE keeps for ``transform`` (up to ``KEEP_INDEX_UP_TO`` points)."""
    from .embedding import KEEP_INDEX_UP_TO

    return n * (12 * d + 150) if n <= KEEP_INDEX_UP_TO else 0


def umap(n, d, k, params, itemsize):
    """The kNN graph in compact arrays and the fuzzy union built from it (float32,
    int32 indices; the layout samples the graph itself, its schedule computed from the
    epoch): about 26 bytes per neighbour per point; the model's copy of the data and
    its index (a shifted copy, faiss' float32 copy and the HNSW links), about three
    copies of the rows as measured."""
    nn = _neighbors(params, n, 15)
    return 10 * MB + n * (26 * nn + 3 * d * itemsize + 4 * d + 150)


def pacmap(n, d, k, params, itemsize):
    """The neighbours of the pair choice (n_neighbors + 50 per point, float32 distances
    and int64 indices) and their scaled distances and order (float64, int64), the three
    pair arrays and their (n_pairs, 2) copies, the float32 rows (at most 100 columns
    after PCA) and the index over them, and the gradient's eight chunk buffers."""
    nn = params.get("n_neighbors", 10)
    nn = int(nn if nn is not None else (10 if n <= 10_000 else round(10 + 15 * (np.log10(n) - 4))))
    pairs = nn * (1 + float(params.get("MN_ratio", 0.5)) + float(params.get("FP_ratio", 2.0)))
    rows = min(d, 100)
    return 10 * MB + n * (28 * (nn + 50) + 12 * pairs + 8 * rows + 12 * rows + 150 + 8 * 8 * max(k, 2))


def hdbscan(n, d, k, params, itemsize):
    """The k-d tree's float64 copy of the points (and the model's), each point's
    candidate neighbours and the Boruvka and Prim work arrays; for a small table
    (``SMALL_PRIM``), Prim's path: five float64 copies of the rows (as given,
    transposed, centred, centred times -2, scipy's k-d tree), the core neighbours and
    8 MiB of differences."""
    from .cluster import SMALL_PRIM

    m = int(params.get("min_samples") or params.get("min_cluster_size", 5))
    if n * n * (d + 32) <= SMALL_PRIM:
        return 18 * MB + n * (40 * d + 24 * m + 100)
    return 10 * MB + n * (16 * d + 20 * max(m, 8) + 250)


def dbscan(n, d, k, params, itemsize):
    """The float64 rows and the k-d tree's copy, and the eps-neighbourhoods as CSR
    arrays: taken as four times ``min_samples`` per point (the count grows with eps),
    twice (the core points' links among themselves), and a block of per-pair arrays."""
    m = int(params.get("min_samples", 5))
    return 36 * MB + n * (16 * d + 64 * max(m, 5) + 64)


def agglomerative(n, d, k, params, itemsize):
    """Single linkage: the float64 rows, a k-d tree and the spanning tree. The other
    linkages (without a connectivity graph, which the command line cannot pass): all
    n x n distances in float64."""
    if params.get("linkage", "ward") == "single":
        return 10 * MB + n * (16 * d + 200)
    return 8 * n * n + 16 * n * d


def optics(n, d, k, params, itemsize):
    """The rows in float64 and six arrays per point; a metric other than Minkowski's
    keeps all n x n distances."""
    minkowski = params.get("metric", "minkowski") in ("minkowski", "euclidean", "manhattan", "chebyshev", "l1", "l2")
    return 10 * MB + n * (8 * d + 64) + (0 if minkowski else 8 * n * n)


def graph_clustering(n, d, k, params, itemsize):
    """The kNN graph and its fuzzy union (as UMAP's), the index, and igraph's edges."""
    nn = _neighbors(params, n, 15)
    return 20 * MB + n * (100 * nn + 2 * d * itemsize + 150)


def spectral_clustering(n, d, k, params, itemsize):
    """The dense rbf affinity (scikit-learn's default), its normalised copy (made the
    Laplacian in place) and the Laplacian's LU for shift-invert Lanczos, or the kNN
    graph as for Laplacian eigenmaps."""
    if params.get("affinity", "rbf") == "rbf":
        return 24 * n * n + 8 * n * d
    return spectral(n, d, k, {"n_neighbors": params.get("n_neighbors", 10)}, itemsize)


def kmeans(n, d, k, params, itemsize):
    """A centred copy in the data's dtype, row norms, labels and bounds, and the kernels'
    runtime once the iterations run in the bound kernels (above ``SMALL_LLOYD``: library
    products iterate smaller fits, and no kernel runs)."""
    from .cluster import SMALL_LLOYD

    return 12 * MB + n * (d * itemsize + 56) + (BLAS_BUFFERS if n * d * k > SMALL_LLOYD else 0)


def minibatch_kmeans(n, d, k, params, itemsize):
    """A centred copy in the data's dtype and the labels, and the kernels' runtime once
    the copy is made by its kernel (above ``SMALL_MOMENTS`` entries)."""
    return 4 * MB + n * (d * itemsize + 40) + (BLAS_BUFFERS if n * d > SMALL_MOMENTS else 0)


def kmedoids(n, d, k, params, itemsize):
    """The n x n dissimilarities in float32."""
    return 4 * n * n + 8 * n * d


def gmm(n, d, k, params, itemsize):
    """A float64 copy of the data, responsibilities and per-component work."""
    return n * (12 * d + 24 * k + 60)


def neural(n, d, k, params, itemsize):
    """JAX's compiled steps and their buffers (about 100 MB as measured; JAX's own
    runtime is left out, as every model leaves out the libraries' code), the rows' order
    and split (int64) and the float64 column moments: the rows are scaled a batch at a
    time, never copied whole."""
    return 100 * MB + 32 * n + 64 * d


def _projected_rows(n, d, params):
    """The rows' float32 scores on the principal directions a parametric map's encoder
    reads (``input_components``, default 100, when the rows have more features)."""
    p = params.get("input_components", 100)
    return 0 if p is None or d <= int(p) else 4 * n * int(p)


def parametric_umap(n, d, k, params, itemsize):
    """UMAP's graph (about 26 bytes per neighbour per point), the index it is built with
    (one copy of the rows and the links, freed before training) and JAX's steps; unlike
    UMAP, no layout and no copy of the data are kept. Training's own arrays (the edge
    sampler's cumulative weights, the rows' scores on the input projection: at most 4
    bytes per feature) are smaller than the freed index."""
    nn = _neighbors(params, n, 15)
    return 100 * MB + n * (26 * nn + d * itemsize + 4 * d + 150)


def parametric_tsne(n, d, k, params, itemsize):
    """t-SNE's affinities, built as ``tsne``'s but without keeping the index (the
    network places new rows), and the networks' steps; the edge sampler's cumulative
    weights (8 bytes per stored affinity) come once the construction's work is freed,
    the rows' scores on the input projection beside them."""
    kept = tsne(n, d, k, params, itemsize) - _kept_tsne_index(n, d) + neural(n, d, k, params, itemsize)
    return kept + _projected_rows(n, d, params)


MODELS = {
    "neural": neural,
    "parametric_umap": parametric_umap,
    "parametric_tsne": parametric_tsne,
    "pca": pca,
    "latent": latent,
    "ica": ica,
    "factorization": factorization,
    "lda": lda,
    "kernel_matrix": kernel_matrix,
    "mds": mds,
    "isomap": isomap,
    "local_fits": local_fits,
    "spectral": spectral,
    "diffusion": diffusion,
    "phate": phate,
    "trimap": trimap,
    "mvu": mvu,
    "sne": sne,
    "tsne": tsne,
    "umap": umap,
    "pacmap": pacmap,
    "kmeans": kmeans,
    "minibatch_kmeans": minibatch_kmeans,
    "kmedoids": kmedoids,
    "gmm": gmm,
    "hdbscan": hdbscan,
    "optics": optics,
    "dbscan": dbscan,
    "agglomerative": agglomerative,
    "graph_clustering": graph_clustering,
    "spectral_clustering": spectral_clustering,
}


_N_BY_N = (
    "an n x n matrix grows with the square of the rows: subsample, use landmarks (--param n_landmarks=1000 "
    "where the method has them) or a neighbour method (umap, tsne)"
)
_NEIGHBORS = "lower --param n_neighbors (or perplexity), subsample, or reduce the columns first with --pca 50"
FIXES = {
    "kernel_matrix": _N_BY_N,
    "mds": _N_BY_N,
    "isomap": _N_BY_N,
    "sne": "SNE's gradient is exact (n x n): use tsne, which is not",
    "kmedoids": "k-medoids keeps n x n dissimilarities: use kmeans, or subsample",
    "spectral_clustering": "the rbf affinity is n x n: pass --param affinity=nearest_neighbors (or fuzzy)",
    "graph_clustering": _NEIGHBORS,
    "mvu": _N_BY_N,
    "dbscan": "lower --param eps (fewer neighbours per point) or subsample",
    "agglomerative": "pass --param linkage=single (no n x n matrix), or subsample",
    "optics": "a metric other than Minkowski's keeps n x n distances: use --param metric=euclidean, or subsample",
    "diffusion": _NEIGHBORS,
    "trimap": "lower --param n_inliers or n_outliers (triplets per point), or subsample",
    "phate": "lower --param n_landmark (the landmark walk is n_landmark^2), or reduce the columns first with --pca 50",
    "spectral": "pass --param n_neighbors=15 (scikit-learn's default is a tenth of the rows)",
    "tsne": _NEIGHBORS,
    "umap": _NEIGHBORS,
    "parametric_umap": _NEIGHBORS,
    "parametric_tsne": _NEIGHBORS,
    "pacmap": _NEIGHBORS,
    "local_fits": _NEIGHBORS,
}
STREAMING = "save the data as .npy and reduce them first with --pca K (streamed, memory-mapped), or subsample"


def fix_for(model):
    """What to do when a method's estimate does not fit (for the error message).

    Examples
    --------
    >>> "n_neighbors=15" in fix_for("spectral")
    True
    """
    return FIXES.get(model, STREAMING)


def estimate(model, n, d, k, params=None, itemsize=8):
    """Peak working memory in bytes of a method's fit by the model named ``model``.

    Parameters
    ----------
    model : str
        A key of ``MODELS`` (``Method.memory`` names it).
    n, d : int
        Rows and columns of the data.
    k : int
        Output dimensions (clusters for the clusterings).
    params : dict, optional
        The method's parameters (``n_neighbors``, ``perplexity``, ``n_landmarks``).
    itemsize : int, default=8
        Bytes per entry of the data (4 for float32).

    Returns
    -------
    int

    Examples
    --------
    >>> estimate("umap", 100_000, 50, 2) / 2**20 > estimate("kmeans", 100_000, 50, 2) / 2**20
    True
    """
    return int(MODELS[model](n, d, k, params or {}, itemsize))
