"""numba kernels: one step each, explicit inputs and outputs, compiled on first use
and cached on disk (``cache=True``). Import the submodules lazily: importing numba
costs about half a second.

numba's OpenMP threads spin after every parallel kernel by default, and lowdim
alternates kernels with BLAS calls whose own threads then compete with them for the
cores (BENCHMARKS.md, Design choices: omp). Unless the user chose a policy, numba's
OpenMP runtime, which reads this when it is first loaded, is asked to sleep instead of
spinning.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
