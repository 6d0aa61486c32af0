"""Gradient descent for neighbour embeddings: momentum, per-coordinate gains
(delta-bar-delta, Jacobs 1988, as in van der Maaten's t-SNE), per-point step clipping
and phases (early exaggeration, then the main run), on the shared loop skeleton."""

from dataclasses import dataclass

import numpy as np

from .._iterative import STOP, run_loop

MIN_GAIN = 0.01
MAX_STEP_NORM = 5.0  # no point moves further than this in one iteration (as openTSNE)


@dataclass
class Phase:
    """``n_iter`` iterations at one exaggeration and momentum.

    Parameters
    ----------
    n_iter : int
    exaggeration : float
        The attraction's multiplier (early exaggeration).
    momentum : float

    Examples
    --------
    >>> Phase(250, 12.0, 0.5).exaggeration
    12.0
    """

    n_iter: int
    exaggeration: float
    momentum: float


@dataclass
class DescentState:
    """What callbacks see: the embedding ``Y`` (do not modify it), the iteration count
    over all phases and the last evaluated objective."""

    Y: np.ndarray
    update: np.ndarray
    gains: np.ndarray
    iteration: int = 0
    objective: float = float("nan")
    best_objective: float = float("inf")
    best_iteration: int = 0
    grad_norm: float = float("inf")


def descend(
    Y,
    gradient,
    objective,
    phases,
    learning_rate,
    *,
    min_grad_norm=1e-7,
    n_iter_without_progress=300,
    n_iter_check=50,
    callbacks=(),
    verbose=0,
    label="t-SNE",
    recenter=True,
):
    """Run the ``phases`` from ``Y`` (modified in place).

    Parameters
    ----------
    Y : ndarray (n, d)
    gradient : callable
        ``gradient(Y, exaggeration) -> (grad, aux)``.
    objective : callable
        ``objective(Y, aux) -> float``, evaluated every ``n_iter_check`` iterations and
        at the end of each phase (the value between evaluations is the last one).
    phases : sequence of Phase
    learning_rate : float
    min_grad_norm : float
        Stop when the gradient norm at an evaluation falls below this.
    n_iter_without_progress : int
        Stop when the objective has not improved for this many iterations (main
        phases only: exaggeration changes the objective's scale).
    callbacks : sequence of callables
        ``callback(iteration, objective, state) -> stop?``, every iteration.
    recenter : bool
        Keep the embedding's mean at the origin (off when points move against a fixed
        reference embedding).
    n_iter_check : int, default=50
        Iterations between objective evaluations.
    verbose : int, default=0
    label : str, default='t-SNE'
        The name in progress messages.

    Returns
    -------
    DescentState

    Examples
    --------
    >>> grad = lambda Y, e: (2 * (Y - 1.0), None)
    >>> state = descend(np.zeros((1, 2)), grad, lambda Y, a: float(((Y - 1) ** 2).sum()),
    ...                 [Phase(100, 1.0, 0.5)], 0.1)
    >>> bool(np.allclose(state.Y, 0.0))  # recentred every step: one point stays at the origin
    True
    """
    state = DescentState(Y=Y, update=np.zeros_like(Y), gains=np.ones_like(Y))
    # the loop counts iterations per phase; callbacks see the count over all phases
    callbacks = [lambda it, objective, st, cb=cb: cb(st.iteration, objective, st) for cb in callbacks]
    for k, phase in enumerate(phases):
        if k:  # momentum and gains built under the last phase's forces would overshoot under the next
            state.update[:] = 0.0
            state.gains[:] = 1.0
        state.best_objective, state.best_iteration = float("inf"), state.iteration
        step = _step(
            gradient,
            objective,
            phase,
            learning_rate,
            min_grad_norm,
            n_iter_without_progress if k == len(phases) - 1 else None,
            n_iter_check,
            verbose,
            label,
            recenter,
        )
        result = run_loop(step, state, max_iter=phase.n_iter, tol=None, callbacks=callbacks, warn=False)
        if result.stopped or (result.converged and k == len(phases) - 1):
            break
    return state


def _step(gradient, objective, phase, learning_rate, min_grad_norm, patience, n_iter_check, verbose, label, recenter):
    """One iteration of ``phase`` as a ``run_loop`` step: ``STOP`` when the gradient is
    small or the objective has not improved for ``patience`` iterations."""

    def step(state):
        grad, aux = gradient(state.Y, phase.exaggeration)
        state.iteration += 1
        _apply_update(state, grad, phase.momentum, learning_rate, recenter)
        stop = False
        if state.iteration % n_iter_check == 0:
            state.objective = objective(state.Y, aux)
            state.grad_norm = float(np.linalg.norm(grad))
            if verbose:  # scikit-learn's line (code parses "error = " and "gradient norm = ")
                print(
                    f"[{label}] Iteration {state.iteration}: error = {state.objective:.7f}, "
                    f"gradient norm = {state.grad_norm:.7f} (KL divergence, exaggeration {phase.exaggeration:g})"
                )
            improved = state.objective < state.best_objective
            if improved:
                state.best_objective, state.best_iteration = state.objective, state.iteration
            stalled = patience is not None and not improved and state.iteration - state.best_iteration > patience
            stop = state.grad_norm < min_grad_norm or stalled
            if stop and verbose:
                reason = (
                    f"gradient norm {state.grad_norm:.7g} below min_grad_norm"
                    if state.grad_norm < min_grad_norm
                    else f"did not make any progress during the last {patience} episodes"
                )
                print(f"[{label}] Iteration {state.iteration}: {reason}. Finished.")
        return state, state.objective, STOP if stop else np.inf

    return step


def _apply_update(state, grad, momentum, learning_rate, recenter):
    """Gains grow (+0.2) where the gradient keeps its sign (the last step went downhill
    and still does) and shrink (x 0.8) where it flips; steps longer than MAX_STEP_NORM
    are shortened; the embedding is recentred if asked."""
    from .._kernels.descent import gains_step

    gains_step(
        state.Y,
        np.ascontiguousarray(grad, dtype=np.float64),
        state.update,
        state.gains,
        float(momentum),
        float(learning_rate),
        MIN_GAIN,
        MAX_STEP_NORM,
    )
    if recenter:
        state.Y -= state.Y.mean(axis=0)
