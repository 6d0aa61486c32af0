"""A kernel compiles once for one set of argument types. numba types an argument that
starts as a literal (``pos = 0`` passed on to another kernel) as ``Literal[int](0)``
first and compiles the callee for it, then again for int64: each such call site cost
a user's first fit about half a second (BENCHMARKS.md, Cold start)."""

import json
import os
import subprocess
import sys

SCRIPT = r"""
import json
import numpy as np
from numba.core.registry import CPUDispatcher
from lowdim._kernels import cluster_tree, optics, sorting, tsne_tree

sorting.sort_pairs(np.arange(100, 0, -1), np.zeros(100))  # the heap, past insertion sort
# a chain of merges whose last leaves a single point: points are emitted one by one
left, right = np.array([0, 5, 6, 7]), np.array([1, 2, 3, 4])
cluster_tree.condense(left, right, np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 3, 4, 5]), 2)
Y = np.random.default_rng(0).normal(size=(50, 2))
cells = 400
tsne_tree.build_tree(Y, np.full((cells, 4), -1), np.zeros((cells, 2)), np.zeros(cells), np.zeros((cells, 2)),
                     np.zeros(cells), np.full(cells, -1))
optics.dense_order(Y, np.empty((0, 0)), False, np.ones(50), 2.0, np.inf, 2)
twice = {}
for module in (cluster_tree, optics, sorting, tsne_tree):
    for name, f in vars(module).items():
        if isinstance(f, CPUDispatcher) and len(f.signatures) > 1:
            twice[f"{module.__name__}.{name}"] = [str(s) for s in f.signatures]
print(json.dumps(twice))
"""


def test_no_kernel_is_compiled_twice_for_one_call(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: every kernel compiles here
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    twice = json.loads(out.stdout.strip().splitlines()[-1])
    assert not twice, twice


SMALL_FITS = r"""
import json, sys
import numpy as np
from numba.core.registry import CPUDispatcher
import lowdim

X = np.random.default_rng(0).normal(size=(3000, 20)).astype(np.float32)
km = lowdim.KMeans(10, n_init=3, random_state=0).fit(X)
km.predict(X[:100]), km.transform(X[:100]), km.score(X)
lowdim.MiniBatchKMeans(10, random_state=0).fit(X).predict(X)
lowdim.BisectingKMeans(5, random_state=0).fit(X).predict(X)
km = lowdim.KMedoids(5, random_state=0).fit(X[:1000])
lowdim.KMedoids(5, init="build", random_state=0).fit(X[:1000]).predict(X[:10])
lowdim.HDBSCAN(min_cluster_size=20).fit(X)
lowdim.DBSCAN(eps=4.0, min_samples=10).fit(X)  # brute force over 20 columns
compiled = [
    f"{name}.{attr}"
    for name, module in list(sys.modules.items())
    if name.startswith("lowdim._kernels")
    for attr, f in vars(module).items()
    if isinstance(f, CPUDispatcher) and f.signatures
]
print(json.dumps(compiled))
"""


def test_a_small_kmeans_kmedoids_hdbscan_or_dbscan_compiles_no_kernel(tmp_path):
    """k-means of a small table iterates by library products (``SMALL_LLOYD``), k-medoids
    of a small one works in numpy (``SMALL_MEDOIDS``), HDBSCAN's tree of a small one is
    Prim's in numpy and scipy (``SMALL_PRIM``), DBSCAN's labels are numpy's and scipy's
    (brute-force neighbourhoods above 16 columns): a first call compiles nothing (the
    kernels cost seconds of compilation) and a new process loads nothing from the cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", SMALL_FITS], env=env, capture_output=True, text=True, check=True)
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert compiled == [], compiled
