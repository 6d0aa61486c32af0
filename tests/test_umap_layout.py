"""UMAP's layout kernels: the sampling schedule, and the plane's kernel against the
general one."""

import numpy as np
import pytest
import scipy.sparse as sp

from lowdim._kernels.umap_sgd import _due, layout_rows, plane_epoch

N_EPOCHS, NEGATIVE_RATE = 200, 5.0


def _accumulated_schedule(rate, n_epochs, negative_rate):
    """umap-learn's schedule as its optimiser keeps it: per edge, the epoch of its next
    sample and of its next negative sample, advanced by adding their periods."""
    period = 1.0 / rate
    next_sample, negative_period = period, period / negative_rate
    next_negative, visits = negative_period, []
    for epoch in range(1, n_epochs + 1):
        if next_sample <= epoch:
            owed = int((epoch - next_negative) / negative_period)
            next_sample += period
            next_negative += owed * negative_period
            visits.append((epoch, owed))
    return visits


@pytest.mark.parametrize("seed", [0, 1])
def test_schedule_is_umap_learns_sample_for_sample(seed):
    rates = np.random.default_rng(seed).uniform(1.0 / N_EPOCHS, 1.0, 200)
    for rate in np.concatenate([rates, [1.0, 0.5, 0.25, 0.1]]):
        ours = [(epoch, _due(epoch, rate, NEGATIVE_RATE)) for epoch in range(1, N_EPOCHS + 1)]
        ours = [(epoch, owed) for epoch, owed in ours if owed >= 0]
        assert ours == _accumulated_schedule(rate, N_EPOCHS, NEGATIVE_RATE), rate
        assert len(ours) == np.floor(N_EPOCHS * rate)  # sampled in proportion to its weight


def _grid_layout(seed):
    """Points on a jittered grid (no two closer than 1, so that no step's rounding is
    amplified by a near neighbour's steep repulsion) and a symmetric 8-neighbour graph."""
    rng = np.random.default_rng(seed)
    side = 20
    cells = np.stack(np.meshgrid(np.arange(side), np.arange(side)), axis=-1).reshape(-1, 2)
    Y = (1.5 * cells + rng.uniform(-0.2, 0.2, cells.shape) - 1.5 * side / 2).astype(np.float32)
    near = np.abs(cells[:, None, :] - cells[None, :, :]).max(axis=2) == 1
    W = sp.csr_matrix(np.triu(near * rng.uniform(0.05, 1.0, near.shape), 1))
    return Y, (W + W.T).tocsr().astype(np.float32)


@pytest.mark.parametrize("epoch", [1, 37, 150])
@pytest.mark.parametrize("self_embedding", [True, False])
@pytest.mark.parametrize("dens_lambda", [0.0, 2.0])
def test_plane_kernel_takes_the_general_kernels_steps(epoch, self_embedding, dens_lambda):
    Y, W = _grid_layout(epoch)
    # densMAP's per-point coefficients (dCorr/dr, 1/A, 1/B), or the placeholder without it
    dens = np.random.default_rng(epoch).uniform(0.1, 1.0, (Y.shape[0], 3)).astype(np.float32)
    dens = dens if dens_lambda else np.zeros((1, 3), dtype=np.float32)
    ref = Y.copy() if self_embedding else Y[::-1].copy()
    keys = np.zeros(0, dtype=np.int64) if self_embedding else np.arange(W.nnz, dtype=np.int64) * 7
    # with the other end's pull at a weight between 0 and 1 (ignored when placing in ref)
    args = (W.indptr, W.indices, W.data, float(W.data.max()), keys, NEGATIVE_RATE, 1.58, 0.9, 1.0, 0.5, epoch, 3, 0.75)
    general, plane = Y.copy(), Y.copy()
    layout_rows(general, ref, self_embedding, *args, dens, dens_lambda, 0, general.shape[0])
    plane_epoch(plane, ref, self_embedding, *args, dens, dens_lambda, 0, plane.shape[0])
    # both sum the same float32 terms (fastmath may order and fuse them differently):
    # a few roundings of the coordinates per step, over a row's at most 8 visits
    tolerance = 8 * 16 * np.finfo(np.float32).eps * np.abs(Y).max()
    assert np.abs(general - Y).max() > 50 * tolerance  # the epoch did move the points
    np.testing.assert_allclose(plane, general, rtol=0, atol=tolerance)
