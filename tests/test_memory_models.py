"""Memory estimates that hold: the model of each method's working memory against the
peak measured during a fit of 3 x 10^4 to 2 x 10^5 rows, and the command line refusing at the start,
with the estimate and the fix, a run that will not fit."""

import pathlib
import re
import sys

import numpy as np
import pytest

from lowdim.cli.main import main
from lowdim.methods import CLUSTERINGS, EMBEDDINGS, memory_estimate

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_memory import measure  # noqa: E402 - the measurement the benchmark records


@pytest.mark.parametrize(
    "name, params, n, d",
    [
        # above SMALL_MOMENTS entries (16 M), where the moments' kernel starts numba's threads;
        # below, PCA's working memory is under a megabyte, within resident-memory noise
        ("pca", {}, 200_000, 100),
        ("kmeans", {}, 100_000, 100),
        ("gmm", {}, 100_000, 100),
        # the peak is the graph's (the epochs do not add to it); 50 columns: the model within
        # 12 % as at 100, in three quarters of the time (the suite's slowest test)
        ("umap", {"n_epochs": 20}, 100_000, 50),
        # the peak is the affinities' and the gradient's, reached in the first iterations of either
        # phase; at 30,000 x 50 it is already about 200 MiB, far above resident-memory noise
        ("tsne", {"max_iter": 20, "early_exaggeration_iter": 10}, 30_000, 50),
        # more columns than rows: the centred rows, never the d x d covariance (the CLI
        # refused 100 x 200,000 with an estimate of 894 GiB; factor analysis shares the model)
        ("ppca", {}, 100, 50_000),
    ],
)
def test_the_estimate_is_within_30_percent_of_the_measured_peak(name, params, n, d):
    # rows enough that resident-memory noise (huge pages, allocator reuse) is small
    peak = measure(name, n, params, d=d)  # in a fresh process, after a small warm-up fit
    predicted = memory_estimate(name, n, d, 2, params, itemsize=4)
    assert abs(predicted - peak) <= 0.3 * peak, (name, predicted / 2**20, peak / 2**20)


def test_a_wide_tables_estimate_is_what_its_solver_builds():
    # PCA of 100 x 200,000 takes the n x n Gram matrix ('gram'): the CLI refused it
    # (`lowdim pca`, `embed -m pca`) with an estimate of the d x d moments, 894 GiB
    for name in ("pca", "ppca", "factor-analysis"):
        assert memory_estimate(name, 100, 200_000) < 2**30, name


def test_every_method_has_an_estimate_that_grows_with_the_rows():
    for name in {**EMBEDDINGS, **CLUSTERINGS}:
        small, large = memory_estimate(name, 10_000, 50), memory_estimate(name, 1_000_000, 50)
        assert 0 < small < large, name


def test_a_run_that_will_not_fit_is_refused_at_the_start_with_the_fix(tmp_path, monkeypatch, capsys):
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(0).normal(size=(3000, 10)))
    monkeypatch.setattr("lowdim._memory.available_bytes", lambda: 60 * 2**20)  # "60 MiB free"
    assert main(["embed", str(path), "-m", "mds", "-o", str(tmp_path / "m.csv")]) == 2
    err = capsys.readouterr().err
    assert "mds on 3000 x 10 needs about 0.3 GiB of working memory beyond the data, but 0.0 GiB is available" in err
    assert "use landmarks" in err and not (tmp_path / "m.csv").exists()
    assert main(["embed", str(path), "-m", "spectral", "-o", str(tmp_path / "s.csv")]) == 2
    assert "pass --param n_neighbors=15" in capsys.readouterr().err
    assert main(["embed", str(path), "-m", "spectral", "--param", "n_neighbors=15", "-o", str(tmp_path / "s.csv")]) == 0


def test_report_and_pca_refuse_at_the_start_too(tmp_path, monkeypatch, capsys):
    path = tmp_path / "x.npy"
    np.save(path, np.random.default_rng(0).normal(size=(3000, 10)))
    monkeypatch.setattr("lowdim._memory.available_bytes", lambda: 60 * 2**20)
    report = tmp_path / "r.html"
    assert main(["report", str(path), "--methods", "pca,mds", "-o", str(report)]) == 2
    assert "mds on 3000 x 10 needs about" in capsys.readouterr().err and not report.exists()
    monkeypatch.setattr("lowdim._memory.available_bytes", lambda: 2**10)  # nothing fits
    assert main(["pca", str(path), "-k", "2", "-o", str(tmp_path / "p.csv")]) == 2
    assert "pca on 3000 x 10 needs about" in capsys.readouterr().err


def test_info_prints_an_estimate_per_method(tmp_path, capsys):
    path = tmp_path / "x.npy"
    np.save(path, np.zeros((100, 4), dtype=np.float32) + np.arange(4))
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "working memory per method beyond the data" in out and "umap" in out and "kmedoids" in out


def test_models_whose_covariances_cannot_fit_say_so_before_any_work(monkeypatch):
    """A full or tied Gaussian mixture, or LDA's eigen and lsqr solvers, hold d x d
    matrices: on 200,000 features numpy asked for 596 GiB mid-fit. Refused first, with
    the options that never build them (which then fit)."""
    from lowdim import BayesianGaussianMixture, GaussianMixture, LinearDiscriminantAnalysis
    from lowdim.exceptions import MemoryBudgetError

    monkeypatch.setattr("lowdim._memory.available_bytes", lambda: 10**5)  # 80 kB of working memory
    X = np.random.default_rng(0).normal(size=(30, 60))  # one 60 x 60 matrix: 28.8 kB
    y = np.arange(30) % 2
    for make, fix in [
        (lambda: GaussianMixture(2, random_state=0), "covariance_type='diag'"),
        (lambda: GaussianMixture(2, covariance_type="tied", random_state=0), "covariance_type='diag'"),
        (lambda: BayesianGaussianMixture(n_components=2, random_state=0), "covariance_type='diag'"),
        (lambda: LinearDiscriminantAnalysis(solver="eigen"), "solver='svd'"),
    ]:
        with pytest.raises(MemoryBudgetError, match=rf"60 x 60 covariances.*{re.escape(fix)}"):
            make().fit(X, y)
    GaussianMixture(2, covariance_type="diag", random_state=0).fit(X)
    LinearDiscriminantAnalysis().fit(X, y)
