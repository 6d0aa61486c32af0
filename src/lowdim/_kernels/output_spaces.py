"""The output spaces of UMAP's layout by name, as codes for its kernel (plain Python:
the estimator reads the names without importing numba)."""

# codes passed to the layout kernel (0: the Euclidean plane, its own fast path)
EUCLIDEAN, MANHATTAN, CHEBYSHEV, MINKOWSKI, COSINE, CORRELATION, HAVERSINE, HYPERBOLOID = range(8)
CODES = {
    "euclidean": EUCLIDEAN,
    "l2": EUCLIDEAN,
    "manhattan": MANHATTAN,
    "l1": MANHATTAN,
    "taxicab": MANHATTAN,
    "chebyshev": CHEBYSHEV,
    "linf": CHEBYSHEV,
    "linfinity": CHEBYSHEV,
    "linfty": CHEBYSHEV,
    "minkowski": MINKOWSKI,
    "cosine": COSINE,
    "correlation": CORRELATION,
    "haversine": HAVERSINE,
    "hyperboloid": HYPERBOLOID,
}
