"""Mini-batch training of a loss over one flat weight vector: AdamW steps traced once by
JAX (every batch padded to one shape, so a fit compiles once), an epoch loop in Python
with early stopping on held-out rows, and the best weights kept."""

import functools
from dataclasses import dataclass, field

import numpy as np

from .._iterative import STOP, run_loop
from .._warnings import warn_user
from ..exceptions import ConvergenceWarning


@dataclass
class Schedule:
    """How to train: AdamW's step and decay, batch size, epochs and the stopping rule.

    Examples
    --------
    >>> Schedule(max_epochs=5).batch_size
    256
    """

    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    batch_size: int = 256
    max_epochs: int = 200
    tol: float = 1e-4
    patience: int | None = 10  # None: every epoch runs, and the last weights are kept
    anneal: bool = False  # the step falls linearly to zero over max_epochs (as UMAP's SGD)

    def step_size(self, epoch):
        """The learning rate of the epoch ``epoch`` (from 0).

        Examples
        --------
        >>> Schedule(learning_rate=1.0, max_epochs=4, anneal=True).step_size(3)
        0.25
        """
        return self.learning_rate * (1.0 - epoch / self.max_epochs) if self.anneal else self.learning_rate


@dataclass
class Trained:
    """What training gives back: the best weights and the curves that chose them."""

    weights: np.ndarray
    n_epochs: int
    best_loss: float
    loss_curve: list = field(default_factory=list)
    validation_curve: list = field(default_factory=list)


def padded_batches(n_rows, batch_size):
    """``(rows, mask)`` pairs covering ``n_rows`` rows in batches of exactly
    ``batch_size`` entries: the last batch repeats row 0 under a zero mask.

    Examples
    --------
    >>> [(r.tolist(), m.tolist()) for r, m in padded_batches(3, 2)]
    [([0, 1], [1.0, 1.0]), ([2, 0], [1.0, 0.0])]
    """
    for start in range(0, n_rows, batch_size):
        rows = np.arange(start, min(start + batch_size, n_rows))
        mask = np.ones(batch_size, dtype=np.float32)
        mask[rows.size :] = 0.0
        yield np.concatenate([rows, np.zeros(batch_size - rows.size, dtype=rows.dtype)]), mask


@functools.lru_cache(maxsize=32)
def _compiled(row_loss, keyed):
    """The jitted AdamW step and the masked mean loss of ``row_loss(weights, X, key)``,
    kept per loss function (callers cache theirs by architecture), so that fits of one
    architecture compile once per process."""
    import jax
    import jax.numpy as jnp

    def mean_loss(w, X, mask, key):
        return jnp.sum(row_loss(w, X, key) * mask) / jnp.maximum(jnp.sum(mask), 1.0)

    @jax.jit
    def step(w, m, v, t, X, mask, key, lr, wd):
        loss, g = jax.value_and_grad(mean_loss)(w, X, mask, key if keyed else None)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        m_hat, v_hat = m / (1.0 - 0.9**t), v / (1.0 - 0.999**t)
        w = w - lr * (m_hat / (jnp.sqrt(v_hat) + 1e-8) + wd * w)
        return w, m, v, loss

    return step, jax.jit(lambda w, X, mask: mean_loss(w, X, mask, None)), jax.jit(lambda w, X: row_loss(w, X, None))


def evaluate(loss_of_batch, weights, rows_of, rows, batch_size):
    """The mean loss over the data rows ``rows`` (``rows_of(indices)`` reads them), in
    padded batches."""
    total = 0.0
    for at, mask in padded_batches(rows.size, batch_size):
        total += float(loss_of_batch(weights, rows_of(rows[at]), mask)) * mask.sum()
    return float(total / rows.size)


class _Epochs:
    """One training run between epochs: the weights, AdamW's moments and step count, the
    best weights by held-out loss and the last weights whose loss was finite. Called as
    ``run_loop``'s step: one epoch per call, returning the weights (numpy) as the state
    callbacks see."""

    def __init__(self, row_loss, weights, rows_of, fit_rows, held_out, schedule, rng, keyed, progress, name, offset):
        import jax
        import jax.numpy as jnp

        self.step, self.batch_loss, self.rows_loss = _compiled(row_loss, bool(keyed))
        self.rows_of, self.fit_rows, self.schedule, self.rng = rows_of, fit_rows, schedule, rng
        self.held_out = held_out if held_out is None or held_out.size else fit_rows
        self.progress, self.name, self.offset = progress, name, offset
        self.w = self.last_good = jnp.asarray(weights)
        self.m, self.v, self.t = jnp.zeros_like(self.w), jnp.zeros_like(self.w), 0
        self.key = jax.random.key(int(rng.integers(2**31)))
        self.best, self.best_w, self.waited = np.inf, self.w, 0
        self.out = Trained(weights=np.asarray(weights), n_epochs=0, best_loss=np.inf)

    def __call__(self, _):
        import jax

        sched, losses = self.schedule, []
        rate = sched.step_size(len(self.out.loss_curve))
        order = self.fit_rows[self.rng.permutation(self.fit_rows.size)]
        for at, mask in padded_batches(self.fit_rows.size, sched.batch_size):
            self.t += 1
            rows = order[at]
            batch = self.rows_of(rows)
            key = jax.random.fold_in(self.key, self.t)
            w, m, v, loss = self.step(self.w, self.m, self.v, self.t, batch, mask, key, rate, sched.weight_decay)
            if not np.isfinite(float(loss)):  # the loss of self.w: keep the weights before them
                losses = self.rows_loss(self.w, batch)
                _warn_not_finite(self.name, len(self.out.loss_curve) + 1, rows, mask, losses, self.rows_of)
                self.w = self.last_good
                return np.asarray(self.w), np.nan, STOP
            self.last_good, (self.w, self.m, self.v) = self.w, (w, m, v)
            losses.append(float(loss) * mask.sum())
        self.out.loss_curve.append(float(sum(losses) / self.fit_rows.size) + self.offset)  # not numpy's float32
        if self.held_out is None:  # the epoch's own loss decides: no second pass
            value = self.out.loss_curve[-1]
        else:
            value = evaluate(self.batch_loss, self.w, self.rows_of, self.held_out, sched.batch_size) + self.offset
            self.out.validation_curve.append(value)
        if value < self.best - sched.tol * abs(self.best) or not np.isfinite(self.best):
            self.best, self.best_w, self.waited = value, self.w, 0
        else:
            self.waited += 1
        if self.progress is not None:
            held = "" if self.held_out is None else f", held out {value:.4g}"
            self.progress.set_postfix_str(f"loss {self.out.loss_curve[-1]:.4g}{held}", refresh=False)
            self.progress.update()
        patient = sched.patience is None or self.waited < sched.patience
        return np.asarray(self.w), value, np.inf if patient else STOP


def train(row_loss, weights, rows_of, fit_rows, held_out, schedule, rng, *, keyed=False, progress=None,
          callbacks=(), name="model", offset=0.0):  # fmt: skip
    """Minimise the mean of ``row_loss(weights, rows, key)`` over the data rows ``fit_rows``.

    The data are read a batch at a time through ``rows_of`` (so a fit holds no copy of
    them). Each epoch visits ``fit_rows`` in a fresh random order; after it, the loss of
    the ``held_out`` rows (of ``fit_rows`` when there are none; the epoch's own training
    loss when ``held_out`` is None) decides: the best weights
    so far are kept, and ``schedule.patience`` epochs without an improvement larger than
    ``schedule.tol`` (relative) end the training (with ``patience=None`` every epoch
    runs and the last weights are kept). A non-finite loss stops it with a
    warning naming the epoch and the first row whose loss is not finite; the last weights
    whose loss was finite are kept.

    Parameters
    ----------
    row_loss : callable
        ``row_loss(weights, rows, key) -> (batch,)``, traceable by JAX; ``key`` is a JAX
        random key for dropout, or None when evaluating.
    weights : ndarray of float32
    rows_of : callable
        ``rows_of(indices) -> ndarray of float32``: the network's input for those rows.
    fit_rows, held_out : ndarray of int
        The rows trained on and the rows that decide when to stop (None: the training
        loss of each epoch decides).
    schedule : Schedule
    rng : numpy.random.Generator
        The visiting orders and the dropout keys.
    keyed : bool
        Whether the loss draws random numbers (dropout masks, negative samples): keys
        are passed to it only then.
    progress : tqdm-like, optional
        Advanced once per epoch, its postfix showing the losses.
    callbacks : sequence of callables
        ``callback(epoch, held_out_loss, weights) -> stop?`` after every epoch.
    name : str
        The model's name in messages.
    offset : float
        A constant added to every loss reported (the curves, the callbacks' loss): a
        part of the objective no weight moves, kept out of ``row_loss`` so that the step
        compiled from it serves fits on other data.

    Returns
    -------
    Trained

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> X = np.random.default_rng(0).normal(size=(64, 1)).astype(np.float32)
    >>> row_loss = lambda w, rows, key: jnp.sum((rows - w) ** 2, axis=1)  # w -> the mean
    >>> out = train(row_loss, np.zeros(1, np.float32), X.__getitem__, np.arange(64), np.arange(0),
    ...             Schedule(learning_rate=0.1, batch_size=16), np.random.default_rng(0))
    >>> bool(abs(out.weights[0] - X.mean()) < 0.05)
    True
    """
    run = _Epochs(row_loss, weights, rows_of, fit_rows, held_out, schedule, rng, keyed, progress, name, offset)
    loop = run_loop(run, weights, max_iter=schedule.max_epochs, tol=None, callbacks=callbacks, warn=False, label=name)
    if not loop.converged and not loop.stopped and schedule.patience is not None:
        warn_user(
            f"{name} did not stop improving within max_iter={schedule.max_epochs} epochs ("
            + (
                f"held-out loss {run.out.validation_curve[-1]:.4g}"
                if run.out.validation_curve
                else f"loss {run.out.loss_curve[-1]:.4g}"
            )
            + "); increase max_iter.",
            ConvergenceWarning,
        )
    out = run.out
    best_w = run.best_w if np.isfinite(run.best) and schedule.patience is not None else run.w
    out.weights, out.n_epochs, out.best_loss = (
        np.asarray(best_w, dtype=np.float32),
        len(out.loss_curve),
        float(run.best),
    )
    return out


def _warn_not_finite(name, epoch, rows, mask, row_losses, rows_of):
    """Warn naming the epoch and the first training row whose loss is not finite (what a
    row is, ``rows_of.describe(position)`` says when it has one: an edge for samplers)."""
    losses = np.asarray(row_losses)
    bad = [at for at in range(len(rows)) if mask[at] and not np.isfinite(losses[at])]
    describe = getattr(rows_of, "describe", lambda at: f"row {int(rows[at])}")
    where = describe(bad[0]) if bad else f"the batch of rows {int(rows[0])}, ..."
    warn_user(
        f"{name}: the training loss is not finite at epoch {epoch} ({where} is the first whose loss is not); "
        "training stopped and the last good weights are kept. Lower learning_rate, or scale the data.",
        ConvergenceWarning,
    )
