"""New points in a fixed t-SNE embedding: each minimises its own KL divergence between
its affinities to the training points and its output kernel to their positions."""

import numpy as np
import scipy.sparse as sp

from ._gradients import SpaceTree
from ._optimizer import Phase, descend

PLACEMENT_ITER = 250
PLACEMENT_LEARNING_RATE = 1.0


def place_points(
    Y_ref, indices, conditional, dof, theta, *, n_iter=PLACEMENT_ITER, learning_rate=PLACEMENT_LEARNING_RATE
):
    """Positions of new points given their affinities to the reference points.

    Parameters
    ----------
    Y_ref : ndarray (n, d)
        The fixed embedding.
    indices, conditional : ndarray (m, k)
        Each new point's reference neighbours and its affinities to them (rows sum to 1).
    dof : float
    theta : float
        Barnes-Hut angle for the repulsion from the reference points (0 = exact).

    Returns
    -------
    ndarray (m, d)
        Started at each point's affinity-weighted mean neighbour position; every point
        moves on its own (no interaction between new points, no recentring), so the
        result for a batch equals that for one point at a time.

    Examples
    --------
    >>> Y_ref = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    >>> Y = place_points(Y_ref, np.array([[0, 1]]), np.array([[0.9, 0.1]]), 1.0, 0.0)
    >>> bool(np.linalg.norm(Y[0]) < np.linalg.norm(Y[0] - Y_ref[1]))
    True
    """
    from .._kernels.tsne_forces import attractive_forces_to

    m, k = indices.shape
    P = sp.csr_matrix((conditional.ravel(), indices.ravel(), np.arange(0, m * k + 1, k)), shape=(m, Y_ref.shape[0]))
    Y = np.einsum("mk,mkd->md", conditional, Y_ref[indices])
    tree = SpaceTree(Y_ref)
    c = 2.0 * (dof + 1.0) / dof

    def gradient(Y, exaggeration):
        A = np.empty_like(Y)
        attractive_forces_to(P.indptr, P.indices, P.data, Y, Y_ref, float(dof), A)
        R, z_rows = tree.repulsion(Y, theta, dof, exclude_self=False)
        return c * (A - R / z_rows[:, None]), None

    state = descend(
        Y,
        gradient,
        lambda Y, aux: float("nan"),
        [Phase(n_iter, 1.0, 0.5)],
        learning_rate,
        min_grad_norm=0.0,
        n_iter_check=n_iter + 1,
        recenter=False,
    )
    return state.Y
