"""numba kernels: one step each, explicit inputs and outputs, compiled on first use
and cached on disk (``cache=True``). Import the submodules lazily: importing numba
costs about half a second.

numba's OpenMP threads spin after every parallel kernel by default, and lowdim
alternates kernels with BLAS calls whose own threads then compete with them for the
cores (measured: GaussianMixture 'full' 5.0 s -> 4.1 s, KMeans Hamerly 3.9 -> 3.0 ms
per iteration on 2 cores). Unless the user chose a policy, numba's OpenMP runtime,
which reads this when it is first loaded, is asked to sleep instead of spinning.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
