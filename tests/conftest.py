"""Fixtures shared by the test modules, and each pytest-xdist worker's share of the cores."""

import os
import shutil

import pytest

# numba's OpenMP threads sleep as soon as a parallel region ends instead of spinning: the
# two workers, the command-line subprocesses and the Dask workers share two cores, and a
# thread spinning on one core took it from the process that had work (a t-SNE test with
# all threads ran 2x slower beside a busy worker); set before any kernel loads OpenMP
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# XLA compiles the networks' steps without LLVM's optimisation passes: every test trains a
# small network briefly, so compiling, not training, was their cost. Results may differ in
# the last bits from an optimised build; no test asserts bits across builds (tolerances
# come from the arithmetic). Set before jax loads.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")


def pytest_configure(config):
    """Under pytest-xdist the workers share the machine: each computes with its share of
    the cores (one each for two workers on two cores), as scikit-learn's suite does, so
    that BLAS and numba threads do not wait on one another across workers. Tests that
    compare thread counts ask for the machine's threads (``machine_threads``)."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not workers:
        return
    import numba
    from threadpoolctl import threadpool_limits

    share = max((os.cpu_count() or 1) // int(workers), 1)
    threadpool_limits(limits=share)
    numba.set_num_threads(min(share, numba.config.NUMBA_NUM_THREADS))


@pytest.fixture
def machine_threads():
    """BLAS and numba on every core for the test (a worker's own share is put back after)."""
    import numba
    from threadpoolctl import threadpool_limits

    before = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        with threadpool_limits(limits=os.cpu_count() or 1):
            yield
    finally:
        numba.set_num_threads(before)


CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",  # WebGL (the interactive map) in software, as without a GPU
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium driven by selenium, its console logged (scripts/test.sh
    installs chromium and chromium-driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if shutil.which("chromedriver") is None:
        pytest.fail("chromedriver is missing: scripts/test.sh installs chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_window_size(1280, 2000)
    yield driver
    driver.quit()
