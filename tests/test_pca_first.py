"""Files larger than comfortable: exact PCA streamed over a memory-mapped file in row
blocks, then the method on the scores (``--pca K`` on the command line)."""

import tracemalloc

import numpy as np
import pytest

import lowdim
from lowdim.cli.main import main

RNG = np.random.default_rng(3)


@pytest.fixture
def big(tmp_path):
    """A 120,000 x 60 float32 file with a rank-5 signal, memory-mapped."""
    X = (RNG.normal(size=(120_000, 5)) @ RNG.normal(size=(5, 60)) * 3 + RNG.normal(size=(120_000, 60))).astype(
        np.float32
    )
    path = tmp_path / "big.npy"
    np.save(path, X)
    return path, X


def test_memory_mapped_pca_reads_in_blocks_and_matches_the_array(big, monkeypatch):
    path, X = big
    monkeypatch.setattr("lowdim.decomposition._pca.TRANSFORM_BLOCK_BYTES", 4 << 20)  # several blocks
    mapped = np.load(path, mmap_mode="r")
    pca = lowdim.PCA(5).fit(mapped)
    tracemalloc.start()
    scores = pca.transform(mapped)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert scores.shape == (120_000, 5) and scores.dtype == np.float32
    np.testing.assert_array_equal(scores, pca.transform(X))  # the same model, block by block
    assert peak < scores.nbytes + 0.5 * mapped.nbytes  # one block and the scores, not a copy of the file
    in_memory = lowdim.PCA(5).fit(X)
    np.testing.assert_allclose(pca.explained_variance_, in_memory.explained_variance_, rtol=1e-4)


def test_a_bad_cell_in_a_mapped_file_is_named_by_its_row(big, tmp_path, monkeypatch):
    path, X = big
    monkeypatch.setattr("lowdim.decomposition._pca.TRANSFORM_BLOCK_BYTES", 4 << 20)  # 17,476 rows a block
    X = X.copy()
    X[100_000, 7] = np.nan
    np.save(tmp_path / "nan.npy", X)
    mapped = np.load(tmp_path / "nan.npy", mmap_mode="r")
    pca = lowdim.PCA(5).fit(np.load(path, mmap_mode="r"))
    with pytest.raises(ValueError, match=r"in rows 87380 to 104855 of the memory-mapped X .*row 12620, column 7"):
        pca.transform(mapped)
    with pytest.raises(ValueError, match="NaN"):
        lowdim.PCA(5).fit(mapped)


def test_cli_pca_first_gives_the_principal_subspace(big, tmp_path, capsys):
    path, X = big
    out = tmp_path / "pcs.npy"
    assert main(["embed", str(path), "--pca", "10", "-m", "pca", "-k", "2", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "120000 x 60 -> 10 components (memory-mapped, one pass to fit)" in said
    two = np.load(out)
    direct = lowdim.PCA(2).fit_transform(X)
    for j in range(2):  # the top of the top-10 subspace is the top of the data, up to sign
        assert abs(np.corrcoef(two[:, j], direct[:, j])[0, 1]) > 0.999


def test_cli_pca_first_takes_files_beyond_the_memory_limit(big, tmp_path, monkeypatch):
    path, _ = big
    monkeypatch.setattr("lowdim.io._binary.available_bytes", lambda: 1_000_000)  # "1 MB free"
    assert main(["cluster", str(path), "-m", "kmeans", "-k", "3", "-o", str(tmp_path / "a.csv"), "--quiet"]) == 2
    out = tmp_path / "b.csv"
    assert main(["cluster", str(path), "--pca", "5", "-m", "kmeans", "-k", "3", "-o", str(out), "--quiet"]) == 0
    assert len(out.read_text().splitlines()) == 120_001


def test_cli_pca_first_names_a_bad_k(big, capsys):
    path, _ = big
    assert main(["embed", str(path), "--pca", "60", "-m", "umap", "-o", "x.csv"]) == 2
    assert "--pca 60 must be between 1 and the number of features minus one (59)" in capsys.readouterr().err
