"""BLAS thread limits opened from several Python threads at once (``lowdim._threads``)."""

import threading

import numpy as np
import pytest
import scipy.linalg  # noqa: F401 - its BLAS is loaded before the controller below scans
from threadpoolctl import ThreadpoolController, threadpool_limits

from lowdim import PCA
from lowdim._threads import blas_limit, blas_threads

BLAS = ThreadpoolController().select(user_api="blas")


def counts():
    return [info["num_threads"] for info in BLAS.info()]


@pytest.fixture
def two_threads():
    """BLAS on two threads for the test (the counts before are put back after)."""
    with threadpool_limits(limits=2, user_api="blas"):
        assert counts() == [2] * len(counts()) and counts()
        yield


def test_overlapping_limits_in_two_threads_restore_the_counts_from_before(two_threads):
    # A opens, B opens, A closes, B closes: with one threadpoolctl limit per block B
    # restores the count A had set and BLAS stays on one thread for good
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with blas_limit(1):
            seen["a"] = blas_threads()
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def second():
        a_in.wait(5)
        with blas_limit(1):
            b_in.set()
            a_out.wait(5)
            seen["b after a left"] = blas_threads()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"a": 1, "b after a left": 1}
    assert counts() == [2] * len(counts())


def test_many_threads_opening_limits_at_random_leave_blas_as_it_was(two_threads):
    rng = np.random.default_rng(0)
    delays = rng.uniform(0, 2e-3, size=(4, 30))

    def work(row):
        for d in row:
            with blas_limit(1):
                assert blas_threads() == 1
                threading.Event().wait(d)

    threads = [threading.Thread(target=work, args=(row,)) for row in delays]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert counts() == [2] * len(counts())


def test_a_callers_own_limit_works_in_any_thread_after_lowdims(two_threads):
    # threadpoolctl >= 3.8 lets one thread control OpenBLAS; lowdim leaves it free
    with blas_limit(1):
        pass
    seen = []

    def callers_limit():
        with threadpool_limits(1):
            seen.append(blas_threads())
        seen.append(blas_threads())

    t = threading.Thread(target=callers_limit)
    t.start()
    t.join(10)
    assert seen == [1, 2]


def test_a_callers_limit_around_lowdim_is_kept_and_then_lifted(two_threads):
    X = np.random.default_rng(0).normal(size=(20_000, 40))
    with threadpool_limits(1):
        PCA(3, solver="covariance").fit(X)
        assert blas_threads() == 1
    assert counts() == [2] * len(counts())


def test_concurrent_fits_equal_serial_fits_and_restore_blas(two_threads):
    rng = np.random.default_rng(1)
    data = [rng.normal(size=(20_000, 60)) @ rng.normal(size=(60, 60)) for _ in range(4)]
    serial = [PCA(5, solver="covariance").fit(X).explained_variance_ for X in data]
    found = [None] * len(data)

    def fit(i):
        found[i] = PCA(5, solver="covariance").fit(data[i]).explained_variance_

    threads = [threading.Thread(target=fit, args=(i,)) for i in range(len(data))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for a, b in zip(found, serial):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    assert counts() == [2] * len(counts())


_EMBED = """
import sys, warnings
import numpy as np
from sklearn.datasets import load_digits
import lowdim
warnings.simplefilter("ignore")
X = load_digits().data[:600]
out = {
    "tsne_exact": lowdim.TSNE(random_state=0, method="exact", max_iter=300).fit_transform(X),
    "tsne_bh": lowdim.TSNE(random_state=0, method="barnes_hut", max_iter=300).fit_transform(X),
    "sne": lowdim.SNE(random_state=0, max_iter=300).fit_transform(X),
    "umap": lowdim.UMAP(random_state=0, n_epochs=100).fit_transform(X),
}
np.savez(sys.argv[1], **out)
"""


def test_chaotic_embeddings_are_identical_for_any_thread_count(tmp_path):
    """t-SNE, SNE and UMAP amplify a difference in the last bit into whole units, so
    every computation before and inside their optimisation must not depend on the
    number of BLAS or numba threads: the process-wide settings give identical output."""
    import os
    import subprocess
    import sys

    results = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, NUMBA_NUM_THREADS=threads)
        path = tmp_path / f"threads-{threads}.npz"
        done = subprocess.run(
            [sys.executable, "-c", _EMBED, str(path)], env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
        results.append(np.load(path))
    for name in results[0].files:
        np.testing.assert_array_equal(results[0][name], results[1][name], err_msg=name)


def test_cli_threads_option_limits_blas_and_numba(monkeypatch, machine_threads):
    import numba

    from lowdim.cli.main import main

    seen = {}

    def record(args, say):
        seen["blas"] = counts()
        seen["numba"] = numba.get_num_threads()
        return 0

    monkeypatch.setattr("lowdim.cli._info.run", record)
    before = numba.get_num_threads()
    try:
        assert main(["info", "--dataset", "iris", "--threads", "1"]) == 0
    finally:
        numba.set_num_threads(before)
    assert seen["numba"] == 1 and all(n == 1 for n in seen["blas"])
