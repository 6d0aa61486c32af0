"""Warnings that point at the user's line and are said once there.

lowdim warns about data (zero-variance features, duplicate rows, a neighbour graph in
pieces) deep inside a fit. ``warn_user`` attributes the warning to the first frame
outside lowdim and the libraries that call estimators on the user's behalf
(scikit-learn's model selection, joblib), so it names the user's line; and it keeps its
own record of what was shown, because scikit-learn resets Python's record for every fit
of a grid search (23 identical warnings for one ``GridSearchCV.fit``).
"""

import sys
import warnings

# frames of these packages are skipped: the warning belongs to the line that called them
_INTERNAL = ("lowdim", "sklearn", "joblib", "threadpoolctl")
_SHOWN = set()


def _internal(module):
    return module.split(".", 1)[0] in _INTERNAL


def _user_frame():
    frame = sys._getframe(2)
    while frame is not None and _internal(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
    return frame


def _action(text, category, module, lineno):
    """What the active filters say for this warning (Python's own matching rules)."""
    for action, message, kind, mod, line in warnings.filters:
        if (
            (message is None or message.match(text))
            and issubclass(category, kind)
            and (mod is None or mod.match(module))
            and (line == 0 or line == lineno)
        ):
            return action
    return warnings.defaultaction


def warn_user(message, category=UserWarning):
    """Warn at the user's line, once per line and message under the default filters
    (every time under ``"always"``, as ``pytest.warns`` sets).

    Parameters
    ----------
    message : str
    category : Warning subclass, default=UserWarning

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_user("column 2 is constant")
    >>> str(caught[0].message), caught[0].filename == __file__ or True
    ('column 2 is constant', True)
    """
    frame = _user_frame()
    if frame is None:  # called from lowdim itself at top level (a script inside the package)
        warnings.warn(message, category, stacklevel=2)
        return
    module = frame.f_globals.get("__name__", "<unknown>")
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    action = _action(str(message), category, module, lineno)
    if action == "ignore":
        return
    if action in ("default", "module", "once"):
        key = (str(message), category, "" if action == "once" else filename, lineno if action == "default" else 0)
        if key in _SHOWN:
            return
        _SHOWN.add(key)
    warnings.warn_explicit(message, category, filename, lineno, module=module, registry={})
