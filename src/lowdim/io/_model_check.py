"""Is a loaded model usable? Its attributes come from a file, so before it is returned
it is tried on two rows (zeros and ones: an array that overflows on any row but zeros
shows on the second): every method that applies it must run and give the shapes its
own attributes declare (a PCA file relabelled as KMeans, or ``components_`` cut to 3
rows while ``n_components_`` says 5, are refused here, not at the user's first call),
and so must its way back (``inverse_transform`` of those rows' codes: an option's
arrays that only the way back reads are tried too)."""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from ..exceptions import UntrustedModelError

APPLYING_METHODS = ("transform", "predict", "predict_proba", "score_samples", "decision_function")


def _declared_width(estimator):
    """The number of output columns the model's attributes declare, if any."""
    for getter in (lambda e: e._n_features_out, lambda e: e.n_components_):
        try:
            width = getter(estimator)
        except Exception:  # noqa: BLE001 - a missing or broken attribute just declares nothing
            continue
        if isinstance(width, (int, np.integer)):
            return int(width)
    return None


def _check_output(estimator, method, out, width):
    if out is None:
        return
    rows = out.shape[0] if hasattr(out, "shape") and len(out.shape) else None
    if rows != 2:
        raise ValueError(f"{method} of 2 rows returned {getattr(out, 'shape', type(out).__name__)}")
    if method == "transform" and width is not None and not sp.issparse(out) and out.ndim == 2 and out.shape[1] != width:
        raise ValueError(f"transform returned {out.shape[1]} columns, but the model declares {width}")
    if not sp.issparse(out) and np.asarray(out).dtype.kind == "f":
        values = np.asarray(out)
        # a log-density of -inf is a row the model holds impossible (a Gaussian fitted to
        # constant data puts all its mass on one point); NaN and +inf are broken arithmetic
        bad = np.isnan(values) | (values == np.inf) if method == "score_samples" else ~np.isfinite(values)
        if bad.any():
            raise ValueError(f"{method} of two probe rows is not finite")


def _applied(estimator, method, probe):
    """``method``'s output on the probe rows; None where the model's options leave the
    method out (LDA's transform with solver='lsqr' raises NotImplementedError, as
    scikit-learn's; KernelPCA's inverse_transform without fit_inverse_transform,
    NotFittedError)."""
    try:
        return getattr(estimator, method)(probe)
    except (NotImplementedError, NotFittedError):
        return None


def _check_way_back(estimator, codes, n_features):
    """``inverse_transform`` of the probe's codes: two finite rows of the features."""
    if codes is None or sp.issparse(codes) or not hasattr(estimator, "inverse_transform"):
        return
    back = _applied(estimator, "inverse_transform", codes)
    if back is None:
        return
    back = back.toarray() if sp.issparse(back) else np.asarray(back)
    if back.shape != (2, n_features):
        raise ValueError(f"inverse_transform of two rows returned shape {back.shape}, not (2, {n_features})")
    if back.dtype.kind == "f" and not np.all(np.isfinite(back)):
        raise ValueError("inverse_transform of two probe rows is not finite")


def check_usable(estimator):
    """Raise ``UntrustedModelError`` unless the loaded ``estimator`` works: each of its
    applying methods on a row of zeros and a row of ones (of ``n_features_in_`` columns; a class with
    ``_probe_rows(n_features)`` names its own) runs and returns what its attributes
    declare, finite (a log-density may be -inf), and ``inverse_transform`` takes the
    transform's codes back to two finite rows of the features; a stored ``embedding_`` is a finite 2-D array
    of ``n_components_`` columns; and a class's own ``_check_loaded()`` passes.

    Examples
    --------
    >>> import numpy as np
    >>> from lowdim import PCA
    >>> check_usable(PCA(2).fit(np.random.default_rng(0).normal(size=(20, 4))))
    """
    name = type(estimator).__name__
    width = _declared_width(estimator)
    try:
        if hasattr(estimator, "_check_loaded"):  # the class's own invariants (e.g. NMF: H >= 0)
            estimator._check_loaded()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # data warnings about the probe are not the file's fault
            embedding = estimator.__dict__.get("embedding_")
            if embedding is not None:
                embedding = np.asarray(embedding)
                if (
                    embedding.ndim != 2
                    or (width is not None and embedding.shape[1] != width)
                    or not np.all(np.isfinite(embedding))
                ):
                    raise ValueError(f"embedding_ has shape {embedding.shape}; the model declares {width} columns")
            n_features = getattr(estimator, "n_features_in_", None)
            if n_features is not None:
                n_features = int(n_features)
                probe = (
                    estimator._probe_rows(n_features)
                    if hasattr(estimator, "_probe_rows")
                    else np.vstack([np.zeros(n_features), np.ones(n_features)])
                )
                outputs = {}
                for method in APPLYING_METHODS:
                    if hasattr(estimator, method):
                        outputs[method] = _applied(estimator, method, probe)
                        _check_output(estimator, method, outputs[method], width)
                _check_way_back(estimator, outputs.get("transform"), n_features)
    except UntrustedModelError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the attributes break is the file's fault
        raise UntrustedModelError(
            f"the file's attributes do not make a working {name}: {type(exc).__name__}: {str(exc)[:300]}"
        ) from None
