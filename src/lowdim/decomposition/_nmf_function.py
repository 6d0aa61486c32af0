"""``non_negative_factorization``: scikit-learn's function form of ``NMF``."""

from .._warnings import warn_user
from ._nmf import NMF


def non_negative_factorization(
    X,
    W=None,
    H=None,
    n_components="auto",
    *,
    init=None,
    update_H=True,
    solver="cd",
    beta_loss="frobenius",
    tol=1e-4,
    max_iter=200,
    alpha_W=0.0,
    alpha_H="same",
    l1_ratio=0.0,
    random_state=None,
    verbose=0,
    shuffle=False,
):
    """Factorise non-negative ``X ~ W H``: ``NMF`` as a function, with scikit-learn's
    signature.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features), non-negative
    W, H : ndarray, optional
        The start with ``init='custom'``; with ``update_H=False``, ``H`` is the fixed
        dictionary W is solved for.
    n_components, init, solver, beta_loss, tol, max_iter, alpha_W, alpha_H, l1_ratio, random_state, verbose, shuffle
        As ``NMF``'s parameters.
    update_H : bool, default=True
        False: keep ``H`` and fit W only (``NMF.transform``'s updates).

    Returns
    -------
    W : ndarray of shape (n_samples, n_components)
    H : ndarray of shape (n_components, n_features)
    n_iter : int
        Iterations run.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.abs(np.random.default_rng(0).normal(size=(20, 6)))
    >>> W, H, n_iter = non_negative_factorization(X, n_components=2, random_state=0)
    >>> W.shape, H.shape, bool((W >= 0).all() and (H >= 0).all())
    ((20, 2), (2, 6), True)
    """
    model = NMF(
        n_components=n_components,
        init=init,
        solver=solver,
        beta_loss=beta_loss,
        tol=tol,
        max_iter=max_iter,
        random_state=random_state,
        alpha_W=alpha_W,
        alpha_H=alpha_H,
        l1_ratio=l1_ratio,
        verbose=verbose,
        shuffle=shuffle,
    )
    if not update_H:
        if H is None:
            raise ValueError("update_H=False solves W for a given H; pass H of shape (n_components, n_features).")
        if W is not None:
            warn_user(
                "When update_H=False, the provided initial W is not used: W is solved for the given H from "
                "transform's start.",
                RuntimeWarning,
            )
        return model._fit_w_only(X, H)
    W = model.fit_transform(X, W=W, H=H)
    return W, model.components_, model.n_iter_
