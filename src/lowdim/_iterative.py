"""The loop skeleton shared by iterative methods (docs/design.md).

Python owns the loop; a method supplies ``step(state) -> (state, objective, change)``
which performs one iteration (usually a numba or BLAS kernel). ``run_loop`` handles
``max_iter``, ``tol``, the objective history, ``verbose`` progress, callbacks that may
stop the run and the ``ConvergenceWarning``; ``best_of_restarts`` handles ``n_init``;
``SmoothedObjective`` is the mini-batch fits' rule for an objective that stops improving.
"""

from contextlib import contextmanager
from dataclasses import dataclass, field

from ._warnings import warn_user
from .exceptions import ConvergenceWarning


@dataclass
class LoopResult:
    """Outcome of ``run_loop``.

    Attributes
    ----------
    state : object
        The final state returned by the last step.
    objective : float
        The final objective value.
    n_iter : int
        Number of steps taken.
    converged : bool
        Whether ``change <= tol`` was reached.
    stopped : bool
        Whether a callback asked to stop.
    history : list of float
        Objective after each step.

    Examples
    --------
    >>> LoopResult(state=None, objective=0.0, n_iter=0).converged
    False
    """

    state: object
    objective: float
    n_iter: int
    converged: bool = False
    stopped: bool = False
    history: list = field(default_factory=list)


class _Stop:
    """The type of ``STOP``."""

    def __repr__(self):
        return "STOP"

    def __format__(self, spec):
        return "stop"


STOP = _Stop()  # a step's ``change`` when the step itself decided that the loop has converged


@contextmanager
def iteration_bar(label, total, enabled):
    """A progress bar over at most ``total`` iterations (tqdm, on standard error: an
    ETA, and the objective as it is evaluated), as a list of the callback that advances
    it: add it to ``run_loop``'s callbacks. The list is empty when not ``enabled``.

    Parameters
    ----------
    label : str
        Leads the bar (``"<label> iterations"``).
    total : int
    enabled : bool

    Returns
    -------
    context manager yielding a list of callables

    Examples
    --------
    >>> with iteration_bar("demo", 10, enabled=False) as callbacks:
    ...     callbacks
    []
    """
    if not enabled:
        yield []
        return
    from ._progress import progress_bar

    with progress_bar(total=total, desc=f"{label} iterations", unit="it", mininterval=0.5) as bar:

        def tick(iteration, objective, state):
            bar.update(iteration - bar.n)
            if objective == objective and abs(objective) != float("inf"):  # evaluated
                bar.set_postfix_str(f"objective {objective:.6g}", refresh=False)

        yield [tick]


def callback_list(callbacks):
    """An estimator's ``callbacks`` parameter as a list: None, one callable or a list of them.

    Examples
    --------
    >>> callback_list(None), len(callback_list(print)), len(callback_list([print, print]))
    ([], 1, 2)
    """
    if callbacks is None:
        return []
    return [callbacks] if callable(callbacks) else list(callbacks)


def run_loop(step, state, *, max_iter, tol, callbacks=(), verbose=0, label="iteration", warn=True):
    """Iterate ``step`` until its change measure drops to ``tol`` or ``max_iter`` steps.

    Parameters
    ----------
    step : callable
        ``step(state) -> (state, objective, change)``; ``change`` is the convergence
        measure compared with ``tol`` (for example a relative objective decrease), or
        ``STOP`` when the step has its own stopping rule and it is met.
    state : object
        Initial state.
    max_iter : int
        Maximum number of steps.
    tol : float or None
        Convergence threshold on ``change``; None when only ``STOP`` ends the loop early.
    callbacks : sequence of callables
        Each is called as ``callback(iteration, objective, state)``; a truthy return
        value stops the run (not counted as a convergence failure).
    verbose : int
        Print the objective every ``verbose`` iterations when > 0.
    label : str
        What to call the loop in messages.
    warn : bool
        Emit a ``ConvergenceWarning`` when ``max_iter`` is reached.

    Returns
    -------
    LoopResult

    Examples
    --------
    >>> halve = lambda x: (x / 2, x / 2, x / 2)
    >>> run_loop(halve, 1.0, max_iter=100, tol=1e-3).n_iter
    10
    """
    result = LoopResult(state=state, objective=float("nan"), n_iter=0)
    for iteration in range(1, max_iter + 1):
        state, objective, change = step(state)
        result.state, result.objective, result.n_iter = state, float(objective), iteration
        result.history.append(float(objective))
        if verbose and iteration % max(1, int(verbose)) == 0:
            print(f"[{label}] iteration {iteration}: objective {objective:.6g}, change {change:.3g}")
        if any(cb(iteration, objective, state) for cb in callbacks):
            result.stopped = True
            return result
        if change is STOP or (tol is not None and change <= tol):
            result.converged = True
            return result
    if warn:
        last = f", last change {change:.3g} > tol={tol:g}" if tol is not None else ""
        # the first sentence is scikit-learn's, which code that filters warnings may match
        warn_user(
            f"{label} did not converge. Consider increasing tolerance or the maximum number of "
            f"iterations (max_iter={max_iter} reached{last}).",
            ConvergenceWarning,
        )
    return result


def best_of_restarts(run_once, n_init, rng, same=None):
    """Run ``run_once(rng)`` ``n_init`` times and keep the result with the lowest objective.

    With ``same(result, best)``, a result that reaches the best one's solution never
    replaces it, whatever its objective: two starts that end in the same clusters have
    objectives that differ in their last bits, by summation order, so the lower one is
    the CPU's pick (scikit-learn's k-means keeps the first too).

    Parameters
    ----------
    run_once : callable
        ``run_once(rng) -> LoopResult``; each restart gets the same generator, which it
        advances, so restarts differ and the whole is reproducible from one seed.
    n_init : int
        Number of restarts.
    rng : numpy.random.Generator
    same : callable, optional
        ``same(a, b) -> bool``: whether two results are one solution.

    Returns
    -------
    LoopResult

    Examples
    --------
    >>> import numpy as np
    >>> once = lambda rng: LoopResult(None, float(rng.random()), 1)
    >>> best_of_restarts(once, 5, np.random.default_rng(0)).objective < 0.5
    True
    """
    best = None
    for _ in range(n_init):
        result = run_once(rng)
        if best is None or (result.objective < best.objective and not (same is not None and same(result, best))):
            best = result
    return best


class SmoothedObjective:
    """The stopping rule of mini-batch fits: an exponentially weighted average of the
    batch objectives (``weight`` for the newest, about one pass remembered), and the
    steps since it last decreased.

    Examples
    --------
    >>> rule = SmoothedObjective(0.5, patience=2)
    >>> [rule.stale(v) for v in (4.0, 2.0, 3.0, 3.0)]
    [False, False, False, True]
    """

    def __init__(self, weight, patience):
        self.weight, self.patience = weight, patience
        self.average, self.best, self.since = None, float("inf"), 0

    def stale(self, value):
        """Add a batch's objective; True when it has not improved for ``patience`` steps."""
        self.average = value if self.average is None else (1 - self.weight) * self.average + self.weight * value
        self.best, self.since = (self.average, 0) if self.average < self.best else (self.best, self.since + 1)
        return self.patience is not None and self.since >= self.patience
