"""The rules that turn an ``n_components`` form (count, variance fraction, 'mle') and a
spectrum into a number of components, and the share of the total each one explains;
``_select_components`` builds the curves on them."""

import numbers

import numpy as np

from ._ppca_likelihood import minka_log_evidence


def explained_shares(parts, total):
    """``parts / total``, or zeros when there is nothing to share (constant data, a table
    whose rows all have one profile: the components are rounding noise and explain none
    of it).

    Examples
    --------
    >>> explained_shares(np.array([3.0, 1.0]), 8.0).tolist(), explained_shares(np.array([1e-17]), 0.0).tolist()
    ([0.375, 0.125], [0.0])
    """
    parts = np.asarray(parts)
    return parts / total if total > 0 else np.zeros_like(parts)


def k_for_fraction(eigenvalues, total_variance, fraction):
    """Smallest k whose leading eigenvalues explain at least ``fraction`` of the variance.

    Examples
    --------
    >>> import numpy as np
    >>> k_for_fraction(np.array([5.0, 3.0, 2.0]), 10.0, 0.8)
    2
    """
    if total_variance <= 0:
        return 1
    cumulative = np.cumsum(eigenvalues) / total_variance
    reached = np.nonzero(cumulative >= fraction * (1 - 1e-12))[0]
    return int(reached[0]) + 1 if reached.size else int(eigenvalues.size)


def k_by_mle(eigenvalues, n_samples):
    """Minka's MLE of the dimensionality and the log-evidence curve over k = 1 .. d-1.

    Minka's approximation needs at least as many samples as features (as in
    scikit-learn); fewer raise ``ValueError``."""
    d = eigenvalues.size
    if n_samples < d:
        raise ValueError(
            "n_components='mle' is only supported if n_samples >= n_features: it needs at least as many "
            f"samples as features (Minka's estimate "
            f"uses the whole covariance spectrum); got {n_samples} samples and {d} features. "
            "Choose n_components as a variance fraction (e.g. 0.9), or use "
            "select_n_components(X, method='cv')."
        )
    ks = np.arange(1, max(d, 2))
    curve = np.array([minka_log_evidence(eigenvalues, k, n_samples) if k < d else -np.inf for k in ks])
    return int(ks[np.argmax(curve)]), ks, curve


def resolve_n_components(n_components, spectrum, n, d):
    """The number of components to keep, from the parameter and a solver's spectrum."""
    if n_components is None:
        return min(n, d)
    if n_components == "mle":
        full = np.zeros(d)
        full[: spectrum.eigenvalues.size] = spectrum.eigenvalues
        return k_by_mle(full, n)[0]
    if isinstance(n_components, numbers.Integral):
        return int(n_components)
    return k_for_fraction(spectrum.eigenvalues, spectrum.total_variance, float(n_components))
