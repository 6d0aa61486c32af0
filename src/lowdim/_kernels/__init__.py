"""numba kernels: one step each, explicit inputs and outputs, compiled on first use
and cached on disk (``cache=True``). Import the submodules lazily: importing numba
costs about half a second."""
